// SPDX-License-Identifier: GPL-2.0
/*
 * The model's invariants (pvstub_audit()), for tests and fuzzers: every held
 * entry valid, its bookkeeping the same as its tables.
 */
#include "pvstub_internal.h"

#include <inttypes.h>

/* One breach of the model's invariants. */
static unsigned int breach(FILE *out, const char *what, uint64_t a, uint64_t b)
{
	if (out)
		fprintf(out, "audit: %s %#" PRIx64 " %#" PRIx64 "\n", what, a, b);
	return 1;
}

/* Whether @kept holds what @counted does, entry for entry. */
static unsigned int same_counts(FILE *out, const char *what, const struct map *counted,
				const struct map *kept)
{
	unsigned int bad = 0;

	if (counted->n != kept->n)
		bad += breach(out, what, counted->n, kept->n);
	for (size_t i = 0; i < counted->cap; i++) {
		uint64_t n = 0;

		if (counted->key[i] == MAP_EMPTY)
			continue;
		pvs_map_get(kept, counted->key[i], &n);
		if (n != counted->val[i])
			bad += breach(out, what, counted->key[i], n);
	}
	return bad;
}

unsigned int pvstub_audit(const struct pvstub *s, FILE *out)
{
	struct pvstub_counts scratch = { 0 };
	struct map writable = { .lookups = &scratch.lookups, .probes = &scratch.lookup_probes };
	struct map present = writable;
	unsigned int bad = 0, registered = 0;
	uint64_t reported = 0;

	for (size_t i = 0; i < s->nl1; i++) {
		const struct l1 *l = s->l1[i];

		if (l->index != i || pvs_l1_for_frame(s, l->frame) != l || pvs_l1_for_va(s, l->va) != l)
			bad += breach(out, "table not indexed: frame, va", l->frame, l->va);
		for (unsigned int w = 0; l->mem && w < L1_ENTRIES / 64; w++) {
			registered += (unsigned int)__builtin_popcountll(l->registered[w]);
			reported += (unsigned int)__builtin_popcountll(l->reported[w]);
			if (l->reported[w] & ~l->registered[w])
				bad += breach(out, "reported entries not registered: va, word",
					      l->va, w);
		}
		for_each_held(l, j) {
			uint64_t pte = l->pte[j], va = l->va + ((uint64_t)j << 12);

			if (pvs_check_pte(s, pte) && !pvs_is_revoked(s, PTE_FRAME(pte)))
				bad += breach(out, "entry fails validation: va, pte", va, pte);
			if ((pte & PTE_P) && !pvs_count_ref(&present, PTE_FRAME(pte), 1))
				bad += breach(out, "out of memory", 0, 0);
			if (pvs_maps_writable(pte) && !pvs_count_ref(&writable, PTE_FRAME(pte), 1))
				bad += breach(out, "out of memory", 0, 0);
		}
	}
	if (registered != s->registered)
		bad += breach(out, "registered entries: counted, kept", registered, s->registered);
	if (reported != s->nreported)
		bad += breach(out, "reported entries: counted, kept", reported, s->nreported);
	bad += same_counts(out, "writable mappings: frame, kept", &writable, &s->writable);
	bad += same_counts(out, "mappings: frame, kept", &present, &s->present);
	pvs_map_free(&writable);
	pvs_map_free(&present);
	return bad;
}
