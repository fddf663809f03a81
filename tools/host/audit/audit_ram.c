// SPDX-License-Identifier: GPL-2.0
/*
 * Where the guest's RAM is, so that the page tables are read from nothing
 * else: every memory BAR in `info pci`, and the tree of the "memory"
 * address space in `info mtree` (QEMU 7.2's mtree_info_as() and
 * mtree_print_mr(), softmmu/memory.c: a region a line, "  " a level,
 * "START-END (prio P, TYPE): NAME", or "... : alias NAME @TARGET
 * OFFSET-OFFSET" for an alias).
 *
 * Not `info mtree -f`, the flat view, though it would say the same more
 * directly: after one `info mtree -f` QEMU 7.2 never completes a later
 * device_del of a PCI device (no DEVICE_DELETED, the ivshmem aperture never
 * unplugged), which the tree view leaves alone.
 *
 * A page-table pointer is the guest's to choose. QEMU's `xp` reads where
 * it points through the memory API: into a BAR's MMIO it is the device's
 * read handler, side effects and all (ivshmem's IntrStatus is cleared by
 * its read). RAM the guest cannot move devices over: the PCI address
 * space lies under RAM (pc_pci_as_mapping_init(), priority -1), so a BAR
 * placed over RAM is hidden by it. What the chipset lets the guest switch
 * below 1 MiB (VGA's window, SMRAM, the PAM segments) is never RAM here,
 * nor what is mapped beside RAM at its priority or above (q35's MMCONFIG
 * window, which the guest places).
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

/*
 * "BARn: 32 bit memory at 0x... [0x...]." after the line's indent (QEMU 10:
 * without the period): 1 and the range; 0: I/O, or a BAR not mapped (QEMU
 * 7.2 prints it at ~0, QEMU 10 "BARn: 32 bit memory (not mapped)"); -1
 */
static int bar_line(const char *p, const char *end, struct phys_range *r)
{
	uint64_t bar;

	p += 3;		/* "BAR" */
	if (hex_upto(&p, end, &bar) || bar > 6 || !starts(p, end, ": "))
		return -1;
	p += 2;
	if (starts(p, end, "I/O at 0x") || (starts(p, end, "I/O (not mapped)") && p + 16 == end))
		return 0;
	if (!starts(p, end, "32 bit ") && !starts(p, end, "64 bit "))
		return -1;
	p += 7;
	if (starts(p, end, "prefetchable "))
		p += 13;
	if (starts(p, end, "memory (not mapped)") && p + 19 == end)
		return 0;
	if (!starts(p, end, "memory at 0x"))
		return -1;
	p += 12;
	if (hex_upto(&p, end, &r->start) || !starts(p, end, " [0x"))
		return -1;
	p += 4;
	if (hex_upto(&p, end, &r->end) || !starts(p, end, "]"))
		return -1;
	p += 1 + starts(p + 1, end, ".");	/* QEMU 10 prints no period */
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

/* @line..@end in @buf for an error: 60 bytes at most, what is not printable ASCII as '?' */
static const char *shown(char *buf, size_t size, const char *line, const char *end)
{
	size_t n = 0;

	for (; line < end && n + 1 < size && n < 60; line++)
		buf[n++] = *line >= 0x20 && *line < 0x7f ? *line : '?';
	buf[n] = '\0';
	return buf;
}

/* one line of a tree: "  " a level (the root's 1), then "START-END (prio P, TYPE): REST" */
struct tree_line {
	size_t level;
	uint64_t start, end;
	int64_t prio;
	bool ram;		/* TYPE "ram", not nonvolatile */
	const char *rest;	/* the name; an alias's "alias NAME @TARGET OFFSET-OFFSET" */
	size_t len;
};

/*
 * A line of mtree_print_mr(): the range (END its last byte), the priority,
 * memory_region_type() ("nv-" before it for a nonvolatile region; an
 * alias's, the type of what it aliases), then the rest: 0 and @t, or -1.
 */
static int tree_line(const char *p, const char *end, struct tree_line *t)
{
	static const char *const types[] = { "ram)", "rom)", "ramd)", "romd)", "i/o)" };
	const char *indent = p;
	bool neg = false, nv = false;
	uint64_t prio;
	size_t k;

	while (p < end && *p == ' ')
		p++;
	if (p - indent < 2 || (p - indent) % 2)
		return -1;
	t->level = (size_t)(p - indent) / 2;
	if (hex16(&p, end, &t->start) || !starts(p, end, "-"))
		return -1;
	p++;
	if (hex16(&p, end, &t->end) || !starts(p, end, " (prio "))
		return -1;
	p += 7;
	if (starts(p, end, "-")) {
		neg = true;
		p++;
	}
	if (p == end || *p < '0' || *p > '9')
		return -1;
	for (prio = 0; p < end && *p >= '0' && *p <= '9'; p++)
		if ((prio = prio * 10 + (uint64_t)(*p - '0')) > 0x80000000ULL)
			return -1;
	if ((!neg && prio > 0x7fffffffULL) || !starts(p, end, ", "))
		return -1;
	t->prio = neg ? -(int64_t)prio : (int64_t)prio;
	p += 2;
	if (starts(p, end, "nv-")) {
		nv = true;
		p += 3;
	}
	for (k = 0; k < sizeof(types) / sizeof(types[0]); k++)
		if (starts(p, end, types[k]))
			break;
	if (k == sizeof(types) / sizeof(types[0]))
		return -1;
	t->ram = !nv && k == 0;
	p += strlen(types[k]);
	if (!starts(p, end, ": ") || end - p == 2)
		return -1;
	p += 2;
	for (const char *c = p; c < end; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return -1;
	t->rest = p;
	t->len = (size_t)(end - p);
	return t->start <= t->end ? 0 : -1;
}

/*
 * The machine's RAM: pc_memory_init() (hw/i386/pc.c) maps machine->ram
 * ("pc.ram", or the memory-backend's) into the system region through
 * these two aliases, below 4 GiB and above it.
 */
static const char *const ram_alias_names[] = { "ram-below-4g", "ram-above-4g" };

/* of a target's name, what an error shows */
#define NAME_MAX_SHOWN(a)	((int)((a)->tlen < 40 ? (a)->tlen : 40))

struct ram_alias {
	bool seen;
	uint64_t start, end;	/* where the guest sees it */
	uint64_t off;		/* where in the target it starts */
	int64_t prio;
	const char *target;
	size_t tlen;
};

/*
 * Whether @t is one of ram_alias_names[]: its index and @a; -1, none;
 * -2, one of those names, not as mtree_print_mr() prints a RAM alias
 * ("alias NAME @TARGET OFFSET-OFFSET", 16 hex digits each, of type "ram",
 * as long as the range).
 */
static int ram_alias(const struct tree_line *t, struct ram_alias *a)
{
	const char *p = t->rest, *end = t->rest + t->len, *tail, *q;
	uint64_t offend;
	int i;

	for (i = 0; i < 2; i++)
		if (starts(p, end, "alias ") && starts(p + 6, end, ram_alias_names[i]) &&
		    starts(p + 6 + strlen(ram_alias_names[i]), end, " "))
			break;
	if (i == 2)
		return -1;
	p += 6 + strlen(ram_alias_names[i]) + 1;
	if (!t->ram || end - p < 36 || *p != '@')
		return -2;
	tail = end - 34;	/* " OFFSET-OFFSET" */
	q = tail + 1;
	if (*tail != ' ' || hex16(&q, end, &a->off) || !starts(q, end, "-"))
		return -2;
	q++;
	if (hex16(&q, end, &offend) || q != end || offend < a->off ||
	    offend - a->off != t->end - t->start)
		return -2;
	a->target = ++p;
	a->tlen = (size_t)(tail - p);
	if (memchr(a->target, ' ', a->tlen))
		return -2;
	a->seen = true;
	a->start = t->start;
	a->end = t->end;
	a->prio = t->prio;
	return i;
}

/* a region mapped directly into the system region beside the RAM aliases */
struct sibling {
	uint64_t start, end;
	int64_t prio;
};

/* what `info mtree` prints: sections (the lines up to a blank one) */
enum { SEC_OTHER, SEC_AS, SEC_MR };

struct section {
	int kind;
	bool memory, cpu0;	/* SEC_AS: of address space "memory", "cpu-memory-0" */
	const char *name;	/* SEC_MR: the region's */
	size_t len;
	const char *body;	/* the first line after the header (NULL: none) */
};

/*
 * The section at *@pos, blank lines before it skipped, *@pos left at the
 * blank line after it (or NULL); false at the text's end. mtree_info_as():
 * the address spaces of a root, "address-space: NAME" each (sorted by
 * name), and the root's tree; then each region an alias aliases,
 * "memory-region: NAME" and its tree.
 */
static bool next_section(const char **pos, struct section *s)
{
	const char *line = *pos, *next = NULL, *end = NULL;

	while (line && *line && (end = line_end(line, &next)) == line)
		line = next;
	if (!line || !*line) {
		*pos = NULL;
		return false;
	}
	memset(s, 0, sizeof(*s));
	s->kind = SEC_OTHER;
	if (starts(line, end, "memory-region: ")) {
		s->kind = SEC_MR;
		s->name = line + 15;
		s->len = (size_t)(end - s->name);
		line = next;
	} else if (starts(line, end, "address-space: ")) {
		s->kind = SEC_AS;
		for (; line && *line; line = next) {
			const char *name = line + 15;

			end = line_end(line, &next);
			if (!starts(line, end, "address-space: "))
				break;
			s->memory |= end - name == 6 && !memcmp(name, "memory", 6);
			s->cpu0 |= end - name == 12 && !memcmp(name, "cpu-memory-0", 12);
		}
	}
	s->body = line && *line ? line : NULL;
	while (line && *line && line_end(line, &next) != line)
		line = next;
	*pos = line;
	return true;
}

/*
 * The tree of address space "memory" from @line: its root (the system
 * region), the RAM aliases in @alias, what else is mapped into the root
 * directly in *@sib; 0, or -1 and @err.
 */
static int memory_tree(const char *line, struct ram_alias *alias, struct sibling **sib,
		       size_t *nsib, char *err, size_t errlen)
{
	size_t nlines = 0, cap = 0;
	char buf[64];

	for (const char *next; line && *line; line = next) {
		const char *end = line_end(line, &next);
		struct tree_line t;
		struct ram_alias a;
		int i;

		if (end == line)
			break;
		if (++nlines > AUDIT_MAX_TREE) {
			snprintf(err, errlen, "`info mtree`: more than %d lines in the tree of "
				 "\"memory\"", AUDIT_MAX_TREE);
			return -1;
		}
		if (tree_line(line, end, &t)) {
			snprintf(err, errlen, "`info mtree`: a line of the tree of \"memory\" that "
				 "is not QEMU's: %s", shown(buf, sizeof(buf), line, end));
			return -1;
		}
		if ((nlines == 1) != (t.level == 1)) {
			snprintf(err, errlen, "`info mtree`: the tree of \"memory\" %s",
				 nlines == 1 ? "without its root" : "with a second root");
			return -1;
		}
		i = ram_alias(&t, &a);
		if (i == -2) {
			snprintf(err, errlen, "`info mtree`: a RAM alias that is not QEMU's: %s",
				 shown(buf, sizeof(buf), line, end));
			return -1;
		}
		if (i >= 0 && (t.level != 2 || alias[i].seen)) {
			snprintf(err, errlen, "`info mtree`: %s %s the system region", ram_alias_names[i],
				 t.level != 2 ? "not directly in" : "twice in");
			return -1;
		}
		if (i >= 0) {
			alias[i] = a;
			continue;
		}
		if (t.level != 2)
			continue;
		if (*nsib == cap) {
			size_t more = cap ? cap * 2 : 64;
			struct sibling *grown = realloc(*sib, more * sizeof(*grown));

			if (!grown) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			*sib = grown;
			cap = more;
		}
		(*sib)[(*nsib)++] = (struct sibling){ t.start, t.end, t.prio };
	}
	if (!nlines) {
		snprintf(err, errlen, "`info mtree`: an empty tree of \"memory\"");
		return -1;
	}
	return 0;
}

/*
 * The target of the RAM aliases: its "memory-region:" section, once, a
 * RAM region (its own name, no alias) from 0 holding both aliases' ranges,
 * nothing mapped into it; 0, or -1 and @err.
 */
static int ram_target(const char *text, const struct ram_alias *alias, char *err, size_t errlen)
{
	const struct ram_alias *a = &alias[0];
	uint64_t need = alias[1].seen ? alias[1].off + (alias[1].end - alias[1].start) : a->end;
	int found = 0;
	struct section s;

	for (const char *pos = text; next_section(&pos, &s);) {
		const char *line = s.body, *next, *end = NULL, *after;
		bool alone = false;
		struct tree_line t;

		if (s.kind != SEC_MR || s.len != a->tlen || memcmp(s.name, a->target, a->tlen))
			continue;
		if (found++) {
			snprintf(err, errlen, "`info mtree`: two regions named %.*s", NAME_MAX_SHOWN(a),
				 a->target);
			return -1;
		}
		if (line) {
			end = line_end(line, &next);
			/* a second line: something mapped into it */
			alone = !next || !*next || line_end(next, &after) == next;
		}
		if (!line || !alone || tree_line(line, end, &t) || t.level != 1 || !t.ram ||
		    t.start || t.end < need || t.len != a->tlen ||
		    memcmp(t.rest, a->target, a->tlen)) {
			snprintf(err, errlen, "`info mtree`: the machine's RAM %.*s is not one RAM "
				 "region from 0 that holds what its aliases map",
				 NAME_MAX_SHOWN(a), a->target);
			return -1;
		}
	}
	if (!found) {
		snprintf(err, errlen, "`info mtree`: no tree of the machine's RAM %.*s",
			 NAME_MAX_SHOWN(a), a->target);
		return -1;
	}
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct phys_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
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

/* @out: @start..@end less the @nhole @hole (sorted here); -1 past @max */
static int carve(struct phys_range *out, int *n, int max, uint64_t start, uint64_t end,
		 struct phys_range *hole, size_t nhole)
{
	uint64_t cur = start;

	qsort(hole, nhole, sizeof(*hole), by_start);
	for (size_t i = 0; i < nhole; i++) {
		if (hole[i].end < cur)
			continue;
		if (hole[i].start > end)
			break;
		if (hole[i].start > cur && add_ram(out, n, max, cur, hole[i].start - 1))
			return -1;
		if (hole[i].end >= end)
			return 0;
		cur = hole[i].end + 1;
	}
	return add_ram(out, n, max, cur, end);
}

static bool overlaps(uint64_t start, uint64_t end, uint64_t s, uint64_t e)
{
	return s <= end && start <= e;
}

int parse_mtree_ram(const char *text, const struct phys_range *bar, int nbar,
		    struct phys_range *ram, int max, char *err, size_t errlen)
{
	struct ram_alias alias[2] = { { 0 } };
	struct sibling *sib = NULL;
	struct phys_range *hole = NULL;
	size_t nsib = 0;
	int trees = 0, n = 0, rc = -1;
	struct section s;

	err[0] = '\0';
	if (nbar < 0)
		nbar = 0;
	for (const char *pos = text; next_section(&pos, &s);) {
		if (s.kind != SEC_AS || !s.memory)
			continue;
		if (trees++) {
			snprintf(err, errlen, "`info mtree`: two trees of address space \"memory\"");
			goto out;
		}
		if (!s.cpu0) {
			snprintf(err, errlen, "`info mtree`: address space \"memory\" is not vCPU "
				 "0's (cpu-memory-0), which `xp` reads through");
			goto out;
		}
		if (memory_tree(s.body, alias, &sib, &nsib, err, errlen))
			goto out;
	}
	if (!trees) {
		snprintf(err, errlen, "`info mtree`: no tree of address space \"memory\"");
		goto out;
	}
	/* below 4 GiB from 0, from the target's start; above it, the target's rest */
	if (!alias[0].seen || alias[0].start || alias[0].off || alias[0].end > 0xffffffffULL ||
	    (alias[1].seen && (alias[1].start <= alias[0].end || alias[1].off != alias[0].end + 1 ||
			       alias[1].tlen != alias[0].tlen ||
			       memcmp(alias[1].target, alias[0].target, alias[0].tlen)))) {
		snprintf(err, errlen, "`info mtree`: %s", !alias[0].seen ?
			 "no ram-below-4g in the tree of \"memory\": where the machine's RAM is" :
			 "ram-below-4g and ram-above-4g are not pc_memory_init()'s");
		goto out;
	}
	if (ram_target(text, alias, err, errlen))
		goto out;
	hole = malloc((nsib + (size_t)nbar + 1) * sizeof(*hole));
	if (!hole) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (int i = 0; i < 2 && alias[i].seen; i++) {
		uint64_t s0 = alias[i].start, e0 = alias[i].end;
		size_t nhole = 0;

		/* mapped beside it at its priority or above: what the guest sees there instead */
		for (size_t k = 0; k < nsib; k++)
			if (sib[k].prio >= alias[i].prio && overlaps(s0, e0, sib[k].start, sib[k].end))
				hole[nhole++] = (struct phys_range){ sib[k].start, sib[k].end };
		for (int k = 0; k < nbar; k++)
			if (overlaps(s0, e0, bar[k].start, bar[k].end))
				hole[nhole++] = bar[k];
		hole[nhole++] = (struct phys_range){ LEGACY_START, LEGACY_END };
		if (carve(ram, &n, max, s0, e0, hole, nhole)) {
			snprintf(err, errlen, "`info mtree`: more than %d ranges of guest RAM", max);
			goto out;
		}
	}
	if (!n) {
		snprintf(err, errlen, "`info mtree`: no guest RAM outside the legacy window and "
			 "the BARs");
		goto out;
	}
	rc = n;
out:
	free(sib);
	free(hole);
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

#define HOSTMEM_NAME	"virtio-gpu-hostmem"

/* Add [start, end] to @blob unless there: 0, or -1 when @max are held. */
static int add_blob(struct phys_range *blob, int *n, int max, uint64_t start, uint64_t end)
{
	for (int i = 0; i < *n; i++)
		if (blob[i].start == start && blob[i].end == end)
			return 0;
	if (*n >= max)
		return -1;
	blob[(*n)++] = (struct phys_range){ start, end };
	return 0;
}

/*
 * One section's tree from @line: each "virtio-gpu-hostmem" region, the
 * same @window throughout, and the regions mapped directly into it
 * (*@nblob of them in @blob). 0, or -1 and @err.
 */
#define MTREE_OVERFLOW	"[DETECTED OVERFLOW!]"

static int hostmem_tree(const char *line, struct phys_range *window, bool *seen,
			struct phys_range *blob, int *nblob, int max, char *err, size_t errlen)
{
	size_t depth = 0;	/* the window's level while inside it, else 0 */
	char buf[64];

	for (const char *next; line && *line; line = next) {
		const char *end = line_end(line, &next);
		struct tree_line t;

		if (end == line)
			break;
		if (tree_line(line, end, &t)) {
			const char *flag = line;

			/*
			 * QEMU's mtree_print_mr() flags a region whose place wraps
			 * around (a blob at an offset a guest computed wrong): that
			 * region is nowhere the tree can say. 10.0 puts the flag
			 * before the indentation, older ones after it.
			 */
			while (flag < end && *flag == ' ')
				flag++;
			if (starts(flag, end, MTREE_OVERFLOW)) {
				snprintf(err, errlen, "`info mtree`: a region QEMU flags as overflowing "
					 "(its place wrapped around): %s", shown(buf, sizeof(buf), line, end));
				return -1;
			}
			/* another kind of line (an address space's header) ends the window */
			depth = 0;
			continue;
		}
		if (depth && t.level > depth) {
			if (t.start < window->start || t.end > window->end) {
				snprintf(err, errlen, "`info mtree`: a region of %s outside it: %s",
					 HOSTMEM_NAME, shown(buf, sizeof(buf), line, end));
				return -1;
			}
			if (t.level == depth + 1 &&
			    add_blob(blob, nblob, max, t.start, t.end)) {
				snprintf(err, errlen, "`info mtree`: more than %d blobs in %s", max,
					 HOSTMEM_NAME);
				return -1;
			}
			continue;
		}
		depth = 0;
		if (t.len != strlen(HOSTMEM_NAME) || memcmp(t.rest, HOSTMEM_NAME, t.len))
			continue;
		if (*seen && (window->start != t.start || window->end != t.end)) {
			snprintf(err, errlen, "`info mtree`: two %s windows, %#" PRIx64 " and %#"
				 PRIx64 ": one virtio-gpu at most", HOSTMEM_NAME, window->start,
				 t.start);
			return -1;
		}
		*window = (struct phys_range){ t.start, t.end };
		*seen = true;
		depth = t.level;
	}
	return 0;
}

int parse_mtree_hostmem(const char *text, struct phys_range *window, struct phys_range *blob,
			int max, char *err, size_t errlen)
{
	bool seen = false;
	struct section s;
	int n = 0;

	err[0] = '\0';
	*window = (struct phys_range){ 1, 0 };
	for (const char *pos = text; next_section(&pos, &s);)
		if (s.body && hostmem_tree(s.body, window, &seen, blob, &n, max, err, errlen))
			return -1;
	if (!seen) {
		*window = (struct phys_range){ 1, 0 };
		return 0;
	}
	qsort(blob, (size_t)n, sizeof(*blob), by_start);
	for (int i = 1; i < n; i++)
		if (blob[i].start <= blob[i - 1].end) {
			snprintf(err, errlen, "`info mtree`: blobs of %s that overlap at %#" PRIx64,
				 HOSTMEM_NAME, blob[i].start);
			return -1;
		}
	return n;
}
