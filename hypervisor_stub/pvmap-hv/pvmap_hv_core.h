/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pvmap-hv's request path, without its sockets: what a guest's request does
 * to the hypervisor model (libpvstub) and to the guest's RAM. The daemon
 * (pvmap_hv.c) serves it from the channel; its unit test and its fuzzer
 * call it directly.
 */
#ifndef PVMAP_HV_CORE_H
#define PVMAP_HV_CORE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <uapi/pvmap_hv.h>

#include "pvstub.h"

/* The machine type, for QEMU's split of RAM around the PCI hole below 4 GiB. */
enum pvmap_hv_machine {
	PVMAP_HV_PC,		/* -M pc (i440FX) */
	PVMAP_HV_Q35,		/* -M q35 */
};

/*
 * QEMU 7.2's layout of @ram_size bytes of RAM (hw/i386/pc_piix.c and
 * pc_q35.c, default max-ram-below-4g, current machine versions): *@below at
 * guest-physical 0 (the file's first bytes), *@above at 4 GiB (the rest of
 * the file). -EINVAL for a size QEMU would not take.
 */
int pvmap_hv_ram_layout(enum pvmap_hv_machine machine, uint64_t ram_size, uint64_t *below,
			uint64_t *above);

/* Log lines (the guest's PTE writes behind the hypervisor's back): a burst per interval. */
#define PVMAP_HV_LOG_BURST	10
#define PVMAP_HV_LOG_INTERVAL_MS	5000

struct pvmap_hv_config {
	unsigned int nr_vcpus;
	enum pvmap_hv_machine machine;
	unsigned int max_tables;	/* 0: PVSTUB_MAX_TABLES */
	/*
	 * Back [offset, offset + len) of the RAM file with storage before the
	 * daemon touches it (fallocate: a full file system must be an error,
	 * not SIGBUS): 0 or a negative errno. NULL: the RAM is plain memory.
	 */
	int (*reserve)(void *opaque, uint64_t offset, uint64_t len);
	void *opaque;
	FILE *log;			/* NULL: no log */
	uint64_t (*now_ms)(void);	/* the log's clock; NULL: CLOCK_MONOTONIC */
};

struct pvmap_hv;

/*
 * A hypervisor for the guest whose RAM (@ram_size bytes, QEMU's RAM file)
 * is mapped at @ram; without RAM (@ram NULL), a channel only: PING works,
 * everything else is -ENOSYS. NULL on a bad configuration (reported to
 * cfg->log) or out of memory.
 */
struct pvmap_hv *pvmap_hv_create(const struct pvmap_hv_config *cfg, void *ram,
				 uint64_t ram_size);
void pvmap_hv_destroy(struct pvmap_hv *hv);

/*
 * Take the request posted in @area (pvmap_hv.h's PVMAP_HV_TAKEN), as a
 * hypervisor must before it serves it: false when there is none to take
 * (@done already says @seq: a repeated doorbell) or when the guest has
 * abandoned it, which is counted and never served. On true, *@seq is the
 * request's number, for pvmap_hv_complete().
 */
bool pvmap_hv_take(struct pvmap_hv *hv, struct pvmap_hv_request *area, uint32_t *seq);

/* Mark request @seq in @area complete: its results are in place. */
void pvmap_hv_complete(struct pvmap_hv_request *area, uint32_t seq);

/*
 * Serve vCPU @vcpu's request in @area (the shared request area: read once,
 * into a private copy); its results and result are written back, not @done.
 * Returns the result.
 */
int pvmap_hv_serve(struct pvmap_hv *hv, unsigned int vcpu, struct pvmap_hv_request *area);

/* One control command (pvmap_hv.c lists them); its answer ends "ok ..." or "error ...". */
void pvmap_hv_control(struct pvmap_hv *hv, const char *line, FILE *out);
void pvmap_hv_print_counts(const struct pvmap_hv *hv, FILE *out);

/* Requests served, and those refused as unknown (-ENOSYS). */
uint64_t pvmap_hv_calls(const struct pvmap_hv *hv);
/* Requests the guest abandoned before they were taken (never served). */
uint64_t pvmap_hv_abandoned(const struct pvmap_hv *hv);
uint64_t pvmap_hv_unknown(const struct pvmap_hv *hv);

/* The model, or NULL for a channel only. */
struct pvstub *pvmap_hv_stub(struct pvmap_hv *hv);

/* Guest-physical @gpa as a pointer to @len bytes of the RAM, or NULL (not RAM). */
void *pvmap_hv_gpa(struct pvmap_hv *hv, uint64_t gpa, uint64_t len);

#endif /* PVMAP_HV_CORE_H */
