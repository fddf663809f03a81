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

#include "pvstub.h"

struct pvmap_pte_stub {
	struct pvstub *hv;
	bool batching;		/* false: the naive backend, one hypercall per op */
	bool skip_clear;	/* a broken unmap that leaves PTEs in place */
	unsigned int errors;	/* hypercalls the stub refused */
};

extern struct pvmap_pte_stub pvmap_pte_stub;

#endif
