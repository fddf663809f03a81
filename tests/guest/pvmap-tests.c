// SPDX-License-Identifier: GPL-2.0
/*
 * In-guest tests of pvmap.ko, printed as KTAP. Lines starting with
 * "# pvmap-host:" carry facts the host runner checks on its side (the BARs
 * QEMU assigned, the bytes that must be in the ivshmem backing file).
 *
 * pvmap-tests [--only TEST]
 * Expectations come from the kernel command line (set by tools/run-guest):
 *   pvtest.expect=ivshmem,stdvga,qxl   kinds of the aperture devices given
 *   pvtest.hostpat=OFF:LEN:SEED        a pattern the host wrote before boot
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include "guest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pvmap/kind.h>
#include <pvmap/pattern.h>
#include <uapi/pvmap.h>

#define MAX_DEVICES	8
#define PAGE		4096UL
#define GUEST_PAT_LEN	(3 * PAGE + 123)	/* crosses pages, odd length */

struct device {
	char path[272];
	struct pvmap_info info;
};

static struct device devices[MAX_DEVICES];
static int ndevices;

#define fail(...) ({ printf("# " __VA_ARGS__); printf("\n"); -1; })

/* Open /dev/pvmap* and read INFO of each; the number found or -1. */
static int scan_devices(void)
{
	struct dirent *de;
	DIR *dir;

	ndevices = 0;
	dir = opendir("/dev");
	if (!dir)
		return -1;
	while ((de = readdir(dir)) && ndevices < MAX_DEVICES) {
		struct device *d = &devices[ndevices];
		int fd;

		if (strncmp(de->d_name, "pvmap", 5))
			continue;
		snprintf(d->path, sizeof(d->path), "/dev/%s", de->d_name);
		fd = open(d->path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (ioctl(fd, PVMAP_IOC_INFO, &d->info) == 0)
			ndevices++;
		close(fd);
	}
	closedir(dir);
	return ndevices;
}

static struct device *find_kind(uint32_t kind)
{
	for (int i = 0; i < ndevices; i++)
		if (devices[i].info.kind == kind)
			return &devices[i];
	return NULL;
}

static int test_module_loaded(void)
{
	struct stat st;

	if (stat("/sys/module/pvmap", &st))
		return fail("pvmap is not loaded");
	return 0;
}

static int test_binds_every_aperture(void)
{
	char expect[128], *tok, *save;
	int want = 0, found = 0;

	if (!guest_cmdline_get("expect", expect, sizeof(expect)))
		return fail("no pvtest.expect= on the command line");
	if (scan_devices() < 0)
		return fail("cannot list /dev");
	for (int i = 0; i < ndevices; i++)
		printf("# %s: %s at %s\n", devices[i].path,
		       pvmap_kind_name(devices[i].info.kind), devices[i].info.pci_name);
	for (tok = strtok_r(expect, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int have = 0;

		want++;
		for (int i = 0; i < ndevices; i++)
			have |= !strcmp(pvmap_kind_name(devices[i].info.kind), tok);
		if (!have)
			return fail("no /dev/pvmapN for the %s device", tok);
		found++;
	}
	if (ndevices != want)
		return fail("%d devices bound, %d expected", ndevices, want);
	return found == want ? 0 : -1;
}

/*
 * INFO must agree with what the PCI core sees (sysfs "resource"); the host
 * compares the "# pvmap-host: bar" lines with QMP's query-pci.
 */
static int test_info_matches_bar(void)
{
	if (scan_devices() <= 0)
		return fail("no pvmap device");
	for (int i = 0; i < ndevices; i++) {
		struct pvmap_info *info = &devices[i].info;
		char path[96], res[2048], *line = res;
		unsigned long long start, end;

		if (info->abi_version != PVMAP_ABI_VERSION)
			return fail("%s: abi_version %u", devices[i].path, info->abi_version);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", info->pci_name);
		if (guest_read_file(path, res, sizeof(res)) < 0)
			return fail("cannot read %s", path);
		for (int bar = 0; bar < info->bar && line; bar++) {
			line = strchr(line, '\n');
			line = line ? line + 1 : NULL;
		}
		if (!line || sscanf(line, "%llx %llx", &start, &end) != 2)
			return fail("%s: no BAR%u in %s", devices[i].path, info->bar, path);
		if (info->aperture_base != start || info->aperture_size != end - start + 1)
			return fail("%s: INFO says %#llx+%#llx, sysfs %#llx-%#llx", devices[i].path,
				    (unsigned long long)info->aperture_base,
				    (unsigned long long)info->aperture_size, start, end);
		printf("# pvmap-host: bar pci=%s kind=%s bar=%u base=%#llx size=%#llx\n",
		       info->pci_name, pvmap_kind_name(info->kind), info->bar,
		       (unsigned long long)info->aperture_base,
		       (unsigned long long)info->aperture_size);
	}
	if (!guest_host_sync("bars"))
		return fail("host did not acknowledge the BAR check");
	return 0;
}

static int test_unknown_ioctl_rejected(void)
{
	int fd, ret, err;

	if (scan_devices() <= 0)
		return fail("no pvmap device");
	fd = open(devices[0].path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail("open %s: %s", devices[0].path, strerror(errno));
	ret = ioctl(fd, _IOR(PVMAP_IOC_MAGIC, 0x7f, struct pvmap_info), &devices[0].info);
	err = errno;
	close(fd);
	if (ret != -1 || err != ENOTTY)
		return fail("unknown ioctl returned %d (%s), want ENOTTY", ret, strerror(err));
	return 0;
}

/* The problem pvmap exists for: a whole 1 GiB aperture does not fit on i386. */
static int test_whole_aperture_ioremap(void)
{
	struct device *d;
	char path[96], result[64];

	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	if (!d)
		return fail("no ivshmem aperture");
	snprintf(path, sizeof(path), GUEST_DEBUGFS "/%s/whole_ioremap", d->path + 5);
	if (guest_read_file(path, result, sizeof(result)) < 0)
		return fail("cannot read %s", path);
	printf("# ioremap_wc of %llu MiB: %s", (unsigned long long)d->info.aperture_size >> 20,
	       result);
#if defined(__i386__)
	if (strncmp(result, "failed", 6))
		return fail("whole-aperture ioremap_wc succeeded on i386");
#else
	if (strncmp(result, "mapped", 6))
		return fail("whole-aperture ioremap_wc failed on x86_64");
#endif
	return 0;
}

/*
 * A mapping independent of pvmap (the PCI core's sysfs resource file), so
 * these two tests check the bench itself: the guest and the host see the
 * same bytes at the same aperture offsets.
 */
static uint8_t *map_aperture_page_range(struct device *d, uint64_t off, size_t len,
					size_t *maplen, uint64_t *mapoff)
{
	char path[96];
	void *p;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource%u",
		 d->info.pci_name, d->info.bar);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("# open %s: %s\n", path, strerror(errno));
		return NULL;
	}
	*mapoff = off & ~(PAGE - 1);
	*maplen = (off - *mapoff + len + PAGE - 1) & ~(PAGE - 1);
	p = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, *mapoff);
	close(fd);
	if (p == MAP_FAILED) {
		printf("# mmap %s at %#llx: %s\n", path, (unsigned long long)*mapoff,
		       strerror(errno));
		return NULL;
	}
	return (uint8_t *)p + (off - *mapoff);
}

static int test_reads_host_pattern(void)
{
	unsigned long long off, len, seed, bad;
	uint64_t mapoff;
	struct device *d;
	char arg[96];
	size_t maplen;
	uint8_t *p;

	if (!guest_cmdline_get("hostpat", arg, sizeof(arg)) ||
	    sscanf(arg, "%llx:%llx:%llx", &off, &len, &seed) != 3)
		return fail("no pvtest.hostpat=OFF:LEN:SEED on the command line");
	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	if (!d)
		return fail("no ivshmem aperture");
	p = map_aperture_page_range(d, off, len, &maplen, &mapoff);
	if (!p)
		return -1;
	bad = pvmap_pattern_check(p, len, seed, off);
	munmap(p - (off - mapoff), maplen);
	if (bad != len)
		return fail("host pattern differs at aperture offset %#llx", off + bad);
	printf("# read %llu host bytes at %#llx\n", len, off);
	return 0;
}

static int test_writes_guest_pattern(void)
{
	uint64_t off, seed, mapoff, rnd[2];
	struct device *d;
	size_t maplen;
	uint8_t *p;

	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	if (!d)
		return fail("no ivshmem aperture");
	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
		return fail("getrandom: %s", strerror(errno));
	off = rnd[0] % (d->info.aperture_size - GUEST_PAT_LEN);
	seed = rnd[1];
	p = map_aperture_page_range(d, off, GUEST_PAT_LEN, &maplen, &mapoff);
	if (!p)
		return -1;
	pvmap_pattern_fill(p, GUEST_PAT_LEN, seed, off);
	munmap(p - (off - mapoff), maplen);
	printf("# pvmap-host: pattern off=%#llx len=%#lx seed=%#llx\n",
	       (unsigned long long)off, GUEST_PAT_LEN, (unsigned long long)seed);
	if (!guest_host_sync("pattern"))
		return fail("host did not find the pattern in the backing file");
	return 0;
}

/* Unbind and rebind through sysfs: the node goes and comes back, open files get ENODEV. */
static int test_unbind_rebind(void)
{
	struct pvmap_info info;
	char pci[16];
	struct stat st;
	int fd, ret, err;

	if (scan_devices() <= 0)
		return fail("no pvmap device");
	snprintf(pci, sizeof(pci), "%s", devices[0].info.pci_name);
	fd = open(devices[0].path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail("open %s: %s", devices[0].path, strerror(errno));
	ret = guest_write_file("/sys/bus/pci/drivers/pvmap/unbind", pci);
	if (ret) {
		close(fd);
		return fail("unbind %s: %s", pci, strerror(-ret));
	}
	ret = ioctl(fd, PVMAP_IOC_INFO, &info);
	err = errno;
	close(fd);
	if (ret != -1 || err != ENODEV)
		return fail("INFO after unbind returned %d (%s), want ENODEV", ret, strerror(err));
	if (stat(devices[0].path, &st) == 0)
		return fail("%s still exists after unbind", devices[0].path);
	ret = guest_write_file("/sys/bus/pci/drivers/pvmap/bind", pci);
	if (ret)
		return fail("bind %s: %s", pci, strerror(-ret));
	scan_devices();
	for (int i = 0; i < ndevices; i++)
		if (!strcmp(devices[i].info.pci_name, pci))
			return 0;
	return fail("%s not bound again", pci);
}

/* rmmod is refused while a file is open, then works; loading again rebinds. */
static int test_unload_reload(void)
{
	int before, fd, ret;
	struct stat st;

	before = scan_devices();
	if (before <= 0)
		return fail("no pvmap device");
	fd = open(devices[0].path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail("open %s: %s", devices[0].path, strerror(errno));
	ret = guest_unload_module();
	close(fd);
	if (ret != -EWOULDBLOCK && ret != -EBUSY)
		return fail("rmmod with an open file: %s, want EBUSY", strerror(-ret));
	ret = guest_unload_module();
	if (ret)
		return fail("rmmod: %s", strerror(-ret));
	if (stat("/sys/module/pvmap", &st) == 0 || scan_devices() != 0)
		return fail("module or devices still present after rmmod");
	ret = guest_load_module("");
	if (ret)
		return fail("reload: %s", strerror(-ret));
	if (scan_devices() != before)
		return fail("%d devices after reload, %d before", ndevices, before);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
} tests[] = {
	{ "module_loaded", test_module_loaded },
	{ "binds_every_aperture", test_binds_every_aperture },
	{ "info_matches_bar", test_info_matches_bar },
	{ "unknown_ioctl_rejected", test_unknown_ioctl_rejected },
	{ "whole_aperture_ioremap", test_whole_aperture_ioremap },
	{ "reads_host_pattern", test_reads_host_pattern },
	{ "writes_guest_pattern", test_writes_guest_pattern },
	{ "unbind_rebind", test_unbind_rebind },
	{ "unload_reload", test_unload_reload },
};

int main(int argc, char **argv)
{
	const char *only = argc == 3 && !strcmp(argv[1], "--only") ? argv[2] : NULL;
	int ntests = sizeof(tests) / sizeof(tests[0]);
	int planned = 0, pass = 0, failed = 0, n = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < ntests; i++)
		planned += !only || !strcmp(only, tests[i].name);
	if (!planned) {
		printf("pvmap-tests: no test named '%s'\n", only);
		return 2;
	}
	printf("KTAP version 1\n1..%d\n", planned);
	for (int i = 0; i < ntests; i++) {
		if (only && strcmp(only, tests[i].name))
			continue;
		if (tests[i].fn() == 0) {
			pass++;
			printf("ok %d %s\n", ++n, tests[i].name);
		} else {
			failed++;
			printf("not ok %d %s\n", ++n, tests[i].name);
		}
	}
	printf("# Totals: pass:%d fail:%d skip:0 total:%d\n", pass, failed, planned);
	return failed ? 1 : 0;
}
