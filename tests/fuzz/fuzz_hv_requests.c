// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for pvmap-hv's request path (pvmap_hv_core.c), as a
 * guest drives it: the input is a program of requests (HELLO with a PAT,
 * REGISTER and UNREGISTER, multicalls of mmu_update, update_va_mapping and
 * mmuext_op, raw requests), of writes the guest makes to its page tables
 * behind the daemon's back, and of apertures the host grants, on a 1 MiB
 * guest. Values are drawn mostly from frames that matter (RAM, the page
 * tables, an aperture, the local APIC, no man's land) so that requests get
 * past the first check.
 *
 * The oracle, after every request: the model's invariants hold
 * (pvstub_audit(): every entry it holds passes the validation of an update
 * unchanged, no page table mapped writable, its counts right); else abort.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvmap_hv_core.h"

#define RAM_SIZE	(1 << 20)
#define RAM_FRAMES	(RAM_SIZE >> 12)
#define AP_FIRST	0x10000ULL	/* the aperture granted at boot */
#define MC_OFF		64
#define ARR_OFF		512
#define MAX_ENTRIES	6
#define MAX_ITEMS	12		/* updates or ops per multicall entry */
#define MAX_STEPS	64

struct input {
	const uint8_t *p;
	size_t left;
};

static uint64_t take(struct input *in, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes && in->left; i++, in->left--)
		v |= (uint64_t)*in->p++ << (8 * i);
	return v;
}

static uint64_t pick_frame(struct input *in)
{
	static const uint64_t special[] = {
		0xfee00, 0x300, RAM_FRAMES - 1, AP_FIRST, AP_FIRST + 0xff, 0x20000, 0,
		0xfffffffffULL,
	};
	uint8_t b = (uint8_t)take(in, 1);

	if (b < 0x80)
		return b % RAM_FRAMES;		/* RAM, page tables among it */
	if (b < 0xc0)
		return AP_FIRST + b % 0x100;	/* the aperture */
	return special[b % (sizeof(special) / sizeof(special[0]))];
}

/* A PTE: a frame, the low flags as given, sometimes bit 62 or NX. */
static uint64_t pick_pte(struct input *in)
{
	uint64_t frame = pick_frame(in), flags = take(in, 2);

	return frame << 12 | (flags & 0xfff) | (flags & 0x1000 ? 1ULL << 62 : 0) |
	       (flags & 0x2000 ? 1ULL << 63 : 0);
}

/* The VA an entry of table @t (0..7, 2 MiB apart) maps at index @idx. */
static uint64_t va_of(unsigned int t, unsigned int idx)
{
	return 0xc0000000ULL + (uint64_t)(t % 8) * (2 << 20) + (uint64_t)(idx % 512) * 4096;
}

/*
 * An address in the tables' range. The input is read in a fixed order: C
 * leaves the order of a call's arguments open, so never two take()s in one.
 */
static uint64_t pick_va(struct input *in)
{
	unsigned int t = (unsigned int)take(in, 1);
	unsigned int idx = (unsigned int)take(in, 2);

	return va_of(t, idx);
}

static void fill_multicall(struct pvmap_hv_request *req, struct input *in, unsigned int abi)
{
	uint8_t *area = (uint8_t *)req;
	unsigned int n = 1 + take(in, 1) % MAX_ENTRIES, at = ARR_OFF;

	req->data[0] = n;
	req->data[1] = MC_OFF;
	/* the vCPU bitmap that MULTI flushes name, and the done counter */
	area[ARR_OFF - 16] = (uint8_t)take(in, 1);
	for (unsigned int e = 0; e < n; e++) {
		uint64_t args[6] = { 0 }, op;
		unsigned int k = take(in, 1) % (MAX_ITEMS + 1);
		uint8_t kind = (uint8_t)take(in, 1);

		switch (kind % 4) {
		case 0:
			op = __HYPERVISOR_mmu_update;
			args[0] = at;
			args[1] = kind & 0x40 ? take(in, 4) : k;	/* sometimes a wild count */
			args[2] = kind & 0x80 ? 0 : ARR_OFF - 8;
			args[3] = kind & 0x20 ? take(in, 2) : DOMID_SELF;
			for (unsigned int i = 0; i < k && at + 16 <= sizeof(*req); i++, at += 16) {
				uint64_t frame = pick_frame(in), off = take(in, 2) & 0xfff;
				struct mmu_update u = { .ptr = (frame << 12) + off };

				u.val = pick_pte(in);
				memcpy(area + at, &u, sizeof(u));
			}
			break;
		case 1:
			op = __HYPERVISOR_update_va_mapping;
			args[0] = pick_va(in);
			args[1] = pick_pte(in);
			args[2] = abi == 32 ? args[1] >> 32 : take(in, 1);
			args[3] = abi == 32 ? take(in, 1) : 0;
			if (abi == 32)
				args[1] &= 0xffffffff;
			break;
		case 2:
			op = __HYPERVISOR_mmuext_op;
			args[0] = at;
			args[1] = k;
			args[2] = kind & 0x80 ? 0 : ARR_OFF - 8;
			args[3] = kind & 0x20 ? take(in, 2) : DOMID_SELF;
			for (unsigned int i = 0; i < k && at + 24 <= sizeof(*req); i++) {
				uint32_t cmd = (uint32_t)take(in, 1) % 24, mask = ARR_OFF - 16;
				uint64_t va = pick_va(in);

				if (abi == 32) {
					struct pvstub_compat_mmuext_op c = {
						.cmd = cmd, .arg1 = (uint32_t)va, .arg2 = mask,
					};

					memcpy(area + at, &c, sizeof(c));
					at += sizeof(c);
				} else {
					struct mmuext_op m = {
						.cmd = cmd, .arg1.linear_addr = va,
						.arg2.vcpumask = (const void *)(uintptr_t)mask,
					};

					memcpy(area + at, &m, sizeof(m));
					at += sizeof(m);
				}
			}
			at = (at + 7) & ~7U;
			break;
		default:
			op = take(in, 1);
			for (unsigned int j = 0; j < 6; j++)
				args[j] = take(in, 2);
			break;
		}
		if (abi == 32) {
			struct pvstub_compat_multicall_entry c = { .op = (uint32_t)op };

			for (unsigned int j = 0; j < 6; j++)
				c.args[j] = (uint32_t)args[j];
			memcpy(area + MC_OFF + e * sizeof(c), &c, sizeof(c));
		} else {
			struct multicall_entry m = { .op = op };

			for (unsigned int j = 0; j < 6; j++)
				m.args[j] = args[j];
			memcpy(area + MC_OFF + e * sizeof(m), &m, sizeof(m));
		}
	}
}

static void fill_register(struct pvmap_hv_request *req, struct input *in)
{
	unsigned int n = take(in, 1) % 9;

	req->data[0] = n;
	for (unsigned int i = 0; i < n; i++) {
		unsigned int t = (unsigned int)take(in, 1), idx = (unsigned int)take(in, 2);
		/* mostly its own table frame (1 + t) at the right index; sometimes not */
		uint64_t frame = t & 0x80 ? pick_frame(in) : 1 + t % 8;

		req->data[1 + 2 * i] = va_of(t, idx) + (idx & 0x8000 ? 8 : 0);
		req->data[2 + 2 * i] = (frame << 12) + (idx & 0x4000 ? take(in, 2) & 0xfff :
							     (idx % 512) * 8);
	}
}

static const uint64_t pats[] = {
	0, 0x0007010600070106ULL, 0x0007050006070106ULL, 0x0606060606060606ULL,
	0x0000000000000000ULL, 0x0101010101010101ULL,
};

static uint8_t ram[RAM_SIZE] __attribute__((aligned(4096)));

static void check(struct pvmap_hv *hv, const char *after)
{
	if (pvstub_audit(pvmap_hv_stub(hv), stderr)) {
		fprintf(stderr, "fuzz_hv_requests: the model's invariants broken after %s\n", after);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pvmap_hv_config cfg = { .nr_vcpus = 2, .max_tables = 6 };
	struct input in = { .p = data, .left = size };
	struct pvmap_hv_request req;
	unsigned int abi = 64;
	struct pvmap_hv *hv;
	FILE *null = fopen("/dev/null", "w");

	if (!null)
		return 0;
	memset(ram, 0, sizeof(ram));
	hv = pvmap_hv_create(&cfg, ram, sizeof(ram));
	if (!hv) {
		fclose(null);
		return 0;
	}
	pvmap_hv_control(hv, "aperture 0x10000000 0x100000", null);
	memset(&req, 0, sizeof(req));
	for (unsigned int step = 0; step < MAX_STEPS && in.left; step++) {
		uint8_t what = (uint8_t)take(&in, 1);
		unsigned int vcpu = what >> 7;
		const char *name = "a request";

		memset(req.data, 0, sizeof(req.data));
		switch (what % 8) {
		case 0:
			req.op = PVMAP_HV_HELLO;
			abi = take(&in, 1) & 1 ? 32 : 64;
			req.data[0] = abi;
			req.data[1] = pats[take(&in, 1) % (sizeof(pats) / sizeof(pats[0]))];
			name = "HELLO";
			break;
		case 1:
		case 2:
			req.op = what % 8 == 1 ? PVMAP_HV_REGISTER : PVMAP_HV_UNREGISTER;
			fill_register(&req, &in);
			name = "REGISTER";
			break;
		case 3:
		case 4:
			req.op = PVMAP_HV_MULTICALL;
			fill_multicall(&req, &in, abi);
			name = "MULTICALL";
			break;
		case 5: {
			/* the guest writes one of its page-table entries itself */
			uint64_t *t = (uint64_t *)(ram + ((1 + take(&in, 1) % 8) << 12));
			unsigned int idx = take(&in, 2) % 512;

			t[idx] = pick_pte(&in);
			req.op = PVMAP_HV_PING;
			name = "a write behind the daemon's back";
			break;
		}
		case 6: {
			uint64_t first = pick_frame(&in), frames = 1 + take(&in, 1);
			char line[64];

			snprintf(line, sizeof(line), "aperture %#llx %#llx",
				 (unsigned long long)first << 12, (unsigned long long)frames << 12);
			pvmap_hv_control(hv, line, null);
			req.op = PVMAP_HV_PING;
			name = "an aperture";
			break;
		}
		default:
			/* anything at all */
			req.op = (uint32_t)take(&in, 1);
			for (unsigned int i = 0; i < 8; i++)
				req.data[i] = take(&in, 8);
			break;
		}
		pvmap_hv_serve(hv, vcpu, &req);
		check(hv, name);
	}
	pvmap_hv_control(hv, "counts", null);
	pvmap_hv_control(hv, "violations", null);
	pvmap_hv_destroy(hv);
	fclose(null);
	return 0;
}
