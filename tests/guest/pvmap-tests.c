// SPDX-License-Identifier: GPL-2.0
/*
 * In-guest tests of pvmap.ko on the kselftest harness (result.h), one
 * feature per file. Lines starting with "# pvmap-host:" carry facts the host
 * runner checks on its side (the BARs QEMU assigned, the bytes that must be
 * in the ivshmem backing file).
 *
 * pvmap-tests [-F alone] [-t TEST]  (the harness's options; -h lists them)
 * Expectations come from the kernel command line (set by tools/host/run-guest):
 *   pvtest.expect=ivshmem,stdvga,qxl   kinds of the aperture devices given
 *   pvtest.hostpat=OFF:LEN:SEED        a pattern the host wrote before boot
 *
 * The harness keeps its registry of tests in static variables of its
 * header, so the tests of one program must sit in one translation unit:
 * the feature files are included here, in the order the tests run (the
 * order of their TEST()s). The order matters: the host's pattern is read
 * back before the random writes; the tests that unplug, unbind or unload
 * devices come after those that use them; the PV tests come last, and
 * pv_daemon_killed, which kills the hypervisor, last of all;
 * pv_daemon_stalled runs only alone (-t pv_daemon_stalled).
 */
#include "pvmap-tests.h"

/* Each test in its own child: the devices as they are now, the console drained. */
static void test_setup(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	tcdrain(STDOUT_FILENO);
	scan_devices();
}

#include "tests_bind.c"	/* binding, INFO, the host's and the guest's patterns */
#include "tests_rw.c"	/* PREAD/PWRITE and mmap: bounds, faults */
#include "tests_engine.c"	/* the engine's counters, trace, vCPUs, pvmapctl */
#include "tests_memtype.c"	/* WC memtype, held windows, kcore */
#include "tests_kernel.c"	/* the in-kernel API and the stale-mapping hazard */
#include "tests_hostile.c"	/* permissions, parameters, ioctl fuzz */
#include "tests_soak.c"	/* interrupt-context maps, soak */
#include "tests_xen.c"	/* under real Xen: hypercalls counted, the hazard */
#include "tests_xen_fidelity.c"	/* libpvstub judged by real Xen (a Xen PV domain) */
#include "tests_unplug.c"	/* devices going away: unplug, unbind, unload */
#include "tests_pv.c"	/* the hypervisor channel; kills its daemon last */

TEST_HARNESS_MAIN
