// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU atomic slots: the core of pvmap's io_mapping, free of PCI and
 * character-device code. Each CPU owns a window of PVMAP_SLOTS_PER_CPU
 * pages used as a stack: a map takes npages slots from the top and writes
 * their PTEs; its unmap clears them, flushes each TLB entry on this CPU,
 * and pops. Preemption and page faults stay disabled from map to
 * unmap, so the slots never leave the CPU and no other CPU can hold a TLB
 * entry for them: no shootdown is ever needed.
 *
 * An interrupt (or a softirq on irq_exit) may map and unmap in between,
 * always balanced: whatever it takes from the stack it gives back before
 * the interrupted code goes on. So a push or pop needs no atomics, as long
 * as (like kmap_local_idx_push()) the entry and the slots are reserved
 * before they are filled, only locals are read back after a reservation,
 * and an entry is copied out before it is released. pvmap_irq_point()
 * marks every place an interrupt can land, for the user-space test that
 * lands one at each (tests/unit/test_stub.c); in the kernel it is empty.
 *
 * Two paths share that stack. The fast one, as kmap_local's, checks that
 * each free slot's PTE is clear and writes the native PTEs; the slow one
 * also batches (a hypervisor, Xen PV) and traces, and handles every
 * refusal and misuse. The static key pvmap_slots_slow (pvmap_internal.h)
 * picks the slow one for all maps while anything needs it; the fast one
 * hands it what it does not do itself.
 */

#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/irqflags.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/uaccess.h>

#include <pvmap/io_mapping.h>

#include "pvmap_internal.h"
#include "pvmap_pte.h"

/**
 * struct pvmap_live_map - one live atomic map on a CPU's stack
 * @vaddr: the page address returned for it; PVMAP_SLOTS_POP_BELOW may be set
 * @npages: its pages
 * @slot: its first slot
 * @released: unmapped while maps above it were live (a misuse): it gave
 *	back its preemption and page-fault state then, and its slots are
 *	cleared and popped with the map above it
 */
struct pvmap_live_map {
	unsigned long vaddr;
	unsigned int npages;
	unsigned int slot;
	bool released;
};

/**
 * struct pvmap_cpu_slots - one CPU's slot window and map stack
 * @window: the CPU's window of PVMAP_SLOTS_PER_CPU pages
 * @top: slots in use, from the bottom of the window
 * @depth: live maps
 * @stack: the live maps, innermost last
 */
struct pvmap_cpu_slots {
	struct pvmap_window window;
	unsigned int top;
	unsigned int depth;
	struct pvmap_live_map stack[PVMAP_MAX_DEPTH + PVMAP_IRQ_DEPTH];
};

/*
 * Set in a live map's @vaddr when a map below it was unmapped out of order:
 * its unmap, which must pop that one too, then takes the slow path.
 */
#define PVMAP_SLOTS_POP_BELOW	1UL

static struct pvmap_cpu_slots __percpu *pvmap_slots;
DEFINE_STATIC_KEY_FALSE(pvmap_slots_slow);

int pvmap_slots_init(void)
{
	int cpu, ret;

	pvmap_slots = alloc_percpu(struct pvmap_cpu_slots);
	if (!pvmap_slots)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		ret = pvmap_window_create(&per_cpu_ptr(pvmap_slots, cpu)->window,
					  PVMAP_SLOTS_PER_CPU + PVMAP_IRQ_SLOTS);
		if (ret) {
			pvmap_slots_exit();
			return ret;
		}
	}
	return 0;
}

void pvmap_slots_exit(void)
{
	int cpu;

	if (!pvmap_slots)
		return;
	for_each_possible_cpu(cpu)
		pvmap_window_destroy(&per_cpu_ptr(pvmap_slots, cpu)->window);
	free_percpu(pvmap_slots);
	pvmap_slots = NULL;
}

/*
 * Clear and flush @m's slots on this CPU, so that a stale pointer faults:
 * every PTE, then every TLB entry, in one lazy-MMU section (one multicall
 * on a paravirtualised MMU, its invalidations after all its updates). A
 * clear does not fail (pvmap_pte.h).
 */
static __always_inline void pvmap_slots_clear(struct pvmap_cpu_slots *s,
					      const struct pvmap_live_map *m)
{
	pvmap_window_clear_local(&s->window, m->slot, m->npages);
	pvmap_count_add(PVMAP_CNT_PTE_WRITES, m->npages);
	pvmap_count_add(PVMAP_CNT_LOCAL_FLUSHES, m->npages);
}

/* Out of line: the hot path only calls it on misuse. */
static noinline void pvmap_misuse(void)
{
	pvmap_count(PVMAP_CNT_MISUSE);
}

/*
 * The slow path: everything a map needs beyond the native PTE writes, for
 * whenever the static key pvmap_slots_slow is on (pvmap_internal.h), and
 * for what the fast path does not handle (an interrupt past the task's
 * limits, misuse, a free slot found live). Called with preemption and page
 * faults disabled; gives them back when it refuses. Map @npages from @pfn
 * into @s, this CPU's slots; NULL after one WARN on misuse.
 */
static noinline void __iomem *pvmap_slots_push_slow(struct pvmap_cpu_slots *s, u64 pfn,
						    unsigned int npages, pgprot_t prot)
{
	/* Interrupts nest above all a task may hold: see PVMAP_IRQ_SLOTS. */
	bool task = in_task();
	unsigned int max_depth = PVMAP_MAX_DEPTH + (task ? 0 : PVMAP_IRQ_DEPTH);
	unsigned int max_slots = PVMAP_SLOTS_PER_CPU + (task ? 0 : PVMAP_IRQ_SLOTS);
	unsigned int depth, top, i;
	unsigned long vaddr;

	pvmap_irq_point();
	depth = READ_ONCE(s->depth);
	top = READ_ONCE(s->top);
	pvmap_irq_point();
	if (WARN(depth >= max_depth,
		 "pvmap: atomic maps nested deeper than %u\n", max_depth) ||
	    WARN(!npages || top > max_slots || npages > max_slots - top,
		 "pvmap: %u pages asked, %u atomic slots free on this CPU\n",
		 npages, top > max_slots ? 0 : max_slots - top))
		goto refuse;

	/*
	 * Reserve the entry and the slots, then fill them: an interrupt from
	 * here on nests above them. One that came before the reservation
	 * found what this read and gave it all back.
	 */
	WRITE_ONCE(s->depth, depth + 1);
	pvmap_irq_point();
	WRITE_ONCE(s->top, top + npages);
	barrier();
	pvmap_irq_point();
	/*
	 * A free slot's PTE is clear. One found live was written behind the
	 * core's back (a bug, or a hypervisor given up on that wrote late): it
	 * is cleared and flushed here, said once, and the slot used; one that
	 * stays live is not.
	 */
	for (i = 0; i < npages; i++) {
		if (likely(pvmap_pte_is_clear(&s->window, top + i)))
			continue;
		WARN_ONCE(1, "pvmap: free slot %u of this CPU had a live PTE: cleared\n", top + i);
		pvmap_window_clear_local(&s->window, top + i, 1);
		if (!pvmap_pte_is_clear(&s->window, top + i)) {
			WRITE_ONCE(s->top, top);
			barrier();
			WRITE_ONCE(s->depth, depth);
			goto give_back;
		}
	}
	vaddr = pvmap_window_va(&s->window, top);
	s->stack[depth] = (struct pvmap_live_map){
		.vaddr = vaddr, .npages = npages, .slot = top,
	};
	pvmap_irq_point();

	if (unlikely(pvmap_window_map(&s->window, top, pfn, npages, prot)))
		goto refused_by_hypervisor;
	pvmap_count_add(PVMAP_CNT_PTE_WRITES, npages);
	pvmap_count(PVMAP_CNT_MAPS);
	return (void __iomem *)vaddr;

refused_by_hypervisor:
	/* Some updates may have been made: clear them all, then give the slots back. */
	pvmap_slots_clear(s, &s->stack[depth]);
	barrier();
	WRITE_ONCE(s->top, top);
	barrier();
	WRITE_ONCE(s->depth, depth);
	goto give_back;
refuse:
	pvmap_misuse();
give_back:
	pagefault_enable();
	preempt_enable();
	return NULL;
}

/*
 * What the slow path counts for a map or an unmap of @npages pages, for
 * the fast path while the counters run: one batch (natively, in task
 * context, as pvmap_batch_begin()), the PTE writes, and the map or unmap.
 */
static noinline void pvmap_slots_count_fast(unsigned int npages, bool unmap)
{
	if (in_task())
		pvmap_count(PVMAP_CNT_BATCHES);
	pvmap_count_add(PVMAP_CNT_PTE_WRITES, npages);
	if (unmap) {
		pvmap_count_add(PVMAP_CNT_LOCAL_FLUSHES, npages);
		pvmap_count(PVMAP_CNT_UNMAPS);
	} else {
		pvmap_count(PVMAP_CNT_MAPS);
	}
}

/*
 * Map @npages from @pfn into this CPU's slots; NULL after one WARN on
 * misuse. The fast path, as kmap_local's: check the free slots' PTEs are
 * clear, reserve, write the PTEs, return. No batch (natively a lazy-MMU
 * section changes nothing), no trace; within the task's limits only, so
 * that an interrupt past them, and every refusal, is the slow path's.
 * Inline in both entries, so that the single-page one has no loop.
 */
static __always_inline void __iomem *pvmap_slots_push(u64 pfn, unsigned int npages,
						      pgprot_t prot)
{
	struct pvmap_cpu_slots *s;
	unsigned int depth, top;
	unsigned long vaddr;

	preempt_disable();
	pagefault_disable();
	s = this_cpu_ptr(pvmap_slots);
	if (static_branch_unlikely(&pvmap_slots_slow))
		return pvmap_slots_push_slow(s, pfn, npages, prot);
	pvmap_irq_point();
	depth = READ_ONCE(s->depth);
	top = READ_ONCE(s->top);
	pvmap_irq_point();
	/* top first: past the task's slots, PVMAP_SLOTS_PER_CPU - top would wrap */
	if (unlikely(depth >= PVMAP_MAX_DEPTH || top >= PVMAP_SLOTS_PER_CPU || !npages ||
		     npages > PVMAP_SLOTS_PER_CPU - top ||
		     !pvmap_window_clear_at(&s->window, top, npages)))
		return pvmap_slots_push_slow(s, pfn, npages, prot);
	/* Reserved, then filled, as in the slow path. */
	WRITE_ONCE(s->depth, depth + 1);
	pvmap_irq_point();
	WRITE_ONCE(s->top, top + npages);
	barrier();
	pvmap_irq_point();
	vaddr = pvmap_window_va(&s->window, top);
	s->stack[depth].vaddr = vaddr;
	s->stack[depth].npages = npages;
	s->stack[depth].slot = top;
	pvmap_irq_point();
	pvmap_window_map_direct(&s->window, top, pfn, npages, prot);
	if (static_branch_unlikely(&pvmap_counting))
		pvmap_slots_count_fast(npages, false);
	return (void __iomem *)vaddr;
}

/* For pvmap_io_mapping_map_atomic_wc(), inline in <pvmap/io_mapping.h>. */
void __iomem *pvmap_slots_map_page(u64 pfn, pgprot_t prot)
{
	return pvmap_slots_push(pfn, 1, prot);
}
EXPORT_SYMBOL_GPL(pvmap_slots_map_page);

/* For pvmap_io_mapping_map_atomic_range_wc(). */
void __iomem *pvmap_slots_map(u64 pfn, unsigned int npages, pgprot_t prot)
{
	return pvmap_slots_push(pfn, npages, prot);
}
EXPORT_SYMBOL_GPL(pvmap_slots_map);

/*
 * Pop the innermost of @s's maps, which are @depth: clear it, then give
 * its slots and its entry back. Return: the maps left.
 */
static __always_inline unsigned int
pvmap_slots_pop_one(struct pvmap_cpu_slots *s, unsigned int depth)
{
	/* Copied out: once released, an interrupt may reuse the entry. */
	struct pvmap_live_map m = s->stack[depth - 1];

	pvmap_irq_point();
	pvmap_slots_clear(s, &m);
	/*
	 * A free entry is never marked released: a push fills its entry
	 * after reserving it, and an interrupt popping in between must not
	 * follow a mark left from this map.
	 */
	WRITE_ONCE(s->stack[depth - 1].released, false);
	/* Released only now that they are clear: slots, then the entry. */
	barrier();
	WRITE_ONCE(s->top, m.slot);
	barrier();
	pvmap_irq_point();
	WRITE_ONCE(s->depth, --depth);
	barrier();
	pvmap_irq_point();
	pvmap_count(PVMAP_CNT_UNMAPS);
	return depth;
}

/*
 * After a misuse: pop every map that was unmapped out of order and is now
 * the innermost. Interrupts off, since only here does a pop take more than
 * one entry: an interrupt's own pop could otherwise follow the same marks
 * while this one holds a copy of an entry, and both would write back a
 * top and depth of their own. Read again here, as an interrupt before this
 * may have popped them already.
 */
static noinline void pvmap_slots_pop_released(struct pvmap_cpu_slots *s)
{
	unsigned long flags;
	unsigned int depth;

	local_irq_save(flags);
	depth = READ_ONCE(s->depth);
	while (depth && READ_ONCE(s->stack[depth - 1].released))
		depth = pvmap_slots_pop_one(s, depth);
	local_irq_restore(flags);
}

/*
 * Pop the innermost of the @depth live maps, then every map below it that
 * was unmapped out of order, each cleared before its slots are released.
 */
static __always_inline void pvmap_slots_pop(struct pvmap_cpu_slots *s, unsigned int depth)
{
	depth = pvmap_slots_pop_one(s, depth);
	if (unlikely(depth && READ_ONCE(s->stack[depth - 1].released)))
		pvmap_slots_pop_released(s);
}

/* The innermost live, not yet released map whose first page is @page, or @depth. */
static __always_inline unsigned int pvmap_slots_find(const struct pvmap_cpu_slots *s,
						     unsigned int depth, unsigned long page)
{
	unsigned int i;

	for (i = depth; i--; )
		if ((s->stack[i].vaddr & PAGE_MASK) == page && !s->stack[i].released)
			return i;
	return depth;
}

/*
 * The slow path of pvmap_slots_unmap(), and every unmap the fast path
 * does not take: the map whose first page is @page, in @s.
 */
static noinline bool pvmap_slots_unmap_slow(struct pvmap_cpu_slots *s, unsigned long page,
					    unsigned int npages)
{
	unsigned int depth, i;
	bool ok = true;

	/*
	 * A live map keeps preemption off, so this CPU's slots stay this
	 * CPU's; where the task could migrate, none of its maps is live.
	 */
	depth = preemptible() ? 0 : READ_ONCE(s->depth);
	pvmap_irq_point();
	i = pvmap_slots_find(s, depth, page);
	if (unlikely(i == depth)) {
		WARN(1, depth ? "pvmap: unmap of an address no live atomic map returned\n" :
			"pvmap: unmap without a live atomic map\n");
		pvmap_misuse();
		return false;
	}
	if (i + 1 < depth) {
		ok = !WARN(1, "pvmap: unmap of an atomic map that is not the innermost\n");
		WRITE_ONCE(s->stack[i].released, true);
		/* the fast path leaves the unmap of the map above to this one */
		WRITE_ONCE(s->stack[i + 1].vaddr, s->stack[i + 1].vaddr | PVMAP_SLOTS_POP_BELOW);
	} else {
		ok = !WARN(npages && npages != s->stack[i].npages,
			   "pvmap: unmap of %u pages, the innermost atomic map has %u\n",
			   npages, s->stack[i].npages);
		pvmap_slots_pop(s, depth);
	}
	if (!ok)
		pvmap_misuse();
	/* The map's. */
	pagefault_enable();
	preempt_enable();
	return ok;
}

/*
 * Release the map whose first page holds @vaddr. Each unmap gives back the
 * preemption and page-fault state of the map it names, as mainline's does,
 * but a misused one never clears a PTE another live map still uses:
 * - the innermost map with the wrong @npages (0: any) is released whole,
 *   with one WARN;
 * - a map below the innermost is released with one WARN: its slots stay
 *   mapped, under the maps above it (which keep preemption off), and are
 *   cleared and popped together with the one above it;
 * - an address no live map on this CPU returned changes nothing (one WARN),
 *   and so does an unmap made where the task could migrate, which no map
 *   of its own can be live under.
 * The fast path takes the innermost map named right with nothing released
 * below it: each PTE cleared and its TLB entry flushed, then the slots and
 * the entry given back. For pvmap_io_mapping_unmap_atomic() and _range(),
 * inline in <pvmap/io_mapping.h>. Return: false when the unmap was a misuse.
 */
bool pvmap_slots_unmap(void __iomem *vaddr, unsigned int npages)
{
	unsigned long page = (unsigned long)vaddr & PAGE_MASK;
	struct pvmap_cpu_slots *s = raw_cpu_ptr(pvmap_slots);
	unsigned int depth, slot, n;

	if (static_branch_unlikely(&pvmap_slots_slow))
		return pvmap_slots_unmap_slow(s, page, npages);
	depth = preemptible() ? 0 : READ_ONCE(s->depth);
	pvmap_irq_point();
	/* PVMAP_SLOTS_POP_BELOW set in the entry's address sends it to the slow path */
	if (unlikely(!depth || s->stack[depth - 1].vaddr != page ||
		     (npages && npages != s->stack[depth - 1].npages)))
		return pvmap_slots_unmap_slow(s, page, npages);
	/* Copied out: once released, an interrupt may reuse the entry. */
	slot = s->stack[depth - 1].slot;
	n = s->stack[depth - 1].npages;
	pvmap_irq_point();
	pvmap_window_clear_direct(&s->window, slot, n);
	/* As pvmap_slots_pop_one(): the slots, then the entry, unmarked. */
	WRITE_ONCE(s->stack[depth - 1].released, false);
	barrier();
	WRITE_ONCE(s->top, slot);
	barrier();
	pvmap_irq_point();
	WRITE_ONCE(s->depth, depth - 1);
	barrier();
	pvmap_irq_point();
	if (static_branch_unlikely(&pvmap_counting))
		pvmap_slots_count_fast(n, true);
	pagefault_enable();
	preempt_enable();
	return true;
}
EXPORT_SYMBOL_GPL(pvmap_slots_unmap);

const struct pvmap_window *pvmap_slots_window(int cpu)
{
	return &per_cpu_ptr(pvmap_slots, cpu)->window;
}

unsigned int pvmap_slots_live(int cpu)
{
	return READ_ONCE(per_cpu_ptr(pvmap_slots, cpu)->top);
}

/*
 * The slot ranges live on @cpu, for debugfs and the host auditor: read
 * without stopping that CPU, so exact only while it is quiet.
 */
unsigned int pvmap_slots_live_ranges(int cpu, unsigned long *va, unsigned int *npages,
				     unsigned int max)
{
	const struct pvmap_cpu_slots *s = per_cpu_ptr(pvmap_slots, cpu);
	unsigned int i, n = 0, depth = min_t(unsigned int, READ_ONCE(s->depth),
					     PVMAP_MAX_DEPTH + PVMAP_IRQ_DEPTH);

	for (i = 0; i < depth && n < max; i++) {
		va[n] = s->stack[i].vaddr & PAGE_MASK;
		npages[n++] = s->stack[i].npages;
	}
	return n;
}
