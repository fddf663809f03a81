/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding and replaying include/uapi/pvmap_trace.h's PTE traces through
 * libpvstub: the batches become multicalls as a PV guest's lazy-MMU mode
 * would issue them, every mapped page is touched after its batch (filling
 * the TLB as real use does), and at the end every aperture frame is revoked
 * and every VA touched again, so anything left mapped shows up.
 */
#ifndef PVSTUB_TRACE_H
#define PVSTUB_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pvstub.h"

struct pvstub_trace_op {
	char op;		/* enum pvmap_trace_op */
	unsigned int cpu;
	uint64_t va;
	uint64_t arg;		/* the PTE of S, the page count of A */
};

/* 0: decoded; 1: nothing to do (blank, comment, header); -EINVAL: malformed. */
int pvstub_trace_decode(const char *line, struct pvstub_trace_op *op);

struct pvstub_replay_result {
	uint64_t ops;
	uint64_t pages_mapped;		/* S operations */
	uint64_t naive_hypercalls;	/* one per S, C and F, one per page of A */
	uint64_t stale_at_revoke;	/* PTEs and TLB entries found by revoke */
	unsigned int violations;	/* accesses that reached a revoked frame */
	unsigned int bad_line;		/* first malformed line (1-based), or 0 */
	struct pvstub_counts counts;	/* what the batched replay cost */
};

/*
 * Replay the trace in @text (@len bytes, need not be NUL-terminated).
 * Revoke reports go to @report if not NULL; violations stay in the stub and
 * are printed to @report too. 0, or -EINVAL (r->bad_line says where),
 * -E2BIG for a trace beyond the model's limits, -ENOMEM.
 */
int pvstub_replay(const char *text, size_t len, struct pvstub_replay_result *r,
		  FILE *report, bool json);

#endif
