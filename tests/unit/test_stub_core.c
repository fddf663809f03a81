// SPDX-License-Identifier: GPL-2.0
/*
 * The slot core on the hypervisor stub against what it must survive: an
 * interrupt at every point of a map and unmap, misuse (and an interrupt just
 * after it), its own limits, the two paths (batched and direct) switched
 * between a map and its unmap. test_stub.c prints the results.
 */
#include <linux/sched.h>

#include "test_stub.h"

/*
 * Interrupts landing anywhere in the slot core: at each pvmap_irq_point()
 * of a task's map+unmap in turn, an "interrupt" maps, writes and unmaps
 * 1..(64 - task pages) pages of its own. Both sides must reach their own
 * frames, the interrupt must leave every slot PTE as it found it (so it
 * never took a slot the task held), and nothing may stay live or warn.
 */
#define TASK_PFN	(APERTURE_FIRST + 0x1000)
#define IRQ_PFN		(APERTURE_FIRST + 0x2000)

static struct {
	unsigned int target;	/* land at this point (1-based); 0: only count */
	unsigned int seen;	/* points passed so far */
	unsigned int npages;	/* the interrupt's map */
	unsigned int ran;
	unsigned int wrong;
	uint64_t slot0;		/* VA of slot 0 on CPU 0 */
} irq;

/* The frames @vaddr's @npages reach; the number that are not @pfn's. */
unsigned int wrong_frames(void *vaddr, unsigned int npages, uint64_t pfn)
{
	unsigned int wrong = 0;

	for (unsigned int i = 0; i < npages; i++) {
		uint64_t frame = 0;

		if (pvstub_access(pvmap_pte_stub.hv, pvmap_shim_cpu,
				  (uintptr_t)vaddr + i * 4096, true, &frame) || frame != pfn + i)
			wrong++;
	}
	return wrong;
}

static void irq_body(void)
{
	uint64_t before[PVMAP_SLOTS_PER_CPU + PVMAP_IRQ_SLOTS];
	void *vaddr;

	if (++irq.seen != irq.target)
		return;
	for (unsigned int i = 0; i < PVMAP_SLOTS_PER_CPU + PVMAP_IRQ_SLOTS; i++)
		before[i] = pvstub_pte(pvmap_pte_stub.hv, irq.slot0 + i * 4096);
	vaddr = pvmap_slots_map(IRQ_PFN, irq.npages, __pgprot(PROT_WC));
	if (!vaddr) {
		irq.wrong++;
		return;
	}
	irq.wrong += wrong_frames(vaddr, irq.npages, IRQ_PFN);
	pvmap_slots_unmap(vaddr, irq.npages);
	for (unsigned int i = 0; i < PVMAP_SLOTS_PER_CPU + PVMAP_IRQ_SLOTS; i++)
		irq.wrong += pvstub_pte(pvmap_pte_stub.hv, irq.slot0 + i * 4096) != before[i];
	irq.ran++;
}

/* One task map+unmap of @npages; the frames it reached wrongly (or all). */
static unsigned int task_map_unmap(unsigned int npages)
{
	void *vaddr = pvmap_slots_map(TASK_PFN, npages, __pgprot(PROT_WC));
	unsigned int wrong;

	if (!vaddr)
		return npages;
	wrong = wrong_frames(vaddr, npages, TASK_PFN);
	pvmap_slots_unmap(vaddr, npages);
	return wrong;
}

/*
 * One pass of an interrupt at every point of task maps of 1, 16 and 64
 * pages; the core must already be begun. @before, if set, runs (with no
 * interrupt) before each task map. Adds to @points, @landed and @bad.
 */
static void irq_every_point_pass(void (*before)(void), unsigned int *points,
				 unsigned int *landed, unsigned int *bad)
{
	static const unsigned int task_sizes[] = { 1, 16, 64 };
	void *probe;

	probe = pvmap_slots_map(TASK_PFN, 1, __pgprot(PROT_WC));
	irq.slot0 = (uintptr_t)probe;
	pvmap_slots_unmap(probe, 1);
	pvmap_shim_irq_hook = irq_body;
	for (unsigned int t = 0; t < sizeof(task_sizes) / sizeof(task_sizes[0]); t++) {
		unsigned int task = task_sizes[t], npoints, most;

		irq.target = 0;
		irq.seen = 0;
		*bad += task_map_unmap(task);
		npoints = irq.seen;
		*points += npoints;
		most = PVMAP_SLOTS_PER_CPU + PVMAP_IRQ_SLOTS - task;

		for (unsigned int n = 1; n <= most && n <= PVMAP_SLOTS_PER_CPU; n++) {
			for (unsigned int k = 1; k <= npoints; k++) {
				irq.target = k;
				irq.seen = 0;
				irq.npages = n;
				irq.ran = 0;
				irq.wrong = 0;
				if (before) {
					pvmap_shim_irq_hook = NULL;
					before();
					pvmap_shim_irq_hook = irq_body;
				}
				if (task_map_unmap(task) || irq.wrong || irq.ran != 1)
					(*bad)++;
				*landed += irq.ran;
			}
		}
	}
	pvmap_shim_irq_hook = NULL;
}

/* Nothing live, nothing stale, no violation, no warning beyond @warnings. */
static bool core_at_rest(unsigned int warnings, unsigned int *stale, uint64_t *violations)
{
	struct pvstub_counts c;

	*stale = revoke_range(TASK_PFN, PVMAP_SLOTS_PER_CPU) +
		 revoke_range(IRQ_PFN, PVMAP_SLOTS_PER_CPU + PVMAP_IRQ_SLOTS);
	pvstub_counts(pvmap_pte_stub.hv, &c);
	*violations = c.violations;
	return !*stale && !c.violations && !pvmap_pte_stub.errors && !pvmap_slots_live(0) &&
	       !pvmap_shim_preempt_count[0] && !pvmap_shim_pagefault_disabled[0] &&
	       pvmap_shim_warnings == warnings;
}

int test_irq_at_every_point(void)
{
	unsigned int points = 0, landed = 0, bad = 0, stale, warnings = pvmap_shim_warnings;
	struct pvstub_counts counts;
	uint64_t violations;
	bool ok;

	if (!core_begin(true, false))
		return 0;
	irq_every_point_pass(NULL, &points, &landed, &bad);
	pvstub_counts(pvmap_pte_stub.hv, &counts);
	ok = core_at_rest(warnings, &stale, &violations) && landed && !bad &&
	     (counts.multicall == 0) == fast_path;
	printf("# %s path: %u interrupt points in task maps of 1, 16 and 64 pages; "
	       "%u interrupts of 1..64 pages (up to 16 when the task holds 64) landed, one at "
	       "each point; %u cases wrong, %u stale at revoke, %" PRIu64 " violations, "
	       "%" PRIu64 " multicalls\n", fast_path ? "fast" : "slow", points, landed, bad,
	       stale, violations, counts.multicall);
	core_end();
	return ok;
}

/*
 * @test on the slot core's slow path, then on its fast path: the
 * guarantees hold on both. The fast path must batch nothing (no multicall
 * in irq_map_at_every_point), so that it is the path under test.
 */
int on_both_paths(int (*test)(void))
{
	int ok;

	fast_path = false;
	ok = test();
	fast_path = true;
	ok = test() && ok;
	fast_path = false;
	return ok;
}

/* The misused unmaps irq_after_misuse makes before each correct map. */
#define MISUSE_A	(APERTURE_FIRST + 0x300)
#define MISUSE_B	(APERTURE_FIRST + 0x400)
static unsigned int misuse_kind;

static void misuse(void)
{
	void *a = pvmap_slots_map(MISUSE_A, 1, __pgprot(PROT_WC));
	void *b = pvmap_slots_map(MISUSE_B, 2, __pgprot(PROT_WC));

	if (!a || !b)
		return;
	switch (misuse_kind) {
	case 0:		/* an address no live map returned */
		pvmap_slots_unmap((void *)0x1000, 0);
		pvmap_slots_unmap(b, 2);
		pvmap_slots_unmap(a, 1);
		break;
	case 1:		/* out of order: a released under b, popped with it */
		pvmap_slots_unmap(a, 1);
		pvmap_slots_unmap(b, 2);
		break;
	case 2:		/* the innermost with the wrong size */
		pvmap_slots_unmap(b, 1);
		pvmap_slots_unmap(a, 1);
		break;
	default:	/* an unmap with nothing live */
		pvmap_slots_unmap(b, 2);
		pvmap_slots_unmap(a, 1);
		pvmap_slots_unmap(a, 1);
		break;
	}
}

/* An interrupt that maps and unmaps one page, at the point irq.target. */
static void irq_one_page(void)
{
	void *vaddr;

	if (++irq.seen != irq.target)
		return;
	vaddr = pvmap_slots_map(IRQ_PFN, 1, __pgprot(PROT_WC));
	irq.wrong += vaddr ? wrong_frames(vaddr, 1, IRQ_PFN) : 1;
	if (vaddr)
		pvmap_slots_unmap(vaddr, 1);
	irq.ran++;
}

#define MISUSE_C	(APERTURE_FIRST + 0x500)

/*
 * Two maps unmapped out of order (both marked released), then the
 * innermost unmapped: its pop follows both marks. An interrupt at every
 * point of that unmap: whatever it pops itself, the task's pop and its
 * must not both write back a top and depth, so nothing stays live, every
 * frame is revoked clean, and the state is as before the maps.
 */
static int irq_during_release_chase(void)
{
	unsigned int points = 0, landed = 0, bad = 0, k, stale = 0;
	bool ok = true;

	if (!core_begin(true, false))
		return 0;
	for (k = 0; ; k++) {
		void *a = pvmap_slots_map(MISUSE_A, 1, __pgprot(PROT_WC));
		void *b = pvmap_slots_map(MISUSE_B, 2, __pgprot(PROT_WC));
		void *c = pvmap_slots_map(MISUSE_C, 1, __pgprot(PROT_WC));

		if (!a || !b || !c) {
			ok = false;
			break;
		}
		pvmap_slots_unmap(a, 1);
		pvmap_slots_unmap(b, 2);
		irq = (typeof(irq)){ .target = k, .slot0 = irq.slot0 };
		pvmap_shim_irq_hook = irq_one_page;
		pvmap_slots_unmap(c, 1);
		pvmap_shim_irq_hook = NULL;
		if (k && (irq.ran != 1 || irq.wrong))
			bad++;
		if (pvmap_slots_live(0) || pvmap_shim_preempt_count[0] ||
		    pvmap_shim_pagefault_disabled[0])
			bad++;
		landed += irq.ran;
		if (!k)
			points = irq.seen;
		else if (k == points)
			break;
		if (bad)
			break;
	}
	stale = revoke_range(MISUSE_A, 1) + revoke_range(MISUSE_B, 2) +
		revoke_range(MISUSE_C, 1) + revoke_range(IRQ_PFN, 1);
	printf("# %s path: two out of order, then the innermost: an interrupt at each of its %u points: "
	       "%u landed, %u cases wrong, %u stale at revoke, %u live after\n",
	       fast_path ? "fast" : "slow", points, landed,
	       bad, stale, pvmap_slots_live(0));
	ok = ok && landed == points && !bad && !stale && !pvmap_slots_live(0);
	core_end();
	return ok;
}

/*
 * irq_map_at_every_point again, each correct map right after a misused
 * unmap of each kind: the misuse gives its WARN and must leave nothing
 * that a later map, or an interrupt nesting in it, trips over. Out of
 * order, the released mark of a popped entry is such a thing: an
 * interrupt between a push's reservation and its fill would follow it
 * and pop the stale entry (clearing another map's page, and leaving the
 * new map mapped after its unmap).
 */
int test_irq_after_misuse(void)
{
	static const char *const kinds[] = {
		"an address no map returned", "out of order", "the wrong size", "nothing live",
	};
	unsigned int stale, warnings;
	uint64_t violations;
	bool all = true;

	for (misuse_kind = 0; misuse_kind < sizeof(kinds) / sizeof(kinds[0]); misuse_kind++) {
		unsigned int points = 0, landed = 0, bad = 0, misuses;
		bool ok;

		if (!core_begin(true, false))
			return 0;
		warnings = pvmap_shim_warnings;
		irq_every_point_pass(misuse, &points, &landed, &bad);
		/* one WARN per misuse, and nothing else */
		misuses = pvmap_shim_warnings - warnings;
		ok = misuses == landed && core_at_rest(pvmap_shim_warnings, &stale, &violations) &&
		     landed && !bad && !revoke_range(MISUSE_A, 1) && !revoke_range(MISUSE_B, 2);
		printf("# %s path, after each misuse (%s): %u interrupts landed at %u points, "
		       "%u cases wrong, %u stale at revoke, %" PRIu64 " violations, %u warnings\n",
		       fast_path ? "fast" : "slow", kinds[misuse_kind], landed, points, bad, stale, violations, misuses);
		all = all && ok;
		core_end();
	}
	return irq_during_release_chase() && all;
}

/*
 * Misused unmaps: each gives one WARN, gives back the state of the map it
 * names, and never clears a PTE another live map uses. Out of order, the
 * outer map stays mapped under the inner one and goes with it; with no map
 * live, nothing is given back.
 */
int test_core_misuse(void)
{
	uint64_t fa = APERTURE_FIRST + 0x300, fb = APERTURE_FIRST + 0x400, got = 0;
	unsigned int warnings;
	void *a, *b;
	bool ok;

	if (!core_begin(true, false))
		return 0;
	warnings = pvmap_shim_warnings;
	a = pvmap_slots_map(fa, 1, __pgprot(PROT_WC));
	b = pvmap_slots_map(fb, 1, __pgprot(PROT_WC));
	ok = a && b && pvmap_shim_preempt_count[0] == 2;
	/* an address no live map returned: a WARN, nothing else */
	ok = ok && !pvmap_slots_unmap((void *)0x1000, 0) &&
	     pvmap_shim_warnings == warnings + 1 && pvmap_shim_preempt_count[0] == 2 &&
	     pvmap_shim_pagefault_disabled[0] == 2;
	/* out of order: a's state given back, a and b still reach their frames */
	ok = ok && !pvmap_slots_unmap(a, 1) && pvmap_shim_warnings == warnings + 2 &&
	     pvmap_shim_preempt_count[0] == 1 && pvmap_shim_pagefault_disabled[0] == 1 &&
	     !wrong_frames(a, 1, fa) && !wrong_frames(b, 1, fb) && pvmap_slots_live(0) == 2;
	/* a again: released already, refused without a change */
	ok = ok && !pvmap_slots_unmap(a, 1) && pvmap_shim_warnings == warnings + 3 &&
	     pvmap_shim_preempt_count[0] == 1;
	/* b with the wrong size: released whole, and a with it */
	ok = ok && !pvmap_slots_unmap(b, 2) && pvmap_shim_warnings == warnings + 4 &&
	     !pvmap_shim_preempt_count[0] && !pvmap_shim_pagefault_disabled[0] &&
	     !pvmap_slots_live(0) &&
	     pvstub_access(pvmap_pte_stub.hv, 0, (uintptr_t)a, false, &got) == -EFAULT &&
	     pvstub_access(pvmap_pte_stub.hv, 0, (uintptr_t)b, false, &got) == -EFAULT;
	/* with nothing live (preemption on): a WARN, no state given back */
	ok = ok && !pvmap_slots_unmap(b, 1) && pvmap_shim_warnings == warnings + 5 &&
	     !pvmap_shim_preempt_count[0] && !pvmap_shim_pagefault_disabled[0];
	/* and the core works on */
	ok = ok && !task_map_unmap(16) && !revoke_range(fa, 1) && !revoke_range(fb, 1);
	core_end();
	return ok;
}

/* The kernel's is in guest/pvmap/pvmap_io_mapping.c; here it counts what the header refused. */
static unsigned int bad_maps;

void __iomem *pvmap_io_mapping_bad_map(const struct pvmap_io_mapping *m, uint64_t offset,
				       unsigned int npages)
{
	(void)m;
	(void)offset;
	(void)npages;
	bad_maps++;
	return NULL;
}

void pvmap_io_mapping_bad_unmap(void)
{
}

/*
 * <pvmap/io_mapping.h>'s inline atomic and local maps over the slot core:
 * the address of the offset itself, in the right frame, and every map that
 * reaches past the aperture, or asks for no pages or more than a CPU's
 * slots, refused before the core is called.
 */
int test_header_maps(void)
{
	struct pvmap_io_mapping m = {
		.base = APERTURE_FIRST << 12, .size = 16 * 4096, .prot = __pgprot(PROT_WC),
	};
	uint64_t big = 0x100000000ULL;	/* 16 TiB of pages: every count fits */
	struct pvmap_io_mapping huge = { .base = m.base, .size = big * 4096, .prot = m.prot };
	void __iomem *p;
	bool ok;

	if (!core_begin(true, false))
		return 0;
	bad_maps = 0;
	p = pvmap_io_mapping_map_atomic_wc(&m, 15 * 4096 + 0x123);
	ok = p && ((uintptr_t)p & 0xfff) == 0x123 &&
	     !wrong_frames((void *)((uintptr_t)p & ~(uintptr_t)0xfff), 1, APERTURE_FIRST + 15);
	if (p)
		pvmap_io_mapping_unmap_atomic(p);
	p = pvmap_io_mapping_map_atomic_range_wc(&m, 12 * 4096, 4);
	ok = ok && p && !wrong_frames(p, 4, APERTURE_FIRST + 12);
	if (p)
		pvmap_io_mapping_unmap_atomic_range(p, 4);
	ok = ok && !bad_maps && !pvmap_slots_live(0) && !pvmap_shim_preempt_count[0];
	ok = ok && !pvmap_io_mapping_map_atomic_wc(&m, 16 * 4096) &&
	     !pvmap_io_mapping_map_atomic_wc(&m, UINT64_MAX) &&
	     !pvmap_io_mapping_map_atomic_wc(NULL, 0) &&
	     !pvmap_io_mapping_map_atomic_range_wc(&m, 14 * 4096, 3) &&
	     !pvmap_io_mapping_map_atomic_range_wc(&m, 0, 0) &&
	     !pvmap_io_mapping_map_atomic_range_wc(&huge, 0, PVMAP_SLOTS_PER_CPU + 1) &&
	     !pvmap_io_mapping_map_atomic_range_wc(&huge, (big - 1) * 4096, 2) &&
	     bad_maps == 7 && !pvmap_shim_preempt_count[0] && !pvmap_shim_pagefault_disabled[0];
	/* the local ones: the same addresses and frames, refused the same ways */
	p = pvmap_io_mapping_map_local_wc(&m, 15 * 4096 + 0x123);
	ok = ok && p && ((uintptr_t)p & 0xfff) == 0x123 &&
	     !wrong_frames((void *)((uintptr_t)p & ~(uintptr_t)0xfff), 1, APERTURE_FIRST + 15) &&
	     current->migration_disabled == 1 && !pvmap_shim_preempt_count[0];
	if (p)
		pvmap_io_mapping_unmap_local(p);
	p = pvmap_io_mapping_map_local_range_wc(&m, 12 * 4096, 4);
	ok = ok && p && !wrong_frames(p, 4, APERTURE_FIRST + 12);
	if (p)
		pvmap_io_mapping_unmap_local(p);
	ok = ok && bad_maps == 7 && !pvmap_slots_live(0) && !current->migration_disabled &&
	     !current->preempt_notifiers;
	ok = ok && !pvmap_io_mapping_map_local_wc(&m, 16 * 4096) &&
	     !pvmap_io_mapping_map_local_range_wc(&m, 14 * 4096, 3) &&
	     !pvmap_io_mapping_map_local_range_wc(&m, 0, 0) &&
	     !pvmap_io_mapping_map_local_range_wc(&huge, (big - 1) * 4096, 2) &&
	     bad_maps == 11 && !current->migration_disabled && !pvmap_shim_preempt_count[0];
	core_end();
	return ok;
}

/*
 * The limits each path must hand to the slow one, which refuses with one
 * WARN and changes nothing: a task past its 64 slots (60 held, 5 asked);
 * an interrupt past the window's 80 (the task holding 64, the interrupt 1
 * and then 16 more: the fast check must not wrap once top passes 64); no
 * pages. A free slot whose PTE is live (a bug elsewhere, or a hypervisor
 * given up on that wrote late) is cleared and used, said once: never
 * mapped live, never refused for good.
 */
static unsigned int live_warned;	/* the free slot found live: WARN_ONCE, both paths */

int test_core_limits(void)
{
	struct pvmap_window *w;
	unsigned int warnings;
	void *task, *a, *b, *c;
	bool ok;

	if (!core_begin(true, false))
		return 0;
	warnings = pvmap_shim_warnings;
	task = pvmap_slots_map(TASK_PFN, 60, __pgprot(PROT_WC));
	ok = task && !pvmap_slots_map(IRQ_PFN, 5, __pgprot(PROT_WC)) &&
	     pvmap_shim_warnings == warnings + 1 && pvmap_slots_live(0) == 60;
	a = pvmap_slots_map(IRQ_PFN, 4, __pgprot(PROT_WC));
	ok = ok && a && !wrong_frames(a, 4, IRQ_PFN) && pvmap_slots_live(0) == 64;
	pvmap_shim_in_irq = true;
	b = pvmap_slots_map(IRQ_PFN + 4, 1, __pgprot(PROT_WC));
	c = pvmap_slots_map(IRQ_PFN + 5, 16, __pgprot(PROT_WC));
	ok = ok && b && !c && pvmap_shim_warnings == warnings + 2 && pvmap_slots_live(0) == 65;
	c = pvmap_slots_map(IRQ_PFN + 5, 15, __pgprot(PROT_WC));
	ok = ok && c && !wrong_frames(c, 15, IRQ_PFN + 5) && pvmap_slots_live(0) == 80;
	if (c)
		pvmap_slots_unmap(c, 15);
	if (b)
		pvmap_slots_unmap(b, 1);
	pvmap_shim_in_irq = false;
	if (a)
		pvmap_slots_unmap(a, 4);
	if (task)
		pvmap_slots_unmap(task, 60);
	ok = ok && !pvmap_slots_map(TASK_PFN, 0, __pgprot(PROT_WC)) &&
	     pvmap_shim_warnings == warnings + 3;
	/*
	 * slot 0's PTE set behind the core's back, twice: each map clears it
	 * and takes the slot with its own frame; one WARN in the whole run.
	 */
	w = (struct pvmap_window *)pvmap_slots_window(0);
	for (int i = 0; i < 2; i++) {
		pvmap_pte_set(w, 0, MISUSE_A, __pgprot(PROT_WC));
		a = pvmap_slots_map(TASK_PFN, 1, __pgprot(PROT_WC));
		ok = ok && a && !wrong_frames(a, 1, TASK_PFN) && !revoke_range(MISUSE_A, 1);
		if (a)
			pvmap_slots_unmap(a, 1);
	}
	live_warned += pvmap_shim_warnings - warnings - 3;
	ok = ok && pvmap_shim_warnings - warnings - 3 <= 1 && live_warned == 1;
	ok = ok && !pvmap_shim_preempt_count[0] && !pvmap_shim_pagefault_disabled[0] &&
	     !pvmap_slots_live(0) && !revoke_range(TASK_PFN, 60) && !revoke_range(IRQ_PFN, 20) &&
	     !revoke_range(MISUSE_A, 1);
	printf("# %s path: limits: %u WARNs (want 3, and one for a free slot found live in "
	       "the whole run: %u so far), %u slots live after\n", fast_path ? "fast" : "slow",
	       pvmap_shim_warnings - warnings, live_warned, pvmap_slots_live(0));
	core_end();
	return ok;
}

/*
 * The static key may turn while maps are live (tracing switched on, say):
 * maps made on one path are unmapped on the other, in order and out of
 * order, with nothing left live or stale.
 */
int test_paths_switch(void)
{
	unsigned int warnings, stale;
	uint64_t violations;
	bool ok = true;

	if (!core_begin(true, false))
		return 0;
	warnings = pvmap_shim_warnings;
	for (unsigned int k = 0; k < 4; k++) {
		void *a, *b;

		pvmap_slots_slow.enabled = k & 1;
		a = pvmap_slots_map(MISUSE_A, 1, __pgprot(PROT_WC));
		b = pvmap_slots_map(MISUSE_B, 16, __pgprot(PROT_WC));
		pvmap_slots_slow.enabled = !(k & 1);
		ok = ok && a && b && !wrong_frames(a, 1, MISUSE_A) && !wrong_frames(b, 16, MISUSE_B);
		if (k & 2) {	/* out of order: a released under b, popped with it */
			pvmap_slots_unmap(a, 1);
			pvmap_slots_slow.enabled = k & 1;
			pvmap_slots_unmap(b, 16);
		} else {
			pvmap_slots_unmap(b, 16);
			pvmap_slots_unmap(a, 1);
		}
	}
	ok = ok && pvmap_shim_warnings == warnings + 2 &&
	     core_at_rest(pvmap_shim_warnings, &stale, &violations) &&
	     !revoke_range(MISUSE_A, 1) && !revoke_range(MISUSE_B, 16);
	printf("# maps on one path, unmaps on the other: %u WARNs (want 2, the out of order "
	       "unmaps), %u slots live after\n", pvmap_shim_warnings - warnings,
	       pvmap_slots_live(0));
	core_end();
	return ok;
}
