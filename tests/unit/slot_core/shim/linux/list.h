/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_LIST_H
#define PVMAP_SHIM_LINUX_LIST_H

struct list_head {
	struct list_head *next, *prev;
};

#endif
