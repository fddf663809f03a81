/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PVMAP_SHIM_LINUX_STRING_H
#define PVMAP_SHIM_LINUX_STRING_H

#include <string.h>

#endif
