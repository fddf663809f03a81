/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsers of pvmap-audit: QMP reply lines, and the text of the human-monitor
 * commands it runs (info pci, info cpus, info tlb) and of pvmap's live table
 * (debugfs pvmap/live). Pure functions on untrusted text: fuzzed by
 * tools/audit/fuzz_audit.c.
 */
#ifndef PVMAP_AUDIT_PARSE_H
#define PVMAP_AUDIT_PARSE_H

#include <stddef.h>
#include <stdint.h>

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
 * decoded copy (the caller frees it); otherwise it is set to NULL.
 */
enum qmp_line qmp_classify(const char *line, char **text);

#define AUDIT_MAX_APERTURES	8

struct aperture {
	unsigned int bus, dev, fn;
	unsigned int vendor, device;
	int bar;
	uint64_t start, end;	/* inclusive */
	const char *kind;	/* "ivshmem", "stdvga", "qxl" */
};

/* The virtual-GPU apertures in `info pci` text; how many (at most @max). */
int parse_info_pci(const char *text, struct aperture *ap, int max);

/* vCPUs in `info cpus` text. */
int parse_info_cpus(const char *text);

struct tlb_entry {
	uint64_t va;
	uint64_t pa;
	uint64_t size;		/* 4 KiB, or 2 MiB for a 'P' (large) entry */
	char flags[10];		/* QEMU's XGPDACTUW letters */
};

/* One `info tlb` line; 0 when it is a mapping, -1 otherwise. */
int parse_tlb_line(const char *line, struct tlb_entry *e);

struct live_range {
	uint64_t va;
	uint64_t npages;
};

/* pvmap/live lines "VA NPAGES KIND" (hex, decimal); how many (at most @max). */
int parse_live(const char *text, struct live_range *r, int max);

#endif
