/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal KTAP output for the user-space unit tests. */
#ifndef PVMAP_UNIT_KTAP_H
#define PVMAP_UNIT_KTAP_H

#include <stdio.h>

struct ktap {
	int n, pass, fail;
};

static inline void ktap_begin(struct ktap *k, const char *suite, int plan)
{
	k->n = k->pass = k->fail = 0;
	printf("KTAP version 1\n# Subtest: %s\n1..%d\n", suite, plan);
}

/* Report one test; @ok nonzero is a pass. */
static inline void ktap_result(struct ktap *k, int ok, const char *name)
{
	printf("%s %d %s\n", ok ? "ok" : "not ok", ++k->n, name);
	if (ok)
		k->pass++;
	else
		k->fail++;
}

static inline int ktap_end(struct ktap *k)
{
	printf("# Totals: pass:%d fail:%d skip:0 total:%d\n", k->pass, k->fail, k->n);
	return k->fail ? 1 : 0;
}

#endif /* PVMAP_UNIT_KTAP_H */
