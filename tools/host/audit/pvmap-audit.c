// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-audit: find stale mappings of virtual-GPU apertures in running QEMU
 * guests, from the host, over QMP.
 *
 *   pvmap-audit [--json] [--max-reply BYTES] [--max-mappings N] [--max-tables N]
 *               [--timeout S] [--pat PAT] [--cross-check]
 *               [--live FILE] [--aperture BASE:SIZE] [--page-offset ADDR] SOCKET [...]
 *
 * For each guest: the apertures' guest-physical ranges from `info pci` (and
 * each --aperture given for that SOCKET: a range a device held before it
 * was unplugged, say), the vCPUs from `info cpus`, then each vCPU's paging
 * mode and CR3 (`info registers`, with that vCPU's cpu-index), and its
 * page tables, read from guest memory a table at a time (`xp`) and walked
 * here (audit_walk.c), from guest RAM alone (`info mtree`, less every
 * BAR of `info pci`: `xp` of a device's MMIO is the device's read, with
 * its side effects): each leaf at its size (4 MiB under 2-level paging,
 * 2 MiB, 1 GiB) with its PAT index; under page-table isolation, the
 * kernel's tables beside the user ones a vCPU in user space has loaded.
 * --cross-check compares the walk of the tables CR3 points at with QEMU's
 * own (`info tlb`).
 * A mapping is a process's (user) when its entry allows user access and it
 * lies below the kernel's first address: the 4- or 5-level layout's, or on
 * i386 PAGE_OFFSET (VMSPLIT), given with --page-offset or inferred from the
 * direct map. Every other mapping of an aperture page is the kernel's and
 * compared with what pvmap says is live (--live: the guest's debugfs
 * pvmap/live, for the SOCKET that follows); one that pvmap does not
 * account for is stale.
 * Exit: 0 clean, 1 stale mappings found, 2 could not check (everything:
 * a table that cannot be read or is not guest RAM, a bound hit, anything
 * not understood).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "audit_guest.h"

#define MAX_LIVE_FILE		(64u << 20)

/* what a guest may make the auditor hold; more is "could not check" (exit 2) */
size_t max_reply = 256u << 20;		/* --max-reply: bytes of one QMP reply */
size_t max_mappings = 1u << 22;		/* --max-mappings: aperture mappings */
size_t max_tables = 1u << 16;		/* --max-tables: page tables read, walked */
int reply_timeout_s = 120;		/* --timeout: seconds for one reply */
bool cross_check;			/* --cross-check: against `info tlb` */
uint64_t pat_msr;			/* --pat: the guest's PAT MSR */
bool pat_given;

struct conn {
	int fd;
	struct qmp_reader r;
	struct timespec deadline;
	char broken[256];	/* why the stream broke: every later command fails so */
};

static long ms_left(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/* The reader's source: the socket, within the reply's deadline. */
static long sock_read(void *ctx, char *buf, size_t len)
{
	struct conn *c = ctx;

	for (;;) {
		struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
		long left = ms_left(&c->deadline);
		ssize_t n;
		int rc;

		if (left <= 0)
			return -ETIMEDOUT;
		rc = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
		if (rc < 0 && errno != EINTR)
			return -errno;
		if (rc <= 0)
			continue;
		n = read(c->fd, buf, len);
		if (n >= 0)
			return n;
		/* a peer that closes with our command unread: the end of the stream */
		if (errno == ECONNRESET)
			return 0;
		if (errno != EINTR && errno != EAGAIN)
			return -errno;
	}
}

static void start_deadline(struct conn *c)
{
	clock_gettime(CLOCK_MONOTONIC, &c->deadline);
	c->deadline.tv_sec += reply_timeout_s;
}

/*
 * Run @json; the reply's string in *out (malloc()ed; NULL when not a
 * string). Once the stream broke (a write that failed, a reply cut short,
 * too long, malformed, late), nothing after it can be trusted: every later
 * command fails with the first cause.
 */
static int qmp_call(struct conn *c, const char *json, char **out, char *err, size_t errlen)
{
	size_t len = strlen(json), done = 0;
	int rc;

	*out = NULL;
	if (c->broken[0]) {
		snprintf(err, errlen, "%s", c->broken);
		return -1;
	}
	while (done < len) {
		/* MSG_NOSIGNAL: a guest that went away is an error, not SIGPIPE */
		ssize_t n = send(c->fd, json + done, len - done, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(c->broken, sizeof(c->broken), "QMP write: %s",
				 n ? strerror(errno) : "nothing written");
			snprintf(err, errlen, "%s", c->broken);
			return -1;
		}
		done += (size_t)n;
	}
	start_deadline(c);
	rc = qmp_next_reply(&c->r, out, err, errlen);
	if (rc < 0)
		snprintf(c->broken, sizeof(c->broken), "%s", err);
	return rc ? -1 : 0;
}

/*
 * One human-monitor command, on vCPU @cpu (-1: the monitor's default). Each
 * human-monitor-command runs in a monitor of its own: a "cpu N" before it
 * would not carry over, so the vCPU goes in its cpu-index argument.
 */
static int hmp(struct conn *c, const char *cmd, int cpu, char **out, char *err, size_t errlen)
{
	char json[256], index[32] = "";

	if (cpu >= 0)
		snprintf(index, sizeof(index), ", \"cpu-index\": %d", cpu);
	snprintf(json, sizeof(json),
		 "{\"execute\": \"human-monitor-command\", \"arguments\": {\"command-line\": \"%s\"%s}}\n",
		 cmd, index);
	if (qmp_call(c, json, out, err, errlen))
		return -1;
	if (!*out) {
		snprintf(err, errlen, "QMP: `%s` returned no text", cmd);
		return -1;
	}
	return 0;
}

/* The guest-physical memory the tables are in, read with `xp` where it is guest RAM. */
struct phys_reader {
	struct conn *c;
	const struct guest *g;
	bool not_ram;		/* an entry asked for outside guest RAM, not read */
};

static int phys_read(void *ctx, uint64_t addr, int bytes, uint64_t *val)
{
	struct phys_reader *r = ctx;
	char cmd[64], err[256], *text;
	int rc;

	if (!ram_holds(r->g->ram, r->g->nram, addr, (uint64_t)bytes)) {
		r->not_ram = true;
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "xp /1%cx %#" PRIx64, bytes == 4 ? 'w' : 'g', addr);
	if (hmp(r->c, cmd, -1, &text, err, sizeof(err)))
		return -1;
	rc = parse_xp(text, addr, val);
	free(text);
	return rc;
}

/* The page tables, a whole table in one `xp`. */
struct table_reader {
	struct conn *c;
	unsigned long reads;
	char err[256];
};

static int table_read(void *ctx, uint64_t addr, int bytes, int count, uint64_t *vals)
{
	struct table_reader *t = ctx;
	char cmd[64], *text;
	int rc;

	t->err[0] = '\0';
	snprintf(cmd, sizeof(cmd), "xp /%d%cx %#" PRIx64, count, bytes == 4 ? 'w' : 'g', addr);
	if (hmp(t->c, cmd, -1, &text, t->err, sizeof(t->err)))
		return -1;
	t->reads++;
	rc = parse_xp_table(text, addr, bytes, count, vals);
	if (rc == -1)
		snprintf(t->err, sizeof(t->err), "`%s` did not answer %d values", cmd, count);
	free(text);
	return rc;
}

/* One vCPU's page tables, walked. */
struct scan {
	struct guest *g;
	const struct cpu_paging *p;
	int vcpu;			/* position in g->cpu_index */
	struct page_offset_votes votes;
};

static int add_found(struct guest *g, const struct tlb_entry *e, int vcpu, uint64_t overlap)
{
	if (g->nfound == max_mappings) {
		snprintf(g->error, sizeof(g->error), "more than %zu mappings of aperture pages: "
			 "could not check them all (--max-mappings)", max_mappings);
		return 1;
	}
	if (g->nfound == g->capfound) {
		size_t cap = g->capfound ? g->capfound * 2 : 1024;
		struct found *more = realloc(g->found, cap * sizeof(*more));

		if (!more) {
			snprintf(g->error, sizeof(g->error), "out of memory at %zu mappings",
				 g->nfound);
			return 1;
		}
		g->found = more;
		g->capfound = cap;
	}
	g->found[g->nfound++] = (struct found){
		.e = *e, .vcpus = 1ULL << vcpu, .overlap = overlap,
	};
	return 0;
}

static int scan_entry(void *ctx, const struct tlb_entry *e)
{
	struct scan *s = ctx;
	uint64_t overlap;

	if (s->p->mode <= PAGING_PAE)
		page_offset_vote(&s->votes, e);
	overlap = aperture_overlap(e->pa, e->size, s->g->ap, s->g->nap);
	return overlap ? add_found(s->g, e, s->vcpu, overlap) : 0;
}

/* The aperture mappings of one source, for --cross-check. */
struct maplist {
	struct guest *g;
	struct conn *c;
	const struct cpu_paging *p;
	bool above_4g;			/* an aperture ends above 4 GiB */
	struct tlb_entry *e;
	size_t n, cap;
};

static int collect(void *ctx, const struct tlb_entry *entry)
{
	struct maplist *l = ctx;
	struct guest *g = l->g;
	struct tlb_entry e = *entry;

	/* `info tlb`'s: a 1 GiB page that might be one, a 4 MiB page's address above 4 GiB */
	if ((!e.size_known && aperture_overlap(e.pa, TLB_1G, g->ap, g->nap)) ||
	    (!e.pa_known && (l->above_4g || aperture_overlap(e.pa, e.size, g->ap, g->nap)))) {
		struct phys_reader rd = { .c = l->c, .g = g };

		if (tlb_resolve(l->p, &e, phys_read, &rd)) {
			snprintf(g->error, sizeof(g->error), "cannot read the page-table entries of "
				 "the large page at va %#" PRIx64 " (xp%s): could not tell its size or "
				 "address", e.va, rd.not_ram ? ": one is not in guest RAM, not read" : "");
			return 1;
		}
	}
	if (!aperture_overlap(e.pa, e.size, g->ap, g->nap))
		return 0;
	if (l->n == max_mappings) {
		snprintf(g->error, sizeof(g->error), "more than %zu mappings of aperture pages: "
			 "could not check them all (--max-mappings)", max_mappings);
		return 1;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		struct tlb_entry *more = realloc(l->e, cap * sizeof(*more));

		if (!more) {
			snprintf(g->error, sizeof(g->error), "out of memory");
			return 1;
		}
		l->e = more;
		l->cap = cap;
	}
	/* `info tlb` leaves a 4 KiB entry's PAT bit out: compared without it */
	if (e.size == TLB_4K)
		e.flags[TLB_FLAG_P] = '-';
	l->e[l->n++] = e;
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct tlb_entry *x = a, *y = b;

	if (x->va != y->va)
		return x->va < y->va ? -1 : 1;
	if (x->pa != y->pa)
		return x->pa < y->pa ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return strcmp(x->flags, y->flags);
}

/*
 * --cross-check: the aperture mappings of the walk of the tables CR3
 * points at, and of QEMU's own walk of them (`info tlb`), are the same.
 * Meant for a guest whose tables do not change meanwhile (a quiet one).
 */
static int cross_check_vcpu(struct guest *g, struct conn *c, struct walker *w, int i,
			    const struct cpu_paging *p)
{
	struct walk_roots loaded = g->cpu[i].roots;
	struct maplist walked = { .g = g, .c = c, .p = p }, qemu = walked;
	int cpu = g->cpu_index[i], rc = -1;
	char *text = NULL, err[256];
	size_t k;

	for (int a = 0; a < g->nap; a++)
		qemu.above_4g |= g->ap[a].end >> 32 != 0;
	loaded.n = 1;
	if (walk_tables(w, p, &loaded, collect, &walked)) {
		if (!g->error[0])
			snprintf(g->error, sizeof(g->error), "vCPU %d: %s", cpu, w->err);
		goto out;
	}
	if (hmp(c, "info tlb", cpu, &text, g->error, sizeof(g->error)))
		goto out;
	if (tlb_scan(text, p, collect, &qemu, err, sizeof(err))) {
		if (!g->error[0])
			snprintf(g->error, sizeof(g->error), "vCPU %d: %s", cpu, err);
		goto out;
	}
	if (walked.n)
		qsort(walked.e, walked.n, sizeof(*walked.e), entry_cmp);
	if (qemu.n)
		qsort(qemu.e, qemu.n, sizeof(*qemu.e), entry_cmp);
	for (k = 0; k < walked.n && k < qemu.n && !entry_cmp(&walked.e[k], &qemu.e[k]); k++)
		;
	if (k < walked.n || k < qemu.n) {
		const struct tlb_entry *x = k < walked.n ? &walked.e[k] : &qemu.e[k];

		snprintf(g->error, sizeof(g->error), "vCPU %d: --cross-check: the walk found %zu "
			 "aperture mappings, `info tlb` %zu; first difference at va %#" PRIx64
			 " (%s %s)", cpu, walked.n, qemu.n, x->va, x->flags,
			 k < walked.n ? "walked" : "in info tlb");
		goto out;
	}
	rc = 0;
out:
	free(text);
	free(walked.e);
	free(qemu.e);
	return rc;
}

static int found_cmp(const void *a, const void *b)
{
	const struct found *x = a, *y = b;

	if (x->e.va != y->e.va)
		return x->e.va < y->e.va ? -1 : 1;
	if (x->e.pa != y->e.pa)
		return x->e.pa < y->e.pa ? -1 : 1;
	if (x->e.size != y->e.size)
		return x->e.size < y->e.size ? -1 : 1;
	if (x->e.pat != y->e.pat)
		return x->e.pat < y->e.pat ? -1 : 1;
	return strcmp(x->e.flags, y->e.flags);
}

/* One record for each mapping, whichever vCPUs saw it. */
static void merge_found(struct guest *g)
{
	size_t m = 0;

	if (!g->nfound)
		return;
	qsort(g->found, g->nfound, sizeof(*g->found), found_cmp);
	for (size_t i = 0; i < g->nfound; i++) {
		if (m && !found_cmp(&g->found[m - 1], &g->found[i]))
			g->found[m - 1].vcpus |= g->found[i].vcpus;
		else
			g->found[m++] = g->found[i];
	}
	g->nfound = m;
}

/*
 * virtio-gpu's window as `info pci` has it (its BAR4, @g->ap's aperture
 * "virtio-gpu") and as `info mtree` has it, with the blobs in it, must be
 * the same, or which blobs are live cannot be told: 0, or -1 and the reason.
 */
static int check_window(struct guest *g)
{
	const struct aperture *pci = NULL;
	int n = 0;

	for (int a = 0; a < g->nap; a++)
		if (!strcmp(g->ap[a].kind, "virtio-gpu")) {
			pci = &g->ap[a];
			n++;
		}
	bool in_mtree = g->window.start <= g->window.end;

	if (n <= 1 && (pci ? in_mtree && g->window.start == pci->start &&
			     g->window.end == pci->end : !in_mtree))
		return 0;
	snprintf(g->error, sizeof(g->error), "virtio-gpu's window: %d in `info pci`, %s in "
		 "`info mtree`: could not tell which blobs are live", n,
		 !in_mtree ? "none" : pci ? "another" : "one");
	return -1;
}

/*
 * The blobs again, after the walk: a blob the host unmapped meanwhile
 * would leave a mapping of it judged a process's mmap. 0 when the window
 * and its blobs are as before, else -1 and the reason.
 */
static int blobs_unchanged(struct guest *g, struct conn *c)
{
	struct phys_range window, *blobs = malloc(AUDIT_MAX_BLOBS * sizeof(*blobs));
	char *text, err[256];
	int n = -1;

	if (!blobs) {
		snprintf(g->error, sizeof(g->error), "out of memory");
		return -1;
	}
	if (!hmp(c, "info mtree", -1, &text, g->error, sizeof(g->error))) {
		n = parse_mtree_hostmem(text, &window, blobs, AUDIT_MAX_BLOBS, err, sizeof(err));
		free(text);
		if (n != g->nblobs || window.start != g->window.start ||
		    window.end != g->window.end ||
		    memcmp(blobs, g->blobs, (size_t)g->nblobs * sizeof(*blobs)))
			snprintf(g->error, sizeof(g->error), "virtio-gpu's blobs changed while the "
				 "page tables were read (%d, then %d): could not check", g->nblobs, n);
		else
			n = -2;
	}
	free(blobs);
	return n == -2 ? 0 : -1;
}

/*
 * Whether @f maps a page of virtio-gpu's host-visible window that no live
 * blob holds: whoever maps it, kernel or process, reaches what the host
 * gave back or gives to the next blob.
 */
static bool maps_unbacked_window(const struct guest *g, const struct found *f)
{
	uint64_t last = f->e.pa + (f->e.size - 1);
	uint64_t at = f->e.pa > g->window.start ? f->e.pa : g->window.start;
	uint64_t end = last < g->window.end ? last : g->window.end;

	if (g->window.start > g->window.end || at > end)
		return false;
	/* the blobs are sorted and apart: walk [at, end] across them */
	for (int i = 0; i < g->nblobs && at <= end; i++) {
		if (g->blobs[i].end < at)
			continue;
		if (g->blobs[i].start > at)
			return true;
		if (g->blobs[i].end >= end)
			return false;
		at = g->blobs[i].end + 1;
	}
	return at <= end;
}

/* Whether pvmap's live table accounts for every aperture page @f maps. */
static bool is_live(const struct guest *g, const struct found *f)
{
	for (int a = 0; a < g->nap; a++) {
		uint64_t last = f->e.pa + (f->e.size - 1);
		uint64_t s = g->ap[a].start > f->e.pa ? g->ap[a].start : f->e.pa;
		uint64_t e = g->ap[a].end < last ? g->ap[a].end : last;

		if (s <= e && !live_covers(g->live, g->nlive, f->e.va + (s - f->e.pa), e - s + 1))
			return false;
	}
	return true;
}

static int read_live(struct guest *g)
{
	FILE *f = fopen(g->live_file, "r");
	size_t n = 0, cap = 65536;
	char *buf = malloc(cap);

	if (!f || !buf) {
		snprintf(g->error, sizeof(g->error), "%s: %s", g->live_file,
			 f ? "out of memory" : strerror(errno));
		goto fail;
	}
	for (;;) {
		if (n + 1 == cap) {
			char *more = cap >= MAX_LIVE_FILE ? NULL : realloc(buf, cap * 2);

			if (!more) {
				snprintf(g->error, sizeof(g->error), "%s: over %u bytes", g->live_file,
					 MAX_LIVE_FILE);
				goto fail;
			}
			buf = more;
			cap *= 2;
		}
		size_t got = fread(buf + n, 1, cap - 1 - n, f);

		if (!got)
			break;
		n += got;
	}
	if (ferror(f)) {
		snprintf(g->error, sizeof(g->error), "%s: read error", g->live_file);
		goto fail;
	}
	buf[n] = '\0';
	fclose(f);
	g->nlive = parse_live(buf, &g->live);
	free(buf);
	if (g->nlive < 0) {
		snprintf(g->error, sizeof(g->error), "%s: out of memory", g->live_file);
		return -1;
	}
	return 0;
fail:
	if (f)
		fclose(f);
	free(buf);
	return -1;
}

static int audit_vcpu(struct guest *g, struct conn *c, struct walker *w, int i,
		      struct page_offset_votes *votes)
{
	int cpu = g->cpu_index[i];
	struct cpu_paging p;
	struct scan s = { .g = g, .p = &p, .vcpu = i };
	struct table_reader *t = w->ctx;
	char *text;
	int rc;

	if (hmp(c, "info registers", cpu, &text, g->error, sizeof(g->error)))
		return -1;
	rc = parse_info_registers(text, &p);
	free(text);
	if (rc) {
		snprintf(g->error, sizeof(g->error), "vCPU %d: cannot tell its paging mode from "
			 "`info registers`", cpu);
		return -1;
	}
	if (p.mode == PAGING_OFF) {
		snprintf(g->error, sizeof(g->error),
			 "vCPU %d has paging disabled: nothing to audit yet", cpu);
		return -1;
	}
	if (i && p.mode != g->mode) {
		snprintf(g->error, sizeof(g->error), "vCPU %d pages %s, vCPU %d %s: the guest is "
			 "between modes", g->cpu_index[0], paging_name(g->mode), cpu,
			 paging_name(p.mode));
		return -1;
	}
	g->mode = p.mode;
	g->cpu[i].cpl = p.cpl;
	g->cpu[i].cr3 = p.cr3;
	rc = walk_roots(w, &p, &g->cpu[i].roots);
	if (!rc)
		rc = walk_tables(w, &p, &g->cpu[i].roots, scan_entry, &s);
	if (rc < 0 && !g->error[0])
		snprintf(g->error, sizeof(g->error), "vCPU %d: %.200s%s%.200s", cpu, w->err,
			 t->err[0] ? ": " : "", t->err);
	if (rc)
		return -1;
	g->audited = i + 1;
	for (int k = 0; k < AUDIT_N_PAGE_OFFSETS; k++)
		votes->bytes[k] += s.votes.bytes[k];
	merge_found(g);
	return cross_check ? cross_check_vcpu(g, c, w, i, &p) : 0;
}

/*
 * Whether some vCPU had the kernel's tables loaded: a Xen PV guest's vCPU
 * in user space has only its user table, and so has a vCPU in user space
 * under PTI whose kernel table beside it is not recognised (walk_roots(),
 * walk_tables()); the kernel's part is the same in every kernel table, so
 * one is enough.
 */
static bool kernel_tables_seen(struct guest *g)
{
	int user_only = 0, xen_pv = 0;

	for (int i = 0; i < g->audited; i++) {
		user_only += g->cpu[i].roots.user_only;
		xen_pv += g->cpu[i].roots.xen_pv;
	}
	if (!user_only || user_only < g->audited)
		return true;
	snprintf(g->error, sizeof(g->error), "every vCPU has user page tables loaded, which hold "
		 "none of its kernel's mappings, and its kernel's tables cannot be found from "
		 "here (%s): could not check them", xen_pv == user_only ? "a Xen PV guest's" :
		 !xen_pv ? "under PTI, CR3's bit 12 set, and the table below is not the kernel's "
		 "of the pair: an entry being written?" : "a Xen PV guest's, and PTI's unpaired");
	return false;
}

static int classify(struct guest *g, const struct page_offset_votes *votes)
{
	g->top = user_top(g->mode);
	g->split = paging_name(g->mode);
	if (g->mode >= PAGING_4LEVEL && g->page_offset) {
		snprintf(g->error, sizeof(g->error), "--page-offset is for 32-bit guests; this one "
			 "pages %s", paging_name(g->mode));
		return -1;
	}
	if (g->mode <= PAGING_PAE) {
		g->top = g->page_offset ? g->page_offset : page_offset_infer(votes);
		g->split = g->page_offset ? "--page-offset" : g->top ? "direct map" : "unknown";
	}
	for (size_t i = 0; i < g->nfound; i++) {
		struct found *f = &g->found[i];

		f->unbacked = maps_unbacked_window(g, f);
		switch (audit_classify(&f->e, g->top)) {
		case KIND_USER:
			if (f->unbacked) {
				f->kind = "stale";
				g->nstale++;
				g->bytes_stale += f->overlap;
				break;
			}
			f->kind = "user";
			g->nuser++;
			g->bytes_user += f->overlap;
			break;
		case KIND_KERNEL:
			if (!f->unbacked && is_live(g, f)) {
				f->kind = "live";
				g->nlivemaps++;
				g->bytes_live += f->overlap;
			} else {
				f->kind = "stale";
				g->nstale++;
				g->bytes_stale += f->overlap;
			}
			break;
		default:
			snprintf(g->error, sizeof(g->error), "cannot tell a user mapping from the "
				 "kernel's at va %#" PRIx64 ": PAGE_OFFSET is neither given "
				 "(--page-offset) nor seen in the direct map", f->e.va);
			return -1;
		}
	}
	return 0;
}

/*
 * The guest's RAM, once: the machine's RAM in `info mtree`'s tree of
 * "memory", less every BAR (@bars, those of `info pci`). Page tables are
 * read from nothing else. Never `info mtree -f`: after it QEMU 7.2 never
 * completes a later device_del (audit_ram.c).
 */
static int learn_ram(struct guest *g, struct conn *c, const struct phys_range *bars, int nbar)
{
	char *text, err[256];

	if (hmp(c, "info mtree", -1, &text, g->error, sizeof(g->error)))
		return -1;
	g->nram = parse_mtree_ram(text, bars, nbar, g->ram, AUDIT_MAX_RAM, err, sizeof(err));
	if (g->nram < 0) {
		free(text);
		g->nram = 0;
		snprintf(g->error, sizeof(g->error), "cannot tell where the guest's RAM is: %s", err);
		return -1;
	}
	g->blobs = malloc(AUDIT_MAX_BLOBS * sizeof(*g->blobs));
	g->nblobs = g->blobs ? parse_mtree_hostmem(text, &g->window, g->blobs, AUDIT_MAX_BLOBS,
						   err, sizeof(err)) : -1;
	free(text);
	if (g->nblobs < 0) {
		g->nblobs = 0;
		snprintf(g->error, sizeof(g->error), "cannot tell which blobs virtio-gpu's window "
			 "holds: %s", g->blobs ? err : "out of memory");
		return -1;
	}
	return 0;
}

int audit(struct guest *g)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct conn c = { .fd = -1 };
	struct page_offset_votes votes = { { 0 } };
	struct table_reader reader = { .c = &c };
	struct phys_range *bars = malloc(AUDIT_MAX_BARS * sizeof(*bars));
	struct walker w;
	char *text = NULL, *line;
	int rc = -1, errnum, n, nbar;

	if (!bars || (g->live_file && read_live(g))) {
		if (!bars)
			snprintf(g->error, sizeof(g->error), "out of memory");
		free(bars);
		return -1;
	}
	if (strlen(g->socket) >= sizeof(addr.sun_path)) {
		snprintf(g->error, sizeof(g->error), "socket path too long");
		free(bars);
		return -1;
	}
	strcpy(addr.sun_path, g->socket);
	qmp_reader_init(&c.r, sock_read, &c, max_reply);
	walker_init(&w, table_read, &reader, max_tables);
	/* a read of adjacent tables must not be a reply over --max-reply: ~16 KiB a table */
	w.max_run = max_reply / (20u << 10) < WALK_RUN ? max_reply / (20u << 10) : WALK_RUN;
	if (!w.max_run)
		w.max_run = 1;
	c.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c.fd < 0 || connect(c.fd, (struct sockaddr *)&addr, sizeof(addr))) {
		snprintf(g->error, sizeof(g->error), "cannot connect to QMP at %s: %s (is the guest running?)",
			 g->socket, strerror(errno));
		goto out;
	}
	start_deadline(&c);
	n = qmp_read_line(&c.r, &line, &errnum);
	if (n || qmp_classify(line, &text) != QMP_GREETING) {
		snprintf(g->error, sizeof(g->error), "no QMP greeting from %s (%s)", g->socket,
			 n == QMP_READ_CLOSED ? "it closed the connection: another QMP client on it?" :
			 n == QMP_READ_IO && errnum == ETIMEDOUT ? "timed out" :
			 n ? "its first line could not be read" : "its first line is something else");
		free(line);
		free(text);
		goto out;
	}
	free(line);
	if (qmp_call(&c, "{\"execute\": \"qmp_capabilities\"}\n", &text, g->error,
		     sizeof(g->error)))
		goto out;
	free(text);

	if (hmp(&c, "info pci", -1, &text, g->error, sizeof(g->error)))
		goto out;
	n = parse_info_pci(text, g->ap, AUDIT_MAX_APERTURES);
	nbar = parse_pci_bars(text, bars, AUDIT_MAX_BARS);
	free(text);
	if (n > AUDIT_MAX_APERTURES) {
		snprintf(g->error, sizeof(g->error), "%d apertures in `info pci`, at most %d: could "
			 "not check them all", n, AUDIT_MAX_APERTURES);
		goto out;
	}
	if (nbar < 0 || nbar > AUDIT_MAX_BARS) {
		snprintf(g->error, sizeof(g->error), nbar < 0 ? "`info pci`: a BAR line that is not "
			 "QEMU's" : "more than %d memory BARs in `info pci`", AUDIT_MAX_BARS);
		goto out;
	}
	if (learn_ram(g, &c, bars, nbar))
		goto out;
	w.ram = g->ram;
	w.nram = g->nram;
	g->nap = n;
	for (int i = 0; i < g->ngiven; i++)
		g->ap[g->nap++] = g->given[i];
	if (check_window(g))
		goto out;
	if (hmp(&c, "info cpus", -1, &text, g->error, sizeof(g->error)))
		goto out;
	g->ncpus = parse_info_cpus(text, g->cpu_index, MAX_VCPUS);
	free(text);
	if (g->ncpus <= 0 || g->ncpus > MAX_VCPUS) {
		snprintf(g->error, sizeof(g->error), g->ncpus > MAX_VCPUS ?
			 "%d vCPUs, at most %d: could not check them all" : "cannot count the vCPUs",
			 g->ncpus, MAX_VCPUS);
		goto out;
	}
	for (int i = 0; i < g->ncpus; i++)
		if (audit_vcpu(g, &c, &w, i, &votes))
			goto out;
	if (!kernel_tables_seen(g))
		goto out;
	if (g->window.start <= g->window.end && blobs_unchanged(g, &c))
		goto out;
	/* after the page-table check, which explains an early guest better */
	if (!g->nap) {
		snprintf(g->error, sizeof(g->error), "no virtual-GPU aperture in `info pci`");
		goto out;
	}
	rc = classify(g, &votes);
out:
	g->tables = reader.reads;
	free(bars);
	walker_free(&w);
	if (c.fd >= 0)
		close(c.fd);
	qmp_reader_free(&c.r);
	return rc;
}

/* Audit and report each of the @n guests: the exit status. */
static int audit_all(struct guest *g, int n, bool json)
{
	size_t stale = 0;
	int failed = 0;

	if (json)
		printf("{\"guests\": [\n");
	for (int i = 0; i < n; i++) {
		if (audit(&g[i])) {
			failed++;
			if (!json) {
				fprintf(stderr, "pvmap-audit: ");
				print_text(stderr, g[i].socket);
				fprintf(stderr, ": ");
				print_text(stderr, g[i].error);
				fprintf(stderr, "\n");
			}
		}
		stale += g[i].nstale;
		report(&g[i], json, i == n - 1);
		free(g[i].found);
		free(g[i].live);
		free(g[i].blobs);
	}
	if (json)
		printf("], \"stale\": %zu, \"failed\": %d}\n", stale, failed);
	return failed ? 2 : stale ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct guest *g = calloc(argc, sizeof(*g));
	bool json = false;
	int n = 0, rc;

	if (!g)
		return 2;
	rc = parse_args(argc, argv, g, &n, &json);
	if (rc)
		rc = usage(rc > 0 ? stdout : stderr);
	else
		rc = audit_all(g, n, json);
	free(g);
	return rc;
}
