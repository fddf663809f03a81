/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsers of pvmap-audit: the QMP byte stream (framed into lines by a
 * reader that any byte source can drive), QMP reply lines, the text of the
 * human-monitor commands it runs (info pci, info mtree, info cpus,
 * info registers, info tlb, xp) and pvmap's live table (debugfs
 * pvmap/live); the JSON quoting of what it prints; and the walk of the
 * page tables it reads from guest RAM (audit_walk.c, audit_ram.c). Pure
 * functions on untrusted input: fuzzed by tools/host/audit/fuzz_audit.c,
 * unit-tested by tests/unit/test_audit.c.
 *
 * Nothing here drops what it cannot hold: a parser that stops short says
 * so, and pvmap-audit then exits 2 (could not check), never 0.
 */
#ifndef PVMAP_AUDIT_PARSE_H
#define PVMAP_AUDIT_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* --- the QMP stream ------------------------------------------------------- */

enum qmp_line {
	QMP_MALFORMED,
	QMP_GREETING,		/* {"QMP": ...} */
	QMP_RETURN,		/* {"return": ...}; *text set when it is a string */
	QMP_ERROR,		/* {"error": ...}; *text is its "desc" if found */
	QMP_EVENT,		/* {"event": ...} */
};

/*
 * Classify one line (without its newline) of a QMP stream. For QMP_RETURN
 * with a string value and for QMP_ERROR, *text receives a malloc()ed,
 * decoded copy (UTF-8; the caller frees it); otherwise it is set to NULL.
 * A string with an escaped NUL (\u0000), a raw control character or a bad
 * escape is malformed: decoded text is never silently cut short.
 */
enum qmp_line qmp_classify(const char *line, char **text);

/* A source of bytes: > 0 bytes read, 0 end of stream, < 0 a -errno. */
typedef long (*qmp_read_fn)(void *ctx, char *buf, size_t len);

/* Frames a QMP stream into lines, whatever the sizes of the reads. */
struct qmp_reader {
	qmp_read_fn read;
	void *ctx;
	size_t max_line;	/* the longest line (reply) accepted, in bytes */
	char *buf;
	size_t len, cap;
	size_t scanned;		/* buf[0, scanned) holds no newline */
	size_t line_bytes;	/* bytes of the current line read so far */
};

enum qmp_read_status {
	QMP_READ_OK = 0,
	QMP_READ_CLOSED = -1,	/* the stream ended between lines */
	QMP_READ_CUT = -2,	/* the stream ended inside a line: a reply cut short */
	QMP_READ_TOO_LONG = -3,	/* a line over max_line bytes */
	QMP_READ_NUL = -4,	/* a NUL byte: never part of QMP's JSON */
	QMP_READ_IO = -5,	/* the source failed: r->error holds its -errno */
	QMP_READ_NOMEM = -6,
};

void qmp_reader_init(struct qmp_reader *r, qmp_read_fn read, void *ctx, size_t max_line);
void qmp_reader_free(struct qmp_reader *r);

/*
 * The next line, without its newline (and a '\r' before it), in *line
 * (malloc()ed). On an error *line is NULL; *errnum gets the source's
 * errno for QMP_READ_IO.
 */
int qmp_read_line(struct qmp_reader *r, char **line, int *errnum);

/*
 * The next reply: greetings and events are skipped. 0: a return, *text
 * its decoded string (malloc()ed) or NULL when it is not a string. 1: a
 * QMP error, its description in @err. -1: no reply (the stream ended,
 * was cut short, went over the limit, or is malformed), why in @err.
 */
int qmp_next_reply(struct qmp_reader *r, char **text, char *err, size_t errlen);

/*
 * @s (@n bytes) as a JSON string with its quotes, malloc()ed: printable
 * ASCII only. Quotes, backslashes and control characters are escaped,
 * valid UTF-8 becomes \u escapes (surrogate pairs above U+FFFF) and each
 * byte that is not valid UTF-8 becomes U+FFFD; *lossy (if not NULL) says
 * whether there was one.
 */
char *json_quote(const char *s, size_t n, bool *lossy);

/* --- the guest's configuration ---------------------------------------------- */

#define AUDIT_MAX_APERTURES	8
/* what one guest's audit covers: `info pci`'s, --aperture's and virtio-gpu's window */
#define AUDIT_MAX_AP_TOTAL	(2 * AUDIT_MAX_APERTURES + 1)

struct aperture {
	unsigned int bus, dev, fn;
	unsigned int vendor, device;
	int bar;
	uint64_t start, end;	/* inclusive */
	const char *kind;	/* "ivshmem", "stdvga", "qxl" */
};

/*
 * The virtual-GPU apertures in `info pci` text: how many there are, of
 * which the first @max are stored. A count over @max means some were not.
 */
int parse_info_pci(const char *text, struct aperture *ap, int max);

/*
 * The vCPUs in `info cpus` text: how many there are (-1: a line that is
 * not a vCPU's), the first @max of their cpu-index values in @index.
 */
int parse_info_cpus(const char *text, int *index, int max);

enum paging {
	PAGING_OFF,		/* CR0.PG clear */
	PAGING_2LEVEL,		/* i386 without PAE: 4 KiB, and 4 MiB pages under CR4.PSE */
	PAGING_PAE,		/* i386 PAE: 4 KiB and 2 MiB pages */
	PAGING_4LEVEL,		/* x86_64: 4 KiB, 2 MiB and 1 GiB pages */
	PAGING_5LEVEL,		/* x86_64 with CR4.LA57 */
};

struct cpu_paging {
	enum paging mode;
	bool pse;		/* CR4.PSE */
	uint64_t cr3;
	int cpl;
};

const char *paging_name(enum paging mode);

/* A vCPU's paging mode from its `info registers` text; 0, or -1 when it cannot tell. */
int parse_info_registers(const char *text, struct cpu_paging *p);

/* `xp /1gx` or `xp /1wx` text for physical address @addr: 0 and *val, or -1. */
int parse_xp(const char *text, uint64_t addr, uint64_t *val);

#define XP_NOT_MEMORY	(-2)	/* QEMU: "Cannot access memory" */

/*
 * `xp /COUNTgx ADDR` (@bytes 8) or `xp /COUNTwx ADDR` (@bytes 4) text: all
 * @count values into @vals, each line where QEMU puts it (its address, 16
 * bytes of values, each at its full width): 0; XP_NOT_MEMORY when QEMU
 * says the address is no memory; -1 for anything else.
 */
int parse_xp_table(const char *text, uint64_t addr, int bytes, int count, uint64_t *vals);

/* --- guest RAM: where page tables may be read ------------------------------------ */

/*
 * `xp` reads through QEMU's memory API: at a device's MMIO it is the
 * device's read, with the device's side effects (a clear-on-read status
 * register). Page tables live in guest RAM; the auditor reads nothing
 * else, and learns where RAM is from QEMU, not from the guest.
 */
struct phys_range {
	uint64_t start, end;	/* inclusive */
};

#define AUDIT_MAX_BARS		1024	/* mapped memory BARs in `info pci`, at most */
#define AUDIT_MAX_RAM		256	/* ranges of guest RAM, at most */
#define AUDIT_MAX_TREE		65536	/* lines in `info mtree`'s tree of "memory", at most */

/*
 * Every mapped memory BAR of every device in `info pci` text (QEMU's
 * "BARn: 32|64 bit [prefetchable ]memory at 0xSTART [0xEND]."; an unmapped
 * one, whose END wraps below its START, left out; I/O BARs too): how many,
 * of which the first @max are stored in @bar; -1 when a line that starts
 * with "BAR" is not one of those.
 */
int parse_pci_bars(const char *text, struct phys_range *bar, int max);

/*
 * The guest RAM in `info mtree` text (the tree view; never -f, see
 * audit_ram.c): the machine's RAM, the ranges of the aliases
 * "ram-below-4g" (from 0, below 4 GiB) and "ram-above-4g" (if any, the
 * rest) of one RAM region mapped directly into the root of address space
 * "memory" (which must be vCPU 0's, "cpu-memory-0", too: `xp` reads
 * through it), that region's own tree one line (nothing mapped into it);
 * less whatever else is mapped directly into that root at the alias's
 * priority or above, less every one of the @nbar @bar, less the legacy
 * window 0xa0000-0xfffff (VGA, SMRAM and PAM: what the guest's chipset
 * switches between RAM and devices at will): sorted, merged. Device RAM
 * (ivshmem's shared memory, a VGA's VRAM) is never in it. How many (the
 * first @max stored in @ram; more is an error), or -1 with the reason in
 * @err: a line of that tree that is not one of QEMU's, no such tree or
 * two, no ram-below-4g, the aliases not as pc_memory_init() makes them,
 * more than AUDIT_MAX_TREE lines or @max ranges of RAM, no RAM.
 */
int parse_mtree_ram(const char *text, const struct phys_range *bar, int nbar,
		    struct phys_range *ram, int max, char *err, size_t errlen);

#define AUDIT_MAX_BLOBS		4096	/* blobs in virtio-gpu's host-visible window, at most */

/*
 * virtio-gpu's host-visible window in `info mtree` text: the region
 * "virtio-gpu-hostmem" in *@window (start > end: none), and the live blobs,
 * the regions the host has mapped directly into it, sorted: how many (the
 * window and its blobs the same wherever the tree shows them), or -1 with
 * the reason in @err: a region of the window outside it, two windows,
 * overlapping blobs, more than @max.
 */
int parse_mtree_hostmem(const char *text, struct phys_range *window, struct phys_range *blob,
			int max, char *err, size_t errlen);

/* Whether [addr, addr + len) lies wholly in one of the @n sorted, merged @ram ranges. */
bool ram_holds(const struct phys_range *ram, int n, uint64_t addr, uint64_t len);

/* --- page tables (info tlb) --------------------------------------------------- */

#define TLB_4K		(1ULL << 12)
#define TLB_2M		(1ULL << 21)
#define TLB_4M		(1ULL << 22)
#define TLB_1G		(1ULL << 30)

struct tlb_entry {
	uint64_t va;
	uint64_t pa;
	uint64_t size;		/* the page's size: 4 KiB, 2 or 4 MiB, 1 GiB */
	/*
	 * size_known false: a large page of 4- or 5-level paging that `info
	 * tlb` prints as it prints a 2 MiB one (size is 2 MiB here) and that
	 * may be a 1 GiB one (va and pa 1 GiB-aligned, nothing else listed in
	 * the rest of that GiB): only its page-directory-pointer entry tells.
	 * pa_known false: a 4 MiB page of 2-level paging, whose PSE-36 address
	 * bits (above 4 GiB) `info tlb` leaves out: pa holds the low 32 bits.
	 * tlb_resolve() reads the entries and settles both.
	 */
	bool size_known, pa_known;
	char flags[10];		/* QEMU's XGPDACTUW letters */
	/*
	 * The PAT index the entry selects (PWT + 2 PCD + 4 PAT: the PAT bit is
	 * bit 7 of a 4 KiB entry, bit 12 of a large one); -1 when unknown:
	 * `info tlb` leaves a 4 KiB entry's PAT bit out. The walk of the
	 * tables knows it, and shows it in flags[TLB_FLAG_P] of a 4 KiB entry
	 * as the entry has it (QEMU's P is bit 7, PS in a large entry).
	 */
	int pat;
};

#define TLB_FLAG_P	2	/* 'P': bit 7 (a large entry's PS, a 4 KiB entry's PAT) */
#define TLB_FLAG_U	7	/* flags[TLB_FLAG_U] == 'U': the leaf allows user access */

/*
 * One `info tlb` line under @p's mode (QEMU's format: "VA: PA FLAGS", each
 * address in hex, FLAGS nine of XGPDACTUW or '-'): 0 when it is a
 * mapping, -1 when it is not one QEMU could print in that mode.
 */
int parse_tlb_line(const char *line, const struct cpu_paging *p, struct tlb_entry *e);

/*
 * Every mapping of an `info tlb` reply, in order, to @fn (which stops the
 * scan by returning nonzero: that value is returned). A size that the
 * order of the lines settles is settled. -1 with the reason in @err: a
 * line that is not a mapping, lines out of order, or no lines at all.
 */
typedef int (*tlb_fn)(void *ctx, const struct tlb_entry *e);
int tlb_scan(const char *text, const struct cpu_paging *p, tlb_fn fn, void *ctx,
	     char *err, size_t errlen);

/* Reads @bytes (4 or 8) of guest-physical memory at @addr: 0, or -1. */
typedef int (*phys_read_fn)(void *ctx, uint64_t addr, int bytes, uint64_t *val);

/*
 * Settle @e's size (1 GiB or 2 MiB) or its address above 4 GiB (PSE-36)
 * from the page-table entries that map it, read through @rd: 0, or -1
 * when they cannot be read or do not map @e as `info tlb` said.
 */
int tlb_resolve(const struct cpu_paging *p, struct tlb_entry *e, phys_read_fn rd, void *ctx);

/* --- page tables, read from guest memory and walked (audit_walk.c) -------------- */

/*
 * Reads @count entries of @bytes (4 or 8) at guest-physical @addr into
 * @vals: 0; XP_NOT_MEMORY when there is no memory there; -1 when the read
 * failed (the reader keeps why).
 */
typedef int (*table_read_fn)(void *ctx, uint64_t addr, int bytes, int count, uint64_t *vals);

struct walk_table;

/*
 * Reads each table once, for every vCPU that walks it, within bounds:
 * @max_tables distinct tables read in all, and as many table visits in
 * one walk (a loop in the tables, or tables shared over and over, hits
 * that bound and the walk fails).
 */
#define WALK_RUN	16	/* adjacent tables read at once, at most, by default */

struct walker {
	table_read_fn read;
	void *ctx;
	size_t max_tables;
	size_t max_run;			/* tables in one read, at most (WALK_RUN) */
	/*
	 * Guest RAM (parse_mtree_ram()): a table is read only where it lies
	 * wholly in it, and a read of adjacent tables never leaves it; a table
	 * anywhere else (a device's MMIO, whose reads have side effects) fails
	 * the walk unread. None given: nothing is read.
	 */
	const struct phys_range *ram;
	int nram;
	struct walk_table *slots;	/* open addressing, by address and kind */
	size_t cap, ntables;
	size_t visits;			/* in the walk under way */
	char err[256];			/* why the last call failed */
};

void walker_init(struct walker *w, table_read_fn read, void *ctx, size_t max_tables);
void walker_free(struct walker *w);

/*
 * The top-level tables of a vCPU in @p's mode: addr[0] what CR3 points
 * at; under page-table isolation (PTI) with the user tables loaded (CR3's
 * bit 12 set, the kernel's top-level table the 4 KiB below, the user
 * entries of the two the same but for NX), addr[1] the kernel's, of
 * which the entries that differ from the user's are walked too.
 */
struct walk_roots {
	uint64_t addr[2];
	int n;
	bool pti;
	/*
	 * A Xen PV guest's user table (Xen's linear slot maps it, no guest
	 * kernel entry): the guest's kernel mappings are not in it, and its
	 * kernel table is nowhere to be found from here.
	 */
	bool xen_pv;
	/*
	 * CR3 has PTI's bit 12 but the table 4 KiB below is not the kernel's
	 * of the pair (not now: Linux writes a top-level entry into the user
	 * copy first, native_set_p4d(); or not PTI at all: a table that just
	 * lies at such an address). walk_tables() tells which: a kernel's
	 * table maps itself (its direct map maps every page of RAM), PTI's
	 * user copy never does (self_mapped).
	 */
	bool pti_unpaired, self_mapped;
	/*
	 * The tables walked hold no kernel's mappings but those a user table
	 * has: a Xen PV guest's user table, or an unpaired PTI table that does
	 * not map itself (set by walk_tables()). The kernel part of every
	 * kernel table is the same: another vCPU's must show it.
	 */
	bool user_only;
};

/* 0 and @r, or -1 (w->err) when the top-level table cannot be read. */
int walk_roots(struct walker *w, const struct cpu_paging *p, struct walk_roots *r);

/*
 * Every present leaf of the tables from @r to @fn, in address order for
 * each root (which stops the walk by returning nonzero: that value is
 * returned): size, address and PAT index as the entry says, flags as
 * QEMU's `info tlb` prints them but for a 4 KiB entry's PAT bit, shown.
 * -1 (w->err): a table that cannot be read, or a bound hit. For a
 * pti_unpaired @r, sets self_mapped and user_only.
 */
int walk_tables(struct walker *w, const struct cpu_paging *p, struct walk_roots *r,
		tlb_fn fn, void *ctx);

/* --- what a mapping is to the audit -------------------------------------------- */

/*
 * The PAT MSR given as its value (0x0007010600070106) or as the eight
 * types the kernel logs ("WB WC UC- UC WB WP UC- WT", "x86/PAT:
 * Configuration [0-7]"): 0 and *msr, or -1.
 */
int pat_parse(const char *s, uint64_t *msr);
/* The type (UC, WC, WT, WP, WB, UC-) of entry @index of @msr; "?" for a reserved one. */
const char *pat_type(uint64_t msr, int index);

/*
 * The first kernel address for the address-space layout of @mode: the
 * user half ends there. 0 for 2-level and PAE paging, where it depends on
 * the kernel's PAGE_OFFSET (VMSPLIT): given, or page_offset_infer()ed.
 */
uint64_t user_top(enum paging mode);

/* The PAGE_OFFSETs of Linux's VMSPLIT choices, i386. */
#define AUDIT_N_PAGE_OFFSETS	5
extern const uint64_t audit_page_offsets[AUDIT_N_PAGE_OFFSETS];

/* Kernel (U clear) bytes that map pa at pa + each candidate PAGE_OFFSET. */
struct page_offset_votes {
	uint64_t bytes[AUDIT_N_PAGE_OFFSETS];
};
void page_offset_vote(struct page_offset_votes *v, const struct tlb_entry *e);
/* The PAGE_OFFSET whose direct map the votes show (at least 1 MiB of it, alone), or 0. */
uint64_t page_offset_infer(const struct page_offset_votes *v);

enum audit_kind { KIND_USER, KIND_KERNEL, KIND_UNDECIDED };

/*
 * A process's mapping (user) or the kernel's: user when the entry allows
 * user access (U) and lies below @top, the first kernel address. With @top
 * 0 (a 32-bit guest whose PAGE_OFFSET is unknown) a U entry at or above
 * 1 GiB, the lowest PAGE_OFFSET, is KIND_UNDECIDED.
 */
enum audit_kind audit_classify(const struct tlb_entry *e, uint64_t top);

/* Bytes of [pa, pa + size) inside the union of the apertures. */
uint64_t aperture_overlap(uint64_t pa, uint64_t size, const struct aperture *ap, int nap);

/* --- pvmap's live table ------------------------------------------------------- */

struct live_range {
	uint64_t va;
	uint64_t npages;
};

/*
 * pvmap/live lines "VA NPAGES KIND" (hex, decimal) into *r (malloc()ed,
 * sorted by va, grown as needed): how many, or -1 (out of memory).
 */
long parse_live(const char *text, struct live_range **r);

/* Whether [va, va + len) lies wholly inside the sorted live ranges. */
bool live_covers(const struct live_range *r, long n, uint64_t va, uint64_t len);

#endif
