/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpvstub's insides, shared by its files (not part of its API, pvstub.h):
 * the PTE format, the hash map, a page table, a vCPU's TLB, the domain, and
 * the functions one file serves to another. Internal functions are pvs_*,
 * the API pvstub_*.
 */
#ifndef PVSTUB_INTERNAL_H
#define PVSTUB_INTERNAL_H

#include "pvstub.h"

#define L1_ENTRIES	512
#define L1_SHIFT	21
#define L1_SPAN		((uint64_t)L1_ENTRIES << 12)
#define PTE_P		0x001ULL
#define PTE_RW		0x002ULL
#define PTE_PWT		0x008ULL
#define PTE_PCD		0x010ULL
#define PTE_AD		0x060ULL	/* accessed, dirty */
#define PTE_PAT		0x080ULL
#define PTE_CACHE	(PTE_PAT | PTE_PCD | PTE_PWT)
#define PTE_GNTTAB	(1ULL << 62)	/* _PAGE_GNTTAB of a debug build of Xen */
#define PTE_FRAME(p)	(((p) >> 12) & ((1ULL << 40) - 1))

/* The memory types a PAT index decodes as. */
enum { MT_UC, MT_WC, MT_WT, MT_WP, MT_WB, MT_UCM };

/*
 * A map of 64-bit keys (never MAP_EMPTY) to 64-bit values: open addressing,
 * linear probing, at most half full, deletion by backward shift. Every
 * lookup and the slots it examines are counted in the model's counts.
 */
#define MAP_EMPTY	UINT64_MAX

struct map {
	uint64_t *key, *val;
	size_t cap, n;			/* cap: 0 or a power of 2 */
	unsigned int bits;		/* log2(cap) */
	uint64_t *lookups, *probes;	/* the owner's counts */
};

/*
 * A page-table page of the guest, covering [va, va + L1_SPAN). A live
 * guest's (@mem set) is its own frame, mapped here: updates are written
 * there, only to the entries it registered, and @pte is their shadow, the
 * last value validated. The stub's own (@mem NULL) holds all 512 entries.
 */
struct l1 {
	uint64_t va;
	uint64_t frame;
	size_t index;			/* in pvstub.l1 */
	uint64_t *mem;
	/* the shadow check reads these first: beside the header, not 8 KiB away */
	uint64_t registered[L1_ENTRIES / 64];
	uint64_t reported[L1_ENTRIES / 64];	/* changed behind our back, reported */
	uint64_t pte[L1_ENTRIES];
	uint64_t set_by[L1_ENTRIES];	/* hypercall number of the last write */
};

static inline bool test_bit64(const uint64_t *map, unsigned int idx)
{
	return map[idx / 64] >> (idx % 64) & 1;
}

static inline void assign_bit64(uint64_t *map, unsigned int idx, bool on)
{
	if (on)
		map[idx / 64] |= 1ULL << (idx % 64);
	else
		map[idx / 64] &= ~(1ULL << (idx % 64));
}

static inline bool is_registered(const struct l1 *l, unsigned int idx)
{
	return test_bit64(l->registered, idx);
}

/*
 * The next held entry of @l at or after @idx, or L1_ENTRIES: one whose value
 * is the stub's (a registered one, or any of the stub's own tables). A walk
 * costs the words of the bitmap and the entries held, not all 512.
 */
static inline unsigned int next_held(const struct l1 *l, unsigned int idx)
{
	if (!l->mem)
		return idx;
	while (idx < L1_ENTRIES) {
		uint64_t w = l->registered[idx / 64] >> (idx % 64);

		if (w)
			return idx + (unsigned int)__builtin_ctzll(w);
		idx = (idx / 64 + 1) * 64;
	}
	return L1_ENTRIES;
}

#define for_each_held(l, j) \
	for (unsigned int j = next_held(l, 0); j < L1_ENTRIES; j = next_held(l, j + 1))

struct tlb_entry {
	uint64_t va;
	uint64_t frame;
	bool writable;
	uint64_t filled_from;		/* hypercall that wrote the PTE it came from */
};

struct vcpu {
	struct tlb_entry *tlb;
	size_t n, cap;
	struct map index;		/* va >> 12 -> its entry in @tlb */
};

struct violation {
	uint64_t va, frame;
	unsigned int vcpu;		/* NO_VCPU: a PTE, not an access */
	char how[160];
};

#define NO_VCPU		UINT32_MAX

struct pvstub {
	struct pvstub_config cfg;
	struct { uint64_t first, frames; } more_apertures[PVSTUB_MAX_APERTURES];
	unsigned char pat[8];		/* the memory type of each PAT index */
	int uc;				/* pvs_uc_index(pat) */
	unsigned int nr_more_apertures;
	struct l1 **l1;			/* every table, in no order */
	size_t nl1, capl1;
	uint64_t nmodel;		/* the stub's own tables ever made */
	struct map by_frame, by_va;	/* frame, va >> L1_SHIFT -> struct l1 * */
	struct map writable;		/* frame -> held entries mapping it writable */
	struct map present;		/* frame -> held entries mapping it */
	uint64_t nreported;		/* registered entries the guest changed, reported */
	struct map revoked;		/* frame -> 1 */
	struct vcpu vcpu[PVSTUB_MAX_VCPUS];
	struct violation *viol;
	size_t nviol, capviol;
	struct pvstub_counts counts;
	uint64_t seq;			/* number of the hypercall being served */
	unsigned int registered;	/* a live guest's registered entries */
};

/* pvstub.c: the domain */
bool pvs_grow(void **arr, size_t *cap, size_t need, size_t size);
bool pvs_is_ram(const struct pvstub *s, uint64_t frame);

/* pvstub_map.c */
bool pvs_map_get(const struct map *m, uint64_t key, uint64_t *val);
bool pvs_map_put(struct map *m, uint64_t key, uint64_t val);
void pvs_map_del(struct map *m, uint64_t key);
void pvs_map_free(struct map *m);

/* pvstub_validate.c: get_page_from_l1e() under the PAT */
int pvs_uc_index(const unsigned char *pat);
int64_t pvs_check_pte(const struct pvstub *s, uint64_t val);

/* pvstub_pagetable.c: the L1 tables, their type and reference counts, mod_l1_entry() */
struct l1 *pvs_l1_for_va(const struct pvstub *s, uint64_t va);
struct l1 *pvs_l1_for_frame(const struct pvstub *s, uint64_t frame);
bool pvs_maps_writable(uint64_t pte);
bool pvs_count_ref(struct map *m, uint64_t frame, int delta);
bool pvs_track(struct pvstub *s, uint64_t old, uint64_t new);
int pvs_add_table(struct pvstub *s, uint64_t va, uint64_t frame, uint64_t *mem,
		  struct l1 **out);
void pvs_drop_table(struct pvstub *s, struct l1 *l);
int pvs_write_pte(struct pvstub *s, struct l1 *l, unsigned int idx, uint64_t val,
		  bool preserve_ad);

/* pvstub_shadow.c: a live guest's registered entries */
void pvs_set_reported(struct pvstub *s, struct l1 *l, unsigned int idx, bool on);

/* pvstub_tlb.c */
void pvs_flush_vcpus(struct pvstub *s, const bool *mask, uint64_t va, bool one);

/* pvstub_hypercall.c: mmu_update, update_va_mapping, mmuext_op */
void pvs_trap(struct pvstub *s, uint64_t *counter);
void *pvs_guest_ptr(const struct pvstub *s, uint64_t addr, uint64_t len);
int pvs_do_mmu_update(struct pvstub *s, const struct mmu_update *req, unsigned int count,
		      unsigned int *done, unsigned int foreigndom);
int pvs_do_update_va_mapping(struct pvstub *s, unsigned int vcpu, uint64_t va,
			     uint64_t val, uint64_t flags, bool compat);
int pvs_do_mmuext_op(struct pvstub *s, unsigned int vcpu, const struct mmuext_op *op,
		     unsigned int count, unsigned int *done, unsigned int foreigndom,
		     bool compat);

/* pvstub_revoke.c: revoked frames and the violations recorded */
bool pvs_is_revoked(const struct pvstub *s, uint64_t frame);
void pvs_record(struct pvstub *s, unsigned int vcpu, uint64_t va, uint64_t frame,
		const char *how);

#endif /* PVSTUB_INTERNAL_H */
