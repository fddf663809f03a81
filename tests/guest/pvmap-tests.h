/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every feature program of pvmap-tests (tests_*.c, feature_list.h)
 * includes: the harness with the tests' result codes (result.h), the shared
 * helpers (suite.h), each test's setup, and the in-kernel case a test asks for.
 */
#ifndef PVMAP_GUEST_TESTS_H
#define PVMAP_GUEST_TESTS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define _FILE_OFFSET_BITS 64
#include "guest.h"
#include "result.h"
#include "suite.h"

#include <dirent.h>
#include <elf.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uapi/pvmap_kind.h>
#include <uapi/pvmap_partial.h>
#include <uapi/pvmap_pattern.h>
#include <uapi/pvmap.h>

/* Each test in its own child: the devices as they are now, the console drained. */
static inline void test_setup(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	tcdrain(STDOUT_FILENO);
	scan_devices();
}

/*
 * Run one of the API's cases in the kernel: 0 once it ran, its verdict in
 * @req->h.status (PVMAP_TEST_PASS, _FAIL or _SKIP) and its message printed;
 * -1 after fail() when it could not run.
 */
static inline int kernel_case_run(const char *name, struct pvmap_test_api *req)
{
	const char *how = "";
	struct device *d;

	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	if (!d)
		return fail("no ivshmem aperture");
	if (guest_api_case(name, d->info.aperture_base, d->info.aperture_size, req, &how))
		return fail("%s: %s", name, req->h.msg);
	printf("# %s: through %s\n", name, how);
	printf("# %s: %s\n", name, req->h.msg);
	if (req->warns) /* a case that provokes WARNs on purpose announces them for the host */
		printf("# pvmap-host: expect-warnings %u\n", req->warns);
	return 0;
}

/* Run one of the API's cases in the kernel: 0 when it passed, else -1 after saying why. */
static inline int kernel_case(const char *name)
{
	struct pvmap_test_api req;

	if (kernel_case_run(name, &req))
		return -1;
	if (req.h.status == PVMAP_TEST_SKIP)
		return fail("%s: the kernel skipped it", name);
	return req.h.status == PVMAP_TEST_PASS ? 0 : -1;
}

#endif /* PVMAP_GUEST_TESTS_H */
