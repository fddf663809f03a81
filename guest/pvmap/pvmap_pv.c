// SPDX-License-Identifier: GPL-2.0
/*
 * Paravirtualised PTE updates: with a hypervisor channel (pvmap-hv behind
 * QEMU's ivshmem-doorbell, include/pvmap/hv_abi.h), pvmap never writes one
 * of its own PTEs. Each window's entries are registered with the
 * hypervisor when it is made; every update and invalidation is queued on
 * this CPU in the order issued, as Linux's Xen multicall batches are
 * (arch/x86/xen/multicalls.c), and a batch's end sends the queue as one
 * Xen multicall of mmu_update and mmuext_op entries, in this kernel's own
 * Xen ABI layout (<xen/interface/xen.h>: the compat layout on i386).
 *
 * A call is synchronous, as a hypercall is: the request is posted in this
 * vCPU's area of the shared memory, the doorbell rung, and the vCPU waits,
 * interrupts off, until the hypervisor marks it done. Then the guest runs
 * the acknowledged invlpg itself: under HVM the vCPU's TLB is the guest's,
 * and the hypervisor cannot reach into it (a PV guest's Xen would).
 *
 * Every operation here toggles interrupts: a queue belongs to a CPU, and an
 * interrupt that maps nests its own batch inside the one it interrupted,
 * after sending what that one had queued. Natively none of this runs:
 * pvmap_pte.h's inline operations test the static key pvmap_pv_on
 * (pvmap_backend_active(), pvmap_pv.h) before they call a hook here.
 *
 * The hypervisor is trusted to be alive, not to be sane: every answer is
 * checked (a result is 0 or a negative errno, a count within what was
 * asked). One that does not answer within PVMAP_PV_TIMEOUT_NS is dead, for
 * good: the request it did not take is abandoned (a hypervisor that comes
 * back serves nothing of it), no call spins again, and every update from
 * then on, queued ones included, is written natively, so an unmap still
 * clears what the hypervisor had mapped.
 */

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>
#include <xen/interface/xen.h>

#include <pvmap/hv_abi.h>
#include <pvmap/io_mapping.h>

#include "pvmap_internal.h"
#include "pvmap_pte_native.h"
#include "pvmap_pv.h"

static int pv = -1;
module_param(pv, int, 0444);
MODULE_PARM_DESC(pv, "PTE updates through the hypervisor channel: -1 when one is found (default), 0 never, 1 required");

DEFINE_STATIC_KEY_FALSE(pvmap_pv_on);
EXPORT_SYMBOL_FOR_PVMAP_TESTS(pvmap_pv_on);

#define PVMAP_PV_QUEUE		(PVMAP_SLOTS_PER_CPU + PVMAP_IRQ_SLOTS)
#define PVMAP_PV_MAX_NESTING	8	/* task, softirq, hardirq, and room */
/*
 * A call waits with interrupts off, as a hypercall does, so not for long:
 * a hypervisor that does not answer a call in this time is dead.
 */
#define PVMAP_PV_TIMEOUT_NS	(250ULL * NSEC_PER_MSEC)
/* HELLO, at load, waits with interrupts on, ringing again every 100 ms. */
#define PVMAP_PV_HELLO_TIMEOUT_MS	5000
#define PVMAP_PV_RING_MS	100
/* Where a multicall's entries start: after data[0] (their number) and data[1] (this offset). */
#define PVMAP_PV_CALLS_OFFSET	(offsetof(struct pvmap_hv_request, data) + 2 * sizeof(u64))

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

static struct {
	struct pci_dev *pdev;
	void __iomem *regs;
	void *shm;
	unsigned int nr_vcpus;
	bool dead;
	struct pvmap_pv_queue __percpu *queues;
	atomic_long_t calls, refusals, registered;
	atomic64_t dead_wait_ns;	/* spent waiting on calls never answered */
} pvmap_pv;

static struct pvmap_hv_request *pvmap_pv_area(unsigned int cpu)
{
	return pvmap_pv.shm + PVMAP_HV_AREA_SIZE * (1 + cpu);
}

/* A hypervisor's answer as an errno: 0, a negative errno, or -EPROTO for anything else. */
static int pvmap_pv_errno(s64 result)
{
	if (result && (result > 0 || result < -MAX_ERRNO))
		return -EPROTO;
	return result;
}

/* The hypervisor stopped answering: say so once; no call waits from now on. */
static void pvmap_pv_died(void)
{
	if (!xchg(&pvmap_pv.dead, true))
		pr_err("pvmap: the hypervisor did not answer in %llu ms: PTE updates are native from now on\n",
		       PVMAP_PV_TIMEOUT_NS / NSEC_PER_MSEC);
}

/* Post this CPU's request (its data already written) and ring; its number. */
static u32 pvmap_pv_post(struct pvmap_pv_queue *q, struct pvmap_hv_request *req, u32 op,
			 unsigned int cpu)
{
	u32 seq = ++q->seq & PVMAP_HV_SEQ_MASK;

	q->seq = seq;
	req->op = op;
	/* The request, then its number: the hypervisor reads it once seq changes. */
	smp_wmb();
	WRITE_ONCE(req->seq, seq);
	writel(PVMAP_HV_PEER << 16 | cpu, pvmap_pv.regs + PVMAP_HV_DOORBELL);
	return seq;
}

static int pvmap_pv_answer(struct pvmap_hv_request *req)
{
	/* Its results, only after its completion (@done, read by the caller). */
	smp_rmb();
	atomic_long_inc(&pvmap_pv.calls);
	return pvmap_pv_errno(READ_ONCE(req->result));
}

/*
 * Give request @seq up, unless the hypervisor has taken it (hv_abi.h): an
 * abandoned request is never served, so nothing it asked for can land
 * after the native writes that follow. True if it is abandoned.
 */
static bool pvmap_pv_abandon(struct pvmap_hv_request *req, u32 seq)
{
	u32 done = READ_ONCE(req->done);

	/* owner bits of an older request (a reload after a give-up) are not this one's */
	if (done == seq || done == (seq | PVMAP_HV_TAKEN))
		return false;
	return cmpxchg(&req->done, done, seq | PVMAP_HV_ABANDONED) == done;
}

/*
 * Post this CPU's request and wait for it, as a hypercall does; interrupts
 * are off. After PVMAP_PV_TIMEOUT_NS, or at once when another CPU has
 * found the hypervisor dead, a request it has not taken is abandoned; one
 * it has taken is its own until answered, waited for as long again at
 * most. So each CPU waits twice PVMAP_PV_TIMEOUT_NS at most, once in all.
 * Return: its normalised result, or -EIO once the hypervisor is dead
 * (before the call, or by this one).
 */
static int pvmap_pv_call(struct pvmap_pv_queue *q, u32 op)
{
	unsigned int cpu = smp_processor_id();
	struct pvmap_hv_request *req = pvmap_pv_area(cpu);
	u64 start = ktime_get_mono_fast_ns();
	u32 seq;

	if (READ_ONCE(pvmap_pv.dead))
		return -EIO;
	seq = pvmap_pv_post(q, req, op, cpu);
	while (READ_ONCE(req->done) != seq) {
		u64 waited = ktime_get_mono_fast_ns() - start;

		if (((waited > PVMAP_PV_TIMEOUT_NS || READ_ONCE(pvmap_pv.dead)) &&
		     pvmap_pv_abandon(req, seq)) || waited > 2 * PVMAP_PV_TIMEOUT_NS) {
			/*
			 * Taken and never answered: a hypervisor stopped in the
			 * middle of serving it may still write late (hv_abi.h).
			 */
			pvmap_pv_died();
			atomic64_add(waited, &pvmap_pv.dead_wait_ns);
			return -EIO;
		}
		cpu_relax();
	}
	return pvmap_pv_answer(req);
}

/*
 * @q's requests, in order, natively: the hypervisor is dead. Interrupts are
 * off. The PTE layer's native primitives, as it would have run them itself.
 */
static void pvmap_pv_native(struct pvmap_pv_queue *q)
{
	unsigned int i, j;

	for (i = 0; i < q->nentry; i++) {
		for (j = q->entry[i].first; j < q->entry[i].first + q->entry[i].count; j++) {
			if (q->entry[i].op == __HYPERVISOR_mmu_update) {
				/* a clear, as the layer's: the present half first under PAE */
				if (q->upd[j].val)
					pvmap_native_set_pte(q->ptep[j], __pte(q->upd[j].val));
				else
					pvmap_native_clear_pte(0, q->ptep[j]);
			} else {
				/* the caller of _ALL flushes the other CPUs itself */
				pvmap_native_flush_one(q->ext[j].arg1.linear_addr);
			}
		}
	}
}

/*
 * Send @q as one multicall and empty it; then run its invalidations on
 * this CPU. Interrupts are off. A refused entry is kept in @q->err.
 */
static void pvmap_pv_issue(struct pvmap_pv_queue *q)
{
	struct pvmap_hv_request *req;
	struct multicall_entry *calls;
	unsigned int *done, i;
	size_t off;
	u8 *base;
	int ret;

	if (!q->nentry)
		return;
	if (READ_ONCE(pvmap_pv.dead))
		goto native;
	req = pvmap_pv_area(smp_processor_id());
	base = (u8 *)req;
	calls = (struct multicall_entry *)(base + PVMAP_PV_CALLS_OFFSET);
	done = (unsigned int *)(calls + q->nentry);
	off = (u8 *)(done + q->nentry) - base;
	for (i = 0; i < q->nentry; i++) {
		bool upd = q->entry[i].op == __HYPERVISOR_mmu_update;
		size_t size = upd ? sizeof(q->upd[0]) : sizeof(q->ext[0]);
		void *first = upd ? (void *)&q->upd[q->entry[i].first] :
				    (void *)&q->ext[q->entry[i].first];

		/* each entry's array 8-aligned, as Xen's guest handles of 64-bit fields are */
		off = ALIGN(off, 8);
		memcpy(base + off, first, q->entry[i].count * size);
		/* Xen's arguments, with offsets in this area for its guest addresses. */
		calls[i] = (struct multicall_entry){
			.op = q->entry[i].op,
			.args = { off, q->entry[i].count, (u8 *)&done[i] - base, DOMID_SELF },
		};
		done[i] = 0;
		off += q->entry[i].count * size;
	}
	req->data[0] = q->nentry;
	req->data[1] = PVMAP_PV_CALLS_OFFSET;
	ret = pvmap_pv_call(q, PVMAP_HV_MULTICALL);
	/* dead before or during this call: whatever it did, do all of it natively */
	if (READ_ONCE(pvmap_pv.dead))
		goto native;
	for (i = 0; !ret && i < q->nentry; i++)
		ret = pvmap_pv_errno((s64)calls[i].result);
	if (ret) {
		atomic_long_inc(&pvmap_pv.refusals);
		if (!q->err)
			q->err = ret;
	}
	/*
	 * The hypervisor has acknowledged them: now this vCPU's own TLB, with
	 * the layer's flush primitive (the hypervisor cannot reach it).
	 */
	for (i = 0; i < q->next; i++) {
		if (q->ext[i].cmd == MMUEXT_INVLPG_LOCAL)
			pvmap_native_flush_one(q->ext[i].arg1.linear_addr);
	}
	goto empty;

native:
	pvmap_pv_native(q);
empty:
	q->nupd = 0;
	q->next = 0;
	q->nentry = 0;
}

/* Whether one more request of @op fits in @q and in one request area. */
static bool pvmap_pv_room(const struct pvmap_pv_queue *q, unsigned int op)
{
	unsigned int entries = q->nentry + !(q->nentry && q->entry[q->nentry - 1].op == op);
	/* the entries, their done counters, then each entry's array 8-aligned */
	size_t bytes = PVMAP_PV_CALLS_OFFSET +
		       entries * (sizeof(struct multicall_entry) + sizeof(unsigned int) + 8) +
		       (q->nupd + 1) * sizeof(q->upd[0]) + (q->next + 1) * sizeof(q->ext[0]);

	return q->nupd < PVMAP_PV_QUEUE && q->next < PVMAP_PV_QUEUE &&
	       entries <= ARRAY_SIZE(q->entry) && bytes <= PVMAP_HV_AREA_SIZE;
}

/* Queue one request of @op at @index of its array; send now outside a batch. */
static void pvmap_pv_queued(struct pvmap_pv_queue *q, unsigned int op, unsigned int index)
{
	if (q->nentry && q->entry[q->nentry - 1].op == op) {
		q->entry[q->nentry - 1].count++;
	} else {
		q->entry[q->nentry].op = op;
		q->entry[q->nentry].first = index;
		q->entry[q->nentry++].count = 1;
	}
	if (!q->depth) {
		/* outside a batch nobody asks: the refusal is counted, and that is all */
		pvmap_pv_issue(q);
		q->err = 0;
	}
}

/* This CPU's queue, with room for one more request of @op; interrupts are off. */
static struct pvmap_pv_queue *pvmap_pv_queue_for(unsigned int op)
{
	struct pvmap_pv_queue *q = this_cpu_ptr(pvmap_pv.queues);

	if (!pvmap_pv_room(q, op))
		pvmap_pv_issue(q);
	return q;
}

void pvmap_pv_write(pte_t *ptep, pte_t pte)
{
	struct pvmap_pv_queue *q;
	unsigned long flags;

	local_irq_save(flags);
	q = pvmap_pv_queue_for(__HYPERVISOR_mmu_update);
	/* machine address = guest-physical: the hypervisor maps guest RAM 1:1 */
	q->upd[q->nupd] = (struct mmu_update){
		.ptr = __pa(ptep) | MMU_NORMAL_PT_UPDATE,
		.val = pte_val(pte),
	};
	q->ptep[q->nupd] = ptep;
	pvmap_pv_queued(q, __HYPERVISOR_mmu_update, q->nupd++);
	local_irq_restore(flags);
}
EXPORT_SYMBOL_FOR_PVMAP_TESTS(pvmap_pv_write);

/* @cmd: MMUEXT_INVLPG_LOCAL (also run here once acknowledged) or _ALL. */
void pvmap_pv_invlpg(unsigned int cmd, unsigned long va)
{
	struct pvmap_pv_queue *q;
	unsigned long flags;

	local_irq_save(flags);
	q = pvmap_pv_queue_for(__HYPERVISOR_mmuext_op);
	q->ext[q->next] = (struct mmuext_op){ .cmd = cmd, .arg1.linear_addr = va };
	pvmap_pv_queued(q, __HYPERVISOR_mmuext_op, q->next++);
	local_irq_restore(flags);
}
EXPORT_SYMBOL_FOR_PVMAP_TESTS(pvmap_pv_invlpg);

/*
 * A batch inside another (an interrupt's inside the task's it interrupted)
 * first sends what the outer one queued, so that each batch's end reports
 * the refusals of its own updates only.
 */
void pvmap_pv_begin(void)
{
	struct pvmap_pv_queue *q;
	unsigned long flags;

	local_irq_save(flags);
	q = this_cpu_ptr(pvmap_pv.queues);
	if (!WARN_ON_ONCE(q->depth >= PVMAP_PV_MAX_NESTING)) {
		if (q->depth)
			pvmap_pv_issue(q);
		q->outer_err[q->depth++] = q->err;
		q->err = 0;
	}
	local_irq_restore(flags);
}
EXPORT_SYMBOL_FOR_PVMAP_TESTS(pvmap_pv_begin);

/*
 * Every batch's end sends what is queued: an interrupt's map must be in
 * place before it returns. Return: 0, or the first refusal of an update
 * of this batch.
 */
int pvmap_pv_end(void)
{
	struct pvmap_pv_queue *q;
	unsigned long flags;
	int err;

	local_irq_save(flags);
	q = this_cpu_ptr(pvmap_pv.queues);
	pvmap_pv_issue(q);
	err = q->err;
	if (!WARN_ON_ONCE(!q->depth))
		q->err = q->outer_err[--q->depth];
	local_irq_restore(flags);
	return err;
}
EXPORT_SYMBOL_FOR_PVMAP_TESTS(pvmap_pv_end);

/* One PING, the channel's round trip as this vCPU sees it: ns, or a negative errno. */
s64 pvmap_pv_ping(void)
{
	unsigned long flags;
	u64 t0, t1;
	int ret;

	if (!pvmap_pv.pdev)
		return -ENODEV;
	local_irq_save(flags);
	t0 = ktime_get_mono_fast_ns();
	ret = pvmap_pv_call(this_cpu_ptr(pvmap_pv.queues), PVMAP_HV_PING);
	t1 = ktime_get_mono_fast_ns();
	local_irq_restore(flags);
	return ret ?: (s64)(t1 - t0);
}
EXPORT_SYMBOL_FOR_PVMAP_TESTS(pvmap_pv_ping);

/*
 * (UN)REGISTER the first @npages of the PTEs @ptes of the pages from @va,
 * in requests of PVMAP_HV_REGISTER_MAX; *@done: how many the hypervisor
 * took.
 */
static int pvmap_pv_register_op(unsigned long va, pte_t **ptes, u32 op, unsigned int npages,
				unsigned int *done)
{
	unsigned int i = 0, n, j;
	int ret = 0;

	/* a dead hypervisor owns nothing: the entries are the kernel's */
	while (!ret && i < npages && !READ_ONCE(pvmap_pv.dead)) {
		struct pvmap_hv_request *req;
		unsigned long flags;

		n = min_t(unsigned int, npages - i, PVMAP_HV_REGISTER_MAX);
		local_irq_save(flags);
		req = pvmap_pv_area(smp_processor_id());
		req->data[0] = n;
		for (j = 0; j < n; j++) {
			req->data[1 + 2 * j] = va + (i + j) * PAGE_SIZE;
			req->data[2 + 2 * j] = __pa(ptes[i + j]);
		}
		ret = pvmap_pv_call(this_cpu_ptr(pvmap_pv.queues), op);
		if (ret == -EIO && READ_ONCE(pvmap_pv.dead))
			ret = 0;	/* died: none of them is its any more */
		/* on failure the hypervisor says how many of this request it took */
		i += ret ? min_t(u64, READ_ONCE(req->data[0]), n) : n;
		local_irq_restore(flags);
	}
	if (READ_ONCE(pvmap_pv.dead))
		i = npages;
	*done = i;
	atomic_long_add(op == PVMAP_HV_REGISTER ? i : -(long)i, &pvmap_pv.registered);
	return ret;
}

/*
 * A window's PTEs, @ptes of its @npages pages from @va: all of them, or
 * none (what was taken before a refusal is given back).
 */
int pvmap_pv_register(unsigned long va, pte_t **ptes, unsigned int npages)
{
	unsigned int done, undone;
	int ret = pvmap_pv_register_op(va, ptes, PVMAP_HV_REGISTER, npages, &done);

	if (ret && done)
		pvmap_pv_register_op(va, ptes, PVMAP_HV_UNREGISTER, done, &undone);
	return ret;
}

void pvmap_pv_unregister(unsigned long va, pte_t **ptes, unsigned int npages)
{
	unsigned int done;
	int ret = pvmap_pv_register_op(va, ptes, PVMAP_HV_UNREGISTER, npages, &done);

	if (ret)
		pr_err("pvmap: the hypervisor kept the PTEs of window %#lx: %d\n", va, ret);
}

static int pvmap_pv_show(struct seq_file *s, void *unused)
{
	seq_printf(s, "channel: %s\n", pvmap_pv.dead ? "dead" : "up");
	seq_printf(s, "vcpus: %u\n", pvmap_pv.nr_vcpus);
	seq_printf(s, "calls: %ld\n", atomic_long_read(&pvmap_pv.calls));
	seq_printf(s, "refusals: %ld\n", atomic_long_read(&pvmap_pv.refusals));
	seq_printf(s, "registered: %ld\n", atomic_long_read(&pvmap_pv.registered));
	seq_printf(s, "dead_wait_ms: %llu\n",
		   div_u64(atomic64_read(&pvmap_pv.dead_wait_ns), NSEC_PER_MSEC));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pvmap_pv);

/* debugfs pvmap/pv: the channel's state and counts, when there is one. */
void pvmap_pv_debugfs_add(struct dentry *root)
{
	if (pvmap_pv.pdev)
		debugfs_create_file("pv", 0400, root, NULL, &pvmap_pv_fops);
}

/*
 * The channel is an ivshmem-doorbell: the same IDs as ivshmem-plain, but
 * with the MSI-X BAR1. An aperture is ivshmem-plain, so a doorbell is never
 * one, whether it is pvmap-hv's, usable here, or neither.
 */
static bool pvmap_pv_is_doorbell(struct pci_dev *pdev)
{
	return pci_resource_len(pdev, 1) != 0;
}

/* Not an aperture, whether in use (pv=0, or unusable) or not. */
bool pvmap_pv_owns(struct pci_dev *pdev)
{
	return pdev == pvmap_pv.pdev || pvmap_pv_is_doorbell(pdev);
}

/*
 * Why the doorbell @pdev cannot be pvmap-hv's channel here, or NULL.
 * Its shared memory must be reachable: on i386, 6.1's ioremap() and
 * memremap() drop the address bits above 4 GiB (PAGE_MASK is an unsigned
 * long), so a BAR2 there would be read at the wrong address.
 */
static const char *pvmap_pv_unusable(struct pci_dev *pdev)
{
	struct pvmap_hv_header __iomem *hdr;
	bool ours;

	if (pci_resource_len(pdev, 2) < 2 * PVMAP_HV_AREA_SIZE ||
	    !(pci_resource_flags(pdev, 2) & IORESOURCE_MEM))
		return "its BAR2 is no shared memory of a request area";
	if (IS_ENABLED(CONFIG_X86_32) && pci_resource_end(pdev, 2) > U32_MAX)
		return "its BAR2 is above 4 GiB, which this kernel's ioremap() cannot reach";
	hdr = ioremap(pci_resource_start(pdev, 2), sizeof(*hdr));
	if (!hdr)
		return "its BAR2 cannot be mapped";
	ours = readl(&hdr->magic) == PVMAP_HV_MAGIC && readl(&hdr->version) == PVMAP_HV_VERSION;
	iounmap(hdr);
	return ours ? NULL : "no pvmap-hv (version " __stringify(PVMAP_HV_VERSION) ") signed it";
}

/*
 * Say hello (the guest's ABI) and learn the vCPUs served. Before any
 * window, so nothing else uses the request area: it waits with interrupts
 * on, ringing again every PVMAP_PV_RING_MS, since QEMU may not pass the
 * first ring on until it has set up the doorbell's peer.
 */
static int pvmap_pv_hello(void)
{
	struct pvmap_hv_request *req;
	unsigned int cpu, waited;
	u32 seq;
	int ret;

	for_each_possible_cpu(cpu) {
		/* a reloaded module goes on from the last request the hypervisor saw */
		per_cpu_ptr(pvmap_pv.queues, cpu)->seq = READ_ONCE(pvmap_pv_area(cpu)->done) &
							 PVMAP_HV_SEQ_MASK;
	}
	cpu = get_cpu();
	req = pvmap_pv_area(cpu);
	req->data[0] = BITS_PER_LONG;
	/* under HVM the vCPU reads PTEs with its own PAT, not Xen's */
	req->data[1] = boot_cpu_has(X86_FEATURE_PAT) ? native_read_msr(MSR_IA32_CR_PAT) : 0;
	seq = pvmap_pv_post(per_cpu_ptr(pvmap_pv.queues, cpu), req, PVMAP_HV_HELLO, cpu);
	put_cpu();
	for (waited = 0; READ_ONCE(req->done) != seq; waited += PVMAP_PV_RING_MS) {
		/* not taken: never served; taken: the daemon is alive, wait on */
		if (waited >= PVMAP_PV_HELLO_TIMEOUT_MS && pvmap_pv_abandon(req, seq))
			return -ETIMEDOUT;
		if (waited >= 2 * PVMAP_PV_HELLO_TIMEOUT_MS)
			return -ETIMEDOUT;
		msleep(PVMAP_PV_RING_MS);
		writel(PVMAP_HV_PEER << 16 | cpu, pvmap_pv.regs + PVMAP_HV_DOORBELL);
	}
	ret = pvmap_pv_answer(req);
	if (ret)
		return ret;
	pvmap_pv.nr_vcpus = READ_ONCE(req->data[0]);
	if (pvmap_pv.nr_vcpus < num_possible_cpus() || pvmap_pv.nr_vcpus > PVMAP_HV_MAX_VCPUS)
		return -EPROTO;
	return 0;
}

/*
 * Why the channel @pdev cannot be brought up: a message for the log, with
 * @err as its errno; native PTE writes follow unless pv=1.
 */
static int pvmap_pv_fail(struct pci_dev *pdev, const char *why, int err)
{
	if (pv > 0) {
		dev_err(&pdev->dev, "pvmap: pv=1, but the hypervisor channel is unusable: %s (%d)\n",
			why, err);
		return err;
	}
	dev_warn(&pdev->dev, "pvmap: the hypervisor channel is unusable: %s (%d); PTE updates are native\n",
		 why, err);
	return 0;
}

/*
 * Find and bring up the channel before any window exists, so that every
 * window is registered. Return: 1 with a channel in use; 0 without one,
 * or with one that is unusable unless pv=1 asks for it; else a negative
 * errno.
 */
int pvmap_pv_init(void)
{
	struct pci_dev *pdev = NULL;
	struct pvmap_hv_header *hdr;
	const char *why;
	int ret;

	if (!pv)
		return 0;
	while ((pdev = pci_get_device(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110, pdev)))
		if (pvmap_pv_is_doorbell(pdev))
			break;
	if (!pdev) {
		if (pv > 0)
			pr_err("pvmap: pv=1 but no hypervisor channel (pvmap-hv's ivshmem-doorbell)\n");
		return pv > 0 ? -ENODEV : 0;
	}
	why = pvmap_pv_unusable(pdev);
	if (why) {
		ret = pvmap_pv_fail(pdev, why, -ENODEV);
		goto err_put;
	}
	if (IS_ENABLED(CONFIG_X86_32) && !IS_ENABLED(CONFIG_X86_PAE)) {
		ret = pvmap_pv_fail(pdev,
				    "Xen's PV MMU has no 2-level page tables: a PAE kernel is needed",
				    -EOPNOTSUPP);
		goto err_put;
	}
	ret = pci_enable_device(pdev);
	if (ret) {
		ret = pvmap_pv_fail(pdev, "cannot enable it", ret);
		goto err_put;
	}
	ret = pci_request_region(pdev, 0, "pvmap-hv");
	if (ret) {
		ret = pvmap_pv_fail(pdev, "its BAR0 is taken", ret);
		goto err_disable;
	}
	ret = pci_request_region(pdev, 2, "pvmap-hv");
	if (ret) {
		ret = pvmap_pv_fail(pdev, "its BAR2 is taken", ret);
		goto err_release0;
	}
	pvmap_pv.regs = pci_iomap(pdev, 0, 0);
	/* ivshmem's shared memory is RAM on the host: mapped cacheable */
	pvmap_pv.shm = memremap(pci_resource_start(pdev, 2), pci_resource_len(pdev, 2),
				MEMREMAP_WB);
	pvmap_pv.queues = alloc_percpu(struct pvmap_pv_queue);
	if (!pvmap_pv.regs || !pvmap_pv.shm || !pvmap_pv.queues) {
		ret = pvmap_pv_fail(pdev, "out of memory or address space", -ENOMEM);
		goto err_unmap;
	}
	hdr = pvmap_pv.shm;
	if (num_possible_cpus() > READ_ONCE(hdr->nr_vcpus) ||
	    pci_resource_len(pdev, 2) < PVMAP_HV_AREA_SIZE * (1 + (u64)num_possible_cpus())) {
		dev_warn(&pdev->dev, "the hypervisor serves %u vCPUs, this guest has %u\n",
			 READ_ONCE(hdr->nr_vcpus), num_possible_cpus());
		ret = pvmap_pv_fail(pdev, "too few vCPUs served", -EINVAL);
		goto err_unmap;
	}
	pvmap_pv.pdev = pdev;
	ret = pvmap_pv_hello();
	if (ret) {
		ret = pvmap_pv_fail(pdev, "HELLO was refused, not answered or answered wrong",
				    ret);
		goto err_unmap;
	}
	static_branch_enable(&pvmap_pv_on);
	dev_info(&pdev->dev, "pvmap: PTE updates through the hypervisor (%u vCPUs served)\n",
		 pvmap_pv.nr_vcpus);
	return 1;

err_unmap:
	pvmap_pv.pdev = NULL;
	free_percpu(pvmap_pv.queues);
	if (pvmap_pv.shm)
		memunmap(pvmap_pv.shm);
	if (pvmap_pv.regs)
		pci_iounmap(pdev, pvmap_pv.regs);
	pci_release_region(pdev, 2);
err_release0:
	pci_release_region(pdev, 0);
err_disable:
	pci_disable_device(pdev);
err_put:
	pci_dev_put(pdev);
	memset(&pvmap_pv, 0, sizeof(pvmap_pv));
	return ret;
}

/* After every window is gone (and unregistered). */
void pvmap_pv_exit(void)
{
	struct pci_dev *pdev = pvmap_pv.pdev;

	if (!pdev)
		return;
	static_branch_disable(&pvmap_pv_on);
	free_percpu(pvmap_pv.queues);
	memunmap(pvmap_pv.shm);
	pci_iounmap(pdev, pvmap_pv.regs);
	pci_release_region(pdev, 2);
	pci_release_region(pdev, 0);
	pci_disable_device(pdev);
	pci_dev_put(pdev);
	memset(&pvmap_pv, 0, sizeof(pvmap_pv));
}
