/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest tests' bodies on the kselftest harness. A body returns
 * fail(...) (-1, after a "# why" line), skip(...) (1), xfail(...) (2: a
 * known failure, kselftest's XFAIL) or 0; PVMAP_TEST(NAME) makes it the
 * harness's TEST(NAME), which runs it in a child of its own and reports
 * it: "ok N global.NAME", "ok N global.NAME # SKIP why", "not ok N ...".
 * PVMAP_TEST_ALONE(NAME) is TEST_F(alone, NAME), for tests the default run
 * leaves out (-F alone) because they leave the guest unusable; the
 * program defines FIXTURE(alone) (its setup makes what the test needs).
 *
 * Each program defines test_setup(), run at the start of every test in its
 * child: it drains the console first, so that the lines the harness
 * printed (the last result, this RUN) are out on the serial line before
 * the test can make the kernel print (kernel_misuse's announced WARNs once
 * split a result line in two, and the host lost the result).
 */
#ifndef PVMAP_GUEST_RESULT_H
#define PVMAP_GUEST_RESULT_H

#include "guest.h"
#include "harness.h"

#include <stdio.h>
#include <termios.h>
#include <unistd.h>

/* Why the running test skipped or failed as expected (its child's copy). */
static char test_reason[256];

#define skip(...) ({ snprintf(test_reason, sizeof(test_reason), __VA_ARGS__); 1; })
#define xfail(...) ({ snprintf(test_reason, sizeof(test_reason), __VA_ARGS__); 2; })

static void test_setup(void);

/* The body's result @ret, as the harness's exit code of this test. */
static inline void test_end(struct __test_metadata *_metadata, int ret)
{
	fflush(NULL);
	if (ret == 1)
		SKIP(return, "%s", test_reason);
	if (ret == 2) {
		snprintf(_metadata->results->reason, sizeof(_metadata->results->reason),
			 "%s", test_reason);
		_metadata->exit_code = KSFT_XFAIL;
	} else if (ret) {
		_metadata->exit_code = KSFT_FAIL;
	}
}

#define PVMAP_TEST(name) \
	static int test_##name(void); \
	TEST(name) \
	{ \
		test_setup(); \
		test_end(_metadata, test_##name()); \
	} \
	static int test_##name(void)

#define PVMAP_TEST_ALONE(name) \
	static int test_##name(void); \
	TEST_F(alone, name) \
	{ \
		test_setup(); \
		test_end(_metadata, test_##name()); \
	} \
	static int test_##name(void)

#endif /* PVMAP_GUEST_RESULT_H */
