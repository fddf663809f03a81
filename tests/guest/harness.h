/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest tests' harness: the kernel's own kselftest harness
 * (tools/testing/selftests/kselftest_harness.h of Debian's
 * linux-source-6.12, on the include path as a system header because its
 * macros leave parameters unused under -Wextra). Each test runs in a
 * child of its own; its exit code is kselftest's (pass, fail, skip, xfail).
 *
 * Tests that leave the guest unusable for what follows (a stopped
 * hypervisor, a device deleted under a stalled copy) are TEST_F(alone, ...):
 * the default run leaves out the fixture "alone" (-F alone), and
 * tools/host/run-guest --test NAME runs NAME alone (-t NAME).
 */
#ifndef PVMAP_GUEST_HARNESS_H
#define PVMAP_GUEST_HARNESS_H

#include <kselftest_harness.h>

/*
 * Under TCG one test can take minutes (soak, atomic_map_in_irq with
 * pvtest.irqload=60000); the harness's 30 s is a native machine's. The host
 * runner's own --timeout still bounds the whole boot.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 900

#endif /* PVMAP_GUEST_HARNESS_H */
