/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_PERCPU_H
#define PVMAP_SHIM_LINUX_PERCPU_H

#include <stdlib.h>

#include <linux/types.h>

/* The test picks the CPU the code runs on by setting pvmap_shim_cpu. */
#define PVMAP_SHIM_NR_CPUS	4
extern unsigned int pvmap_shim_cpu;

#define alloc_percpu(type)	((type *)calloc(PVMAP_SHIM_NR_CPUS, sizeof(type)))
#define free_percpu(p)		free(p)
#define per_cpu_ptr(p, cpu)	(&(p)[cpu])
#define this_cpu_ptr(p)		(&(p)[pvmap_shim_cpu])
#define raw_cpu_ptr(p)		this_cpu_ptr(p)
#define smp_processor_id()	pvmap_shim_cpu
#define this_cpu_add(lv, n)	((lv) += (n))
#define for_each_possible_cpu(cpu) \
	for ((cpu) = 0; (cpu) < PVMAP_SHIM_NR_CPUS; (cpu)++)

#endif
