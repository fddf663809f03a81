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

#endif /* PVMAP_PTE_NATIVE_H */
