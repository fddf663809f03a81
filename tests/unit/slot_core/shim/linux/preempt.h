/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_PREEMPT_H
#define PVMAP_SHIM_LINUX_PREEMPT_H

#include <linux/irqflags.h>
#include <linux/percpu.h>

/* Nesting counts per CPU, so tests can assert every map was balanced. */
extern int pvmap_shim_preempt_count[PVMAP_SHIM_NR_CPUS];

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
#define preemptible()		(in_task() && !pvmap_shim_preempt_count[pvmap_shim_cpu] && \
				 !pvmap_shim_irqs_off[pvmap_shim_cpu])

/*
 * Where the scheduler may switch the running task out, as a preemptible
 * kernel's can: every pvmap_irq_point() and every preempt_enable() that
 * leaves the code preemptible(). There a test's pvmap_shim_switch_hook
 * runs (not re-entered while it does), which plays the scheduler: it calls
 * pvmap_shim_switch_to() (sched.h's tasks) to run another task on this CPU
 * and again to come back.
 */
extern void (*pvmap_shim_switch_hook)(void);
void pvmap_shim_preempt_point(void);
void pvmap_shim_preempt_enable(void);

#define preempt_disable()	(pvmap_shim_preempt_count[pvmap_shim_cpu]++)
#define preempt_enable()	pvmap_shim_preempt_enable()

/* current's migration-disable nesting (sched.h); a WARN when it goes below 0 */
void migrate_disable(void);
void migrate_enable(void);

struct task_struct;
/* The running task switched out and @next switched in on this CPU, with their notifiers. */
void pvmap_shim_switch_to(struct task_struct *next);

#ifdef CONFIG_PREEMPT_NOTIFIERS
struct preempt_notifier;

struct preempt_ops {
	void (*sched_in)(struct preempt_notifier *notifier, int cpu);
	void (*sched_out)(struct preempt_notifier *notifier, struct task_struct *next);
};

/* On its task's list (the kernel's hlist), newest first. */
struct preempt_notifier {
	struct preempt_notifier *next;
	struct preempt_ops *ops;
};

/*
 * The kernel's static key preempt_notifier_key: with it at 0 nothing is
 * fired, and a registration WARNs as the kernel's does. A notifier is
 * registered on current; an unregistration of one that is not on
 * current's list, or a second registration, WARNs (the kernel's would
 * corrupt a list).
 */
extern int pvmap_shim_preempt_notifier_key;
void preempt_notifier_inc(void);
void preempt_notifier_dec(void);
void preempt_notifier_register(struct preempt_notifier *notifier);
void preempt_notifier_unregister(struct preempt_notifier *notifier);

static inline void preempt_notifier_init(struct preempt_notifier *notifier,
					 struct preempt_ops *ops)
{
	notifier->next = NULL;
	notifier->ops = ops;
}
#endif

#endif
