/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_BUG_H
#define PVMAP_SHIM_LINUX_BUG_H

#include <linux/types.h>

/* Counted, and printed as a kernel WARN would be, minus the stack. */
extern unsigned int pvmap_shim_warnings;
void pvmap_shim_warn(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define WARN(cond, ...) ({						\
	bool __warned = !!(cond);					\
	if (__warned)							\
		pvmap_shim_warn(__FILE__, __LINE__, __VA_ARGS__);	\
	__warned;							\
})

/* Once per call site, as the kernel's. */
#define WARN_ONCE(cond, ...) ({						\
	static bool __once;						\
	bool __warned = !!(cond);					\
	if (__warned && !__once) {					\
		__once = true;						\
		pvmap_shim_warn(__FILE__, __LINE__, __VA_ARGS__);	\
	}								\
	__warned;							\
})

#endif
