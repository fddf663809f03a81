// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-audit's page-table readers: QEMU's `info tlb` in each paging mode, the
 * entries it resolves, the user/kernel split, aperture overlap and live ranges,
 * `xp` tables read strictly, and the walk of guest page tables itself (every
 * mode, PTI's kernel half, failing closed, guest RAM only). test_audit.c
 * prints the results.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "test_audit.h"

/* --- info tlb ------------------------------------------------------------------------ */

void tlb_lines_by_mode(void)
{
	static const struct {
		enum paging mode;
		const char *line;
		int rc;
		uint64_t va, pa, size;
		bool size_known, pa_known;
	} t[] = {
		{ PAGING_2LEVEL, "00000000c0000000: 0000000000000000 -GPDA---W", 0,
		  0xc0000000, 0, 4 << 20, true, false },
		{ PAGING_2LEVEL, "00000000e0814000: 00000000a905a000 -G-DAC--W", 0,
		  0xe0814000, 0xa905a000, 4096, true, true },
		{ PAGING_2LEVEL, "00000000c0000000: 00000000c0200000 -GPDA---W", 0,	/* bit 21 */
		  0xc0000000, 0xc0000000, 4 << 20, true, false },
		{ PAGING_2LEVEL, "00000000c0200000: 0000000000000000 -GPDA---W", -1, 0, 0, 0, false, false },	/* unaligned */
		{ PAGING_2LEVEL, "00000000c0000000: 0000000000000000 XG-DA---W", -1, 0, 0, 0, false, false },	/* NX */
		{ PAGING_PAE, "00000000f8000000: 80000000d0000000 XGPDA---W", 0,
		  0xf8000000, 0xd0000000, 2 << 20, true, true },
		{ PAGING_PAE, "00000000f8001000: 8000000100000000 XG-DA---W", 0,
		  0xf8001000, 0x100000000, 4096, true, true },
		{ PAGING_PAE, "0000000100000000: 0000000000000000 -G-DA---W", -1, 0, 0, 0, false, false },	/* va > 4G */
		{ PAGING_4LEVEL, "ffff888100000000: 0000000100000000 XGPDA---W", 0,
		  0xffff888100000000, 0x100000000, 2 << 20, false, true },
		{ PAGING_4LEVEL, "ffffc90040000000: 0000000140200000 XGPDA---W", 0,
		  0xffffc90040000000, 0x140200000, 2 << 20, true, true },
		{ PAGING_4LEVEL, "00007f0000000000: 0000000800000000 ---DA--UW", 0,
		  0x7f0000000000, 0x800000000, 4096, true, true },
		{ PAGING_4LEVEL, "ff11000100000000: 0000000100000000 XGPDA---W", -1, 0, 0, 0, false, false },	/* 57-bit */
		{ PAGING_5LEVEL, "ff11000100000000: 0000000100000000 XGPDA---W", 0,
		  0xff11000100000000, 0x100000000, 2 << 20, false, true },
		{ PAGING_4LEVEL, "ffffc90000400000: 0000000800005000 XG-DA---Wx", -1, 0, 0, 0, false, false },
		{ PAGING_4LEVEL, "ffffc90000400000: 0000000800005000 XG-DA---", -1, 0, 0, 0, false, false },
		{ PAGING_4LEVEL, "ffffc90000400000: 0000000800005000 XG-DA--W-", -1, 0, 0, 0, false, false },	/* order */
		{ PAGING_4LEVEL, "ffffc90000400000: 0000000800005000 XG-\"A---W", -1, 0, 0, 0, false, false },
		{ PAGING_4LEVEL, "ffffc90000400000: 00000008000", -1, 0, 0, 0, false, false },
		{ PAGING_4LEVEL, "ffffc90000400000:0000000800005000 XG-DA---W", -1, 0, 0, 0, false, false },
		{ PAGING_4LEVEL, "1ffffc90000400000: 0000000800005000 XG-DA---W", -1, 0, 0, 0, false, false },
		{ PAGING_4LEVEL, "ffffc90000400000: 0040000800005000 XG-DA---W", -1, 0, 0, 0, false, false },	/* > 50 bits */
		{ PAGING_OFF, "ffffc90000400000: 0000000800005000 XG-DA---W", -1, 0, 0, 0, false, false },
	};
	int before = failures;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct cpu_paging p = { .mode = t[i].mode, .pse = true };
		struct tlb_entry e;
		int rc = parse_tlb_line(t[i].line, &p, &e);

		if (rc != t[i].rc) {
			printf("# %s: %s: rc %d\n", paging_name(t[i].mode), t[i].line, rc);
			failures++;
			continue;
		}
		if (rc)
			continue;
		if (e.va != t[i].va || e.pa != t[i].pa || e.size != t[i].size ||
		    e.size_known != t[i].size_known || e.pa_known != t[i].pa_known) {
			printf("# %s: %s: va %#" PRIx64 " pa %#" PRIx64 " size %#" PRIx64 " %d %d\n",
			       paging_name(t[i].mode), t[i].line, e.va, e.pa, e.size, e.size_known,
			       e.pa_known);
			failures++;
		}
	}
	test_result(failures == before, "tlb_lines_by_mode");
}

struct collected {
	struct tlb_entry e[16];
	int n;
};

static int collect(void *ctx, const struct tlb_entry *e)
{
	struct collected *c = ctx;

	if (c->n < 16)
		c->e[c->n] = *e;
	c->n++;
	return 0;
}

void tlb_scan_settles_or_refuses(void)
{
	struct cpu_paging p = { .mode = PAGING_4LEVEL };
	struct collected c = { .n = 0 };
	char err[256];
	int before = failures;

	/* a 2 MiB page with something else in its GiB; one with nothing: unsettled */
	CHECK(tlb_scan("ffffc90040000000: 0000000140000000 XGPDA---W\r\n"
		       "ffffc90040200000: 0000000000001000 XG-DA---W\r\n"
		       "\r\n"
		       "ffffc90080000000: 0000000180000000 XGPDA---W\r\n", &p, collect, &c,
		       err, sizeof(err)) == 0);
	CHECK(c.n == 3 && c.e[0].size_known && c.e[0].size == TLB_2M && c.e[1].size == TLB_4K &&
	      !c.e[2].size_known);
	/* out of order, overlapping, a stray line, nothing: refused */
	CHECK(tlb_scan("ffffc90040200000: 0000000000001000 XG-DA---W\n"
		       "ffffc90040000000: 0000000140000000 XGPDA---W\n", &p, collect, &c, err,
		       sizeof(err)) == -1 && strstr(err, "not past"));
	CHECK(tlb_scan("ffffc90040000000: 0000000140000000 XGPDA---W\n"
		       "ffffc90040100000: 0000000000001000 XG-DA---W\n", &p, collect, &c, err,
		       sizeof(err)) == -1 && strstr(err, "not past"));
	CHECK(tlb_scan("ffffc90040000000: 0000000140000000 XGPDA---W\nhello\n", &p, collect, &c,
		       err, sizeof(err)) == -1 && strstr(err, "line 2 is not a 4-level mapping"));
	CHECK(tlb_scan("\r\n", &p, collect, &c, err, sizeof(err)) == -1 &&
	      strstr(err, "no mappings"));
	test_result(failures == before, "tlb_scan_settles_or_refuses");
}

/* guest-physical memory for tlb_resolve(): a few entries */
struct phys {
	uint64_t addr[8], val[8];
	int n, reads;
};

static int phys_read(void *ctx, uint64_t addr, int bytes, uint64_t *val)
{
	struct phys *m = ctx;

	m->reads++;
	for (int i = 0; i < m->n; i++)
		if (m->addr[i] == addr) {
			*val = bytes == 4 ? m->val[i] & 0xffffffff : m->val[i];
			return 0;
		}
	return -1;
}

void tlb_resolve_reads_the_entries(void)
{
	struct cpu_paging p4 = { .mode = PAGING_4LEVEL, .cr3 = 0x1000 };
	struct cpu_paging p5 = { .mode = PAGING_5LEVEL, .cr3 = 0x1000 };
	struct cpu_paging p2 = { .mode = PAGING_2LEVEL, .cr3 = 0x1000, .pse = true };
	uint64_t va = 0xffff888100000000ULL;
	/* PML4 index 273, PDPT index 4 */
	struct phys m = { .n = 3,
		.addr = { 0x1000 + 273 * 8, 0x2000 + 4 * 8, 0x3000 },
		.val = { 0x2063, 0x1000000e3ULL | (1ULL << 63), 0 } };
	struct tlb_entry e = { .va = va, .pa = 0x100000000ULL, .size = TLB_2M,
			       .size_known = false, .pa_known = true };
	int before = failures;

	CHECK(tlb_resolve(&p4, &e, phys_read, &m) == 0 && e.size == TLB_1G && e.size_known);
	/* a PDPTE that points to a page directory whose entry maps 2 MiB */
	m.val[1] = 0x3063;
	m.addr[2] = 0x3000;
	m.val[2] = 0x1000000e3ULL;
	e.size = TLB_2M;
	e.size_known = false;
	CHECK(tlb_resolve(&p4, &e, phys_read, &m) == 0 && e.size == TLB_2M && e.size_known);
	/* an entry that does not map what info tlb said, or cannot be read */
	m.val[2] = 0x1002000e3ULL;
	e.size_known = false;
	CHECK(tlb_resolve(&p4, &e, phys_read, &m) == -1);
	m.val[0] = 0x2062;	/* not present */
	e.size_known = false;
	CHECK(tlb_resolve(&p4, &e, phys_read, &m) == -1);
	e.size_known = false;
	CHECK(tlb_resolve(&p5, &e, phys_read, &m) == -1);	/* no PML5 entry */
	/* 5-level: va 0xff11000100000000: PML5 index 273, PML4 0, PDPT 4 */
	m = (struct phys){ .n = 3,
		.addr = { 0x1000 + 273 * 8, 0x2000, 0x3000 + 4 * 8 },
		.val = { 0x2063, 0x3063, 0x1000000e3ULL } };
	e = (struct tlb_entry){ .va = 0xff11000100000000ULL, .pa = 0x100000000ULL,
				.size = TLB_2M, .pa_known = true };
	CHECK(tlb_resolve(&p5, &e, phys_read, &m) == 0 && e.size == TLB_1G && m.reads == 3);
	/* 2-level, PSE-36: the PDE's bits 13-20 are the address's 32-39 */
	m = (struct phys){ .n = 1, .addr = { 0x1000 + (0xa0400000 >> 22) * 4 },
			   .val = { 0xe0000000 | 1 << 13 | 0x1e3 } };
	e = (struct tlb_entry){ .va = 0xa0400000, .pa = 0xe0000000, .size = TLB_4M,
				.size_known = true };
	CHECK(tlb_resolve(&p2, &e, phys_read, &m) == 0 && e.pa == 0x1e0000000ULL && e.pa_known);
	test_result(failures == before, "tlb_resolve_reads_the_entries");
}

void user_kernel_split(void)
{
	struct tlb_entry user = { .va = 0xa0000000, .size = 4096, .flags = "---DA--UW" };
	struct tlb_entry kern = { .va = 0x400000, .size = 4096, .flags = "---DA---W" };
	struct page_offset_votes v = { { 0 } };
	int before = failures;

	CHECK(audit_classify(&user, 0xb0000000) == KIND_USER);
	CHECK(audit_classify(&user, 0x80000000) == KIND_KERNEL);	/* U, kernel half */
	CHECK(audit_classify(&user, 0) == KIND_UNDECIDED);		/* PAGE_OFFSET unknown */
	user.va = 0x3ffff000;
	CHECK(audit_classify(&user, 0) == KIND_USER);			/* below any split */
	CHECK(audit_classify(&kern, user_top(PAGING_4LEVEL)) == KIND_KERNEL);	/* no U */
	user.va = 0x00ff000000000000ULL;
	CHECK(audit_classify(&user, user_top(PAGING_5LEVEL)) == KIND_USER);
	CHECK(audit_classify(&user, user_top(PAGING_4LEVEL)) == KIND_KERNEL);
	/* the direct map says PAGE_OFFSET; a user mapping's vote does not count */
	for (uint64_t pa = 0; pa < (64 << 20); pa += 4 << 20)
		page_offset_vote(&v, &(struct tlb_entry){ .va = 0x78000000 + pa, .pa = pa,
							  .size = 4 << 20, .flags = "-GPDA---W" });
	for (uint64_t pa = 0; pa < (128 << 20); pa += 4 << 20)
		page_offset_vote(&v, &(struct tlb_entry){ .va = 0xc0000000 + pa, .pa = pa,
							  .size = 4 << 20, .flags = "--PDA--UW" });
	CHECK(page_offset_infer(&v) == 0x78000000);
	memset(&v, 0, sizeof(v));
	CHECK(page_offset_infer(&v) == 0);
	test_result(failures == before, "user_kernel_split");
}

void overlap_and_live_ranges(void)
{
	struct aperture ap[3] = {
		{ .start = 0xd0300000, .end = 0xd03fffff },
		{ .start = 0xd0380000, .end = 0xd04fffff },	/* overlaps the first */
		{ .start = 0xe0000000, .end = 0xe0ffffff },
	};
	struct live_range *r;
	long n;
	int before = failures;

	CHECK(aperture_overlap(0xd0000000, TLB_4M, ap, 3) == 1 << 20);	/* counted once */
	CHECK(aperture_overlap(0xd0000000, TLB_2M, ap, 3) == 0);
	CHECK(aperture_overlap(0xc0000000, TLB_1G, ap, 3) == (2 << 20) + (16 << 20));
	CHECK(aperture_overlap(0xfffffffffffff000ULL, 4096, ap, 3) == 0);
	n = parse_live("ffffc90000800000 4 wc\nffffc90000802000 4 wc\n"
		       "ffffc90000400000 1 slot\nnonsense\nffffc90000900000 0 wc\n", &r);
	CHECK(n == 2);
	CHECK(live_covers(r, n, 0xffffc90000800000ULL, 6 * 4096));
	CHECK(!live_covers(r, n, 0xffffc90000800000ULL, 7 * 4096));
	CHECK(live_covers(r, n, 0xffffc90000400000ULL, 4096));
	CHECK(!live_covers(r, n, 0xffffc90000401000ULL, 4096));
	CHECK(!live_covers(r, n, 0xffffc900003ff000ULL, 2 * 4096));
	CHECK(!live_covers(r, n, 0xfffffffffffff000ULL, 0x2000));	/* wraps */
	free(r);
	/* clamped at the top of the address space (whose last page cannot end) */
	n = parse_live("ffffffffffffe000 99999999 wc\n", &r);
	CHECK(n == 1 && live_covers(r, n, 0xffffffffffffe000ULL, 4096));
	CHECK(!live_covers(r, n, 0xffffffffffffe000ULL, 0x2000));
	free(r);
	test_result(failures == before, "overlap_and_live_ranges");
}

/* --- the page tables, read and walked ---------------------------------------------- */

void xp_tables_parsed_strictly(void)
{
	uint64_t v[1024];
	int before = failures;

	CHECK(parse_xp_table("0000000000104000: 0x0000000000105027 0x0000000000000000\r\n"
			     "0000000000104010: 0x8000000000000063 0x0000000000000001\r\n",
			     0x104000, 8, 4, v) == 0 &&
	      v[0] == 0x105027 && v[2] == 0x8000000000000063ULL && v[3] == 1);
	CHECK(parse_xp_table("0000000000001000: 0xf000ff53 0x00000001 0x00000002 0x00000003\r\n"
			     "0000000000001010: 0xdeadbeef\r\n", 0x1000, 4, 5, v) == 0 &&
	      v[0] == 0xf000ff53 && v[4] == 0xdeadbeef);
	/* an odd count ends with a short line */
	CHECK(parse_xp_table("0000000000002000: 0x0000000000000001 0x0000000000000002\n"
			     "0000000000002010: 0x0000000000000003\n", 0x2000, 8, 3, v) == 0);
	CHECK(parse_xp_table("0000000007fffff8: Cannot access memory\r\n", 0x7fffff8, 8, 512, v) ==
	      XP_NOT_MEMORY);
	/* what QEMU read before memory ended does not make a table */
	CHECK(parse_xp_table("0000000000002000: 0x0000000000000001 0x0000000000000002\r\n"
			     "0000000000002010: Cannot access memory\r\n", 0x2000, 8, 4, v) ==
	      XP_NOT_MEMORY);
	/* refused: another address, a value short of its width, one missing, one too many, text after */
	CHECK(parse_xp_table("0000000000003000: 0x0000000000000001 0x0000000000000002\r\n",
			     0x2000, 8, 2, v) == -1);
	CHECK(parse_xp_table("0000000000002000: 0x1 0x0000000000000002\r\n", 0x2000, 8, 2, v) == -1);
	CHECK(parse_xp_table("0000000000002000: 0x0000000000000001\r\n", 0x2000, 8, 2, v) == -1);
	CHECK(parse_xp_table("0000000000002000: 0x0000000000000001 0x0000000000000002 "
			     "0x0000000000000003\r\n", 0x2000, 8, 2, v) == -1);
	CHECK(parse_xp_table("0000000000002000: 0x0000000000000001 0x0000000000000002\r\nmore\r\n",
			     0x2000, 8, 2, v) == -1);
	CHECK(parse_xp_table("0000000000002000: 0x0000000000000001 0x0000000000000002", 0x2000, 8,
			     2, v) == -1);	/* no line end: cut short */
	CHECK(parse_xp_table("", 0x2000, 8, 2, v) == -1);
	CHECK(parse_xp_table("0000000000002000: 0x00000001\r\n", 0x2000, 8, 1, v) == -1);
	test_result(failures == before, "xp_tables_parsed_strictly");
}

/* guest-physical memory for the walker: entries by address, the rest zero */
#define MEM_MAX	64
struct mem {
	uint64_t addr[MEM_MAX], val[MEM_MAX];
	int n, reads;
	uint64_t no_memory, fail;	/* a table address QEMU says is no memory; one whose read fails */
	struct phys_range ram[2];	/* the walker's guest RAM; none: all of it */
	int nram;
	int outside;			/* reads that left it */
};

static void poke(struct mem *m, uint64_t addr, uint64_t val)
{
	m->addr[m->n] = addr;
	m->val[m->n++] = val;
}

static int mem_read(void *ctx, uint64_t addr, int bytes, int count, uint64_t *vals)
{
	struct mem *m = ctx;

	m->reads++;
	if (m->nram && !ram_holds(m->ram, m->nram, addr, (uint64_t)count * (uint64_t)bytes))
		m->outside++;
	if (addr == m->no_memory)
		return XP_NOT_MEMORY;
	if (addr == m->fail)
		return -1;
	for (int i = 0; i < count; i++) {
		vals[i] = 0;
		for (int k = 0; k < m->n; k++)
			if (m->addr[k] == addr + (uint64_t)i * (uint64_t)bytes)
				vals[i] = bytes == 4 ? m->val[k] & 0xffffffff : m->val[k];
	}
	return 0;
}

struct leaves {
	struct tlb_entry e[32];
	int n;
};

static int leaf_of(void *ctx, const struct tlb_entry *e)
{
	struct leaves *l = ctx;

	if (l->n < 32)
		l->e[l->n] = *e;
	l->n++;
	return 0;
}

/* Walk @p's tables in @m: 0 and the leaves, or -1. */
static int walk(struct mem *m, const struct cpu_paging *p, struct walk_roots *r, struct leaves *l,
		size_t max_tables)
{
	struct walker w;
	int rc;

	static const struct phys_range all = { 0, (1ULL << 52) - 1 };

	memset(l, 0, sizeof(*l));
	walker_init(&w, mem_read, m, max_tables);
	w.ram = m->nram ? m->ram : &all;
	w.nram = m->nram ? m->nram : 1;
	rc = walk_roots(&w, p, r);
	if (!rc)
		rc = walk_tables(&w, p, r, leaf_of, l);
	if (rc && !w.err[0])
		rc = -99;	/* a failure that does not say why */
	walker_free(&w);
	return rc;
}

static bool leaf_is(const struct tlb_entry *e, uint64_t va, uint64_t pa, uint64_t size, int pat,
		    const char *flags)
{
	return e->va == va && e->pa == pa && e->size == size && e->pat == pat &&
	       !strcmp(e->flags, flags) && e->size_known && e->pa_known;
}

void walk_each_mode(void)
{
	struct cpu_paging p2 = { .mode = PAGING_2LEVEL, .cr3 = 0x1000, .pse = true };
	struct cpu_paging pae = { .mode = PAGING_PAE, .cr3 = 0x1020 };
	struct cpu_paging p4 = { .mode = PAGING_4LEVEL, .cr3 = 0x1000 | 0x5 };	/* PCID 5 */
	struct cpu_paging p5 = { .mode = PAGING_5LEVEL, .cr3 = 0x1000 };
	struct walk_roots r;
	struct leaves l;
	struct mem m = { .n = 0 };
	int before = failures;

	/* 2-level: a 4 MiB page above 4 GiB (PSE-36) with its PAT bit (12), a 4 KiB one's (7) */
	poke(&m, 0x1000 + (0xa0400000 >> 22) * 4, 0xe0000000 | 1 << 13 | 0x1000 | 0x1e3);
	poke(&m, 0x1000 + (0x90000000 >> 22) * 4, 0x2000 | 0x67);
	poke(&m, 0x2000 + 5 * 4, 0xe0005000 | 0x80 | 0x8 | 0x63);
	CHECK(walk(&m, &p2, &r, &l, 16) == 0 && r.n == 1 && !r.pti && l.n == 2);
	CHECK(leaf_is(&l.e[0], 0x90005000, 0xe0005000, TLB_4K, 5, "--PDA-T-W"));
	CHECK(leaf_is(&l.e[1], 0xa0400000, 0x1e0000000ULL, TLB_4M, 4, "-GPDA---W"));
	/* without CR4.PSE the PS bit is not looked at: the entry points at a table */
	p2.pse = false;
	CHECK(walk(&m, &p2, &r, &l, 16) == 0 && l.n == 1 && l.e[0].size == TLB_4K);

	/* PAE: the PDPT at CR3's 32 bytes; a 2 MiB page with its PAT bit, NX */
	m = (struct mem){ .n = 0 };
	poke(&m, 0x1020 + 3 * 8, 0x3000 | 0x1);
	poke(&m, 0x3000 + (0xf8000000 >> 21 & 511) * 8, 0x8000000d0000000ULL | 0x1000 | 0x1e3);
	poke(&m, 0x3000 + 0 * 8, 0x4000 | 0x63);
	poke(&m, 0x4000 + 1 * 8, 0x800000000ULL | 0x10 | 0x63);
	pae.cr3 = 0x1020;
	CHECK(walk(&m, &pae, &r, &l, 16) == 0 && l.n == 2 && r.addr[0] == 0x1020);
	CHECK(leaf_is(&l.e[0], 0xc0001000, 0x800000000ULL, TLB_4K, 2, "---DAC--W"));
	CHECK(leaf_is(&l.e[1], 0xf8000000, 0xd0000000, TLB_2M, 4, "-GPDA---W") ||
	      leaf_is(&l.e[1], 0xf8000000, 0xd0000000, TLB_2M, 4, "XGPDA---W"));
	CHECK(l.e[1].flags[0] == '-');	/* bit 59 is no NX: 0x08... */

	/* 4-level: PCID bits aside; 1 GiB and 2 MiB pages, a reserved PS in the PML4 maps nothing */
	m = (struct mem){ .n = 0 };
	poke(&m, 0x1000 + 273 * 8, 0x2000 | 0x63);
	poke(&m, 0x2000 + 4 * 8, (1ULL << 63) | 0x100000000ULL | 0x1e3);
	poke(&m, 0x2000 + 5 * 8, 0x3000 | 0x63);
	poke(&m, 0x3000 + 1 * 8, 0x800200000ULL | 0x10e7);
	poke(&m, 0x1000 + 300 * 8, 0x5000 | 0xe3);
	CHECK(walk(&m, &p4, &r, &l, 16) == 0 && r.addr[0] == 0x1000 && l.n == 2);
	CHECK(leaf_is(&l.e[0], 0xffff888100000000ULL, 0x100000000ULL, TLB_1G, 0, "XGPDA---W"));
	CHECK(leaf_is(&l.e[1], 0xffff888140200000ULL, 0x800200000ULL, TLB_2M, 4, "--PDA--UW"));

	/* tables adjacent in memory are read together: the PML4, then its four PDPTs at once */
	m = (struct mem){ .n = 0 };
	for (int i = 0; i < 4; i++) {
		poke(&m, 0x2000 + i * 8, (0x10000 + i * 0x1000) | 0x63);
		poke(&m, 0x10000 + i * 0x1000, ((uint64_t)i << 30) | 0xe3);
	}
	p4.cr3 = 0x2000;
	CHECK(walk(&m, &p4, &r, &l, 16) == 0 && l.n == 4 && m.reads == 2 &&
	      leaf_is(&l.e[3], 0x18000000000ULL, 0xc0000000ULL, TLB_1G, 0, "--PDA---W"));
	/* a run that cannot be read is read a table at a time, and says why */
	m.reads = 0;
	m.no_memory = 0x10000;
	CHECK(walk(&m, &p4, &r, &l, 16) == -1 && m.reads == 3);
	/* more tables than the bound allows: no run read past it */
	m.no_memory = 0;
	m.reads = 0;
	CHECK(walk(&m, &p4, &r, &l, 4) == -1 && m.reads == 4);

	/* 5-level: one more level, addresses sign-extended from bit 56 */
	m = (struct mem){ .n = 0 };
	poke(&m, 0x1000 + 273 * 8, 0x2000 | 0x63);
	poke(&m, 0x2000 + 0 * 8, 0x3000 | 0x63);
	poke(&m, 0x3000 + 4 * 8, 0x100000000ULL | 0x1e3);
	CHECK(walk(&m, &p5, &r, &l, 16) == 0 && l.n == 1 &&
	      leaf_is(&l.e[0], 0xff11000100000000ULL, 0x100000000ULL, TLB_1G, 0, "-GPDA---W"));
	test_result(failures == before, "walk_each_mode");
}

void walk_pti_kernel_half(void)
{
	struct cpu_paging p4 = { .mode = PAGING_4LEVEL, .cr3 = 0x3000, .cpl = 3 };
	struct cpu_paging pae = { .mode = PAGING_PAE, .cr3 = 0x3000 };
	struct walk_roots r;
	struct leaves l;
	struct mem m = { .n = 0 };
	int before = failures, reads;

	/* 4-level: the user copy (CR3 0x3000) and the kernel's (0x2000); the user entry mirrored */
	poke(&m, 0x3000 + 0 * 8, 0x4000 | 0x67);
	poke(&m, 0x2000 + 0 * 8, (1ULL << 63) | 0x4000 | 0x67);
	poke(&m, 0x4000 + 0 * 8, 0x5000 | 0x67);
	poke(&m, 0x5000 + 2 * 8, 0x6000 | 0x67);
	poke(&m, 0x6000 + 0 * 8, 0x800000000ULL | 0x67);		/* user, 0x400000 */
	poke(&m, 0x2000 + 402 * 8, 0x7000 | 0x63);			/* vmalloc space */
	poke(&m, 0x7000 + 0 * 8, 0x8000 | 0x63);
	poke(&m, 0x8000 + 2 * 8, 0x9000 | 0x63);
	poke(&m, 0x9000 + 0 * 8, 0x800005000ULL | 0x163);		/* a stale kernel page */
	poke(&m, 0x3000 + 508 * 8, 0xa000 | 0x63);			/* the user copy's own */
	poke(&m, 0xa000 + 0 * 8, 0x100000000ULL | 0x1e3);
	CHECK(walk(&m, &p4, &r, &l, 32) == 0 && r.pti && r.n == 2 && r.addr[0] == 0x3000 &&
	      r.addr[1] == 0x2000);
	CHECK(l.n == 3 && l.e[0].va == 0x400000 && l.e[1].va == 0xfffffe0000000000ULL &&
	      leaf_is(&l.e[2], 0xffffc90000400000ULL, 0x800005000ULL, TLB_4K, 0, "-G-DA---W"));
	/* the user half is walked once: its tables read once */
	reads = m.reads;
	m.reads = 0;
	CHECK(walk(&m, &p4, &r, &l, 32) == 0 && m.reads == reads && m.reads == 9);
	CHECK(!r.pti_unpaired && !r.user_only);
	/*
	 * a table below that holds other user entries (a user entry written to
	 * the user copy and not yet to the kernel's, native_set_p4d()) is no
	 * kernel half: CR3's alone is walked, and it holds no kernel's
	 * mappings (it does not map itself): user tables only
	 */
	m.val[1] = 0x4000 | 0x63 | (1ULL << 63);
	m.val[1] ^= 0x1000;
	CHECK(walk(&m, &p4, &r, &l, 32) == 0 && !r.pti && r.n == 1 && l.n == 2);
	CHECK(r.pti_unpaired && !r.self_mapped && r.user_only && !r.xen_pv);
	m.val[1] ^= 0x1000;
	/* no memory below, or no RAM: the same; a read that fails there: could not check */
	m.no_memory = 0x2000;
	CHECK(walk(&m, &p4, &r, &l, 32) == 0 && !r.pti && l.n == 2 && r.user_only);
	m.no_memory = 0;
	m.ram[0] = (struct phys_range){ 0x3000, 0xbfff };
	m.nram = 1;
	CHECK(walk(&m, &p4, &r, &l, 32) == 0 && !r.pti && l.n == 2 && r.user_only && !m.outside);
	m.nram = 0;
	m.fail = 0x2000;
	CHECK(walk(&m, &p4, &r, &l, 32) == -1);
	m.fail = 0;
	/*
	 * a table that maps itself, kernel-only (a direct map), is a kernel's:
	 * not PTI, a table at an address with bit 12 set; a user mapping of it
	 * (U) is no direct map
	 */
	m.val[1] ^= 0x1000;
	poke(&m, 0x3000 + 273 * 8, 0xb000 | 0x63);
	poke(&m, 0xb000 + 0 * 8, 0x0 | 0xe3);		/* 1 GiB at pa 0: the direct map */
	CHECK(walk(&m, &p4, &r, &l, 32) == 0 && !r.pti && r.pti_unpaired && r.self_mapped &&
	      !r.user_only);
	m.val[m.n - 1] |= 0x4;
	CHECK(walk(&m, &p4, &r, &l, 32) == 0 && r.pti_unpaired && !r.self_mapped && r.user_only);
	m.n -= 2;
	m.val[1] ^= 0x1000;
	/* bit 12 clear: CR3 holds the kernel's tables, walked as they are */
	p4.cr3 = 0x2000;
	CHECK(walk(&m, &p4, &r, &l, 32) == 0 && !r.pti && l.n == 2 && !r.user_only);

	/* a Xen PV guest's user table: Xen's linear slot maps it, no guest kernel entry */
	m = (struct mem){ .n = 0 };
	poke(&m, 0x2000 + 258 * 8, 0x2000 | 0x63);
	poke(&m, 0x2000 + 511 * 8, 0x3000 | 0x67);	/* the vsyscall page's */
	CHECK(walk(&m, &p4, &r, &l, 64) == 0 && r.user_only && r.xen_pv && !r.pti);
	poke(&m, 0x2000 + 273 * 8, 0x4000 | 0x63);	/* the guest's direct map: its kernel's */
	CHECK(walk(&m, &p4, &r, &l, 64) == 0 && !r.user_only);
	m.val[0] = 0x5000 | 0x63;			/* slot 258 elsewhere: no Xen */
	m.n = 2;
	CHECK(walk(&m, &p4, &r, &l, 64) == 0 && !r.user_only);

	/* PAE (686-pae): the user PDPT at the start of the page above the kernel's */
	m = (struct mem){ .n = 0 };
	for (int i = 0; i < 3; i++) {
		poke(&m, 0x3000 + i * 8, (0x10 + i) << 12 | 0x1);
		poke(&m, 0x2000 + i * 8, (0x10 + i) << 12 | 0x1);
	}
	poke(&m, 0x3000 + 3 * 8, 0x20000 | 0x1);	/* the user copy's kernel PMD */
	poke(&m, 0x2000 + 3 * 8, 0x21000 | 0x1);	/* the kernel's */
	poke(&m, 0x21000 + 448 * 8, 0x22000 | 0x63);	/* 0xf8000000: vmalloc space */
	poke(&m, 0x22000 + 3 * 8, 0xd0003000 | 0x163);
	CHECK(walk(&m, &pae, &r, &l, 32) == 0 && r.pti && r.addr[1] == 0x2000 && l.n == 1 &&
	      leaf_is(&l.e[0], 0xf8003000, 0xd0003000, TLB_4K, 0, "-G-DA---W"));
	/* a PDPT within its page (a slab object, no PTI) has no kernel copy below */
	pae.cr3 = 0x3020;
	CHECK(walk(&m, &pae, &r, &l, 32) == 0 && !r.pti && !r.pti_unpaired && !r.user_only);
	/* nor one at the start of a page that holds more (pgd_cache's next object) */
	pae.cr3 = 0x3000;
	poke(&m, 0x3000 + 4 * 8, 0x23000 | 0x1);
	CHECK(walk(&m, &pae, &r, &l, 32) == 0 && !r.pti && r.pti_unpaired && r.user_only);
	/* which, mapping itself (the kernel's direct map, at 0xc0000000), is a kernel's */
	poke(&m, 0x20000 + 0 * 8, 0x0 | 0xe3);
	CHECK(walk(&m, &pae, &r, &l, 32) == 0 && r.pti_unpaired && r.self_mapped && !r.user_only);
	test_result(failures == before, "walk_pti_kernel_half");
}

void walk_fails_closed(void)
{
	struct cpu_paging p4 = { .mode = PAGING_4LEVEL, .cr3 = 0x1000 };
	struct walk_roots r;
	struct leaves l;
	struct mem m = { .n = 0 };
	int before = failures;

	poke(&m, 0x1000 + 1 * 8, 0x2000 | 0x63);
	poke(&m, 0x2000 + 0 * 8, 0x3000 | 0x63);
	poke(&m, 0x3000 + 0 * 8, 0x4000 | 0x63);
	poke(&m, 0x4000 + 0 * 8, 0x800000000ULL | 0x63);
	CHECK(walk(&m, &p4, &r, &l, 16) == 0 && l.n == 1);
	/* a table that cannot be read, where one should be */
	m.fail = 0x3000;
	CHECK(walk(&m, &p4, &r, &l, 16) == -1);
	m.fail = 0;
	m.no_memory = 0x4000;
	CHECK(walk(&m, &p4, &r, &l, 16) == -1);
	m.no_memory = 0;
	CHECK(walk(&m, &p4, &r, &l, 3) == -1);	/* more tables than allowed */
	/*
	 * a loop: each level's entries point back at the PML4: 585 tables
	 * walked of one table read, past a bound of 64: could not check (under 600,
	 * the walk ends, every page mapping the PML4)
	 */
	m = (struct mem){ .n = 0 };
	for (int i = 0; i < 8; i++)
		poke(&m, 0x1000 + i * 8, 0x1000 | 0x63);
	CHECK(walk(&m, &p4, &r, &l, 64) == -1 && m.reads == 2);	/* and the PTI probe below */
	CHECK(walk(&m, &p4, &r, &l, 600) == 0 && l.n == 4096);
	/* no paging, or a mode it does not know */
	p4.mode = PAGING_OFF;
	CHECK(walk(&m, &p4, &r, &l, 16) == -1);
	test_result(failures == before, "walk_fails_closed");
}

void walk_reads_guest_ram_only(void)
{
	struct cpu_paging p4 = { .mode = PAGING_4LEVEL, .cr3 = 0x100000 };
	struct walk_roots r;
	struct leaves l;
	struct mem m = { .n = 0 };
	struct walker w;
	int before = failures;

	m.ram[0] = (struct phys_range){ 0, 0x9ffff };
	m.ram[1] = (struct phys_range){ 0x100000, 0x3ffffff };
	m.nram = 2;
	poke(&m, 0x100000 + 1 * 8, 0x101000 | 0x63);
	poke(&m, 0x101000 + 0 * 8, 0x102000 | 0x63);
	poke(&m, 0x102000 + 0 * 8, 0x103000 | 0x63);
	poke(&m, 0x103000 + 0 * 8, 0x800000000ULL | 0x63);
	CHECK(walk(&m, &p4, &r, &l, 16) == 0 && l.n == 1 && !m.outside);
	/* a table pointer into a BAR's registers (ivshmem's IntrStatus clears on read): not read */
	poke(&m, 0x100000 + 300 * 8, 0xfebf0000 | 0x63);
	m.reads = 0;
	CHECK(walk(&m, &p4, &r, &l, 16) == -1 && !m.outside && m.reads == 4);
	/* nor into the legacy window, nor CR3 itself outside RAM */
	m.val[m.n - 1] = 0xa0000 | 0x63;
	CHECK(walk(&m, &p4, &r, &l, 16) == -1 && !m.outside);
	m.n--;
	p4.cr3 = 0xfe000000;
	m.reads = 0;
	CHECK(walk(&m, &p4, &r, &l, 16) == -1 && m.reads == 0);
	p4.cr3 = 0x100000;
	/*
	 * adjacent tables at RAM's end and past it: the run stops at RAM's end
	 * (one read of the two in RAM), the one past it is not read
	 */
	m = (struct mem){ .n = 0, .ram = { { 0, 0x9ffff }, { 0x100000, 0x3ffffff } }, .nram = 2 };
	poke(&m, 0x100000 + 0 * 8, 0x101000 | 0x63);
	for (int i = 0; i < 3; i++)
		poke(&m, 0x101000 + i * 8, (0x3ffe000 + i * 0x1000) | 0x63);
	CHECK(walk(&m, &p4, &r, &l, 16) == -1 && !m.outside && m.reads == 3);
	/* the reason says where, and that it was not read */
	walker_init(&w, mem_read, &m, 16);
	w.ram = m.ram;
	w.nram = m.nram;
	CHECK(walk_roots(&w, &p4, &r) == 0 && walk_tables(&w, &p4, &r, leaf_of, &l) == -1 &&
	      strstr(w.err, "page table at pa 0x4000000 is not guest RAM"));
	walker_free(&w);
	/* a walker with no RAM given reads nothing */
	m.reads = 0;
	walker_init(&w, mem_read, &m, 16);
	CHECK(walk_roots(&w, &p4, &r) == -1 && m.reads == 0 && strstr(w.err, "not guest RAM"));
	walker_free(&w);
	test_result(failures == before, "walk_reads_guest_ram_only");
}
