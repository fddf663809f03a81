/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the hypervisor backend's files (pvmap_pv.h), not an interface:
 * the channel that pvmap_pv_doorbell.c brings up, the synchronous call
 * every request to the hypervisor is, and each CPU's queue of requests
 * (pvmap_pv_multicall.c), which also numbers the CPU's calls.
 */
#ifndef PVMAP_PV_INTERNAL_H
#define PVMAP_PV_INTERNAL_H

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/percpu.h>
#include <linux/pgtable.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <xen/interface/xen.h>

#include <uapi/pvmap_hv.h>
#include <pvmap/io_mapping.h>

#include "pvmap_internal.h"

#define PVMAP_PV_QUEUE		(PVMAP_SLOTS_PER_CPU + PVMAP_IRQ_SLOTS)
#define PVMAP_PV_MAX_NESTING	8	/* task, softirq, hardirq, and room */

/**
 * struct pvmap_pv_queue - one CPU's updates and invalidations, in order
 * @upd: mmu_update requests
 * @ptep: the PTE each of @upd writes, to write it natively once the
 *	hypervisor is dead
 * @ext: mmuext_op requests
 * @entry: the multicall's entries: runs of one kind, in the order issued
 * @nupd: requests in @upd
 * @next: requests in @ext
 * @nentry: entries in @entry
 * @seq: number of this CPU's last request to the hypervisor
 * @depth: open batches on this CPU (an interrupt's nests in a task's)
 * @err: the first refusal in the innermost open batch
 * @outer_err: @err of each enclosing batch, kept while an inner one runs
 */
struct pvmap_pv_queue {
	struct mmu_update upd[PVMAP_PV_QUEUE];
	pte_t *ptep[PVMAP_PV_QUEUE];
	struct mmuext_op ext[PVMAP_PV_QUEUE];
	struct {
		u16 op, first, count;
	} entry[2 * PVMAP_PV_QUEUE];
	unsigned int nupd, next, nentry;
	u32 seq;
	unsigned int depth;
	int err;
	int outer_err[PVMAP_PV_MAX_NESTING];
};

/**
 * struct pvmap_pv_channel - the hypervisor channel
 * @pdev: the ivshmem-doorbell; NULL without a channel in use
 * @regs: its BAR0 registers, the doorbell's
 * @shm: its BAR2 shared memory: pvmap-hv's header, then a request area per vCPU
 * @nr_vcpus: the vCPUs the hypervisor serves, as HELLO answered
 * @dead: the hypervisor stopped answering, answered late too often,
 *	refused a clear, or its device went; for good. Read with interrupts
 *	off before @regs or @shm is touched: the device's removal sets it,
 *	then waits for every such section (pvmap_pv_release())
 * @why: why it is dead, for debugfs
 * @refused_clear: the error of the refused clear that ended it, or 0, said
 *	with @why (pvmap_pv_died())
 * @timeout_cycles: PVMAP_PV_TIMEOUT_MS in TSC cycles
 * @late_cycles: PVMAP_PV_LATE_MS in TSC cycles
 * @late_lock: protects @late_debt_ns and @late_at
 * @late_debt_ns: late answers' waits, less what drained since
 * @late_at: the TSC at the last late answer
 * @queues: each CPU's queue
 * @calls: calls answered
 * @refusals: multicalls with a refused entry
 * @registered: PTEs registered with the hypervisor
 * @late_calls: calls answered after PVMAP_PV_LATE_MS
 * @dead_wait_ns: spent waiting on calls never answered
 * @late_wait_ns: spent waiting on calls answered late
 */
struct pvmap_pv_channel {
	struct pci_dev *pdev;
	void __iomem *regs;
	void *shm;
	unsigned int nr_vcpus;
	bool dead;
	const char *why;
	int refused_clear;
	u64 timeout_cycles, late_cycles;
	raw_spinlock_t late_lock;
	u64 late_debt_ns, late_at;
	struct pvmap_pv_queue __percpu *queues;
	atomic_long_t calls, refusals, registered, late_calls;
	atomic64_t dead_wait_ns, late_wait_ns;
};

extern struct pvmap_pv_channel pvmap_pv;

/* @cpu's request area: after the header, one per vCPU. */
static inline struct pvmap_hv_request *pvmap_pv_area(unsigned int cpu)
{
	return pvmap_pv.shm + PVMAP_HV_AREA_SIZE * (1 + cpu);
}

/* A hypervisor's answer as an errno: 0, a negative errno, or -EPROTO for anything else. */
static inline int pvmap_pv_errno(s64 result)
{
	if (result && (result > 0 || result < -MAX_ERRNO))
		return -EPROTO;
	return result;
}

int pvmap_pv_call(struct pvmap_pv_queue *q, u32 op);
void pvmap_pv_died(const char *why);

#endif /* PVMAP_PV_INTERNAL_H */
