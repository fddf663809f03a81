/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hypercall channel between a guest and pvmap-hv (hypervisor_stub/):
 * QEMU's ivshmem-doorbell device, whose shared memory (BAR2) pvmap-hv
 * creates and lays out as below, and whose doorbell (BAR0 + 12) the guest
 * rings with (PVMAP_HV_PEER << 16 | vCPU) after posting a request in its
 * vCPU's area. pvmap-hv takes the request, completes it and sets @done to
 * @seq; the guest waits for that, as a hypercall returns only when it is
 * done.
 *
 * Shared by the daemon and the guest: fixed-size types only, little endian.
 */
#ifndef _UAPI_PVMAP_HV_H
#define _UAPI_PVMAP_HV_H

#include <linux/types.h>

#define PVMAP_HV_MAGIC		0x76687670	/* "pvhv", written by the daemon */
#define PVMAP_HV_VERSION	2
#define PVMAP_HV_PEER		0	/* the daemon's ivshmem peer ID */
#define PVMAP_HV_DOORBELL	12	/* BAR0 offset of the doorbell register */
#define PVMAP_HV_AREA_SIZE	4096	/* one request area per vCPU, after the header */
#define PVMAP_HV_MAX_VCPUS	8

/**
 * struct pvmap_hv_header - the first page of the shared memory
 * @magic: PVMAP_HV_MAGIC once the daemon is serving
 * @version: PVMAP_HV_VERSION
 * @nr_vcpus: request areas (and doorbell vectors) that follow
 * @area_size: bytes per request area
 * @calls: requests completed, all vCPUs
 */
struct pvmap_hv_header {
	__u32 magic;
	__u32 version;
	__u32 nr_vcpus;
	__u32 area_size;
	__u64 calls;
};

/*
 * Requests. Offsets are bytes from the start of the vCPU's request area;
 * they stand for guest addresses wherever Xen's ABI has one (a multicall's
 * argument arrays and done counters), so a request never points outside
 * its own area.
 */
enum pvmap_hv_op {
	PVMAP_HV_PING = 1,	/* nothing: the channel's round trip */
	/*
	 * data[0]: the guest's ABI, the bits of its unsigned long (32: Xen's
	 * compat layout, 64); data[1]: its IA32_PAT, which its PTEs' cache
	 * bits index (0: Xen's). Answers data[0]: vCPUs served, data[1]: RAM
	 * frames.
	 */
	PVMAP_HV_HELLO = 2,
	/*
	 * data[0]: n, then n pairs (data[1 + 2i]: va, data[2 + 2i]: the
	 * machine address of the PTE that maps va): these entries are the
	 * hypervisor's from now on, as MMUEXT_PIN_L1_TABLE makes a whole
	 * table. On failure data[0] is the number done.
	 */
	PVMAP_HV_REGISTER = 3,
	PVMAP_HV_UNREGISTER = 4,	/* the same pairs, given back */
	/*
	 * data[0]: n, data[1]: offset of n struct multicall_entry in the
	 * guest's layout; their results are written back in place.
	 */
	PVMAP_HV_MULTICALL = 5,
};

#define PVMAP_HV_REGISTER_MAX	((PVMAP_HV_AREA_SIZE - 24) / 16)

/*
 * Who owns a posted request, in @done's top bits. The daemon takes it by
 * compare-and-exchange of @done to @seq | PVMAP_HV_TAKEN before it reads
 * it; a guest that stopped waiting abandons it by the same exchange to
 * @seq | PVMAP_HV_ABANDONED. Exactly one of them wins: an abandoned request
 * is never served, so a daemon that comes back late writes nothing over
 * what the guest has written natively since. A request taken is the
 * daemon's until @done == @seq. Request numbers are PVMAP_HV_SEQ_MASK's
 * bits. Both exchanges must be atomic across the guest and the daemon's
 * process: under QEMU, KVM or multi-threaded TCG (2 or more vCPUs), whose
 * guest cmpxchg is a host atomic; single-threaded TCG's is not.
 */
#define PVMAP_HV_TAKEN		0x80000000u
#define PVMAP_HV_ABANDONED	0x40000000u
#define PVMAP_HV_SEQ_MASK	0x3fffffffu

/**
 * struct pvmap_hv_request - a vCPU's request area, at 4096 * (1 + vCPU)
 * @seq: the guest's number of this request, written last when posting
 * @done: set to @seq by the daemon when the request is complete; the
 *	owner bits above while it is in flight
 * @op: enum pvmap_hv_op
 * @result: 0 or a negative errno, valid once @done == @seq
 * @data: the request's arguments and results
 */
struct pvmap_hv_request {
	__u32 seq;
	__u32 done;
	__u32 op;
	__s32 result;
	__u64 data[(PVMAP_HV_AREA_SIZE - 16) / 8];
};

#endif /* _UAPI_PVMAP_HV_H */
