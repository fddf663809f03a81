// SPDX-License-Identifier: GPL-2.0
/*
 * Multicalls (xen/common/multicall.c and its compat layer) and the lazy-MMU
 * queue that batches a vCPU's updates into one.
 */
#include "pvstub_internal.h"

#include <errno.h>

/*
 * One multicall entry, its arguments widened to 64 bits; @compat: a 32-bit
 * guest's (its mmuext_op layout, update_va_mapping's PTE in two halves).
 * Array and count arguments are guest addresses; -EFAULT when unreadable.
 */
static long multicall_entry(struct pvstub *s, unsigned int vcpu, uint64_t op,
			    const uint64_t *a, bool compat)
{
	unsigned int *done = a[2] ? pvs_guest_ptr(s, a[2], sizeof(*done)) : NULL;
	unsigned int count = (unsigned int)a[1];

	switch (op) {
	case __HYPERVISOR_mmu_update: {
		/* in 64 bits: on a 32-bit host count * 16 would wrap to a short, readable length */
		const struct mmu_update *req = pvs_guest_ptr(s, a[0], (uint64_t)count * sizeof(*req));

		if ((count && !req) || (a[2] && !done))
			return -EFAULT;
		return pvs_do_mmu_update(s, req, count, done, (unsigned int)a[3]);
	}
	case __HYPERVISOR_update_va_mapping:
		if (compat)
			return pvs_do_update_va_mapping(s, vcpu, a[0], a[1] | a[2] << 32, a[3], true);
		return pvs_do_update_va_mapping(s, vcpu, a[0], a[1], a[2], false);
	case __HYPERVISOR_mmuext_op: {
		struct mmuext_op ops[PVSTUB_MMUEXT_MAX];
		const void *p;

		if (count > PVSTUB_MMUEXT_MAX) {
			s->counts.refused++;
			return -E2BIG;	/* the model's limit, not Xen's (it preempts) */
		}
		p = pvs_guest_ptr(s, a[0], (uint64_t)count * (compat ?
			sizeof(struct pvstub_compat_mmuext_op) : sizeof(struct mmuext_op)));
		if ((count && !p) || (a[2] && !done))
			return -EFAULT;
		for (unsigned int i = 0; i < count; i++) {
			if (compat) {
				const struct pvstub_compat_mmuext_op *c =
					(const struct pvstub_compat_mmuext_op *)p + i;

				ops[i] = (struct mmuext_op){
					.cmd = c->cmd, .arg1.linear_addr = c->arg1,
					.arg2.vcpumask = (const void *)(uintptr_t)c->arg2,
				};
			} else {
				ops[i] = ((const struct mmuext_op *)p)[i];
			}
		}
		return pvs_do_mmuext_op(s, vcpu, ops, count, done, (unsigned int)a[3], compat);
	}
	default:
		s->counts.refused++;
		return -ENOSYS;
	}
}

/*
 * One entry of either layout (@compat: 32-bit fields), its arguments
 * widened. Entries run in order; a failed one sets only its own result
 * (xen/common/multicall.c).
 */
static long multicall_one(struct pvstub *s, unsigned int vcpu, uint64_t op, const void *args,
			  bool compat)
{
	uint64_t a[6];

	for (unsigned int j = 0; j < 6; j++)
		a[j] = compat ? ((const uint32_t *)args)[j] : ((const xen_ulong_t *)args)[j];
	s->counts.multicall_entries++;
	return multicall_entry(s, vcpu, op, a, compat);
}

int pvstub_multicall(struct pvstub *s, unsigned int vcpu, struct multicall_entry *call,
		     unsigned int nr)
{
	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	pvs_trap(s, &s->counts.multicall);
	for (unsigned int i = 0; i < nr; i++)
		call[i].result = (xen_ulong_t)multicall_one(s, vcpu, call[i].op, call[i].args, false);
	return 0;
}

int pvstub_multicall_compat(struct pvstub *s, unsigned int vcpu,
			    struct pvstub_compat_multicall_entry *call, unsigned int nr)
{
	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	pvs_trap(s, &s->counts.multicall);
	for (unsigned int i = 0; i < nr; i++)
		call[i].result = (uint32_t)multicall_one(s, vcpu, call[i].op, call[i].args, true);
	return 0;
}

/*
 * Append to @q's last entry when it is of @op, else start one: the index in
 * its array (*@n counts it) of the slot to fill, or -1 when that is full.
 */
static int queue_add(struct pvstub_queue *q, unsigned int op, unsigned int *n)
{
	if (*n == PVSTUB_QUEUE_MAX)
		return -1;
	if (q->nentry && q->entry[q->nentry - 1].op == op) {
		q->entry[q->nentry - 1].count++;
	} else {
		q->entry[q->nentry].op = op;
		q->entry[q->nentry].first = *n;
		q->entry[q->nentry++].count = 1;
	}
	return (int)(*n)++;
}

bool pvstub_queue_update(struct pvstub_queue *q, const struct mmu_update *u)
{
	int i = queue_add(q, __HYPERVISOR_mmu_update, &q->nupd);

	if (i >= 0)
		q->upd[i] = *u;
	return i >= 0;
}

bool pvstub_queue_mmuext(struct pvstub_queue *q, const struct mmuext_op *op)
{
	int i = queue_add(q, __HYPERVISOR_mmuext_op, &q->next);

	if (i >= 0)
		q->ext[i] = *op;
	return i >= 0;
}

/*
 * One multicall of @q's entries, in order; its arrays are this process's,
 * so it runs them directly rather than through the guest's addresses.
 */
unsigned int pvstub_queue_flush(struct pvstub *s, unsigned int vcpu, struct pvstub_queue *q)
{
	unsigned int refused = 0;

	if (q->nentry && vcpu >= s->cfg.nr_vcpus)
		refused = q->nentry;
	if (q->nentry && !refused) {
		pvs_trap(s, &s->counts.multicall);
		for (unsigned int i = 0; i < q->nentry; i++) {
			unsigned int first = q->entry[i].first, n = q->entry[i].count;
			int rc;

			s->counts.multicall_entries++;
			if (q->entry[i].op == __HYPERVISOR_mmu_update)
				rc = pvs_do_mmu_update(s, &q->upd[first], n, NULL, DOMID_SELF);
			else
				rc = pvs_do_mmuext_op(s, vcpu, &q->ext[first], n, NULL, DOMID_SELF,
						      false);
			refused += rc != 0;
		}
	}
	q->nupd = 0;
	q->next = 0;
	q->nentry = 0;
	return refused;
}
