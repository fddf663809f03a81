// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-tests: hostile input: device permissions, the no-stale-mapping
 * parameter, ioctl fuzz.
 * A feature program of pvmap-tests (feature_list.h).
 */
#include "pvmap-tests.h"

/* --- hostile input -------------------------------------------------------------- */

struct fuzz_buf {
	uint8_t *rw;		/* a writable page */
	uint8_t *ro;		/* a read-only page */
	uint8_t *gone;		/* an unmapped page */
};

/* A user pointer of every kind the ioctls must cope with. */
static void *fuzz_ptr(const struct fuzz_buf *b, uint32_t r, bool *usable, bool *writable)
{
	*usable = *writable = false;
	switch (r % 8) {
	case 0:
		return NULL;
	case 1:
		return (void *)(uintptr_t)(sizeof(void *) == 4 ? 0xc0000000UL : 0xffffffff81000000ULL);
	case 2:
		return b->gone;
	case 3:
		*usable = true;
		return b->ro;
	case 4:
		*usable = *writable = true;
		return b->rw + (r >> 8) % 64;	/* unaligned */
	default:
		*usable = *writable = true;
		return b->rw;
	}
}

static uint64_t fuzz_u64(uint32_t r, uint64_t size)
{
	static const uint64_t edge[] = {
		0, 1, 4095, 4096, 0xffffffffULL, 0x100000000ULL, 0xfffffffffffff000ULL,
		~0ULL, ~0ULL - 4095, 0x7fffffffffffffffULL,
	};

	switch (r % 4) {
	case 0:
		return edge[(r >> 2) % (sizeof(edge) / sizeof(edge[0]))];
	case 1:
		return size - ((r >> 2) % 8192);
	case 2:
		return random_u64();
	default:
		return (r >> 2) % 8192;
	}
}

/* /dev/pvmapN is root's: 0600, and another user cannot open it. */
TEST_F(pvmap, device_permissions)
{
	struct stat st;
	int status;
	pid_t pid;

	ASSERT_LT(0, scan_devices()) TH_LOG("no pvmap device");
	ASSERT_EQ(0, stat(devices[0].path, &st))
		TH_LOG("stat %s: %s", devices[0].path, strerror(errno));
	ASSERT_EQ(0600, st.st_mode & 0777)
		TH_LOG("%s has mode %o, uid %u", devices[0].path, st.st_mode & 0777, st.st_uid);
	ASSERT_EQ(0, st.st_uid)
		TH_LOG("%s has mode %o, uid %u", devices[0].path, st.st_mode & 0777, st.st_uid);
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(open(devices[0].path, O_RDWR) < 0 && errno == EACCES ? 0 : 1);
	}
	ASSERT_LE(0, waitpid(pid, &status, 0))
		TH_LOG("an unprivileged user could open %s (waitpid: %s)", devices[0].path,
		       strerror(errno));
	ASSERT_TRUE(WIFEXITED(status))
		TH_LOG("an unprivileged user could open %s (status %d)", devices[0].path, status);
	ASSERT_EQ(0, WEXITSTATUS(status))
		TH_LOG("an unprivileged user could open %s (status %d)", devices[0].path, status);
	/* a descriptor opened read-only reads, and does not write */
	{
		uint8_t buf[64] = { 0 };
		uint64_t done = 0;
		int fd = open(devices[0].path, O_RDONLY | O_CLOEXEC), wr, err;

		ASSERT_LE(0, fd) TH_LOG("open %s read-only: %s", devices[0].path, strerror(errno));
		wr = guest_rw(fd, true, 0, buf, sizeof(buf), &done);
		err = errno;
		ASSERT_EQ(0, guest_rw(fd, false, 0, buf, sizeof(buf), &done))
			TH_LOG("PREAD through a read-only descriptor failed");
		ASSERT_EQ(sizeof(buf), done) TH_LOG("PREAD through a read-only descriptor failed");
		close(fd);
		ASSERT_EQ(-1, wr)
			TH_LOG("PWRITE through a read-only descriptor: %s, want EBADF",
			       wr ? strerror(err) : "it wrote");
		ASSERT_EQ(EBADF, err)
			TH_LOG("PWRITE through a read-only descriptor: %s, want EBADF",
			       strerror(err));
	}
}

/*
 * pvmap.ko's parameters are hygiene (on by default; x86_64's explicit
 * opt-out, hygiene=0, maps the whole aperture once instead, and INFO says
 * so: unmap_mode), pv (PTE updates through the hypervisor channel) and the
 * two that say which driver binds a display: none other can weaken
 * clear-on-unmap, and all are read-only once loaded. The demonstration of
 * the hazard lives in pvmap_test.ko.
 */
TEST_F(pvmap, no_stale_mapping_parameter)
{
	/* hygiene=0 is the one opt-out (x86_64); pv makes it stricter */
	static const char *const allowed[] = { "hygiene", "pv", "stdvga_aperture", "qxl_aperture" };
	struct dirent *de;
	int bad = 0, n = 0;
	DIR *dir;

	dir = opendir("/sys/module/pvmap/parameters");
	ASSERT_NE(NULL, dir) TH_LOG("no /sys/module/pvmap/parameters: %s", strerror(errno));
	while ((de = readdir(dir))) {
		bool ok = de->d_name[0] == '.';

		for (unsigned int i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
			ok |= !strcmp(de->d_name, allowed[i]);
		EXPECT_TRUE(ok) TH_LOG("pvmap.ko has a parameter %s", de->d_name);
		bad += !ok;
		n += de->d_name[0] != '.';
	}
	closedir(dir);
	if (bad)
		return;	/* each one failed above */
	printf("# pvmap.ko parameters: %d, none but hygiene (x86_64's opt-out) weakens clear-on-unmap\n",
	       n);
}

/*
 * Random and boundary ioctls: a call the driver should refuse must fail with
 * EINVAL, EFAULT, ENOTTY or ENODEV; a valid one must succeed. N calls, N from
 * pvtest.fuzz= (default 20000).
 */
TEST_F(pvmap, ioctl_fuzz)
{
	static const unsigned int nrs[] = { 0x01, 0x02, 0x03, 0x04 };
	unsigned long calls = 20000, bad = 0, refused = 0;
	struct fuzz_buf b;
	struct device *d;
	char arg[32];
	uint32_t x = (uint32_t)random_u64() | 1;
	int fd;

	if (guest_cmdline_get("fuzz", arg, sizeof(arg)))
		calls = strtoul(arg, NULL, 0);
	fd = open_ivshmem(&d);
	ASSERT_LE(0, fd);	/* open_ivshmem() said why */
	b.rw = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, b.rw) TH_LOG("mmap");
	b.ro = b.rw + PAGE;
	b.gone = b.rw + 2 * PAGE;
	memset(b.rw, 0, 2 * PAGE);
	mprotect(b.ro, PAGE, PROT_READ);
	munmap(b.gone, PAGE);

	for (unsigned long i = 0; i < calls; i++) {
		uint32_t r = (x ^= x << 13, x ^= x >> 17, x ^= x << 5);
		unsigned int nr = r % 5 ? nrs[r % 4] : (r >> 3) % 256;
		unsigned int dir = (r >> 11) % 4, size = (r >> 13) % 5 ? 0 : (r >> 16) % 512;
		bool usable, writable, valid = false;
		void *ptr = fuzz_ptr(&b, r >> 7, &usable, &writable);
		struct pvmap_rw rw_sent = { 0 };
		unsigned long cmd;
		int ret, err;

		/* mostly well-formed commands, sometimes a wrong size or direction */
		switch (nr) {
		case 0x01: cmd = PVMAP_IOC_INFO; break;
		case 0x02: cmd = PVMAP_IOC_PWRITE; break;
		case 0x03: cmd = PVMAP_IOC_PREAD; break;
		case 0x04: cmd = PVMAP_IOC_STATS; break;
		default: cmd = _IOC(dir, PVMAP_IOC_MAGIC, nr, size); break;
		}
		if (nr <= 4 && size)
			cmd = _IOC(dir, PVMAP_IOC_MAGIC, nr, size);

		if (cmd == PVMAP_IOC_INFO || cmd == PVMAP_IOC_STATS) {
			valid = writable && ptr != b.ro;
		} else if ((cmd == PVMAP_IOC_PWRITE || cmd == PVMAP_IOC_PREAD) && writable) {
			struct pvmap_rw *rw = ptr;
			bool rd = cmd == PVMAP_IOC_PREAD;

			rw->offset = fuzz_u64(r >> 3, d->info.aperture_size);
			rw->length = fuzz_u64(r >> 5, d->info.aperture_size) % (3 * PAGE);
			if ((r >> 9) % 3 == 0)
				rw->length = fuzz_u64(r >> 19, d->info.aperture_size);
			rw->user_ptr = (uintptr_t)fuzz_ptr(&b, r >> 21, &usable, &writable);
			/* on i386, bits above 31 make any pointer invalid: EFAULT, not truncation */
			if (sizeof(void *) == 4 && (r >> 25) % 8 == 0)
				rw->user_ptr |= 1ULL << (32 + (r >> 28) % 4);
			/* the data buffer: only the rw page's first PAGE bytes are safe */
			valid = rw->offset <= d->info.aperture_size &&
				rw->length <= d->info.aperture_size - rw->offset &&
				(!rw->length || (usable && (rd ? writable : true) &&
				 rw->user_ptr >= (uintptr_t)b.rw &&
				 rw->user_ptr + rw->length <= (uintptr_t)b.rw + (rd ? PAGE : 2 * PAGE)));
			if (rw->user_ptr == (uintptr_t)b.ro && !rd && rw->length <= PAGE)
				valid = rw->offset <= d->info.aperture_size &&
					rw->length <= d->info.aperture_size - rw->offset;
			if (!valid && rw->length &&
			    rw->offset <= d->info.aperture_size &&
			    rw->length <= d->info.aperture_size - rw->offset &&
			    rw->user_ptr >= (uintptr_t)b.rw &&
			    rw->user_ptr < (uintptr_t)b.rw + 2 * PAGE)
				continue;	/* partial copies are tested elsewhere */
		}
		if (cmd == PVMAP_IOC_PWRITE || cmd == PVMAP_IOC_PREAD)
			rw_sent = *(struct pvmap_rw *)ptr;
		ret = ioctl(fd, cmd, ptr);
		err = errno;
		if (valid && ret) {
			printf("# valid ioctl %#lx failed: %s\n", cmd, strerror(err));
			if (cmd == PVMAP_IOC_PWRITE || cmd == PVMAP_IOC_PREAD)
				printf("#   offset %#llx length %#llx, data at rw%+lld, done %llu\n",
				       (unsigned long long)rw_sent.offset,
				       (unsigned long long)rw_sent.length,
				       (long long)(rw_sent.user_ptr - (uintptr_t)b.rw),
				       (unsigned long long)((struct pvmap_rw *)ptr)->done);
			bad++;
		} else if (!valid && !ret) {
			printf("# invalid ioctl %#lx (arg %p) succeeded\n", cmd, ptr);
			bad++;
		} else if (!valid && err != EINVAL && err != EFAULT && err != ENOTTY && err != ENODEV) {
			printf("# ioctl %#lx failed with %s\n", cmd, strerror(err));
			bad++;
		}
		refused += !valid;
		if (bad > 10)
			break;
	}
	munmap(b.rw, 2 * PAGE);
	close(fd);
	printf("# %lu ioctls, %lu refused as they should be, %lu wrong\n", calls, refused, bad);
	EXPECT_EQ(0, bad) TH_LOG("%lu ioctls went wrong", bad);
}

TEST_HARNESS_MAIN
