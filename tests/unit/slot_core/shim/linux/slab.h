/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_SLAB_H
#define PVMAP_SHIM_LINUX_SLAB_H

#include <stdbool.h>
#include <stdlib.h>

#define GFP_KERNEL			0
#define GFP_NOWAIT			0
#define __GFP_NOWARN			0
#define cpu_to_node(cpu)		((void)(cpu), 0)
#define kcalloc(n, size, gfp)		((void)(gfp), calloc((n), (size)))
#define kcalloc_node(n, size, gfp, node) ((void)(node), kcalloc((n), (size), (gfp)))
#define kmalloc(size, gfp)		((void)(gfp), pvmap_shim_kmalloc(size))
#define kmalloc_node(size, gfp, node)	((void)(node), kmalloc((size), (gfp)))

/* A test sets pvmap_shim_kmalloc_fails to see an allocation refused. */
extern bool pvmap_shim_kmalloc_fails;
static inline void *pvmap_shim_kmalloc(size_t size)
{
	return pvmap_shim_kmalloc_fails ? NULL : malloc(size);
}
#define kfree(p)			free(p)

#endif
