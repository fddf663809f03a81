/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thin stand-ins for the kernel headers guest/pvmap/pvmap_slots.c includes, so
 * that file compiles unchanged in user space against the hypervisor stub
 * (the way tools/testing/radix-tree/ builds lib/xarray.c). Only what the
 * slot core uses is here.
 */
#ifndef PVMAP_SHIM_LINUX_TYPES_H
#define PVMAP_SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef int32_t __s32;
typedef int64_t __s64;
typedef uint64_t resource_size_t;	/* as with PAE */

#define __iomem
#define __force
#define __percpu
#define __user

#define barrier()		__asm__ __volatile__("" : : : "memory")
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))

#endif
