// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for pvmap-audit's QMP reader and parsers.
 *
 * Input: two control bytes, then a QMP byte stream. The first byte seeds
 * the sizes of the reads the stream arrives in (and whether the source
 * fails), the second sets the reader's line limit; the stream's replies go
 * through qmp_next_reply() as pvmap-audit reads them, and each reply's
 * text, and the whole input as text, to every parser: info pci (its
 * apertures, and every BAR), info mtree (guest RAM, less those BARs),
 * info cpus, info registers, xp (one value, and whole tables), info tlb
 * under each paging mode (with the entries of tlb_resolve() read from the
 * input too), pvmap's live table, --pat and json_quote(). The input is
 * also guest memory whose page tables are walked in each mode, from a CR3
 * the input gives, under PTI or not, in guest RAM the input gives: no
 * table is read outside it. Invariants that pvmap-audit relies on abort
 * when broken.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit_parse.h"

struct fuzz_source {
	const uint8_t *data;
	size_t len, pos;
	uint32_t rng;
};

static uint32_t next_rng(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static long fuzz_read(void *ctx, char *buf, size_t len)
{
	struct fuzz_source *s = ctx;
	uint32_t r = next_rng(&s->rng);
	size_t n = s->len - s->pos;

	if ((r & 0xff) == 0x5a)		/* now and then, the socket fails */
		return -5;
	if (r & 0x100)			/* a short read */
		n = n < 1 + (r >> 9) % 61 ? n : 1 + (r >> 9) % 61;
	if (n > len)
		n = len;
	memcpy(buf, s->data + s->pos, n);
	s->pos += n;
	return (long)n;
}

/* guest-physical memory, made up from the input */
struct fuzz_mem {
	const uint8_t *data;
	size_t len;
};

static int fuzz_phys(void *ctx, uint64_t addr, int bytes, uint64_t *val)
{
	const struct fuzz_mem *m = ctx;
	uint64_t h = 0xcbf29ce484222325ULL ^ addr;

	if (!m->len || m->data[addr % m->len] == 0)
		return -1;
	for (int i = 0; i < 8; i++)
		h = (h ^ m->data[(addr + (uint64_t)i) % m->len]) * 0x100000001b3ULL;
	/* present, and often a large page */
	*val = (h | 1) & (bytes == 4 ? 0xffffffffULL : UINT64_MAX);
	return 0;
}

/*
 * Page tables: the input is memory, repeated (address modulo its length),
 * laid out once with a run of tables' worth more of it after its end, so
 * that a read is one copy (the fuzzer's coverage counts every byte loop).
 */
#define FUZZ_RUN	2	/* adjacent tables in one read */
#define FUZZ_SPAN	(FUZZ_RUN * 4096)

struct fuzz_tables {
	const uint8_t *data;
	size_t len;
	uint8_t *mem;		/* len + FUZZ_SPAN bytes */
	struct phys_range ram[2];
};

static int fuzz_table(void *ctx, uint64_t addr, int bytes, int count, uint64_t *vals)
{
	const struct fuzz_tables *m = ctx;
	const uint8_t *at = m->mem + addr % m->len;

	/* a table, a PDPT, or a run of at most FUZZ_RUN tables: no more */
	if ((bytes != 4 && bytes != 8) || count < 1 || (size_t)count * (size_t)bytes > FUZZ_SPAN)
		abort();
	/* guest RAM alone: never a device's */
	if (!ram_holds(m->ram, 2, addr, (uint64_t)count * (uint64_t)bytes))
		abort();
	if (*at == 0xee)	/* now and then, no memory there */
		return XP_NOT_MEMORY;
	if (*at == 0xef)	/* or a failed read */
		return -1;
	if (bytes == 8) {
		memcpy(vals, at, (size_t)count * 8);	/* little-endian, as x86 */
	} else {
		for (int i = 0; i < count; i++) {
			uint32_t v;

			memcpy(&v, at + 4 * i, 4);
			vals[i] = v;
		}
	}
	return 0;
}

struct fuzz_walk {
	const struct cpu_paging *p;
	const struct walk_roots *r;
	uint64_t last_va;
	int n, resets;
};

static int check_leaf(void *ctx, const struct tlb_entry *e)
{
	struct fuzz_walk *w = ctx;
	enum paging m = w->p->mode;

	if (!e->size_known || !e->pa_known || e->pat < 0 || e->pat > 7)
		abort();
	if (!(e->size == TLB_4K || (e->size == TLB_4M && m == PAGING_2LEVEL) ||
	      (e->size == TLB_2M && m >= PAGING_PAE) || (e->size == TLB_1G && m >= PAGING_4LEVEL)))
		abort();
	if ((e->va | e->pa) & (e->size - 1))
		abort();
	if (m <= PAGING_PAE && (e->va >> 32 || (e->va + e->size - 1) >> 32))
		abort();
	for (int i = 0; i < 9; i++)
		if (e->flags[i] != '-' && e->flags[i] != "XGPDACTUW"[i])
			abort();
	if (e->flags[9] || (m == PAGING_2LEVEL && e->flags[0] != '-'))
		abort();
	/* in order within a root; the kernel's root, under PTI, starts again */
	if (w->n++ && e->va <= w->last_va && (w->r->n < 2 || w->resets++))
		abort();
	w->last_va = e->va;
	return 0;
}

#define FUZZ_TABLES	3

static void walk_every_mode(const uint8_t *data, size_t size)
{
	struct fuzz_tables mem = { data, size, NULL, { { 0 } } };
	uint64_t cr3 = 0, cut;

	if (size < 8)
		return;
	mem.mem = malloc(size + FUZZ_SPAN);
	if (!mem.mem)
		return;
	for (size_t at = 0; at < size + FUZZ_SPAN; at += size)
		memcpy(mem.mem + at, data, at + size <= size + FUZZ_SPAN ? size : size + FUZZ_SPAN - at);
	for (int i = 0; i < 8; i++)
		cr3 = cr3 << 8 | data[i];
	/* RAM: two ranges, with a hole the input places (among the tables, often) */
	cut = (cr3 >> 12 & 0xfffff) << 12;
	mem.ram[0] = (struct phys_range){ 0, cut + (data[size - 1] & 0x7) * 0x1000 + 0xfff };
	mem.ram[1] = (struct phys_range){ mem.ram[0].end + 1 + (data[size - 2] & 0x3) * 0x1000,
					  (1ULL << 52) - 1 };
	/* the mode from the last byte: one walk an input, of a few tables */
	{
		enum paging m = PAGING_2LEVEL + data[size - 1] % 4;
		struct cpu_paging p = { .mode = m, .pse = cr3 & 0x10, .cr3 = cr3 };
		struct walker w;
		struct walk_roots r;

		walker_init(&w, fuzz_table, &mem, FUZZ_TABLES);
		w.max_run = FUZZ_RUN;
		w.ram = mem.ram;
		w.nram = 2;
		if (!walk_roots(&w, &p, &r)) {
			struct fuzz_walk fw = { .p = &p, .r = &r };
			int rc;

			if (r.n < 1 || r.n > 2 || r.pti != (r.n == 2) ||
			    (r.pti && (m == PAGING_2LEVEL || (r.addr[0] ^ r.addr[1]) != 0x1000)))
				abort();
			/* CR3's bit 12 and no kernel table beside: one table, no Xen's */
			if (r.pti_unpaired && (r.pti || r.xen_pv || m == PAGING_2LEVEL ||
					       !(r.addr[0] & 0x1000)))
				abort();
			if (r.user_only != r.xen_pv)
				abort();	/* no walk yet: only Xen's is known */
			rc = walk_tables(&w, &p, &r, check_leaf, &fw);
			if (rc < 0 && !w.err[0])
				abort();	/* a failure always says why */
			/* walked: an unpaired table that does not map itself holds a user half alone */
			if (!rc && r.user_only != (r.xen_pv || (r.pti_unpaired && !r.self_mapped)))
				abort();
			if (w.visits > FUZZ_TABLES + 1 || w.ntables > FUZZ_TABLES)
				abort();
		} else if (!w.err[0]) {
			abort();
		}
		walker_free(&w);
	}
	free(mem.mem);
}

struct fuzz_scan {
	const struct cpu_paging *p;
	struct fuzz_mem mem;
	struct aperture ap[2];
	struct page_offset_votes votes;
	uint64_t last_va;
	int n;
};

static int check_entry(void *ctx, const struct tlb_entry *entry)
{
	struct fuzz_scan *s = ctx;
	struct tlb_entry e = *entry;

	if (e.size != TLB_4K && e.size != TLB_2M && e.size != TLB_4M)
		abort();
	if ((e.va | e.pa) & (e.size - 1))
		abort();
	if (!e.size_known && (s->p->mode < PAGING_4LEVEL || e.size != TLB_2M))
		abort();
	if (!e.pa_known && (s->p->mode != PAGING_2LEVEL || e.size != TLB_4M))
		abort();
	if (s->n++ && e.va <= s->last_va)	/* in order */
		abort();
	s->last_va = e.va;
	if (!e.size_known || !e.pa_known) {
		if (!tlb_resolve(s->p, &e, fuzz_phys, &s->mem)) {
			if (!e.size_known || !e.pa_known ||
			    (e.size != TLB_2M && e.size != TLB_1G && e.size != TLB_4M) ||
			    (e.pa & (e.size - 1)))
				abort();
		}
	}
	if (aperture_overlap(e.pa, e.size, s->ap, 2) > e.size)
		abort();
	if (s->p->mode <= PAGING_PAE)
		page_offset_vote(&s->votes, &e);
	if (audit_classify(&e, user_top(s->p->mode)) == KIND_UNDECIDED &&
	    s->p->mode >= PAGING_4LEVEL)
		abort();
	return 0;
}

static void printable_or_die(const char *q)
{
	for (; *q; q++)
		if (*q < 0x20 || *q > 0x7e)
			abort();
}

/* virtio-gpu's window in info mtree: the blobs inside it, sorted and apart */
static void vgpu_window(const char *text)
{
	struct phys_range window, blob[8];
	char err[256];
	int n = parse_mtree_hostmem(text, &window, blob, 8, err, sizeof(err));

	if (n < -1 || n > 8 || (n < 0 && !err[0]) || (n > 0 && window.start > window.end))
		abort();
	for (int i = 0; i < n; i++)
		if (blob[i].start > blob[i].end || blob[i].start < window.start ||
		    blob[i].end > window.end || (i && blob[i].start <= blob[i - 1].end))
			abort();
}

/* info pci's BARs, and the guest RAM of info mtree less them */
static void guest_ram(const char *text)
{
	struct phys_range bar[16], ram[8];
	char err[256];
	int nbar = parse_pci_bars(text, bar, 16), n;

	if (nbar < -1)
		abort();
	for (int i = 0; i < nbar && i < 16; i++)
		if (bar[i].start > bar[i].end)
			abort();	/* an unmapped one is left out */
	nbar = nbar < 0 ? 0 : nbar > 16 ? 16 : nbar;
	n = parse_mtree_ram(text, bar, nbar, ram, 8, err, sizeof(err));
	if (n < -1 || n == 0 || n > 8 || (n < 0 && !err[0]))
		abort();
	for (int i = 0; i < n; i++) {
		/* sorted, apart, merged; no BAR's; not the legacy window; each held by ram_holds() */
		if (ram[i].start > ram[i].end || (i && ram[i].start <= ram[i - 1].end + 1))
			abort();
		for (int b = 0; b < nbar; b++)
			if (bar[b].start <= ram[i].end && ram[i].start <= bar[b].end)
				abort();
		if (ram[i].start <= 0xfffff && ram[i].end >= 0xa0000)
			abort();
		if (!ram_holds(ram, n, ram[i].start, ram[i].end - ram[i].start + 1) ||
		    (ram[i].end < UINT64_MAX && ram_holds(ram, n, ram[i].end, 2)))
			abort();
	}
}

static void exercise(const char *text, const uint8_t *data, size_t size)
{
	struct aperture ap[AUDIT_MAX_APERTURES];
	struct live_range *live;
	struct cpu_paging p;
	int idx[64];
	uint64_t v;
	long n;
	char err[256], *q, *line, *back;
	bool lossy;

	if (parse_info_pci(text, ap, AUDIT_MAX_APERTURES) < 0)
		abort();
	guest_ram(text);
	vgpu_window(text);
	parse_info_cpus(text, idx, 64);
	if (!parse_info_registers(text, &p))
		parse_xp(text, p.cr3, &v);
	parse_xp(text, strtoull(text, NULL, 16), &v);	/* at the address it names */
	for (int k = 0; k < 4; k++) {
		static const int counts[] = { 512, 4, 1024, 3 };
		uint64_t vals[1024];
		int rc = parse_xp_table(text, strtoull(text, NULL, 16), k == 2 || k == 3 ? 4 : 8,
					counts[k], vals);

		if (rc != 0 && rc != -1 && rc != XP_NOT_MEMORY)
			abort();
	}
	if (!pat_parse(text, &v))
		for (int k = 0; k < 8; k++)
			if (!strcmp(pat_type(v, k), "?"))
				abort();
	for (enum paging m = PAGING_2LEVEL; m <= PAGING_5LEVEL; m++) {
		struct cpu_paging mp = { .mode = m, .pse = size & 1, .cr3 = size * 4096 };
		struct fuzz_scan s = {
			.p = &mp, .mem = { data, size },
			.ap = { { .start = 0xe0000000, .end = 0xe0ffffff },
				{ .start = 0x800000000ULL, .end = 0x83fffffffULL } },
		};

		tlb_scan(text, &mp, check_entry, &s, err, sizeof(err));
		page_offset_infer(&s.votes);
	}
	n = parse_live(text, &live);
	if (n > 0) {
		for (long i = 1; i < n; i++)	/* sorted, disjoint */
			if (live[i].va <= live[i - 1].va + (live[i - 1].npages * 4096 - 1))
				abort();
		if (!live_covers(live, n, live[0].va, live[0].npages * 4096))
			abort();
	}
	free(live);
	q = json_quote(text, strlen(text), &lossy);
	if (!q)
		abort();
	printable_or_die(q);
	/* what pvmap-audit quotes, a JSON reader reads back */
	line = malloc(strlen(q) + 16);
	if (line) {
		strcpy(line, "{\"return\": ");
		strcat(line, q);
		strcat(line, "}");
		enum qmp_line kind = qmp_classify(line, &back);

		if (!lossy && (kind != QMP_RETURN || !back || strcmp(back, text)))
			abort();
		free(back);
		free(line);
	}
	free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_source src;
	struct qmp_reader r;
	char *text, err[256];

	if (size < 2)
		return 0;
	src = (struct fuzz_source){ .data = data + 2, .len = size - 2, .rng = data[0] | 0x100u };
	qmp_reader_init(&r, fuzz_read, &src, 16 + (size_t)data[1] * 32);
	for (int i = 0; i < 64; i++) {
		int rc = qmp_next_reply(&r, &text, err, sizeof(err));

		if (rc < 0)
			break;
		if (text) {
			exercise(text, data, size);
			free(text);
		}
	}
	qmp_reader_free(&r);
	walk_every_mode(data, size);

	/* the whole input, as text: a monitor command's reply as it could come */
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	exercise(text, data, size);
	free(text);
	return 0;
}
