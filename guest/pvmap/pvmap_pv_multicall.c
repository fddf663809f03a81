// SPDX-License-Identifier: GPL-2.0
/*
 * The multicall queue of the PTE layer's hypervisor backend (pvmap_pv.h):
 * with a hypervisor channel (pvmap_pv_doorbell.c), pvmap never writes one
 * of its own PTEs. Every update and invalidation is queued on this CPU in
 * the order issued, as Linux's Xen multicall batches are
 * (arch/x86/xen/multicalls.c), and a batch's end sends the queue as one
 * Xen multicall of mmu_update and mmuext_op entries, in this kernel's own
 * Xen ABI layout (<xen/interface/xen.h>: the compat layout on i386).
 *
 * Once the call returns, the guest runs the acknowledged invlpg itself:
 * under HVM the vCPU's TLB is the guest's, and the hypervisor cannot reach
 * into it (a PV guest's Xen would). Once the hypervisor is dead, the queue
 * is run natively instead. Either way, with the PTE layer's own native
 * primitives (pvmap_pte_native.h).
 *
 * Every operation here toggles interrupts: a queue belongs to a CPU, and an
 * interrupt that maps nests its own batch inside the one it interrupted,
 * after sending what that one had queued. Natively none of this runs:
 * pvmap_pte.h's inline operations test the static key pvmap_pv_on
 * (pvmap_backend_active(), pvmap_pv.h) before they call a hook here.
 */

#include <linux/align.h>
#include <linux/bug.h>
#include <linux/irqflags.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "pvmap_pte_native.h"
#include "pvmap_pv.h"
#include "pvmap_pv_internal.h"

/* Where a multicall's entries start: after data[0] (their number) and data[1] (this offset). */
#define PVMAP_PV_CALLS_OFFSET	(offsetof(struct pvmap_hv_request, data) + 2 * sizeof(u64))

/*
 * @q's requests, in order, natively: the hypervisor is dead. Interrupts are
 * off. The PTE layer's native primitives, as it would have run them itself.
 * @clears_only: its clears and invalidations only, after the hypervisor
 * refused a batch with a clear in it: the updates it refused stay undone.
 */
static void pvmap_pv_native(struct pvmap_pv_queue *q, bool clears_only)
{
	unsigned int i, j;

	for (i = 0; i < q->nentry; i++) {
		for (j = q->entry[i].first; j < q->entry[i].first + q->entry[i].count; j++) {
			if (q->entry[i].op == __HYPERVISOR_mmu_update) {
				/* a clear, as the layer's: the present half first under PAE */
				if (!q->upd[j].val)
					pvmap_native_clear_pte(0, q->ptep[j]);
				else if (!clears_only)
					pvmap_native_set_pte(q->ptep[j], __pte(q->upd[j].val));
			} else {
				/* the caller of _ALL flushes the other CPUs itself */
				pvmap_native_flush_one(q->ext[j].arg1.linear_addr);
			}
		}
	}
}

/*
 * Whether a clear of @q left its PTE live, after the hypervisor refused the
 * batch (one that lies may have served it all the same).
 */
static bool pvmap_pv_clear_left_live(const struct pvmap_pv_queue *q)
{
	unsigned int i;

	for (i = 0; i < q->nupd; i++)
		if (!q->upd[i].val && !pte_none(*q->ptep[i]))
			return true;
	return false;
}

/*
 * Whether every update of @q, acknowledged by the hypervisor, is made: a
 * clear's PTE clear, a set's mapping the frame asked (its cache bits the
 * hypervisor's to adjust, as Xen does for MMIO), a non-present one as
 * asked. One that acknowledges what it did not make would leave an unmap's
 * PTE live, or a map's slot pointing nowhere.
 */
static bool pvmap_pv_all_made(const struct pvmap_pv_queue *q)
{
	unsigned int i;

	for (i = 0; i < q->nupd; i++) {
		pte_t want = __pte(q->upd[i].val), now = *q->ptep[i];

		if (!pte_present(want) ? pte_val(now) != pte_val(want) :
		    !pte_present(now) || pte_pfn(now) != pte_pfn(want))
			return false;
	}
	return true;
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
		if (pvmap_pv_clear_left_live(q))
			goto refused_clear;
	} else if (!pvmap_pv_all_made(q)) {
		goto lied;
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

lied:
	/* acknowledged and not made: the guest makes all of it, and is done with it */
	pvmap_pv_died("acknowledged a PTE update it did not make");
	goto native;
refused_clear:
	/*
	 * A clear refused and not made: the PTE would stay live behind an
	 * unmap, and the slot be found live by its next map. The guest clears
	 * it itself, and the hypervisor is done with: it no longer owns what
	 * the guest writes.
	 */
	WRITE_ONCE(pvmap_pv.refused_clear, ret);
	/* its WARN too, said after the runqueue lock a switch out may hold */
	pvmap_pv_died("refused to clear a PTE");
	pvmap_pv_native(q, true);
	goto empty;
native:
	pvmap_pv_native(q, false);
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
