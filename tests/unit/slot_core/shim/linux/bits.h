/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_BITS_H
#define PVMAP_SHIM_LINUX_BITS_H

#define BIT(nr)		(1UL << (nr))

#endif
