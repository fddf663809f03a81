// SPDX-License-Identifier: GPL-2.0
/*
 * A live guest's own page tables: the entries it registers with the stub,
 * and the shadow check of what it wrote there behind the stub's back.
 */
#include "pvstub_internal.h"

#include <errno.h>
#include <inttypes.h>

/* Mark a registered entry changed behind the stub's back (and reported), or not. */
void pvs_set_reported(struct pvstub *s, struct l1 *l, unsigned int idx, bool on)
{
	if (test_bit64(l->reported, idx) == on)
		return;
	assign_bit64(l->reported, idx, on);
	if (on)
		s->nreported++;
	else
		s->nreported--;
}

int pvstub_register_pte(struct pvstub *s, uint64_t va, uint64_t maddr, uint64_t *frame_mem)
{
	uint64_t frame = maddr >> 12, base = va & ~(L1_SPAN - 1), val;
	unsigned int idx = (unsigned int)((va >> 12) % L1_ENTRIES);
	struct l1 *l = pvs_l1_for_frame(s, frame), *by_va = pvs_l1_for_va(s, va);
	bool created = false;
	int64_t rc;

	/* the entry that maps @va in a PAE or 4-level table is at index (va >> 12) % 512 */
	if ((va & 0xfff) || (maddr & 7) || (maddr & 0xfff) / 8 != idx ||
	    !pvs_is_ram(s, frame) || !frame_mem)
		return -EINVAL;
	if (l != by_va || (l && (!l->mem || l->va != base)))
		return -EINVAL;		/* another table already maps this range */
	if (l && is_registered(l, idx))
		return 0;
	if (!l) {
		rc = pvs_add_table(s, base, frame, frame_mem, &l);
		if (rc)
			return (int)rc;
		created = true;
	}
	/*
	 * What the guest wrote there is adopted only as an update would be
	 * (alloc_l1_table() runs get_page_from_l1e() on each entry of a table
	 * being pinned): refused, or MMIO's cache bits flipped in place. The
	 * new table already counts: the entry may not map it writable.
	 */
	val = __atomic_load_n(&frame_mem[idx], __ATOMIC_ACQUIRE);
	rc = pvs_check_pte(s, val);
	if (rc >= 0 && !pvs_track(s, 0, val ^ (uint64_t)rc))
		rc = -ENOMEM;
	if (rc < 0) {
		s->counts.refused++;
		if (created)
			pvs_drop_table(s, l);
		return (int)rc;
	}
	if (rc) {
		val ^= (uint64_t)rc;
		__atomic_store_n(&frame_mem[idx], val, __ATOMIC_RELEASE);
	}
	assign_bit64(l->registered, idx, true);
	pvs_set_reported(s, l, idx, false);
	s->registered++;
	l->pte[idx] = val;
	l->set_by[idx] = 0;
	return 0;
}

int pvstub_unregister_pte(struct pvstub *s, uint64_t va, uint64_t maddr)
{
	unsigned int idx = (unsigned int)((va >> 12) % L1_ENTRIES);
	struct l1 *l = pvs_l1_for_frame(s, maddr >> 12);
	bool empty = true;

	if (!l || !l->mem || l->va != (va & ~(L1_SPAN - 1)) || (maddr & 0xfff) / 8 != idx ||
	    !is_registered(l, idx))
		return -EINVAL;
	pvs_track(s, l->pte[idx], 0);
	l->pte[idx] = 0;
	assign_bit64(l->registered, idx, false);
	pvs_set_reported(s, l, idx, false);
	s->registered--;
	for (unsigned int i = 0; i < L1_ENTRIES / 64; i++)
		empty &= !l->registered[i];
	if (empty)
		pvs_drop_table(s, l);
	return 0;
}

unsigned int pvstub_check_shadow_budget(struct pvstub *s, FILE *out, unsigned int *budget)
{
	unsigned int found = 0;

	for (size_t i = 0; i < s->nl1; i++) {
		struct l1 *l = s->l1[i];

		if (!l->mem)
			continue;
		for_each_held(l, j) {
			uint64_t now, va = l->va + ((uint64_t)j << 12);
			char how[160];

			if (test_bit64(l->reported, j))
				continue;
			s->counts.shadow_checked++;
			now = __atomic_load_n(&l->mem[j], __ATOMIC_ACQUIRE);
			/* the page walker sets accessed and dirty, as hardware does under Xen */
			if (!((now ^ l->pte[j]) & ~PTE_AD))
				continue;
			found++;
			s->counts.shadow_mismatches++;
			snprintf(how, sizeof(how), "PTE written behind the hypervisor's back: %#"
				 PRIx64 ", hypercall #%" PRIu64 " wrote %#" PRIx64, now,
				 l->set_by[j], l->pte[j]);
			pvs_record(s, NO_VCPU, va, PTE_FRAME(now), how);
			if (out && *budget) {
				fprintf(out, "shadow: va %#" PRIx64 ": %s\n", va, how);
				(*budget)--;
			}
			/* reported once; the shadow keeps what was validated */
			pvs_set_reported(s, l, j, true);
		}
	}
	return found;
}

unsigned int pvstub_check_shadow(struct pvstub *s, FILE *out)
{
	unsigned int budget = UINT32_MAX;

	return pvstub_check_shadow_budget(s, out, &budget);
}

unsigned int pvstub_registered(const struct pvstub *s)
{
	return s->registered;
}
