// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap_kunit: the io_mapping API's own cases (pvmap_api_cases.c) as a
 * KUnit suite, "pvmap_api", on kernels with KUnit: one parameterized case,
 * api_case, whose parameters are the table's cases under their names. The
 * aperture and the one case to run (so that each guest test sees its own
 * WARNs) are pvmap_test.ko's parameters kunit_base, kunit_size and
 * kunit_only: 6.1 runs a module's suites before it parses the module's own.
 * The aperture must be a memory BAR pvmap has bound (pvmap_test.ko checks).
 * Results: debugfs kunit/pvmap_api/results; the WARNs the cases provoked on
 * purpose in the read-only parameter misuse_warns, for the guest to announce
 * to the host.
 */

#include <kunit/test.h>
#include <linux/module.h>

#include "pvmap_test.h"

static unsigned int misuse_warns;
module_param(misuse_warns, uint, 0444);
MODULE_PARM_DESC(misuse_warns, "out: the WARNs the cases run provoked on purpose");

/* pvmap_test.ko's kunit_base, kunit_size and kunit_only, read as the suite starts */
static struct pvmap_test_head target;
static char only[PVMAP_TEST_NAME_LEN];

static int pvmap_api_suite_init(struct kunit_suite *suite)
{
	pvmap_test_kunit_target(&target, only, sizeof(only));
	return 0;
}

/*
 * The table's cases after @prev, each under its name; only kunit_only's when
 * it names one. Selected here, not skipped in the case: 6.1 keeps only the
 * last parameter's log in debugfs, and marks no skip on a parameter's line.
 */
static const void *pvmap_api_params(const void *prev, char *desc)
{
	const struct pvmap_api_case *c = prev;

	for (c = c ? c + 1 : pvmap_api_cases; c->name; c++) {
		if (only[0] && strcmp(only, c->name))
			continue;
		strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
		return c;
	}
	return NULL;
}

/* One table case on the target aperture. */
static void api_case(struct kunit *test)
{
	const struct pvmap_api_case *c = test->param_value;
	struct pvmap_test_head h = target;
	struct pvmap_test_ctx ctx;
	int ret;

	ret = pvmap_test_ctx_init(&ctx, &h, true);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "aperture %#llx+%#llx", h.base, h.size);
	if (ctx.m)
		c->run(&ctx, c->arg);
	pvmap_test_ctx_fini(&ctx);
	misuse_warns += ctx.warns;
	if (h.status == PVMAP_TEST_SKIP)
		kunit_skip(test, "%s", h.msg);
	KUNIT_EXPECT_EQ_MSG(test, h.status, PVMAP_TEST_PASS, "%s", h.msg);
	kunit_info(test, "%s\n", h.msg);
}

static struct kunit_case pvmap_api_test_cases[] = {
	KUNIT_CASE_PARAM(api_case, pvmap_api_params),
	{}
};

static struct kunit_suite pvmap_api_suite = {
	.name = "pvmap_api",
	.suite_init = pvmap_api_suite_init,
	.test_cases = pvmap_api_test_cases,
};

kunit_test_suite(pvmap_api_suite);

MODULE_DESCRIPTION("pvmap: KUnit suite of the io_mapping API");
MODULE_IMPORT_NS(PVMAP_TEST);
MODULE_LICENSE("GPL");
