/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pvmap user ABI: the ioctls of /dev/pvmapN, shared by the guest module and
 * the tools. Fixed-width fields and explicit padding only, so i386 and x86_64
 * user space see one layout (checked by the static asserts at the end).
 */
#ifndef _UAPI_PVMAP_H
#define _UAPI_PVMAP_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define PVMAP_ABI_VERSION	1

/* What kind of virtual-GPU device exposes the aperture. */
enum pvmap_kind {
	PVMAP_KIND_UNKNOWN	= 0,
	PVMAP_KIND_IVSHMEM	= 1,	/* ivshmem-plain 1af4:1110, BAR2 */
	PVMAP_KIND_STDVGA	= 2,	/* std VGA / bochs-display 1234:1111, BAR0 */
	PVMAP_KIND_QXL		= 3,	/* qxl 1b36:0100, VRAM BAR (4 if present, else 1) */
};

/**
 * struct pvmap_info - what one /dev/pvmapN maps
 * @abi_version: PVMAP_ABI_VERSION of the module
 * @kind: enum pvmap_kind
 * @aperture_base: guest-physical address of the aperture BAR
 * @aperture_size: size of the aperture BAR in bytes
 * @vendor: PCI vendor id
 * @device: PCI device id
 * @bar: PCI BAR number of the aperture
 * @pad: zero
 * @pci_name: PCI address as "DDDD:BB:DD.F", NUL-terminated
 */
struct pvmap_info {
	__u32 abi_version;
	__u32 kind;
	__u64 aperture_base;
	__u64 aperture_size;
	__u16 vendor;
	__u16 device;
	__u8 bar;
	__u8 pad[3];
	char pci_name[16];
};

#define PVMAP_IOC_MAGIC		'p'
#define PVMAP_IOC_INFO		_IOR(PVMAP_IOC_MAGIC, 0x01, struct pvmap_info)

#endif /* _UAPI_PVMAP_H */
