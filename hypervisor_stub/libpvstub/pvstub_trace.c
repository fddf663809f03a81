// SPDX-License-Identifier: GPL-2.0
/* Trace decoding and replay; see pvstub_trace.h and include/uapi/pvmap_trace.h. */
#include "pvstub_internal.h"
#include "pvstub_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <uapi/pvmap_trace.h>

#define MAX_TRACE_CPUS	PVSTUB_MAX_VCPUS
#define MAX_VAS		65536	/* distinct pages a replay may touch */
#define MAX_A_PAGES	4096
#define RAM_FRAMES	0x10000ULL	/* 256 MiB of guest RAM for the page tables */

static int parse_u64(const char **p, int base, uint64_t *v)
{
	char *end;

	if (**p != ' ')
		return -EINVAL;
	(*p)++;
	if (!((**p >= '0' && **p <= '9') || (base == 16 && ((**p >= 'a' && **p <= 'f')))))
		return -EINVAL;
	errno = 0;
	*v = strtoull(*p, &end, base);
	if (errno || end - *p > 16)
		return -EINVAL;
	*p = end;
	return 0;
}

int pvstub_trace_decode(const char *line, struct pvstub_trace_op *op)
{
	const char *p = line, *event;
	uint64_t cpu, unused;
	int nargs;

	if (!*line || *line == '\n' || *line == '#' ||
	    !strncmp(line, PVMAP_TRACE_HEADER, strlen(PVMAP_TRACE_HEADER)))
		return 1;
	/* tracefs: the event's text, whose four fields are always there */
	event = strstr(line, PVMAP_TRACE_EVENT);
	if (event)
		p = event + strlen(PVMAP_TRACE_EVENT);
	memset(op, 0, sizeof(*op));
	op->op = *p++;
	switch (op->op) {
	case PVMAP_TRACE_SET:
	case PVMAP_TRACE_FLUSH_ALL:
		nargs = 2;
		break;
	case PVMAP_TRACE_CLEAR:
	case PVMAP_TRACE_FLUSH:
		nargs = 1;
		break;
	case PVMAP_TRACE_BEGIN:
	case PVMAP_TRACE_END:
		nargs = 0;
		break;
	default:
		return -EINVAL;
	}
	if (parse_u64(&p, 10, &cpu) || cpu >= MAX_TRACE_CPUS)
		return -EINVAL;
	op->cpu = cpu;
	if (nargs >= 1 && (parse_u64(&p, 16, &op->va) || (op->va & 0xfff)))
		return -EINVAL;
	if (nargs >= 2 && parse_u64(&p, 16, &op->arg))
		return -EINVAL;
	for (; event && nargs < 2; nargs++)
		if (parse_u64(&p, 16, &unused) || unused)
			return -EINVAL;
	if (op->op == PVMAP_TRACE_FLUSH_ALL && (!op->arg || op->arg > MAX_A_PAGES))
		return -EINVAL;
	if (*p == '\n')
		p++;
	return *p ? -EINVAL : 0;
}

/* One CPU's lazy-MMU queue, and the VAs its updates map. */
struct replay_cpu {
	bool active;
	struct pvstub_queue q;
	uint64_t touched[PVSTUB_QUEUE_MAX];
	unsigned int ntouched;
};

struct replay {
	struct pvstub *hv;
	struct pvstub_replay_result *r;
	struct replay_cpu cpu[MAX_TRACE_CPUS];
	uint64_t *vas;
	size_t nvas;
};

static void touch(struct replay *rp, unsigned int cpu, uint64_t va)
{
	uint64_t frame;

	pvstub_access(rp->hv, cpu, va, true, &frame);
}

static void flush_batch(struct replay *rp, unsigned int cpu)
{
	struct replay_cpu *c = &rp->cpu[cpu];

	pvstub_queue_flush(rp->hv, cpu, &c->q);
	for (unsigned int i = 0; i < c->ntouched; i++)
		touch(rp, cpu, c->touched[i]);
	c->ntouched = 0;
}

static void pte_op(struct replay *rp, unsigned int cpu, uint64_t va, uint64_t val)
{
	struct replay_cpu *c = &rp->cpu[cpu];
	struct mmu_update u = {
		.ptr = pvstub_pte_maddr(rp->hv, va) | MMU_NORMAL_PT_UPDATE, .val = val,
	};

	if (!c->active) {
		pvstub_mmu_update(rp->hv, cpu, &u, 1, NULL, DOMID_SELF);
		if (val & PTE_P)
			touch(rp, cpu, va);
		return;
	}
	if (c->ntouched == PVSTUB_QUEUE_MAX)
		flush_batch(rp, cpu);
	if (!pvstub_queue_update(&c->q, &u)) {
		flush_batch(rp, cpu);
		pvstub_queue_update(&c->q, &u);
	}
	if (val & PTE_P)
		c->touched[c->ntouched++] = va;
}

static void ext_op(struct replay *rp, unsigned int cpu, unsigned int cmd, uint64_t va)
{
	struct replay_cpu *c = &rp->cpu[cpu];
	struct mmuext_op op = { .cmd = cmd, .arg1.linear_addr = va };

	if (!c->active) {
		pvstub_mmuext_op(rp->hv, cpu, &op, 1, NULL, DOMID_SELF);
		return;
	}
	if (!pvstub_queue_mmuext(&c->q, &op)) {
		flush_batch(rp, cpu);
		pvstub_queue_mmuext(&c->q, &op);
	}
}

static void replay_op(struct replay *rp, const struct pvstub_trace_op *op)
{
	switch (op->op) {
	case PVMAP_TRACE_SET:
		pte_op(rp, op->cpu, op->va, op->arg);
		rp->r->pages_mapped++;
		rp->r->naive_hypercalls++;
		break;
	case PVMAP_TRACE_CLEAR:
		pte_op(rp, op->cpu, op->va, 0);
		rp->r->naive_hypercalls++;
		break;
	case PVMAP_TRACE_FLUSH:
		ext_op(rp, op->cpu, MMUEXT_INVLPG_LOCAL, op->va);
		rp->r->naive_hypercalls++;
		break;
	case PVMAP_TRACE_FLUSH_ALL:
		for (uint64_t i = 0; i < op->arg; i++)
			ext_op(rp, op->cpu, MMUEXT_INVLPG_ALL, op->va + (i << 12));
		rp->r->naive_hypercalls += op->arg;
		break;
	case PVMAP_TRACE_BEGIN:
		rp->cpu[op->cpu].active = true;
		break;
	case PVMAP_TRACE_END:
		flush_batch(rp, op->cpu);
		rp->cpu[op->cpu].active = false;
		break;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort the VAs and drop repeats: O(n log n), where a search per VA was quadratic. */
static void unique_vas(struct replay *rp)
{
	size_t n = 0;

	if (!rp->nvas)
		return;
	qsort(rp->vas, rp->nvas, sizeof(*rp->vas), cmp_u64);
	for (size_t i = 0; i < rp->nvas; i++)
		if (!n || rp->vas[i] != rp->vas[n - 1])
			rp->vas[n++] = rp->vas[i];
	rp->nvas = n;
}

/*
 * A page the trace touches: its L1, and a place in the list of VAs touched
 * at the end. The list keeps repeats until it fills (twice MAX_VAS), then
 * drops them; more than MAX_VAS distinct pages is -E2BIG.
 */
static int add_va(struct replay *rp, uint64_t va, size_t *cap)
{
	if (rp->nvas == *cap && *cap >= 2 * MAX_VAS) {
		unique_vas(rp);
		if (rp->nvas > MAX_VAS)
			return -E2BIG;
	}
	if (rp->nvas == *cap) {
		uint64_t *p = realloc(rp->vas, (*cap ? *cap * 2 : 64) * sizeof(*p));

		if (!p)
			return -ENOMEM;
		rp->vas = p;
		*cap = *cap ? *cap * 2 : 64;
	}
	rp->vas[rp->nvas++] = va;
	return pvstub_alloc_l1(rp->hv, va);
}

/* Split @text into NUL-terminated lines in a copy; their count, or -ENOMEM. */
static long split_lines(const char *text, size_t len, char **copy, char ***lines)
{
	size_t n = 0, cap = 64;
	char *p;

	*copy = malloc(len + 1);
	*lines = malloc(cap * sizeof(**lines));
	if (!*copy || !*lines)
		return -ENOMEM;
	memcpy(*copy, text, len);
	(*copy)[len] = '\0';
	for (p = *copy; p && *p; ) {
		char *nl = strchr(p, '\n');

		if (n == cap) {
			char **more = realloc(*lines, 2 * cap * sizeof(**lines));

			if (!more)
				return -ENOMEM;
			*lines = more;
			cap *= 2;
		}
		(*lines)[n++] = p;
		if (nl)
			*nl++ = '\0';
		p = nl;
	}
	return n;
}

/* The trace's ops (headers and comments left out), the vCPUs and frames they name. */
struct trace_ops {
	struct pvstub_trace_op *op;
	size_t n;
	unsigned int maxcpu;
	uint64_t fmin, fmax;		/* the frames mapped: fmin UINT64_MAX if none */
};

static int decode_ops(char **lines, long nlines, struct trace_ops *t,
		      struct pvstub_replay_result *r)
{
	t->fmin = UINT64_MAX;
	t->op = calloc(nlines, sizeof(*t->op));
	if (!t->op)
		return -ENOMEM;
	for (long i = 0; i < nlines; i++) {
		struct pvstub_trace_op *op = &t->op[t->n];
		int d = pvstub_trace_decode(lines[i], op);

		if (d < 0) {
			r->bad_line = i + 1;
			return -EINVAL;
		}
		if (d)
			continue;
		if (op->cpu > t->maxcpu)
			t->maxcpu = op->cpu;
		if (op->op == PVMAP_TRACE_SET && (op->arg & PTE_P)) {
			uint64_t f = PTE_FRAME(op->arg);

			t->fmin = f < t->fmin ? f : t->fmin;
			t->fmax = f > t->fmax ? f : t->fmax;
		}
		t->n++;
	}
	return 0;
}

/* Every page the ops touch, once each, in rp->vas: -E2BIG past MAX_VAS. */
static int collect_vas(struct replay *rp, const struct trace_ops *t)
{
	size_t vcap = 0;
	int rc = 0;

	for (size_t i = 0; i < t->n && !rc; i++) {
		const struct pvstub_trace_op *op = &t->op[i];

		if (op->op == PVMAP_TRACE_BEGIN || op->op == PVMAP_TRACE_END)
			continue;
		for (uint64_t p = 0; !rc && p < (op->op == PVMAP_TRACE_FLUSH_ALL ?
						 op->arg : 1); p++)
			rc = add_va(rp, op->va + (p << 12), &vcap);
	}
	if (rc)
		return rc;
	unique_vas(rp);
	return rp->nvas > MAX_VAS ? -E2BIG : 0;
}

/* The hypervisor takes every mapped frame back; then the guest looks again. */
static int revoke_and_touch(struct replay *rp, const struct trace_ops *t,
			    struct pvstub_replay_result *r, FILE *report, bool json)
{
	uint64_t *frames = malloc((r->pages_mapped + 1) * sizeof(*frames));
	size_t nframes = 0, n;

	if (!frames)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		if (t->op[i].op == PVMAP_TRACE_SET && (t->op[i].arg & PTE_P))
			frames[nframes++] = PTE_FRAME(t->op[i].arg);
	qsort(frames, nframes, sizeof(*frames), cmp_u64);
	n = 0;
	for (size_t i = 0; i < nframes; i++)
		if (!n || frames[i] != frames[n - 1])
			frames[n++] = frames[i];
	/* all at once: one walk of the tables and TLBs, not one a frame */
	r->stale_at_revoke += pvstub_revoke_frames(rp->hv, frames, n, json ? NULL : report);
	for (unsigned int c = 0; c <= t->maxcpu; c++)
		for (size_t i = 0; i < rp->nvas; i++)
			touch(rp, c, rp->vas[i]);
	free(frames);
	return 0;
}

int pvstub_replay(const char *text, size_t len, struct pvstub_replay_result *r,
		  FILE *report, bool json)
{
	struct trace_ops t = { 0 };
	struct replay rp = { .r = r };
	char *copy = NULL, **lines = NULL;
	long nlines;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	nlines = split_lines(text, len, &copy, &lines);
	if (nlines < 0) {
		rc = -ENOMEM;
		goto out;
	}
	if (!nlines || (strcmp(lines[0], PVMAP_TRACE_HEADER) &&
			strncmp(lines[0], PVMAP_TRACE_TRACEFS, strlen(PVMAP_TRACE_TRACEFS)))) {
		r->bad_line = 1;
		rc = -EINVAL;
		goto out;
	}
	rc = decode_ops(lines, nlines, &t, r);
	if (rc)
		goto out;
	/* The mapped frames are the aperture; it must lie above the model's RAM. */
	if (t.fmin != UINT64_MAX && t.fmin < RAM_FRAMES) {
		rc = -E2BIG;
		goto out;
	}
	rp.hv = pvstub_create(&(struct pvstub_config){
		.nr_vcpus = t.maxcpu + 1, .ram_frames = RAM_FRAMES,
		.aperture_first = t.fmin == UINT64_MAX ? RAM_FRAMES : t.fmin,
		.aperture_frames = t.fmin == UINT64_MAX ? 0 : t.fmax - t.fmin + 1,
		.max_tables = MAX_VAS,	/* the host's own trace: MAX_VAS bounds it */
	});
	if (!rp.hv) {
		rc = -ENOMEM;
		goto out;
	}
	rc = collect_vas(&rp, &t);
	if (rc)
		goto out;

	for (size_t i = 0; i < t.n; i++)
		replay_op(&rp, &t.op[i]);
	for (unsigned int c = 0; c <= t.maxcpu; c++)
		flush_batch(&rp, c);
	r->ops = t.n;

	rc = revoke_and_touch(&rp, &t, r, report, json);
	if (rc)
		goto out;
	pvstub_counts(rp.hv, &r->counts);
	r->violations = report ? pvstub_report_violations(rp.hv, report, json)
			       : (unsigned int)r->counts.violations;
out:
	pvstub_destroy(rp.hv);
	free(rp.vas);
	free(t.op);
	free(lines);
	free(copy);
	return rc;
}
