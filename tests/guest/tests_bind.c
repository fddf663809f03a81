// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-tests: the driver binds every aperture and reports it: INFO against the BARs,
 * the unmap mode, the host's pattern read and the guest's written.
 * A feature program of pvmap-tests (feature_list.h).
 */
#include "pvmap-tests.h"

/*
 * A mapping independent of pvmap's engine: mainline's io_mapping, through
 * pvmap_test.ko (PVMAP_TEST_MAINLINE). These two tests check the bench
 * itself: the guest and the host see the same bytes at the same aperture
 * offsets. (Not the PCI core's sysfs resource file: a production kernel's
 * IO_STRICT_DEVMEM refuses to map a BAR that a driver holds.)
 */
static int mainline_pattern(const char *op, struct device *d, uint64_t off, uint64_t len,
			   uint64_t seed)
{
	struct pvmap_test_pattern req = { .offset = off, .len = len, .seed = seed,
					  .fill = !strcmp(op, "mainline_fill") };

	if (guest_test(PVMAP_TEST_MAINLINE, &req, d->info.aperture_base, d->info.aperture_size) ||
	    req.h.status != PVMAP_TEST_PASS)
		return fail("%s: %s", op, req.h.msg);
	printf("# %s: ok %llu bytes at %#llx\n", op, (unsigned long long)len,
	       (unsigned long long)off);
	return 0;
}

/* pvmap.ko is loaded (init loaded it with pvtest.modparams=). */
TEST_F(pvmap, module_loaded)
{
	struct stat st;

	ASSERT_EQ(0, stat("/sys/module/pvmap", &st)) TH_LOG("pvmap is not loaded");
}

/*
 * What this kernel has of the debug facilities the suite leans on, for the
 * guest's summary and the host's checks (which SKIP what a kernel lacks).
 */
TEST_F(pvmap, debug_facilities)
{
	struct pvmap_test_facilities req;
	struct utsname uts;
	char text[256];

	ASSERT_EQ(0, kernel_request("facilities", PVMAP_TEST_FACILITIES, &req));
	uname(&uts);
	guest_facilities_text(&req, text, sizeof(text));
	printf("# pvmap-host: facilities release=%s %s\n", uts.release, text);
}

/*
 * pvmap bound every aperture device the host gave (pvtest.expect=) and no
 * other.
 */
TEST_F(pvmap, binds_every_aperture)
{
	char expect[128], *tok, *save;
	int want = 0, found = 0;

	ASSERT_TRUE(guest_cmdline_get("expect", expect, sizeof(expect)))
		TH_LOG("no pvtest.expect= on the command line");
	ASSERT_LE(0, scan_devices()) TH_LOG("cannot list /dev");
	for (int i = 0; i < ndevices; i++)
		printf("# %s: %s at %s\n", devices[i].path,
		       pvmap_kind_name(devices[i].info.kind), devices[i].info.pci_name);
	for (tok = strtok_r(expect, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int have = 0;

		want++;
		for (int i = 0; i < ndevices; i++)
			have |= !strcmp(pvmap_kind_name(devices[i].info.kind), tok);
		ASSERT_TRUE(have) TH_LOG("no /dev/pvmapN for the %s device", tok);
		found++;
	}
	ASSERT_EQ(want, ndevices) TH_LOG("%d devices bound, %d expected", ndevices, want);
	ASSERT_EQ(want, found);
}

/*
 * INFO must agree with what the PCI core sees (sysfs "resource"); the host
 * compares the "# pvmap-host: bar" lines with QMP's query-pci.
 */
TEST_F(pvmap, info_matches_bar)
{
	ASSERT_LT(0, scan_devices()) TH_LOG("no pvmap device");
	for (int i = 0; i < ndevices; i++) {
		struct pvmap_info *info = &devices[i].info;
		char path[96], res[2048], *line = res;
		unsigned long long start, end;

		ASSERT_EQ(PVMAP_ABI_VERSION, info->abi_version)
			TH_LOG("%s: abi_version %u", devices[i].path, info->abi_version);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", info->pci_name);
		ASSERT_LE(0, guest_read_file(path, res, sizeof(res)))
			TH_LOG("cannot read %s", path);
		for (int bar = 0; bar < info->bar && line; bar++) {
			line = strchr(line, '\n');
			line = line ? line + 1 : NULL;
		}
		ASSERT_TRUE(line && sscanf(line, "%llx %llx", &start, &end) == 2)
			TH_LOG("%s: no BAR%u in %s", devices[i].path, info->bar, path);
		ASSERT_EQ(start, info->aperture_base)
			TH_LOG("%s: INFO says %#llx+%#llx, sysfs %#llx-%#llx", devices[i].path,
			       (unsigned long long)info->aperture_base,
			       (unsigned long long)info->aperture_size, start, end);
		ASSERT_EQ(end - start + 1, info->aperture_size)
			TH_LOG("%s: INFO says %#llx+%#llx, sysfs %#llx-%#llx", devices[i].path,
			       (unsigned long long)info->aperture_base,
			       (unsigned long long)info->aperture_size, start, end);
		printf("# pvmap-host: bar pci=%s kind=%s bar=%u base=%#llx size=%#llx\n",
		       info->pci_name, pvmap_kind_name(info->kind), info->bar,
		       (unsigned long long)info->aperture_base,
		       (unsigned long long)info->aperture_size);
	}
	ASSERT_TRUE(guest_host_sync("bars")) TH_LOG("host did not acknowledge the BAR check");
}

/* i386 always clears on unmap; x86_64 unless hygiene=0 opts out. */
TEST_F(pvmap, unmap_mode)
{
	char params[256];
	bool want;

	guest_module_params(params, sizeof(params));
#if defined(__i386__)
	want = true;
#else
	want = !guest_hygiene_off(params);
#endif
	ASSERT_LT(0, scan_devices()) TH_LOG("no pvmap device");
	for (int i = 0; i < ndevices; i++) {
		bool have = devices[i].info.flags & PVMAP_INFO_F_CLEARS_ON_UNMAP;

		printf("# %s: %s\n", devices[i].path,
		       have ? "slots, clear-on-unmap" : "whole-aperture mapping");
		ASSERT_EQ(want, have) TH_LOG("%s: clear-on-unmap is %s, want %s", devices[i].path,
					     have ? "on" : "off", want ? "on" : "off");
	}
}

/* An ioctl pvmap does not know fails with ENOTTY. */
TEST_F(pvmap, unknown_ioctl_rejected)
{
	int fd, ret, err;

	ASSERT_LT(0, scan_devices()) TH_LOG("no pvmap device");
	fd = open(devices[0].path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", devices[0].path, strerror(errno));
	ret = ioctl(fd, _IOR(PVMAP_IOC_MAGIC, 0x7f, struct pvmap_info), &devices[0].info);
	err = errno;
	close(fd);
	ASSERT_EQ(-1, ret)
		TH_LOG("unknown ioctl returned %d (%s), want ENOTTY", ret, strerror(err));
	ASSERT_EQ(ENOTTY, err)
		TH_LOG("unknown ioctl returned %d (%s), want ENOTTY", ret, strerror(err));
}

/* The problem pvmap exists for: a whole 1 GiB aperture does not fit on i386. */
TEST_F(pvmap, whole_aperture_ioremap)
{
	struct device *d;
	char path[96], result[64];

	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	ASSERT_NE(NULL, d) TH_LOG("no ivshmem aperture");
	snprintf(path, sizeof(path), GUEST_DEBUGFS "/%s/whole_ioremap", d->path + 5);
	ASSERT_LE(0, guest_read_file(path, result, sizeof(result))) TH_LOG("cannot read %s", path);
	printf("# ioremap_wc of %llu MiB: %s", (unsigned long long)d->info.aperture_size >> 20,
	       result);
#if defined(__i386__)
	ASSERT_EQ(0, strncmp(result, "failed", 6))
		TH_LOG("whole-aperture ioremap_wc succeeded on i386");
#else
	ASSERT_EQ(0, strncmp(result, "mapped", 6))
		TH_LOG("whole-aperture ioremap_wc failed on x86_64");
#endif
}

/*
 * An aperture that ends above 4 GiB (i386-4g's) is not ioremapped whole on
 * i386: 6.1's and 6.12's ioremap_wc() align the address with a 32-bit
 * PAGE_MASK there and would map, and reserve write-combining, the
 * aperture's address less 4 GiB (low RAM, for a BAR at 4 GiB); a 4 GiB
 * size does not fit its unsigned long either. The debugfs file says it did
 * not try. A skip where no aperture is above 4 GiB, and on x86_64.
 */
TEST_F(pvmap, whole_ioremap_above_4g)
{
	struct device *d = NULL;
	char path[96], result[96];

	scan_devices();
	for (int i = 0; i < ndevices && !d; i++)
		if (devices[i].info.aperture_base + devices[i].info.aperture_size - 1 > 0xffffffffULL)
			d = &devices[i];
	if (!d)
		SKIP(return, "no aperture above 4 GiB in this guest");
#if !defined(__i386__)
	SKIP(return, "x86_64's ioremap_wc() takes any physical address");
#endif
	snprintf(path, sizeof(path), GUEST_DEBUGFS "/%s/whole_ioremap", d->path + 5);
	ASSERT_LE(0, guest_read_file(path, result, sizeof(result))) TH_LOG("cannot read %s", path);
	printf("# %s at %#llx, %llu MiB: whole_ioremap says %s", d->path,
	       (unsigned long long)d->info.aperture_base,
	       (unsigned long long)d->info.aperture_size >> 20, result);
	ASSERT_NE(NULL, strstr(result, "not tried above 4 GiB"))
		TH_LOG("whole_ioremap handed an aperture above 4 GiB to i386's ioremap_wc()");
}

/*
 * The pattern the host wrote into the backing file before boot reads back
 * through the kernel's own io_mapping.
 */
TEST_F(pvmap, reads_host_pattern)
{
	unsigned long long off, len, seed;
	struct device *d;
	char arg[96];

	ASSERT_TRUE(guest_cmdline_get("hostpat", arg, sizeof(arg)) &&
		    sscanf(arg, "%llx:%llx:%llx", &off, &len, &seed) == 3)
		TH_LOG("no pvtest.hostpat=OFF:LEN:SEED on the command line");
	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	ASSERT_NE(NULL, d) TH_LOG("no ivshmem aperture");
	ASSERT_EQ(0, mainline_pattern("mainline_check", d, off, len, seed));
}

/*
 * A pattern PWRITten at a random offset, across pages and of odd length, is
 * byte-exact in the host's backing file.
 */
TEST_F(pvmap, writes_guest_pattern)
{
	uint64_t off, seed, rnd[2];
	struct device *d;

	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	ASSERT_NE(NULL, d) TH_LOG("no ivshmem aperture");
	ASSERT_EQ(sizeof(rnd), getrandom(rnd, sizeof(rnd), 0))
		TH_LOG("getrandom: %s", strerror(errno));
	off = rnd[0] % (d->info.aperture_size - GUEST_PAT_LEN);
	while (hits_host_pattern(off, GUEST_PAT_LEN))
		off = random_u64() % (d->info.aperture_size - GUEST_PAT_LEN);
	seed = rnd[1];
	ASSERT_EQ(0, mainline_pattern("mainline_fill", d, off, GUEST_PAT_LEN, seed));
	printf("# pvmap-host: pattern off=%#llx len=%#llx seed=%#llx\n",
	       (unsigned long long)off, (unsigned long long)GUEST_PAT_LEN,
	       (unsigned long long)seed);
	ASSERT_TRUE(guest_host_sync("pattern"))
		TH_LOG("host did not find the pattern in the backing file");
}

TEST_HARNESS_MAIN
