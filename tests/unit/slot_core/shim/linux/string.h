/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_STRING_H
#define PVMAP_SHIM_LINUX_STRING_H

/* as the kernel's (6.1's and 6.12's here): ARRAY_SIZE() with it */
#include <linux/array_size.h>
#include <string.h>

#endif
