/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The io_mapping API's own cases, in the order they run: one
 * PVMAP_API_CASE(name, function, argument) each. The includer defines
 * PVMAP_API_CASE: pvmap_api_cases.c builds its table from it (KUnit's
 * parameters, PVMAP_TEST_API's names), and the guest's suite
 * (tests/guest/tests_kernel.c) one test kernel_NAME per case, never expanding
 * the function or the argument. So a new case is one function and one line
 * here, and the compiler, not a script, holds the two lists together. A name
 * fits in PVMAP_TEST_NAME_LEN with its NUL.
 */
PVMAP_API_CASE(nested, api_nested, 0)
PVMAP_API_CASE(range1, api_range, 1)
PVMAP_API_CASE(range2, api_range, 2)
PVMAP_API_CASE(range16, api_range, 16)
PVMAP_API_CASE(rangemax, api_range, PVMAP_SLOTS_PER_CPU)
PVMAP_API_CASE(stale, api_stale, 0)
PVMAP_API_CASE(local, api_local, 0)
PVMAP_API_CASE(sleepable4k, api_sleepable, PAGE_SIZE)
PVMAP_API_CASE(sleepable64k, api_sleepable, PVMAP_POOL_WINDOW_SIZE)
PVMAP_API_CASE(sleepable1m, api_sleepable, SZ_1M)
PVMAP_API_CASE(misuse, api_misuse, 0)
PVMAP_API_CASE(pool_owner_large_maps, api_pool_owner_large_maps, 0)
