// SPDX-License-Identifier: GPL-2.0
/* State behind the kernel-header stand-ins in shim/linux/. */
#include <stdarg.h>
#include <stdio.h>

#include <linux/bug.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

unsigned int pvmap_shim_cpu;
bool pvmap_shim_kmalloc_fails;
unsigned int pvmap_shim_warnings;
unsigned int pvmap_shim_pr_warnings;
int pvmap_shim_preempt_count[PVMAP_SHIM_NR_CPUS];
int pvmap_shim_pagefault_disabled[PVMAP_SHIM_NR_CPUS];
void (*pvmap_shim_irq_hook)(void);
void (*pvmap_shim_switch_hook)(void);
bool pvmap_shim_in_irq;
int pvmap_shim_irqs_off[PVMAP_SHIM_NR_CPUS];

static struct task_struct pvmap_shim_init_task;
struct task_struct *pvmap_shim_current = &pvmap_shim_init_task;
static bool pvmap_shim_switching;

void pvmap_shim_preempt_point(void)
{
	if (!pvmap_shim_switch_hook || pvmap_shim_switching || !preemptible())
		return;
	pvmap_shim_switching = true;
	pvmap_shim_switch_hook();
	pvmap_shim_switching = false;
}

void pvmap_shim_irq_point(void)
{
	pvmap_shim_preempt_point();
	if (!pvmap_shim_irq_hook || pvmap_shim_in_irq || pvmap_shim_irqs_off[pvmap_shim_cpu])
		return;
	pvmap_shim_in_irq = true;
	pvmap_shim_irq_hook();
	pvmap_shim_in_irq = false;
}

/* As a preemptible kernel's: back to preemptible, the scheduler may run. */
void pvmap_shim_preempt_enable(void)
{
	if (!--pvmap_shim_preempt_count[pvmap_shim_cpu])
		pvmap_shim_preempt_point();
}

void migrate_disable(void)
{
	current->migration_disabled++;
}

void migrate_enable(void)
{
	if (!WARN(current->migration_disabled <= 0, "shim: migrate_enable() unbalanced\n"))
		current->migration_disabled--;
}

/*
 * The scheduler's switch on this CPU, as __schedule() makes it: preemption
 * off throughout; the outgoing task's notifiers told with interrupts off
 * (prepare_task_switch(), under the run queue's lock), the incoming one's
 * once they are on again (finish_task_switch()). A task switched out with
 * __state TASK_DEAD is never switched in again.
 */
void pvmap_shim_switch_to(struct task_struct *next)
{
	unsigned int cpu = pvmap_shim_cpu;
#ifdef CONFIG_PREEMPT_NOTIFIERS
	struct preempt_notifier *n;
#endif

	pvmap_shim_preempt_count[cpu]++;
	pvmap_shim_irqs_off[cpu]++;
#ifdef CONFIG_PREEMPT_NOTIFIERS
	if (pvmap_shim_preempt_notifier_key)
		for (n = current->preempt_notifiers; n; n = n->next)
			n->ops->sched_out(n, next);
#endif
	current = next;
	pvmap_shim_irqs_off[cpu]--;
#ifdef CONFIG_PREEMPT_NOTIFIERS
	if (pvmap_shim_preempt_notifier_key)
		for (n = current->preempt_notifiers; n; n = n->next)
			n->ops->sched_in(n, cpu);
#endif
	pvmap_shim_preempt_count[cpu]--;
}

#ifdef CONFIG_PREEMPT_NOTIFIERS
int pvmap_shim_preempt_notifier_key;

void preempt_notifier_inc(void)
{
	pvmap_shim_preempt_notifier_key++;
}

void preempt_notifier_dec(void)
{
	if (!WARN(pvmap_shim_preempt_notifier_key <= 0,
		  "shim: preempt_notifier_dec() unbalanced\n"))
		pvmap_shim_preempt_notifier_key--;
}

void preempt_notifier_register(struct preempt_notifier *notifier)
{
	struct preempt_notifier *n;

	WARN(!pvmap_shim_preempt_notifier_key,
	     "registering preempt_notifier while notifiers disabled\n");
	for (n = current->preempt_notifiers; n; n = n->next)
		if (WARN(n == notifier, "shim: a preempt notifier registered twice\n"))
			return;
	notifier->next = current->preempt_notifiers;
	current->preempt_notifiers = notifier;
}

void preempt_notifier_unregister(struct preempt_notifier *notifier)
{
	struct preempt_notifier **p;

	for (p = &current->preempt_notifiers; *p; p = &(*p)->next) {
		if (*p == notifier) {
			*p = notifier->next;
			notifier->next = NULL;
			return;
		}
	}
	WARN(1, "shim: unregistration of a preempt notifier not on the running task's list\n");
}
#endif

void pvmap_shim_warn(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	pvmap_shim_warnings++;
	fprintf(stderr, "# WARNING: CPU: %u at %s:%d: ", pvmap_shim_cpu, file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void pvmap_shim_pr_warn(const char *fmt, ...)
{
	va_list ap;

	pvmap_shim_pr_warnings++;
	fprintf(stderr, "# ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
