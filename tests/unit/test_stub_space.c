// SPDX-License-Identifier: GPL-2.0
/*
 * The slot core against address-space changes, as x86_64 has them under
 * page-table isolation with PCIDs (the stub's model: pvmap_pte_stub.h): a
 * TLB entry of a slot lives in the space it was filled in, an invlpg reaches
 * the current space only, and a CPU changes space between a map and its
 * unmap (a flush IPI switches a lazy-TLB CPU to init_mm), or a task holding
 * local maps is switched out and in again under another. No entry of a
 * cleared slot may survive in any space, and the whole TLB is flushed only
 * where the space changed under a live map. test_stub.c prints the results.
 */
#include <linux/printk.h>
#include <linux/sched.h>

#include "test_stub.h"

#define WINDOW_SLOTS	(PVMAP_SLOTS_PER_CPU + PVMAP_IRQ_SLOTS)
#define SPACE_PFN	(APERTURE_FIRST + 0x7000)	/* the task's maps, 0x100 frames apart */
#define SIRQ_PFN	(APERTURE_FIRST + 0x7800)	/* an interrupt's own map */
#define SOTHER_PFN	(APERTURE_FIRST + 0x7900)	/* the task switched in meanwhile */
#define MAX_MAPS	4

/*
 * What a task does, step by step: n > 0 an atomic map of n pages, n < 0 a
 * local map of -n pages, 0 the unmap of the innermost. One page goes
 * through the single-page entries (pvmap_io_mapping_map_atomic_wc()'s and
 * _local_wc()'s). After each step the task uses every live map (each page
 * reached and touched, so that its entry is in the current space) and
 * passes a point where an interrupt or a switch may land.
 */
struct script {
	const char *name;
	bool local;		/* holds a local map: a switch may land */
	unsigned int nsteps;
	int step[2 * MAX_MAPS];
};

static const struct script scripts[] = {
	{ "atomic page", false, 2, { 1, 0 } },
	{ "atomic range", false, 2, { 16, 0 } },
	{ "atomic nested", false, 4, { 1, 16, 0, 0 } },
	{ "local page", true, 2, { -1, 0 } },
	{ "local range", true, 2, { -16, 0 } },
	{ "local nested", true, 6, { -16, -8, 4, 0, 0, 0 } },
};

/* The task's live maps, as its code knows them. */
static struct {
	void *va[MAX_MAPS];
	uint64_t pfn[MAX_MAPS];
	unsigned int npages[MAX_MAPS];
	bool local[MAX_MAPS];
	unsigned int n;
} live;

/* What the task is doing when something lands: at one of its own points, or in a call. */
enum doing { AT_POINT, IN_MAP, IN_UNMAP };

static struct {
	enum doing doing;
	unsigned int live;	/* its live maps when the step began */
} task;

static uint64_t slot0;	/* CPU 0's slot 0 */

static uint64_t slot_va(unsigned int i)
{
	return slot0 + (uint64_t)i * 4096;
}

static unsigned int space_now(void)
{
	return (unsigned int)pvmap_tlb_space();
}

/* An access to every page of CPU 0's window, or a speculative fill: each live one tagged. */
static void touch_window(void)
{
	for (unsigned int i = 0; i < WINDOW_SLOTS; i++)
		pvmap_pte_stub_touch(slot_va(i));
}

/* Slots of CPU 0 whose PTE is clear and that an entry in some space still holds. */
static unsigned int slots_stale(void)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < WINDOW_SLOTS; i++)
		n += !(pvstub_pte(pvmap_pte_stub.hv, slot_va(i)) & 1) &&
		     pvmap_pte_stub_tagged(0, slot_va(i));
	return n;
}

/* Slots of CPU 0 with a PTE or an entry in any space: a task switched out leaves none. */
static unsigned int slots_held(void)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < WINDOW_SLOTS; i++)
		n += pvstub_pte(pvmap_pte_stub.hv, slot_va(i)) != 0 ||
		     pvmap_pte_stub_tagged(0, slot_va(i));
	return n;
}

/*
 * The task uses its live maps: each page reaches its frame and is touched,
 * its entry then in the current space (the model must tag it, or the
 * test would prove nothing). Returns the pages that fail either.
 */
static unsigned int live_use(void)
{
	unsigned int wrong = 0;

	for (unsigned int m = 0; m < live.n; m++) {
		wrong += wrong_frames(live.va[m], live.npages[m], live.pfn[m]);
		for (unsigned int i = 0; i < live.npages[m]; i++) {
			uint64_t va = (uintptr_t)live.va[m] + (uint64_t)i * 4096;

			pvmap_pte_stub_touch(va);
			wrong += !(pvmap_pte_stub_tagged(0, va) & (1U << space_now()));
		}
	}
	return wrong;
}

/* What went wrong in a pass, by kind. */
struct faults {
	unsigned int stale;	/* a cleared slot's entry left in some space */
	unsigned int wrong;	/* a frame not reached, a call refused, an entry not tagged */
};

/* @s from start to end; adds what went wrong to @f. */
static void script_run(const struct script *s, struct faults *f)
{
	for (unsigned int k = 0; k < s->nsteps; k++) {
		int n = s->step[k];

		task.live = live.n;
		if (n) {
			unsigned int np = n > 0 ? n : -n, m = live.n;
			uint64_t pfn = SPACE_PFN + m * 0x100;
			void *va;

			task.doing = IN_MAP;
			if (n > 0)
				va = np == 1 ? pvmap_slots_map_addr(pfn << PAGE_SHIFT,
								    __pgprot(PROT_WC)) :
					       pvmap_slots_map(pfn, np, __pgprot(PROT_WC));
			else
				va = np == 1 ? pvmap_slots_map_local_page(pfn, __pgprot(PROT_WC)) :
					       pvmap_slots_map_local(pfn, np, __pgprot(PROT_WC));
			if (!va) {
				f->wrong++;
				return;
			}
			live.va[m] = va;
			live.pfn[m] = pfn;
			live.npages[m] = np;
			live.local[m] = n < 0;
			live.n++;
		} else if (live.n) {
			unsigned int m = --live.n;

			task.doing = IN_UNMAP;
			if (live.local[m])
				pvmap_slots_unmap_local(live.va[m]);
			else if (live.npages[m] == 1)
				pvmap_slots_unmap_page(live.va[m]);
			else
				f->wrong += !pvmap_slots_unmap(live.va[m], live.npages[m]);
		}
		task.doing = AT_POINT;
		task.live = live.n;
		f->wrong += live_use();
		f->stale += slots_stale();
		pvmap_shim_irq_point();
		f->wrong += live_use();
		f->stale += slots_stale();
	}
}

/*
 * The interrupt at the point si.target: the CPU switched to another space
 * (or, .change false, to the one it is in), every live slot touched there,
 * and with .own a page of its own mapped, touched and unmapped.
 */
static struct {
	unsigned int target, seen, ran, wrong;
	bool change, own;
	enum doing doing;	/* what the task was doing when it landed */
	unsigned int live;
} si;

static void space_irq(void)
{
	void *va;

	if (++si.seen != si.target)
		return;
	si.doing = task.doing;
	si.live = task.live;
	pvmap_pte_stub_set_space(0, space_now() + si.change);
	touch_window();
	if (si.own) {
		va = pvmap_slots_map_addr(SIRQ_PFN << PAGE_SHIFT, __pgprot(PROT_WC));
		if (!va) {
			si.wrong++;
			return;
		}
		si.wrong += wrong_frames(va, 1, SIRQ_PFN);
		pvmap_pte_stub_touch((uintptr_t)va);
		pvmap_slots_unmap_page(va);
	}
	si.ran++;
}

/*
 * How a task holding local maps is switched out and in again at the
 * point ss.target, each step under the space given (CPU 0 starts in 0),
 * every live slot touched after each change:
 * - SAME: out in 0, the other task in 1, back in 0;
 * - OTHER: out in 0, the other task in 1, back in 2: re-stamped at the
 *   switch in, so nothing to flush at the unmap;
 * - BACK: out in 0, the other task in 1, back in 1 (a kernel thread keeps
 *   the mm it borrowed), then a flush IPI to 0, where it was mapped: only
 *   the switch in's re-stamp says the entries in 1 need the flush;
 * - BEFORE: a flush IPI to 1 first, out in 1 (the switch out's check
 *   flushes the entries in 0), the other task in 2, back in 3.
 */
enum pattern { SAME, OTHER, BACK, BEFORE, NR_PATTERNS };

static const char *const pattern_names[NR_PATTERNS] = {
	"out and in under one space", "in under another", "in under another, then back",
	"a change, then out",
};

static struct task_struct other;

static struct {
	unsigned int target, seen, ran, wrong;
	unsigned int held;	/* slots with a PTE or an entry while the holder was out */
	enum pattern p;
	unsigned int live;	/* the holder's maps live when it was switched out */
} ss;

/* The other task: a local map of one page at the holder's slot 0, used and unmapped. */
static unsigned int other_task_body(void)
{
	unsigned int wrong = 0;
	void *va;

	touch_window();
	va = pvmap_slots_map_local_page(SOTHER_PFN, __pgprot(PROT_WC));
	if (!va)
		return 1;
	wrong += ((uintptr_t)va != slot0) + wrong_frames(va, 1, SOTHER_PFN);
	pvmap_pte_stub_touch((uintptr_t)va);
	touch_window();
	pvmap_slots_unmap_local(va);
	return wrong + !!other.preempt_notifiers + !!other.migration_disabled;
}

static void space_switch(void)
{
	static const unsigned int other_space[NR_PATTERNS] = { 1, 1, 1, 2 };
	static const unsigned int back_space[NR_PATTERNS] = { 0, 2, 1, 3 };
	struct task_struct *holder = current;
	unsigned long va[MAX_MAPS];
	unsigned int np[MAX_MAPS];

	if (++ss.seen != ss.target)
		return;
	ss.live = pvmap_slots_live_ranges(0, va, np, MAX_MAPS);
	if (ss.p == BEFORE) {
		pvmap_pte_stub_set_space(0, 1);
		touch_window();
	}
	pvmap_shim_switch_to(&other);
	ss.held = slots_held();
	pvmap_pte_stub_set_space(0, other_space[ss.p]);
	ss.wrong += other_task_body();
	ss.held += slots_held();
	pvmap_pte_stub_set_space(0, back_space[ss.p]);
	pvmap_shim_switch_to(holder);
	touch_window();
	if (ss.p == BACK) {
		pvmap_pte_stub_set_space(0, 0);
		touch_window();
	}
	ss.ran++;
}

/* The core between passes: nothing live, every count back to 0, no notifier. */
static bool core_quiet(void)
{
	return !pvmap_slots_live(0) && !pvmap_shim_preempt_count[0] &&
	       !pvmap_shim_pagefault_disabled[0] && !pvmap_shim_irqs_off[0] &&
	       !current->preempt_notifiers && !current->migration_disabled && !slots_held();
}

/* What the passes found, by kind, and what they ran. */
struct tally {
	unsigned int points, landed, changed, switch_points, switches;
	unsigned int flushes;		/* flushes of every space, all passes */
	unsigned int bad;		/* passes with anything wrong */
	unsigned int stale;		/* passes leaving a cleared slot's entry in a space */
	unsigned int flush_count;	/* passes whose flushes were not as due */
	unsigned int held_out;		/* switches with the holder's slots held while out */
};

/* One pass of @s, with whatever landing the caller set up: what went wrong in @f. */
static void pass_run(const struct script *s, struct faults *f)
{
	pvmap_pte_stub_spaces_reset();
	live.n = 0;
	script_run(s, f);
	f->stale += slots_stale();
}

/*
 * The pass's verdict: nothing stale at any step or after, nothing wrong,
 * the whole TLB flushed between @lo and @hi times, one landing (@landed),
 * the core at rest after.
 */
static void pass_judge(const struct script *s, const struct faults *f, unsigned int lo,
		       unsigned int hi, bool landed, const char *what, struct tally *t)
{
	unsigned int flushes = pvmap_pte_stub.space_flushes;
	bool bad_flushes = flushes < lo || flushes > hi, quiet = core_quiet();

	t->flushes += flushes;
	t->stale += !!f->stale;
	t->flush_count += bad_flushes;
	if (!f->stale && !f->wrong && !bad_flushes && landed && quiet)
		return;
	/* the first few said, each with its numbers */
	if (t->bad++ < 4)
		printf("# %s path, %s, %s: %u slots stale (summed over its steps), %u wrong, "
		       "%u flushes of every space (due %u..%u), landed %d, at rest %d\n",
		       fast_path ? "fast" : "slow",
		       s->name, what, f->stale, f->wrong, flushes, lo, hi, landed, quiet);
}

/*
 * An interrupt at each point of @s in turn, changing the space, or not,
 * and mapping a page of its own, or not. Due: a flush of every space for
 * each map live across the change: at the task's own points one for each
 * map it holds; in a map or an unmap the one it makes or takes either way
 * (made in the old space or the new, its check before the change or after);
 * none where the space stayed.
 */
static void irq_passes(const struct script *s, struct tally *t)
{
	static const char *const kinds[4] = {
		"an interrupt in the same space", "an interrupt changing space",
		"an interrupt mapping in the same space", "an interrupt mapping, changing space",
	};
	struct faults f = { 0 };
	unsigned int npoints;

	/* no landing: no flush */
	pvmap_shim_irq_hook = space_irq;
	si = (typeof(si)){ 0 };
	pass_run(s, &f);
	npoints = si.seen;
	pass_judge(s, &f, 0, 0, npoints && !si.ran, "no interrupt", t);
	t->points += npoints;
	for (unsigned int k = 1; k <= npoints; k++) {
		for (unsigned int v = 0; v < 4; v++) {
			unsigned int lo = 0, hi = 0;

			f = (struct faults){ 0 };
			si = (typeof(si)){ .target = k, .change = v & 1, .own = v & 2 };
			pass_run(s, &f);
			if (si.change) {
				lo = si.live - (si.doing == IN_UNMAP);
				hi = si.live + (si.doing == IN_MAP);
			}
			f.wrong += si.wrong;
			pass_judge(s, &f, lo, hi, si.ran == 1, kinds[v], t);
			t->landed += si.ran;
			t->changed += si.ran && si.change;
		}
	}
	pvmap_shim_irq_hook = NULL;
}

/*
 * @s's holder switched out and in at each of its preemptible points in
 * turn, in each pattern. Due: SAME and OTHER none; BACK one for each map
 * live at the switch (re-stamped in 1, each unmapped in 0); BEFORE one, at
 * the switch out, when a map was live.
 */
static void switch_passes(const struct script *s, struct tally *t)
{
	struct faults f = { 0 };
	unsigned int npoints;

	pvmap_shim_switch_hook = space_switch;
	ss = (typeof(ss)){ 0 };
	pass_run(s, &f);
	npoints = ss.seen;
	pass_judge(s, &f, 0, 0, npoints && !ss.ran, "no switch", t);
	t->switch_points += npoints;
	for (unsigned int k = 1; k <= npoints; k++) {
		for (unsigned int p = 0; p < NR_PATTERNS; p++) {
			unsigned int due;

			f = (struct faults){ 0 };
			ss = (typeof(ss)){ .target = k, .p = p };
			pass_run(s, &f);
			due = p == BACK ? ss.live : p == BEFORE ? ss.live != 0 : 0;
			f.wrong += ss.wrong;
			t->held_out += !!ss.held;
			f.stale += ss.held;
			pass_judge(s, &f, due, due, ss.ran == 1, pattern_names[p], t);
			t->switches += ss.ran;
		}
	}
	pvmap_shim_switch_hook = NULL;
}

/*
 * Address spaces at every point (PCIDs under PTI, the stub's model on): for
 * atomic maps of 1 and 16 pages and one of 16 inside one of 1, and local
 * maps of 1 and 16 pages and a nest of 16 local, 8 local and 4 atomic, an
 * interrupt at each pvmap_irq_point() and each point of the task's own in
 * turn switches the CPU to another space (or leaves it in its own, or maps
 * a page of its own too) and touches every live slot there; the task
 * touches its maps after every step. Then each holder of local maps is
 * switched out at each of its preemptible points while another task maps
 * at its slots, and in again under another space, or the same, or changes
 * before. At every step and after: no slot with a clear PTE keeps an entry
 * in any space, nothing stays held while the holder is out, every frame
 * reached; every space flushed once for each map live across a change
 * (in a map or an unmap call, with or without the one it makes or takes),
 * never when the space stayed, nor for a map made after the change (the
 * inner of a nest); nothing live, stale at revoke or warned.
 */
int test_space_change_at_every_point(void)
{
	unsigned int warnings = pvmap_shim_warnings, pr_warnings = pvmap_shim_pr_warnings;
	struct tally t = { 0 };
	struct pvstub_counts c;
	unsigned int stale = 0;
	bool ok;

	if (!core_begin(true, false))
		return 0;
	pvmap_pte_stub.pcids = true;
	*current = (struct task_struct){ 0 };
	other = (struct task_struct){ 0 };
	slot0 = pvmap_window_va(pvmap_slots_window(0), 0);
	for (unsigned int i = 0; i < sizeof(scripts) / sizeof(scripts[0]); i++) {
		irq_passes(&scripts[i], &t);
		if (scripts[i].local)
			switch_passes(&scripts[i], &t);
	}
	for (unsigned int m = 0; m < MAX_MAPS; m++)
		stale += revoke_range(SPACE_PFN + m * 0x100, PVMAP_SLOTS_PER_CPU);
	stale += revoke_range(SIRQ_PFN, 1) + revoke_range(SOTHER_PFN, 1);
	pvstub_counts(pvmap_pte_stub.hv, &c);
	ok = t.points && t.landed && t.changed && t.switches && !t.bad && !stale &&
	     !c.violations && !pvmap_pte_stub.errors && core_quiet() &&
	     pvmap_shim_warnings == warnings && pvmap_shim_pr_warnings == pr_warnings;
	printf("# %s path: address spaces: %u interrupt points, %u interrupts landed (%u changing "
	       "space); %u switch points, %u switches; %u flushes of every space in all; %u cases "
	       "wrong (%u with a cleared slot's entry left in some space, %u with the flushes not "
	       "as due, %u with the holder's slots held while it was out), %u stale at revoke, "
	       "%" PRIu64 " violations, %u warnings\n", fast_path ? "fast" : "slow", t.points,
	       t.landed, t.changed, t.switch_points, t.switches, t.flushes, t.bad, t.stale,
	       t.flush_count, t.held_out, stale, c.violations, pvmap_shim_warnings - warnings);
	pvmap_pte_stub.pcids = false;
	core_end();
	return ok && !pvmap_shim_preempt_notifier_key;
}
