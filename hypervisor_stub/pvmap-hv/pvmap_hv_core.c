// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-hv's request path (pvmap_hv_core.h): HELLO, REGISTER, UNREGISTER
 * and MULTICALL on the hypervisor model, the guest's RAM as QEMU lays it
 * out, the control commands, and a rate-limited log. No sockets here.
 */
#define _GNU_SOURCE
#include "pvmap_hv_core.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REFUSALS	256
#define DATA_OFFSET	offsetof(struct pvmap_hv_request, data)
#define GPA_4G		0x100000000ULL
#define XEN_MSR_PAT	0x0000050100070406ULL	/* what HELLO's PAT 0 stands for */

/* A refused multicall entry, as the control socket lists it. */
struct refusal {
	uint64_t call;			/* the daemon's number of the request */
	unsigned int vcpu, op, index;	/* index: of the failing update or op */
	uint64_t arg0, arg1;		/* mmu_update ptr and val, or mmuext cmd and va */
	int rc;
};

struct pvmap_hv {
	struct pvmap_hv_config cfg;
	uint64_t calls, bad, abandoned;
	/* the hypervisor, with RAM */
	struct pvstub *stub;
	uint8_t *ram;
	uint64_t ram_size, below, above;	/* the RAM file: below 4 GiB, then above */
	unsigned int abi;		/* the guest's, from HELLO: 32 or 64 */
	uint64_t multicalls, registered_calls;
	struct refusal refusals[MAX_REFUSALS];
	unsigned int nrefusals;
	uint64_t refusals_total;
	/* the log's rate limit: lines printed and suppressed since @log_since */
	uint64_t log_since;
	unsigned int log_printed;
	uint64_t log_suppressed;
	/*
	 * A hypervisor that lies (control "garbage on", for the guest's
	 * pv_daemon_garbage): each request is served, then answered with a
	 * positive result and garbage in data[0].
	 */
	bool garbage;
	/*
	 * A slow hypervisor (control "late MS", for the guest's
	 * pv_daemon_slow): each request taken is served @late_ms late;
	 * @late_served counts them.
	 */
	unsigned int late_ms;
	uint64_t late_served;
	/*
	 * One that refuses to clear (control "refuse-clears on", for the
	 * guest's pv_refused_clear): a multicall with a clear in it is refused
	 * whole, -EPERM, and none of it served.
	 */
	bool refuse_clears;
	/*
	 * One that acknowledges what it does not make (control "fake-acks
	 * on", for the guest's pv_daemon_fake_acks): a multicall is answered
	 * 0, every entry's result 0, and none of it served.
	 */
	bool fake_acks;
	/* the request being served: a private copy, so the guest cannot change it meanwhile */
	union {
		struct pvmap_hv_request req;
		uint8_t bytes[PVMAP_HV_AREA_SIZE];
	} copy;
};

_Static_assert(sizeof(struct pvmap_hv_request) == PVMAP_HV_AREA_SIZE, "a request fills its area");

int pvmap_hv_ram_layout(enum pvmap_hv_machine machine, uint64_t ram_size, uint64_t *below,
			uint64_t *above)
{
	uint64_t lowmem;

	if (!ram_size || (ram_size & 0xfff))
		return -EINVAL;
	switch (machine) {
	case PVMAP_HV_PC:
		/* max-ram-below-4g's default, moved down to 3 GiB (gigabyte_align) when split */
		lowmem = ram_size >= 0xe0000000ULL ? 0xc0000000ULL : 0xe0000000ULL;
		break;
	case PVMAP_HV_Q35:
		lowmem = ram_size >= 0xb0000000ULL ? 0x80000000ULL : 0xb0000000ULL;
		break;
	default:
		return -EINVAL;
	}
	*below = ram_size < lowmem ? ram_size : lowmem;
	*above = ram_size - *below;
	return 0;
}

void *pvmap_hv_gpa(struct pvmap_hv *hv, uint64_t gpa, uint64_t len)
{
	if (!hv->ram)
		return NULL;
	if (gpa < hv->below)
		return len <= hv->below - gpa ? hv->ram + gpa : NULL;
	if (gpa >= GPA_4G && gpa - GPA_4G < hv->above && len <= hv->above - (gpa - GPA_4G))
		return hv->ram + hv->below + (gpa - GPA_4G);
	return NULL;		/* the PCI hole, or past the RAM */
}

static uint64_t now_ms(const struct pvmap_hv *hv)
{
	struct timespec ts;

	if (hv->cfg.now_ms)
		return hv->cfg.now_ms();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Log lines allowed now: a burst per interval; what the last one suppressed is said first. */
static unsigned int log_budget(struct pvmap_hv *hv)
{
	uint64_t now = now_ms(hv);

	if (now - hv->log_since >= PVMAP_HV_LOG_INTERVAL_MS) {
		if (hv->log_suppressed && hv->cfg.log)
			fprintf(hv->cfg.log, "pvmap-hv: %" PRIu64 " log lines suppressed\n",
				hv->log_suppressed);
		hv->log_since = now;
		hv->log_printed = 0;
		hv->log_suppressed = 0;
	}
	return hv->cfg.log ? PVMAP_HV_LOG_BURST - hv->log_printed : 0;
}

/* The registered entries against their shadow: each one the guest changed is a violation. */
static void check_shadow(struct pvmap_hv *hv)
{
	unsigned int budget = log_budget(hv), before = budget;
	unsigned int found = pvstub_check_shadow_budget(hv->stub, hv->cfg.log, &budget);

	hv->log_printed += before - budget;
	hv->log_suppressed += found - (before - budget);
}

/*
 * A guest address in a request: an offset into the request's own area
 * (its copy), aligned for what is read there; NULL when out of bounds.
 */
static void *guest_mem(void *opaque, uint64_t addr, size_t len)
{
	struct pvmap_hv *hv = opaque;

	if (addr < DATA_OFFSET || addr > sizeof(hv->copy) || len > sizeof(hv->copy) - addr ||
	    addr % (len < 8 ? 4 : 8))
		return NULL;
	return hv->copy.bytes + addr;
}

struct pvmap_hv *pvmap_hv_create(const struct pvmap_hv_config *cfg, void *ram,
				 uint64_t ram_size)
{
	struct pvstub_config scfg = { .nr_vcpus = cfg->nr_vcpus, .guest_mem = guest_mem,
				      .max_tables = cfg->max_tables };
	struct pvmap_hv *hv;

	if (!cfg->nr_vcpus || cfg->nr_vcpus > PVMAP_HV_MAX_VCPUS)
		return NULL;
	hv = calloc(1, sizeof(*hv));
	if (!hv)
		return NULL;
	hv->cfg = *cfg;
	if (!ram)
		return hv;
	if (pvmap_hv_ram_layout(cfg->machine, ram_size, &hv->below, &hv->above)) {
		if (cfg->log)
			fprintf(cfg->log, "pvmap-hv: %" PRIu64 " bytes of RAM: not a size QEMU "
				"gives a guest (whole pages)\n", ram_size);
		free(hv);
		return NULL;
	}
	hv->ram = ram;
	hv->ram_size = ram_size;
	/* the frame table: the guest's RAM on both sides of the hole; apertures come later */
	scfg.ram_frames = hv->below >> 12;
	scfg.ram_high_frames = hv->above >> 12;
	scfg.guest_opaque = hv;
	hv->stub = pvstub_create(&scfg);
	if (!hv->stub) {
		if (cfg->log)
			fprintf(cfg->log, "pvmap-hv: cannot create the hypervisor model\n");
		free(hv);
		return NULL;
	}
	return hv;
}

void pvmap_hv_destroy(struct pvmap_hv *hv)
{
	if (!hv)
		return;
	pvstub_destroy(hv->stub);
	free(hv);
}

struct pvstub *pvmap_hv_stub(struct pvmap_hv *hv)
{
	return hv->stub;
}

uint64_t pvmap_hv_calls(const struct pvmap_hv *hv)
{
	return hv->calls;
}

uint64_t pvmap_hv_unknown(const struct pvmap_hv *hv)
{
	return hv->bad;
}

uint64_t pvmap_hv_abandoned(const struct pvmap_hv *hv)
{
	return hv->abandoned;
}

bool pvmap_hv_take(struct pvmap_hv *hv, struct pvmap_hv_request *area, uint32_t *seq)
{
	uint32_t posted = __atomic_load_n(&area->seq, __ATOMIC_ACQUIRE) & PVMAP_HV_SEQ_MASK;
	uint32_t done = __atomic_load_n(&area->done, __ATOMIC_ACQUIRE);

	if ((done & PVMAP_HV_SEQ_MASK) == posted) {
		/* answered; or abandoned before this doorbell was seen, not yet counted */
		if (done != (posted | PVMAP_HV_ABANDONED))
			return false;
		goto abandoned;
	}
	/* the guest's exchange and this one: exactly one of them wins */
	if (!__atomic_compare_exchange_n(&area->done, &done, posted | PVMAP_HV_TAKEN, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		if (done != (posted | PVMAP_HV_ABANDONED))
			return false;	/* not the guest's word: leave it alone */
		goto abandoned;
	}
	*seq = posted;
	return true;
abandoned:
	/*
	 * Counted once: TAKEN beside ABANDONED marks it seen for any later
	 * doorbell; exchanged, so that it never overwrites a newer request's word.
	 */
	done = posted | PVMAP_HV_ABANDONED;
	if (__atomic_compare_exchange_n(&area->done, &done, done | PVMAP_HV_TAKEN, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		hv->abandoned++;
	return false;
}

void pvmap_hv_complete(struct pvmap_hv_request *area, uint32_t seq)
{
	uint32_t taken = seq | PVMAP_HV_TAKEN;

	/*
	 * The results are in place; then the completion: the guest reads them
	 * once done == seq. Only the request this daemon took: the word is the
	 * daemon's until then, and nothing else may be overwritten by it.
	 */
	__atomic_compare_exchange_n(&area->done, &taken, seq, false, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
}

static void log_refusal(struct pvmap_hv *hv, unsigned int v, unsigned int op,
			unsigned int index, uint64_t arg0, uint64_t arg1, int rc)
{
	hv->refusals_total++;
	if (hv->nrefusals < MAX_REFUSALS)
		hv->refusals[hv->nrefusals++] = (struct refusal){
			.call = hv->calls, .vcpu = v, .op = op, .index = index,
			.arg0 = arg0, .arg1 = arg1, .rc = rc,
		};
}

/*
 * Log a refused multicall entry with the update it stopped at: the done
 * counter, where the guest passed one, says which.
 */
static void log_entry(struct pvmap_hv *hv, unsigned int v, const uint64_t *a, unsigned int op,
		      int rc)
{
	const unsigned int *done = a[2] ? guest_mem(hv, a[2], sizeof(*done)) : NULL;
	unsigned int i = done ? *done : 0;

	if (op == __HYPERVISOR_mmu_update) {
		const struct mmu_update *u = guest_mem(hv, a[0] + (uint64_t)i * sizeof(*u),
						       sizeof(*u));

		log_refusal(hv, v, op, i, u ? u->ptr : 0, u ? u->val : 0, rc);
	} else if (op == __HYPERVISOR_mmuext_op && hv->abi == 32) {
		/* 12-byte elements: the i-th may be only 4-aligned, so its fields one by one */
		uint64_t at = a[0] + (uint64_t)i * sizeof(struct pvstub_compat_mmuext_op);
		const uint32_t *cmd = guest_mem(hv, at, 4), *arg1 = guest_mem(hv, at + 4, 4);

		log_refusal(hv, v, op, i, cmd ? *cmd : 0, arg1 ? *arg1 : 0, rc);
	} else if (op == __HYPERVISOR_mmuext_op) {
		const struct mmuext_op *m = guest_mem(hv, a[0] + (uint64_t)i * sizeof(*m),
						      sizeof(*m));

		log_refusal(hv, v, op, i, m ? m->cmd : 0, m ? m->arg1.linear_addr : 0, rc);
	} else {
		log_refusal(hv, v, op, 0, a[0], a[1], rc);
	}
}

/* Whether entry @i of the multicall @calls (this guest's ABI) clears a PTE. */
static bool entry_clears(struct pvmap_hv *hv, void *calls, uint64_t i)
{
	uint64_t op, a0, count;

	if (hv->abi == 32) {
		struct pvstub_compat_multicall_entry *e = calls;

		op = e[i].op;
		a0 = e[i].args[0];
		count = e[i].args[1];
	} else {
		struct multicall_entry *e = calls;

		op = e[i].op;
		a0 = e[i].args[0];
		count = e[i].args[1];
	}
	if (op != __HYPERVISOR_mmu_update || count > PVMAP_HV_AREA_SIZE / sizeof(struct mmu_update))
		return false;
	for (uint64_t j = 0; j < count; j++) {
		const struct mmu_update *u = guest_mem(hv, a0 + j * sizeof(*u), sizeof(*u));

		if (u && !u->val)
			return true;
	}
	return false;
}

static int do_multicall(struct pvmap_hv *hv, unsigned int v)
{
	uint64_t n = hv->copy.req.data[0], off = hv->copy.req.data[1];
	size_t size = hv->abi == 32 ? sizeof(struct pvstub_compat_multicall_entry) :
				      sizeof(struct multicall_entry);
	void *calls = n && n <= PVMAP_HV_AREA_SIZE / size ? guest_mem(hv, off, n * size) : NULL;
	int rc;

	if (!hv->abi)
		return -EINVAL;		/* no HELLO yet: the layout is unknown */
	if (!calls)
		return -EFAULT;
	if (hv->fake_acks)
		return 0;	/* the guest zeroed each entry's result: all "done" */
	for (uint64_t i = 0; hv->refuse_clears && i < n; i++) {
		if (entry_clears(hv, calls, i)) {
			log_refusal(hv, v, __HYPERVISOR_multicall, (unsigned int)i, off, n, -EPERM);
			return -EPERM;
		}
	}
	hv->multicalls++;
	if (hv->abi == 32) {
		struct pvstub_compat_multicall_entry *e = calls;

		rc = pvstub_multicall_compat(hv->stub, v, e, (unsigned int)n);
		for (uint64_t i = 0; !rc && i < n; i++) {
			uint64_t a[6];

			for (unsigned int j = 0; j < 6; j++)
				a[j] = e[i].args[j];
			if (e[i].result)
				log_entry(hv, v, a, e[i].op, (int32_t)e[i].result);
		}
	} else {
		struct multicall_entry *e = calls;

		rc = pvstub_multicall(hv->stub, v, e, (unsigned int)n);
		for (uint64_t i = 0; !rc && i < n; i++) {
			uint64_t a[6];

			for (unsigned int j = 0; j < 6; j++)
				a[j] = e[i].args[j];
			if (e[i].result)
				log_entry(hv, v, a, (unsigned int)e[i].op,
					  (int)(long)e[i].result);
		}
	}
	return rc;
}

/* The page of guest-physical @gpa in the RAM, backed by storage; NULL outside RAM. */
static uint64_t *ram_frame(struct pvmap_hv *hv, uint64_t gpa, int *rc)
{
	uint8_t *p = pvmap_hv_gpa(hv, gpa & ~0xfffULL, 4096);

	*rc = p ? 0 : -EINVAL;
	if (p && hv->cfg.reserve && hv->cfg.reserve(hv->cfg.opaque, (uint64_t)(p - hv->ram), 4096))
		*rc = -ENOMEM;	/* the RAM file's file system is full */
	return *rc ? NULL : (uint64_t *)p;
}

/* REGISTER and UNREGISTER: data[0] pairs of (va, PTE machine address). */
static int do_register(struct pvmap_hv *hv, bool add)
{
	__u64 *d = hv->copy.req.data, n = d[0], i;
	int rc = 0;

	if (n > PVMAP_HV_REGISTER_MAX)
		return -E2BIG;
	for (i = 0; i < n && !rc; i++) {
		uint64_t va = d[1 + 2 * i], maddr = d[2 + 2 * i], *frame;

		if (!add)
			rc = pvstub_unregister_pte(hv->stub, va, maddr);
		else if ((frame = ram_frame(hv, maddr, &rc)))
			rc = pvstub_register_pte(hv->stub, va, maddr, frame);
	}
	d[0] = rc ? i - 1 : n;
	hv->registered_calls++;
	return rc;
}

/*
 * HELLO: the guest's ABI, which cannot change, and its PAT (0: Xen's). A
 * new PAT is taken only while it leaves every registered entry valid as it
 * stands (the model re-validates them): -EBUSY otherwise.
 */
static int do_hello(struct pvmap_hv *hv)
{
	__u64 *d = hv->copy.req.data;
	int rc;

	/* a 64-bit guest's multicall layout is this host's own: a 32-bit daemon has none */
	if ((d[0] != 32 && d[0] != 64) || (hv->abi && hv->abi != d[0]) ||
	    (d[0] == 64 && sizeof(xen_ulong_t) != 8))
		return -EINVAL;
	rc = pvstub_set_pat(hv->stub, d[1] ? d[1] : XEN_MSR_PAT);
	if (rc)
		return rc;
	hv->abi = (unsigned int)d[0];
	d[0] = hv->cfg.nr_vcpus;
	d[1] = hv->ram_size >> 12;
	return 0;
}

static int do_request(struct pvmap_hv *hv, unsigned int v)
{
	struct pvmap_hv_request *req = &hv->copy.req;

	if (req->op == PVMAP_HV_PING)
		return 0;
	if (!hv->stub)
		return -ENOSYS;		/* a channel only: no RAM */
	switch (req->op) {
	case PVMAP_HV_HELLO:
		return do_hello(hv);
	case PVMAP_HV_REGISTER:
	case PVMAP_HV_UNREGISTER:
		return do_register(hv, req->op == PVMAP_HV_REGISTER);
	case PVMAP_HV_MULTICALL:
		return do_multicall(hv, v);
	default:
		return -ENOSYS;
	}
}

int pvmap_hv_serve(struct pvmap_hv *hv, unsigned int vcpu, struct pvmap_hv_request *area)
{
	int rc;

	memcpy(&hv->copy, area, sizeof(hv->copy));
	hv->calls++;
	if (hv->late_ms) {
		struct timespec late = { hv->late_ms / 1000, (hv->late_ms % 1000) * 1000000L };

		hv->late_served++;
		while (nanosleep(&late, &late) && errno == EINTR)
			;
	}
	/*
	 * Before the call too: its updates may overwrite what the guest wrote
	 * itself since the last one (a PTE it set behind our back, then asks
	 * us to clear).
	 */
	if (hv->stub)
		check_shadow(hv);
	rc = vcpu < hv->cfg.nr_vcpus ? do_request(hv, vcpu) : -EINVAL;
	if (rc == -ENOSYS)
		hv->bad++;
	if (hv->stub)
		check_shadow(hv);
	memcpy(area->data, hv->copy.req.data, sizeof(area->data));
	area->result = rc;
	if (hv->garbage) {
		area->result = 7;
		area->data[0] = ~0ULL;
	}
	return rc;
}

static const char *op_name(unsigned int op)
{
	switch (op) {
	case __HYPERVISOR_mmu_update:
		return "mmu_update";
	case __HYPERVISOR_update_va_mapping:
		return "update_va_mapping";
	case __HYPERVISOR_mmuext_op:
		return "mmuext_op";
	default:
		return "other";
	}
}

void pvmap_hv_print_counts(const struct pvmap_hv *hv, FILE *out)
{
	struct pvstub_counts c = { 0 };

	if (hv->stub)
		pvstub_counts(hv->stub, &c);
	fprintf(out, "counts calls=%" PRIu64 " multicalls=%" PRIu64 " entries=%" PRIu64
		" pte_writes=%" PRIu64 " invlpg=%" PRIu64 " tlb_flush=%" PRIu64
		" refused=%" PRIu64 " violations=%" PRIu64 " shadow_mismatches=%" PRIu64
		" registered=%u register_calls=%" PRIu64 " unknown=%" PRIu64 " tables=%" PRIu64
		" violations_dropped=%" PRIu64 " abandoned=%" PRIu64 " late_served=%" PRIu64 "\n",
		hv->calls, hv->multicalls, c.multicall_entries, c.pte_writes, c.invlpg,
		c.tlb_flush, c.refused, c.violations, c.shadow_mismatches,
		hv->stub ? pvstub_registered(hv->stub) : 0, hv->registered_calls, hv->bad,
		c.tables, c.violations_dropped, hv->abandoned, hv->late_served);
}

void pvmap_hv_control(struct pvmap_hv *hv, const char *line, FILE *out)
{
	unsigned long long a, b;

	if (!hv->stub) {
		fprintf(out, "error no --ram: a channel only\n");
	} else if (sscanf(line, "aperture %lli %lli", &a, &b) == 2) {
		int rc = (a | b) & 0xfff ? -EINVAL : pvstub_add_aperture(hv->stub, a >> 12, b >> 12);

		fprintf(out, rc ? "error aperture %#llx+%#llx: %s\n" : "ok aperture %#llx+%#llx\n",
			a, b, strerror(-rc));
	} else if (!strcmp(line, "counts")) {
		pvmap_hv_print_counts(hv, out);
		fprintf(out, "ok\n");
	} else if (!strcmp(line, "refusals")) {
		for (unsigned int i = 0; i < hv->nrefusals; i++) {
			const struct refusal *r = &hv->refusals[i];

			fprintf(out, "refusal call=%" PRIu64 " vcpu=%u op=%s index=%u arg0=%#" PRIx64
				" arg1=%#" PRIx64 " rc=%d\n", r->call, r->vcpu, op_name(r->op),
				r->index, r->arg0, r->arg1, r->rc);
		}
		fprintf(out, "ok %" PRIu64 "\n", hv->refusals_total);
	} else if (!strcmp(line, "violations")) {
		unsigned int n = pvstub_report_violations(hv->stub, out, false);

		fprintf(out, "ok %u\n", n);
	} else if (sscanf(line, "revoke %lli", &a) == 1) {
		unsigned int n = pvstub_revoke(hv->stub, a, out);

		fprintf(out, "ok %u\n", n);
	} else if (!strcmp(line, "check")) {
		unsigned int n = pvstub_check_shadow(hv->stub, out);

		fprintf(out, "ok %u\n", n);
	} else if (!strcmp(line, "garbage on") || !strcmp(line, "garbage off")) {
		hv->garbage = !strcmp(line, "garbage on");
		fprintf(out, "ok garbage %s\n", hv->garbage ? "on" : "off");
	} else if (sscanf(line, "late %llu", &a) == 1 && a <= 10000) {
		hv->late_ms = (unsigned int)a;
		fprintf(out, "ok late %u ms\n", hv->late_ms);
	} else if (!strcmp(line, "fake-acks on") || !strcmp(line, "fake-acks off")) {
		hv->fake_acks = !strcmp(line, "fake-acks on");
		fprintf(out, "ok fake-acks %s\n", hv->fake_acks ? "on" : "off");
	} else if (!strcmp(line, "refuse-clears on") || !strcmp(line, "refuse-clears off")) {
		hv->refuse_clears = !strcmp(line, "refuse-clears on");
		fprintf(out, "ok refuse-clears %s\n", hv->refuse_clears ? "on" : "off");
	} else if (!strcmp(line, "audit")) {
		unsigned int n = pvstub_audit(hv->stub, out);

		fprintf(out, "%s %u\n", n ? "error audit" : "ok", n);
	} else {
		fprintf(out, "error unknown command: %s\n", line);
	}
}
