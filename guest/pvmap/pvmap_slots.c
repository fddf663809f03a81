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
 *
 * Local maps (pvmap_slots_map_local()) share the stack but keep preemption
 * and page faults on, with migration off, as mainline's kmap_local does:
 * while a task holds one, a preempt notifier of its own clears every slot
 * of this CPU when the task is switched out and maps them again when it is
 * switched back in (__kmap_local_sched_out() and _in() in mm/highmem.c are
 * the model). Whenever a task is switched out, the live maps on its CPU
 * are all its own: its atomic maps keep preemption off, and an interrupt
 * gives back what it took before it returns. So the next task finds the
 * stack empty and starts at slot 0, as the task switched out did, whose
 * maps come back at their own addresses. Without preempt notifiers in the
 * kernel, and outside task context, a local map is an atomic one.
 */

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/irq_work.h>
#include <linux/irqflags.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stop_machine.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <pvmap/io_mapping.h>

#include "pvmap_internal.h"
#include "pvmap_pte.h"

/*
 * Where other address spaces' TLB entries can outlive an invlpg (x86_64
 * under PTI with PCIDs: pvmap_pte.h), and in the stub, which models them:
 * each map records its address space. Not on i386, whose stack entries
 * then stay 16 bytes (a shift to index them).
 */
#if defined(CONFIG_X86_64) || defined(PVMAP_PTE_STUB)
#define PVMAP_SLOTS_SPACES
#endif

/**
 * struct pvmap_live_map - one live map on a CPU's stack
 * @vaddr: the page address returned for it; PVMAP_SLOTS_POP_BELOW and
 *	PVMAP_SLOTS_LOCAL may be set
 * @space: the address space its slots were mapped in (pvmap_tlb_space()),
 *	checked at its unmap; only with PVMAP_SLOTS_SPACES
 * @npages: its pages
 * @slot: its first slot
 * @released: unmapped while maps above it were live (a misuse): it gave
 *	back its preemption and page-fault state then, and its slots are
 *	cleared and popped with the map above it
 */
struct pvmap_live_map {
	unsigned long vaddr;
#ifdef PVMAP_SLOTS_SPACES
	unsigned long space;
#endif
	unsigned int npages;
	unsigned int slot;
	bool released;
};

/*
 * What a local map maps, to map it again at a switch in: beside its stack
 * entry, not in it, so that an entry stays a power of two (16 bytes on
 * i386, 32 on x86_64: a shift to index on the atomic maps' fast path). A
 * frame number fits an unsigned long.
 */
struct pvmap_live_frames {
	unsigned long pfn;
	pgprot_t prot;
};

struct pvmap_local_task;

/* What a switch out saw go wrong: see pvmap_switch_report(). */
enum pvmap_report {
	PVMAP_REPORT_LEFT_CPU,
	PVMAP_REPORT_OVER_LIMITS,
	PVMAP_REPORT_EXITED,
	PVMAP_NR_REPORTS
};

/**
 * struct pvmap_cpu_slots - one CPU's slot window and map stack
 * @window: the CPU's window of PVMAP_SLOTS_PER_CPU pages
 * @top: slots in use, from the bottom of the window
 * @depth: live maps
 * @stack: the live maps, innermost last
 * @frames: each local map's frames, at its entry's index in @stack
 * @report: says from an interrupt what a switch out saw (pvmap_switch_report())
 * @reports: PVMAP_REPORT_* bits of what it is to say
 * @report_arg: each one's numbers
 * @running: the local maps of the task running here, if it holds any
 * @tasks: PVMAP_LOCAL_TASKS records of tasks holding local maps here
 * @heap_tasks: the records allocated beyond them, in use
 * @nfree: records in @free
 * @free: the indices in @tasks of the free records
 */
struct pvmap_cpu_slots {
	struct pvmap_window window;
	unsigned int top;
	unsigned int depth;
	struct pvmap_live_map stack[PVMAP_MAX_DEPTH + PVMAP_IRQ_DEPTH];
	struct pvmap_live_frames frames[PVMAP_MAX_DEPTH];
	struct irq_work report;
	unsigned long reports;
	unsigned int report_arg[PVMAP_NR_REPORTS][2];
	struct pvmap_local_task *running;
	struct pvmap_local_task *tasks;
	struct list_head heap_tasks;
	unsigned int nfree;
	u8 free[PVMAP_LOCAL_TASKS];
};

/**
 * struct pvmap_local_task - the local maps of one task, pinned to one CPU
 * @notifier: its preempt notifier, registered while @maps is not 0
 * @cpu: the slots of its CPU
 * @heap: allocated when @cpu's records were all taken; freed at its put
 * @heap_link: on @cpu's heap_tasks while @heap
 * @maps: its live local maps, not counting those released out of order
 * @depth: the maps of @cpu's stack when it was switched out
 * @top: the slots in use then
 * @stack: those maps
 * @frames: their frames
 */
struct pvmap_local_task {
#ifdef CONFIG_PREEMPT_NOTIFIERS
	struct preempt_notifier notifier;
#endif
	struct pvmap_cpu_slots *cpu;
	bool heap;
	struct list_head heap_link;
	unsigned int maps;
	unsigned int depth;
	unsigned int top;
	struct pvmap_live_map stack[PVMAP_MAX_DEPTH];
	struct pvmap_live_frames frames[PVMAP_MAX_DEPTH];
};

/*
 * Set in a live map's @vaddr when a map below it was unmapped out of order:
 * its unmap, which must pop that one too, then takes the slow path.
 */
#define PVMAP_SLOTS_POP_BELOW	1UL
/*
 * Set in a local map's @vaddr: an atomic unmap, whose fast path compares
 * the address, goes to the slow path, which refuses it.
 */
#define PVMAP_SLOTS_LOCAL	2UL

static struct pvmap_cpu_slots __percpu *pvmap_slots;
DEFINE_STATIC_KEY_FALSE(pvmap_slots_slow);

/* Whether a local map in task context stays preemptible: see pvmap_slots_map_local(). */
#ifdef CONFIG_PREEMPT_NOTIFIERS
#define PVMAP_SLOTS_LOCAL_SWITCHES	true
static struct preempt_ops pvmap_local_ops;
static bool pvmap_slots_notifying __read_mostly;
#else
#define PVMAP_SLOTS_LOCAL_SWITCHES	false
#endif

/*
 * What a switch out saw go wrong. Its notifier runs with the runqueue
 * locked, where a printk() may wake a console waiter on this runqueue and
 * deadlock (and printk_deferred() is not exported): it is said by an
 * irq_work on this CPU once the lock is gone, with one WARN each.
 */
static void pvmap_slots_say(struct irq_work *work)
{
	struct pvmap_cpu_slots *s = container_of(work, struct pvmap_cpu_slots, report);
	unsigned long r = xchg(&s->reports, 0);

	WARN_ONCE(r & BIT(PVMAP_REPORT_LEFT_CPU),
		  "pvmap: a task holding local maps left their CPU\n");
	WARN_ONCE(r & BIT(PVMAP_REPORT_OVER_LIMITS),
		  "pvmap: %u maps on %u slots at a switch: cleared, not kept\n",
		  s->report_arg[PVMAP_REPORT_OVER_LIMITS][0],
		  s->report_arg[PVMAP_REPORT_OVER_LIMITS][1]);
	WARN_ONCE(r & BIT(PVMAP_REPORT_EXITED),
		  "pvmap: a task exited holding %u local maps: cleared; its CPU stays pinned\n",
		  s->report_arg[PVMAP_REPORT_EXITED][0]);
}

#ifdef CONFIG_PREEMPT_NOTIFIERS
/*
 * At unload, with every CPU stopped, so that no scheduler walks a task's
 * notifiers: unregister those of tasks that still hold local maps (a
 * consumer leaked one), which would otherwise call into a module that is
 * gone at their next switch. Records allocated are freed after. Return:
 * how many there were.
 */
static int pvmap_local_unhook(void *unused)
{
	bool idle[PVMAP_LOCAL_TASKS];
	struct pvmap_local_task *t;
	struct pvmap_cpu_slots *s;
	int cpu, n = 0;
	unsigned int i;

	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(pvmap_slots, cpu);
		if (!s->tasks)
			continue;
		memset(idle, 0, sizeof(idle));
		for (i = 0; i < s->nfree; i++)
			idle[s->free[i]] = true;
		for (i = 0; i < PVMAP_LOCAL_TASKS; i++) {
			if (idle[i] || !s->tasks[i].cpu)
				continue;
			preempt_notifier_unregister(&s->tasks[i].notifier);
			n++;
		}
		list_for_each_entry(t, &s->heap_tasks, heap_link) {
			if (!t->cpu)
				continue;
			preempt_notifier_unregister(&t->notifier);
			n++;
		}
	}
	return n;
}
#endif

/*
 * @local_maps: local maps come to the slots (not on x86_64's whole-aperture
 * path): the records of tasks holding them, and the preempt notifiers,
 * which once on cost every task switch of the kernel a check.
 */
int pvmap_slots_init(bool local_maps)
{
	struct pvmap_cpu_slots *s;
	int cpu, ret;
	unsigned int i;

	pvmap_slots = alloc_percpu(struct pvmap_cpu_slots);
	if (!pvmap_slots)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(pvmap_slots, cpu);
		init_irq_work(&s->report, pvmap_slots_say);
		INIT_LIST_HEAD(&s->heap_tasks);
		ret = pvmap_window_create(&s->window, PVMAP_SLOTS_PER_CPU + PVMAP_IRQ_SLOTS);
		if (ret)
			goto fail;
		if (!PVMAP_SLOTS_LOCAL_SWITCHES || !local_maps)
			continue;
		s->tasks = kcalloc_node(PVMAP_LOCAL_TASKS, sizeof(*s->tasks), GFP_KERNEL,
					cpu_to_node(cpu));
		if (!s->tasks) {
			ret = -ENOMEM;
			goto fail;
		}
		for (i = 0; i < PVMAP_LOCAL_TASKS; i++)
			s->free[i] = PVMAP_LOCAL_TASKS - 1 - i;
		s->nfree = PVMAP_LOCAL_TASKS;
	}
#ifdef CONFIG_PREEMPT_NOTIFIERS
	/* on for every kernel's task switches from here: a static key */
	if (local_maps) {
		preempt_notifier_inc();
		pvmap_slots_notifying = true;
	}
#endif
	return 0;
fail:
	pvmap_slots_exit();
	return ret;
}

void pvmap_slots_exit(void)
{
	struct pvmap_cpu_slots *s;
	int cpu;

	if (!pvmap_slots)
		return;
#ifdef CONFIG_PREEMPT_NOTIFIERS
	if (pvmap_slots_notifying) {
		int leaked = stop_machine(pvmap_local_unhook, NULL, NULL);

		WARN(leaked, "pvmap: unloaded while %d tasks held local maps: unhooked, their CPUs stay pinned\n",
		     leaked);
		preempt_notifier_dec();
	}
	pvmap_slots_notifying = false;
#endif
	for_each_possible_cpu(cpu) {
		struct pvmap_local_task *t, *next;

		s = per_cpu_ptr(pvmap_slots, cpu);
		irq_work_sync(&s->report);
		pvmap_window_destroy(&s->window);
		kfree(s->tasks);
		if (s->heap_tasks.next)
			list_for_each_entry_safe(t, next, &s->heap_tasks, heap_link)
				kfree(t);
	}
	free_percpu(pvmap_slots);
	pvmap_slots = NULL;
}

/* @m's address space, as pvmap_tlb_space() said at its map; 0 where none is recorded. */
static __always_inline unsigned long pvmap_live_space(const struct pvmap_live_map *m)
{
#ifdef PVMAP_SLOTS_SPACES
	return m->space;
#else
	return 0;
#endif
}

/* Record the current address space in @m, where other PCIDs can keep its entries. */
static __always_inline void pvmap_live_space_set(struct pvmap_live_map *m)
{
#ifdef PVMAP_SLOTS_SPACES
	if (pvmap_tlb_other_pcids())
		m->space = pvmap_tlb_space();
#endif
}

/*
 * Clear and flush @m's slots on this CPU, so that a stale pointer faults:
 * every PTE, then every TLB entry, in one lazy-MMU section (one multicall
 * on a paravirtualised MMU, its invalidations after all its updates), and
 * every address space's if the CPU changed address space since the map. A
 * clear does not fail (pvmap_pte.h).
 */
static __always_inline void pvmap_slots_clear(struct pvmap_cpu_slots *s,
					      const struct pvmap_live_map *m)
{
	pvmap_window_clear_local(&s->window, m->slot, m->npages);
	pvmap_tlb_space_check(pvmap_live_space(m));
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
 * limits, misuse, a free slot found live). Called with preemption (and for
 * an atomic map page faults) disabled; an atomic map's it gives back when
 * it refuses, a local map's caller gives back its own. Map @npages from
 * @pfn into @s, this CPU's slots: the address @in_page bytes into the first
 * page, or NULL after one WARN on misuse.
 */
static noinline void __iomem *pvmap_slots_push_slow(struct pvmap_cpu_slots *s, u64 pfn,
						    unsigned int npages, pgprot_t prot,
						    bool local, unsigned long in_page)
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
		 "pvmap: maps nested deeper than %u (%s map)\n", max_depth,
		 local ? "a local" : "an atomic") ||
	    WARN(!npages || top > max_slots || npages > max_slots - top,
		 "pvmap: %u pages asked for %s map, %u slots free on this CPU\n",
		 npages, local ? "a local" : "an atomic", top > max_slots ? 0 : max_slots - top))
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
		.vaddr = vaddr | (local ? PVMAP_SLOTS_LOCAL : 0), .npages = npages, .slot = top,
	};
	pvmap_live_space_set(&s->stack[depth]);
	/* a task's, so within PVMAP_MAX_DEPTH */
	if (local)
		s->frames[depth] = (struct pvmap_live_frames){ .pfn = pfn, .prot = prot };
	pvmap_irq_point();

	if (unlikely(pvmap_window_map(&s->window, top, pfn, npages, prot)))
		goto refused_by_hypervisor;
	pvmap_count_add(PVMAP_CNT_PTE_WRITES, npages);
	pvmap_count(PVMAP_CNT_MAPS);
	return (void __iomem *)(vaddr + in_page);

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
	if (!local) {
		pagefault_enable();
		preempt_enable();
	}
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
 * Map @npages from @pfn into @s, this CPU's slots, with preemption off; NULL
 * after one WARN on misuse. The fast path, as kmap_local's: check the free
 * slots' PTEs are clear, reserve, write the PTEs, return. No batch
 * (natively a lazy-MMU section changes nothing), no trace; within the
 * task's limits only, so that an interrupt past them, and every refusal,
 * is the slow path's. Inline in every entry, so that the single-page
 * atomic one has no loop and the atomic ones do not record a frame. The
 * address returned is @in_page bytes into the first page (NULL stays NULL).
 */
static __always_inline void __iomem *pvmap_slots_push(struct pvmap_cpu_slots *s, u64 pfn,
						      unsigned int npages, pgprot_t prot,
						      bool local, unsigned long in_page)
{
	unsigned int depth, top;
	unsigned long vaddr;

	if (static_branch_unlikely(&pvmap_slots_slow))
		goto slow;
	pvmap_irq_point();
	depth = READ_ONCE(s->depth);
	top = READ_ONCE(s->top);
	pvmap_irq_point();
	/* top first: past the task's slots, PVMAP_SLOTS_PER_CPU - top would wrap */
	if (unlikely(depth >= PVMAP_MAX_DEPTH || top >= PVMAP_SLOTS_PER_CPU || !npages ||
		     npages > PVMAP_SLOTS_PER_CPU - top ||
		     !pvmap_window_clear_at(&s->window, top, npages)))
		goto slow;
	/* Reserved, then filled, as in the slow path. */
	WRITE_ONCE(s->depth, depth + 1);
	pvmap_irq_point();
	WRITE_ONCE(s->top, top + npages);
	barrier();
	pvmap_irq_point();
	vaddr = pvmap_window_va(&s->window, top);
	s->stack[depth].vaddr = vaddr | (local ? PVMAP_SLOTS_LOCAL : 0);
	/* recorded only where it can differ: see pvmap_slots_pop_fast() */
	pvmap_live_space_set(&s->stack[depth]);
	s->stack[depth].npages = npages;
	s->stack[depth].slot = top;
	if (local)
		s->frames[depth] = (struct pvmap_live_frames){ .pfn = pfn, .prot = prot };
	pvmap_irq_point();
	pvmap_window_map_direct(&s->window, top, pfn, npages, prot);
	if (static_branch_unlikely(&pvmap_counting))
		pvmap_slots_count_fast(npages, false);
	return (void __iomem *)(vaddr + in_page);
slow:
	return pvmap_slots_push_slow(s, pfn, npages, prot, local, in_page);
}

/* An atomic map: preemption and page faults off until its unmap. */
static __always_inline void __iomem *pvmap_slots_push_atomic(u64 pfn, unsigned int npages,
							     pgprot_t prot, unsigned long in_page)
{
	preempt_disable();
	pagefault_disable();
	return pvmap_slots_push(this_cpu_ptr(pvmap_slots), pfn, npages, prot, false, in_page);
}

/*
 * For pvmap_io_mapping_map_atomic_wc(), inline in <pvmap/io_mapping.h>: the
 * page holding physical address @addr, and the address of @addr's byte in
 * it (NULL on misuse), so that the caller has nothing left to compute.
 */
void __iomem *pvmap_slots_map_addr(u64 addr, pgprot_t prot)
{
	return pvmap_slots_push_atomic(addr >> PAGE_SHIFT, 1, prot, addr & ~PAGE_MASK);
}
EXPORT_SYMBOL_GPL(pvmap_slots_map_addr);

/* For pvmap_io_mapping_map_atomic_range_wc(). */
void __iomem *pvmap_slots_map(u64 pfn, unsigned int npages, pgprot_t prot)
{
	return pvmap_slots_push_atomic(pfn, npages, prot, 0);
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
	if (unlikely(s->stack[i].vaddr & PVMAP_SLOTS_LOCAL)) {
		/* it disabled neither preemption nor page faults: nothing to give back */
		WARN(1, "pvmap: a local map released by an atomic unmap, or in another context\n");
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
 * The fast path's pop of the innermost of @s's @depth maps, named right with
 * nothing released below it, whose @npages slots from @slot were copied out
 * of its entry (once released, an interrupt may reuse it): each PTE
 * cleared and its TLB entry flushed, then the slots and the entry given
 * back, as pvmap_slots_pop_one() does.
 */
static __always_inline void __pvmap_slots_pop_fast(struct pvmap_cpu_slots *s, unsigned int depth,
						   unsigned int slot, unsigned int npages)
{
	/*
	 * Unlike pvmap_slots_pop_one(), nothing to unmark: a map is marked
	 * released only while one above it is live (whose unmap takes the slow
	 * path and pops both), and a switch out unmarks the entries it takes
	 * off the CPU, so the innermost map here has no mark.
	 */
	pvmap_window_clear_direct(&s->window, slot, npages);
	WRITE_ONCE(s->top, slot);
	barrier();
	pvmap_irq_point();
	WRITE_ONCE(s->depth, depth - 1);
	barrier();
	pvmap_irq_point();
	if (static_branch_unlikely(&pvmap_counting))
		pvmap_slots_count_fast(npages, true);
}

/* A range map's: out of line, so that a page's needs neither its loop nor its registers. */
static noinline void pvmap_slots_pop_range_fast(struct pvmap_cpu_slots *s, unsigned int depth,
						unsigned int slot, unsigned int npages)
{
	__pvmap_slots_pop_fast(s, depth, slot, npages);
}

static __always_inline void __pvmap_slots_pop_page_or_range(struct pvmap_cpu_slots *s,
							    unsigned int depth)
{
	const struct pvmap_live_map *m = &s->stack[depth - 1];
	unsigned int slot = m->slot, npages = m->npages;

	pvmap_irq_point();
	if (likely(npages == 1))
		__pvmap_slots_pop_fast(s, depth, slot, 1);
	else
		pvmap_slots_pop_range_fast(s, depth, slot, npages);
}

/*
 * Where other PCIDs can keep a slot's entries: the map's address space
 * copied out with the rest, and checked after the release, so that nothing
 * is kept across the rare flush (an interrupt reusing the slots meanwhile
 * maps them in the current space, and the space left cannot come back
 * before this: preemption is off). Out of line, so that the common path
 * keeps no register for it.
 */
static noinline void pvmap_slots_pop_fast_spaces(struct pvmap_cpu_slots *s, unsigned int depth)
{
	unsigned long space = pvmap_live_space(&s->stack[depth - 1]);

	__pvmap_slots_pop_page_or_range(s, depth);
	pvmap_tlb_space_check(space);
	pvmap_irq_point();
}

static __always_inline void pvmap_slots_pop_fast(struct pvmap_cpu_slots *s, unsigned int depth)
{
	if (pvmap_tlb_other_pcids())
		pvmap_slots_pop_fast_spaces(s, depth);
	else
		__pvmap_slots_pop_page_or_range(s, depth);
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
static __always_inline bool __pvmap_slots_unmap(void __iomem *vaddr, unsigned int npages)
{
	unsigned long page = (unsigned long)vaddr & PAGE_MASK;
	struct pvmap_cpu_slots *s = raw_cpu_ptr(pvmap_slots);
	unsigned int depth;

	if (static_branch_unlikely(&pvmap_slots_slow))
		return pvmap_slots_unmap_slow(s, page, npages);
	depth = preemptible() ? 0 : READ_ONCE(s->depth);
	pvmap_irq_point();
	/* PVMAP_SLOTS_POP_BELOW set in the entry's address sends it to the slow path */
	if (unlikely(!depth || s->stack[depth - 1].vaddr != page ||
		     (npages && npages != s->stack[depth - 1].npages)))
		return pvmap_slots_unmap_slow(s, page, npages);
	pvmap_slots_pop_fast(s, depth);
	pagefault_enable();
	preempt_enable();
	return true;
}

bool pvmap_slots_unmap(void __iomem *vaddr, unsigned int npages)
{
	return __pvmap_slots_unmap(vaddr, npages);
}
EXPORT_SYMBOL_GPL(pvmap_slots_unmap);

/*
 * For pvmap_io_mapping_unmap_atomic(): pvmap_slots_unmap(@vaddr, 0), without
 * the range's check, and nothing returned that the API would drop.
 */
void pvmap_slots_unmap_page(void __iomem *vaddr)
{
	__pvmap_slots_unmap(vaddr, 0);
}
EXPORT_SYMBOL_GPL(pvmap_slots_unmap_page);

/*
 * Whether a local map in task context stays preemptible, with page faults
 * on: with preempt notifiers in the kernel. For INFO and the API's
 * pvmap_io_mapping_local_preemptible().
 */
bool pvmap_slots_local_preemptible(void)
{
	return PVMAP_SLOTS_LOCAL_SWITCHES;
}

#ifdef CONFIG_PREEMPT_NOTIFIERS
/* @what, with its numbers, for pvmap_slots_say() to say; interrupts off. */
static void pvmap_switch_report(struct pvmap_cpu_slots *s, enum pvmap_report what,
				unsigned int arg0, unsigned int arg1)
{
	s->report_arg[what][0] = arg0;
	s->report_arg[what][1] = arg1;
	s->reports |= BIT(what);
	irq_work_queue(&s->report);
}

/*
 * The record of the task running on @s's CPU: the one it has, or a free one
 * with its preempt notifier registered, from @s's PVMAP_LOCAL_TASKS or,
 * when those are all taken, allocated; NULL only when that fails.
 * Preemption off.
 */
static __always_inline struct pvmap_local_task *pvmap_local_task_get(struct pvmap_cpu_slots *s)
{
	struct pvmap_local_task *t = s->running;

	if (t)
		return t;
	if (likely(s->nfree)) {
		t = &s->tasks[s->free[--s->nfree]];
		t->heap = false;
	} else {
#ifdef CONFIG_PREEMPT_RT
		/* its slab locks sleep: there the CPU's records are all */
		return NULL;
#endif
		t = kmalloc_node(sizeof(*t), GFP_NOWAIT | __GFP_NOWARN,
				 cpu_to_node(smp_processor_id()));
		if (!t)
			return NULL;
		t->heap = true;
		list_add(&t->heap_link, &s->heap_tasks);
	}
	t->cpu = s;
	t->maps = 0;
	preempt_notifier_init(&t->notifier, &pvmap_local_ops);
	preempt_notifier_register(&t->notifier);
	s->running = t;
	return t;
}

/* Back to the pool, or freed. */
static __always_inline void pvmap_local_task_free(struct pvmap_cpu_slots *s,
						  struct pvmap_local_task *t)
{
	if (unlikely(t->heap)) {
		list_del(&t->heap_link);
		kfree(t);
	} else {
		s->free[s->nfree++] = t - s->tasks;
	}
}

/* @t, the running task's, holds no local map any more: unregistered and free. */
static __always_inline void pvmap_local_task_put(struct pvmap_cpu_slots *s,
						 struct pvmap_local_task *t)
{
	preempt_notifier_unregister(&t->notifier);
	s->running = NULL;
	pvmap_local_task_free(s, t);
}

/*
 * After a switch out cleared and flushed all of @s's slots: the maps of its
 * @depth stack entries may also have entries in the address spaces they
 * were mapped in (pvmap_tlb_space_check()), and one past a task's limits
 * (only a bug leaves one) in any.
 */
static void pvmap_slots_space_check(struct pvmap_cpu_slots *s, unsigned int depth)
{
	unsigned int i;

	if (!pvmap_tlb_other_pcids())
		return;
	if (depth > PVMAP_MAX_DEPTH + PVMAP_IRQ_DEPTH) {
		pvmap_tlb_flush_spaces();
		return;
	}
	for (i = 0; i < depth; i++) {
		if (pvmap_live_space(&s->stack[i]) != pvmap_tlb_space()) {
			pvmap_tlb_flush_spaces();
			return;
		}
	}
}

/*
 * @t's task is switched out, with interrupts off: every map on its CPU's
 * stack is its own (see the top of this file). Saved, then every slot
 * cleared and flushed, so that no task switched in can reach one, and the
 * stack left empty for it. A task switched out for the last time (@dead)
 * exited holding local maps: they are cleared, and its record freed but
 * not unregistered: the scheduler is walking that list (which nothing walks
 * again) with hlist_for_each_entry(), and reads the record's link after
 * this returns, so an allocated record is left allocated (a kfree() here
 * would be a use after free) and a pooled one is not reused before then.
 * Its CPU stays pinned: the migrate_disable() of its maps cannot be undone
 * from here, so that CPU can no longer go offline (nor suspend).
 */
static void pvmap_slots_switch_out(struct pvmap_local_task *t, bool dead)
{
	struct pvmap_cpu_slots *s = this_cpu_ptr(pvmap_slots);
	unsigned int depth = READ_ONCE(s->depth), top = READ_ONCE(s->top);
	/* all of the window, whatever a bug left in top */
	unsigned int used = min_t(unsigned int, top, PVMAP_SLOTS_PER_CPU + PVMAP_IRQ_SLOTS);
	unsigned int i;

	if (unlikely(s != t->cpu)) {
		pvmap_switch_report(s, PVMAP_REPORT_LEFT_CPU, 0, 0);
		/* its task's list is gone with it: not for the unload to unhook */
		if (dead)
			t->cpu = NULL;
		return;
	}
	s->running = NULL;
	t->depth = 0;
	t->top = 0;
	/* Only an interrupt's maps go past a task's limits, and none is live here. */
	if (unlikely(depth > PVMAP_MAX_DEPTH || top > PVMAP_SLOTS_PER_CPU)) {
		pvmap_switch_report(s, PVMAP_REPORT_OVER_LIMITS, depth, top);
	} else if (!dead) {
		memcpy(t->stack, s->stack, depth * sizeof(*s->stack));
		memcpy(t->frames, s->frames, depth * sizeof(*s->frames));
		t->depth = depth;
		t->top = top;
	}
	if (used) {
		pvmap_window_clear_local_unbatched(&s->window, 0, used);
		pvmap_count_add(PVMAP_CNT_PTE_WRITES, used);
		pvmap_count_add(PVMAP_CNT_LOCAL_FLUSHES, used);
		pvmap_slots_space_check(s, depth);
	}
	/*
	 * The stack is left empty, and a free entry is never marked released
	 * (pvmap_slots_pop_one()): a local map released out of order keeps its
	 * mark in @t, not here, where the next push at its index (whose fast
	 * path writes no mark) would inherit it.
	 */
	for (i = 0; i < min_t(unsigned int, depth, ARRAY_SIZE(s->stack)); i++)
		s->stack[i].released = false;
	WRITE_ONCE(s->top, 0);
	WRITE_ONCE(s->depth, 0);
	if (dead) {
		pvmap_switch_report(s, PVMAP_REPORT_EXITED, t->maps, 0);
		if (t->heap)
			/* off the list that the module's exit walks: its task's list is gone */
			list_del(&t->heap_link);
		else
			pvmap_local_task_free(s, t);
	}
}

/*
 * @t's task is switched back in, interrupts on but preemption off: its maps
 * back on the empty stack, at their own slots, mapped again. Interrupts
 * off meanwhile, so that none maps over slots about to come back. A stack
 * found in use (a task switched out holding atomic maps, which the
 * scheduler reports as a bug) cannot take them: they stay cleared, so
 * that an access faults rather than reach another map's page.
 */
static void pvmap_slots_switch_in(struct pvmap_local_task *t)
{
	struct pvmap_cpu_slots *s = this_cpu_ptr(pvmap_slots);
	const struct pvmap_live_map *m;
	unsigned long flags;
	unsigned int i;

	local_irq_save(flags);
	/* past the runqueue lock: a WARN may be said here */
	if (WARN_ONCE(s != t->cpu, "pvmap: a task holding local maps left their CPU\n"))
		goto out;
	s->running = t;
	if (WARN_ONCE(READ_ONCE(s->depth) || READ_ONCE(s->top),
		      "pvmap: %u maps live at a switch in: this task's %u local maps stay cleared\n",
		      READ_ONCE(s->depth), t->maps))
		goto out;
	memcpy(s->stack, t->stack, t->depth * sizeof(*s->stack));
	memcpy(s->frames, t->frames, t->depth * sizeof(*s->frames));
	WRITE_ONCE(s->depth, t->depth);
	WRITE_ONCE(s->top, t->top);
	for (i = 0; i < t->depth; i++) {
		/* mapped again in this task's address space, which may differ from the last */
		pvmap_live_space_set(&s->stack[i]);
		m = &t->stack[i];
		/* an atomic map held across a switch (the bug above) stays cleared */
		if (!(m->vaddr & PVMAP_SLOTS_LOCAL))
			continue;
		if (pvmap_window_map_unbatched(&s->window, m->slot, t->frames[i].pfn, m->npages,
					       t->frames[i].prot))
			/* refused by the hypervisor: cleared, so that the map faults */
			pvmap_window_clear_local_unbatched(&s->window, m->slot, m->npages);
		pvmap_count_add(PVMAP_CNT_PTE_WRITES, m->npages);
	}
	pvmap_window_unbatched_done();
out:
	local_irq_restore(flags);
}

static void pvmap_local_sched_out(struct preempt_notifier *n, struct task_struct *next)
{
	pvmap_slots_switch_out(container_of(n, struct pvmap_local_task, notifier),
			       READ_ONCE(current->__state) == TASK_DEAD);
}

static void pvmap_local_sched_in(struct preempt_notifier *n, int cpu)
{
	pvmap_slots_switch_in(container_of(n, struct pvmap_local_task, notifier));
}

static struct preempt_ops pvmap_local_ops = {
	.sched_in = pvmap_local_sched_in,
	.sched_out = pvmap_local_sched_out,
};

/*
 * The slow path of pvmap_slots_unmap_local(): the local map whose first
 * page is @page, in @s, of the running task's @t (NULL: it holds none).
 * Return: whether a map was released (its state is the caller's to give
 * back), misused or not; an address no live local map of this task
 * returned, or an atomic map's, changes nothing.
 */
static noinline bool pvmap_slots_unmap_local_slow(struct pvmap_cpu_slots *s,
						  struct pvmap_local_task *t, unsigned long page)
{
	unsigned int depth = t ? READ_ONCE(s->depth) : 0;
	unsigned int i = pvmap_slots_find(s, depth, page);

	if (unlikely(i == depth)) {
		WARN(1, t ? "pvmap: local unmap of an address no live local map returned\n" :
			"pvmap: local unmap without a live local map\n");
		pvmap_misuse();
		return false;
	}
	if (unlikely(!(s->stack[i].vaddr & PVMAP_SLOTS_LOCAL))) {
		WARN(1, "pvmap: local unmap of an atomic map\n");
		pvmap_misuse();
		return false;
	}
	if (i + 1 < depth) {
		/* as an atomic map's: popped with the map above it */
		WARN(1, "pvmap: unmap of a local map that is not the innermost\n");
		pvmap_misuse();
		WRITE_ONCE(s->stack[i].released, true);
		WRITE_ONCE(s->stack[i + 1].vaddr, s->stack[i + 1].vaddr | PVMAP_SLOTS_POP_BELOW);
	} else {
		pvmap_slots_pop(s, depth);
	}
	return true;
}
#endif /* CONFIG_PREEMPT_NOTIFIERS */

/*
 * A local map of @npages from @pfn. In task context, with preempt notifiers:
 * migration off until the unmap, preemption and page faults on; the task's
 * notifier takes its maps off the CPU whenever it is switched out. Else an
 * atomic map. NULL after one WARN on misuse, or (with a ratelimited
 * warning) when PVMAP_LOCAL_TASKS other tasks hold local maps on this CPU.
 * Inline in both entries, as pvmap_slots_push_atomic() is.
 */
static __always_inline void __iomem *pvmap_slots_push_local(u64 pfn, unsigned int npages,
							    pgprot_t prot)
{
#ifdef CONFIG_PREEMPT_NOTIFIERS
	struct pvmap_cpu_slots *s;
	struct pvmap_local_task *t;
	void __iomem *vaddr;

	/* not set up on x86_64's whole-aperture path, where the API does not come here */
	if (!in_task() || unlikely(!pvmap_slots_notifying))
		return pvmap_slots_push_atomic(pfn, npages, prot, 0);
	migrate_disable();
	/* a switch may land here, or an interrupt: nothing taken yet */
	pvmap_irq_point();
	preempt_disable();
	s = this_cpu_ptr(pvmap_slots);
	t = pvmap_local_task_get(s);
	if (unlikely(!t)) {
		pr_warn_ratelimited("pvmap: no memory for a task's local maps: a local map refused\n");
		goto refused;
	}
	vaddr = pvmap_slots_push(s, pfn, npages, prot, true, 0);
	if (unlikely(!vaddr)) {
		if (!t->maps)
			pvmap_local_task_put(s, t);
		goto refused;
	}
	t->maps++;
	preempt_enable();
	/* a switch may land here and anywhere until the unmap */
	pvmap_irq_point();
	return vaddr;
refused:
	preempt_enable();
	migrate_enable();
	return NULL;
#else
	return pvmap_slots_push_atomic(pfn, npages, prot, 0);
#endif
}

/* For pvmap_io_mapping_map_local_wc(), inline in <pvmap/io_mapping.h>. */
void __iomem *pvmap_slots_map_local_page(u64 pfn, pgprot_t prot)
{
	return pvmap_slots_push_local(pfn, 1, prot);
}
EXPORT_SYMBOL_GPL(pvmap_slots_map_local_page);

/* For pvmap_io_mapping_map_local_range_wc(). */
void __iomem *pvmap_slots_map_local(u64 pfn, unsigned int npages, pgprot_t prot)
{
	return pvmap_slots_push_local(pfn, npages, prot);
}
EXPORT_SYMBOL_GPL(pvmap_slots_map_local);

/*
 * Release the local map whose first page holds @vaddr: as an atomic one's
 * (pvmap_slots_unmap()), the PTEs cleared and flushed, misuse refused the
 * same ways, and an atomic map named here refused too; then migration on
 * again, and the task's notifier gone with its last local map.
 */
void pvmap_slots_unmap_local(void __iomem *vaddr)
{
#ifdef CONFIG_PREEMPT_NOTIFIERS
	unsigned long page = (unsigned long)vaddr & PAGE_MASK;
	struct pvmap_cpu_slots *s;
	struct pvmap_local_task *t;
	unsigned int depth;

	if (!in_task() || unlikely(!pvmap_slots_notifying)) {
		pvmap_slots_unmap(vaddr, 0);
		return;
	}
	pvmap_irq_point();
	preempt_disable();
	s = this_cpu_ptr(pvmap_slots);
	t = s->running;
	depth = READ_ONCE(s->depth);
	pvmap_irq_point();
	/* PVMAP_SLOTS_POP_BELOW set in the entry's address sends it to the slow path */
	if (likely(t && depth && s->stack[depth - 1].vaddr == (page | PVMAP_SLOTS_LOCAL) &&
		   !static_branch_unlikely(&pvmap_slots_slow)))
		pvmap_slots_pop_fast(s, depth);
	else if (!pvmap_slots_unmap_local_slow(s, t, page))
		goto refused;
	if (!--t->maps)
		pvmap_local_task_put(s, t);
	preempt_enable();
	migrate_enable();
	pvmap_irq_point();
	return;
refused:
	preempt_enable();
#else
	pvmap_slots_unmap(vaddr, 0);
#endif
}
EXPORT_SYMBOL_GPL(pvmap_slots_unmap_local);

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
