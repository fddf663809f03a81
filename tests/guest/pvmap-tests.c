// SPDX-License-Identifier: GPL-2.0
/*
 * In-guest tests of pvmap.ko on the kselftest harness (result.h), one
 * feature program per file (feature_list.h, in the order they run). Lines
 * starting with "# pvmap-host:" carry facts the host runner checks on its
 * side (the BARs QEMU assigned, the bytes that must be in the ivshmem backing
 * file).
 *
 * pvmap-tests [-F alone] [-t TEST]  (the harness's options; -h lists them)
 * Expectations come from the kernel command line (set by tools/host/run-guest):
 *   pvtest.expect=ivshmem,stdvga,qxl   kinds of the aperture devices given
 *   pvtest.hostpat=OFF:LEN:SEED        a pattern the host wrote before boot
 *
 * Each feature runs in turn with these arguments (run_features.h) and prints
 * its own TAP document; the host reads them as one suite.
 */
#define FEATURE_LIST "feature_list.h"
#include "run_features.h"
