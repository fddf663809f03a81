// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap's live table (debugfs pvmap/live): the VA ranges pvmap maps now.
 */
#include "audit_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int live_cmp(const void *a, const void *b)
{
	const struct live_range *x = a, *y = b;

	return x->va < y->va ? -1 : x->va > y->va;
}

long parse_live(const char *text, struct live_range **out)
{
	struct live_range *r = NULL;
	size_t n = 0, cap = 0, m = 0;

	for (const char *line = text; line && *line;) {
		unsigned long long va, np;

		if (sscanf(line, "%llx %llu", &va, &np) == 2 && np) {
			if (n == cap) {
				struct live_range *more;

				cap = cap ? cap * 2 : 64;
				more = realloc(r, cap * sizeof(*r));
				if (!more) {
					free(r);
					*out = NULL;
					return -1;
				}
				r = more;
			}
			r[n].va = va;
			r[n].npages = np > (UINT64_MAX - va) / 4096 ? (UINT64_MAX - va) / 4096 : np;
			if (r[n].npages)
				n++;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (n)
		qsort(r, n, sizeof(*r), live_cmp);
	/* merge overlapping and adjacent ranges: live_covers() looks in one */
	for (size_t i = 0; i < n; i++) {
		uint64_t end = r[i].va + r[i].npages * 4096;	/* exclusive; no overflow (clamped) */

		if (m && r[i].va <= r[m - 1].va + r[m - 1].npages * 4096) {
			uint64_t prev_end = r[m - 1].va + r[m - 1].npages * 4096;

			/* rounded down: a page not wholly live is not live */
			if (end > prev_end)
				r[m - 1].npages = (end - r[m - 1].va) / 4096;
		} else {
			r[m++] = r[i];
		}
	}
	*out = r;
	return (long)m;
}

bool live_covers(const struct live_range *r, long n, uint64_t va, uint64_t len)
{
	long lo = 0, hi = n - 1, at = -1;

	if (!len)
		return true;
	while (lo <= hi) {		/* the last range starting at or before va */
		long mid = lo + (hi - lo) / 2;

		if (r[mid].va <= va) {
			at = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (at < 0)
		return false;
	/* inclusive ends: no overflow at the top of the address space */
	return va + (len - 1) >= va &&
		va - r[at].va + (len - 1) <= r[at].npages * 4096 - 1;
}
