/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_SLAB_H
#define PVMAP_SHIM_LINUX_SLAB_H

#include <stdlib.h>

#define GFP_KERNEL			0
#define kcalloc(n, size, gfp)		((void)(gfp), calloc((n), (size)))
#define kfree(p)			free(p)

#endif
