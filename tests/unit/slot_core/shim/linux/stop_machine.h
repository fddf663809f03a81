/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_STOP_MACHINE_H
#define PVMAP_SHIM_LINUX_STOP_MACHINE_H

/* One thread: nothing else runs while @fn does. */
static inline int stop_machine(int (*fn)(void *), void *data, const void *cpus)
{
	(void)cpus;
	return fn(data);
}

#endif
