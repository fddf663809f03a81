/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest tests on the kselftest harness, in its own vocabulary. A test is
 * TEST_F(pvmap, NAME): the fixture "pvmap" runs test_setup() first in the
 * test's child (each program defines it: it drains the console, so that the
 * lines the harness printed, the last result and this RUN, are out on the
 * serial line before the test can make the kernel print; kernel_misuse's
 * announced WARNs once split a result line in two, and the host lost the
 * result). A body checks with ASSERT_*() (the test stops) and EXPECT_*() (it
 * goes on), each with an optional TH_LOG() saying why; SKIP(return, why)
 * when what it needs is absent, XFAIL(return, why) for a failure known at
 * run time (XFAIL_ADD() is the harness's build-time list). A helper returns
 * 0 or -1 after fail()'s "# why" line and its caller asserts on that.
 *
 * A failed ASSERT_*() ends the test's process without the fixture's
 * teardown: the 6.12 harness's TEST_F wrapper keeps its fork()'s result in
 * a variable that its longjmp() may restore (not volatile; at -O2 it is),
 * and the child then abort()s on the parent's path. So a test restores
 * what outlives its process (a driver unbound, a module unloaded, the host
 * told to unplug a device) before it asserts, and the teardown below only
 * serves a body that returned.
 *
 * Tests that leave the guest unusable for what follows are TEST_F(alone,
 * NAME): the default run leaves out the fixture "alone" (-F alone), and
 * run-guest --test NAME runs NAME alone (-t NAME); the program defines
 * FIXTURE(alone), whose setup makes what the test needs and calls
 * test_setup(), and whose teardown flushes stdio as pvmap's does. The
 * harness prints "ok N pvmap.NAME [# SKIP|XFAIL why]".
 */
#ifndef PVMAP_GUEST_RESULT_H
#define PVMAP_GUEST_RESULT_H

#include "guest.h"
#include "harness.h"

#include <stdio.h>

static void test_setup(void);

FIXTURE(pvmap) {};
FIXTURE_SETUP(pvmap)
{
	test_setup();
}
/* The test's process ends in _exit(): a last line without its newline goes out first. */
FIXTURE_TEARDOWN(pvmap)
{
	fflush(NULL);
}

/*
 * SKIP()'s twin for an expected failure the test finds at run time (the
 * kernel it runs on has a known bug): "ok N NAME # XFAIL why", counted as
 * passed. The harness's XFAIL_ADD() names such tests at build time only.
 */
#define XFAIL(statement, fmt, ...) do { \
	snprintf(_metadata->results->reason, \
		 sizeof(_metadata->results->reason), fmt, ##__VA_ARGS__); \
	_metadata->exit_code = KSFT_XFAIL; \
	_metadata->trigger = 0; \
	statement; \
} while (0)

#endif /* PVMAP_GUEST_RESULT_H */
