// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's page tables, read from its memory and walked as its CPU
 * walks them: 2-level (4 MiB pages under CR4.PSE, their address bits
 * above 4 GiB in PSE-36's bits 13-20), PAE, 4- and 5-level. A table is
 * read whole, once, and kept for every vCPU that walks it (the kernel's
 * are shared). Under page-table isolation a vCPU in user space has the
 * user tables loaded, which hold no vmalloc or ioremap mapping: the
 * kernel's top-level table is the 4 KiB below (Linux allocates the two as
 * one 8 KiB block, arch/x86/include/asm/pgalloc.h's PGD_ALLOCATION_ORDER,
 * and flips CR3's bit 12, PTI_PGTABLE_SWITCH_BIT, between them; under
 * PAE the 32-byte PDPT at CR3 is the first of its page), and is walked
 * too. A table is read only from guest RAM (walker.ram): a table pointer
 * is the guest's to choose, and `xp` of a device's MMIO is the device's
 * read, side effects and all.
 */
#include "audit_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PT_PRESENT	0x1ULL
#define PT_PWT		0x8ULL
#define PT_PCD		0x10ULL
#define PT_PS		0x80ULL		/* a large page; PAT in a 4 KiB entry */
#define PT_PAT_LARGE	0x1000ULL
#define PT_NX		(1ULL << 63)
#define PT_ADDR		0x000ffffffffff000ULL	/* MAXPHYADDR 52 */
#define PTI_SWITCH	0x1000ULL		/* CR3's bit 12: the user tables */

/* Kinds of table, in a cache key's low bits (tables are 32-byte aligned). */
enum { TABLE_512X8 = 1, TABLE_1024X4 = 2, TABLE_PDPT = 3 };

struct walk_table {
	uint64_t key;		/* address | kind; 0: a free slot */
	uint64_t *e;
};

/* One paging mode: its levels from the top, and which of them map large pages. */
struct mode {
	int levels;
	int shift[5];
	int count[5];		/* entries per table */
	int bytes;		/* of an entry */
	unsigned int large;	/* bit L: a PS entry at level L is a leaf */
	unsigned int ps_reserved; /* bit L: PS at level L is reserved: the entry maps nothing */
	int va_bits;		/* canonical width */
};

static const struct mode modes[] = {
	[PAGING_2LEVEL] = { 2, { 22, 12 }, { 1024, 1024 }, 4, 1u << 0, 0, 32 },
	[PAGING_PAE] = { 3, { 30, 21, 12 }, { 4, 512, 512 }, 8, 1u << 1, 0, 32 },
	[PAGING_4LEVEL] = { 4, { 39, 30, 21, 12 }, { 512, 512, 512, 512 }, 8,
			    1u << 1 | 1u << 2, 1u << 0, 48 },
	[PAGING_5LEVEL] = { 5, { 48, 39, 30, 21, 12 }, { 512, 512, 512, 512, 512 }, 8,
			    1u << 2 | 1u << 3, 1u << 0 | 1u << 1, 57 },
};

void walker_init(struct walker *w, table_read_fn read, void *ctx, size_t max_tables)
{
	memset(w, 0, sizeof(*w));
	w->read = read;
	w->ctx = ctx;
	w->max_tables = max_tables;
	w->max_run = WALK_RUN;
}

void walker_free(struct walker *w)
{
	for (size_t i = 0; i < w->cap; i++)
		free(w->slots[i].e);
	free(w->slots);
	w->slots = NULL;
	w->cap = w->ntables = 0;
}

static size_t slot_of(const struct walker *w, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(h >> 32) & (w->cap - 1);

	while (w->slots[i].key && w->slots[i].key != key)
		i = (i + 1) & (w->cap - 1);
	return i;
}

static int grow(struct walker *w)
{
	size_t cap = w->cap ? w->cap * 2 : 1024;
	struct walk_table *old = w->slots, *slots = calloc(cap, sizeof(*slots));
	size_t oldcap = w->cap;

	if (!slots)
		return -1;
	w->slots = slots;
	w->cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].key)
			w->slots[slot_of(w, old[i].key)] = old[i];
	free(old);
	return 0;
}

static uint64_t key_of(uint64_t addr, int bytes, int count)
{
	return addr | (count == 4 ? TABLE_PDPT : bytes == 4 ? TABLE_1024X4 : TABLE_512X8);
}

static const uint64_t *cached(const struct walker *w, uint64_t key)
{
	return w->cap ? w->slots[slot_of(w, key)].e : NULL;
}

/* Whether no more tables may be read (w->err says so). */
static bool full(struct walker *w)
{
	if (w->ntables < w->max_tables)
		return false;
	snprintf(w->err, sizeof(w->err), "more than %zu page tables: could not read them all "
		 "(--max-tables)", w->max_tables);
	return true;
}

/* Keep @e (malloc()ed) under @key: 0, or -1 (w->err; @e freed) past a bound. */
static int store(struct walker *w, uint64_t key, uint64_t *e)
{
	if (cached(w, key)) {	/* read before: the first read stands */
		free(e);
		return 0;
	}
	if (full(w)) {
		free(e);
		return -1;
	}
	if ((w->ntables + 1) * 2 > w->cap && grow(w)) {
		snprintf(w->err, sizeof(w->err), "out of memory at %zu page tables", w->ntables);
		free(e);
		return -1;
	}
	w->slots[slot_of(w, key)] = (struct walk_table){ .key = key, .e = e };
	w->ntables++;
	return 0;
}

/* Why a table was not read. */
enum miss {
	MISS_ERROR = 1,		/* a read that failed, a bound: could not check */
	MISS_NO_MEMORY,		/* QEMU says there is no memory there */
	MISS_NOT_RAM,		/* not guest RAM: not read */
};

/*
 * The @count entries of @bytes of the table at @addr, read once: NULL
 * (w->err) when it cannot be, *miss saying why.
 */
static const uint64_t *table(struct walker *w, uint64_t addr, int bytes, int count,
			     enum miss *miss)
{
	uint64_t key = key_of(addr, bytes, count);
	const uint64_t *have = cached(w, key);
	uint64_t *e;
	int rc;

	*miss = MISS_ERROR;
	if (have)
		return have;
	if (!ram_holds(w->ram, w->nram, addr, (uint64_t)count * (uint64_t)bytes)) {
		*miss = MISS_NOT_RAM;
		snprintf(w->err, sizeof(w->err), "the page table at pa %#" PRIx64 " is not guest "
			 "RAM: not read (a device's memory, whose reads have effects?)", addr);
		return NULL;
	}
	if (full(w))
		return NULL;
	e = malloc((size_t)count * sizeof(*e));
	if (!e) {
		snprintf(w->err, sizeof(w->err), "out of memory at %zu page tables", w->ntables);
		return NULL;
	}
	rc = w->read(w->ctx, addr, bytes, count, e);
	if (rc) {
		free(e);
		if (rc == XP_NOT_MEMORY)
			*miss = MISS_NO_MEMORY;
		snprintf(w->err, sizeof(w->err), "cannot read the page table at pa %#" PRIx64 "%s",
			 addr, rc == XP_NOT_MEMORY ? ": QEMU says there is no memory there" : "");
		return NULL;
	}
	return store(w, key, e) ? NULL : e;
}

static uint64_t root_of(const struct cpu_paging *p)
{
	switch (p->mode) {
	case PAGING_2LEVEL: return p->cr3 & 0xfffff000ULL;
	case PAGING_PAE: return p->cr3 & 0xffffffe0ULL;	/* the 32-byte PDPT */
	default: return p->cr3 & PT_ADDR;		/* PCID in bits 0-11 */
	}
}

/*
 * Whether @k is the kernel's top-level table of the user one @u under
 * PTI: Linux mirrors every user entry into the user copy (pti.c,
 * __pti_set_user_pgtbl(), NX added on the kernel's side). Under PAE the
 * two are whole pages (not pgd_cache's 32-byte objects: SHARED_KERNEL_PMD
 * is off under PTI), zeroed but for their four PDPTEs, all present
 * (pgd_prepopulate_pmd(), pgd_prepopulate_user_pmd()); the first PDPTE is
 * user space whatever the VMSPLIT. A table that just happens to lie below
 * another cannot hold the same present user entries.
 */
static bool pti_pair(const struct mode *m, const uint64_t *u, const uint64_t *k)
{
	bool pae = m->count[0] == 4;
	int user = pae ? 1 : m->count[0] / 2;	/* entries surely user space */
	bool present = false;

	for (int i = 0; i < user; i++) {
		if ((u[i] ^ k[i]) & ~PT_NX)
			return false;
		present |= u[i] & PT_PRESENT;
	}
	for (int i = 0; pae && i < 512; i++)
		if (i < 4 ? !(u[i] & k[i] & PT_PRESENT) : u[i] | k[i])
			return false;
	return present;
}

/*
 * Whether @t, the 4-level table at @root, is a Xen PV guest's user table:
 * Xen's linear page-table slot (PML4 entry 258, LINEAR_PT_VIRT_START)
 * maps it onto itself, and the guest kernel's part (entries 272-510; 511
 * holds the vsyscall page) is empty. Linux under Xen PV keeps its user
 * tables apart from the kernel's (xen_get_user_pgd()), and Xen, not a CR3
 * bit, switches between them: nothing says where the kernel's is.
 */
static bool xen_pv_user(const uint64_t *t, uint64_t root)
{
	if (!(t[258] & PT_PRESENT) || (t[258] & PT_ADDR) != root)
		return false;
	for (int i = 272; i < 511; i++)
		if (t[i] & PT_PRESENT)
			return false;
	return true;
}

int walk_roots(struct walker *w, const struct cpu_paging *p, struct walk_roots *r)
{
	const struct mode *m;
	const uint64_t *u, *k;
	uint64_t root = root_of(p), *pdpt;
	bool pae = p->mode == PAGING_PAE;
	enum miss miss;

	memset(r, 0, sizeof(*r));
	if (p->mode < PAGING_2LEVEL || p->mode > PAGING_5LEVEL) {
		snprintf(w->err, sizeof(w->err), "no paging to walk");
		return -1;
	}
	m = &modes[p->mode];
	r->addr[r->n++] = root;
	u = table(w, root, m->bytes, m->count[0], &miss);
	if (!u)
		return -1;
	r->xen_pv = r->user_only = p->mode == PAGING_4LEVEL && xen_pv_user(u, root);
	/* 2-level paging has no PTI; under PAE the PDPT must start its page */
	if (p->mode == PAGING_2LEVEL || !(root & PTI_SWITCH) || (root & 0xfe0))
		return 0;
	/* the two pages, whole; under PAE more than the PDPT the walk reads */
	u = table(w, root, 8, 512, &miss);
	k = u ? table(w, root & ~PTI_SWITCH, 8, 512, &miss) : NULL;
	if (!k && miss == MISS_ERROR)
		return -1;	/* a failed read: could not check */
	if (!k || !pti_pair(m, u, k)) {
		/*
		 * No kernel's table there (no memory, no RAM, other user
		 * entries): not PTI, or PTI's pair caught between the writes of
		 * an entry. Which, the walk tells (walk_tables(): self_mapped).
		 */
		w->err[0] = '\0';
		r->pti_unpaired = !r->xen_pv;
		return 0;
	}
	r->addr[r->n++] = root & ~PTI_SWITCH;
	r->pti = true;
	if (!pae || cached(w, key_of(r->addr[1], 8, 4)))
		return 0;
	/* the kernel's PDPT, as the walk will want it */
	pdpt = malloc(4 * sizeof(*pdpt));
	if (!pdpt) {
		snprintf(w->err, sizeof(w->err), "out of memory");
		return -1;
	}
	memcpy(pdpt, k, 4 * sizeof(*pdpt));
	return store(w, key_of(r->addr[1], 8, 4), pdpt);
}

struct walk {
	struct walker *w;
	const struct mode *m;
	const struct cpu_paging *p;
	tlb_fn fn;
	void *ctx;
	bool check_self, self_mapped;	/* whether a kernel (not U) leaf maps page self */
	uint64_t self;
};

/* 4- and 5-level addresses sign-extended from their top bit, as QEMU prints them */
static uint64_t canonical(uint64_t va, int bits)
{
	return bits > 32 && va & (1ULL << (bits - 1)) ? va | ~((1ULL << bits) - 1) : va;
}

static int leaf(struct walk *k, uint64_t va, uint64_t ent, int level)
{
	static const char letters[] = "XGPDACTUW";
	static const uint64_t bits[] = { PT_NX, 0x100, PT_PS, 0x40, 0x20, PT_PCD, PT_PWT, 0x4,
					 0x2 };
	int shift = k->m->shift[level];
	struct tlb_entry e = {
		.va = canonical(va, k->m->va_bits),
		.size = 1ULL << shift,
		.size_known = true,
		.pa_known = true,
	};
	bool large = shift > 12;

	for (int i = 0; i < 9; i++)
		e.flags[i] = ent & bits[i] ? letters[i] : '-';
	e.flags[9] = '\0';
	e.pat = (ent & PT_PWT ? 1 : 0) | (ent & PT_PCD ? 2 : 0) |
		(ent & (large ? PT_PAT_LARGE : PT_PS) ? 4 : 0);
	if (k->m->bytes == 4 && large)	/* PSE-36: bits 32-39 in 13-20 */
		e.pa = (ent & 0xffc00000ULL) | ((ent >> 13) & 0xff) << 32;
	else
		e.pa = ent & PT_ADDR & ~(e.size - 1);
	if (k->check_self && e.flags[TLB_FLAG_U] != 'U' && k->self - e.pa < e.size)
		k->self_mapped = true;
	return k->fn(k->ctx, &e);
}

enum entry_is { ENTRY_NONE, ENTRY_LEAF, ENTRY_TABLE };

/* What entry @ent of a table at @level is; *child: the table it points at. */
static enum entry_is entry_is(const struct walk *k, uint64_t ent, int level, uint64_t *child)
{
	const struct mode *m = k->m;

	if (!(ent & PT_PRESENT))
		return ENTRY_NONE;
	if (ent & PT_PS && m->ps_reserved & 1u << level)
		return ENTRY_NONE;	/* a reserved bit: the CPU faults, nothing is mapped */
	if (level == m->levels - 1 ||
	    (ent & PT_PS && m->large & 1u << level && (m->bytes == 8 || k->p->pse)))
		return ENTRY_LEAF;
	*child = m->bytes == 4 ? ent & 0xfffff000ULL : ent & PT_ADDR;
	return ENTRY_TABLE;
}

/*
 * The table at @addr, at @level, mapping from @va; entries that equal
 * @skip's (but for NX) are left out: the user tables already walked.
 */
static int walk_level(struct walk *k, uint64_t addr, int level, uint64_t va, const uint64_t *skip)
{
	const struct mode *m = k->m;
	const uint64_t *t;
	enum miss miss;
	int rc;

	if (++k->w->visits > k->w->max_tables) {
		snprintf(k->w->err, sizeof(k->w->err), "more than %zu page tables in one walk: "
			 "a loop in the tables? (--max-tables)", k->w->max_tables);
		return -1;
	}
	t = table(k->w, addr, m->bytes, m->count[level], &miss);
	if (!t)
		return -1;
	for (int i = 0; i < m->count[level]; i++) {
		uint64_t ent = t[i], at = va + ((uint64_t)i << m->shift[level]), child;

		if (skip && !((ent ^ skip[i]) & ~PT_NX))
			continue;
		switch (entry_is(k, ent, level, &child)) {
		case ENTRY_LEAF:
			rc = leaf(k, at, ent, level);
			break;
		case ENTRY_TABLE:
			rc = walk_level(k, child, level + 1, at, NULL);
			break;
		default:
			rc = 0;
		}
		if (rc)
			return rc;
	}
	return 0;
}

static int addr_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Read the @n tables at @addr[] (sorted) of @level, those adjacent in
 * memory in one read each run: a round trip to QEMU costs about what a
 * table does, and Linux allocates many tables together (the direct map's
 * and the kernel's at boot). A run stays in guest RAM: a table that is
 * not, and the tables past it, are not in it. What cannot be read is left
 * to the walk, which reads its tables one by one and says why.
 */
static void read_runs(struct walker *w, const struct mode *m, int level, const uint64_t *addr,
		      size_t n)
{
	int count = m->count[level], bytes = m->bytes;
	uint64_t size = (uint64_t)count * (uint64_t)bytes;

	for (size_t j = 0, k; j < n; j = k) {
		uint64_t *run;
		size_t len;

		if (!ram_holds(w->ram, w->nram, addr[j], size)) {
			k = j + 1;	/* the walk says so, if it gets there */
			continue;
		}
		for (k = j + 1; k < n && k - j < w->max_run && addr[k] == addr[k - 1] + size &&
		     ram_holds(w->ram, w->nram, addr[j], (k - j + 1) * size); k++)
			;
		if (w->ntables + (k - j) > w->max_tables)
			return;
		len = (k - j) * (size_t)count;
		run = malloc(len * sizeof(*run));
		if (!run)
			return;
		if (!w->read(w->ctx, addr[j], bytes, (int)len, run)) {
			for (size_t t = j; t < k; t++) {
				uint64_t *e = malloc((size_t)count * sizeof(*e));

				if (!e)
					break;
				memcpy(e, run + (t - j) * (size_t)count, (size_t)count * sizeof(*e));
				if (store(w, key_of(addr[t], bytes, count), e))
					break;
			}
		}
		free(run);
	}
}

/*
 * Before a walk, read the tables it will need, a level at a time, those
 * adjacent in memory together (read_runs()). Tables already read were
 * walked, and what they point at read, before.
 */
static void prefetch(struct walk *k, const struct walk_roots *r)
{
	const struct mode *m = k->m;
	struct walker *w = k->w;
	uint64_t *cur = NULL, *next = NULL, child;
	size_t ncur = 0, nnext = 0;

	for (int i = 0; i < r->n; i++) {
		enum miss miss;

		if (!table(w, r->addr[i], m->bytes, m->count[0], &miss))
			return;
	}
	for (int level = 0; level < m->levels - 1; level++) {
		size_t cap = 0;

		nnext = 0;
		for (size_t t = 0; t < (level ? ncur : (size_t)r->n); t++) {
			uint64_t addr = level ? cur[t] : r->addr[t];
			const uint64_t *e = cached(w, key_of(addr, m->bytes, m->count[level]));

			for (int i = 0; e && i < m->count[level]; i++) {
				if (entry_is(k, e[i], level, &child) != ENTRY_TABLE ||
				    cached(w, key_of(child, m->bytes, m->count[level + 1])))
					continue;
				if (nnext == cap) {
					uint64_t *more;

					if (nnext >= w->max_tables)	/* the walk will say */
						goto out;
					cap = cap ? cap * 2 : 64;
					more = realloc(next, cap * sizeof(*more));
					if (!more)
						goto out;
					next = more;
				}
				next[nnext++] = child;
			}
		}
		if (!nnext)
			break;
		qsort(next, nnext, sizeof(*next), addr_cmp);
		ncur = 0;
		for (size_t b = 0; b < nnext; b++)	/* each once */
			if (!ncur || next[b] != next[ncur - 1])
				next[ncur++] = next[b];
		nnext = ncur;
		read_runs(w, m, level + 1, next, nnext);
		free(cur);
		cur = next;
		ncur = nnext;
		next = NULL;
	}
out:
	free(cur);
	free(next);
}

int walk_tables(struct walker *w, const struct cpu_paging *p, struct walk_roots *r,
		tlb_fn fn, void *ctx)
{
	struct walk k = {
		.w = w, .p = p, .fn = fn, .ctx = ctx,
		/* the page of an unpaired PTI table: mapped by a kernel (not U) leaf? */
		.check_self = r->pti_unpaired, .self = r->addr[0] & ~0xfffULL,
	};
	const uint64_t *user;
	enum miss miss;
	int rc;

	if (p->mode < PAGING_2LEVEL || p->mode > PAGING_5LEVEL || r->n < 1 || r->n > 2) {
		snprintf(w->err, sizeof(w->err), "no paging to walk");
		return -1;
	}
	k.m = &modes[p->mode];
	w->visits = 0;
	prefetch(&k, r);
	rc = walk_level(&k, r->addr[0], 0, 0, NULL);
	if (!rc && r->pti_unpaired) {
		/* a kernel's table (its direct map) maps itself; PTI's user copy does not */
		r->self_mapped = k.self_mapped;
		r->user_only = r->xen_pv || !k.self_mapped;
	}
	if (rc || r->n == 1)
		return rc;
	/* the kernel's top-level entries that the user one has too are walked */
	user = table(w, r->addr[0], k.m->bytes, k.m->count[0], &miss);
	return user ? walk_level(&k, r->addr[1], 0, 0, user) : -1;
}

/* The encodings of PAT entries, and how Linux names them (x86/PAT's boot line). */
static const char *const pat_names[8] = { "UC", "WC", "?", "?", "WT", "WP", "WB", "UC-" };

const char *pat_type(uint64_t msr, int index)
{
	uint64_t type = index < 0 || index > 7 ? 0xff : (msr >> (8 * index)) & 0xff;

	return type < 8 ? pat_names[type] : "?";
}

int pat_parse(const char *s, uint64_t *msr)
{
	const char *p = skip_ws(s);
	uint64_t v = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		if (hex_field(&p, &v) || *skip_ws(p))
			return -1;
		for (int i = 0; i < 8; i++)
			if (!strcmp(pat_type(v, i), "?"))
				return -1;
		*msr = v;
		return 0;
	}
	for (int i = 0; i < 8; i++) {
		size_t len = strcspn(p, " \t,");
		int t;

		for (t = 7; t >= 0; t--)
			if (pat_names[t][0] != '?' && strlen(pat_names[t]) == len &&
			    !strncmp(p, pat_names[t], len))
				break;
		if (t < 0)
			return -1;
		v |= (uint64_t)t << (8 * i);
		p += len;
		p += strspn(p, " \t,");
	}
	if (*p)
		return -1;
	*msr = v;
	return 0;
}
