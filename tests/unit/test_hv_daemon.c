// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-hv's request path (hypervisor_stub/pvmap-hv/pvmap_hv_core.c) as a guest
 * drives it: HELLO, REGISTER and multicalls in a request area, the guest's
 * RAM as QEMU's RAM file lays it out. Each test is one finding of a review
 * of the daemon, checked the way Xen's PV MMU behaves (xen/arch/x86/mm.c):
 * what a validator adopts it validates, a frame is a page table or mapped
 * writable but not both, MMIO is made UC by the guest's own PAT, RAM above
 * QEMU's PCI hole is where QEMU puts it, and nothing a guest can ask for
 * grows without bound. Each test runs in a child process, so a crash is a
 * failure, not the end of the run. KTAP output.
 *
 *   test_hv_daemon [TEST...]    the named tests only (default: all)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kselftest.h>
#include "pvmap_hv_core.h"
#include "pvstub_trace.h"

#include "test_hv_daemon.h"

struct guest {
	struct pvmap_hv *hv;
	uint8_t *ram;
	uint64_t size;
	struct pvmap_hv_request area;
	char *log;
	size_t loglen;
	FILE *logf;
};

static uint64_t clock_ms;
static bool reserve_fails;

static uint64_t test_clock(void)
{
	return clock_ms;
}

static int test_reserve(void *opaque, uint64_t offset, uint64_t len)
{
	(void)opaque;
	(void)offset;
	(void)len;
	return reserve_fails ? -ENOSPC : 0;
}

static bool expect(const char *what, long long got, long long want)
{
	if (got == want)
		return true;
	printf("# %s: %lld, want %lld\n", what, got, want);
	return false;
}

static int call(struct guest *g, uint32_t op)
{
	g->area.op = op;
	g->area.seq++;
	return pvmap_hv_serve(g->hv, 0, &g->area);
}

static int hello(struct guest *g, uint64_t abi, uint64_t pat)
{
	g->area.data[0] = abi;
	g->area.data[1] = pat;
	return call(g, PVMAP_HV_HELLO);
}

static int reg_op(struct guest *g, uint32_t op, uint64_t va, uint64_t maddr)
{
	g->area.data[0] = 1;
	g->area.data[1] = va;
	g->area.data[2] = maddr;
	return call(g, op);
}

static int reg(struct guest *g, uint64_t va, uint64_t maddr)
{
	return reg_op(g, PVMAP_HV_REGISTER, va, maddr);
}

static uint8_t *area_bytes(struct guest *g)
{
	return (uint8_t *)&g->area;
}

/* One multicall of one mmu_update entry of @n updates; that entry's result. */
static int updates(struct guest *g, const struct mmu_update *u, unsigned int n)
{
	struct multicall_entry mc = {
		.op = __HYPERVISOR_mmu_update,
		.args = { UPD_OFF, n, DONE_OFF, DOMID_SELF },
	};
	int rc;

	memcpy(area_bytes(g) + UPD_OFF, u, n * sizeof(*u));
	memcpy(area_bytes(g) + MC_OFF, &mc, sizeof(mc));
	g->area.data[0] = 1;
	g->area.data[1] = MC_OFF;
	rc = call(g, PVMAP_HV_MULTICALL);
	if (rc)
		return rc;
	memcpy(&mc, area_bytes(g) + MC_OFF, sizeof(mc));
	return (int)(int64_t)mc.result;
}

static int update(struct guest *g, uint64_t maddr, uint64_t val)
{
	struct mmu_update u = { .ptr = maddr, .val = val };

	return updates(g, &u, 1);
}

static uint64_t maddr_of(uint64_t frame, unsigned int idx)
{
	return PAGE(frame) + idx * 8;
}

static void control(struct guest *g, const char *cmd, char **answer)
{
	size_t len;
	FILE *out = open_memstream(answer, &len);

	pvmap_hv_control(g->hv, cmd, out);
	fclose(out);
}

static bool control_ok(struct guest *g, const char *cmd)
{
	char *answer;
	bool ok;

	control(g, cmd, &answer);
	ok = !strncmp(answer, "ok", 2);
	if (!ok)
		printf("# %s: %s", cmd, answer);
	free(answer);
	return ok;
}

static struct pvstub_counts counts(struct guest *g)
{
	struct pvstub_counts c;

	memset(&c, 0, sizeof(c));
	pvstub_counts(pvmap_hv_stub(g->hv), &c);
	return c;
}

/* The model's invariants hold: every entry it holds passes validation unchanged. */
static bool audit_clean(struct guest *g)
{
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);
	unsigned int bad = pvstub_audit(pvmap_hv_stub(g->hv), out);

	fclose(out);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		printf("# %s\n", line);
	free(text);
	return expect("audit: breaches", bad, 0);
}

/* A guest of @size bytes of RAM (sparse: only what is touched is memory), after HELLO. */
static bool boot(struct guest *g, uint64_t size, enum pvmap_hv_machine machine)
{
	struct pvmap_hv_config cfg = {
		.nr_vcpus = 2, .machine = machine, .reserve = test_reserve,
		.now_ms = test_clock,
	};

	memset(g, 0, sizeof(*g));
	g->size = size;
	g->ram = mmap(NULL, size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	g->logf = open_memstream(&g->log, &g->loglen);
	if (g->ram == MAP_FAILED || !g->logf) {
		printf("# no memory for a guest of %" PRIu64 " bytes\n", size);
		return false;
	}
	cfg.log = g->logf;
	g->hv = pvmap_hv_create(&cfg, g->ram, size);
	return g->hv && expect("HELLO", hello(g, ABI, 0), 0);
}

static void shut_down(struct guest *g)
{
	pvmap_hv_destroy(g->hv);
	if (g->logf)
		fclose(g->logf);
	free(g->log);
	if (g->ram && g->ram != MAP_FAILED)
		munmap(g->ram, g->size);
}

static uint64_t *table(struct guest *g, uint64_t frame)
{
	return (uint64_t *)(g->ram + PAGE(frame));
}

static unsigned int log_lines(struct guest *g)
{
	unsigned int n = 0;

	fflush(g->logf);
	for (size_t i = 0; i < g->loglen; i++)
		n += g->log[i] == '\n';
	return n;
}

/*
 * H1: REGISTER adopts the guest's entry only as mmu_update would take it:
 * the same refusal with the same errno for each value mmu_update refuses
 * (bit 62, the local APIC, the page table mapped writable, a frame outside
 * RAM and every BAR), the entry left as the guest wrote it and not
 * registered; a new table whose entry maps itself writable is not made;
 * MMIO cacheable is adopted made UC in place, as alloc_l1_table() does.
 */
static bool test_register_validates(void)
{
	static const struct {
		const char *what;
		uint64_t val;
	} bad[] = {
		{ "bit 62 (_PAGE_GNTTAB)", PAGE(0x2000) | P | RW | BIT62 },
		{ "the local APIC", PAGE(0xfee00) | P | RW | PCD | PWT },
		{ "the page table itself, writable", PAGE(PT_FRAME) | P | RW },
		{ "a frame outside RAM and every BAR", PAGE(0x30000) | P | RW },
	};
	uint64_t *t, *t2, pt2 = PT_FRAME + 1;
	struct guest g;
	bool ok;

	ok = boot(&g, RAM_SIZE, PVMAP_HV_PC) &&
	     control_ok(&g, "aperture 0x80000000 0x10000000") &&
	     expect("register a clear entry", reg(&g, VA, maddr_of(PT_FRAME, 0)), 0);
	if (!ok)
		goto out;
	t = table(&g, PT_FRAME);
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unsigned int idx = 1 + i;
		int want = update(&g, maddr_of(PT_FRAME, 0), bad[i].val);

		printf("# %s: mmu_update %d\n", bad[i].what, want);
		t[idx] = bad[i].val;
		ok &= want < 0 &&
		      expect(bad[i].what, reg(&g, VA + PAGE(idx), maddr_of(PT_FRAME, idx)), want) &&
		      expect("left as written", t[idx] == bad[i].val, 1) &&
		      expect("registered", pvstub_registered(pvmap_hv_stub(g.hv)), 1);
	}
	/* a table that would map itself writable is not made one */
	t2 = table(&g, pt2);
	t2[0] = PAGE(pt2) | P | RW;
	ok &= expect("new table mapping itself writable",
		     reg(&g, VA + 2 * MiB, maddr_of(pt2, 0)), -EBUSY) &&
	      expect("tables", counts(&g).tables, 1);
	/* what is valid is adopted; MMIO cacheable made UC in place */
	t[10] = PAGE(AP_FRAME) | P | RW;
	t[11] = PAGE(0x2000) | P | RW;
	ok &= expect("aperture WB", reg(&g, VA + PAGE(10), maddr_of(PT_FRAME, 10)), 0) &&
	      expect("made UC (PCD|PWT)", t[10] == (PAGE(AP_FRAME) | P | RW | PCD | PWT), 1) &&
	      expect("RAM", reg(&g, VA + PAGE(11), maddr_of(PT_FRAME, 11)), 0) &&
	      expect("registered", pvstub_registered(pvmap_hv_stub(g.hv)), 3) &&
	      audit_clean(&g);
out:
	shut_down(&g);
	return ok;
}

/*
 * H2: get_page_type() keeps PGT_writable_page and PGT_l1_page_table apart:
 * a frame an accepted entry maps writable cannot become a page table
 * (-EINVAL, "Bad type"), read-only it can, and then it cannot be mapped
 * writable (-EBUSY) until it is no page table any more.
 */
static bool test_pagetable_type_exclusive(void)
{
	uint64_t pta = PT_FRAME, ptb = PT_FRAME + 1, vb = VA + 2 * MiB;
	uint64_t e = maddr_of(pta, 0);
	struct guest g;
	bool ok;

	ok = boot(&g, RAM_SIZE, PVMAP_HV_PC) &&
	     expect("register", reg(&g, VA, e), 0) &&
	     expect("map frame B writable", update(&g, e, PAGE(ptb) | P | RW), 0) &&
	     expect("B becomes a page table while mapped writable", reg(&g, vb, maddr_of(ptb, 0)),
		    -EINVAL) &&
	     expect("tables", counts(&g).tables, 1) &&
	     audit_clean(&g) &&
	     expect("map B read-only", update(&g, e, PAGE(ptb) | P), 0) &&
	     expect("B becomes a page table", reg(&g, vb, maddr_of(ptb, 0)), 0) &&
	     expect("map the page table B writable", update(&g, e, PAGE(ptb) | P | RW), -EBUSY) &&
	     expect("B is no page table again", reg_op(&g, PVMAP_HV_UNREGISTER, vb,
						       maddr_of(ptb, 0)), 0) &&
	     expect("map B writable", update(&g, e, PAGE(ptb) | P | RW), 0) &&
	     audit_clean(&g);
	shut_down(&g);
	return ok;
}

static unsigned int pat_type(uint64_t pat, uint64_t pte)
{
	unsigned int idx = (pte & PATBIT ? 4 : 0) | (pte & PCD ? 2 : 0) | (pte & PWT ? 1 : 0);

	return (pat >> (8 * idx)) & 0xff;
}

/*
 * H3: MMIO mapped cacheable is made UC as the guest's PAT decodes it (not
 * index 3, WB in this PAT), refused when no index is UC; a second HELLO
 * may not change the PAT under an entry it would re-type, the same PAT is
 * fine, and with nothing registered a new PAT is taken.
 */
static bool test_pat_uc_forced(void)
{
	uint64_t e = maddr_of(PT_FRAME, 0), *t;
	struct guest g;
	bool ok;

	ok = boot(&g, RAM_SIZE, PVMAP_HV_PC) &&
	     control_ok(&g, "aperture 0x80000000 0x10000000") &&
	     expect("HELLO with index 3 WB", hello(&g, ABI, PAT_IDX3_WB), 0) &&
	     expect("register", reg(&g, VA, e), 0) &&
	     expect("aperture WB", update(&g, e, PAGE(AP_FRAME) | P | RW), 0);
	if (!ok)
		goto out;
	t = table(&g, PT_FRAME);
	printf("# stored %#" PRIx64 ": PAT type %u\n", t[0], pat_type(PAT_IDX3_WB, t[0]));
	ok = expect("decoded type of what was stored", pat_type(PAT_IDX3_WB, t[0]), PAT_UC) &&
	     expect("a second HELLO that would make it WB", hello(&g, ABI, PAT_LINUX), -EBUSY) &&
	     expect("PTE unchanged", pat_type(PAT_IDX3_WB, t[0]), PAT_UC) &&
	     expect("the same PAT again", hello(&g, ABI, PAT_IDX3_WB), 0) &&
	     expect("aperture WB again", update(&g, e, PAGE(AP_FRAME + 1) | P | RW), 0) &&
	     expect("still UC", pat_type(PAT_IDX3_WB, t[0]), PAT_UC) &&
	     audit_clean(&g) &&
	     expect("clear", update(&g, e, 0), 0) &&
	     expect("nothing to re-type: a PAT without UC", hello(&g, ABI, PAT_ALL_WB), 0) &&
	     expect("MMIO cacheable with no UC index", update(&g, e, PAGE(AP_FRAME) | P | RW),
		    -EINVAL) &&
	     expect("nothing written", t[0], 0) &&
	     audit_clean(&g);
out:
	shut_down(&g);
	return ok;
}

struct layout_case {
	enum pvmap_hv_machine m;
	uint64_t size, below, above;
};

/*
 * H4: QEMU 7.2 -M pc puts RAM at 0 up to 3 GiB once there is 3.5 GiB or
 * more, the rest at 4 GiB, and its RAM file holds the first part then the
 * second (as `info mtree -f` shows: pc.ram @0xc0000000 at 0x100000000).
 * A 4 GiB guest: a table above 4 GiB lives at file offset 3 GiB + x, the
 * hole is no RAM (REGISTER there -EINVAL, a mapping of it MMIO), and RAM
 * above 4 GiB is RAM.
 */
static bool test_ram_layout(void)
{
	static const struct layout_case cases[] = {
		{ PVMAP_HV_PC, 512 * MiB, 512 * MiB, 0 },
		{ PVMAP_HV_PC, 3583 * MiB, 3583 * MiB, 0 },
		{ PVMAP_HV_PC, 3584 * MiB, 3 * GiB, 512 * MiB },
		{ PVMAP_HV_PC, 4 * GiB, 3 * GiB, GiB },
		{ PVMAP_HV_Q35, 2815 * MiB, 2815 * MiB, 0 },
		{ PVMAP_HV_Q35, 4 * GiB, 2 * GiB, 2 * GiB },
	};
	uint64_t hi = (4 * GiB + 16 * MiB) >> 12, lo = PT_FRAME, hole = 0xd0000;
	uint64_t hi_off = 3 * GiB + 16 * MiB, val = PAGE(0x2000) | P | RW;
	uint64_t below, above;
	struct guest g;
	bool ok = true;

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct layout_case *c = &cases[i];

		ok &= expect("layout", pvmap_hv_ram_layout(c->m, c->size, &below, &above), 0) &&
		      expect("below 4 GiB", below, c->below) && expect("above", above, c->above);
	}
	ok &= expect("a size QEMU does not give", pvmap_hv_ram_layout(PVMAP_HV_PC, 4097, &below,
								      &above), -EINVAL);
	ok &= boot(&g, 4 * GiB, PVMAP_HV_PC) &&
	      expect("HELLO's RAM frames", g.area.data[1], 0x100000) &&
	      expect("a BAR in the hole", control_ok(&g, "aperture 0xe0000000 0x10000000"), 1);
	if (!ok)
		goto out;
	ok = expect("a table above 4 GiB", reg(&g, VA, maddr_of(hi, 0)), 0) &&
	     expect("update it", update(&g, maddr_of(hi, 0), val), 0) &&
	     expect("written at file offset 3 GiB + 16 MiB",
		    *(uint64_t *)(g.ram + hi_off) == val, 1) &&
	     expect("a table below", reg(&g, VA + 2 * MiB, maddr_of(lo, 0)), 0) &&
	     expect("update it", update(&g, maddr_of(lo, 0), val), 0) &&
	     expect("written at its own offset", *(uint64_t *)(g.ram + PAGE(lo)) == val, 1) &&
	     expect("a table in the hole", reg(&g, VA + 4 * MiB, maddr_of(hole, 0)), -EINVAL) &&
	     expect("the file there untouched", *(uint64_t *)(g.ram + PAGE(hole)), 0) &&
	     expect("map the hole (no BAR there)", update(&g, maddr_of(lo, 0),
							  PAGE(0xc8000) | P | RW), -EPERM) &&
	     expect("map the last page of RAM", update(&g, maddr_of(lo, 0),
						       PAGE(0x13ffff) | P | RW), 0) &&
	     expect("map past the RAM", update(&g, maddr_of(lo, 0), PAGE(0x140000) | P | RW),
		    -EPERM) &&
	     expect("map the BAR in the hole, WB", update(&g, maddr_of(lo, 0),
							  PAGE(0xe0000) | P | RW), 0) &&
	     expect("made UC", *(uint64_t *)(g.ram + PAGE(lo)) & (PCD | PWT), PCD | PWT) &&
	     expect("a plain write to RAM above 4 GiB", update(&g, PAGE(0x120000), 0), 0) &&
	     audit_clean(&g);
out:
	shut_down(&g);
	return ok;
}

/* Register one entry in each of @n new tables, from table @first; false at the first refusal. */
static int reg_tables(struct guest *g, unsigned int first, unsigned int n)
{
	int rc = 0;

	for (unsigned int i = first; !rc && i < first + n; i += PVMAP_HV_REGISTER_MAX) {
		unsigned int k = first + n - i < PVMAP_HV_REGISTER_MAX ? first + n - i :
									   PVMAP_HV_REGISTER_MAX;

		g->area.data[0] = k;
		for (unsigned int j = 0; j < k; j++) {
			g->area.data[1 + 2 * j] = 0xffff800000000000ULL + (i + j) * 2 * MiB;
			g->area.data[2 + 2 * j] = maddr_of(PT_FRAME + i + j, 0);
		}
		rc = call(g, PVMAP_HV_REGISTER);
	}
	return rc;
}

/*
 * H5: what a guest can make the daemon hold or do is bounded. Page tables
 * are capped (PVSTUB_MAX_TABLES, then -ENOMEM); a lookup examines a few
 * slots whatever the number of tables; a call compares the registered
 * entries with their shadow and nothing more (not 512 per table); 4096
 * entries written behind the daemon's back keep PVSTUB_MAX_VIOLATIONS
 * records and count the rest; and they log a burst of lines, then one line
 * saying how many were suppressed. Work is counted, not timed.
 */
static bool test_limits(void)
{
	struct pvstub_counts before, after;
	unsigned int lines;
	struct guest g;
	char *answer = NULL;
	bool ok;

	clock_ms = 0;
	ok = boot(&g, RAM_SIZE, PVMAP_HV_PC) &&
	     expect("tables up to the cap", reg_tables(&g, 0, PVSTUB_MAX_TABLES), 0) &&
	     expect("one more table", reg_tables(&g, PVSTUB_MAX_TABLES, 1), -ENOMEM) &&
	     expect("tables", counts(&g).tables, PVSTUB_MAX_TABLES) &&
	     expect("registered", pvstub_registered(pvmap_hv_stub(g.hv)), PVSTUB_MAX_TABLES);
	if (!ok)
		goto out;

	before = counts(&g);
	ok &= expect("a second entry of table 100", reg(&g, 0xffff800000000000ULL + 100 * 2 * MiB +
							PAGE(1), maddr_of(PT_FRAME + 100, 1)), 0);
	after = counts(&g);
	printf("# REGISTER among %u tables: %" PRIu64 " lookups, %" PRIu64 " slots examined\n",
	       PVSTUB_MAX_TABLES, after.lookups - before.lookups,
	       after.lookup_probes - before.lookup_probes);
	ok &= expect("lookups made", after.lookups > before.lookups, 1) &&
	      expect("slots examined: a few per lookup",
		     after.lookup_probes - before.lookup_probes <= 4 * (after.lookups - before.lookups),
		     1);

	before = counts(&g);
	ok &= expect("PING", call(&g, PVMAP_HV_PING), 0);
	after = counts(&g);
	printf("# PING: %" PRIu64 " registered entries compared (%u registered, %u tables)\n",
	       after.shadow_checked - before.shadow_checked, pvstub_registered(pvmap_hv_stub(g.hv)),
	       PVSTUB_MAX_TABLES);
	ok &= expect("compared: each registered entry, before and after",
		     after.shadow_checked - before.shadow_checked,
		     2 * pvstub_registered(pvmap_hv_stub(g.hv)));

	/* every registered entry written behind the daemon's back */
	for (unsigned int i = 0; i < PVSTUB_MAX_TABLES; i++)
		table(&g, PT_FRAME + i)[0] = PAGE(0x3000 + i) | P | RW;
	lines = log_lines(&g);
	ok &= expect("PING", call(&g, PVMAP_HV_PING), 0);
	after = counts(&g);
	lines = log_lines(&g) - lines;
	printf("# %" PRIu64 " violations, %" PRIu64 " not kept; %u log lines\n", after.violations,
	       after.violations_dropped, lines);
	ok &= expect("violations counted", after.violations, PVSTUB_MAX_TABLES) &&
	      expect("not kept", after.violations_dropped,
		     PVSTUB_MAX_TABLES - PVSTUB_MAX_VIOLATIONS) &&
	      expect("log lines: a burst", lines, PVMAP_HV_LOG_BURST);
	control(&g, "violations", &answer);
	ok &= expect("the control socket's answer says how many more",
		     strstr(answer, "3072 more, not kept") != NULL, 1) &&
	      expect("and ends ok 1024", strstr(answer, "\nok 1024\n") != NULL, 1);
	clock_ms += PVMAP_HV_LOG_INTERVAL_MS;
	lines = log_lines(&g);
	ok &= expect("PING after the interval", call(&g, PVMAP_HV_PING), 0) &&
	      expect("one line for those suppressed", log_lines(&g) - lines, 1) &&
	      expect("saying how many", strstr(g.log, "4086 log lines suppressed") != NULL, 1) &&
	      audit_clean(&g);
out:
	free(answer);
	shut_down(&g);
	return ok;
}

/*
 * The RAM file's file system is full: backing a page of it fails, and the
 * REGISTER that needed it is -ENOMEM before the daemon touches the page
 * (which would be SIGBUS on a real file; here it is inaccessible).
 */
static bool test_ram_full_refused(void)
{
	struct guest g;
	bool ok = boot(&g, RAM_SIZE, PVMAP_HV_PC);

	if (ok) {
		mprotect(table(&g, PT_FRAME), 4096, PROT_NONE);
		reserve_fails = true;
		ok = expect("REGISTER on a full file system", reg(&g, VA, maddr_of(PT_FRAME, 0)),
			    -ENOMEM) &&
		     expect("registered", pvstub_registered(pvmap_hv_stub(g.hv)), 0);
		reserve_fails = false;
		mprotect(table(&g, PT_FRAME), 4096, PROT_READ | PROT_WRITE);
		ok = ok && expect("once there is room", reg(&g, VA, maddr_of(PT_FRAME, 0)), 0);
	}
	shut_down(&g);
	return ok;
}

/*
 * An mmu_update entry whose count times 16 wraps a 32-bit size_t (to 16
 * bytes, one readable update): -EFAULT, nothing written. Meaningful in the
 * 32-bit build (test_hv_daemon32); a 64-bit one cannot wrap.
 */
static bool test_multicall_count_32bit(void)
{
	struct mmu_update u = { .ptr = maddr_of(PT_FRAME, 0), .val = PAGE(0x2000) | P };
	struct multicall_entry mc = {
		.op = __HYPERVISOR_mmu_update,
		.args = { UPD_OFF, 0x10000001, DONE_OFF, DOMID_SELF },
	};
	struct guest g;
	bool ok = boot(&g, RAM_SIZE, PVMAP_HV_PC) &&
		  expect("register", reg(&g, VA, maddr_of(PT_FRAME, 0)), 0);

	if (ok) {
		memcpy(area_bytes(&g) + UPD_OFF, &u, sizeof(u));
		memcpy(area_bytes(&g) + MC_OFF, &mc, sizeof(mc));
		g.area.data[0] = 1;
		g.area.data[1] = MC_OFF;
		ok = expect("multicall", call(&g, PVMAP_HV_MULTICALL), 0);
		memcpy(&mc, area_bytes(&g) + MC_OFF, sizeof(mc));
		ok &= expect("entry of 0x10000001 updates", (int)(int64_t)mc.result, -EFAULT) &&
		      expect("PTE writes", counts(&g).pte_writes, 0);
	}
	shut_down(&g);
	return ok;
}

/* Post a multicall of one mmu_update (@maddr := @val) as the guest does; not served. */
static uint32_t post_update(struct guest *g, uint64_t maddr, uint64_t val)
{
	struct mmu_update u = { .ptr = maddr, .val = val };
	struct multicall_entry mc = {
		.op = __HYPERVISOR_mmu_update,
		.args = { UPD_OFF, 1, DONE_OFF, DOMID_SELF },
	};

	memcpy(area_bytes(g) + UPD_OFF, &u, sizeof(u));
	memcpy(area_bytes(g) + MC_OFF, &mc, sizeof(mc));
	g->area.data[0] = 1;
	g->area.data[1] = MC_OFF;
	g->area.op = PVMAP_HV_MULTICALL;
	g->area.seq = (g->area.seq + 1) & PVMAP_HV_SEQ_MASK;
	return g->area.seq;
}

/* What the guest's pvmap_pv_abandon() does: true if it won the request. */
static bool guest_abandons(struct guest *g, uint32_t seq)
{
	uint32_t done = g->area.done;

	return !(done & PVMAP_HV_TAKEN) &&
	       __atomic_compare_exchange_n(&g->area.done, &done, seq | PVMAP_HV_ABANDONED, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/*
 * A request the guest gave up on (it timed out and wrote the PTE natively)
 * is never served, however late the daemon comes to it: the PTE stays as
 * the guest left it, the abandonment is counted once. One the daemon took
 * first cannot be abandoned, and is served and completed.
 */
static bool test_abandoned_not_served(void)
{
	uint64_t *t, maddr = maddr_of(PT_FRAME, 0), val = PAGE(AP_FRAME) | P | RW | PCD | PWT;
	char *answer = NULL;
	struct guest g;
	uint32_t seq, taken;
	bool ok;

	ok = boot(&g, RAM_SIZE, PVMAP_HV_PC) &&
	     control_ok(&g, "aperture 0x80000000 0x10000000") &&
	     expect("register a clear entry", reg(&g, VA, maddr), 0);
	if (!ok)
		goto out;
	t = table(&g, PT_FRAME);
	g.area.done = g.area.seq;	/* everything before answered */
	seq = post_update(&g, maddr, val);
	ok &= expect("the guest abandons a request not taken", guest_abandons(&g, seq), 1) &&
	      expect("taken after its abandonment", pvmap_hv_take(g.hv, &g.area, &taken), 0) &&
	      expect("taken on a second doorbell", pvmap_hv_take(g.hv, &g.area, &taken), 0) &&
	      expect("PTE written by the abandoned request", (long long)t[0], 0) &&
	      expect("abandoned requests counted", (long long)pvmap_hv_abandoned(g.hv), 1);
	/* the next one, taken first: the guest's exchange fails, the daemon serves it */
	seq = post_update(&g, maddr, val);
	ok &= expect("taken", pvmap_hv_take(g.hv, &g.area, &taken), 1) &&
	      expect("its number", taken, seq) &&
	      expect("the guest abandons a request taken", guest_abandons(&g, seq), 0) &&
	      expect("served", pvmap_hv_serve(g.hv, 0, &g.area), 0);
	pvmap_hv_complete(&g.area, taken);
	ok &= expect("done", g.area.done, seq) &&
	      expect("PTE written by the request taken", t[0] == val, 1) &&
	      expect("taken again once done", pvmap_hv_take(g.hv, &g.area, &taken), 0);
	control(&g, "counts", &answer);
	ok &= expect("counts say abandoned=1", answer && strstr(answer, " abandoned=1 ") != NULL, 1) &&
	      audit_clean(&g);
	free(answer);
out:
	shut_down(&g);
	return ok;
}

static const struct {
	const char *name;
	bool (*fn)(void);
} tests[] = {
	{ "hv_register_validates", test_register_validates },
	{ "hv_pagetable_type_exclusive", test_pagetable_type_exclusive },
	{ "hv_pat_uc_forced", test_pat_uc_forced },
	{ "hv_ram_layout", test_ram_layout },
	{ "hv_limits", test_limits },
	{ "hv_ram_full_refused", test_ram_full_refused },
	{ "hv_multicall_count_32bit", test_multicall_count_32bit },
	{ "hv_replay_linear", test_replay_linear },
	{ "hv_replay_linear_stale", test_replay_linear_stale },
	{ "hv_abandoned_not_served", test_abandoned_not_served },
};

#define NR_TESTS	(sizeof(tests) / sizeof(tests[0]))

static bool wanted(int argc, char **argv, const char *name)
{
	if (argc < 2)
		return true;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

/* One test in a child: a crash or a sanitizer report fails it, and the rest still run. */
static bool run(bool (*fn)(void))
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return false;
	if (!pid) {
		bool ok = fn();

		fflush(stdout);
		_exit(ok ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid)
		return false;
	if (WIFSIGNALED(status))
		printf("# killed by signal %d\n", WTERMSIG(status));
	return WIFEXITED(status) && !WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	int plan = 0;

	for (unsigned int i = 0; i < NR_TESTS; i++)
		plan += wanted(argc, argv, tests[i].name);
	ksft_print_header();
	ksft_print_msg("Subtest: %s\n", "hv-daemon");
	ksft_set_plan(plan);
	for (unsigned int i = 0; i < NR_TESTS; i++)
		if (wanted(argc, argv, tests[i].name))
			ksft_test_result(run(tests[i].fn), "%s\n", tests[i].name);
	ksft_finished();
}
