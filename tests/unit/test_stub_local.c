// SPDX-License-Identifier: GPL-2.0
/*
 * The slot core's local maps (pvmap_slots_map_local()) on the hypervisor
 * stub, with the shim's tasks and scheduler (slot_core/shim/linux/sched.h
 * and preempt.h): a task switched out at every point where it can be, with
 * another task mapping the same slots meanwhile; an interrupt at every
 * point; misuse. test_stub.c prints the results.
 */
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "test_stub.h"

#define WINDOW_SLOTS	(PVMAP_SLOTS_PER_CPU + PVMAP_IRQ_SLOTS)
#define HOLD_PFN	(APERTURE_FIRST + 0x3000)	/* the holder's first local map */
#define HOLD2_PFN	(APERTURE_FIRST + 0x3100)	/* its second, nested */
#define HOLDX_PFN	(APERTURE_FIRST + 0x3200)	/* its atomic map inside both */
#define OTHER_PFN	(APERTURE_FIRST + 0x4000)	/* the task switched in meanwhile */
#define LIRQ_PFN	(APERTURE_FIRST + 0x5000)	/* an interrupt's */
#define TASKS_PFN	(APERTURE_FIRST + 0x6000)	/* local_misuse's tasks, one frame each */
#define MARK_PFN	(APERTURE_FIRST + 0x8000)	/* local_switch_leaves_no_mark's maps */

/* The holder's maps, as its code knows them: live until it calls their unmap. */
static struct {
	void *va[3];
	uint64_t pfn[3];
	unsigned int npages[3];
	unsigned int n;
} held;

static void held_add(void *va, uint64_t pfn, unsigned int npages)
{
	held.va[held.n] = va;
	held.pfn[held.n] = pfn;
	held.npages[held.n++] = npages;
}

/* The innermost is about to be unmapped: no longer the holder's to use. */
static void held_drop(void)
{
	held.n--;
}

/* The frames the holder's live maps do not reach (its own, from its CPU). */
static unsigned int held_wrong(void)
{
	unsigned int wrong = 0;

	for (unsigned int i = 0; i < held.n; i++)
		wrong += wrong_frames(held.va[i], held.npages[i], held.pfn[i]);
	return wrong;
}

/* Slot @i of CPU 0's window, from slot 0's address. */
static uint64_t slot0;

static uint64_t slot_va(unsigned int i)
{
	return slot0 + (uint64_t)i * 4096;
}

/* Slots of CPU 0 with a PTE, or that an access from CPU 0 reaches (a stale TLB entry). */
static unsigned int slots_reachable(void)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < WINDOW_SLOTS; i++) {
		uint64_t frame = 0;

		n += pvstub_pte(pvmap_pte_stub.hv, slot_va(i)) != 0 ||
		     pvstub_access(pvmap_pte_stub.hv, 0, slot_va(i), false, &frame) != -EFAULT;
	}
	return n;
}

/* A task as it is between its maps: none live, no notifier, free to migrate. */
static bool task_clean(const struct task_struct *t)
{
	return !t->preempt_notifiers && !t->migration_disabled;
}

/*
 * The task switched in while the holder is out, on the same CPU, @npages
 * 1..64: it must find every slot clear and flushed (the holder's PTEs gone,
 * and no TLB entry of them left: *@out), then map at the holder's
 * addresses, from slot 0: locally @npages, atomically the rest of its slots
 * above them, and atomically @npages alone, each reaching its own frames;
 * and leave as it came. The frames it reached wrongly, and every other
 * fault, counted (returned).
 */
static struct task_struct other;

static unsigned int other_task_body(unsigned int npages, unsigned int *out)
{
	unsigned int wrong = 0;
	void *l, *x;

	*out = slots_reachable() + (pvmap_slots_live(0) != 0);

	/* one page through its own entry, as pvmap_io_mapping_map_local_wc() maps it */
	l = npages == 1 ? pvmap_slots_map_local_page(OTHER_PFN, __pgprot(PROT_WC)) :
			  pvmap_slots_map_local(OTHER_PFN, npages, __pgprot(PROT_WC));
	if (!l)
		return wrong + 1;
	wrong += ((uintptr_t)l != slot0) + wrong_frames(l, npages, OTHER_PFN) +
		 (other.migration_disabled != 1) + !other.preempt_notifiers;
	if (npages < PVMAP_SLOTS_PER_CPU) {
		x = pvmap_slots_map(OTHER_PFN + npages, PVMAP_SLOTS_PER_CPU - npages,
				    __pgprot(PROT_WC));
		if (x) {
			wrong += ((uintptr_t)x != slot_va(npages)) +
				 wrong_frames(x, PVMAP_SLOTS_PER_CPU - npages, OTHER_PFN + npages) +
				 wrong_frames(l, npages, OTHER_PFN);
			wrong += !pvmap_slots_unmap(x, PVMAP_SLOTS_PER_CPU - npages);
		} else {
			wrong++;
		}
	}
	pvmap_slots_unmap_local(l);
	x = pvmap_slots_map(OTHER_PFN, npages, __pgprot(PROT_WC));
	if (x) {
		wrong += ((uintptr_t)x != slot0) + wrong_frames(x, npages, OTHER_PFN);
		wrong += !pvmap_slots_unmap(x, npages);
	} else {
		wrong++;
	}
	return wrong + slots_reachable() + (pvmap_slots_live(0) != 0) + !task_clean(&other);
}

/* The switch at the point sw.target: out to the other task, and back. */
static struct {
	unsigned int target;	/* land at this point (1-based); 0: only count */
	unsigned int seen;	/* points passed so far */
	unsigned int npages;	/* the other task's maps */
	unsigned int ran;
	unsigned int wrong;	/* all of the four below */
	unsigned int out;	/* the holder's slots reachable while it is out */
	unsigned int other;	/* the other task's maps wrong */
	unsigned int back_pte;	/* slot PTEs not as they were, back */
	unsigned int back;	/* the holder's frames not reached, back */
} sw;

static void switch_body(void)
{
	struct task_struct *holder = current;
	uint64_t before[WINDOW_SLOTS];

	if (++sw.seen != sw.target)
		return;
	for (unsigned int i = 0; i < WINDOW_SLOTS; i++)
		before[i] = pvstub_pte(pvmap_pte_stub.hv, slot_va(i));
	pvmap_shim_switch_to(&other);
	sw.other = other_task_body(sw.npages, &sw.out);
	pvmap_shim_switch_to(holder);
	/* back: every PTE as it was, the maps the holder knows of reaching its frames */
	for (unsigned int i = 0; i < WINDOW_SLOTS; i++)
		sw.back_pte += pvstub_pte(pvmap_pte_stub.hv, slot_va(i)) != before[i];
	sw.back = held_wrong();
	sw.wrong = sw.out + sw.other + sw.back_pte + sw.back;
	sw.ran++;
}

/* An interrupt at the point li.target: a local map (there an atomic one) or an atomic one. */
static struct {
	unsigned int target, seen, npages, ran, wrong;
} li;

static void local_irq_body(void)
{
	uint64_t before[WINDOW_SLOTS];
	bool local = li.npages & 1;
	void *va;

	if (++li.seen != li.target)
		return;
	for (unsigned int i = 0; i < WINDOW_SLOTS; i++)
		before[i] = pvstub_pte(pvmap_pte_stub.hv, slot_va(i));
	va = local ? pvmap_slots_map_local(LIRQ_PFN, li.npages, __pgprot(PROT_WC)) :
		     pvmap_slots_map(LIRQ_PFN, li.npages, __pgprot(PROT_WC));
	if (!va) {
		li.wrong++;
		return;
	}
	li.wrong += wrong_frames(va, li.npages, LIRQ_PFN);
	if (local)
		pvmap_slots_unmap_local(va);
	else
		li.wrong += !pvmap_slots_unmap(va, li.npages);
	for (unsigned int i = 0; i < WINDOW_SLOTS; i++)
		li.wrong += pvstub_pte(pvmap_pte_stub.hv, slot_va(i)) != before[i];
	li.ran++;
}

/*
 * What the holder does: a local map of @local1 pages (one page through
 * pvmap_slots_map_local_page(), more through pvmap_slots_map_local()), and
 * inside it (when not 0) a local map of @local2 and inside that an atomic
 * one of @atomic; between each step it uses them (each page reached) and
 * its own code may be switched out or interrupted (pvmap_shim_irq_point()).
 * The frames not reached, and every refused call, counted.
 */
struct holding {
	unsigned int local1, local2, atomic;
};

static unsigned int holder_run(const struct holding *h)
{
	unsigned int wrong = 0;
	void *a, *b = NULL, *x;

	held.n = 0;
	a = h->local1 == 1 ? pvmap_slots_map_local_page(HOLD_PFN, __pgprot(PROT_WC)) :
			     pvmap_slots_map_local(HOLD_PFN, h->local1, __pgprot(PROT_WC));
	if (!a)
		return 1;
	held_add(a, HOLD_PFN, h->local1);
	wrong += held_wrong();
	pvmap_shim_irq_point();
	wrong += held_wrong();
	if (h->local2) {
		b = pvmap_slots_map_local(HOLD2_PFN, h->local2, __pgprot(PROT_WC));
		if (b)
			held_add(b, HOLD2_PFN, h->local2);
		wrong += !b + held_wrong();
		pvmap_shim_irq_point();
		wrong += held_wrong();
	}
	if (h->atomic) {
		x = pvmap_slots_map(HOLDX_PFN, h->atomic, __pgprot(PROT_WC));
		if (x)
			held_add(x, HOLDX_PFN, h->atomic);
		wrong += !x + held_wrong();
		pvmap_shim_irq_point();
		wrong += held_wrong();
		if (x) {
			held_drop();
			wrong += !pvmap_slots_unmap(x, h->atomic);
		}
		pvmap_shim_irq_point();
		wrong += held_wrong();
	}
	if (b) {
		held_drop();
		pvmap_slots_unmap_local(b);
		pvmap_shim_irq_point();
		wrong += held_wrong();
	}
	held_drop();
	pvmap_slots_unmap_local(a);
	pvmap_shim_irq_point();
	return wrong;
}

/* The holder between runs: nothing live, every count back to 0, no notifier. */
static bool holder_at_rest(void)
{
	return !pvmap_slots_live(0) && !pvmap_shim_preempt_count[0] &&
	       !pvmap_shim_pagefault_disabled[0] && !pvmap_shim_irqs_off[0] && task_clean(current);
}

/*
 * A task's local maps switched out at every point where it can be: at
 * each preemptible point (pvmap_shim_irq_point() or preempt_enable() back
 * to 0, the shim's switch hook) of a local map of 1, 16 or 64 pages, its
 * use and its unmap, and of a local map of 16 with one of 8 inside it and
 * an atomic map of 4 inside both, in turn, another task runs on the CPU
 * and maps 1..64 pages local and atomic at the same slots. The holder's
 * slots must be clear and flushed while it is out, come back as they were
 * (every PTE) when it is in again, and reach its frames; the other task
 * reaches its own. Then an interrupt at every point of the same runs,
 * mapping up to 64 pages (up to what the window has left), local or atomic:
 * every PTE as it found it. Nothing live or stale after, no WARN, every
 * count balanced, every notifier unregistered.
 */
int test_local_switch_at_every_point(void)
{
	static const struct holding holdings[4] = {
		{ 1, 0, 0 }, { 16, 0, 0 }, { 64, 0, 0 }, { 16, 8, 4 },
	};
	/*
	 * What the other task and the interrupt map: each side of every edge
	 * of the holdings (1, 16, 16+8, 16+8+4, 64 slots), and between them:
	 * every size from 1 to 64 made the valgrind run 25 s longer.
	 */
	static const unsigned int other_sizes[] = {
		1, 2, 15, 16, 17, 23, 24, 25, 27, 28, 29, 36, 48, 63, 64,
	};
	const unsigned int nsizes = sizeof(other_sizes) / sizeof(other_sizes[0]);
	unsigned int switch_points = 0, switches = 0, irq_points = 0, irqs = 0, bad = 0;
	unsigned int sp[4] = { 0 }, ip[4] = { 0 }, kinds[4] = { 0 };
	unsigned int warnings = pvmap_shim_warnings, pr_warnings = pvmap_shim_pr_warnings;
	unsigned int stale;
	struct pvstub_counts c;
	void *probe;
	bool ok;

	if (!core_begin(true, false))
		return 0;
	/* the shim's task as new, whatever a failed test left on it */
	*current = (struct task_struct){ 0 };
	other = (struct task_struct){ 0 };
	probe = pvmap_slots_map(HOLD_PFN, 1, __pgprot(PROT_WC));
	slot0 = (uintptr_t)probe;
	pvmap_slots_unmap(probe, 1);
	for (unsigned int h = 0; h < sizeof(holdings) / sizeof(holdings[0]); h++) {
		const struct holding *hd = &holdings[h];
		unsigned int npoints, most;

		pvmap_shim_switch_hook = switch_body;
		sw = (typeof(sw)){ 0 };
		bad += holder_run(hd) + !holder_at_rest();
		npoints = sw.seen;
		sp[h] = npoints;
		switch_points += npoints;
		for (unsigned int z = 0; z < nsizes; z++) {
			unsigned int n = other_sizes[z];

			for (unsigned int k = 1; k <= npoints; k++) {
				sw = (typeof(sw)){ .target = k, .npages = n };
				if (holder_run(hd) || sw.wrong || sw.ran != 1 || !holder_at_rest())
					bad++;
				switches += sw.ran;
				kinds[0] += !!sw.out;
				kinds[1] += !!sw.other;
				kinds[2] += !!sw.back_pte;
				kinds[3] += !!sw.back;
			}
		}
		pvmap_shim_switch_hook = NULL;

		pvmap_shim_irq_hook = local_irq_body;
		li = (typeof(li)){ 0 };
		bad += holder_run(hd) + !holder_at_rest();
		npoints = li.seen;
		ip[h] = npoints;
		irq_points += npoints;
		most = WINDOW_SLOTS - hd->local1 - hd->local2 - hd->atomic;
		for (unsigned int z = 0; z < nsizes && other_sizes[z] <= most; z++) {
			unsigned int n = other_sizes[z];

			for (unsigned int k = 1; k <= npoints; k++) {
				li = (typeof(li)){ .target = k, .npages = n };
				if (holder_run(hd) || li.wrong || li.ran != 1 || !holder_at_rest())
					bad++;
				irqs += li.ran;
			}
		}
		pvmap_shim_irq_hook = NULL;
	}
	stale = revoke_range(HOLD_PFN, PVMAP_SLOTS_PER_CPU) + revoke_range(HOLD2_PFN, 8) +
		revoke_range(HOLDX_PFN, 4) + revoke_range(OTHER_PFN, PVMAP_SLOTS_PER_CPU) +
		revoke_range(LIRQ_PFN, PVMAP_SLOTS_PER_CPU);
	pvstub_counts(pvmap_pte_stub.hv, &c);
	ok = switch_points && switches && irqs && !bad && !stale && !c.violations &&
	     !pvmap_pte_stub.errors && holder_at_rest() && task_clean(&other) &&
	     pvmap_shim_warnings == warnings && pvmap_shim_pr_warnings == pr_warnings;
	printf("# %s path: local maps of 1, 16, 64 pages and nested (16 local, 8 local, 4 atomic): "
	       "%u switch points (%u+%u+%u+%u), %u switches landed (the other task mapping 1 to 64 "
	       "pages local and atomic at the same slots); %u interrupt points (%u+%u+%u+%u), %u "
	       "interrupts landed; %u cases wrong (switches: %u with the holder's slots reachable "
	       "while it was out, %u with the other task's maps wrong, %u with slot PTEs not as "
	       "they were when back, %u with the holder's frames not reached when back), "
	       "%u stale at revoke, %" PRIu64 " violations, %u warnings\n",
	       fast_path ? "fast" : "slow", switch_points, sp[0], sp[1], sp[2], sp[3], switches,
	       irq_points, ip[0], ip[1], ip[2], ip[3], irqs, bad, kinds[0], kinds[1], kinds[2],
	       kinds[3], stale, c.violations, pvmap_shim_warnings - warnings);
	core_end();
	return ok && !pvmap_shim_preempt_notifier_key;
}

/* the one WARN of a task exiting with local maps: WARN_ONCE, both paths */
static unsigned int dead_warned;

/*
 * Local maps misused: each misuse one WARN and no change. An atomic unmap
 * of a local map (preemptible, and under an atomic map) and a local unmap
 * of an atomic map (with and without a local map of the task's) are
 * refused, the map live and reaching its frame; a local unmap out of order
 * releases the map, which goes with the one above it, and comes back at a
 * switch in until then; a local unmap of an address no map returned, or
 * with no map, changes nothing; a refused local map gives back what it
 * took; an atomic map released under a local one stays cleared across a
 * switch, and goes with the local one. A task exiting with a local map has its
 * slots cleared (one WARN in the run) and its record freed: then
 * PVMAP_LOCAL_TASKS tasks on one CPU hold one each, and one more is
 * refused (NULL, a warning, no WARN) without a change to the others.
 */
int test_local_misuse(void)
{
	static struct task_struct tasks[PVMAP_LOCAL_TASKS + 2], dead;
	uint64_t fa = APERTURE_FIRST + 0x700, fb = APERTURE_FIRST + 0x710;
	uint64_t fx = APERTURE_FIRST + 0x720;
	struct task_struct *holder = current;
	unsigned int warnings, pr_warnings, stale, taken = 0, steps = 0, failed = 0, exit_warned;
	void *a, *b, *x, *v[PVMAP_LOCAL_TASKS + 2];
	struct pvstub_counts c;
	bool ok;

	if (!core_begin(true, false))
		return 0;
	*current = (struct task_struct){ 0 };
	warnings = pvmap_shim_warnings;
	pr_warnings = pvmap_shim_pr_warnings;
	x = pvmap_slots_map(fx, 1, __pgprot(PROT_WC));
	slot0 = (uintptr_t)x;
	pvmap_slots_unmap(x, 1);
	/*
	 * Each check in turn, always evaluated (some make the calls under
	 * test), so that a failure changes no later step; the line of the
	 * first that fails.
	 */
#define STEP(cond) do {					\
	bool __pass = (cond);				\
							\
	if (ok && !__pass) {				\
		ok = false;				\
		failed = __LINE__;			\
	} else if (ok) {				\
		steps++;				\
	}						\
} while (0)
	ok = true;

	/* an atomic unmap of a local map, preemptible: refused, the map live */
	a = pvmap_slots_map_local(fa, 2, __pgprot(PROT_WC));
	STEP(a && current->migration_disabled == 1 && current->preempt_notifiers &&
	     !pvmap_shim_preempt_count[0] && !pvmap_shim_pagefault_disabled[0]);
	STEP(!pvmap_slots_unmap(a, 2) && pvmap_shim_warnings == warnings + 1 &&
	     pvmap_slots_live(0) == 2 && !wrong_frames(a, 2, fa) &&
	     current->migration_disabled == 1 && !pvmap_shim_preempt_count[0] &&
	     !pvmap_shim_pagefault_disabled[0]);
	/* under an atomic map (found, then refused), and a local unmap of that atomic map */
	x = pvmap_slots_map(fx, 1, __pgprot(PROT_WC));
	STEP(x && !pvmap_slots_unmap(a, 2) && pvmap_shim_warnings == warnings + 2 &&
	     pvmap_shim_preempt_count[0] == 1 && pvmap_shim_pagefault_disabled[0] == 1);
	pvmap_slots_unmap_local(x);
	STEP(pvmap_shim_warnings == warnings + 3 && pvmap_slots_live(0) == 3 &&
	     pvmap_shim_preempt_count[0] == 1 && pvmap_shim_pagefault_disabled[0] == 1 &&
	     current->migration_disabled == 1 && !wrong_frames(x, 1, fx) &&
	     !wrong_frames(a, 2, fa));
	STEP(pvmap_slots_unmap(x, 1) && !pvmap_shim_preempt_count[0]);
	/* a local unmap of an address no map returned */
	pvmap_slots_unmap_local((void *)0x1000);
	STEP(pvmap_shim_warnings == warnings + 4 && pvmap_slots_live(0) == 2 &&
	     current->migration_disabled == 1 && !wrong_frames(a, 2, fa));
	pvmap_slots_unmap_local(a);
	STEP(!pvmap_slots_live(0) && task_clean(current) &&
	     pvmap_shim_warnings == warnings + 4);
	/* a local unmap of an atomic map, the task holding no local map */
	x = pvmap_slots_map(fx, 1, __pgprot(PROT_WC));
	pvmap_slots_unmap_local(x);
	STEP(x && pvmap_shim_warnings == warnings + 5 && pvmap_slots_live(0) == 1 &&
	     pvmap_shim_preempt_count[0] == 1 && task_clean(current) && !wrong_frames(x, 1, fx));
	STEP(pvmap_slots_unmap(x, 1) && !pvmap_slots_live(0));
	/* a local unmap with no map */
	pvmap_slots_unmap_local(a);
	STEP(pvmap_shim_warnings == warnings + 6 && task_clean(current) &&
	     !pvmap_shim_preempt_count[0]);

	/*
	 * Out of order: a released under b, its migration given back, still
	 * mapped; switched out and in, both back; b's unmap takes both.
	 */
	a = pvmap_slots_map_local(fa, 2, __pgprot(PROT_WC));
	b = pvmap_slots_map_local(fb, 3, __pgprot(PROT_WC));
	STEP(a && b && current->migration_disabled == 2);
	pvmap_slots_unmap_local(a);
	STEP(pvmap_shim_warnings == warnings + 7 && pvmap_slots_live(0) == 5 &&
	     current->migration_disabled == 1 && current->preempt_notifiers &&
	     !wrong_frames(a, 2, fa) && !wrong_frames(b, 3, fb));
	other = (struct task_struct){ 0 };
	pvmap_shim_switch_to(&other);
	STEP(!slots_reachable() && !pvmap_slots_live(0));
	pvmap_shim_switch_to(holder);
	STEP(pvmap_slots_live(0) == 5 && !wrong_frames(a, 2, fa) && !wrong_frames(b, 3, fb));
	pvmap_slots_unmap_local(b);
	STEP(pvmap_shim_warnings == warnings + 7 && !pvmap_slots_live(0) &&
	     task_clean(current) && !slots_reachable());

	/*
	 * Refused local maps (no pages; more than the slots left) give back
	 * what they took: the notifier and migration too when the task holds
	 * no other local map, and nothing of the one it holds.
	 */
	STEP(!pvmap_slots_map_local(fa, 0, __pgprot(PROT_WC)) &&
	     pvmap_shim_warnings == warnings + 8 && task_clean(current) &&
	     !pvmap_shim_preempt_count[0]);
	a = pvmap_slots_map_local(fa, 2, __pgprot(PROT_WC));
	STEP(a && !pvmap_slots_map_local(fb, PVMAP_SLOTS_PER_CPU - 1, __pgprot(PROT_WC)) &&
	     pvmap_shim_warnings == warnings + 9 && current->migration_disabled == 1 &&
	     current->preempt_notifiers && pvmap_slots_live(0) == 2 && !wrong_frames(a, 2, fa) &&
	     !pvmap_shim_preempt_count[0]);
	/*
	 * An atomic map unmapped out of order under a local one: released,
	 * the task preemptible again. Switched out and in, the local maps come
	 * back and the released one stays cleared; the local unmap above it
	 * takes it.
	 */
	x = pvmap_slots_map(fx, 1, __pgprot(PROT_WC));
	b = pvmap_slots_map_local(fb, 3, __pgprot(PROT_WC));
	STEP(x && b && !pvmap_slots_unmap(x, 1) && pvmap_shim_warnings == warnings + 10 &&
	     !pvmap_shim_preempt_count[0] && !pvmap_shim_pagefault_disabled[0] &&
	     pvmap_slots_live(0) == 6 && current->migration_disabled == 2);
	pvmap_shim_switch_to(&other);
	STEP(!slots_reachable() && !pvmap_slots_live(0));
	pvmap_shim_switch_to(holder);
	STEP(pvmap_slots_live(0) == 6 && !wrong_frames(a, 2, fa) && !wrong_frames(b, 3, fb) &&
	     wrong_frames(x, 1, fx) == 1);
	pvmap_slots_unmap_local(b);
	STEP(pvmap_slots_live(0) == 2 && current->migration_disabled == 1 &&
	     pvmap_shim_warnings == warnings + 10 && !wrong_frames(a, 2, fa));
	pvmap_slots_unmap_local(a);
	STEP(!pvmap_slots_live(0) && task_clean(current) && !slots_reachable());

	/* a task exits holding a local map: cleared, its record free again */
	dead = (struct task_struct){ 0 };
	pvmap_shim_switch_to(&dead);
	x = pvmap_slots_map_local(fx, 4, __pgprot(PROT_WC));
	STEP(x && !wrong_frames(x, 4, fx));
	dead.__state = TASK_DEAD;
	exit_warned = pvmap_shim_warnings;
	pvmap_shim_switch_to(&tasks[0]);
	exit_warned = pvmap_shim_warnings - exit_warned;
	dead_warned += exit_warned;
	STEP(exit_warned <= 1 && dead_warned == 1 && !slots_reachable() && !pvmap_slots_live(0));
	warnings += exit_warned;
	dead = (struct task_struct){ 0 };	/* gone */

	/*
	 * PVMAP_LOCAL_TASKS + 1 tasks with a local map each, every one at slot
	 * 0: the CPU's records, then one allocated; one more refused when the
	 * allocation fails (a warning, not a WARN).
	 */
	for (unsigned int i = 0; i <= PVMAP_LOCAL_TASKS + 1; i++) {
		tasks[i] = (struct task_struct){ 0 };
		pvmap_shim_switch_to(&tasks[i]);
		pvmap_shim_kmalloc_fails = i == PVMAP_LOCAL_TASKS + 1;
		v[i] = pvmap_slots_map_local(TASKS_PFN + i, 1, __pgprot(PROT_WC));
		pvmap_shim_kmalloc_fails = false;
		taken += v[i] != NULL;
		if (i <= PVMAP_LOCAL_TASKS)
			STEP((uintptr_t)v[i] == slot0 && !wrong_frames(v[i], 1, TASKS_PFN + i) &&
			     pvmap_slots_live(0) == 1);
	}
	STEP(taken == PVMAP_LOCAL_TASKS + 1 && !v[PVMAP_LOCAL_TASKS + 1] &&
	     task_clean(&tasks[PVMAP_LOCAL_TASKS + 1]) && !pvmap_slots_live(0) &&
	     pvmap_shim_pr_warnings == pr_warnings + 1 && pvmap_shim_warnings == warnings + 10);
	/* each switched in again reaches its own frame, then unmaps: even first, odd after */
	for (unsigned int pass = 0; pass < 2; pass++) {
		for (unsigned int i = pass; i <= PVMAP_LOCAL_TASKS; i += 2) {
			pvmap_shim_switch_to(&tasks[i]);
			STEP(pvmap_slots_live(0) == 1 && !wrong_frames(v[i], 1, TASKS_PFN + i));
			pvmap_slots_unmap_local(v[i]);
			STEP(!pvmap_slots_live(0) && task_clean(&tasks[i]));
		}
	}
	/* and every record free: the refused one's turn now */
	pvmap_shim_switch_to(&tasks[PVMAP_LOCAL_TASKS + 1]);
	v[0] = pvmap_slots_map_local(TASKS_PFN, 1, __pgprot(PROT_WC));
	STEP(v[0] && !wrong_frames(v[0], 1, TASKS_PFN));
	if (v[0])
		pvmap_slots_unmap_local(v[0]);
	pvmap_shim_switch_to(holder);
#undef STEP

	stale = revoke_range(fa, 2) + revoke_range(fb, 3) + revoke_range(fx, 4) +
		revoke_range(TASKS_PFN, PVMAP_LOCAL_TASKS + 2);
	pvstub_counts(pvmap_pte_stub.hv, &c);
	ok = ok && !stale && !c.violations && !pvmap_pte_stub.errors && holder_at_rest() &&
	     task_clean(&tasks[PVMAP_LOCAL_TASKS + 1]) && pvmap_shim_warnings == warnings + 10 &&
	     pvmap_shim_pr_warnings == pr_warnings + 1;
	printf("# %s path: local misuse: %u WARNs (want 10, and one for a task exiting with a "
	       "local map in the whole run: %u so far), %u refused for want of a record "
	       "(want 1 of %u tasks, the CPU's %u records and one allocated taken), %u checks "
	       "passed (the first failed: line %u, 0: none), %u stale at revoke, %" PRIu64
	       " violations\n", fast_path ? "fast" : "slow",
	       pvmap_shim_warnings - warnings, dead_warned, PVMAP_LOCAL_TASKS + 2 - taken,
	       PVMAP_LOCAL_TASKS + 2, PVMAP_LOCAL_TASKS, steps, failed, stale, c.violations);
	core_end();
	return ok && !pvmap_shim_preempt_notifier_key;
}

/*
 * A local map released out of order leaves no mark on its CPU's stack when
 * its task is switched out (992178e): the task (T1) holds a local map a and
 * one b above it, unmaps a out of order (one WARN: a released, still mapped
 * under b), and is switched out. Another task (T2) then maps at the index a
 * had, on the fast path, which writes no mark:
 * - x and y above it; y's unmap with the wrong npages (one WARN) releases
 *   y only: x stays live, its PTE present and reaching its frame, and its
 *   correct unmap (fast path) takes it;
 * - the holder switched in and out again (each switch out must unmark),
 *   then x alone, its unmap on the slow path (tracing switched on
 *   meanwhile): it finds x, clears its PTE and its TLB entry, and gives
 *   back the preemption and page faults x took.
 * The misuse first, since with the mark left its pop leaves the stack
 * empty for the second; with the mark left, x's slow unmap would find no
 * live map (a WARN, its PTE live, the counts leaked) and y's misused one
 * would pop x with y. Then the holder is back and unmaps b, which takes a:
 * nothing live or stale after, two WARNs in all.
 */
int test_local_switch_leaves_no_mark(void)
{
	static struct task_struct t2;
	const uint64_t fa = MARK_PFN, fb = MARK_PFN + 0x10, fx = MARK_PFN + 0x20;
	const uint64_t fy = MARK_PFN + 0x30;
	struct task_struct *t1 = current;
	unsigned int warnings, stale, steps = 0, failed = 0;
	struct pvstub_counts c;
	void *a, *b, *x, *y;
	uint64_t frame;
	bool ok;

	if (!core_begin(true, false))
		return 0;
	*current = (struct task_struct){ 0 };
	t2 = (struct task_struct){ 0 };
	warnings = pvmap_shim_warnings;
	x = pvmap_slots_map(fx, 1, __pgprot(PROT_WC));
	slot0 = (uintptr_t)x;
	pvmap_slots_unmap(x, 1);
	/* Each check in turn, always evaluated; every one that fails said, and counted. */
#define CHECK(what, cond) do {						\
	if (cond) {							\
		steps++;						\
	} else {							\
		failed++;						\
		printf("# %s path: leaves no mark: line %u failed: %s\n",	\
		       fast_path ? "fast" : "slow", __LINE__, what);	\
	}								\
} while (0)

	/* T1: a, b above it; a unmapped out of order, then switched out */
	a = pvmap_slots_map_local(fa, 2, __pgprot(PROT_WC));
	b = pvmap_slots_map_local(fb, 3, __pgprot(PROT_WC));
	CHECK("T1's a at slot 0, b at slot 2",
	      a && b && (uintptr_t)a == slot0 && (uintptr_t)b == slot_va(2) &&
	      pvmap_slots_live(0) == 5 && t1->migration_disabled == 2);
	pvmap_slots_unmap_local(a);
	CHECK("T1's a released out of order: one WARN, a and b still mapped",
	      pvmap_shim_warnings == warnings + 1 && pvmap_slots_live(0) == 5 &&
	      t1->migration_disabled == 1 && t1->preempt_notifiers &&
	      !wrong_frames(a, 2, fa) && !wrong_frames(b, 3, fb));
	pvmap_shim_switch_to(&t2);
	CHECK("T1 out: its slots cleared and flushed, the stack empty",
	      !slots_reachable() && !pvmap_slots_live(0) && !pvmap_shim_preempt_count[0]);

	/* T2, fast path: x at a's index, y above it; y unmapped with the wrong npages */
	pvmap_slots_slow.enabled = false;
	x = pvmap_slots_map(fx, 1, __pgprot(PROT_WC));
	y = pvmap_slots_map(fy, 2, __pgprot(PROT_WC));
	CHECK("T2's x at slot 0 (a's index), y above it",
	      x && y && (uintptr_t)x == slot0 && (uintptr_t)y == slot_va(1) &&
	      !wrong_frames(x, 1, fx) && !wrong_frames(y, 2, fy) && pvmap_slots_live(0) == 3 &&
	      pvmap_shim_preempt_count[0] == 2 && pvmap_shim_pagefault_disabled[0] == 2);
	CHECK("y's unmap of 1 page (it has 2): refused with one WARN",
	      !pvmap_slots_unmap(y, 1) && pvmap_shim_warnings == warnings + 2);
	CHECK("after y's misused unmap: y cleared, x still live and mapped",
	      pvmap_slots_live(0) == 1 && pvstub_pte(pvmap_pte_stub.hv, slot0) &&
	      !wrong_frames(x, 1, fx) && !pvstub_pte(pvmap_pte_stub.hv, slot_va(1)) &&
	      !pvstub_pte(pvmap_pte_stub.hv, slot_va(2)) &&
	      pvmap_shim_preempt_count[0] == 1 && pvmap_shim_pagefault_disabled[0] == 1);
	CHECK("x's unmap (fast path) takes it, no WARN",
	      pvmap_slots_unmap(x, 1) && pvmap_shim_warnings == warnings + 2);
	CHECK("after x's unmap: nothing live or reachable, T2's counts at 0",
	      !pvmap_slots_live(0) && !slots_reachable() && !pvmap_shim_preempt_count[0] &&
	      !pvmap_shim_pagefault_disabled[0] && task_clean(&t2));
	pvmap_slots_slow.enabled = !fast_path;

	/* T1 in (its marked a back under b), and out again */
	pvmap_shim_switch_to(t1);
	CHECK("T1 in: a and b back",
	      pvmap_slots_live(0) == 5 && !wrong_frames(a, 2, fa) && !wrong_frames(b, 3, fb));
	pvmap_shim_switch_to(&t2);
	CHECK("T1 out again: its slots cleared and flushed, the stack empty",
	      !slots_reachable() && !pvmap_slots_live(0) && !pvmap_shim_preempt_count[0]);

	/* T2: x at a's index on the fast path, its unmap on the slow one */
	pvmap_slots_slow.enabled = false;
	x = pvmap_slots_map(fx, 1, __pgprot(PROT_WC));
	CHECK("T2's x at slot 0 (a's index), fast path",
	      x && (uintptr_t)x == slot0 && !wrong_frames(x, 1, fx) && pvmap_slots_live(0) == 1 &&
	      pvmap_shim_preempt_count[0] == 1 && pvmap_shim_pagefault_disabled[0] == 1);
	pvmap_slots_slow.enabled = true;
	CHECK("x's unmap on the slow path finds it, no WARN",
	      pvmap_slots_unmap(x, 1) && pvmap_shim_warnings == warnings + 2);
	frame = 0;
	CHECK("after x's slow unmap: its PTE clear, its TLB entry gone (the access faults)",
	      !pvstub_pte(pvmap_pte_stub.hv, slot0) &&
	      pvstub_access(pvmap_pte_stub.hv, 0, slot0, true, &frame) == -EFAULT &&
	      !slots_reachable() && !revoke_range(fx, 1));
	CHECK("after x's slow unmap: nothing live, T2's preempt and page-fault counts at 0",
	      !pvmap_slots_live(0) && !pvmap_shim_preempt_count[0] &&
	      !pvmap_shim_pagefault_disabled[0] && task_clean(&t2));
	pvmap_slots_slow.enabled = !fast_path;

	/* T1 in, unmaps b, which takes a with it */
	pvmap_shim_switch_to(t1);
	CHECK("T1 in again: a and b back",
	      pvmap_slots_live(0) == 5 && !wrong_frames(a, 2, fa) && !wrong_frames(b, 3, fb));
	pvmap_slots_unmap_local(b);
	CHECK("b's unmap takes a: nothing live or reachable, no WARN, T1 clean",
	      !pvmap_slots_live(0) && !slots_reachable() && task_clean(t1) &&
	      pvmap_shim_warnings == warnings + 2);
#undef CHECK

	stale = revoke_range(fa, 2) + revoke_range(fb, 3) + revoke_range(fx, 1) +
		revoke_range(fy, 2);
	pvstub_counts(pvmap_pte_stub.hv, &c);
	ok = !failed && !stale && !c.violations && !pvmap_pte_stub.errors && holder_at_rest() &&
	     task_clean(&t2) && pvmap_shim_warnings == warnings + 2;
	printf("# %s path: a switch out leaves no mark: %u WARNs (want 2: a's and y's misused "
	       "unmaps), %u checks passed, %u failed, %u stale at revoke, %" PRIu64
	       " violations\n", fast_path ? "fast" : "slow", pvmap_shim_warnings - warnings, steps,
	       failed, stale, c.violations);
	core_end();
	ok = ok && !pvmap_shim_preempt_notifier_key;
	/* what a failure left on the shim's CPU and task, given back: the next test starts as new */
	pvmap_shim_preempt_count[0] = 0;
	pvmap_shim_pagefault_disabled[0] = 0;
	*current = (struct task_struct){ 0 };
	return ok;
}
