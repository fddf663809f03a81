/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_SCHED_H
#define PVMAP_SHIM_LINUX_SCHED_H

#include <linux/container_of.h>
#include <linux/preempt.h>

#define TASK_RUNNING		0x00000000
#define TASK_DEAD		0x00000080

/*
 * A task as far as the slot core sees one: its state (TASK_DEAD at its
 * last switch out), its preempt notifiers (registered on current, fired by
 * pvmap_shim_switch_to()), and its migrate_disable() nesting. Tests make
 * their own and switch between them on one CPU (preempt.h).
 */
struct task_struct {
	unsigned int __state;
	struct preempt_notifier *preempt_notifiers;
	int migration_disabled;
};

/* One running task for the whole program: tests switch only on one CPU. */
extern struct task_struct *pvmap_shim_current;
#define current		pvmap_shim_current

#endif
