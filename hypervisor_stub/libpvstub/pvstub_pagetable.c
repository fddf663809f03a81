// SPDX-License-Identifier: GPL-2.0
/*
 * The page tables: L1 frames found by frame and by VA, their type and
 * reference counts (get_page_type()/put_page_type() of PGT_l1_page_table and
 * PGT_writable_page), and Xen's mod_l1_entry(), the one writer of an entry.
 */
#include "pvstub_internal.h"

#include <errno.h>
#include <stdlib.h>

struct l1 *pvs_l1_for_va(const struct pvstub *s, uint64_t va)
{
	uint64_t p;

	return pvs_map_get(&s->by_va, va >> L1_SHIFT, &p) ? (struct l1 *)(uintptr_t)p : NULL;
}

struct l1 *pvs_l1_for_frame(const struct pvstub *s, uint64_t frame)
{
	uint64_t p;

	return pvs_map_get(&s->by_frame, frame, &p) ? (struct l1 *)(uintptr_t)p : NULL;
}

/* Held entries that map @frame writable: a PGT_writable_page type count. */
static uint64_t writable_refs(const struct pvstub *s, uint64_t frame)
{
	uint64_t n = 0;

	pvs_map_get(&s->writable, frame, &n);
	return n;
}

bool pvs_maps_writable(uint64_t pte)
{
	return (pte & (PTE_P | PTE_RW)) == (PTE_P | PTE_RW);
}

/* One more (@delta 1) or one fewer (-1) reference to @frame in @m. */
bool pvs_count_ref(struct map *m, uint64_t frame, int delta)
{
	uint64_t n = 0;

	pvs_map_get(m, frame, &n);
	if (delta > 0)
		return pvs_map_put(m, frame, n + 1);
	if (n > 1)
		pvs_map_put(m, frame, n - 1);
	else
		pvs_map_del(m, frame);
	return true;
}

/*
 * A held entry changes from @old to @new: the writable type counts follow
 * (get_page_type(PGT_writable_page) and put_page_type()), and the count of
 * entries that reach each frame. False when out of memory, before anything
 * changed.
 */
bool pvs_track(struct pvstub *s, uint64_t old, uint64_t new)
{
	if (new & PTE_P) {
		if (!pvs_count_ref(&s->present, PTE_FRAME(new), 1))
			return false;
		if (pvs_maps_writable(new) && !pvs_count_ref(&s->writable, PTE_FRAME(new), 1)) {
			pvs_count_ref(&s->present, PTE_FRAME(new), -1);
			return false;
		}
	}
	if (old & PTE_P) {
		pvs_count_ref(&s->present, PTE_FRAME(old), -1);
		if (pvs_maps_writable(old))
			pvs_count_ref(&s->writable, PTE_FRAME(old), -1);
	}
	return true;
}

/*
 * A new page table at @frame for [@va, + L1_SPAN): get_page_type() of
 * PGT_l1_page_table, which a frame mapped writable cannot take (-EINVAL,
 * "Bad type"), and the model's cap (-ENOMEM).
 */
int pvs_add_table(struct pvstub *s, uint64_t va, uint64_t frame, uint64_t *mem,
		  struct l1 **out)
{
	struct l1 *l;

	if (s->nl1 >= s->cfg.max_tables)
		return -ENOMEM;
	if (writable_refs(s, frame) || pvs_l1_for_frame(s, frame) || pvs_l1_for_va(s, va))
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l || !pvs_grow((void **)&s->l1, &s->capl1, s->nl1 + 1, sizeof(*s->l1)) ||
	    !pvs_map_put(&s->by_frame, frame, (uintptr_t)l)) {
		free(l);
		return -ENOMEM;
	}
	if (!pvs_map_put(&s->by_va, va >> L1_SHIFT, (uintptr_t)l)) {
		pvs_map_del(&s->by_frame, frame);
		free(l);
		return -ENOMEM;
	}
	l->va = va;
	l->frame = frame;
	l->mem = mem;
	l->index = s->nl1;
	s->l1[s->nl1++] = l;
	s->counts.tables = s->nl1;
	*out = l;
	return 0;
}

/* Drop a table that holds nothing. */
void pvs_drop_table(struct pvstub *s, struct l1 *l)
{
	pvs_map_del(&s->by_frame, l->frame);
	pvs_map_del(&s->by_va, l->va >> L1_SHIFT);
	s->l1[l->index] = s->l1[--s->nl1];
	s->l1[l->index]->index = l->index;
	s->counts.tables = s->nl1;
	free(l);
}

int pvstub_alloc_l1(struct pvstub *s, uint64_t va)
{
	struct l1 *l;

	va &= ~(L1_SPAN - 1);
	if (pvs_l1_for_va(s, va))
		return 0;
	/* page-table frames come from the top of the guest's RAM */
	if (s->nmodel >= s->cfg.ram_frames / 2)
		return -ENOMEM;
	if (pvs_add_table(s, va, s->cfg.ram_frames - 1 - s->nmodel, NULL, &l))
		return -ENOMEM;
	s->nmodel++;
	return 0;
}

uint64_t pvstub_pte_maddr(const struct pvstub *s, uint64_t va)
{
	const struct l1 *l = pvs_l1_for_va(s, va);

	return l ? (l->frame << 12) + ((va - l->va) >> 12) * 8 : 0;
}

uint64_t pvstub_pte(const struct pvstub *s, uint64_t va)
{
	const struct l1 *l = pvs_l1_for_va(s, va);

	return l ? l->pte[(va - l->va) >> 12] : 0;
}

/* Xen's mod_l1_entry(): validate, flip, store; @preserve_ad keeps the old A/D bits. */
int pvs_write_pte(struct pvstub *s, struct l1 *l, unsigned int idx, uint64_t val,
		  bool preserve_ad)
{
	int64_t rc = pvs_check_pte(s, val);

	if (rc < 0) {
		s->counts.refused++;
		return (int)rc;
	}
	val ^= (uint64_t)rc;
	if (preserve_ad)
		val |= (l->mem ? __atomic_load_n(&l->mem[idx], __ATOMIC_RELAXED) : l->pte[idx]) &
		       PTE_AD;
	if (!pvs_track(s, l->pte[idx], val)) {
		s->counts.refused++;
		return -ENOMEM;
	}
	l->pte[idx] = val;
	if (l->mem)
		__atomic_store_n(&l->mem[idx], val, __ATOMIC_RELEASE);
	pvs_set_reported(s, l, idx, false);
	l->set_by[idx] = s->seq;
	s->counts.pte_writes++;
	return 0;
}
