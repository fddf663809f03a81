/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pvmap's PTE layer: every PTE write and TLB invalidation pvmap makes goes
 * through these few functions, so the policy is visible in one place and a
 * different backend (the hypervisor stub's, in user space) can stand in.
 *
 * A window is a range of kernel virtual addresses whose PTEs pvmap owns:
 * between create and destroy only pvmap writes them, and a free slot's PTE
 * is always clear, so no TLB holds an entry for it.
 */
#ifndef PVMAP_PTE_H
#define PVMAP_PTE_H

#include <linux/pgtable.h>
#include <linux/types.h>

/**
 * struct pvmap_window - kernel virtual pages whose PTEs pvmap owns
 * @va: address of the first page
 * @npages: number of pages
 * @ptes: the PTE of each page
 * @orig: each PTE as it was before pvmap took it, restored at destroy
 * @area: the backing allocation, released at destroy
 */
struct pvmap_window {
	unsigned long va;
	unsigned int npages;
	pte_t **ptes;
	pte_t *orig;
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

/* Updates between begin and end may reach the hypervisor as one batch. */
void pvmap_batch_begin(void);
void pvmap_batch_end(void);

void pvmap_pte_set(struct pvmap_window *w, unsigned int slot, u64 pfn,
		   pgprot_t prot);
void pvmap_pte_clear(struct pvmap_window *w, unsigned int slot);
bool pvmap_pte_is_clear(const struct pvmap_window *w, unsigned int slot);
void pvmap_tlb_flush_local(struct pvmap_window *w, unsigned int slot);
void pvmap_tlb_flush_all_cpus(struct pvmap_window *w, unsigned int slot,
			      unsigned int npages);

#endif /* PVMAP_PTE_H */
