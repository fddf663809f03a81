// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-audit's command line: the options that bound what a guest can make it
 * hold or wait for, and the guests (each SOCKET with the --live, --aperture and
 * --page-offset before it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "audit_guest.h"

int usage(FILE *f)
{
	fprintf(f, "usage: pvmap-audit [--json] [--max-reply BYTES] [--max-mappings N] [--max-tables N]\n"
		   "                   [--timeout S] [--pat PAT] [--cross-check]\n"
		   "                   [--live FILE] [--aperture BASE:SIZE] [--page-offset ADDR] SOCKET\n"
		   "                   [[--live FILE] [--aperture BASE:SIZE] [--page-offset ADDR] SOCKET ...]\n"
		   "--live, --aperture (repeatable) and --page-offset (i386: the kernel's PAGE_OFFSET,\n"
		   "else inferred from its direct map) apply to the SOCKET that follows them.\n"
		   "--max-reply (default %zu), --max-mappings (default %zu),\n"
		   "--max-tables (page tables read, and walked for one vCPU; default %zu) and\n"
		   "--timeout (seconds for one reply, default %d) bound what a guest can make\n"
		   "pvmap-audit hold or wait for.\n"
		   "--pat: the guests' PAT MSR, as its value or the eight types their kernel logs\n"
		   "(\"WB WC UC- UC WB WP UC- WT\"), for each mapping's memory type.\n"
		   "--cross-check: each vCPU's walk of the tables its CR3 points at against QEMU's\n"
		   "`info tlb` (a quiet guest: its tables must not change meanwhile).\n"
		   "Page tables are read from guest RAM alone (`info mtree`, less every BAR).\n"
		   "Exit status: 0 clean, 1 stale mappings found, 2 could not check (a page table\n"
		   "that cannot be read or is not in guest RAM, a bound hit, a reply cut short,\n"
		   "malformed or unexpected, no paging, no aperture, ...).\n",
		max_reply, max_mappings, max_tables, reply_timeout_s);
	return f == stdout ? 0 : 2;
}

/* A number for an option: 0 and *v, or -1. */
static int number(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

/*
 * --max-reply, --max-mappings, --max-tables, --timeout or --page-offset @opt, its value
 * @arg (NULL: none): 0, or -1 (said) when it is bad.
 */
static int number_option(const char *opt, const char *arg, uint64_t *page_offset)
{
	uint64_t v;

	if (!arg || number(arg, &v) || !v ||
	    (!strcmp(opt, "--timeout") && v > 86400) ||
	    (!strcmp(opt, "--max-tables") && v > (1u << 24)) ||
	    (!strcmp(opt, "--page-offset") && (v >> 32 || v & 0xfff))) {
		fprintf(stderr, "pvmap-audit: bad %s\n", opt);
		return -1;
	}
	if (!strcmp(opt, "--max-reply"))
		max_reply = v;
	else if (!strcmp(opt, "--max-mappings"))
		max_mappings = v;
	else if (!strcmp(opt, "--max-tables"))
		max_tables = v;
	else if (!strcmp(opt, "--timeout"))
		reply_timeout_s = (int)v;
	else
		*page_offset = v;
	return 0;
}

/* --aperture BASE:SIZE @arg (NULL: none) added to @given: 0, or -1 when bad. */
static int aperture_option(const char *arg, struct aperture *given, int *ngiven)
{
	uint64_t base, size;
	char *end;

	if (!arg || *ngiven == AUDIT_MAX_APERTURES)
		return -1;
	base = strtoull(arg, &end, 0);
	if (*end != ':')
		return -1;
	size = strtoull(end + 1, &end, 0);
	if (*end || !size || base + size - 1 < base) {
		fprintf(stderr, "pvmap-audit: bad aperture %s\n", arg);
		return -1;
	}
	given[(*ngiven)++] = (struct aperture){
		.bar = -1, .start = base, .end = base + size - 1, .kind = "given",
	};
	return 0;
}

int parse_args(int argc, char **argv, struct guest *g, int *n, bool *json)
{
	struct aperture given[AUDIT_MAX_APERTURES] = { { 0 } };
	const char *live = NULL;
	uint64_t page_offset = 0;
	int ngiven = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
		if (!strcmp(argv[i], "--json")) {
			*json = true;
		} else if (!strcmp(argv[i], "--cross-check")) {
			cross_check = true;
		} else if (!strcmp(argv[i], "--pat")) {
			if (++i == argc || pat_parse(argv[i], &pat_msr)) {
				fprintf(stderr, "pvmap-audit: bad --pat\n");
				return -1;
			}
			pat_given = true;
		} else if (!strcmp(argv[i], "--live")) {
			if (++i == argc)
				return -1;
			live = argv[i];
		} else if (!strcmp(argv[i], "--max-reply") || !strcmp(argv[i], "--max-mappings") ||
			   !strcmp(argv[i], "--max-tables") || !strcmp(argv[i], "--timeout") ||
			   !strcmp(argv[i], "--page-offset")) {
			const char *opt = argv[i];

			if (number_option(opt, ++i == argc ? NULL : argv[i], &page_offset))
				return -1;
		} else if (!strcmp(argv[i], "--aperture")) {
			if (aperture_option(++i == argc ? NULL : argv[i], given, &ngiven))
				return -1;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "pvmap-audit: unknown option %s\n", argv[i]);
			return -1;
		} else {
			g[*n].socket = argv[i];
			g[*n].live_file = live;
			g[*n].page_offset = page_offset;
			memcpy(g[*n].given, given, sizeof(given));
			g[*n].ngiven = ngiven;
			live = NULL;
			page_offset = 0;
			ngiven = 0;
			(*n)++;
		}
	}
	return *n ? 0 : -1;
}
