/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_IRQ_WORK_H
#define PVMAP_SHIM_LINUX_IRQ_WORK_H

#include <stdbool.h>

/*
 * The kernel runs the work from an interrupt on this CPU once interrupts
 * are back on; the slot core only says things from it, so here it runs at
 * once.
 */
struct irq_work {
	void (*func)(struct irq_work *work);
};

static inline void init_irq_work(struct irq_work *work, void (*func)(struct irq_work *))
{
	work->func = func;
}

static inline bool irq_work_queue(struct irq_work *work)
{
	work->func(work);
	return true;
}

static inline void irq_work_sync(struct irq_work *work)
{
	(void)work;
}

#endif
