// SPDX-License-Identifier: GPL-2.0
/*
 * The hypervisor channel of the PTE layer's backend (pvmap_pv.h): pvmap-hv
 * behind QEMU's ivshmem-doorbell (include/uapi/pvmap_hv.h), found and
 * brought up at load, before any window, and the call every request to it
 * is. The requests are the multicall queue's (pvmap_pv_multicall.c) and
 * the registration of windows (pvmap_pv_register.c).
 *
 * A call is synchronous, as a hypercall is: the request is posted in this
 * vCPU's area of the shared memory, the doorbell rung, and the vCPU waits,
 * interrupts off, until the hypervisor marks it done.
 *
 * The hypervisor is trusted to be alive, not to be sane: every answer is
 * checked (a result is 0 or a negative errno, a count within what was
 * asked). One that does not answer within PVMAP_PV_TIMEOUT_MS is dead, for
 * good: the request it did not take is abandoned (a hypervisor that comes
 * back serves nothing of it), no call spins again, and every update from
 * then on, queued ones included, is written natively, so an unmap still
 * clears what the hypervisor had mapped. So is one whose late answers
 * (after PVMAP_PV_LATE_MS) have cost PVMAP_PV_LATE_BUDGET_MS of waiting in
 * all, one that refuses to clear a PTE (pvmap_pv_multicall.c), and one
 * whose device goes away: the doorbell is bound as a driver of its own,
 * whose remove ends the channel before the BARs are released.
 *
 * The wait is timed by the TSC against tsc_khz: it runs with interrupts
 * off whatever the clocksource, whereas on refined-jiffies the vCPU that
 * spins here may be the one that advances time, which then stops.
 */

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/irq_work.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/rcupdate.h>

#include <asm/tsc.h>

#include "pvmap_pv.h"
#include "pvmap_pv_internal.h"

static int pv = -1;
module_param(pv, int, 0444);
MODULE_PARM_DESC(pv, "PTE updates through the hypervisor channel: -1 when one is found (default), 0 never, 1 required");

DEFINE_STATIC_KEY_FALSE(pvmap_pv_on);
EXPORT_SYMBOL_FOR_PVMAP_TESTS(pvmap_pv_on);

/*
 * A call waits with interrupts off, as a hypercall does, so not for long:
 * a hypervisor that does not answer a call in this time is dead.
 */
#define PVMAP_PV_TIMEOUT_MS	250
/*
 * An answer after this is late. Each late answer's wait is a debt, which
 * drains at a tenth of the time that passes; once it is over the budget
 * the hypervisor is dead too. So one late on every call costs the guest
 * about the budget, not a bounded time per call; while lateness now and
 * then (a loaded host that deschedules the vCPU mid-call, which the TSC
 * counts as waiting too) drains away.
 */
#define PVMAP_PV_LATE_MS	20
#define PVMAP_PV_LATE_BUDGET_MS	1000
#define PVMAP_PV_LATE_DRAIN	10
/* HELLO, at load, waits with interrupts on, ringing again every 100 ms. */
#define PVMAP_PV_HELLO_TIMEOUT_MS	5000
#define PVMAP_PV_RING_MS	100

struct pvmap_pv_channel pvmap_pv;

/*
 * The channel is dead, @why: say so once; no call waits from now on, and
 * every update, queued ones included, is native.
 */
/*
 * Said from an irq_work: pvmap_pv_died() may be called from a local map's
 * switch out (pvmap_slots.c), with a runqueue locked, where a printk() can
 * wake a console waiter on it and deadlock.
 */
static void pvmap_pv_say_died(struct irq_work *work)
{
	int refused = READ_ONCE(pvmap_pv.refused_clear);

	pr_err("pvmap: the hypervisor %s: PTE updates are native from now on\n",
	       READ_ONCE(pvmap_pv.why));
	WARN_ONCE(refused, "pvmap: the hypervisor refused to clear a PTE (%d)\n", refused);
}

static struct irq_work pvmap_pv_died_work = IRQ_WORK_INIT(pvmap_pv_say_died);

void pvmap_pv_died(const char *why)
{
	if (cmpxchg(&pvmap_pv.why, NULL, why))
		return;
	/* @why first: whoever sees the channel dead can say why */
	smp_wmb();
	WRITE_ONCE(pvmap_pv.dead, true);
	irq_work_queue(&pvmap_pv_died_work);
}

static u64 pvmap_pv_cycles_to_ns(u64 cycles)
{
	return mul_u64_u32_div(cycles, USEC_PER_SEC, tsc_khz);
}

/*
 * A call answered after @cycles of waiting: a late one's wait is added to
 * the debt, less what drained since the last late one; the channel ends
 * once the debt passes the budget. Rare, so under a lock of its own.
 */
static void pvmap_pv_answered_after(u64 cycles)
{
	u64 now, ns = pvmap_pv_cycles_to_ns(cycles), drained;
	unsigned long flags;
	bool over;

	if (cycles <= pvmap_pv.late_cycles)
		return;
	atomic_long_inc(&pvmap_pv.late_calls);
	atomic64_add(ns, &pvmap_pv.late_wait_ns);
	raw_spin_lock_irqsave(&pvmap_pv.late_lock, flags);
	now = rdtsc_ordered();
	drained = now > pvmap_pv.late_at ?
		  div_u64(pvmap_pv_cycles_to_ns(now - pvmap_pv.late_at), PVMAP_PV_LATE_DRAIN) : 0;
	pvmap_pv.late_debt_ns = (pvmap_pv.late_debt_ns > drained ?
				 pvmap_pv.late_debt_ns - drained : 0) + ns;
	pvmap_pv.late_at = now;
	over = pvmap_pv.late_debt_ns > PVMAP_PV_LATE_BUDGET_MS * NSEC_PER_MSEC;
	raw_spin_unlock_irqrestore(&pvmap_pv.late_lock, flags);
	if (over)
		pvmap_pv_died("answered late (after " __stringify(PVMAP_PV_LATE_MS)
			      " ms) too often: " __stringify(PVMAP_PV_LATE_BUDGET_MS)
			      " ms of waiting owed");
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
 * Give request @seq up, unless the hypervisor has taken it (pvmap_hv.h): an
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
 * are off, and stay off until the caller has read the answer: a dead
 * channel's device may go once every such section has ended. After
 * PVMAP_PV_TIMEOUT_MS, or at once when another CPU has found the
 * hypervisor dead, a request it has not taken is abandoned; one it has
 * taken is its own until answered, waited for as long again at most. So
 * each CPU waits twice PVMAP_PV_TIMEOUT_MS at most, once in all; and late
 * answers PVMAP_PV_LATE_BUDGET_MS in all, plus one call's wait.
 * Return: its normalised result, or -EIO once the hypervisor is dead
 * (before the call, or by this one).
 */
int pvmap_pv_call(struct pvmap_pv_queue *q, u32 op)
{
	unsigned int cpu = smp_processor_id();
	struct pvmap_hv_request *req = pvmap_pv_area(cpu);
	u64 start = rdtsc_ordered(), waited = 0;
	u32 seq;

	lockdep_assert_irqs_disabled();
	if (READ_ONCE(pvmap_pv.dead))
		return -EIO;
	seq = pvmap_pv_post(q, req, op, cpu);
	for (;;) {
		/*
		 * The time, then the answer: a vCPU descheduled between the
		 * two (the TSC runs on) must not give up on an answer it got.
		 */
		waited = rdtsc_ordered() - start;
		if (READ_ONCE(req->done) == seq)
			break;
		if (((waited > pvmap_pv.timeout_cycles || READ_ONCE(pvmap_pv.dead)) &&
		     pvmap_pv_abandon(req, seq)) ||
		    (waited > 2 * pvmap_pv.timeout_cycles && READ_ONCE(req->done) != seq)) {
			/*
			 * Taken and never answered: a hypervisor stopped in the
			 * middle of serving it may still write late (pvmap_hv.h).
			 */
			pvmap_pv_died("did not answer in " __stringify(PVMAP_PV_TIMEOUT_MS) " ms");
			atomic64_add(pvmap_pv_cycles_to_ns(waited), &pvmap_pv.dead_wait_ns);
			return -EIO;
		}
		cpu_relax();
	}
	pvmap_pv_answered_after(waited);
	return pvmap_pv_answer(req);
}

/* One PING, the channel's round trip as this vCPU sees it: ns, or a negative errno. */
s64 pvmap_pv_ping(void)
{
	unsigned long flags;
	u64 t0, t1;
	int ret;

	if (!pvmap_pv.pdev)
		return -ENODEV;
	local_irq_save(flags);
	t0 = rdtsc_ordered();
	ret = pvmap_pv_call(this_cpu_ptr(pvmap_pv.queues), PVMAP_HV_PING);
	t1 = rdtsc_ordered();
	local_irq_restore(flags);
	return ret ?: (s64)pvmap_pv_cycles_to_ns(t1 - t0);
}
EXPORT_SYMBOL_FOR_PVMAP_TESTS(pvmap_pv_ping);

static int pvmap_pv_show(struct seq_file *s, void *unused)
{
	bool dead = READ_ONCE(pvmap_pv.dead);

	/* pvmap_pv_died(): @why is set before @dead */
	smp_rmb();
	seq_printf(s, "channel: %s\n", dead ? "dead" : "up");
	seq_printf(s, "vcpus: %u\n", pvmap_pv.nr_vcpus);
	seq_printf(s, "calls: %ld\n", atomic_long_read(&pvmap_pv.calls));
	seq_printf(s, "refusals: %ld\n", atomic_long_read(&pvmap_pv.refusals));
	seq_printf(s, "registered: %ld\n", atomic_long_read(&pvmap_pv.registered));
	seq_printf(s, "late_calls: %ld\n", atomic_long_read(&pvmap_pv.late_calls));
	seq_printf(s, "late_wait_ms: %llu\n",
		   div_u64(atomic64_read(&pvmap_pv.late_wait_ns), NSEC_PER_MSEC));
	seq_printf(s, "dead_wait_ms: %llu\n",
		   div_u64(atomic64_read(&pvmap_pv.dead_wait_ns), NSEC_PER_MSEC));
	if (dead)
		seq_printf(s, "why: the hypervisor %s\n", pvmap_pv.why);
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

	if (!boot_cpu_has(X86_FEATURE_TSC) || !tsc_khz)
		return "no TSC to time a call's wait with interrupts off";
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

/* The first ivshmem-doorbell, with a reference, or NULL. */
static struct pci_dev *pvmap_pv_find(void)
{
	struct pci_dev *pdev = NULL;

	while ((pdev = pci_get_device(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110, pdev)))
		if (pvmap_pv_is_doorbell(pdev))
			break;
	return pdev;
}

/*
 * Map the channel's doorbell and shared memory, in pvmap_pv, and check
 * that the hypervisor serves every possible CPU. What it set stays set on
 * failure, for pvmap_pv_unmap(). Return: 0, or a negative errno with *@why.
 */
static int pvmap_pv_map(struct pci_dev *pdev, const char **why)
{
	struct pvmap_hv_header *hdr;

	pvmap_pv.regs = pci_iomap(pdev, 0, 0);
	/* ivshmem's shared memory is RAM on the host: mapped cacheable */
	pvmap_pv.shm = memremap(pci_resource_start(pdev, 2), pci_resource_len(pdev, 2),
				MEMREMAP_WB);
	if (!pvmap_pv.regs || !pvmap_pv.shm) {
		*why = "out of memory or address space";
		return -ENOMEM;
	}
	hdr = pvmap_pv.shm;
	if (num_possible_cpus() > READ_ONCE(hdr->nr_vcpus) ||
	    pci_resource_len(pdev, 2) < PVMAP_HV_AREA_SIZE * (1 + (u64)num_possible_cpus())) {
		dev_warn(&pdev->dev, "the hypervisor serves %u vCPUs, this guest has %u\n",
			 READ_ONCE(hdr->nr_vcpus), num_possible_cpus());
		*why = "too few vCPUs served";
		return -EINVAL;
	}
	return 0;
}

/* What pvmap_pv_map() set of the device's, as far as it went. */
static void pvmap_pv_unmap(struct pci_dev *pdev)
{
	if (pvmap_pv.shm)
		memunmap(pvmap_pv.shm);
	if (pvmap_pv.regs)
		pci_iounmap(pdev, pvmap_pv.regs);
	pvmap_pv.shm = NULL;
	pvmap_pv.regs = NULL;
}

/* The module is going: the channel's device is unbound, not removed. */
static bool pvmap_pv_exiting;

/*
 * Give the channel's device back: its BARs unmapped and released. The
 * channel is dead first, and every section with interrupts off that may
 * have seen it alive (the only ones that touch @regs and @shm) has ended
 * before they go. The queues stay until the module goes: every update
 * still passes through them, natively.
 */
static void pvmap_pv_release(struct pci_dev *pdev)
{
	WRITE_ONCE(pvmap_pv.dead, true);
	synchronize_rcu();
	pvmap_pv_unmap(pdev);
	pci_release_region(pdev, 2);
	pci_release_region(pdev, 0);
	pci_disable_device(pdev);
	WRITE_ONCE(pvmap_pv.pdev, NULL);
	pci_dev_put(pdev);
}

/* Only the channel pvmap_pv_init() brought up: any other ivshmem is pvmap's to bind. */
static int pvmap_pv_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	return pdev == pvmap_pv.pdev ? 0 : -ENODEV;
}

/* Unbound at unload, or removed (hot-unplugged, unbound by hand) under a live guest. */
static void pvmap_pv_remove(struct pci_dev *pdev)
{
	if (!pvmap_pv_exiting)
		pvmap_pv_died("went away (its channel's device was removed)");
	pvmap_pv_release(pdev);
}

static const struct pci_device_id pvmap_pv_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },
	{ }
};

/*
 * The doorbell, bound: its removal reaches pvmap_pv_remove() before the
 * PCI core gives its BARs to anyone else.
 */
static struct pci_driver pvmap_pv_driver = {
	.name = "pvmap-hv",
	.id_table = pvmap_pv_ids,
	.probe = pvmap_pv_probe,
	.remove = pvmap_pv_remove,
};

/* Bind the channel's device to pvmap_pv_driver: 0, or a negative errno with *@why. */
static int pvmap_pv_bind(struct pci_dev *pdev, const char **why)
{
	int ret = pci_register_driver(&pvmap_pv_driver);

	if (ret) {
		*why = "its driver cannot be registered";
		return ret;
	}
	if (pdev->dev.driver != &pvmap_pv_driver.driver) {
		pci_unregister_driver(&pvmap_pv_driver);
		*why = "another driver holds it";
		return -EBUSY;
	}
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
	struct pci_dev *pdev;
	const char *why;
	int ret;

	if (!pv)
		return 0;
	pdev = pvmap_pv_find();
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
	raw_spin_lock_init(&pvmap_pv.late_lock);
	pvmap_pv.timeout_cycles = (u64)tsc_khz * PVMAP_PV_TIMEOUT_MS;
	pvmap_pv.late_cycles = (u64)tsc_khz * PVMAP_PV_LATE_MS;
	pvmap_pv.queues = alloc_percpu(struct pvmap_pv_queue);
	if (!pvmap_pv.queues) {
		ret = pvmap_pv_fail(pdev, "out of memory", -ENOMEM);
		goto err_put;
	}
	ret = pci_enable_device(pdev);
	if (ret) {
		ret = pvmap_pv_fail(pdev, "cannot enable it", ret);
		goto err_free;
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
	ret = pvmap_pv_map(pdev, &why);
	if (ret) {
		ret = pvmap_pv_fail(pdev, why, ret);
		goto err_unmap;
	}
	pvmap_pv.pdev = pdev;
	ret = pvmap_pv_hello();
	if (ret) {
		ret = pvmap_pv_fail(pdev, "HELLO was refused, not answered or answered wrong",
				    ret);
		goto err_unmap;
	}
	ret = pvmap_pv_bind(pdev, &why);
	if (ret) {
		ret = pvmap_pv_fail(pdev, why, ret);
		goto err_unmap;
	}
	static_branch_enable(&pvmap_pv_on);
	dev_info(&pdev->dev, "pvmap: PTE updates through the hypervisor (%u vCPUs served)\n",
		 pvmap_pv.nr_vcpus);
	return 1;

err_unmap:
	pvmap_pv.pdev = NULL;
	pvmap_pv_unmap(pdev);
	pci_release_region(pdev, 2);
err_release0:
	pci_release_region(pdev, 0);
err_disable:
	pci_disable_device(pdev);
err_free:
	free_percpu(pvmap_pv.queues);
err_put:
	pci_dev_put(pdev);
	memset(&pvmap_pv, 0, sizeof(pvmap_pv));
	return ret;
}

/* After every window is gone (and unregistered). */
void pvmap_pv_exit(void)
{
	if (!pvmap_pv.queues)
		return;
	/* its remove releases the device, unless a removal did already */
	pvmap_pv_exiting = true;
	pci_unregister_driver(&pvmap_pv_driver);
	pvmap_pv_exiting = false;
	static_branch_disable(&pvmap_pv_on);
	irq_work_sync(&pvmap_pv_died_work);
	free_percpu(pvmap_pv.queues);
	memset(&pvmap_pv, 0, sizeof(pvmap_pv));
}
