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

/* Released maps of this aperture fault (per-CPU slots with clear-on-unmap). */
#define PVMAP_INFO_F_CLEARS_ON_UNMAP	0x01
/*
 * The kernel granted the aperture write-combining (PAT on). Without it,
 * every map (kernel and mmap) uses the memory type the kernel granted
 * instead, never WC over it: UC- when part of the aperture was already
 * reserved uncached, or everywhere when PAT is off.
 */
#define PVMAP_INFO_F_WRITE_COMBINING	0x02

/*
 * pvmap_io_mapping_map_local_wc() in task context leaves preemption and page
 * faults on, its maps taken off the CPU at each switch (the kernel has
 * preempt notifiers, or x86_64 maps the aperture whole). Without it a local
 * map is an atomic one.
 */
#define PVMAP_INFO_F_LOCAL_PREEMPTIBLE	0x04

/**
 * struct pvmap_info - what one /dev/pvmapN maps
 * @abi_version: PVMAP_ABI_VERSION of the module
 * @kind: enum pvmap_kind
 * @aperture_base: guest-physical address of the aperture BAR
 * @aperture_size: size of the aperture BAR in bytes
 * @vendor: PCI vendor id
 * @device: PCI device id
 * @bar: PCI BAR number of the aperture
 * @flags: PVMAP_INFO_F_*
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
	__u8 flags;
	__u8 pad[2];
	char pci_name[16];
};

/**
 * struct pvmap_rw - one PWRITE or PREAD
 * @offset: byte offset into the aperture
 * @length: bytes to copy; @offset + @length must not pass the aperture's end
 * @user_ptr: the user buffer, as an integer
 * @done: set by the module: bytes copied, which is less than @length only
 *	when the user buffer faulted at that point (nothing past it is written)
 *
 * The ioctl fails with EFAULT when not even the first byte could be copied.
 */
struct pvmap_rw {
	__u64 offset;
	__u64 length;
	__u64 user_ptr;
	__u64 done;
};

#define PVMAP_STATS_MAX_CPUS	16

/**
 * struct pvmap_stats - the io_mapping engine's counters, for all devices
 *
 * The counters start at the first read of them (this ioctl, debugfs
 * pvmap/stats, pvmapctl stats), so that they cost nothing until somebody
 * asks: that first read returns what was counted before it (zero).
 * @maps: atomic and sleepable maps made (not counting atomic maps into a
 *	whole-aperture mapping, which are address arithmetic inline in the
 *	caller, as mainline's are on x86_64)
 * @unmaps: maps released, counted as @maps are
 * @pte_writes: PTEs written, sets and clears
 * @local_flushes: TLB entries invalidated on the local CPU only
 * @remote_flushes: TLB entries invalidated on every CPU (pooled sleepable maps)
 * @batches: batches of PTE updates, one per map and unmap (natively, only
 *	those made in task context): each one hypercall batch through a
 *	hypervisor, a lazy-MMU section under Xen PV
 * @slow_path: PWRITE/PREAD chunks that faulted and took the sleepable path
 * @misuse: API calls refused with a WARN
 * @nr_cpus: entries of @live_slots in use
 * @pad: zero
 * @live_slots: atomic slots mapped now, per CPU
 */
struct pvmap_stats {
	__u64 maps;
	__u64 unmaps;
	__u64 pte_writes;
	__u64 local_flushes;
	__u64 remote_flushes;
	__u64 batches;
	__u64 slow_path;
	__u64 misuse;
	__u32 nr_cpus;
	__u32 pad;
	__u32 live_slots[PVMAP_STATS_MAX_CPUS];
};

#define PVMAP_IOC_MAGIC		'p'
#define PVMAP_IOC_INFO		_IOR(PVMAP_IOC_MAGIC, 0x01, struct pvmap_info)
#define PVMAP_IOC_PWRITE	_IOWR(PVMAP_IOC_MAGIC, 0x02, struct pvmap_rw)
#define PVMAP_IOC_PREAD		_IOWR(PVMAP_IOC_MAGIC, 0x03, struct pvmap_rw)
#define PVMAP_IOC_STATS		_IOR(PVMAP_IOC_MAGIC, 0x04, struct pvmap_stats)

#endif /* _UAPI_PVMAP_H */
