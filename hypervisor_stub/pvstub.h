/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpvstub: a user-space model of the hypervisor side of Xen's PV MMU
 * interface, on Xen's own public ABI (<xen/xen.h> from libxen-dev): the
 * guest's page tables are written only here, by mmu_update,
 * update_va_mapping, mmuext_op and multicall, each validated as Xen would;
 * every vCPU has a TLB that only invalidation hypercalls empty; frames can
 * be revoked, and any access that still reaches a revoked frame is recorded
 * as a violation with the hypercall that left the mapping behind.
 *
 * Model limits: one guest (DOMID_SELF), PAE/x86-64 PTE format, only L1
 * page-table frames (a VA's L1 is set up with pvstub_alloc_l1), cache type
 * read from PCD/PWT/PAT only (all clear = write-back).
 *
 * Errors, as Xen returns them: -EINVAL for a malformed request (command
 * bits, alignment, a PTE address outside a page-table frame, an aperture
 * frame mapped write-back), -EPERM for a frame
 * the guest may not map (not its own, revoked, or a page-table frame mapped
 * writable), -ESRCH for a foreign domain, -ENOSYS for an unknown multicall op
 * or mmuext command.
 */
#ifndef PVSTUB_H
#define PVSTUB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <xen/xen.h>

#define PVSTUB_MAX_VCPUS	8

struct pvstub;

struct pvstub_config {
	unsigned int nr_vcpus;
	uint64_t ram_frames;		/* frames [0, ram_frames) are the guest's RAM */
	uint64_t aperture_first;	/* first aperture frame */
	uint64_t aperture_frames;	/* aperture frames, must be mapped non-WB */
};

/* Hypercall counts: each top-level call is one guest->hypervisor trap. */
struct pvstub_counts {
	uint64_t hypercalls;
	uint64_t mmu_update;
	uint64_t update_va_mapping;
	uint64_t mmuext_op;
	uint64_t multicall;
	uint64_t multicall_entries;
	uint64_t pte_writes;
	uint64_t invlpg;
	uint64_t tlb_flush;
	uint64_t refused;
	uint64_t violations;
};

struct pvstub *pvstub_create(const struct pvstub_config *cfg);
void pvstub_destroy(struct pvstub *s);

/* Make a page-table (L1) frame of the guest's cover the 2 MiB around @va. */
int pvstub_alloc_l1(struct pvstub *s, uint64_t va);
/* Machine address of @va's PTE, for mmu_update's ptr; 0 if no L1 covers it. */
uint64_t pvstub_pte_maddr(const struct pvstub *s, uint64_t va);
/* The PTE of @va as the stub holds it (0 if none): guests may read, not write. */
uint64_t pvstub_pte(const struct pvstub *s, uint64_t va);

/* The hypercalls, as issued by @vcpu. Return 0 or a negative Xen errno. */
int pvstub_mmu_update(struct pvstub *s, unsigned int vcpu, const struct mmu_update *req,
		      unsigned int count, unsigned int *done, domid_t dom);
int pvstub_update_va_mapping(struct pvstub *s, unsigned int vcpu, uint64_t va,
			     uint64_t val, uint64_t flags);
int pvstub_mmuext_op(struct pvstub *s, unsigned int vcpu, const struct mmuext_op *op,
		     unsigned int count, unsigned int *done, domid_t dom);
/* Each entry's result is written to its .result, as Xen does. */
int pvstub_multicall(struct pvstub *s, unsigned int vcpu, struct multicall_entry *call,
		     unsigned int nr);

/*
 * One vCPU's lazy-MMU queue, as Xen's multicalls.c keeps one: PTE updates and
 * extended ops collected, then issued together as one multicall. Callers
 * flush early when a queue is full.
 */
#define PVSTUB_QUEUE_MAX	64

struct pvstub_queue {
	struct mmu_update upd[PVSTUB_QUEUE_MAX];
	unsigned int nupd;
	struct mmuext_op ext[PVSTUB_QUEUE_MAX];
	unsigned int next;
};

/* Issue @q as one multicall (none when empty) and empty it; entries refused. */
unsigned int pvstub_queue_flush(struct pvstub *s, unsigned int vcpu, struct pvstub_queue *q);

/*
 * A guest access to @va from @vcpu: through its TLB, else a page walk that
 * fills the TLB. 0 and the frame, or -EFAULT when nothing maps @va. An access
 * that reaches a revoked frame succeeds (as on hardware) and is recorded.
 */
int pvstub_access(struct pvstub *s, unsigned int vcpu, uint64_t va, bool write,
		  uint64_t *frame);

/*
 * The hypervisor takes @frame back (hands it to another owner, changes its
 * cacheability). Every PTE and TLB entry that still references it is
 * reported to @out (if not NULL); returns their number.
 */
unsigned int pvstub_revoke(struct pvstub *s, uint64_t frame, FILE *out);

void pvstub_counts(const struct pvstub *s, struct pvstub_counts *c);
/* Violations so far, one line each (or a JSON array); returns their number. */
unsigned int pvstub_report_violations(const struct pvstub *s, FILE *out, bool json);

#endif /* PVSTUB_H */
