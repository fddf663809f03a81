// SPDX-License-Identifier: GPL-2.0
/* State behind the kernel-header stand-ins in shim/linux/. */
#include <stdarg.h>
#include <stdio.h>

#include <linux/bug.h>
#include <linux/preempt.h>
#include <linux/uaccess.h>

unsigned int pvmap_shim_cpu;
unsigned int pvmap_shim_warnings;
int pvmap_shim_preempt_count[PVMAP_SHIM_NR_CPUS];
int pvmap_shim_pagefault_disabled[PVMAP_SHIM_NR_CPUS];
void (*pvmap_shim_irq_hook)(void);
bool pvmap_shim_in_irq;
int pvmap_shim_irqs_off[PVMAP_SHIM_NR_CPUS];

void pvmap_shim_irq_point(void)
{
	if (!pvmap_shim_irq_hook || pvmap_shim_in_irq || pvmap_shim_irqs_off[pvmap_shim_cpu])
		return;
	pvmap_shim_in_irq = true;
	pvmap_shim_irq_hook();
	pvmap_shim_in_irq = false;
}

void pvmap_shim_warn(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	pvmap_shim_warnings++;
	fprintf(stderr, "# WARNING: CPU: %u at %s:%d: ", pvmap_shim_cpu, file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
