// SPDX-License-Identifier: GPL-2.0
/*
 * tests/guest/result.h's vocabulary, run on the host: each test ends one of
 * the ways a guest test can, and test_result_vocab.py reads what the
 * harness printed for it through the host's one KTAP parser.
 */
#include "result.h"

static void test_setup(void)
{
	printf("# test_setup ran\n");
}

TEST_F(pvmap, passes)
{
	EXPECT_EQ(1, 1);
}

TEST_F(pvmap, skips)
{
	SKIP(return, "nothing to test here");
	printf("# after SKIP\n");
}

TEST_F(pvmap, xfails_at_run_time)
{
	XFAIL(return, "the known bug");
	printf("# after XFAIL\n");
}

TEST_F(pvmap, expect_goes_on)
{
	EXPECT_EQ(1, 2) TH_LOG("one is not two");
	printf("# after EXPECT\n");
}

TEST_F(pvmap, assert_stops)
{
	ASSERT_EQ(1, 2) TH_LOG("one is still not two");
	printf("# after ASSERT\n");
}

/* A last line without its newline, still in stdio's buffer when the test's process _exit()s. */
TEST_F(pvmap, buffered_line_flushed)
{
	printf("# buffered at the end");
}

TEST_HARNESS_MAIN
