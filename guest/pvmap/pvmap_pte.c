// SPDX-License-Identifier: GPL-2.0
/*
 * The PTE layer on a Linux guest: windows, the trace event and the
 * cross-CPU flush; the per-page operations are inline in pvmap_pte.h.
 * Exported only in a test build (EXPORT_SYMBOL_FOR_PVMAP_TESTS), for
 * pvmap_test's hazard demonstration, which builds its
 * pre-clear-on-unmap engine on this layer outside pvmap.ko.
 * TLB invalidation is local (invlpg) because atomic slots are per CPU and
 * used with preemption disabled, so on one CPU, in the address space each
 * map records (a CPU that changed it since flushes every PCID:
 * pvmap_tlb_space_check()); only sleepable windows, which a task may have
 * touched from any CPU and under any address space it ran in, are flushed
 * everywhere, in every PCID.
 */

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>
#include <asm/tlbflush.h>

#include "pvmap_internal.h"
#include "pvmap_pte.h"

/* The trace event's definition, here once; the test modules use it through pvmap_pte.h. */
#define CREATE_TRACE_POINTS
#include "pvmap_trace_events.h"
#if IS_ENABLED(CONFIG_PVMAP_TEST_HOOKS)
EXPORT_TRACEPOINT_SYMBOL_GPL(pvmap_pte);
#endif

/* Tracing is a reason for the slot core's slow path, the one that traces. */
int pvmap_trace_reg(void)
{
	static_branch_inc(&pvmap_slots_slow);
	return 0;
}

void pvmap_trace_unreg(void)
{
	static_branch_dec(&pvmap_slots_slow);
}

/*
 * @prot without the bits this CPU lacks (NX on a PAE CPU without it), as
 * pfn_pte() wants under DEBUG_VM. PAGE_KERNEL keeps them for modules.
 */
pgprot_t pvmap_prot_supported(pgprot_t prot)
{
	return __pgprot(massage_pgprot(prot));
}
EXPORT_SYMBOL_FOR_PVMAP_TESTS(pvmap_prot_supported);

/*
 * Own a window: vmap() one page of our own at every slot, so the kernel
 * builds the page tables, then take over its PTEs. Modules cannot reserve
 * bare virtual space (get_vm_area() is not exported); this is the same
 * effect; the PTEs are left clear when vunmap() gives the space back.
 * VM_IOREMAP tells vread() (/proc/kcore) that the area maps I/O memory: it
 * reads zeros there instead of taking an aperture pfn for a RAM page.
 */
int pvmap_window_create(struct pvmap_window *w, unsigned int npages)
{
	struct page **pages;
	struct page *filler;
	unsigned int i;
	int ret = -ENOMEM;

	memset(w, 0, sizeof(*w));
	w->ptes = kcalloc(npages, sizeof(*w->ptes), GFP_KERNEL);
	pages = kcalloc(npages, sizeof(*pages), GFP_KERNEL);
	filler = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!w->ptes || !pages || !filler)
		goto err_free;
	for (i = 0; i < npages; i++)
		pages[i] = filler;

	w->area = vmap(pages, npages, VM_MAP | VM_IOREMAP, pvmap_prot_supported(PAGE_KERNEL));
	if (!w->area)
		goto err_free;
	w->va = (unsigned long)w->area;
	w->npages = npages;

	for (i = 0; i < npages; i++) {
		unsigned int level;

		w->ptes[i] = lookup_address(pvmap_window_va(w, i), &level);
		if (!w->ptes[i] || level != PG_LEVEL_4K) {
			ret = -EFAULT;
			goto err_vunmap;
		}
	}
	/* Freed at destroy, after vunmap(): no PTE maps it once the window is ours. */
	w->filler = filler;
	kfree(pages);
	pages = NULL;

	/* From here on the hypervisor's, where there is one: it writes them. */
	if (pvmap_backend_active()) {
		ret = pvmap_backend_window_add(w->va, w->ptes, w->npages);
		if (ret)
			goto err_vunmap;
	}
	/* A free slot's PTE is clear; nothing has touched these addresses yet. */
	preempt_disable();	/* a batch belongs to one CPU */
	pvmap_window_clear(w, 0, npages);
	preempt_enable();
	pvmap_tlb_flush_all_cpus(w, 0, npages);
	return 0;

err_vunmap:
	vunmap(w->area);
err_free:
	if (filler)
		__free_page(filler);
	kfree(pages);
	kfree(w->ptes);
	memset(w, 0, sizeof(*w));
	return ret;
}
EXPORT_SYMBOL_FOR_PVMAP_TESTS(pvmap_window_create);

/*
 * Give a window back. Its PTEs stay clear (a live one, which only a bug
 * or a refused update leaves, is cleared and flushed everywhere): vunmap() takes clear PTEs
 * as they are, and restoring the filler's would make a stale pointer into
 * the window read a page freed here once the lazy vunmap purge is late.
 */
void pvmap_window_destroy(struct pvmap_window *w)
{
	unsigned int i, live = 0;

	if (!w->area)
		return;
	/*
	 * Not pvmap_window_clear(): only a live PTE is written, and whether
	 * there was one decides the flush.
	 */
	preempt_disable();
	pvmap_batch_begin();
	for (i = 0; i < w->npages; i++) {
		if (!pvmap_pte_is_clear(w, i)) {
			pvmap_pte_clear(w, i);
			live++;
		}
	}
	pvmap_batch_end();
	preempt_enable();
	if (live)
		pvmap_tlb_flush_all_cpus(w, 0, w->npages);
	if (pvmap_backend_active())
		pvmap_backend_window_remove(w->va, w->ptes, w->npages);
	vunmap(w->area);
	__free_page(w->filler);
	kfree(w->ptes);
	memset(w, 0, sizeof(*w));
}
EXPORT_SYMBOL_FOR_PVMAP_TESTS(pvmap_window_destroy);

struct pvmap_flush_range {
	unsigned long start;
	unsigned int npages;
};

/*
 * This CPU's TLB entries of every address space, where an invalidation
 * reaches only the current one's (pvmap_tlb_space_check()), as the kernel's
 * own flush of a kernel range of more than a few pages does: the kernel
 * PCIDs are not exported. Preemption off.
 */
void pvmap_tlb_flush_spaces(void)
{
	__flush_tlb_all();
}

static void pvmap_flush_range_here(void *info)
{
	const struct pvmap_flush_range *r = info;
	unsigned int i;

	if (pvmap_tlb_other_pcids()) {
		__flush_tlb_all();
		return;
	}
	for (i = 0; i < r->npages; i++)
		pvmap_native_flush_one(r->start + i * PAGE_SIZE);
}

/* Sleepable windows: the holder may have run on any CPU, in any address space. */
void pvmap_tlb_flush_all_cpus(struct pvmap_window *w, unsigned int slot,
			      unsigned int npages)
{
	struct pvmap_flush_range r = {
		.start = pvmap_window_va(w, slot),
		.npages = npages,
	};

	/* The hypervisor's view first: it answers for every vCPU's TLB. */
	if (pvmap_backend_active()) {
		unsigned int i;

		preempt_disable();
		pvmap_batch_begin();
		for (i = 0; i < npages; i++)
			pvmap_backend_flush_all(r.start + i * PAGE_SIZE);
		pvmap_batch_end();
		preempt_enable();
	}
	on_each_cpu(pvmap_flush_range_here, &r, 1);
	pvmap_count_add(PVMAP_CNT_REMOTE_FLUSHES, npages);
	pvmap_trace(PVMAP_TRACE_FLUSH_ALL, r.start, npages);
}
EXPORT_SYMBOL_FOR_PVMAP_TESTS(pvmap_tlb_flush_all_cpus);
