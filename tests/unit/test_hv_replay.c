// SPDX-License-Identifier: GPL-2.0
/*
 * pvstub-replay's work on a guest's PTE trace (libpvstub's pvstub_replay, the
 * model behind pvmap-hv): linear in the trace's length, whether the trace
 * unmaps what it maps or leaves it all behind. test_hv_daemon.c runs them.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "pvstub_trace.h"
#include "test_hv_daemon.h"

/* A guest-recorded trace of @n pages: batches of 512 maps, their unmaps, a flush. */
static char *trace_of(unsigned int n, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);

	fprintf(out, "pvmap-trace 1\n");
	for (unsigned int k = 0; k < n; k += 512) {
		fprintf(out, "B 0\n");
		for (unsigned int i = k; i < k + 512; i++)
			fprintf(out, "S 0 %" PRIx64 " %" PRIx64 "\n", VA + PAGE(i),
				PAGE(AP_FRAME + i) | 0x63);
		fprintf(out, "E 0\nB 0\n");
		for (unsigned int i = k; i < k + 512; i++)
			fprintf(out, "C 0 %" PRIx64 "\n", VA + PAGE(i));
		fprintf(out, "E 0\nA 0 %" PRIx64 " 200\n", VA + PAGE(k));
	}
	fclose(out);
	return text;
}

/* The model's work for a replay of @n pages: lookup slots and walked entries. */
static uint64_t replay_work(unsigned int n)
{
	struct pvstub_replay_result r;
	size_t len;
	char *text = trace_of(n, &len);
	int rc = pvstub_replay(text, len, &r, NULL, false);

	free(text);
	if (rc || r.pages_mapped != n || r.stale_at_revoke) {
		printf("# replay of %u pages: %d, %" PRIu64 " stale\n", n, rc, r.stale_at_revoke);
		return UINT64_MAX;
	}
	return r.counts.lookup_probes + r.counts.scanned;
}

/*
 * pvstub-replay on a guest's trace: the model's work per page does not grow
 * with the trace (a trace 8 times longer, at most 1.25 times the work per
 * page), where a search per distinct page and a revoke walking every table
 * made it quadratic.
 */
bool test_replay_linear(void)
{
	uint64_t small = replay_work(2048), big = replay_work(16384);

	printf("# replay: %" PRIu64 " slots/entries for 2048 pages, %" PRIu64 " for 16384\n",
	       small, big);
	return small && small != UINT64_MAX && big != UINT64_MAX && big * 2048 <= small * 16384 * 5 / 4;
}

/*
 * A trace that leaves its mappings behind: @n pages mapped in batches of 512,
 * @stride bytes apart (4 KiB: 512 to a table; 2 MiB: a table each), never
 * unmapped nor invalidated, so every PTE and TLB entry is still there when
 * the replay takes the frames back.
 */
static char *stale_trace_of(unsigned int n, uint64_t stride, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);

	fprintf(out, "pvmap-trace 1\n");
	for (unsigned int k = 0; k < n; k += 512) {
		fprintf(out, "B 0\n");
		for (unsigned int i = k; i < k + 512 && i < n; i++)
			fprintf(out, "S 0 %" PRIx64 " %" PRIx64 "\n", VA + i * stride,
				PAGE(AP_FRAME + i) | 0x63);
		fprintf(out, "E 0\n");
	}
	fclose(out);
	return text;
}

/* The model's work for a replay of @n stale pages, or UINT64_MAX unless all are found. */
static uint64_t stale_replay_work(unsigned int n, uint64_t stride)
{
	struct pvstub_replay_result r;
	size_t len;
	char *text = stale_trace_of(n, stride, &len);
	int rc = pvstub_replay(text, len, &r, NULL, false);

	free(text);
	/* each page: its PTE and vCPU 0's TLB entry still reach the frame */
	if (rc || r.pages_mapped != n || r.stale_at_revoke != 2ULL * n) {
		printf("# stale replay of %u pages: %d, %" PRIu64 " stale\n", n, rc,
		       r.stale_at_revoke);
		return UINT64_MAX;
	}
	return r.counts.lookup_probes + r.counts.scanned;
}

/*
 * pvstub-replay on a trace that leaves mappings behind: the model's work per
 * page (hash-map slots probed, PTEs and TLB entries walked) does not grow with
 * the trace, 8 times more pages at most 1.25 times the work per page, with
 * 512 pages to a table and with a table each. A revoke of each frame that
 * walked every table and every TLB made it quadratic (the review: 8192 stale
 * pages, 74 s).
 */
bool test_replay_linear_stale(void)
{
	static const struct { unsigned int n; uint64_t stride; } cases[] = {
		{ 1024, PAGE(1) }, { 8192, PAGE(1) }, { 256, 2 * MiB }, { 2048, 2 * MiB },
	};
	uint64_t work[4];
	bool ok = true;

	for (unsigned int i = 0; i < 4; i++) {
		work[i] = stale_replay_work(cases[i].n, cases[i].stride);
		printf("# stale replay, %u pages %" PRIu64 " KiB apart: %" PRIu64
		       " slots/entries, %.1f per page\n", cases[i].n, cases[i].stride >> 10,
		       work[i], work[i] == UINT64_MAX ? -1.0 : (double)work[i] / cases[i].n);
		ok &= work[i] && work[i] != UINT64_MAX;
	}
	for (unsigned int i = 0; ok && i < 4; i += 2)
		ok &= work[i + 1] * cases[i].n <= work[i] * cases[i + 1].n * 5 / 4;
	return ok;
}
