// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-tests: the in-kernel API through pvmap_selftest.ko, and the stale-mapping
 * hazard seen from the host.
 * Included by pvmap-tests.c, in its run order.
 */
#include "pvmap-tests.h"

/* Run one in-kernel test; 0 pass, 1 skip, -1 fail. */
static int kernel_selftest(const char *name)
{
	struct device *d;
	char res[256];

	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	if (!d)
		return fail("no ivshmem aperture");
	if (guest_selftest(name, d->info.aperture_base, d->info.aperture_size, res, sizeof(res)))
		return fail("%s", res);
	printf("# %s: %s\n", name, res);
	if (strstr(res, "warns=")) /* misuse: announce the WARNs for the host */
		printf("# pvmap-host: expect-warnings %d\n", atoi(strstr(res, "warns=") + 6));
	if (!strncmp(res, "ok", 2))
		return 0;
	if (!strncmp(res, "skip", 4))
		return skip("%s", res);
	return -1;
}

#define KERNEL_TEST(name) \
	PVMAP_TEST(kernel_##name) { return kernel_selftest(#name); }

/* --- the stale-mapping hazard, seen from the host ---------------------------- */

/* A quiet guest: the host's auditor must find no stale aperture mapping. */
PVMAP_TEST(audit_quiesced)
{
	guest_print_live();
	if (!guest_host_sync("audit"))
		return fail("host did not audit");
	return 0;
}

/*
 * Normal mode: the write through the old pointer faults (the host checks its
 * sentinel is intact and the audit clean). With pvmap_selftest's
 * hazard_demo=1 (pvtest.selftestparams): it lands (the host
 * checks the sentinel is corrupted and the audit finds the stale mapping).
 */
PVMAP_TEST(hazard_scenario)
{
	char flag[8] = "";
	struct device *d;
	bool hazard, landed = false;

	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	if (!d)
		return fail("no ivshmem aperture");
	guest_selftest_load("");
	guest_read_file(GUEST_HAZARD_PARAM, flag, sizeof(flag));
	hazard = flag[0] == 'Y';
	if (!hazard && !(d->info.flags & PVMAP_INFO_F_CLEARS_ON_UNMAP)) {
		return skip("whole-aperture mapping: a stale pointer stays valid by design");
	}
	if (guest_hazard_scenario(d->info.aperture_base, d->info.aperture_size, &landed))
		return fail("the scenario did not run");
	if (landed != hazard)
		return fail("the write through the old pointer %s in %s mode",
			    landed ? "landed" : "faulted", hazard ? "hazard" : "normal");
	return 0;
}

KERNEL_TEST(nested)
KERNEL_TEST(range1)
KERNEL_TEST(range2)
KERNEL_TEST(range16)
KERNEL_TEST(rangemax)
KERNEL_TEST(stale)

/*
 * Mainline's io_mapping leaves no usable translation behind on i386: 100
 * pages through io_mapping_map_local_wc() and 100 through
 * io_mapping_map_atomic_wc(), each unmapped and its old address probed
 * (pvmap_selftest's io_mapping_flush). Upstream, a kernel without HIGHMEM
 * skips the flush. docs/upstream/ has the fix; the kernels built with it
 * carry GUEST_UPSTREAM_FIXES in their release. Without the fix the bug is
 * expected (XFAIL, with its count), and a clean result fails: upstream
 * fixed it some other way, and the expectation must go. x86_64's io_mapping
 * is the whole aperture mapped: a stale pointer stays valid by design.
 */
#define FLUSH_PROBES	100

PVMAP_TEST(mainline_nohighmem_flushes)
{
	static const char *const engines[] = { "mainline_local", "mainline_atomic" };
	unsigned int probes, usable, misdirected, stale = 0, wrong = 0, total = 0;
	char res[256], args[64], *hm;
	struct utsname uts;
	bool highmem, fixed;

	if (sizeof(long) == 8) {
		return skip("x86_64: mainline's io_mapping maps the whole aperture");
	}
	if (kernel_selftest_args("facilities", "", res, sizeof(res)))
		return -1;
	hm = strstr(res, "highmem=");
	if (!hm)
		return fail("facilities: %s", res);
	highmem = atoi(hm + 8);
	uname(&uts);
	fixed = guest_upstream_fixes();
	for (unsigned int i = 0; i < 2; i++) {
		snprintf(args, sizeof(args), "%s %u", engines[i], FLUSH_PROBES);
		if (kernel_selftest_args("io_mapping_flush", args, res, sizeof(res)))
			return -1;
		if (sscanf(res, "ok probes=%u usable=%u misdirected=%u", &probes, &usable,
			   &misdirected) != 3)
			return fail("io_mapping_flush: %s", res);
		printf("# %s: %u of %u unmapped pages kept a usable translation; "
		       "%u of %u maps reached the page mapped before\n", engines[i], usable,
		       probes, misdirected, probes);
		stale += usable;
		wrong += misdirected;
		total += probes;
	}
	printf("# %s, HIGHMEM %s, %s: %u of %u usable after unmap\n", uts.release,
	       highmem ? "on" : "off", fixed ? "docs/upstream/ applied" : "upstream as released",
	       stale, total);
	if (highmem || fixed)
		return stale || wrong ? fail("mainline's unmap left usable translations") : 0;
	if (!stale)
		return fail("none usable without HIGHMEM, without docs/upstream/: upstream "
			    "fixed it? then this expected failure must go");
	return xfail("expected: the known upstream bug that docs/upstream/ fixes");
}

KERNEL_TEST(sleepable4k)
KERNEL_TEST(sleepable64k)
KERNEL_TEST(sleepable1m)
KERNEL_TEST(misuse)

/*
 * The test module maps what it is given and writes there: only a BAR of a
 * device pvmap has bound (or no driver has), never RAM; and its probe reads
 * only vmalloc space (pvmap's windows), not any kernel address.
 */
PVMAP_TEST(selftest_reaches_apertures_only)
{
	/* the direct map (i386) or kernel text (x86_64): not vmalloc space */
	unsigned long kva = sizeof(long) == 4 ? 0xc0100000UL : (unsigned long)0xffffffff81000000ULL;
	char res[256], args[64];

	if (!guest_selftest("range1", 0x100000, 0x1000, res, sizeof(res)) ||
	    !strstr(res, "Operation not permitted"))
		return fail("range1 over RAM at 1 MiB: '%s', want EPERM", res);
	printf("# range1 over RAM at 1 MiB: %s\n", res);
	snprintf(args, sizeof(args), "%lx 0", kva);
	if (guest_selftest_args("probe", 0, 0, args, res, sizeof(res)) ||
	    !strstr(res, "not a vmalloc address"))
		return fail("probe of %#lx: '%s', want a refusal", kva, res);
	printf("# probe of %#lx: %s\n", kva, res);
	return 0;
}
