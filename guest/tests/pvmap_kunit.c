// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap_kunit: the io_mapping API's own cases (pvmap_api_cases.c) as a
 * KUnit suite, "pvmap_api", on kernels with KUnit. The aperture and the
 * one case to run (the others skip, so that each guest test sees its own
 * WARNs) are pvmap_test.ko's parameters kunit_base, kunit_size and
 * kunit_only: 6.1 runs a module's suites before it parses the module's own.
 * The aperture must be a memory BAR pvmap has bound (pvmap_test.ko checks).
 * Results: debugfs kunit/pvmap_api/results; misuse's WARN count in the
 * read-only parameter misuse_warns, for the guest to announce to the host.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "pvmap_test.h"

static unsigned int misuse_warns;
module_param(misuse_warns, uint, 0444);
MODULE_PARM_DESC(misuse_warns, "out: the WARNs the misuse case provoked");

/* Table case @id on pvmap_test.ko's kunit_base/kunit_size, unless kunit_only names another. */
static void pvmap_api_run(struct kunit *test, enum pvmap_test_case id)
{
	const struct pvmap_api_case *c = &pvmap_api_cases[id];
	struct pvmap_test_head h;
	struct pvmap_test_ctx ctx;
	char only[32];
	int ret;

	pvmap_test_kunit_target(&h, only, sizeof(only));
	if (only[0] && strcmp(only, c->name))
		kunit_skip(test, "not selected (kunit_only=%s)", only);
	ret = pvmap_test_ctx_init(&ctx, &h, true);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "aperture %#llx+%#llx", h.base, h.size);
	if (ctx.m)
		c->run(&ctx, c->arg);
	pvmap_test_ctx_fini(&ctx);
	if (id == PVMAP_CASE_MISUSE)
		misuse_warns = ctx.warns;
	if (h.status == PVMAP_TEST_SKIP)
		kunit_skip(test, "%s", h.msg);
	KUNIT_EXPECT_EQ_MSG(test, h.status, PVMAP_TEST_PASS, "%s", h.msg);
	kunit_info(test, "%s\n", h.msg);
}

#define PVMAP_API_CASE(name, id) \
	static void name(struct kunit *test) { pvmap_api_run(test, id); }
PVMAP_API_CASE(nested, PVMAP_CASE_NESTED)
PVMAP_API_CASE(range1, PVMAP_CASE_RANGE1)
PVMAP_API_CASE(range2, PVMAP_CASE_RANGE2)
PVMAP_API_CASE(range16, PVMAP_CASE_RANGE16)
PVMAP_API_CASE(rangemax, PVMAP_CASE_RANGEMAX)
PVMAP_API_CASE(stale, PVMAP_CASE_STALE)
PVMAP_API_CASE(sleepable4k, PVMAP_CASE_SLEEPABLE4K)
PVMAP_API_CASE(sleepable64k, PVMAP_CASE_SLEEPABLE64K)
PVMAP_API_CASE(sleepable1m, PVMAP_CASE_SLEEPABLE1M)
PVMAP_API_CASE(misuse, PVMAP_CASE_MISUSE)

static struct kunit_case pvmap_api_test_cases[] = {
	KUNIT_CASE(nested),
	KUNIT_CASE(range1),
	KUNIT_CASE(range2),
	KUNIT_CASE(range16),
	KUNIT_CASE(rangemax),
	KUNIT_CASE(stale),
	KUNIT_CASE(sleepable4k),
	KUNIT_CASE(sleepable64k),
	KUNIT_CASE(sleepable1m),
	KUNIT_CASE(misuse),
	{}
};

static struct kunit_suite pvmap_api_suite = {
	.name = "pvmap_api",
	.test_cases = pvmap_api_test_cases,
};

kunit_test_suite(pvmap_api_suite);

MODULE_DESCRIPTION("pvmap: KUnit suite of the io_mapping API");
MODULE_IMPORT_NS(PVMAP_TEST);
MODULE_LICENSE("GPL");
