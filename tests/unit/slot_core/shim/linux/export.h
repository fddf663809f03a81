/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_EXPORT_H
#define PVMAP_SHIM_LINUX_EXPORT_H

/* One program: nothing to export to. */
#define EXPORT_SYMBOL_GPL(sym)	extern int pvmap_shim_export_##sym

#endif
