/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PTE layer's native primitives (pvmap_pte.h): a PTE write or a TLB
 * invalidation of one of pvmap's windows without a backend, and what a
 * backend falls back to on its own, so that every invalidation pvmap makes
 * is one of the few below (or pvmap_pte.c's whole-TLB flush): the kernel's
 * own, and the fast path's bare ones. Apart from pvmap_pte.h so that a
 * backend can use them without the layer.
 */
#ifndef PVMAP_PTE_NATIVE_H
#define PVMAP_PTE_NATIVE_H

#include <linux/pgtable.h>
#include <asm/tlbflush.h>
#include <xen/xen.h>

static __always_inline void pvmap_native_set_pte(pte_t *ptep, pte_t pte)
{
	set_pte(ptep, pte);
}

/* pte_clear() ignores its mm on x86; with PAE it clears the present half first. */
static __always_inline void pvmap_native_clear_pte(unsigned long va, pte_t *ptep)
{
	pte_clear(NULL, va, ptep);
}

/*
 * This CPU's TLB entry for @va, in the current address space: enough for
 * a slot, used on one CPU with preemption off (pvmap_pte.c says when it is
 * not).
 */
static __always_inline void pvmap_native_flush_one(unsigned long va)
{
	__flush_tlb_one_user(va);
}

/*
 * The slot core's fast path (pvmap_pte.h's _direct operations): the bare
 * instructions, inline, with no pv_ops call. It never runs under Xen PV,
 * the one paravirtualised MMU (pvmap_slots_slow is on there), so the
 * kernel's paravirt PTE operations would be these same writes; and its
 * windows are kernel addresses that the user page tables of page-table
 * isolation never map, so the invalidation of a user PCID that
 * __flush_tlb_one_user() adds under PTI (an INVPCID, or a flush of the
 * whole user address space at the next return to user mode) has nothing to
 * reach. Other kernel PCIDs are pvmap_tlb_space_check()'s (pvmap_pte.h).
 */
static __always_inline void pvmap_bare_set_pte(pte_t *ptep, pteval_t val)
{
	native_set_pte(ptep, native_make_pte(val));
}

static __always_inline void pvmap_bare_clear_pte(pte_t *ptep)
{
	native_pte_clear(NULL, 0, ptep);
}

static __always_inline void pvmap_bare_flush_one(unsigned long va)
{
	asm volatile("invlpg (%0)" : : "r" (va) : "memory");
}

/*
 * Under Xen PV, Linux queues each invalidation of a lazy-MMU section as a
 * multicall entry of its own, an mmuext_op of 24 bytes beside each clear's
 * 16-byte mmu_update, in a 512-byte argument buffer (arch/x86/xen/
 * multicalls.c, MC_ARGS): 12 pages fit, a 13th sends a second multicall.
 */
#define PVMAP_XEN_INVLPG_PER_MULTICALL	(512 / (16 + 24))

/*
 * Whether this CPU's TLB entries of @npages cleared pages are invalidated
 * with one local flush of the whole TLB (MMUEXT_TLB_FLUSH_LOCAL, one entry):
 * under Xen PV, past what one multicall holds (Xen's count,
 * xen_pwrite_multicalls). That flush leaves global entries, and a PV
 * guest's kernel PTEs have none because Linux takes _PAGE_GLOBAL out of
 * __supported_pte_mask there (xen_start_kernel()), which pfn_pte() applies;
 * should it keep it, per-page invalidation stays. Natively it always stays:
 * the whole TLB is worth more than a few invlpg.
 */
static __always_inline bool pvmap_native_flush_whole(unsigned int npages)
{
	return IS_ENABLED(CONFIG_XEN_PV) && npages > PVMAP_XEN_INVLPG_PER_MULTICALL &&
	       xen_pv_domain() && !(__supported_pte_mask & _PAGE_GLOBAL);
}

/* This CPU's whole TLB, global entries aside (none under Xen PV). */
static __always_inline void pvmap_native_flush_local(void)
{
	__flush_tlb_local();
}

#endif /* PVMAP_PTE_NATIVE_H */
