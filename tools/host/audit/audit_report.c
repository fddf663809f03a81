// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-audit's report of each guest: the JSON document (--json) or the text a
 * person reads. Whatever a guest said is quoted, never printed raw.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "audit_guest.h"

/* @s as a JSON string: quoted, escaped, ASCII. */
static void print_json_string(const char *s)
{
	char *q = json_quote(s, strlen(s), NULL);

	fputs(q ? q : "null", stdout);
	free(q);
}

void print_text(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '\\')
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
}

static void print_vcpus(const struct guest *g, uint64_t mask)
{
	bool first = true;

	for (int i = 0; i < g->ncpus && i < MAX_VCPUS; i++)
		if (mask & (1ULL << i)) {
			printf("%s%d", first ? "" : ",", g->cpu_index[i]);
			first = false;
		}
}

void report(const struct guest *g, bool json, bool last)
{
	if (json) {
		printf("{\"socket\": ");
		print_json_string(g->socket);
		printf(", \"error\": ");
		if (g->error[0])
			print_json_string(g->error);
		else
			printf("null");
		printf(", \"vcpus\": %d, \"paging\": ", g->ncpus);
		if (g->split)
			printf("\"%s\", \"user_top\": %" PRIu64 ", \"split\": \"%s\"",
			       paging_name(g->mode), g->top, g->split);
		else
			printf("null, \"user_top\": null, \"split\": null");
		printf(", \"apertures\": [");
		for (int a = 0; a < g->nap; a++)
			printf("%s{\"kind\": \"%s\", \"bar\": %d, \"start\": %" PRIu64
			       ", \"end\": %" PRIu64 "}", a ? ", " : "", g->ap[a].kind,
			       g->ap[a].bar, g->ap[a].start, g->ap[a].end);
		printf("], \"cpus\": [");
		for (int i = 0; i < g->audited; i++) {
			const struct vcpu *v = &g->cpu[i];

			printf("%s{\"cpu\": %d, \"cpl\": ", i ? ", " : "", g->cpu_index[i]);
			if (v->cpl >= 0)
				printf("%d", v->cpl);
			else
				printf("null");
			printf(", \"cr3\": %" PRIu64 ", \"pti\": %s, \"xen_pv_user\": %s, "
			       "\"pti_unpaired\": %s, \"user_only\": %s, \"tables\": [", v->cr3,
			       v->roots.pti ? "true" : "false", v->roots.xen_pv ? "true" : "false",
			       v->roots.pti_unpaired ? "true" : "false",
			       v->roots.user_only ? "true" : "false");
			for (int r = 0; r < v->roots.n; r++)
				printf("%s%" PRIu64, r ? ", " : "", v->roots.addr[r]);
			printf("]}");
		}
		printf("], \"table_reads\": %lu, \"mappings\": [", g->tables);
		for (size_t i = 0; i < g->nfound; i++) {
			const struct found *f = &g->found[i];

			printf("%s{\"va\": %" PRIu64 ", \"pa\": %" PRIu64 ", \"size\": %" PRIu64
			       ", \"aperture_bytes\": %" PRIu64 ", \"flags\": ", i ? ", " : "",
			       f->e.va, f->e.pa, f->e.size, f->overlap);
			print_json_string(f->e.flags);
			printf(", \"pat\": %d, \"memtype\": ", f->e.pat);
			if (pat_given)
				printf("\"%s\"", pat_type(pat_msr, f->e.pat));
			else
				printf("null");
			printf(", \"kind\": \"%s\", \"unbacked\": %s, \"vcpus\": [",
			       f->kind ? f->kind : "unclassified", f->unbacked ? "true" : "false");
			print_vcpus(g, f->vcpus);
			printf("]}");
		}
		printf("], \"stale\": %zu, \"live\": %zu, \"user\": %zu, \"aperture_bytes\": "
		       "{\"stale\": %" PRIu64 ", \"live\": %" PRIu64 ", \"user\": %" PRIu64 "}}%s\n",
		       g->nstale, g->nlivemaps, g->nuser, g->bytes_stale, g->bytes_live,
		       g->bytes_user, last ? "" : ",");
		return;
	}
	printf("guest ");
	print_text(stdout, g->socket);
	printf(":\n");
	if (g->error[0]) {
		printf("  could not audit: ");
		print_text(stdout, g->error);
		printf("\n");
		return;
	}
	for (int a = 0; a < g->nap; a++) {
		if (g->ap[a].kind && !strcmp(g->ap[a].kind, "virtio-gpu"))
			printf("  virtio-gpu's host-visible window, %d live blob(s)", g->nblobs);
		else if (g->ap[a].bar < 0)
			printf("  range given with --aperture");
		else
			printf("  aperture %s BAR%d", g->ap[a].kind, g->ap[a].bar);
		printf(": %#" PRIx64 "-%#" PRIx64 " (%" PRIu64 " MiB)\n", g->ap[a].start,
		       g->ap[a].end, (g->ap[a].end - g->ap[a].start + 1) >> 20);
	}
	for (size_t i = 0; i < g->nfound; i++) {
		const struct found *f = &g->found[i];

		if (strcmp(f->kind, "stale"))
			continue;
		printf("  STALE: va %#" PRIx64 " -> pa %#" PRIx64 " flags %s", f->e.va, f->e.pa,
		       f->e.flags);
		if (pat_given)
			printf(" %s", pat_type(pat_msr, f->e.pat));
		if (f->e.size != TLB_4K)
			printf(" (a %" PRIu64 " KiB page, %" PRIu64 " KiB of it aperture)",
			       f->e.size >> 10, f->overlap >> 10);
		printf(" on vCPU ");
		print_vcpus(g, f->vcpus);
		if (f->unbacked)
			printf(" (virtio-gpu window, no live blob there)");
		printf("\n");
	}
	printf("  %d vCPUs audited: %zu stale, %zu live (pvmap's), %zu user mapping(s) of "
	       "aperture pages\n", g->ncpus, g->nstale, g->nlivemaps, g->nuser);
}
