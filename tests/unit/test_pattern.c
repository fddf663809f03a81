// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/uapi/pvmap_pattern.h and of the uapi layout. The pattern
 * is the contract between a guest writer and a host checker, so it must be
 * position-addressable, seed-dependent and catch any single flipped byte.
 * Built twice, 64-bit with ASan+UBSan and 32-bit, so both ABIs are checked.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <uapi/pvmap_pattern.h>
#include <uapi/pvmap.h>
#include <uapi/pvmap_test.h>

#include <kselftest.h>

#define LEN 8192

static uint8_t a[LEN], b[LEN];

static int sub_range_matches_whole(void)
{
	pvmap_pattern_fill(a, LEN, 42, 1000);
	/* An unaligned piece generated on its own equals that piece of the whole. */
	pvmap_pattern_fill(b, 777, 42, 1000 + 4001);
	return memcmp(a + 4001, b, 777) == 0;
}

static int seeds_differ(void)
{
	int same = 0;

	pvmap_pattern_fill(a, LEN, 1, 0);
	pvmap_pattern_fill(b, LEN, 2, 0);
	for (int i = 0; i < LEN; i++)
		same += a[i] == b[i];
	/* Unrelated bytes agree 1 time in 256; allow three times that. */
	return same < 3 * LEN / 256;
}

static int positions_differ(void)
{
	pvmap_pattern_fill(a, 4096, 7, 0);
	pvmap_pattern_fill(b, 4096, 7, 4096);
	return memcmp(a, b, 4096) != 0;
}

static int check_finds_every_flip(void)
{
	pvmap_pattern_fill(a, LEN, 99, 12345);
	if (pvmap_pattern_check(a, LEN, 99, 12345) != LEN)
		return 0;
	for (int i = 0; i < LEN; i += 97) {
		a[i] ^= 0x10;
		if (pvmap_pattern_check(a, LEN, 99, 12345) != (uint64_t)i)
			return 0;
		a[i] ^= 0x10;
	}
	return 1;
}

static int wrong_offset_is_caught(void)
{
	pvmap_pattern_fill(a, LEN, 5, 0x40000000ULL);
	return pvmap_pattern_check(a, LEN, 5, 0x40000000ULL + 8) != LEN;
}

static int uapi_layout(void)
{
	return sizeof(struct pvmap_info) == 48 &&
	       offsetof(struct pvmap_info, aperture_base) == 8 &&
	       offsetof(struct pvmap_info, aperture_size) == 16 &&
	       offsetof(struct pvmap_info, pci_name) == 32 &&
	       offsetof(struct pvmap_info, flags) == 29 &&
	       sizeof(struct pvmap_rw) == 32 &&
	       sizeof(struct pvmap_stats) == 136 &&
	       offsetof(struct pvmap_stats, live_slots) == 72 &&
	       PVMAP_IOC_INFO == 0x80307001u &&
	       PVMAP_IOC_PWRITE == 0xc0207002u &&
	       PVMAP_IOC_STATS == 0x80887004u;
}

/* The test modules' ABI: one layout for i386 and x86_64 user space. */
static int uapi_test_layout(void)
{
	return sizeof(struct pvmap_test_head) == 144 &&
	       offsetof(struct pvmap_test_head, msg) == 24 &&
	       sizeof(struct pvmap_test_api) == 184 &&
	       offsetof(struct pvmap_test_api, warns) == 176 &&
	       sizeof(struct pvmap_test_memtype) == 176 &&
	       sizeof(struct pvmap_test_conflict) == 168 &&
	       sizeof(struct pvmap_test_uc) == 152 &&
	       sizeof(struct pvmap_test_pool) == 168 &&
	       sizeof(struct pvmap_test_probe) == 168 &&
	       sizeof(struct pvmap_test_facilities) == 152 &&
	       sizeof(struct pvmap_test_hazard) == 168 &&
	       sizeof(struct pvmap_test_pattern) == 184 &&
	       offsetof(struct pvmap_test_pattern, bad) == 176 &&
	       sizeof(struct pvmap_test_irq_load) == 240 &&
	       sizeof(struct pvmap_test_local) == 216 &&
	       offsetof(struct pvmap_test_local, switches) == 184 &&
	       sizeof(struct pvmap_test_pv) == 224 &&
	       offsetof(struct pvmap_test_pv, reserved) == 200 &&
	       sizeof(struct pvmap_test_ping) == 176 &&
	       sizeof(struct pvmap_test_pv_hold) == 160 &&
	       sizeof(struct pvmap_test_xen_step) == 48 &&
	       sizeof(struct pvmap_test_xen) == 416 &&
	       offsetof(struct pvmap_test_xen, step) == 184 &&
	       offsetof(struct pvmap_test_xen, pte) == 376 &&
	       PVMAP_TEST_XEN_VECTOR == 0xc1a05014u &&
	       sizeof(struct pvmap_bench_run) == 208 &&
	       offsetof(struct pvmap_bench_run, seed) == 160 &&
	       sizeof(struct pvmap_bench_probe) == 168 &&
	       sizeof(struct pvmap_bench_stale_write) == 168 &&
	       PVMAP_TEST_API == 0xc0b85001u &&
	       PVMAP_BENCH_RUN == 0xc0d05040u;
}

int main(void)
{
	ksft_print_header();
	ksft_print_msg("Subtest: %s\n", sizeof(void *) == 4 ? "pattern-32" : "pattern-64");
	ksft_set_plan(7);
	ksft_test_result(sub_range_matches_whole(), "%s\n", "sub_range_matches_whole");
	ksft_test_result(seeds_differ(), "%s\n", "seeds_differ");
	ksft_test_result(positions_differ(), "%s\n", "positions_differ");
	ksft_test_result(check_finds_every_flip(), "%s\n", "check_finds_every_flip");
	ksft_test_result(wrong_offset_is_caught(), "%s\n", "wrong_offset_is_caught");
	ksft_test_result(uapi_layout(), "%s\n", "uapi_layout");
	ksft_test_result(uapi_test_layout(), "%s\n", "uapi_test_layout");
	ksft_finished();
}
