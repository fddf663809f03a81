/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pvmap-audit's own state, which its three files share: pvmap-audit.c audits
 * (QMP, the walk, the verdicts), audit_cli.c reads the command line into
 * guests and bounds, audit_report.c prints each guest's result. The parsers
 * the unit tests and the fuzzer link (audit_parse.h) know none of this.
 */
#ifndef PVMAP_AUDIT_GUEST_H
#define PVMAP_AUDIT_GUEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "audit_parse.h"

#define MAX_VCPUS		64

struct found {
	struct tlb_entry e;
	uint64_t vcpus;		/* bit i: the i-th vCPU of `info cpus` */
	uint64_t overlap;	/* bytes of aperture it maps */
	const char *kind;	/* "stale", "live", "user" */
	bool unbacked;		/* it maps window pages no live blob holds */
};

/* What one vCPU's walk started from. */
struct vcpu {
	int cpl;			/* -1: not in `info registers` */
	uint64_t cr3;
	struct walk_roots roots;
};

struct guest {
	const char *socket, *live_file;
	uint64_t page_offset;			/* --page-offset; 0: inferred */
	char error[512];
	struct aperture ap[AUDIT_MAX_AP_TOTAL];
	struct aperture given[AUDIT_MAX_APERTURES];	/* --aperture */
	int nap, ngiven, ncpus;
	struct phys_range ram[AUDIT_MAX_RAM];	/* where page tables are read */
	int nram;
	/* virtio-gpu's host-visible window (start > end: none) and its live blobs */
	struct phys_range window;
	struct phys_range *blobs;
	int nblobs;
	int cpu_index[MAX_VCPUS];
	struct vcpu cpu[MAX_VCPUS];
	int audited;				/* vCPUs walked */
	unsigned long tables;			/* page tables read */
	enum paging mode;
	uint64_t top;				/* the first kernel address; 0: unknown */
	const char *split;			/* how top was found */
	struct live_range *live;
	long nlive;
	struct found *found;
	size_t nfound, capfound;
	size_t nstale, nlivemaps, nuser;
	uint64_t bytes_stale, bytes_live, bytes_user;
};

/* what a guest may make the auditor hold (pvmap-audit.c; audit_cli.c sets them) */
extern size_t max_reply, max_mappings, max_tables;
extern int reply_timeout_s;
extern bool cross_check;
extern uint64_t pat_msr;
extern bool pat_given;

/* Audits guest @g: 0, or -1 with g->error said (could not check). */
int audit(struct guest *g);
/* @g's result, as JSON (one element of "guests": not the @last one: a comma) or text. */
void report(const struct guest *g, bool json, bool last);
/* @s for a terminal: control bytes as \xNN. */
void print_text(FILE *f, const char *s);
/* The usage on @f: 0 for stdout (--help), else 2. */
int usage(FILE *f);
/*
 * The command line into @g (a guest for each SOCKET), *n and *json: 0; 1
 * for --help; -1 when it is bad (said on stderr, with the usage).
 */
int parse_args(int argc, char **argv, struct guest *g, int *n, bool *json);

#endif
