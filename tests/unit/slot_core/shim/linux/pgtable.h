/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_PGTABLE_H
#define PVMAP_SHIM_LINUX_PGTABLE_H

#include <linux/types.h>

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))

/* PAE / x86-64 entries: 64 bits whatever the host. */
typedef struct { uint64_t pte; } pte_t;
typedef struct { uint64_t pgprot; } pgprot_t;

#define pgprot_val(p)	((p).pgprot)
#define __pgprot(v)	((pgprot_t){ (v) })

#endif
