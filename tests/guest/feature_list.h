/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pvmap-tests' feature programs, in the order they run: FEATURE(NAME) is NAME.c
 * (run_features.h; the Makefile builds them from this list, test-catalog lists
 * their tests from it). The order matters: the host's pattern is read back
 * before the random writes; the tests that unplug, unbind or unload devices
 * come after those that use them; the PV tests come last, and
 * pv_daemon_killed, which kills the hypervisor, last of all;
 * pv_daemon_stalled runs only alone (-t pv_daemon_stalled).
 */
FEATURE(tests_bind)		/* binding, INFO, the host's and the guest's patterns */
FEATURE(tests_rw)		/* PREAD/PWRITE and mmap: bounds, faults */
FEATURE(tests_engine)		/* the engine's counters, trace, vCPUs, pvmapctl */
FEATURE(tests_memtype)		/* WC memtype, held windows, kcore */
FEATURE(tests_kernel)		/* the in-kernel API and the stale-mapping hazard */
FEATURE(tests_hostile)		/* permissions, parameters, ioctl fuzz */
FEATURE(tests_soak)		/* interrupt-context maps, soak */
FEATURE(tests_xen)		/* under real Xen: hypercalls counted, the hazard */
FEATURE(tests_xen_fidelity)	/* libpvstub judged by real Xen (a Xen PV domain) */
FEATURE(tests_vgpu)		/* virtio-gpu's host-visible window: blobs (run-guest --vgpu) */
FEATURE(tests_unplug)		/* devices going away: unplug, unbind, unload */
FEATURE(tests_pv)		/* the hypervisor channel; kills its daemon last */
