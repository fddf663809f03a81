/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_ARRAY_SIZE_H
#define PVMAP_SHIM_LINUX_ARRAY_SIZE_H

/* The kernel's, less its __must_be_array() check (the kernel's build makes it). */
#define ARRAY_SIZE(arr)		(sizeof(arr) / sizeof((arr)[0]))

#endif
