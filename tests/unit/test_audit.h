/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What test_audit.c and its two siblings share: CHECK(), which prints where a
 * condition failed and counts it, and test_result(), the one place a result is
 * printed (test_audit.c's, with kselftest's counters). A test passes when it
 * added no failure.
 */
#ifndef PVMAP_TEST_AUDIT_H
#define PVMAP_TEST_AUDIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "audit_parse.h"

extern int failures;

#define CHECK(cond) do {							\
	if (!(cond)) {								\
		printf("# %s:%d: %s\n", __func__, __LINE__, #cond);		\
		failures++;							\
	}									\
} while (0)

void test_result(bool ok, const char *name);

/* test_audit_tlb.c and test_audit_ram.c, in the order main() runs them */
void tlb_lines_by_mode(void);
void tlb_scan_settles_or_refuses(void);
void tlb_resolve_reads_the_entries(void);
void user_kernel_split(void);
void overlap_and_live_ranges(void);
void xp_tables_parsed_strictly(void);
void guest_ram_from_mtree(void);
void vgpu_window_from_mtree(void);
void walk_each_mode(void);
void walk_pti_kernel_half(void);
void walk_reads_guest_ram_only(void);
void walk_fails_closed(void);

#endif
