/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Short names of enum pvmap_kind, as the module's log and debugfs, the guest
 * tests' pvtest.expect= and the tools spell them.
 */
#ifndef PVMAP_KIND_H
#define PVMAP_KIND_H

#include "pvmap.h"

static inline const char *pvmap_kind_name(__u32 kind)
{
	switch (kind) {
	case PVMAP_KIND_IVSHMEM:
		return "ivshmem";
	case PVMAP_KIND_STDVGA:
		return "stdvga";
	case PVMAP_KIND_QXL:
		return "qxl";
	default:
		return "unknown";
	}
}

#endif /* PVMAP_KIND_H */
