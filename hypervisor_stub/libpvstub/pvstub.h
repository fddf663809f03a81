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
 * The guest is a PV domU of a 64-bit Xen (a debug build: PTE bit 62 is
 * refused, unless cfg.release_build) whose I/O-memory permission is the
 * aperture; each behaviour is
 * Xen's at commit c447b7308b, in the function of xen/arch/x86/mm.c named
 * where it is modelled, and its unit test says which.
 *
 * Type exclusivity, as Xen's get_page_type(): a frame that an entry the
 * stub holds maps writable cannot become a page table (-EINVAL, "Bad
 * type"), and a page-table frame cannot be mapped writable (-EBUSY). An
 * entry a live guest registers is validated as mod_l1_entry() validates an
 * update, as alloc_l1_table() validates every entry of a pinned table.
 *
 * Bounds: at most cfg.max_tables page tables (-ENOMEM past them), lookups
 * by hash, the shadow check linear in the registered entries, at most
 * PVSTUB_MAX_VIOLATIONS violations kept (the rest only counted).
 *
 * Model limits: one guest, PAE/x86-64 PTE format, only L1 page-table frames
 * (a VA's L1 is set up with pvstub_alloc_l1, not by MMUEXT_PIN_L1_TABLE),
 * no M2P table, no page contents (a plain write to RAM is counted, not
 * kept), no L1TF checks of non-present entries, PTEs stored as written
 * (Xen's adjustments of a 64-bit guest's user bit are not made), and
 * mmuext_op's page-table commands are -ENOSYS.
 *
 * Errors, as Xen returns them: -EINVAL for a malformed request (an L1 flag
 * Xen disallows, an update aimed at a frame that is neither a page table
 * nor the guest's RAM, a VA with no L1), -ENOSYS for an unknown mmu_update
 * command, mmuext command or multicall op, -EPERM for MMIO outside the
 * aperture or a revoked frame, -EBUSY for a page-table frame mapped
 * writable (or RAM through DOMID_IO), -ESRCH for a domain that is not this
 * one (DOMID_XEN: -EPERM, unless cfg.privileged); an aperture frame mapped
 * cacheable is accepted with its cache bits made UC, as Xen does for MMIO.
 */
#ifndef PVSTUB_H
#define PVSTUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <xen/xen.h>

#define PVSTUB_MAX_VCPUS	8
#define PVSTUB_MAX_APERTURES	16	/* beside the configuration's */
/* mmuext_ops in one multicall entry: a page of a 32-bit guest's (Xen has no limit) */
#define PVSTUB_MMUEXT_MAX	512
/* page tables by default: 8 GiB of VA, about 34 MiB of the model's memory */
#define PVSTUB_MAX_TABLES	4096
#define PVSTUB_MAX_VIOLATIONS	1024	/* kept; the rest are counted */
#define PVSTUB_HIGH_RAM_FIRST	0x100000ULL	/* frame of 4 GiB: RAM above the PCI hole */

struct pvstub;

struct pvstub_config {
	unsigned int nr_vcpus;
	uint64_t ram_frames;		/* frames [0, ram_frames) are the guest's RAM */
	/*
	 * and frames [PVSTUB_HIGH_RAM_FIRST, + ram_high_frames): QEMU's RAM
	 * above 4 GiB (ram_frames then ends at or below 4 GiB)
	 */
	uint64_t ram_high_frames;
	uint64_t aperture_first;	/* first aperture frame */
	uint64_t aperture_frames;	/* aperture frames: MMIO the guest may map */
	/*
	 * The guest's addresses in hypercall arguments (a multicall's request
	 * arrays, done counts, vCPU masks) as pointers here, or NULL when no
	 * @len bytes are there. Without it they are this process's pointers:
	 * only for trusted callers in-process (a test), never for a guest's or
	 * a fuzzer's requests.
	 */
	void *(*guest_mem)(void *opaque, uint64_t addr, size_t len);
	void *guest_opaque;
	unsigned int max_tables;	/* 0: PVSTUB_MAX_TABLES */
	/*
	 * A release build of Xen, as distributions ship it (Debian's 4.17.7,
	 * measured by pvmap-tests' xen_fidelity_diff): _PAGE_GNTTAB is 0 there,
	 * so PTE bit 62 is allowed and kept. Otherwise a debug build's refusal.
	 */
	bool release_build;
	/*
	 * The hardware domain (dom0): XSM lets it name DOMID_XEN as
	 * mmu_update's data-page owner. An unprivileged domU gets -EPERM.
	 */
	bool privileged;
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
	uint64_t plain_writes;		/* mmu_update of a frame that is not a page table */
	uint64_t invlpg;
	uint64_t tlb_flush;
	uint64_t refused;
	uint64_t violations;
	uint64_t shadow_mismatches;	/* registered entries changed behind the stub */
	uint64_t violations_dropped;	/* counted in violations, not kept */
	/* the model's own work, for tests of its bounds */
	uint64_t lookups;		/* hash lookups */
	uint64_t lookup_probes;		/* slots they examined */
	uint64_t shadow_checked;	/* registered entries compared with their shadow */
	uint64_t scanned;		/* entries walked by revoke and a PAT change */
	uint64_t tables;		/* page tables now */
};

struct pvstub *pvstub_create(const struct pvstub_config *cfg);
void pvstub_destroy(struct pvstub *s);

/*
 * The PAT the guest's PTEs are read with (IA32_PAT's value), instead of
 * Xen's (a PV guest's is Xen's; an HVM guest's MMU uses its own). -EINVAL
 * for a reserved type; a change is taken only if every entry the stub holds
 * is still valid as it stands under the new PAT (no cacheable MMIO), else
 * -EBUSY and the PAT stays.
 */
int pvstub_set_pat(struct pvstub *s, uint64_t msr);

/* Another MMIO range the guest may map (a live guest's BARs, known after boot). */
int pvstub_add_aperture(struct pvstub *s, uint64_t first, uint64_t frames);

/*
 * A live guest: the PTE at machine address @maddr, entry (@va >> 12) % 512 of
 * the guest's own L1 frame, maps @va and is the hypervisor's from now on;
 * @frame_mem is that frame's 512 entries in the guest's memory, mapped here.
 * Updates are written there, and only to registered entries (-EPERM for
 * the rest of the frame: the guest's own); the stub keeps a shadow of each.
 * A frame belongs to one VA range; registering is idempotent.
 *
 * The entry's value is validated as an update would be: refused with that
 * update's errno, MMIO's cache bits made UC in place (alloc_l1_table()). A
 * frame that becomes a page table must not be mapped writable by an entry
 * the stub holds (-EINVAL); past cfg.max_tables tables, -ENOMEM.
 */
int pvstub_register_pte(struct pvstub *s, uint64_t va, uint64_t maddr, uint64_t *frame_mem);
int pvstub_unregister_pte(struct pvstub *s, uint64_t va, uint64_t maddr);
unsigned int pvstub_registered(const struct pvstub *s);
/*
 * Registered entries whose value in guest memory is not the one the stub
 * wrote (accessed and dirty bits aside): each is a violation, reported to
 * @out (if not NULL) once, until the stub writes the entry again; the shadow
 * keeps the validated value. Returns their number.
 */
unsigned int pvstub_check_shadow(struct pvstub *s, FILE *out);
/* The same, printing at most *@budget lines (decremented for each). */
unsigned int pvstub_check_shadow_budget(struct pvstub *s, FILE *out, unsigned int *budget);
/*
 * The model's invariants, for tests and fuzzers: every entry the stub holds
 * passes the validation of an update unchanged (revoked frames aside), no
 * page-table frame is mapped writable, and its bookkeeping (registered
 * count, writable mappings per frame) matches its tables. Each breach is
 * printed to @out (if not NULL); returns their number.
 */
unsigned int pvstub_audit(const struct pvstub *s, FILE *out);

/* Make a page-table (L1) frame of the guest's cover the 2 MiB around @va. */
int pvstub_alloc_l1(struct pvstub *s, uint64_t va);
/* Machine address of @va's PTE, for mmu_update's ptr; 0 if no L1 covers it. */
uint64_t pvstub_pte_maddr(const struct pvstub *s, uint64_t va);
/* The PTE of @va as the stub holds it (0 if none): guests may read, not write. */
uint64_t pvstub_pte(const struct pvstub *s, uint64_t va);

/* The hypercalls, as issued by @vcpu. Return 0 or a negative Xen errno. */
int pvstub_mmu_update(struct pvstub *s, unsigned int vcpu, const struct mmu_update *req,
		      unsigned int count, unsigned int *done, unsigned int foreigndom);
int pvstub_update_va_mapping(struct pvstub *s, unsigned int vcpu, uint64_t va,
			     uint64_t val, uint64_t flags);
int pvstub_mmuext_op(struct pvstub *s, unsigned int vcpu, const struct mmuext_op *op,
		     unsigned int count, unsigned int *done, unsigned int foreigndom);
/* Each entry's result is written to its .result, as Xen does. */
int pvstub_multicall(struct pvstub *s, unsigned int vcpu, struct multicall_entry *call,
		     unsigned int nr);

/*
 * A 32-bit guest's multicall (Xen's compat layer): every field and argument
 * 32 bits, pointers are guest addresses (so cfg.guest_mem is needed), and
 * update_va_mapping's 64-bit PTE comes as two arguments, low half first.
 */
struct pvstub_compat_multicall_entry {
	uint32_t op, result;
	uint32_t args[6];
};

/* struct mmuext_op as a 32-bit guest lays it out. */
struct pvstub_compat_mmuext_op {
	uint32_t cmd;
	uint32_t arg1;		/* mfn or linear_addr */
	uint32_t arg2;		/* nr_ents, vcpumask (a guest address) or src_mfn */
};

int pvstub_multicall_compat(struct pvstub *s, unsigned int vcpu,
			    struct pvstub_compat_multicall_entry *call, unsigned int nr);

/*
 * One vCPU's lazy-MMU queue, as Linux's arch/x86/xen/multicalls.c keeps one:
 * PTE updates and extended ops collected in the order issued, a run of
 * either kind extending one multicall entry, then issued together as one
 * multicall, whose entries Xen runs in order. Adding to a full queue fails:
 * the caller flushes it and adds again.
 */
#define PVSTUB_QUEUE_MAX	64

struct pvstub_queue {
	struct mmu_update upd[PVSTUB_QUEUE_MAX];
	unsigned int nupd;
	struct mmuext_op ext[PVSTUB_QUEUE_MAX];
	unsigned int next;
	struct {
		unsigned int op;	/* __HYPERVISOR_mmu_update or _mmuext_op */
		unsigned int first, count;
	} entry[2 * PVSTUB_QUEUE_MAX];
	unsigned int nentry;
};

bool pvstub_queue_update(struct pvstub_queue *q, const struct mmu_update *u);
bool pvstub_queue_mmuext(struct pvstub_queue *q, const struct mmuext_op *op);
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
/*
 * pvstub_revoke() of each of @frames (@n of them) at once, the report's
 * lines by frame in ascending order: one walk of the PTEs and TLBs for all,
 * where a pvstub_revoke() each walks them once per frame.
 */
unsigned int pvstub_revoke_frames(struct pvstub *s, const uint64_t *frames, size_t n,
				  FILE *out);

void pvstub_counts(const struct pvstub *s, struct pvstub_counts *c);
/*
 * Violations kept so far, one line each (then one for those dropped), or a
 * JSON array; returns the number kept.
 */
unsigned int pvstub_report_violations(const struct pvstub *s, FILE *out, bool json);

#endif /* PVSTUB_H */
