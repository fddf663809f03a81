/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_MINMAX_H
#define PVMAP_SHIM_LINUX_MINMAX_H

#define min_t(type, a, b)	((type)(a) < (type)(b) ? (type)(a) : (type)(b))

#endif
