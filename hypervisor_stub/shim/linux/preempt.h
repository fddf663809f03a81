/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_PREEMPT_H
#define PVMAP_SHIM_LINUX_PREEMPT_H

#include <linux/percpu.h>

/* Nesting counts per CPU, so tests can assert every map was balanced. */
extern int pvmap_shim_preempt_count[PVMAP_SHIM_NR_CPUS];

#define preempt_disable()	(pvmap_shim_preempt_count[pvmap_shim_cpu]++)
#define preempt_enable()	(pvmap_shim_preempt_count[pvmap_shim_cpu]--)

#endif
