/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PTE layer's native primitives (pvmap_pte.h): a PTE write or a TLB
 * invalidation of one of pvmap's windows without a backend, and what a
 * backend falls back to on its own, so that every invalidation pvmap makes
 * is this one flush primitive (or pvmap_pte.c's whole-TLB flush). Apart
 * from pvmap_pte.h so that a backend can use them without the layer.
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
 * Whether this CPU's TLB entries of @npages pages are better invalidated
 * with one local flush of the whole TLB. Under Xen PV, Linux queues each
 * invalidation of a lazy-MMU section as a multicall entry of its own (an
 * mmuext_op): past a dozen pages the clears and their invalidations
 * overflow its multicall buffer and a second multicall goes out, where one
 * MMUEXT_TLB_FLUSH_LOCAL keeps the batch to one (Xen's count,
 * xen_pwrite_multicalls). A 64-bit PV guest's kernel PTEs are never global,
 * so that flush reaches them. Natively, per-page invalidation stays: the
 * whole TLB is worth more than a few invlpg.
 */
static __always_inline bool pvmap_native_flush_whole(unsigned int npages)
{
	return IS_ENABLED(CONFIG_XEN_PV) && npages > 1 && xen_pv_domain();
}

/* This CPU's whole TLB, global entries aside (none under Xen PV). */
static __always_inline void pvmap_native_flush_local(void)
{
	__flush_tlb_local();
}

#endif /* PVMAP_PTE_NATIVE_H */
