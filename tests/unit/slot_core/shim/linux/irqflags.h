/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_IRQFLAGS_H
#define PVMAP_SHIM_LINUX_IRQFLAGS_H

#include <linux/percpu.h>

/* With interrupts off, pvmap_irq_point() lands none (shim.c). */
extern int pvmap_shim_irqs_off[PVMAP_SHIM_NR_CPUS];

#define local_irq_save(flags)	\
	do { (flags) = 0; pvmap_shim_irqs_off[pvmap_shim_cpu]++; } while (0)
#define local_irq_restore(flags)	\
	do { (void)(flags); pvmap_shim_irqs_off[pvmap_shim_cpu]--; } while (0)

#endif
