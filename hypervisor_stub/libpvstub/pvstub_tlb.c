// SPDX-License-Identifier: GPL-2.0
/*
 * Each vCPU's TLB: filled by guest accesses (pvstub_access()), emptied only
 * by the invalidations the hypercalls ask for.
 */
#include "pvstub_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

static struct tlb_entry *tlb_find(const struct vcpu *v, uint64_t va)
{
	uint64_t i;

	return pvs_map_get(&v->index, va >> 12, &i) ? &v->tlb[i] : NULL;
}

static void tlb_drop(struct vcpu *v, uint64_t va)
{
	struct tlb_entry *t = tlb_find(v, va);

	if (!t)
		return;
	pvs_map_del(&v->index, va >> 12);
	*t = v->tlb[--v->n];
	if (t != &v->tlb[v->n])
		pvs_map_put(&v->index, t->va >> 12, (uint64_t)(t - v->tlb));
}

static void tlb_flush(struct vcpu *v)
{
	v->n = 0;
	if (v->index.n) {
		memset(v->index.key, 0xff, v->index.cap * sizeof(*v->index.key));
		v->index.n = 0;
	}
}

/* One invalidation (counted once): of @va, or whole TLBs, on the vCPUs in @mask. */
void pvs_flush_vcpus(struct pvstub *s, const bool *mask, uint64_t va, bool one)
{
	for (unsigned int v = 0; v < s->cfg.nr_vcpus; v++) {
		if (!mask[v])
			continue;
		if (one)
			tlb_drop(&s->vcpu[v], va & ~0xfffULL);
		else
			tlb_flush(&s->vcpu[v]);
	}
	if (one)
		s->counts.invlpg++;
	else
		s->counts.tlb_flush++;
}

int pvstub_access(struct pvstub *s, unsigned int vcpu, uint64_t va, bool write,
		  uint64_t *frame)
{
	struct tlb_entry *t;
	struct vcpu *v;
	struct l1 *l;
	uint64_t pte;
	char how[160];

	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	va &= ~0xfffULL;
	v = &s->vcpu[vcpu];
	t = tlb_find(v, va);
	if (t) {
		/* a write through a read-only entry faults, as on hardware */
		if (write && !t->writable)
			return -EFAULT;
		*frame = t->frame;
		if (pvs_is_revoked(s, *frame)) {
			pte = pvstub_pte(s, va);
			if ((pte & PTE_P) && PTE_FRAME(pte) == *frame)
				snprintf(how, sizeof(how),
					 "PTE written by hypercall #%" PRIu64 " was never cleared",
					 t->filled_from);
			else
				snprintf(how, sizeof(how),
					 "stale TLB entry: the PTE from hypercall #%" PRIu64
					 " changed without an invalidation on this vCPU",
					 t->filled_from);
			pvs_record(s, vcpu, va, *frame, how);
		}
		return 0;
	}
	pte = pvstub_pte(s, va);
	if (!(pte & PTE_P) || (write && !(pte & PTE_RW)))
		return -EFAULT;
	*frame = PTE_FRAME(pte);
	l = pvs_l1_for_va(s, va);
	if (pvs_grow((void **)&v->tlb, &v->cap, v->n + 1, sizeof(*v->tlb)) &&
	    pvs_map_put(&v->index, va >> 12, v->n)) {
		v->tlb[v->n++] = (struct tlb_entry){
			.va = va, .frame = *frame, .writable = pte & PTE_RW,
			.filled_from = l->set_by[(va - l->va) >> 12],
		};
	}
	if (pvs_is_revoked(s, *frame)) {
		snprintf(how, sizeof(how), "PTE written by hypercall #%" PRIu64 " was never cleared",
			 l->set_by[(va - l->va) >> 12]);
		pvs_record(s, vcpu, va, *frame, how);
	}
	return 0;
}
