// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU atomic slots: the core of pvmap's io_mapping, free of PCI and
 * character-device code. Each CPU owns a window of PVMAP_SLOTS_PER_CPU
 * pages used as a stack: a map takes npages slots from the top and writes
 * their PTEs in one batch; its unmap clears them, flushes each TLB entry on
 * this CPU, and pops. Preemption and page faults stay disabled from map to
 * unmap, so the slots never leave the CPU and no other CPU can hold a TLB
 * entry for them: no shootdown is ever needed.
 *
 * An interrupt may map and unmap in between, always balanced, so a stack
 * push or pop is safe without atomics as long as the slots are reserved
 * before their PTEs are written and released after they are cleared.
 */

#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/uaccess.h>

#include <pvmap/io_mapping.h>

#include "pvmap_internal.h"
#include "pvmap_pte.h"

/**
 * struct pvmap_live_map - one live atomic map on a CPU's stack
 * @vaddr: the page address returned for it
 * @npages: its pages
 * @slot: its first slot, or -1 when it points into a whole-aperture mapping
 */
struct pvmap_live_map {
	unsigned long vaddr;
	unsigned int npages;
	int slot;
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
	struct pvmap_live_map stack[PVMAP_MAX_DEPTH];
};

static struct pvmap_cpu_slots __percpu *pvmap_slots;

int pvmap_slots_init(void)
{
	int cpu, ret;

	pvmap_slots = alloc_percpu(struct pvmap_cpu_slots);
	if (!pvmap_slots)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		ret = pvmap_window_create(&per_cpu_ptr(pvmap_slots, cpu)->window,
					  PVMAP_SLOTS_PER_CPU);
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

static void pvmap_misuse(void)
{
	pvmap_count(PVMAP_CNT_MISUSE);
}

/*
 * Map @npages from @pfn: into this CPU's slots, or, when @whole is given,
 * at that address in a whole-aperture mapping (x86_64 without hygiene),
 * where only the stack discipline is kept. NULL after one WARN on misuse.
 */
void __iomem *pvmap_slots_map(u64 pfn, unsigned int npages, pgprot_t prot,
			      void __iomem *whole)
{
	struct pvmap_cpu_slots *s;
	struct pvmap_live_map *m;
	unsigned int i;

	preempt_disable();
	pagefault_disable();
	s = this_cpu_ptr(pvmap_slots);
	if (WARN(s->depth == PVMAP_MAX_DEPTH,
		 "pvmap: atomic maps nested deeper than %d\n", PVMAP_MAX_DEPTH) ||
	    WARN(!whole && npages > PVMAP_SLOTS_PER_CPU - s->top,
		 "pvmap: %u pages asked, %u atomic slots free on this CPU\n",
		 npages, PVMAP_SLOTS_PER_CPU - s->top)) {
		pvmap_misuse();
		pagefault_enable();
		preempt_enable();
		return NULL;
	}

	m = &s->stack[s->depth];
	m->npages = npages;
	if (whole) {
		m->slot = -1;
		m->vaddr = (unsigned long)whole;
	} else {
		m->slot = s->top;
		m->vaddr = pvmap_window_va(&s->window, m->slot);
		s->top += npages;
	}
	/* Reserved before the PTEs are written: see the comment at the top. */
	barrier();
	s->depth++;
	barrier();

	if (m->slot >= 0) {
		pvmap_batch_begin();
		for (i = 0; i < npages; i++)
			pvmap_pte_set(&s->window, m->slot + i, pfn + i, prot);
		pvmap_batch_end();
	}
	pvmap_count(PVMAP_CNT_MAPS);
	return (void __iomem *)m->vaddr;
}

/*
 * Release the innermost map if @vaddr lies in its first page and @npages
 * (0: any) matches; otherwise WARN once and change nothing, so a misused
 * unmap can never clear a PTE that another live map still uses.
 */
bool pvmap_slots_unmap(void __iomem *vaddr, unsigned int npages)
{
	unsigned long page = (unsigned long)vaddr & PAGE_MASK;
	struct pvmap_cpu_slots *s;
	struct pvmap_live_map *m;
	unsigned int i;

	/* Our own, for an unbalanced call made with preemption enabled. */
	preempt_disable();
	s = this_cpu_ptr(pvmap_slots);
	m = s->depth ? &s->stack[s->depth - 1] : NULL;
	if (WARN(!m, "pvmap: unmap without a live atomic map\n") ||
	    WARN(page != m->vaddr || (npages && npages != m->npages),
		 "pvmap: unmap does not match the innermost atomic map\n")) {
		pvmap_misuse();
		preempt_enable();
		return false;
	}

	/* The opt-in demonstration of what clear-on-unmap prevents. */
	if (m->slot >= 0 && !pvmap_hazard_demo) {
		/*
		 * Clear-on-unmap: a stale pointer must fault rather than reach
		 * a page that may change owner or cacheability.
		 */
		pvmap_batch_begin();
		for (i = 0; i < m->npages; i++) {
			pvmap_pte_clear(&s->window, m->slot + i);
			pvmap_tlb_flush_local(&s->window, m->slot + i);
		}
		pvmap_batch_end();
	}
	barrier();
	s->depth--;
	if (m->slot >= 0)
		s->top = m->slot;
	barrier();

	pvmap_count(PVMAP_CNT_UNMAPS);
	preempt_enable();
	/* The map's. */
	pagefault_enable();
	preempt_enable();
	return true;
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
	unsigned int i, n = 0, depth = min_t(unsigned int, READ_ONCE(s->depth), PVMAP_MAX_DEPTH);

	for (i = 0; i < depth && n < max; i++) {
		if (s->stack[i].slot < 0)
			continue;
		va[n] = s->stack[i].vaddr;
		npages[n++] = s->stack[i].npages;
	}
	return n;
}
