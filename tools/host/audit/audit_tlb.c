// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's page tables from `info tlb`: one line, a whole listing,
 * entries resolved through the tables themselves (`xp`), and what an entry
 * is to the audit (the kernel's page offset, user or kernel, an aperture).
 */
#include "audit_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char tlb_letters[] = "XGPDACTUW";

/* va sign-extended from bit @bits - 1, as addr_canonical() prints it */
static bool canonical(uint64_t va, int bits)
{
	uint64_t top = va >> (bits - 1);

	return top == 0 || top == (UINT64_MAX >> (bits - 1));
}

int parse_tlb_line(const char *line, const struct cpu_paging *p, struct tlb_entry *e)
{
	const char *s = line;
	uint64_t va, pa, psize = TLB_4K, pamask;
	bool large;

	if (hex_field(&s, &va) || strncmp(s, ": ", 2))
		return -1;
	s += 2;
	if (hex_field(&s, &pa) || *s++ != ' ')
		return -1;
	for (int i = 0; i < 9; i++)
		if (s[i] != '-' && s[i] != tlb_letters[i])
			return -1;
	memcpy(e->flags, s, 9);
	e->flags[9] = '\0';
	e->pat = -1;	/* a 4 KiB entry's PAT bit is not printed, a large one's is masked */
	if (*skip_line_end(s + 9))
		return -1;
	large = e->flags[2] == 'P';
	e->size_known = e->pa_known = true;
	switch (p->mode) {
	case PAGING_2LEVEL:
		/* 32-bit entries: no NX; 'P' only for a 4 MiB page, under CR4.PSE */
		if (va >> 32 || pa >> 32 || e->flags[0] == 'X' || (large && !p->pse))
			return -1;
		if (large) {
			psize = TLB_4M;
			e->pa_known = false;	/* PSE-36: bits 32-39 are not printed */
		}
		pamask = 0xffffffffULL;
		break;
	case PAGING_PAE:
		/* the printed entry keeps NX and the bits above the address */
		if (va >> 32)
			return -1;
		psize = large ? TLB_2M : TLB_4K;
		pamask = 0x000fffffffffffffULL;
		break;
	case PAGING_4LEVEL:
	case PAGING_5LEVEL:
		if (!canonical(va, p->mode == PAGING_4LEVEL ? 48 : 57) || pa & ~0x3fffffffff000ULL)
			return -1;
		psize = large ? TLB_2M : TLB_4K;
		if (large && !(va & (TLB_1G - 1)) && !(pa & (TLB_1G - 1)))
			e->size_known = false;	/* 2 MiB or 1 GiB */
		pamask = 0x3fffffffff000ULL;
		break;
	default:
		return -1;
	}
	if (va & (psize - 1))
		return -1;
	pa &= pamask & ~(psize - 1);
	e->va = va;
	e->pa = pa;
	e->size = psize;
	return 0;
}

int tlb_scan(const char *text, const struct cpu_paging *p, tlb_fn fn, void *ctx,
	     char *err, size_t errlen)
{
	struct tlb_entry prev, cur;
	bool have = false;
	long lines = 0;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[128];
		int rc;

		lines++;
		if (len >= sizeof(buf)) {
			snprintf(err, errlen, "info tlb line %ld is not a mapping (%zu bytes)",
				 lines, len);
			return -1;
		}
		memcpy(buf, line, len);
		buf[len] = '\0';
		line = nl ? nl + 1 : NULL;
		if (!*skip_line_end(buf))
			continue;
		if (parse_tlb_line(buf, p, &cur)) {
			snprintf(err, errlen, "info tlb line %ld is not a %s mapping: %.60s", lines,
				 paging_name(p->mode), buf);
			return -1;
		}
		if (have) {
			/* QEMU walks the tables in order: each line past the last */
			if (cur.va <= prev.va || cur.va - prev.va < prev.size) {
				snprintf(err, errlen, "info tlb line %ld (va %#" PRIx64 ") is not "
					 "past the page before it (va %#" PRIx64 ")", lines, cur.va,
					 prev.va);
				return -1;
			}
			/* something else mapped in its GiB: a 2 MiB page */
			if (!prev.size_known && cur.va - prev.va < TLB_1G)
				prev.size_known = true;
			rc = fn(ctx, &prev);
			if (rc)
				return rc;
		}
		prev = cur;
		have = true;
	}
	if (!have) {
		snprintf(err, errlen, "info tlb lists no mappings");
		return -1;
	}
	return fn(ctx, &prev);
}

#define PT_PRESENT	0x1ULL
#define PT_PS		0x80ULL
#define PT_ADDR		0x3fffffffff000ULL	/* as QEMU's walk masks it */

int tlb_resolve(const struct cpu_paging *p, struct tlb_entry *e, phys_read_fn rd, void *ctx)
{
	uint64_t table, ent, va = e->va;

	if (p->mode == PAGING_2LEVEL && !e->pa_known) {
		uint64_t low = e->pa;

		if (rd(ctx, (p->cr3 & 0xfffff000ULL) + (va >> 22) * 4, 4, &ent) ||
		    (ent & (PT_PRESENT | PT_PS)) != (PT_PRESENT | PT_PS) ||
		    (ent & 0xffc00000ULL) != low)
			return -1;
		e->pa = (ent & 0xffc00000ULL) | ((ent >> 13) & 0xff) << 32;
		e->pa_known = true;
		return 0;
	}
	if (p->mode < PAGING_4LEVEL || e->size_known)
		return e->pa_known && e->size_known ? 0 : -1;
	table = p->cr3 & PT_ADDR;
	for (int shift = p->mode == PAGING_5LEVEL ? 48 : 39; shift >= 21; shift -= 9) {
		if (rd(ctx, table + ((va >> shift) & 511) * 8, 8, &ent) || !(ent & PT_PRESENT))
			return -1;
		if (shift == 30 && (ent & PT_PS)) {
			if ((ent & 0x3ffffc0000000ULL) != e->pa)
				return -1;
			e->size = TLB_1G;
			e->size_known = true;
			return 0;
		}
		if (shift == 21) {
			if (!(ent & PT_PS) || (ent & 0x3ffffffe00000ULL) != e->pa)
				return -1;
			e->size = TLB_2M;
			e->size_known = true;
			return 0;
		}
		if (ent & PT_PS)	/* a large page above the PDPT: reserved */
			return -1;
		table = ent & PT_ADDR;
	}
	return -1;
}

uint64_t user_top(enum paging mode)
{
	switch (mode) {
	case PAGING_4LEVEL: return 0x0000800000000000ULL;
	case PAGING_5LEVEL: return 0x0100000000000000ULL;
	default: return 0;
	}
}

/* VMSPLIT_3G, 3G_OPT, 2G, 2G_OPT, 1G */
const uint64_t audit_page_offsets[AUDIT_N_PAGE_OFFSETS] = {
	0xc0000000ULL, 0xb0000000ULL, 0x80000000ULL, 0x78000000ULL, 0x40000000ULL,
};

void page_offset_vote(struct page_offset_votes *v, const struct tlb_entry *e)
{
	if (e->flags[TLB_FLAG_U] == 'U' || e->pa >> 32 || e->va >> 32)
		return;
	for (int i = 0; i < AUDIT_N_PAGE_OFFSETS; i++)
		if (e->va >= audit_page_offsets[i] && e->va - audit_page_offsets[i] == e->pa)
			v->bytes[i] += e->size;
}

uint64_t page_offset_infer(const struct page_offset_votes *v)
{
	int best = -1;
	bool tie = false;

	for (int i = 0; i < AUDIT_N_PAGE_OFFSETS; i++) {
		if (best < 0 || v->bytes[i] > v->bytes[best]) {
			best = i;
			tie = false;
		} else if (v->bytes[i] == v->bytes[best]) {
			tie = true;
		}
	}
	return tie || v->bytes[best] < (1ULL << 20) ? 0 : audit_page_offsets[best];
}

enum audit_kind audit_classify(const struct tlb_entry *e, uint64_t top)
{
	if (e->flags[TLB_FLAG_U] != 'U')
		return KIND_KERNEL;
	if (top)
		return e->va < top ? KIND_USER : KIND_KERNEL;
	/* below the lowest PAGE_OFFSET of any VMSPLIT, it is user space whatever the split */
	return e->va + e->size <= audit_page_offsets[AUDIT_N_PAGE_OFFSETS - 1] ?
		KIND_USER : KIND_UNDECIDED;
}

uint64_t aperture_overlap(uint64_t pa, uint64_t size, const struct aperture *ap, int nap)
{
	uint64_t part[AUDIT_MAX_AP_TOTAL][2], last = pa + (size - 1), sum = 0;
	int n = 0;

	if (!size)
		return 0;
	if (last < pa)
		last = UINT64_MAX;
	for (int a = 0; a < nap && n < AUDIT_MAX_AP_TOTAL; a++) {
		uint64_t s = ap[a].start > pa ? ap[a].start : pa;
		uint64_t e = ap[a].end < last ? ap[a].end : last;
		int i;

		if (s > e)
			continue;
		/* insert, sorted by start */
		for (i = n; i > 0 && part[i - 1][0] > s; i--) {
			part[i][0] = part[i - 1][0];
			part[i][1] = part[i - 1][1];
		}
		part[i][0] = s;
		part[i][1] = e;
		n++;
	}
	for (int i = 0; i < n;) {
		uint64_t s = part[i][0], e = part[i][1];

		for (i++; i < n && part[i][0] <= e + 1 && e != UINT64_MAX; i++)
			if (part[i][1] > e)
				e = part[i][1];
		sum += e - s + 1;
	}
	return sum;
}
