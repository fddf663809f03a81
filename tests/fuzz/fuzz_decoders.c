// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the stub's decoders: the first byte picks what the
 * rest is fed to.
 *   even: a trace text, decoded and replayed (pvstub_replay);
 *   odd:  hypercall requests, as the raw bytes of mmu_update and mmuext_op
 *         arrays issued directly and through a multicall whose ops and counts
 *         come from the input; its addresses (and those inside the requests:
 *         vCPU masks, flags) are guest addresses into one small buffer.
 * Anything may be refused; nothing may crash, leak or hang.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pvstub_trace.h"

#define MAX_REQ	32

/* The guest's memory: what its multicalls' addresses point into. */
static struct guest_memory {
	uint8_t zero;	/* address 0 is NULL */
	struct mmu_update upd[MAX_REQ];
	struct mmuext_op ext[MAX_REQ];
	unsigned int done;
} gmem;

static void *guest_mem(void *opaque, uint64_t addr, size_t len)
{
	(void)opaque;
	if (!addr || addr > sizeof(gmem) || len > sizeof(gmem) - addr)
		return NULL;
	return (uint8_t *)&gmem + addr;
}

static void fuzz_hypercalls(const uint8_t *data, size_t size)
{
	struct pvstub_config cfg = {
		.nr_vcpus = 2, .ram_frames = 64, .aperture_first = 64, .aperture_frames = 64,
		.guest_mem = guest_mem,
	};
	struct mmu_update *upd = gmem.upd;
	struct mmuext_op *ext = gmem.ext;
	struct multicall_entry mc[4];
	struct pvstub *s = pvstub_create(&cfg);
	unsigned int nupd, next, done;
	uint64_t frame;

	if (!s)
		return;
	pvstub_alloc_l1(s, 0);
	pvstub_alloc_l1(s, 0x200000);
	memset(&gmem, 0, sizeof(gmem));
	nupd = size / 2 < sizeof(gmem.upd) ? size / 2 / sizeof(upd[0]) : MAX_REQ;
	memcpy(upd, data, nupd * sizeof(upd[0]));
	next = (size - size / 2) < sizeof(gmem.ext) ? (size - size / 2) / sizeof(ext[0]) : MAX_REQ;
	memcpy(ext, data + size / 2, next * sizeof(ext[0]));

	pvstub_mmu_update(s, 0, upd, nupd, &done, DOMID_SELF);
	pvstub_mmuext_op(s, 1, ext, next, &done, DOMID_SELF);
	for (unsigned int i = 0; i < 4; i++) {
		uint8_t b = size > i ? data[i] : 0;

		mc[i] = (struct multicall_entry){ .op = b % 32 };
		if (mc[i].op == __HYPERVISOR_mmu_update) {
			mc[i].args[0] = offsetof(struct guest_memory, upd);
			mc[i].args[1] = b % (nupd + 1);
			mc[i].args[2] = offsetof(struct guest_memory, done);
			mc[i].args[3] = DOMID_SELF;
		} else if (mc[i].op == __HYPERVISOR_mmuext_op) {
			mc[i].args[0] = offsetof(struct guest_memory, ext);
			mc[i].args[1] = b % (next + 1);
			mc[i].args[3] = DOMID_SELF;
		} else if (nupd) {
			/* update_va_mapping's (va, val, flags) */
			mc[i].args[0] = upd[0].ptr;
			mc[i].args[1] = upd[0].val;
			mc[i].args[2] = upd[0].ptr >> 32;
		}
	}
	pvstub_multicall(s, size & 1, mc, 4);
	for (unsigned int i = 0; i < nupd; i++)
		pvstub_access(s, 0, upd[i].val & 0x3ff000, true, &frame);
	for (uint64_t f = 60; f < 70; f++)
		pvstub_revoke(s, f, NULL);
	pvstub_access(s, 1, 0x1000, false, &frame);
	pvstub_destroy(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pvstub_replay_result r;

	if (!size)
		return 0;
	if (data[0] % 2 == 0)
		pvstub_replay((const char *)data + 1, size - 1, &r, NULL, false);
	else
		fuzz_hypercalls(data + 1, size - 1);
	return 0;
}
