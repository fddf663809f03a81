// SPDX-License-Identifier: GPL-2.0
/*
 * pvstub-replay: replay a pvmap PTE trace (include/uapi/pvmap_trace.h) through the
 * hypervisor stub and report what a PV hypervisor would have seen.
 *
 *   pvstub-replay [--json] [--check] TRACE|-
 *
 * Prints the hypercall counts (batched, and the naive one-per-operation
 * count beside them) and the hygiene report: PTEs or TLB entries still
 * referencing a frame when it is revoked, and accesses that reached it.
 * --check: exit 1 unless there are no violations, nothing stale, no refused
 * hypercall, and at most 2 hypercalls per 16 mapped pages. Exit 2 when the
 * trace cannot be read or is malformed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvstub_trace.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 65536, n = 0, got;
	char *buf = malloc(cap);

	if (!f || !buf) {
		free(buf);
		return NULL;
	}
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *more = realloc(buf, cap * 2);

			if (!more) {
				free(buf);
				return NULL;
			}
			buf = more;
			cap *= 2;
		}
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	struct pvstub_replay_result r;
	const char *path = NULL;
	bool json = false, check = false;
	double per16, naive16;
	size_t len;
	char *text;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--check"))
			check = true;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: pvstub-replay [--json] [--check] TRACE|-\n");
			return 0;
		} else if (!path)
			path = argv[i];
		else {
			fprintf(stderr, "pvstub-replay: unexpected '%s'\n", argv[i]);
			return 2;
		}
	}
	if (!path) {
		fprintf(stderr, "usage: pvstub-replay [--json] [--check] TRACE|-\n");
		return 2;
	}
	text = slurp(path, &len);
	if (!text) {
		fprintf(stderr, "pvstub-replay: %s: %s\n", path, strerror(errno ? errno : ENOMEM));
		return 2;
	}
	if (json)
		printf("{\"violations\": ");
	rc = pvstub_replay(text, len, &r, stdout, json);
	free(text);
	if (rc) {
		if (json)
			printf("null, \"error\": \"%s\", \"line\": %u}\n", strerror(-rc), r.bad_line);
		fprintf(stderr, "pvstub-replay: %s: %s%s%u\n", path, strerror(-rc),
			r.bad_line ? " at line " : "", r.bad_line);
		return 2;
	}
	per16 = r.pages_mapped ? 16.0 * r.counts.hypercalls / r.pages_mapped : 0;
	naive16 = r.pages_mapped ? 16.0 * r.naive_hypercalls / r.pages_mapped : 0;
	if (json) {
		printf(", \"ops\": %" PRIu64 ", \"pages_mapped\": %" PRIu64
		       ", \"hypercalls\": %" PRIu64 ", \"multicalls\": %" PRIu64
		       ", \"multicall_entries\": %" PRIu64 ", \"naive_hypercalls\": %" PRIu64
		       ", \"hypercalls_per_16_pages\": %.2f, \"naive_per_16_pages\": %.2f"
		       ", \"stale_at_revoke\": %" PRIu64 ", \"refused\": %" PRIu64 "}\n",
		       r.ops, r.pages_mapped, r.counts.hypercalls, r.counts.multicall,
		       r.counts.multicall_entries, r.naive_hypercalls, per16, naive16,
		       r.stale_at_revoke, r.counts.refused);
	} else {
		printf("%" PRIu64 " operations, %" PRIu64 " pages mapped\n", r.ops, r.pages_mapped);
		printf("hypercalls: %" PRIu64 " batched (%" PRIu64 " multicalls of %" PRIu64
		       " entries), %.2f per 16 pages; naive %" PRIu64 ", %.2f per 16 pages\n",
		       r.counts.hypercalls, r.counts.multicall, r.counts.multicall_entries, per16,
		       r.naive_hypercalls, naive16);
		printf("PTE writes %" PRIu64 ", invlpg %" PRIu64 ", refused %" PRIu64 "\n",
		       r.counts.pte_writes, r.counts.invlpg, r.counts.refused);
		printf("hygiene: %" PRIu64 " stale PTE/TLB references at revoke, %u violations\n",
		       r.stale_at_revoke, r.violations);
	}
	if (check && (r.violations || r.stale_at_revoke || r.counts.refused || per16 > 2.0))
		return 1;
	return 0;
}
