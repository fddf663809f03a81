/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_PREEMPT_H
#define PVMAP_SHIM_LINUX_PREEMPT_H

#include <linux/percpu.h>

/* Nesting counts per CPU, so tests can assert every map was balanced. */
extern int pvmap_shim_preempt_count[PVMAP_SHIM_NR_CPUS];

#define preempt_disable()	(pvmap_shim_preempt_count[pvmap_shim_cpu]++)
#define preempt_enable()	(pvmap_shim_preempt_count[pvmap_shim_cpu]--)

/*
 * Where the slot core can be interrupted (guest/pvmap/pvmap_internal.h): a test
 * sets pvmap_shim_irq_hook to run an "interrupt" there. While it runs,
 * pvmap_shim_in_irq is set (the PTE layer does not batch in interrupts, as
 * the kernel's checks in_task()), and the hook is not re-entered.
 */
extern void (*pvmap_shim_irq_hook)(void);
extern bool pvmap_shim_in_irq;
void pvmap_shim_irq_point(void);
#define pvmap_irq_point()	pvmap_shim_irq_point()
#define in_task()		(!pvmap_shim_in_irq)
#define preemptible()		(in_task() && !pvmap_shim_preempt_count[pvmap_shim_cpu])

#endif
