/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What test_stub.c (the stub, and the slot core's PWRITE and refusals on it)
 * and test_stub_core.c (the slot core against interrupts and misuse) share:
 * the stub and the slot core set up on it. kselftest's counters are one
 * file's: test_stub.c's main() prints every result.
 */
#ifndef PVMAP_TEST_STUB_H
#define PVMAP_TEST_STUB_H

#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bug.h>
#include <linux/preempt.h>
#include <linux/uaccess.h>
#include <pvmap/io_mapping.h>

#include "pvmap_internal.h"
#include "pvmap_pte.h"
#include "pvmap_pte_stub.h"
#include "pvstub_trace.h"

#define APERTURE_FIRST	0x80000ULL	/* a 1 GiB BAR at 0x80000000 */
#define APERTURE_FRAMES	0x40000ULL
#define PROT_WC		0x8000000000000013ULL	/* P|RW|PWT|NX: not write-back */
#define MIB_PAGES	256

/*
 * Which of the slot core's paths core_begin() sets up: the slow one, as a
 * hypervisor backend has it (batches, free-slot checks), or the fast one,
 * as a native kernel has it (each PTE operation direct: one hypercall here).
 */
extern bool fast_path;

struct pvstub *new_stub(void);
/* Set up a stub and the slot core on it; false on failure. */
bool core_begin(bool batching, bool skip_clear);
void core_end(void);
/* 1 MiB as PWRITE writes it from @first_frame: the accesses that reached the wrong frame. */
unsigned int pwrite_1mib(uint64_t first_frame);
/* The stale mappings left of @n frames from @first, as the stub revokes them. */
unsigned int revoke_range(uint64_t first, unsigned int n);
/* Of @vaddr's @npages, as CPU pvmap_shim_cpu writes them: those that do not reach @pfn's. */
unsigned int wrong_frames(void *vaddr, unsigned int npages, uint64_t pfn);

/* test_stub_core.c's tests: 1 (pass) or 0 */
int on_both_paths(int (*test)(void));
int test_irq_at_every_point(void);
int test_irq_after_misuse(void);
int test_core_misuse(void);
int test_header_maps(void);
int test_core_limits(void);
int test_paths_switch(void);
/* test_stub_local.c's */
int test_local_switch_at_every_point(void);
int test_local_misuse(void);
int test_local_switch_leaves_no_mark(void);
/* test_stub_space.c's */
int test_space_change_at_every_point(void);

#endif
