// SPDX-License-Identifier: GPL-2.0
/*
 * The hypervisor stub, and pvmap's slot core (guest/pvmap/pvmap_slots.c, compiled
 * unchanged through tests/unit/slot_core/shim/) running on it. KTAP output.
 */
#include <kselftest.h>
#include "test_stub.h"

/* Defined by pvmap_io_mapping.c in the kernel; the slot core uses them. */
struct pvmap_counters __percpu *pvmap_counters;
DEFINE_STATIC_KEY_FALSE(pvmap_counting);

struct pvstub *new_stub(void)
{
	struct pvstub_config cfg = {
		.nr_vcpus = 2, .ram_frames = 0x10000,
		.aperture_first = APERTURE_FIRST, .aperture_frames = APERTURE_FRAMES,
	};

	return pvstub_create(&cfg);
}

bool fast_path;	/* test_stub.h says what it picks */

/* Set up a stub and the slot core on it; false on failure. */
bool core_begin(bool batching, bool skip_clear)
{
	pvmap_pte_stub = (struct pvmap_pte_stub){
		.hv = new_stub(), .batching = batching, .skip_clear = skip_clear,
	};
	pvmap_counters = alloc_percpu(struct pvmap_counters);
	pvmap_counting.enabled = true;
	pvmap_slots_slow.enabled = !fast_path;
	pvmap_shim_cpu = 0;
	return pvmap_pte_stub.hv && pvmap_counters && !pvmap_slots_init(true);
}

void core_end(void)
{
	pvmap_slots_exit();
	free_percpu(pvmap_counters);
	pvstub_destroy(pvmap_pte_stub.hv);
	pvmap_pte_stub.hv = NULL;
}

/*
 * What PWRITE does with 1 MiB: 16-page atomic range maps, each page
 * written through (the stub's access walks the TLB and page tables).
 * Returns the number of accesses that reached the wrong frame.
 */
unsigned int pwrite_1mib(uint64_t first_frame)
{
	unsigned int wrong = 0;

	for (unsigned int chunk = 0; chunk < MIB_PAGES / 16; chunk++) {
		uint64_t pfn = first_frame + chunk * 16;
		void *vaddr = pvmap_slots_map(pfn, 16, __pgprot(PROT_WC));

		if (!vaddr)
			return MIB_PAGES;
		for (unsigned int i = 0; i < 16; i++) {
			uint64_t frame = 0;

			if (pvstub_access(pvmap_pte_stub.hv, pvmap_shim_cpu,
					  (uintptr_t)vaddr + i * 4096, true, &frame) ||
			    frame != pfn + i)
				wrong++;
		}
		pvmap_slots_unmap(vaddr, 16);
	}
	return wrong;
}

unsigned int revoke_range(uint64_t first, unsigned int n)
{
	unsigned int stale = 0;

	for (unsigned int i = 0; i < n; i++)
		stale += pvstub_revoke(pvmap_pte_stub.hv, first + i, NULL);
	return stale;
}

static int test_pwrite_batched(void)
{
	struct pvstub_counts c;
	unsigned int wrong, stale;
	bool ok;

	if (!core_begin(true, false))
		return 0;
	wrong = pwrite_1mib(APERTURE_FIRST + 0x100);
	stale = revoke_range(APERTURE_FIRST + 0x100, MIB_PAGES);
	pvstub_counts(pvmap_pte_stub.hv, &c);
	printf("# 1 MiB through the slot core, batched: %" PRIu64 " hypercalls (%" PRIu64
	       " multicalls), %.2f per 16 pages; %u stale at revoke, %" PRIu64 " violations\n",
	       c.hypercalls, c.multicall, 16.0 * c.hypercalls / MIB_PAGES, stale, c.violations);
	ok = !wrong && !stale && !c.violations && !pvmap_pte_stub.errors &&
	     c.hypercalls == 2 * MIB_PAGES / 16 && !pvmap_shim_preempt_count[0] &&
	     !pvmap_shim_pagefault_disabled[0] && !pvmap_shim_warnings;
	core_end();
	return ok;
}

static int test_pwrite_naive(void)
{
	struct pvstub_counts c;
	unsigned int wrong, stale;
	bool ok;

	if (!core_begin(false, false))
		return 0;
	wrong = pwrite_1mib(APERTURE_FIRST);
	stale = revoke_range(APERTURE_FIRST, MIB_PAGES);
	pvstub_counts(pvmap_pte_stub.hv, &c);
	printf("# 1 MiB through the slot core, naive: %" PRIu64 " hypercalls, %.2f per 16 pages\n",
	       c.hypercalls, 16.0 * c.hypercalls / MIB_PAGES);
	ok = !wrong && !stale && !c.violations && c.hypercalls == 3 * MIB_PAGES;
	core_end();
	return ok;
}

/* An unmap that leaves the PTE (the pre-patch behaviour): caught at revoke. */
static int test_unmap_without_clear(void)
{
	uint64_t frame = APERTURE_FIRST + 7, got;
	unsigned int stale;
	struct pvstub_counts c;
	void *vaddr;
	bool ok;

	if (!core_begin(true, true))
		return 0;
	vaddr = pvmap_slots_map(frame, 1, __pgprot(PROT_WC));
	pvstub_access(pvmap_pte_stub.hv, 0, (uintptr_t)vaddr, true, &got);
	pvmap_slots_unmap(vaddr, 1);
	printf("# hygiene report of an unmap that does not clear:\n");
	stale = pvstub_revoke(pvmap_pte_stub.hv, frame, stdout);
	/* a later write through the old pointer reaches the revoked frame */
	pvstub_access(pvmap_pte_stub.hv, 0, (uintptr_t)vaddr, true, &got);
	pvstub_report_violations(pvmap_pte_stub.hv, stdout, false);
	pvstub_counts(pvmap_pte_stub.hv, &c);
	ok = stale == 2 && c.violations == 1 && got == frame;
	core_end();
	return ok;
}

/* The PTE cleared but the TLB entry never invalidated. */
static int test_clear_without_invlpg(void)
{
	struct pvstub *s = new_stub();
	uint64_t va = 0xd0000000, frame = APERTURE_FIRST + 9, got = 0;
	struct pvstub_counts c;
	unsigned int stale;
	int ok;

	if (!s || pvstub_alloc_l1(s, va))
		return 0;
	ok = !pvstub_update_va_mapping(s, 1, va, (frame << 12) | 0x13, 0) &&
	     !pvstub_access(s, 1, va, true, &got) && got == frame &&
	     !pvstub_update_va_mapping(s, 1, va, 0, 0);
	stale = pvstub_revoke(s, frame, NULL);
	pvstub_access(s, 1, va, true, &got);	/* through the stale TLB entry */
	pvstub_counts(s, &c);
	ok = ok && stale == 1 && c.violations == 1;
	/* invalidated properly, the same access faults */
	ok = ok && !pvstub_update_va_mapping(s, 1, va, 0, UVMF_INVLPG) &&
	     pvstub_access(s, 1, va, true, &got) == -EFAULT;
	pvstub_destroy(s);
	return ok;
}

/*
 * Every refusal of the model, with the PTE left as it was (each one's Xen
 * behaviour is tested in tests/unit/test_xen_fidelity.c).
 */
static int test_refusals(void)
{
	struct pvstub *s = new_stub();
	uint64_t va = 0xd0000000, maddr, good = ((APERTURE_FIRST + 1) << 12) | 0x13;
	struct multicall_entry mc[1];
	struct mmuext_op bad_op = { .cmd = 999 };
	unsigned int done = 0, bad = 0;
	struct {
		uint64_t ptr_add, ptr_or, val;
		unsigned int dom;
		int want;
		const char *what;
	} cases[] = {
		{ 0, 5, good, DOMID_SELF, -ENOSYS, "command bits" },
		{ 4, 0, good, DOMID_SELF, -ENOSYS, "PTE address + 4: command 4" },
		{ 0x1000, 0, good, DOMID_SELF, -EINVAL, "neither a page table nor RAM" },
		{ 0, 0, (0x20000ULL << 12) | 0x13, DOMID_SELF, -EPERM, "MMIO outside the aperture" },
		{ 0, 0, good | 1ULL << 62, DOMID_SELF, -EINVAL, "a disallowed L1 flag" },
		{ 0, 0, (0xffffULL << 12) | 0x3, DOMID_SELF, -EBUSY, "page-table frame writable" },
		{ 0, 0, ((APERTURE_FIRST + 3) << 12) | 0x13, DOMID_SELF, -EPERM, "a revoked frame" },
		{ 0, 0, good, 5, -ESRCH, "a foreign domain" },
	};

	if (!s || pvstub_alloc_l1(s, va))
		return 0;
	maddr = pvstub_pte_maddr(s, va);
	pvstub_revoke(s, APERTURE_FIRST + 3, NULL);
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mmu_update u = { .ptr = (maddr + cases[i].ptr_add) | cases[i].ptr_or,
					.val = cases[i].val };
		int rc = pvstub_mmu_update(s, 0, &u, 1, NULL, cases[i].dom);

		if (rc != cases[i].want || pvstub_pte(s, va)) {
			printf("# %s: %d, want %d\n", cases[i].what, rc, cases[i].want);
			bad++;
		}
	}
	/* a batch stops at its first bad request, and says how far it got */
	struct mmu_update three[3] = {
		{ maddr, good }, { maddr + 4, good }, { maddr + 8, good },
	};
	if (pvstub_mmu_update(s, 0, three, 3, &done, DOMID_SELF) != -ENOSYS || done != 1 ||
	    pvstub_pte(s, va + 4096))
		bad += printf("# a batch with a bad second request: done %u\n", done) > 0;
	if (pvstub_mmuext_op(s, 0, &bad_op, 1, NULL, DOMID_SELF) != -ENOSYS)
		bad += printf("# an unknown mmuext command was accepted\n") > 0;
	if (pvstub_update_va_mapping(s, 0, 0x1000, good, 0) != -EINVAL)
		bad += printf("# update_va_mapping of an unmapped VA was accepted\n") > 0;
	mc[0] = (struct multicall_entry){ .op = __HYPERVISOR_console_io };
	if (pvstub_multicall(s, 0, mc, 1) || (long)mc[0].result != -ENOSYS)
		bad += printf("# a multicall of an unknown op did not give -ENOSYS\n") > 0;
	pvstub_destroy(s);
	return !bad;
}

/* The slot core's own misuse checks, through the shim's WARN. */
static int test_core_depth_overflow(void)
{
	void *maps[PVMAP_MAX_DEPTH + 1];
	unsigned int warnings;
	bool ok;

	if (!core_begin(true, false))
		return 0;
	warnings = pvmap_shim_warnings;
	for (int i = 0; i <= PVMAP_MAX_DEPTH; i++)
		maps[i] = pvmap_slots_map(APERTURE_FIRST + i, 1, __pgprot(PROT_WC));
	ok = !maps[PVMAP_MAX_DEPTH] && pvmap_shim_warnings == warnings + 1;
	for (int i = PVMAP_MAX_DEPTH - 1; i >= 0; i--)
		pvmap_slots_unmap(maps[i], 1);
	ok = ok && !pvmap_shim_preempt_count[0] && !pvmap_slots_live(0);
	core_end();
	return ok;
}

static int test_trace_decode(void)
{
	static const char *const bad[] = {
		"X 0 1000", "S 0 1000", "S 0 1001 13", "C 9 1000", "C 0 1000 junk",
		"A 0 1000 0", "S 0 10000000000000000 13", "B", "F -1 1000", "S 0 1000 13 ",
		/* tracefs: all four fields, the unused ones 0; lost events */
		"  t-1 [000] ..... 1.5: pvmap_pte: C 0 1000",
		"  t-1 [000] ..... 1.5: pvmap_pte: C 0 1000 5",
		"  t-1 [000] ..... 1.5: pvmap_pte: B 0 1000 0",
		"CPU:0 [LOST 12 EVENTS]",
	};
	struct pvstub_trace_op op;
	int ok = pvstub_trace_decode("S 1 c8000000 80000013", &op) == 0 && op.op == 'S' &&
		 op.cpu == 1 && op.va == 0xc8000000 && op.arg == 0x80000013 &&
		 pvstub_trace_decode("# comment", &op) == 1 &&
		 pvstub_trace_decode("pvmap-trace 1", &op) == 1 &&
		 pvstub_trace_decode("E 0\n", &op) == 0;

	ok = ok && pvstub_trace_decode("  pvmap-tests-61  [001] d..1.  7.21: pvmap_pte: "
				       "S 1 c8000000 80000013\n", &op) == 0 &&
	     op.op == 'S' && op.cpu == 1 && op.va == 0xc8000000 && op.arg == 0x80000013 &&
	     pvstub_trace_decode(" t-1 [000] ..... 1.5: pvmap_pte: C 0 c8001000 0", &op) == 0 &&
	     op.op == 'C' && op.va == 0xc8001000 &&
	     pvstub_trace_decode(" t-1 [000] ..... 1.5: pvmap_pte: E 0 0 0", &op) == 0 &&
	     pvstub_trace_decode("# tracer: nop", &op) == 1;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (pvstub_trace_decode(bad[i], &op) != -EINVAL) {
			printf("# accepted \"%s\"\n", bad[i]);
			ok = 0;
		}
	return ok;
}

/* A trace of a correct map/unmap, and the same with the clears dropped. */
static int test_trace_replay(void)
{
	static const char tracefs[] = "# tracer: nop\n t-1 [000] ..... 1.5: pvmap_pte: B 0 0 0\n";
	char good[8192], leaky[8192];
	struct pvstub_replay_result r;
	size_t g = 0, l = 0;
	int ok;

	g += snprintf(good + g, sizeof(good) - g, "pvmap-trace 1\nB 0\n");
	l += snprintf(leaky + l, sizeof(leaky) - l, "pvmap-trace 1\nB 0\n");
	for (int i = 0; i < 16; i++) {
		g += snprintf(good + g, sizeof(good) - g, "S 0 %x %llx\n", 0xc8000000 + i * 4096,
			      ((APERTURE_FIRST + i) << 12) | 0x13);
		l += snprintf(leaky + l, sizeof(leaky) - l, "S 0 %x %llx\n", 0xc8000000 + i * 4096,
			      ((APERTURE_FIRST + i) << 12) | 0x13);
	}
	g += snprintf(good + g, sizeof(good) - g, "E 0\nB 0\n");
	for (int i = 0; i < 16; i++)
		g += snprintf(good + g, sizeof(good) - g, "C 0 %x\nF 0 %x\n", 0xc8000000 + i * 4096,
			      0xc8000000 + i * 4096);
	g += snprintf(good + g, sizeof(good) - g, "E 0\n");
	l += snprintf(leaky + l, sizeof(leaky) - l, "E 0\n");

	ok = !pvstub_replay(good, g, &r, NULL, false) && r.pages_mapped == 16 &&
	     r.counts.hypercalls == 2 && r.naive_hypercalls == 48 && !r.stale_at_revoke &&
	     !r.violations;
	ok = ok && !pvstub_replay(leaky, l, &r, NULL, false) && r.stale_at_revoke == 32 &&
	     r.violations == 16;
	ok = ok && pvstub_replay("pvmap-trace 1\nQ\n", 16, &r, NULL, false) == -EINVAL &&
	     r.bad_line == 2;
	ok = ok && pvstub_replay("no header\n", 10, &r, NULL, false) == -EINVAL;
	ok = ok && !pvstub_replay(tracefs, strlen(tracefs), &r, NULL, false) && r.ops == 1;
	return ok;
}

int main(void)
{
	ksft_print_header();
	ksft_print_msg("Subtest: %s\n", "hypervisor-stub");
	ksft_set_plan(19);
	ksft_test_result(test_pwrite_batched(), "%s\n", "pwrite_1mib_batched_2_per_16_pages");
	ksft_test_result(test_pwrite_naive(), "%s\n", "pwrite_1mib_naive_3_per_page");
	ksft_test_result(test_unmap_without_clear(), "%s\n", "unmap_without_clear_violates");
	ksft_test_result(test_clear_without_invlpg(), "%s\n", "clear_without_invlpg_violates");
	ksft_test_result(test_refusals(), "%s\n", "refusals");
	ksft_test_result(on_both_paths(test_core_depth_overflow), "%s\n", "core_depth_overflow_warns");
	ksft_test_result(on_both_paths(test_core_limits), "%s\n", "core_limits_refused");
	ksft_test_result(test_paths_switch(), "%s\n", "paths_switch_between_map_and_unmap");
	ksft_test_result(on_both_paths(test_irq_at_every_point), "%s\n", "irq_map_at_every_point");
	ksft_test_result(on_both_paths(test_irq_after_misuse), "%s\n", "irq_after_misuse");
	ksft_test_result(on_both_paths(test_core_misuse), "%s\n", "core_misuse_restores_state");
	ksft_test_result(on_both_paths(test_header_maps), "%s\n", "header_maps_and_refusals");
	ksft_test_result(on_both_paths(test_local_switch_at_every_point), "%s\n",
			 "local_switch_at_every_point");
	ksft_test_result(on_both_paths(test_local_misuse), "%s\n", "local_misuse");
	ksft_test_result(on_both_paths(test_local_switch_leaves_no_mark), "%s\n",
			 "local_switch_leaves_no_mark");
	ksft_test_result(on_both_paths(test_space_change_at_every_point), "%s\n",
			 "space_change_at_every_point");
	ksft_test_result(test_trace_decode(), "%s\n", "trace_decode");
	ksft_test_result(test_trace_replay(), "%s\n", "trace_replay");
	ksft_test_result(pvstub_create(&(struct pvstub_config){ .nr_vcpus = 0 }) == NULL,
			 "%s\n", "bad_config_refused");
	ksft_finished();
}
