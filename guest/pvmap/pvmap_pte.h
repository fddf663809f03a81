/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pvmap's PTE layer: every PTE write and TLB invalidation pvmap makes goes
 * through these few functions, so the policy is visible in one place and a
 * different backend (the hypervisor stub's, in user space) can stand in.
 *
 * The per-page operations are inline in the kernel build; the user-space
 * tests build the slot core over the hypervisor stub's backend instead.
 *
 * A window is a range of kernel virtual addresses whose PTEs pvmap owns:
 * between create and destroy only pvmap writes them, and a free slot's PTE
 * is always clear, so no TLB holds an entry for it.
 */
#ifndef PVMAP_PTE_H
#define PVMAP_PTE_H

#include <linux/pgtable.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/types.h>

#include "pvmap_internal.h"

/**
 * struct pvmap_window - kernel virtual pages whose PTEs pvmap owns
 * @va: address of the first page
 * @npages: number of pages
 * @ptes: the PTE of each page
 * @filler: the page vmap() put at every slot before pvmap took the PTEs
 * @area: the backing allocation, released at destroy
 */
struct pvmap_window {
	unsigned long va;
	unsigned int npages;
	pte_t **ptes;
	struct page *filler;
	void *area;
};

pgprot_t pvmap_prot_supported(pgprot_t prot);

int pvmap_window_create(struct pvmap_window *w, unsigned int npages);
void pvmap_window_destroy(struct pvmap_window *w);

static inline unsigned long pvmap_window_va(const struct pvmap_window *w,
					    unsigned int slot)
{
	return w->va + slot * PAGE_SIZE;
}

void pvmap_tlb_flush_all_cpus(struct pvmap_window *w, unsigned int slot,
			      unsigned int npages);

#ifdef PVMAP_PTE_STUB
/*
 * The user-space build: the hypervisor stub's backend stands in
 * (tests/unit/slot_core/pvmap_pte_stub.c), one hypercall per operation or one
 * multicall per batch.
 */
void pvmap_batch_begin(void);
int pvmap_batch_end(void);
void pvmap_pte_set(struct pvmap_window *w, unsigned int slot, u64 pfn, pgprot_t prot);
void pvmap_pte_clear(struct pvmap_window *w, unsigned int slot);
bool pvmap_pte_is_clear(const struct pvmap_window *w, unsigned int slot);
void pvmap_tlb_flush_local(struct pvmap_window *w, unsigned int slot);
bool pvmap_tlb_flush_whole(unsigned int npages);
void pvmap_tlb_flush_local_all(struct pvmap_window *w, unsigned int first, unsigned int npages);

/*
 * The slot core's fast path, outside a batch: one hypercall per operation,
 * each page a point where an interrupt may land.
 */
static inline void pvmap_window_map_direct(struct pvmap_window *w, unsigned int first, u64 pfn,
					   unsigned int npages, pgprot_t prot)
{
	for (unsigned int i = 0; i < npages; i++) {
		pvmap_pte_set(w, first + i, pfn + i, prot);
		pvmap_irq_point();
	}
}

static inline void pvmap_window_clear_direct(struct pvmap_window *w, unsigned int first,
					     unsigned int npages)
{
	for (unsigned int i = 0; i < npages; i++) {
		pvmap_pte_clear(w, first + i);
		pvmap_irq_point();
		pvmap_tlb_flush_local(w, first + i);
		pvmap_irq_point();
	}
}
#else
/*
 * The kernel build: inline, as mainline's kmap_local is. The native
 * primitives (pvmap_pte_native.h) are the kernel's own: on a
 * paravirtualised MMU they are pv_ops calls, and inside
 * arch_enter/leave_lazy_mmu_mode() a run of them becomes one multicall.
 * Tracing is the trace event pvmap:pvmap_pte, a static key: a no-op jump
 * until tracefs enables it.
 */
#include <uapi/pvmap_trace.h>

#include "pvmap_pte_native.h"
#include "pvmap_trace_events.h"

/*
 * The key test inline (tracepoint_enabled(), the header form of
 * trace_pvmap_pte_enabled()), whatever the compiler makes of
 * trace_pvmap_pte() itself: -Os kernels call it out of line.
 */
static __always_inline void pvmap_trace(enum pvmap_trace_op op, unsigned long va, u64 arg)
{
	if (tracepoint_enabled(pvmap_pte))
		trace_pvmap_pte(op, va, arg);
}

/*
 * The backend, as mm/highmem.c has the arch_kmap_local_*() hooks: its
 * header defines pvmap_backend_active(), true while the backend takes the
 * layer's PTE writes and invalidations, and the hooks it fills in, each
 * #defined to its own name; one it leaves out has the default below. The
 * operations test pvmap_backend_active() inline (a static key), so the
 * native path has no call or indirect branch of its own:
 * - pvmap_backend_set_pte(ptep, pte), pvmap_backend_clear_pte(va, ptep):
 *   a PTE write, instead of the native one;
 * - pvmap_backend_flush_local(va): this CPU's TLB entry for @va, instead
 *   of pvmap_native_flush_one();
 * - pvmap_backend_flush_all(va): every CPU's, as far as the backend sees
 *   them, before the layer's IPIs flush each (native: nothing);
 * - pvmap_backend_batch_begin(), pvmap_backend_batch_end(): a batch, which
 *   may nest (an interrupt's in the task's); end returns 0 or the first
 *   refusal of an update in it (native: a lazy-MMU section, task only);
 * - pvmap_backend_window_add(va, ptes, npages), 0 or a negative errno, and
 *   pvmap_backend_window_remove(va, ptes, npages): a window's PTEs are the
 *   backend's from its creation to its destruction (native: nothing).
 * With a hypervisor channel, pvmap_pv.h is the backend: every operation
 * below is then a request to the hypervisor.
 */
#include "pvmap_pv.h"

#ifndef pvmap_backend_active
static __always_inline bool pvmap_backend_active(void)
{
	return false;
}
#endif
#ifndef pvmap_backend_set_pte
static __always_inline void pvmap_backend_set_pte(pte_t *ptep, pte_t pte)
{
	pvmap_native_set_pte(ptep, pte);
}
#endif
#ifndef pvmap_backend_clear_pte
static __always_inline void pvmap_backend_clear_pte(unsigned long va, pte_t *ptep)
{
	pvmap_native_clear_pte(va, ptep);
}
#endif
#ifndef pvmap_backend_flush_local
static __always_inline void pvmap_backend_flush_local(unsigned long va)
{
	pvmap_native_flush_one(va);
}
#endif
#ifndef pvmap_backend_flush_all
static __always_inline void pvmap_backend_flush_all(unsigned long va)
{
}
#endif
#ifndef pvmap_backend_batch_begin
static __always_inline void pvmap_backend_batch_begin(void)
{
}
#endif
#ifndef pvmap_backend_batch_end
static __always_inline int pvmap_backend_batch_end(void)
{
	return 0;
}
#endif
#ifndef pvmap_backend_window_add
static __always_inline int pvmap_backend_window_add(unsigned long va, pte_t **ptes,
						    unsigned int npages)
{
	return 0;
}
#endif
#ifndef pvmap_backend_window_remove
static __always_inline void pvmap_backend_window_remove(unsigned long va, pte_t **ptes,
							unsigned int npages)
{
}
#endif

/*
 * Updates between begin and end may reach the hypervisor as one batch; the
 * caller keeps preemption off between them (a batch belongs to one CPU).
 * Lazy-MMU sections do not nest (Xen BUG()s), and an interrupt may arrive
 * inside the section of the code it interrupted: natively, batch only in
 * task context (a backend nests its own).
 */
static __always_inline void pvmap_batch_begin(void)
{
	if (pvmap_backend_active()) {
		pvmap_backend_batch_begin();
		pvmap_count(PVMAP_CNT_BATCHES);
		pvmap_trace(PVMAP_TRACE_BEGIN, 0, 0);
	} else if (in_task()) {
		arch_enter_lazy_mmu_mode();
		pvmap_count(PVMAP_CNT_BATCHES);
		pvmap_trace(PVMAP_TRACE_BEGIN, 0, 0);
	}
}

/* Return: 0, or the hypervisor's refusal of an update in the batch. */
static __always_inline int pvmap_batch_end(void)
{
	int ret = 0;

	if (pvmap_backend_active()) {
		ret = pvmap_backend_batch_end();
		pvmap_trace(PVMAP_TRACE_END, 0, 0);
	} else if (in_task()) {
		arch_leave_lazy_mmu_mode();
		pvmap_trace(PVMAP_TRACE_END, 0, 0);
	}
	return ret;
}

static __always_inline void pvmap_pte_set(struct pvmap_window *w, unsigned int slot, u64 pfn,
					  pgprot_t prot)
{
	pte_t pte = pfn_pte(pfn, prot);

	if (pvmap_backend_active())
		pvmap_backend_set_pte(w->ptes[slot], pte);
	else
		pvmap_native_set_pte(w->ptes[slot], pte);
	pvmap_trace(PVMAP_TRACE_SET, pvmap_window_va(w, slot), pte_val(pte));
}

static __always_inline void pvmap_pte_clear(struct pvmap_window *w, unsigned int slot)
{
	if (pvmap_backend_active())
		pvmap_backend_clear_pte(pvmap_window_va(w, slot), w->ptes[slot]);
	else
		pvmap_native_clear_pte(pvmap_window_va(w, slot), w->ptes[slot]);
	pvmap_trace(PVMAP_TRACE_CLEAR, pvmap_window_va(w, slot), 0);
}

static __always_inline bool pvmap_pte_is_clear(const struct pvmap_window *w, unsigned int slot)
{
	return pte_none(*w->ptes[slot]);
}

/*
 * The slot core's fast path (pvmap_slots.c), while no backend takes the
 * PTEs and nothing traces them: bare PTE writes and invlpg
 * (pvmap_pte_native.h), as kmap_local's on a kernel without a paravirt MMU.
 * No batch: natively a lazy-MMU section changes nothing, and under Xen PV,
 * which batches, the slot core takes its slow path.
 */

/*
 * @npages frames from @pfn at slots @first.. of @w, @prot as the slot
 * core's callers have it (pvmap_io_mapping_prot()): present, and with only
 * the bits this CPU has (pvmap_prot_supported()). So each PTE is pfn_pte()'s
 * without its checks for either, which -Os kernels call out of line: the
 * frame's address and the protection, the next frame's a page on.
 */
static __always_inline void pvmap_window_map_direct(struct pvmap_window *w, unsigned int first,
						    u64 pfn, unsigned int npages, pgprot_t prot)
{
	pte_t **ptep = &w->ptes[first];
	pteval_t val = (((pteval_t)pfn << PAGE_SHIFT) & PTE_PFN_MASK) | pgprot_val(prot);
	unsigned int i;

	for (i = 0; i < npages; i++, val += PAGE_SIZE)
		pvmap_bare_set_pte(ptep[i], val);
}

/* Slots @first.. of @w cleared, each then flushed from this CPU's TLB. */
static __always_inline void pvmap_window_clear_direct(struct pvmap_window *w, unsigned int first,
						      unsigned int npages)
{
	pte_t **ptep = &w->ptes[first];
	unsigned long va = pvmap_window_va(w, first);
	unsigned int i;

	for (i = 0; i < npages; i++, va += PAGE_SIZE) {
		pvmap_bare_clear_pte(ptep[i]);
		pvmap_bare_flush_one(va);
	}
}

/* Through a backend: it runs the invalidation here once the hypervisor has acknowledged it. */
static __always_inline void pvmap_tlb_flush_local(struct pvmap_window *w, unsigned int slot)
{
	if (pvmap_backend_active())
		pvmap_backend_flush_local(pvmap_window_va(w, slot));
	else
		pvmap_native_flush_one(pvmap_window_va(w, slot));
	pvmap_trace(PVMAP_TRACE_FLUSH, pvmap_window_va(w, slot), 0);
}

/* Whether to invalidate @npages slots with one flush of this CPU's TLB (Xen PV). */
static __always_inline bool pvmap_tlb_flush_whole(unsigned int npages)
{
	return !pvmap_backend_active() && pvmap_native_flush_whole(npages);
}

static __always_inline void pvmap_tlb_flush_local_all(struct pvmap_window *w, unsigned int first,
						      unsigned int npages)
{
	unsigned int i;

	pvmap_native_flush_local();
	/* each page's entry is gone with the rest: traced as its own invalidation */
	for (i = 0; i < npages; i++)
		pvmap_trace(PVMAP_TRACE_FLUSH, pvmap_window_va(w, first + i), 0);
}

#endif /* PVMAP_PTE_STUB */

/*
 * Ranges: one batch over @npages slots of @w from @first, each page set or
 * cleared in turn, in both builds. The caller keeps preemption off across
 * the call (a batch belongs to one CPU). Each page is a point where an
 * interrupt may land: pvmap_irq_point() is empty in the kernel, where the
 * slot core's user-space test lands one. Inline, so that the slot core's
 * single-page map and unmap stay the straight-line code they were.
 */

/* Whether the PTEs of slots @first.. of @w are all clear, as a free slot's are. */
static __always_inline bool pvmap_window_clear_at(const struct pvmap_window *w,
						  unsigned int first, unsigned int npages)
{
	unsigned int i;

	for (i = 0; i < npages; i++)
		if (!pvmap_pte_is_clear(w, first + i))
			return false;
	return true;
}

/**
 * pvmap_window_map() - map @npages frames from @pfn at slots @first.. of @w
 * @w: the window
 * @first: its first slot to map
 * @pfn: the frame the first slot maps
 * @npages: number of slots
 * @prot: the protection of every PTE
 *
 * Return: 0, or the hypervisor's refusal of an update in the batch: some
 * PTEs may be set, and the caller clears them all (pvmap_window_clear()).
 */
static __always_inline int pvmap_window_map(struct pvmap_window *w, unsigned int first,
					    u64 pfn, unsigned int npages, pgprot_t prot)
{
	unsigned int i;

	pvmap_batch_begin();
	for (i = 0; i < npages; i++) {
		pvmap_pte_set(w, first + i, pfn + i, prot);
		pvmap_irq_point();
	}
	return pvmap_batch_end();
}

/*
 * A clear does not fail: a backend that is refused one writes it natively
 * and stops taking updates (pvmap_pv_multicall.c), and Xen, which the
 * user-space build's stub models, never refuses one. So nothing is
 * returned that a caller could ignore.
 */
static __always_inline void __pvmap_window_clear(struct pvmap_window *w, unsigned int first,
						 unsigned int npages, bool flush_local)
{
	unsigned int i;

	pvmap_batch_begin();
	for (i = 0; i < npages; i++) {
		pvmap_pte_clear(w, first + i);
		pvmap_irq_point();
	}
	if (flush_local && pvmap_tlb_flush_whole(npages)) {
		pvmap_tlb_flush_local_all(w, first, npages);
	} else if (flush_local) {
		for (i = 0; i < npages; i++) {
			pvmap_tlb_flush_local(w, first + i);
			pvmap_irq_point();
		}
	}
	pvmap_batch_end();
}

/**
 * pvmap_window_clear() - clear slots @first.. of @w, with no invalidation
 * @w: the window
 * @first: its first slot to clear
 * @npages: number of slots
 *
 * For slots other CPUs may have used: the caller flushes them everywhere
 * afterwards (pvmap_tlb_flush_all_cpus()).
 */
static __always_inline void pvmap_window_clear(struct pvmap_window *w, unsigned int first,
					       unsigned int npages)
{
	__pvmap_window_clear(w, first, npages, false);
}

/**
 * pvmap_window_clear_local() - clear slots @first.. of @w and flush them here
 * @w: the window
 * @first: its first slot to clear
 * @npages: number of slots
 *
 * For slots only this CPU has used: every PTE, then every TLB entry on this
 * CPU, in one batch (one lazy-MMU section; one multicall on a
 * paravirtualised MMU, its invalidations after all its updates).
 */
static __always_inline void pvmap_window_clear_local(struct pvmap_window *w, unsigned int first,
						     unsigned int npages)
{
	__pvmap_window_clear(w, first, npages, true);
}

#ifdef PVMAP_PTE_STUB
/* The stub models no lazy-MMU section: the batched forms stand in. */
#define pvmap_window_clear_local_unbatched	pvmap_window_clear_local
#define pvmap_window_map_unbatched		pvmap_window_map
static inline void pvmap_window_unbatched_done(void)
{
}

/*
 * Address spaces as tests/unit/slot_core/pvmap_pte_stub.c models them, when a
 * test turns PCIDs on: each CPU's current one, which the test may change
 * where an interrupt lands (a lazy-TLB CPU switched to init_mm by a flush
 * IPI, on x86_64), and the spaces a TLB entry of each page lives in.
 */
bool pvmap_tlb_other_pcids(void);
unsigned long pvmap_tlb_space(void);
void pvmap_tlb_flush_spaces(void);

static inline void pvmap_tlb_space_check(unsigned long space)
{
	if (pvmap_tlb_other_pcids() && space != pvmap_tlb_space())
		pvmap_tlb_flush_spaces();
}
#else
/*
 * For the scheduler's preempt notifiers (pvmap_slots.c's local maps): the
 * task being switched may be inside a lazy-MMU section of its own, which
 * Xen PV carries across a switch and which must not nest (Xen BUG()s), so
 * natively no batch, each write and invalidation a pv_ops call of its own
 * (queued in the task's section, if it has one, which Xen sends before the
 * next task runs); a backend batches on its own. Traced as the others.
 */
static __always_inline void pvmap_window_clear_local_unbatched(struct pvmap_window *w,
							       unsigned int first,
							       unsigned int npages)
{
	unsigned int i;

	if (pvmap_backend_active()) {
		pvmap_window_clear_local(w, first, npages);
		return;
	}
	if (pvmap_tlb_flush_whole(npages)) {
		for (i = 0; i < npages; i++)
			pvmap_pte_clear(w, first + i);
		pvmap_tlb_flush_local_all(w, first, npages);
		return;
	}
	for (i = 0; i < npages; i++) {
		pvmap_pte_clear(w, first + i);
		pvmap_tlb_flush_local(w, first + i);
	}
}

static __always_inline int pvmap_window_map_unbatched(struct pvmap_window *w, unsigned int first,
						      u64 pfn, unsigned int npages, pgprot_t prot)
{
	unsigned int i;

	if (pvmap_backend_active())
		return pvmap_window_map(w, first, pfn, npages, prot);
	for (i = 0; i < npages; i++)
		pvmap_pte_set(w, first + i, pfn + i, prot);
	return 0;
}

/*
 * After the writes of a switch in: Xen PV has put the incoming task back in
 * its lazy-MMU section, if it was switched out in one, before the notifiers
 * run, and would hold them there until the task leaves it; sent now (a
 * flush is a leave and an enter: nothing nests). Natively nothing.
 */
static __always_inline void pvmap_window_unbatched_done(void)
{
	if (!pvmap_backend_active())
		arch_flush_lazy_mmu_mode();
}

/*
 * Whether an invlpg on this CPU can miss translations of other address
 * spaces: on x86_64 with page-table isolation kernel PTEs are not global,
 * and with PCIDs the TLB keeps those of the last few address spaces the CPU
 * ran (a kernel PCID each). Without PTI an invlpg reaches a global entry in
 * every PCID; without PCIDs each CR3 write flushes every non-global entry.
 * PCID first: false under TCG (whose CPUs have no PCID), so one jump there.
 */
static __always_inline bool pvmap_tlb_other_pcids(void)
{
	return IS_ENABLED(CONFIG_X86_64) && static_cpu_has(X86_FEATURE_PCID) &&
	       static_cpu_has(X86_FEATURE_PTI);
}

/*
 * The address space this CPU's TLB entries of a slot mapped now are tagged
 * with: where other PCIDs can keep them, CR3 (the page tables and the
 * PCID); elsewhere 0, one space for all. A slot's map and unmap run in one
 * unless CR3 changes between them: a flush IPI switches a lazy-TLB CPU (a
 * kernel thread on a borrowed mm) to init_mm (flush_tlb_func()), and a
 * kernel thread may kthread_use_mm() under a local map. CR3 read natively,
 * not through pv_ops (whose call would take registers from the fast path):
 * Xen PV, the one paravirtualised MMU, has neither PTI nor PCIDs in a guest.
 */
static __always_inline unsigned long pvmap_tlb_space(void)
{
	return pvmap_tlb_other_pcids() ? __native_read_cr3() : 0;
}

void pvmap_tlb_flush_spaces(void);

/*
 * After a slot mapped in address space @space was cleared and flushed here:
 * if CR3 changed since, the slot's entry may live on in the PCID left, where
 * the invlpg did not reach, so every PCID's entries go. The kernel's
 * flush_tlb_one_kernel() has them flushed at their next use through a
 * per-CPU flag (cpu_tlbstate.invalidate_other) that a module cannot reach.
 */
static __always_inline void pvmap_tlb_space_check(unsigned long space)
{
	if (pvmap_tlb_other_pcids() && unlikely(space != __native_read_cr3()))
		pvmap_tlb_flush_spaces();
}
#endif /* PVMAP_PTE_STUB */

#endif /* PVMAP_PTE_H */
