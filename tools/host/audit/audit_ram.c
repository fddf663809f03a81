// SPDX-License-Identifier: GPL-2.0
/*
 * Where the guest's RAM is, so that the page tables are read from nothing
 * else: every memory BAR in `info pci`, and the flat view of the "memory"
 * address space in `info mtree -f` (QEMU 7.2's mtree_print_flatview(),
 * softmmu/memory.c: a range a line, "  START-END (prio P, TYPE): NAME",
 * " @OFFSET" after a region seen from an offset into it).
 *
 * A page-table pointer is the guest's to choose. QEMU's `xp` reads where
 * it points through the memory API: into a BAR's MMIO it is the device's
 * read handler, side effects and all (ivshmem's IntrStatus is cleared by
 * its read). RAM the guest cannot move devices over: the PCI address
 * space lies under RAM (pc_pci_as_mapping_init(), priority -1), so a BAR
 * placed over RAM is hidden by it. What the chipset lets the guest switch
 * below 1 MiB (VGA's window, SMRAM, the PAM segments) is never RAM here.
 */
#include "audit_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEGACY_START	0xa0000ULL	/* VGA, SMRAM, PAM: the guest switches them */
#define LEGACY_END	0xfffffULL

/* [p, end) as one line of @text: end at its '\n' (or NUL), a '\r' before it left out */
static const char *line_end(const char *p, const char **next)
{
	const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);

	*next = nl ? nl + 1 : NULL;
	if (end > p && end[-1] == '\r')
		end--;
	return end;
}

static bool starts(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(end - p) >= n && !memcmp(p, s, n);
}

/* 1..16 hex digits at *pp, before @end: 0, *pp past them; or -1 */
static int hex_upto(const char **pp, const char *end, uint64_t *v)
{
	const char *p = *pp;
	int n = 0;

	*v = 0;
	while (p < end && hexval(*p) >= 0) {
		if (++n > 16)
			return -1;
		*v = *v << 4 | (uint64_t)hexval(*p++);
	}
	*pp = p;
	return n ? 0 : -1;
}

/* exactly 16 hex digits (TARGET_FMT_plx) */
static int hex16(const char **pp, const char *end, uint64_t *v)
{
	const char *p = *pp;

	if (hex_upto(pp, end, v) || *pp - p != 16)
		return -1;
	return 0;
}

/* "BARn: 32 bit memory at 0x... [0x...]." after the line's indent: 1 and the range; 0: I/O; -1 */
static int bar_line(const char *p, const char *end, struct phys_range *r)
{
	uint64_t bar;

	p += 3;		/* "BAR" */
	if (hex_upto(&p, end, &bar) || bar > 6 || !starts(p, end, ": "))
		return -1;
	p += 2;
	if (starts(p, end, "I/O at 0x"))
		return 0;
	if (!starts(p, end, "32 bit ") && !starts(p, end, "64 bit "))
		return -1;
	p += 7;
	if (starts(p, end, "prefetchable "))
		p += 13;
	if (!starts(p, end, "memory at 0x"))
		return -1;
	p += 12;
	if (hex_upto(&p, end, &r->start) || !starts(p, end, " [0x"))
		return -1;
	p += 4;
	if (hex_upto(&p, end, &r->end) || !starts(p, end, "]."))
		return -1;
	p += 2;
	while (p < end && *p == ' ')
		p++;
	return p == end ? 1 : -1;
}

int parse_pci_bars(const char *text, struct phys_range *bar, int max)
{
	int n = 0;

	for (const char *line = text, *next; line && *line; line = next) {
		const char *end = line_end(line, &next), *p = line;
		struct phys_range r;
		int rc;

		while (p < end && *p == ' ')
			p++;
		if (!starts(p, end, "BAR"))
			continue;
		rc = bar_line(p, end, &r);
		if (rc < 0)
			return -1;
		/* unmapped: QEMU prints PCI_BAR_UNMAPPED (~0), the end wrapping below it */
		if (!rc || r.end < r.start)
			continue;
		if (n < max)
			bar[n] = r;
		if (n < 1 << 30)
			n++;
	}
	return n;
}

/* one range of the flat view */
struct flat {
	uint64_t start, end;
	const char *name;
	size_t len;
	bool ram;
};

/*
 * "  START-END (prio P, TYPE): NAME[ @OFFSET]": 0 and @f, or -1. TYPE as
 * memory_region_type() names it, "nv-" before it for a nonvolatile one
 * (no RAM of the auditor's: only "ram" is).
 */
static int range_line(const char *p, const char *end, struct flat *f)
{
	static const char *const types[] = { "ram)", "rom)", "ramd)", "romd)", "i/o)" };
	const char *name;
	uint64_t prio;
	size_t t;

	if (!starts(p, end, "  "))
		return -1;
	p += 2;
	if (hex16(&p, end, &f->start) || !starts(p, end, "-"))
		return -1;
	p++;
	if (hex16(&p, end, &f->end) || !starts(p, end, " (prio "))
		return -1;
	p += 7;
	if (starts(p, end, "-"))
		p++;
	if (p == end || *p < '0' || *p > '9')
		return -1;
	for (prio = 0; p < end && *p >= '0' && *p <= '9'; p++)
		if ((prio = prio * 10 + (uint64_t)(*p - '0')) > 0x80000000ULL)
			return -1;
	if (!starts(p, end, ", "))
		return -1;
	p += 2;
	f->ram = false;
	if (starts(p, end, "nv-"))
		p += 3;
	else
		f->ram = starts(p, end, "ram)");
	for (t = 0; t < sizeof(types) / sizeof(types[0]); t++)
		if (starts(p, end, types[t]))
			break;
	if (t == sizeof(types) / sizeof(types[0]))
		return -1;
	p += strlen(types[t]);
	if (!starts(p, end, ": "))
		return -1;
	name = p + 2;
	/* " @" and 16 hex digits at the end: the offset into the region, no part of its name */
	if (end - name > 18 && end[-18] == ' ' && end[-17] == '@') {
		const char *off = end - 16;
		uint64_t v;

		if (!hex16(&off, end, &v))
			end -= 18;
	}
	if (end == name)
		return -1;
	for (const char *c = name; c < end; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return -1;
	f->name = name;
	f->len = (size_t)(end - name);
	return f->start <= f->end ? 0 : -1;
}

static bool same_name(const struct flat *a, const struct flat *b)
{
	return a->len == b->len && !memcmp(a->name, b->name, a->len);
}

static bool overlaps(uint64_t start, uint64_t end, const struct phys_range *r, int n)
{
	for (int i = 0; i < n; i++)
		if (r[i].start <= end && start <= r[i].end)
			return true;
	return false;
}

/* @out: @start..@end appended, merged with the range before it when adjacent; -1 past @max */
static int add_ram(struct phys_range *out, int *n, int max, uint64_t start, uint64_t end)
{
	if (*n && out[*n - 1].end + 1 == start) {
		out[*n - 1].end = end;
		return 0;
	}
	if (*n == max)
		return -1;
	out[(*n)++] = (struct phys_range){ start, end };
	return 0;
}

enum { OUTSIDE, HEADER, BODY };

int parse_mtree_ram(const char *text, const struct phys_range *bar, int nbar,
		    struct phys_range *ram, int max, char *err, size_t errlen)
{
	struct flat *flat = NULL, *taint = NULL;
	size_t nflat = 0, capflat = 0, nranges = 0, ntaint = 0;
	int state = OUTSIDE, views = 0, n = 0, rc = -1;
	bool memory = false, cpu0 = false, odd = false, target = false, any = false;
	uint64_t last = 0;

	err[0] = '\0';
	for (const char *line = text, *next; line && *line; line = next) {
		const char *end = line_end(line, &next);
		struct flat f;

		if (starts(line, end, "FlatView #")) {
			state = HEADER;
			memory = cpu0 = odd = target = false;
			continue;
		}
		if (state == HEADER) {
			if (starts(line, end, " AS \"")) {
				const char *name = line + 5, *q = memchr(name, '"', (size_t)(end - name));

				if (!q || !starts(q, end, "\", root: ")) {
					odd = true;
					continue;
				}
				memory |= q - name == 6 && !memcmp(name, "memory", 6);
				cpu0 |= q - name == 12 && !memcmp(name, "cpu-memory-0", 12);
			} else if (starts(line, end, " Root memory region: ")) {
				state = BODY;
				if (!memory)
					continue;
				if (odd || !cpu0) {
					snprintf(err, errlen, odd ? "`info mtree -f`: a header line of the "
						 "flat view of \"memory\" that is not QEMU's" :
						 "`info mtree -f`: the flat view of \"memory\" is not vCPU "
						 "0's (cpu-memory-0), which `xp` reads through");
					goto out;
				}
				target = ++views == 1;
			} else {
				odd = true;
			}
			continue;
		}
		if (state != BODY || !target)
			continue;
		if (line == end) {		/* a blank line: the view's end */
			state = OUTSIDE;
			target = false;
			continue;
		}
		if (starts(line, end, "  No rendered FlatView") && end - line == 22)
			continue;
		if (range_line(line, end, &f)) {
			snprintf(err, errlen, "`info mtree -f`: a line of the flat view of \"memory\" "
				 "that is not a range: %.60s", line);
			goto out;
		}
		if (any && f.start <= last) {
			snprintf(err, errlen, "`info mtree -f`: ranges out of order at %#" PRIx64,
				 f.start);
			goto out;
		}
		any = true;
		last = f.end;
		if (++nranges > AUDIT_MAX_FLAT) {
			snprintf(err, errlen, "`info mtree -f`: more than %d ranges in the flat view "
				 "of \"memory\"", AUDIT_MAX_FLAT);
			goto out;
		}
		if (!f.ram)
			continue;
		if (nflat == capflat) {
			size_t cap = capflat ? capflat * 2 : 64;
			struct flat *more = realloc(flat, cap * sizeof(*more));

			if (!more) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			flat = more;
			capflat = cap;
		}
		flat[nflat++] = f;
	}
	if (views != 1) {
		snprintf(err, errlen, "`info mtree -f`: %s flat view of address space \"memory\"",
			 views ? "more than one" : "no");
		goto out;
	}
	/* a device's RAM: what overlaps a BAR, and every range of a region so named */
	taint = malloc((nflat ? nflat : 1) * sizeof(*taint));
	if (!taint) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nflat; i++) {
		bool seen = false;

		if (!overlaps(flat[i].start, flat[i].end, bar, nbar))
			continue;
		for (size_t k = 0; k < ntaint && !seen; k++)
			seen = same_name(&taint[k], &flat[i]);
		if (!seen) {
			if (ntaint == AUDIT_MAX_BARS) {
				snprintf(err, errlen, "`info mtree -f`: RAM of more than %d devices",
					 AUDIT_MAX_BARS);
				goto out;
			}
			taint[ntaint++] = flat[i];
		}
	}
	for (size_t i = 0; i < nflat; i++) {
		uint64_t s = flat[i].start, e = flat[i].end;
		bool device = false;

		for (size_t k = 0; k < ntaint && !device; k++)
			device = same_name(&taint[k], &flat[i]);
		if (device)
			continue;
		/* less the legacy window: what lies below it, and above */
		if (s < LEGACY_START && add_ram(ram, &n, max, s, e < LEGACY_START ? e : LEGACY_START - 1))
			goto too_many;
		if (e > LEGACY_END && add_ram(ram, &n, max, s > LEGACY_END ? s : LEGACY_END + 1, e))
			goto too_many;
	}
	if (!n) {
		snprintf(err, errlen, "`info mtree -f`: no guest RAM in the flat view of \"memory\"");
		goto out;
	}
	rc = n;
	goto out;
too_many:
	snprintf(err, errlen, "`info mtree -f`: more than %d ranges of guest RAM", max);
out:
	free(flat);
	free(taint);
	return rc;
}

bool ram_holds(const struct phys_range *ram, int n, uint64_t addr, uint64_t len)
{
	uint64_t last = addr + (len - 1);

	if (!len || last < addr)
		return false;
	for (int i = 0; i < n; i++)
		if (ram[i].start <= addr && last <= ram[i].end)
			return true;
	return false;
}
