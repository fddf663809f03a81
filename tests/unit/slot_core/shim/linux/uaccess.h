/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_UACCESS_H
#define PVMAP_SHIM_LINUX_UACCESS_H

#include <linux/percpu.h>

extern int pvmap_shim_pagefault_disabled[PVMAP_SHIM_NR_CPUS];

#define pagefault_disable()	(pvmap_shim_pagefault_disabled[pvmap_shim_cpu]++)
#define pagefault_enable()	(pvmap_shim_pagefault_disabled[pvmap_shim_cpu]--)
#define pagefault_disabled()	(pvmap_shim_pagefault_disabled[pvmap_shim_cpu] != 0)

#endif
