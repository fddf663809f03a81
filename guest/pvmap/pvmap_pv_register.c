// SPDX-License-Identifier: GPL-2.0
/*
 * The register protocol of the PTE layer's hypervisor backend
 * (pvmap_pv.h): each window's PTEs are registered with the hypervisor when
 * the window is made, as Xen's MMUEXT_PIN_L1_TABLE makes a table the
 * hypervisor's, and from then on only the hypervisor writes them
 * (pvmap_pv_multicall.c); unregistered when the window goes.
 */

#include <linux/irqflags.h>
#include <linux/minmax.h>
#include <linux/printk.h>
#include <linux/smp.h>

#include "pvmap_pv.h"
#include "pvmap_pv_internal.h"

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
	while (!ret && i < npages) {
		struct pvmap_hv_request *req;
		unsigned long flags;

		n = min_t(unsigned int, npages - i, PVMAP_HV_REGISTER_MAX);
		local_irq_save(flags);
		/* here, interrupts off: a dead channel's shared memory may be gone */
		if (READ_ONCE(pvmap_pv.dead)) {
			local_irq_restore(flags);
			break;
		}
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

	/*
	 * Not a reason to end the channel: that would leave every other
	 * window registered with it too (a dead channel unregisters nothing).
	 * The PTEs go back to vmalloc all the same; a hypervisor that kept
	 * them sees the kernel write them, and refuses a window made there
	 * later, which then fails to map, cleanly.
	 */
	if (ret)
		pr_err("pvmap: the hypervisor kept the PTEs of window %#lx: %d\n", va, ret);
}
