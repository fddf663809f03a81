// SPDX-License-Identifier: GPL-2.0
/*
 * libpvstub: the model behind pvstub.h. Readable first, but bounded: a live
 * guest is not trusted, so its tables are capped and found by hash, and
 * what a request costs does not grow with the tables it did not touch.
 */
#include "pvstub.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * Xen's PAT (XEN_MSR_PAT, 0x050100070406): the memory type of each index
 * PAT<<2 | PCD<<1 | PWT; Xen forces the cacheable ones to UC on MMIO.
 */
enum { MT_UC, MT_WC, MT_WT, MT_WP, MT_WB, MT_UCM };
static const unsigned char xen_pat[8] = {
	MT_WB, MT_WT, MT_UCM, MT_UC, MT_WC, MT_WP, MT_UC, MT_UC,
};

static unsigned int pat_index(uint64_t pte)
{
	return (pte & PTE_PAT ? 4 : 0) | (pte & PTE_PCD ? 2 : 0) | (pte & PTE_PWT ? 1 : 0);
}

static uint64_t pat_bits(unsigned int index)
{
	return (index & 4 ? PTE_PAT : 0) | (index & 2 ? PTE_PCD : 0) | (index & 1 ? PTE_PWT : 0);
}

/* The lowest PAT index whose type is UC, or -1: what MMIO mapped cacheable becomes. */
static int uc_index(const unsigned char *pat)
{
	for (int i = 0; i < 8; i++)
		if (pat[i] == MT_UC)
			return i;
	return -1;
}

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

static size_t map_home(const struct map *m, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - m->bits));
}

/* The slot of @key, or of the empty slot where it would go. */
static size_t map_slot(const struct map *m, uint64_t key)
{
	size_t i = map_home(m, key);

	(*m->lookups)++;
	for (;;) {
		(*m->probes)++;
		if (m->key[i] == key || m->key[i] == MAP_EMPTY)
			return i;
		i = (i + 1) & (m->cap - 1);
	}
}

static bool map_get(const struct map *m, uint64_t key, uint64_t *val)
{
	size_t i;

	if (!m->n)
		return false;
	i = map_slot(m, key);
	if (m->key[i] == MAP_EMPTY)
		return false;
	if (val)
		*val = m->val[i];
	return true;
}

static bool map_grow(struct map *m)
{
	unsigned int bits = m->cap ? m->bits + 1 : 6;
	struct map new = { .cap = (size_t)1 << bits, .bits = bits,
			   .lookups = m->lookups, .probes = m->probes };

	new.key = malloc(new.cap * sizeof(*new.key));
	new.val = malloc(new.cap * sizeof(*new.val));
	if (!new.key || !new.val) {
		free(new.key);
		free(new.val);
		return false;
	}
	memset(new.key, 0xff, new.cap * sizeof(*new.key));
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (m->key[i] == MAP_EMPTY)
			continue;
		j = map_slot(&new, m->key[i]);
		new.key[j] = m->key[i];
		new.val[j] = m->val[i];
		new.n++;
	}
	free(m->key);
	free(m->val);
	*m = new;
	return true;
}

/* Set @key to @val; false when out of memory (only a new key can need any). */
static bool map_put(struct map *m, uint64_t key, uint64_t val)
{
	size_t i = m->cap ? map_slot(m, key) : 0;

	if (!m->cap || m->key[i] == MAP_EMPTY) {
		if (2 * (m->n + 1) > m->cap) {
			if (!map_grow(m))
				return false;
			i = map_slot(m, key);
		}
		m->key[i] = key;
		m->n++;
	}
	m->val[i] = val;
	return true;
}

static void map_del(struct map *m, uint64_t key)
{
	size_t mask = m->cap - 1, i, j;

	if (!m->n)
		return;
	i = map_slot(m, key);
	if (m->key[i] == MAP_EMPTY)
		return;
	/* pull back each later entry of the run that may sit in the hole */
	for (j = (i + 1) & mask; m->key[j] != MAP_EMPTY; j = (j + 1) & mask) {
		size_t home = map_home(m, m->key[j]);

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->key[i] = m->key[j];
			m->val[i] = m->val[j];
			i = j;
		}
	}
	m->key[i] = MAP_EMPTY;
	m->n--;
}

static void map_free(struct map *m)
{
	free(m->key);
	free(m->val);
}

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

static bool test_bit64(const uint64_t *map, unsigned int idx)
{
	return map[idx / 64] >> (idx % 64) & 1;
}

static void assign_bit64(uint64_t *map, unsigned int idx, bool on)
{
	if (on)
		map[idx / 64] |= 1ULL << (idx % 64);
	else
		map[idx / 64] &= ~(1ULL << (idx % 64));
}

static bool is_registered(const struct l1 *l, unsigned int idx)
{
	return test_bit64(l->registered, idx);
}

/*
 * The next held entry of @l at or after @idx, or L1_ENTRIES: one whose value
 * is the stub's (a registered one, or any of the stub's own tables). A walk
 * costs the words of the bitmap and the entries held, not all 512.
 */
static unsigned int next_held(const struct l1 *l, unsigned int idx)
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
	int uc;				/* uc_index(pat) */
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

static void record(struct pvstub *s, unsigned int vcpu, uint64_t va, uint64_t frame,
		   const char *how);

/* Mark a registered entry changed behind the stub's back (and reported), or not. */
static void set_reported(struct pvstub *s, struct l1 *l, unsigned int idx, bool on)
{
	if (test_bit64(l->reported, idx) == on)
		return;
	assign_bit64(l->reported, idx, on);
	if (on)
		s->nreported++;
	else
		s->nreported--;
}

/* Grow *@arr to hold @need elements of @size bytes; false when out of memory. */
static bool grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return true;
	while (ncap < need)
		ncap *= 2;
	if (ncap > SIZE_MAX / size)
		return false;
	p = realloc(*arr, ncap * size);
	if (!p)
		return false;
	*arr = p;
	*cap = ncap;
	return true;
}

static bool is_ram(const struct pvstub *s, uint64_t frame)
{
	return frame < s->cfg.ram_frames ||
	       frame - PVSTUB_HIGH_RAM_FIRST < s->cfg.ram_high_frames;
}

/* Whether [first, first + frames) is clear of the guest's RAM (and does not wrap). */
static bool outside_ram(const struct pvstub_config *cfg, uint64_t first, uint64_t frames)
{
	uint64_t hi = PVSTUB_HIGH_RAM_FIRST;

	if (!frames || first + frames < first)
		return false;
	return first >= cfg->ram_frames &&
	       (!cfg->ram_high_frames || first + frames <= hi || first >= hi + cfg->ram_high_frames);
}

static void map_init(struct pvstub *s, struct map *m)
{
	m->lookups = &s->counts.lookups;
	m->probes = &s->counts.lookup_probes;
}

struct pvstub *pvstub_create(const struct pvstub_config *cfg)
{
	struct pvstub *s;

	if (!cfg->nr_vcpus || cfg->nr_vcpus > PVSTUB_MAX_VCPUS || !cfg->ram_frames ||
	    (cfg->ram_high_frames && (cfg->ram_frames > PVSTUB_HIGH_RAM_FIRST ||
				      cfg->ram_high_frames > (1ULL << 40) - PVSTUB_HIGH_RAM_FIRST)) ||
	    (cfg->aperture_frames &&
	     !outside_ram(cfg, cfg->aperture_first, cfg->aperture_frames)))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cfg = *cfg;
	if (!s->cfg.max_tables)
		s->cfg.max_tables = PVSTUB_MAX_TABLES;
	memcpy(s->pat, xen_pat, sizeof(s->pat));
	s->uc = uc_index(s->pat);
	map_init(s, &s->by_frame);
	map_init(s, &s->by_va);
	map_init(s, &s->writable);
	map_init(s, &s->present);
	map_init(s, &s->revoked);
	for (unsigned int v = 0; v < PVSTUB_MAX_VCPUS; v++)
		map_init(s, &s->vcpu[v].index);
	return s;
}

void pvstub_destroy(struct pvstub *s)
{
	if (!s)
		return;
	for (unsigned int v = 0; v < PVSTUB_MAX_VCPUS; v++) {
		free(s->vcpu[v].tlb);
		map_free(&s->vcpu[v].index);
	}
	for (size_t i = 0; i < s->nl1; i++)
		free(s->l1[i]);
	free(s->l1);
	map_free(&s->by_frame);
	map_free(&s->by_va);
	map_free(&s->writable);
	map_free(&s->present);
	map_free(&s->revoked);
	free(s->viol);
	free(s);
}

static struct l1 *l1_for_va(const struct pvstub *s, uint64_t va)
{
	uint64_t p;

	return map_get(&s->by_va, va >> L1_SHIFT, &p) ? (struct l1 *)(uintptr_t)p : NULL;
}

static struct l1 *l1_for_frame(const struct pvstub *s, uint64_t frame)
{
	uint64_t p;

	return map_get(&s->by_frame, frame, &p) ? (struct l1 *)(uintptr_t)p : NULL;
}

/* Held entries that map @frame writable: a PGT_writable_page type count. */
static uint64_t writable_refs(const struct pvstub *s, uint64_t frame)
{
	uint64_t n = 0;

	map_get(&s->writable, frame, &n);
	return n;
}

static bool maps_writable(uint64_t pte)
{
	return (pte & (PTE_P | PTE_RW)) == (PTE_P | PTE_RW);
}

/* One more (@delta 1) or one fewer (-1) reference to @frame in @m. */
static bool count_ref(struct map *m, uint64_t frame, int delta)
{
	uint64_t n = 0;

	map_get(m, frame, &n);
	if (delta > 0)
		return map_put(m, frame, n + 1);
	if (n > 1)
		map_put(m, frame, n - 1);
	else
		map_del(m, frame);
	return true;
}

/*
 * A held entry changes from @old to @new: the writable type counts follow
 * (get_page_type(PGT_writable_page) and put_page_type()), and the count of
 * entries that reach each frame. False when out of memory, before anything
 * changed.
 */
static bool track(struct pvstub *s, uint64_t old, uint64_t new)
{
	if (new & PTE_P) {
		if (!count_ref(&s->present, PTE_FRAME(new), 1))
			return false;
		if (maps_writable(new) && !count_ref(&s->writable, PTE_FRAME(new), 1)) {
			count_ref(&s->present, PTE_FRAME(new), -1);
			return false;
		}
	}
	if (old & PTE_P) {
		count_ref(&s->present, PTE_FRAME(old), -1);
		if (maps_writable(old))
			count_ref(&s->writable, PTE_FRAME(old), -1);
	}
	return true;
}

/*
 * A new page table at @frame for [@va, + L1_SPAN): get_page_type() of
 * PGT_l1_page_table, which a frame mapped writable cannot take (-EINVAL,
 * "Bad type"), and the model's cap (-ENOMEM).
 */
static int add_table(struct pvstub *s, uint64_t va, uint64_t frame, uint64_t *mem,
		     struct l1 **out)
{
	struct l1 *l;

	if (s->nl1 >= s->cfg.max_tables)
		return -ENOMEM;
	if (writable_refs(s, frame) || l1_for_frame(s, frame) || l1_for_va(s, va))
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l || !grow((void **)&s->l1, &s->capl1, s->nl1 + 1, sizeof(*s->l1)) ||
	    !map_put(&s->by_frame, frame, (uintptr_t)l)) {
		free(l);
		return -ENOMEM;
	}
	if (!map_put(&s->by_va, va >> L1_SHIFT, (uintptr_t)l)) {
		map_del(&s->by_frame, frame);
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
static void drop_table(struct pvstub *s, struct l1 *l)
{
	map_del(&s->by_frame, l->frame);
	map_del(&s->by_va, l->va >> L1_SHIFT);
	s->l1[l->index] = s->l1[--s->nl1];
	s->l1[l->index]->index = l->index;
	s->counts.tables = s->nl1;
	free(l);
}

int pvstub_alloc_l1(struct pvstub *s, uint64_t va)
{
	struct l1 *l;

	va &= ~(L1_SPAN - 1);
	if (l1_for_va(s, va))
		return 0;
	/* page-table frames come from the top of the guest's RAM */
	if (s->nmodel >= s->cfg.ram_frames / 2)
		return -ENOMEM;
	if (add_table(s, va, s->cfg.ram_frames - 1 - s->nmodel, NULL, &l))
		return -ENOMEM;
	s->nmodel++;
	return 0;
}

uint64_t pvstub_pte_maddr(const struct pvstub *s, uint64_t va)
{
	const struct l1 *l = l1_for_va(s, va);

	return l ? (l->frame << 12) + ((va - l->va) >> 12) * 8 : 0;
}

uint64_t pvstub_pte(const struct pvstub *s, uint64_t va)
{
	const struct l1 *l = l1_for_va(s, va);

	return l ? l->pte[(va - l->va) >> 12] : 0;
}

static int64_t check_pte(const struct pvstub *s, uint64_t val);

int pvstub_register_pte(struct pvstub *s, uint64_t va, uint64_t maddr, uint64_t *frame_mem)
{
	uint64_t frame = maddr >> 12, base = va & ~(L1_SPAN - 1), val;
	unsigned int idx = (unsigned int)((va >> 12) % L1_ENTRIES);
	struct l1 *l = l1_for_frame(s, frame), *by_va = l1_for_va(s, va);
	bool created = false;
	int64_t rc;

	/* the entry that maps @va in a PAE or 4-level table is at index (va >> 12) % 512 */
	if ((va & 0xfff) || (maddr & 7) || (maddr & 0xfff) / 8 != idx ||
	    !is_ram(s, frame) || !frame_mem)
		return -EINVAL;
	if (l != by_va || (l && (!l->mem || l->va != base)))
		return -EINVAL;		/* another table already maps this range */
	if (l && is_registered(l, idx))
		return 0;
	if (!l) {
		rc = add_table(s, base, frame, frame_mem, &l);
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
	rc = check_pte(s, val);
	if (rc >= 0 && !track(s, 0, val ^ (uint64_t)rc))
		rc = -ENOMEM;
	if (rc < 0) {
		s->counts.refused++;
		if (created)
			drop_table(s, l);
		return (int)rc;
	}
	if (rc) {
		val ^= (uint64_t)rc;
		__atomic_store_n(&frame_mem[idx], val, __ATOMIC_RELEASE);
	}
	assign_bit64(l->registered, idx, true);
	set_reported(s, l, idx, false);
	s->registered++;
	l->pte[idx] = val;
	l->set_by[idx] = 0;
	return 0;
}

int pvstub_unregister_pte(struct pvstub *s, uint64_t va, uint64_t maddr)
{
	unsigned int idx = (unsigned int)((va >> 12) % L1_ENTRIES);
	struct l1 *l = l1_for_frame(s, maddr >> 12);
	bool empty = true;

	if (!l || !l->mem || l->va != (va & ~(L1_SPAN - 1)) || (maddr & 0xfff) / 8 != idx ||
	    !is_registered(l, idx))
		return -EINVAL;
	track(s, l->pte[idx], 0);
	l->pte[idx] = 0;
	assign_bit64(l->registered, idx, false);
	set_reported(s, l, idx, false);
	s->registered--;
	for (unsigned int i = 0; i < L1_ENTRIES / 64; i++)
		empty &= !l->registered[i];
	if (empty)
		drop_table(s, l);
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
			record(s, NO_VCPU, va, PTE_FRAME(now), how);
			if (out && *budget) {
				fprintf(out, "shadow: va %#" PRIx64 ": %s\n", va, how);
				(*budget)--;
			}
			/* reported once; the shadow keeps what was validated */
			set_reported(s, l, j, true);
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

static bool is_revoked(const struct pvstub *s, uint64_t frame)
{
	return map_get(&s->revoked, frame, NULL);
}

static bool is_aperture(const struct pvstub *s, uint64_t frame)
{
	for (unsigned int i = 0; i < s->nr_more_apertures; i++)
		if (frame - s->more_apertures[i].first < s->more_apertures[i].frames)
			return true;
	return frame - s->cfg.aperture_first < s->cfg.aperture_frames;
}

/*
 * Xen's get_page_from_l1e() (xen/arch/x86/mm.c) on a new present PTE, the
 * cache bits read with @pat: 0, a negative errno, or the flags to flip
 * (MMIO mapped cacheable is made UC). The guest is a PV domU whose
 * I/O-memory permission is the aperture: with one, cache_flush_permitted()
 * lets it use the cache attributes (l1_disallow_mask()); without, they are
 * refused. Revoked frames are the model's own: the hypervisor has taken
 * them back.
 */
static int64_t check_pte_pat(const struct pvstub *s, uint64_t val, const unsigned char *pat,
			     int uc)
{
	uint64_t frame = PTE_FRAME(val), disallow = PTE_GNTTAB;

	if (!(val & PTE_P))
		return 0;
	if (!s->cfg.aperture_frames && !s->nr_more_apertures)
		disallow |= PTE_CACHE;
	if (val & disallow)
		return -EINVAL;		/* "Bad L1 flags" */
	if (is_revoked(s, frame))
		return -EPERM;
	if (!is_ram(s, frame)) {
		/* MMIO: iomem_access_permitted(), then cacheable types forced to UC */
		if (!is_aperture(s, frame))
			return -EPERM;
		switch (pat[pat_index(val)]) {
		case MT_UC:
		case MT_UCM:
		case MT_WC:
			return 0;
		default:
			/*
			 * Xen flips to PCD|PWT, index 3, UC in its own PAT; under
			 * the guest's PAT it is the index that decodes as UC, and
			 * with none the mapping cannot be made safe.
			 */
			if (uc < 0)
				return -EINVAL;
			return (int64_t)((val & PTE_CACHE) ^ pat_bits((unsigned int)uc));
		}
	}
	/* a writable mapping of a page table: get_page_type() fails, "could_not_pin" */
	if (l1_for_frame(s, frame) && (val & PTE_RW))
		return -EBUSY;
	return 0;
}

static int64_t check_pte(const struct pvstub *s, uint64_t val)
{
	return check_pte_pat(s, val, s->pat, s->uc);
}

int pvstub_set_pat(struct pvstub *s, uint64_t msr)
{
	/* IA32_PAT's encodings: 0 UC, 1 WC, 4 WT, 5 WP, 6 WB, 7 UC-; the rest reserved */
	static const int type[8] = { MT_UC, MT_WC, -1, -1, MT_WT, MT_WP, MT_WB, MT_UCM };
	unsigned char pat[8];
	int uc;

	for (unsigned int i = 0; i < 8; i++) {
		unsigned int e = (msr >> (8 * i)) & 0xff;

		if (e > 7 || type[e] < 0)
			return -EINVAL;
		pat[i] = (unsigned char)type[e];
	}
	if (!memcmp(pat, s->pat, sizeof(pat)))
		return 0;
	/*
	 * Every entry validated under the old PAT must stand as it is under
	 * the new one: an MMIO entry it would make cacheable is not re-typed
	 * behind the validator's back.
	 */
	uc = uc_index(pat);
	for (size_t i = 0; i < s->nl1; i++) {
		for_each_held(s->l1[i], j) {
			uint64_t pte = s->l1[i]->pte[j];

			s->counts.scanned++;
			if (check_pte_pat(s, pte, pat, uc) && !is_revoked(s, PTE_FRAME(pte)))
				return -EBUSY;
		}
	}
	memcpy(s->pat, pat, sizeof(pat));
	s->uc = uc;
	return 0;
}

int pvstub_add_aperture(struct pvstub *s, uint64_t first, uint64_t frames)
{
	if (!outside_ram(&s->cfg, first, frames))
		return -EINVAL;
	for (unsigned int i = 0; i < s->nr_more_apertures; i++)
		if (s->more_apertures[i].first == first && s->more_apertures[i].frames == frames)
			return 0;
	if (s->nr_more_apertures == PVSTUB_MAX_APERTURES)
		return -ENOSPC;
	s->more_apertures[s->nr_more_apertures].first = first;
	s->more_apertures[s->nr_more_apertures++].frames = frames;
	return 0;
}

/* Xen's mod_l1_entry(): validate, flip, store; @preserve_ad keeps the old A/D bits. */
static int write_pte(struct pvstub *s, struct l1 *l, unsigned int idx, uint64_t val,
		     bool preserve_ad)
{
	int64_t rc = check_pte(s, val);

	if (rc < 0) {
		s->counts.refused++;
		return (int)rc;
	}
	val ^= (uint64_t)rc;
	if (preserve_ad)
		val |= (l->mem ? __atomic_load_n(&l->mem[idx], __ATOMIC_RELAXED) : l->pte[idx]) &
		       PTE_AD;
	if (!track(s, l->pte[idx], val)) {
		s->counts.refused++;
		return -ENOMEM;
	}
	l->pte[idx] = val;
	if (l->mem)
		__atomic_store_n(&l->mem[idx], val, __ATOMIC_RELEASE);
	set_reported(s, l, idx, false);
	l->set_by[idx] = s->seq;
	s->counts.pte_writes++;
	return 0;
}

static struct tlb_entry *tlb_find(const struct vcpu *v, uint64_t va)
{
	uint64_t i;

	return map_get(&v->index, va >> 12, &i) ? &v->tlb[i] : NULL;
}

static void tlb_drop(struct vcpu *v, uint64_t va)
{
	struct tlb_entry *t = tlb_find(v, va);

	if (!t)
		return;
	map_del(&v->index, va >> 12);
	*t = v->tlb[--v->n];
	if (t != &v->tlb[v->n])
		map_put(&v->index, t->va >> 12, (uint64_t)(t - v->tlb));
}

static void tlb_flush(struct vcpu *v)
{
	v->n = 0;
	if (v->index.n) {
		memset(v->index.key, 0xff, v->index.cap * sizeof(*v->index.key));
		v->index.n = 0;
	}
}

/*
 * The foreigndom of mmu_update (low 16 bits: the data pages' owner; high 16:
 * the page tables', 0 meaning self) as Xen's get_pg_owner() sees it in a
 * one-domain world: 0, or -ESRCH for any domain that is not this one.
 * DOMID_IO (I/O mappings only) is allowed for the data pages.
 */
static int foreign_owner(unsigned int foreigndom, bool allow_io)
{
	domid_t fd = foreigndom & 0xffff;

	if (foreigndom >> 16)
		return -ESRCH;
	if (fd == DOMID_SELF || (allow_io && fd == DOMID_IO))
		return 0;
	return -ESRCH;
}

/* Xen's do_mmu_update(), for L1 entries and plain RAM. */
static int do_mmu_update(struct pvstub *s, const struct mmu_update *req, unsigned int count,
			 unsigned int *done, unsigned int foreigndom)
{
	bool io = (foreigndom & 0xffff) == DOMID_IO;
	unsigned int i;
	int rc = foreign_owner(foreigndom, true);

	if (rc)
		count = 0;
	for (i = 0; i < count && !rc; i++) {
		/* The command is in the bits an 8-byte entry's address leaves clear. */
		unsigned int cmd = req[i].ptr & 7;
		uint64_t maddr = req[i].ptr - cmd, frame = maddr >> 12;
		struct l1 *l = l1_for_frame(s, frame);

		switch (cmd) {
		case MMU_NORMAL_PT_UPDATE:
		case MMU_PT_UPDATE_PRESERVE_AD:
		case MMU_PT_UPDATE_NO_TRANSLATE:
			if (l && io && (req[i].val & PTE_P) &&
			    is_ram(s, PTE_FRAME(req[i].val))) {
				/* DOMID_IO maps I/O only: RAM cannot be pinned for it */
				s->counts.refused++;
				rc = -EBUSY;
			} else if (l && l->mem && !is_registered(l, (maddr & 0xfff) / 8)) {
				/* the rest of a live guest's table is its own, not ours */
				s->counts.refused++;
				rc = -EPERM;
			} else if (l) {
				rc = write_pte(s, l, (maddr & 0xfff) / 8, req[i].val,
					       cmd == MMU_PT_UPDATE_PRESERVE_AD);
			} else if (is_ram(s, frame) && !is_revoked(s, frame)) {
				/* the PGT_writable_page path: a plain write to the guest's RAM */
				s->counts.plain_writes++;
			} else {
				s->counts.refused++;
				rc = -EINVAL;
			}
			break;
		case MMU_MACHPHYS_UPDATE:
			/* the M2P table is not modelled: checked, accepted, no effect */
			if (!is_ram(s, frame) || is_revoked(s, frame)) {
				s->counts.refused++;
				rc = -EINVAL;
			}
			break;
		default:
			s->counts.refused++;
			rc = -ENOSYS;
			break;
		}
		if (rc)
			break;
	}
	if (done)
		*done = i;
	return rc;
}

/*
 * A guest address in a hypercall's arguments as a pointer to @len bytes
 * here; NULL for a length this host cannot even address.
 */
static void *guest_ptr(const struct pvstub *s, uint64_t addr, uint64_t len)
{
	if (len != (size_t)len)
		return NULL;
	if (s->cfg.guest_mem)
		return s->cfg.guest_mem(s->cfg.guest_opaque, addr, len);
	return (void *)(uintptr_t)addr;
}

/*
 * Xen's vcpumask_to_pcpumask(): the vCPUs set in the guest's bitmap at
 * @addr, read in words of the guest's size; ids past the domain's ignored.
 * Returns false when the bitmap cannot be read.
 */
static bool read_vcpumask(const struct pvstub *s, uint64_t addr, bool compat, bool *mask)
{
	size_t word = compat ? 4 : 8;
	const unsigned char *p = guest_ptr(s, addr, word);

	if (!p)
		return false;
	for (unsigned int v = 0; v < PVSTUB_MAX_VCPUS; v++)
		mask[v] = v < s->cfg.nr_vcpus && (p[v / 8] >> (v % 8)) & 1;
	return true;
}

/* One invalidation (counted once): of @va, or whole TLBs, on the vCPUs in @mask. */
static void flush_vcpus(struct pvstub *s, const bool *mask, uint64_t va, bool one)
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

/*
 * Xen's __do_update_va_mapping(): the PTE of @va (its low 12 bits ignored),
 * then the flush @flags ask for: type in bits 1:0 (0 and 3: none), target
 * above them (UVMF_LOCAL, UVMF_ALL, or the guest address of a vCPU bitmap).
 * A refused update skips the flush, as Xen does; an unreadable bitmap is
 * -EFAULT after the update.
 */
static int do_update_va_mapping(struct pvstub *s, unsigned int vcpu, uint64_t va,
				uint64_t val, uint64_t flags, bool compat)
{
	struct l1 *l = l1_for_va(s, va & ~0xfffULL);
	uint64_t target = flags & ~(uint64_t)UVMF_FLUSHTYPE_MASK;
	bool mask[PVSTUB_MAX_VCPUS] = { false };
	int rc;

	va &= ~0xfffULL;
	if (!l) {
		s->counts.refused++;
		return -EINVAL;
	}
	if (l->mem && !is_registered(l, (unsigned int)((va - l->va) >> 12))) {
		s->counts.refused++;
		return -EPERM;
	}
	rc = write_pte(s, l, (va - l->va) >> 12, val, false);
	if (rc)
		return rc;
	if ((flags & UVMF_FLUSHTYPE_MASK) != UVMF_INVLPG &&
	    (flags & UVMF_FLUSHTYPE_MASK) != UVMF_TLB_FLUSH)
		return 0;
	if (target == UVMF_LOCAL) {
		mask[vcpu] = true;
	} else if (target == UVMF_ALL) {
		for (unsigned int v = 0; v < s->cfg.nr_vcpus; v++)
			mask[v] = true;
	} else if (!read_vcpumask(s, target, compat, mask)) {
		return -EFAULT;
	}
	flush_vcpus(s, mask, va, (flags & UVMF_FLUSHTYPE_MASK) == UVMF_INVLPG);
	return 0;
}

/*
 * Xen's do_mmuext_op(), its TLB operations: LOCAL on the calling vCPU,
 * MULTI on a guest bitmap of vCPUs (-EINVAL when unreadable), ALL on every
 * vCPU. A domU must name itself (DOMID_SELF): any other domain, DOMID_IO
 * included, is -EPERM (xsm_mmuext_op()), an unknown one -ESRCH. Commands
 * the model does not implement are -ENOSYS, as unknown ones are in Xen.
 */
static int do_mmuext_op(struct pvstub *s, unsigned int vcpu, const struct mmuext_op *op,
			unsigned int count, unsigned int *done, unsigned int foreigndom,
			bool compat)
{
	domid_t dom = foreigndom & 0xffff;
	unsigned int i;
	int rc = 0;

	if (dom == DOMID_IO || dom == DOMID_XEN)
		rc = -EPERM;
	else if (dom != DOMID_SELF)
		rc = -ESRCH;
	if (rc)
		count = 0;
	for (i = 0; i < count && !rc; i++) {
		uint64_t va = op[i].arg1.linear_addr;
		bool mask[PVSTUB_MAX_VCPUS] = { false };

		switch (op[i].cmd) {
		case MMUEXT_INVLPG_LOCAL:
		case MMUEXT_TLB_FLUSH_LOCAL:
			mask[vcpu] = true;
			break;
		case MMUEXT_INVLPG_MULTI:
		case MMUEXT_TLB_FLUSH_MULTI:
			if (!read_vcpumask(s, (uintptr_t)op[i].arg2.vcpumask, compat, mask))
				rc = -EINVAL;
			break;
		case MMUEXT_INVLPG_ALL:
		case MMUEXT_TLB_FLUSH_ALL:
			for (unsigned int v = 0; v < s->cfg.nr_vcpus; v++)
				mask[v] = true;
			break;
		case MMUEXT_MARK_SUPER:
		case MMUEXT_UNMARK_SUPER:
			rc = -EOPNOTSUPP;
			break;
		default:
			rc = -ENOSYS;
			break;
		}
		if (rc) {
			s->counts.refused++;
			break;
		}
		flush_vcpus(s, mask, va, op[i].cmd == MMUEXT_INVLPG_LOCAL ||
			    op[i].cmd == MMUEXT_INVLPG_MULTI || op[i].cmd == MMUEXT_INVLPG_ALL);
	}
	if (done)
		*done = i;
	return rc;
}

/* Every entry point: one trap into the hypervisor, numbered. */
static void trap(struct pvstub *s, uint64_t *counter)
{
	s->seq++;
	s->counts.hypercalls++;
	(*counter)++;
}

int pvstub_mmu_update(struct pvstub *s, unsigned int vcpu, const struct mmu_update *req,
		      unsigned int count, unsigned int *done, unsigned int dom)
{
	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	trap(s, &s->counts.mmu_update);
	return do_mmu_update(s, req, count, done, dom);
}

int pvstub_update_va_mapping(struct pvstub *s, unsigned int vcpu, uint64_t va,
			     uint64_t val, uint64_t flags)
{
	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	trap(s, &s->counts.update_va_mapping);
	return do_update_va_mapping(s, vcpu, va, val, flags, false);
}

int pvstub_mmuext_op(struct pvstub *s, unsigned int vcpu, const struct mmuext_op *op,
		     unsigned int count, unsigned int *done, unsigned int dom)
{
	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	trap(s, &s->counts.mmuext_op);
	return do_mmuext_op(s, vcpu, op, count, done, dom, false);
}

/*
 * One multicall entry, its arguments widened to 64 bits; @compat: a 32-bit
 * guest's (its mmuext_op layout, update_va_mapping's PTE in two halves).
 * Array and count arguments are guest addresses; -EFAULT when unreadable.
 */
static long multicall_entry(struct pvstub *s, unsigned int vcpu, uint64_t op,
			    const uint64_t *a, bool compat)
{
	unsigned int *done = a[2] ? guest_ptr(s, a[2], sizeof(*done)) : NULL;
	unsigned int count = (unsigned int)a[1];

	switch (op) {
	case __HYPERVISOR_mmu_update: {
		/* in 64 bits: on a 32-bit host count * 16 would wrap to a short, readable length */
		const struct mmu_update *req = guest_ptr(s, a[0], (uint64_t)count * sizeof(*req));

		if ((count && !req) || (a[2] && !done))
			return -EFAULT;
		return do_mmu_update(s, req, count, done, (unsigned int)a[3]);
	}
	case __HYPERVISOR_update_va_mapping:
		if (compat)
			return do_update_va_mapping(s, vcpu, a[0], a[1] | a[2] << 32, a[3], true);
		return do_update_va_mapping(s, vcpu, a[0], a[1], a[2], false);
	case __HYPERVISOR_mmuext_op: {
		struct mmuext_op ops[PVSTUB_MMUEXT_MAX];
		const void *p;

		if (count > PVSTUB_MMUEXT_MAX) {
			s->counts.refused++;
			return -E2BIG;	/* the model's limit, not Xen's (it preempts) */
		}
		p = guest_ptr(s, a[0], (uint64_t)count * (compat ?
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
		return do_mmuext_op(s, vcpu, ops, count, done, (unsigned int)a[3], compat);
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
	trap(s, &s->counts.multicall);
	for (unsigned int i = 0; i < nr; i++)
		call[i].result = (xen_ulong_t)multicall_one(s, vcpu, call[i].op, call[i].args, false);
	return 0;
}

int pvstub_multicall_compat(struct pvstub *s, unsigned int vcpu,
			    struct pvstub_compat_multicall_entry *call, unsigned int nr)
{
	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	trap(s, &s->counts.multicall);
	for (unsigned int i = 0; i < nr; i++)
		call[i].result = (uint32_t)multicall_one(s, vcpu, call[i].op, call[i].args, true);
	return 0;
}

/* Append to @q's last entry when it is of @op, else start one; its index in its array. */
static bool queue_add(struct pvstub_queue *q, unsigned int op, unsigned int *n)
{
	if (*n == PVSTUB_QUEUE_MAX)
		return false;
	if (q->nentry && q->entry[q->nentry - 1].op == op) {
		q->entry[q->nentry - 1].count++;
	} else {
		q->entry[q->nentry].op = op;
		q->entry[q->nentry].first = *n;
		q->entry[q->nentry++].count = 1;
	}
	(*n)++;
	return true;
}

bool pvstub_queue_update(struct pvstub_queue *q, const struct mmu_update *u)
{
	unsigned int i = q->nupd;

	if (!queue_add(q, __HYPERVISOR_mmu_update, &q->nupd))
		return false;
	q->upd[i] = *u;
	return true;
}

bool pvstub_queue_mmuext(struct pvstub_queue *q, const struct mmuext_op *op)
{
	unsigned int i = q->next;

	if (!queue_add(q, __HYPERVISOR_mmuext_op, &q->next))
		return false;
	q->ext[i] = *op;
	return true;
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
		trap(s, &s->counts.multicall);
		for (unsigned int i = 0; i < q->nentry; i++) {
			unsigned int first = q->entry[i].first, n = q->entry[i].count;
			int rc;

			s->counts.multicall_entries++;
			if (q->entry[i].op == __HYPERVISOR_mmu_update)
				rc = do_mmu_update(s, &q->upd[first], n, NULL, DOMID_SELF);
			else
				rc = do_mmuext_op(s, vcpu, &q->ext[first], n, NULL, DOMID_SELF,
						  false);
			refused += rc != 0;
		}
	}
	q->nupd = 0;
	q->next = 0;
	q->nentry = 0;
	return refused;
}

static void record(struct pvstub *s, unsigned int vcpu, uint64_t va, uint64_t frame,
		   const char *how)
{
	struct violation *v;

	s->counts.violations++;
	if (s->nviol == PVSTUB_MAX_VIOLATIONS ||
	    !grow((void **)&s->viol, &s->capviol, s->nviol + 1, sizeof(*s->viol))) {
		s->counts.violations_dropped++;
		return;
	}
	v = &s->viol[s->nviol++];
	v->va = va;
	v->frame = frame;
	v->vcpu = vcpu;
	snprintf(v->how, sizeof(v->how), "%s", how);
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
		if (is_revoked(s, *frame)) {
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
			record(s, vcpu, va, *frame, how);
		}
		return 0;
	}
	pte = pvstub_pte(s, va);
	if (!(pte & PTE_P) || (write && !(pte & PTE_RW)))
		return -EFAULT;
	*frame = PTE_FRAME(pte);
	l = l1_for_va(s, va);
	if (grow((void **)&v->tlb, &v->cap, v->n + 1, sizeof(*v->tlb)) &&
	    map_put(&v->index, va >> 12, v->n)) {
		v->tlb[v->n++] = (struct tlb_entry){
			.va = va, .frame = *frame, .writable = pte & PTE_RW,
			.filled_from = l->set_by[(va - l->va) >> 12],
		};
	}
	if (is_revoked(s, *frame)) {
		snprintf(how, sizeof(how), "PTE written by hypercall #%" PRIu64 " was never cleared",
			 l->set_by[(va - l->va) >> 12]);
		record(s, vcpu, va, *frame, how);
	}
	return 0;
}

static void report_revoked(FILE *out, uint64_t frame, uint64_t va, uint64_t by, bool behind)
{
	if (out)
		fprintf(out, "revoke %#" PRIx64 ": PTE of va %#" PRIx64 " (%s%" PRIu64
			") still maps it\n", frame, va,
			behind ? "written behind the hypervisor's back after hypercall #" :
				 "hypercall #", by);
}

unsigned int pvstub_revoke(struct pvstub *s, uint64_t frame, FILE *out)
{
	/* when nothing the stub holds reaches it, nor anything a guest wrote itself: no walk */
	bool walk = map_get(&s->present, frame, NULL) || s->nreported;
	unsigned int found = 0;

	if (!is_revoked(s, frame))
		map_put(&s->revoked, frame, 1);
	for (size_t i = 0; walk && i < s->nl1; i++) {
		const struct l1 *l = s->l1[i];

		for_each_held(l, j) {
			uint64_t pte = l->pte[j], va = l->va + ((uint64_t)j << 12), now;

			s->counts.scanned++;
			if ((pte & PTE_P) && PTE_FRAME(pte) == frame) {
				found++;
				report_revoked(out, frame, va, l->set_by[j], false);
				continue;
			}
			/* what the guest wrote itself maps the frame as well as ours */
			if (!l->mem || !test_bit64(l->reported, j))
				continue;
			now = __atomic_load_n(&l->mem[j], __ATOMIC_ACQUIRE);
			if ((now & PTE_P) && PTE_FRAME(now) == frame) {
				found++;
				report_revoked(out, frame, va, l->set_by[j], true);
			}
		}
	}
	for (unsigned int v = 0; v < s->cfg.nr_vcpus; v++) {
		for (size_t i = 0; i < s->vcpu[v].n; i++) {
			const struct tlb_entry *t = &s->vcpu[v].tlb[i];

			s->counts.scanned++;
			if (t->frame != frame)
				continue;
			found++;
			if (out)
				fprintf(out, "revoke %#" PRIx64 ": vCPU %u TLB entry for va %#" PRIx64
					" (from hypercall #%" PRIu64 ") still maps it\n", frame, v,
					t->va, t->filled_from);
		}
	}
	return found;
}

void pvstub_counts(const struct pvstub *s, struct pvstub_counts *c)
{
	*c = s->counts;
}

unsigned int pvstub_report_violations(const struct pvstub *s, FILE *out, bool json)
{
	if (json)
		fputc('[', out);
	for (size_t i = 0; i < s->nviol; i++) {
		const struct violation *v = &s->viol[i];
		bool pte = v->vcpu == NO_VCPU;

		if (json && pte)
			fprintf(out, "%s{\"va\": %" PRIu64 ", \"frame\": %" PRIu64
				", \"vcpu\": null, \"how\": \"%s\"}", i ? ", " : "", v->va,
				v->frame, v->how);
		else if (json)
			fprintf(out, "%s{\"va\": %" PRIu64 ", \"frame\": %" PRIu64
				", \"vcpu\": %u, \"how\": \"%s\"}", i ? ", " : "", v->va,
				v->frame, v->vcpu, v->how);
		else if (pte)
			fprintf(out, "violation: the PTE of va %#" PRIx64 " (frame %#" PRIx64 "): %s\n",
				v->va, v->frame, v->how);
		else
			fprintf(out, "violation: vCPU %u reached revoked frame %#" PRIx64
				" through va %#" PRIx64 ": %s\n", v->vcpu, v->frame, v->va, v->how);
	}
	if (json)
		fputc(']', out);
	else if (s->counts.violations_dropped)
		fprintf(out, "violations: %" PRIu64 " more, not kept (the first %u are)\n",
			s->counts.violations_dropped, PVSTUB_MAX_VIOLATIONS);
	return (unsigned int)s->nviol;
}

/* One breach of the model's invariants. */
static unsigned int breach(FILE *out, const char *what, uint64_t a, uint64_t b)
{
	if (out)
		fprintf(out, "audit: %s %#" PRIx64 " %#" PRIx64 "\n", what, a, b);
	return 1;
}

/* Whether @kept holds what @counted does, entry for entry. */
static unsigned int same_counts(FILE *out, const char *what, const struct map *counted,
				const struct map *kept)
{
	unsigned int bad = 0;

	if (counted->n != kept->n)
		bad += breach(out, what, counted->n, kept->n);
	for (size_t i = 0; i < counted->cap; i++) {
		uint64_t n = 0;

		if (counted->key[i] == MAP_EMPTY)
			continue;
		map_get(kept, counted->key[i], &n);
		if (n != counted->val[i])
			bad += breach(out, what, counted->key[i], n);
	}
	return bad;
}

unsigned int pvstub_audit(const struct pvstub *s, FILE *out)
{
	struct pvstub_counts scratch = { 0 };
	struct map writable = { .lookups = &scratch.lookups, .probes = &scratch.lookup_probes };
	struct map present = writable;
	unsigned int bad = 0, registered = 0;
	uint64_t reported = 0;

	for (size_t i = 0; i < s->nl1; i++) {
		const struct l1 *l = s->l1[i];

		if (l->index != i || l1_for_frame(s, l->frame) != l || l1_for_va(s, l->va) != l)
			bad += breach(out, "table not indexed: frame, va", l->frame, l->va);
		for (unsigned int w = 0; l->mem && w < L1_ENTRIES / 64; w++) {
			registered += (unsigned int)__builtin_popcountll(l->registered[w]);
			reported += (unsigned int)__builtin_popcountll(l->reported[w]);
			if (l->reported[w] & ~l->registered[w])
				bad += breach(out, "reported entries not registered: va, word",
					      l->va, w);
		}
		for_each_held(l, j) {
			uint64_t pte = l->pte[j], va = l->va + ((uint64_t)j << 12);

			if (check_pte(s, pte) && !is_revoked(s, PTE_FRAME(pte)))
				bad += breach(out, "entry fails validation: va, pte", va, pte);
			if ((pte & PTE_P) && !count_ref(&present, PTE_FRAME(pte), 1))
				bad += breach(out, "out of memory", 0, 0);
			if (maps_writable(pte) && !count_ref(&writable, PTE_FRAME(pte), 1))
				bad += breach(out, "out of memory", 0, 0);
		}
	}
	if (registered != s->registered)
		bad += breach(out, "registered entries: counted, kept", registered, s->registered);
	if (reported != s->nreported)
		bad += breach(out, "reported entries: counted, kept", reported, s->nreported);
	bad += same_counts(out, "writable mappings: frame, kept", &writable, &s->writable);
	bad += same_counts(out, "mappings: frame, kept", &present, &s->present);
	map_free(&writable);
	map_free(&present);
	return bad;
}
