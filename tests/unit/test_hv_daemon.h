/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest test_hv_daemon.c plays (its RAM, its aperture, its request area,
 * the PAT values it hands pvmap-hv), and the tests in test_hv_replay.c that it
 * runs beside its own.
 */
#ifndef PVMAP_TEST_HV_DAEMON_H
#define PVMAP_TEST_HV_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#define MiB		(1ULL << 20)
#define GiB		(1ULL << 30)
#define P		0x001ULL
#define RW		0x002ULL
#define PWT		0x008ULL
#define PCD		0x010ULL
#define PATBIT		0x080ULL
#define BIT62		(1ULL << 62)
#define RAM_SIZE	(256 * MiB)
#define APERTURE	0x80000000ULL	/* a BAR: granted as the guest's I/O memory */
#define APERTURE_SIZE	(256 * MiB)
#define AP_FRAME	(APERTURE >> 12)
#define PT_FRAME	0x1000ULL	/* a page of the guest's page tables */
#define VA		UINT64_C(0xd0000000)	/* index 0 of the table that maps it */
#define PAGE(f)		((uint64_t)(f) << 12)
/* the guest's ABI: this build's multicall layout (32 bits in test_hv_daemon32) */
#define ABI		(8 * sizeof(xen_ulong_t))

/* Where a request's arrays sit in its area: offsets are the guest's addresses. */
#define MC_OFF		64
#define UPD_OFF		256
#define DONE_OFF	4088
#define MAX_UPD		((DONE_OFF - UPD_OFF) / 16)

/* IA32_PAT types; PATs as index 0 .. 7, one byte each */
#define PAT_UC		0
#define PAT_WB		6
/* WB WC UC- WB UC WP UC- UC: index 3 (PCD|PWT, Xen's UC) is write-back */
#define PAT_IDX3_WB	0x0007050006070106ULL
#define PAT_LINUX	0x0007010600070106ULL	/* index 4 is WB */
#define PAT_ALL_WB	0x0606060606060606ULL

/* pvstub-replay's work per page does not grow with the trace (test_hv_replay.c) */
bool test_replay_linear(void);
bool test_replay_linear_stale(void);

#endif
