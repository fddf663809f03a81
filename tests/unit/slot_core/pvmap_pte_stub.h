/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PTE layer of guest/pvmap/pvmap_pte.h on top of the hypervisor stub, as a
 * paravirtualised guest would have it: outside a batch every operation is
 * its own hypercall; between pvmap_batch_begin() and pvmap_batch_end() they
 * are queued, as Xen's lazy-MMU mode does, and leave as one multicall.
 */
#ifndef PVMAP_PTE_STUB_H
#define PVMAP_PTE_STUB_H

#include <stdbool.h>
#include <stdint.h>

#include "pvstub.h"

struct pvmap_pte_stub {
	struct pvstub *hv;
	bool batching;		/* false: the naive backend, one hypercall per op */
	bool skip_clear;	/* a broken unmap that leaves PTEs in place */
	bool pcids;		/* x86_64 under PTI with PCIDs: address spaces modelled */
	unsigned int errors;	/* hypercalls the stub refused */
	unsigned int space_flushes;	/* pvmap_tlb_flush_spaces() calls */
};

extern struct pvmap_pte_stub pvmap_pte_stub;

/*
 * The address-space model, while .pcids is set: each CPU runs in one of
 * PVMAP_STUB_SPACES spaces (a kernel PCID each), and a TLB entry of a
 * window page lives in the spaces it was filled in. An invalidation of one
 * page reaches the current space only (one queued in a batch, when the
 * batch is issued); pvmap_tlb_flush_spaces() all of a CPU's; a flush of
 * every CPU all spaces. The stub's own TLB (pvstub_access()) does not see
 * spaces: these tags stand beside it.
 */
#define PVMAP_STUB_SPACES	8
void pvmap_pte_stub_spaces_reset(void);
/* @cpu switches to space @space (0 .. PVMAP_STUB_SPACES - 1) */
void pvmap_pte_stub_set_space(unsigned int cpu, unsigned int space);
/* an access to @va on this CPU, speculative or not: an entry in its space if the PTE is live */
void pvmap_pte_stub_touch(uint64_t va);
/* the spaces holding an entry of @va on @cpu: bit N for space N */
unsigned int pvmap_pte_stub_tagged(unsigned int cpu, uint64_t va);

#endif
