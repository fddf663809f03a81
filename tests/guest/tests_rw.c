// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-tests: PREAD, PWRITE and mmap through /dev/pvmapN: random offsets, the
 * host's pattern, bounds, partial faults in the user buffer.
 * A feature program of pvmap-tests (feature_list.h).
 */
#include "pvmap-tests.h"

/*
 * The partial-fault tests' set-up: the ivshmem device open (returned),
 * @span bytes of the pattern @seed at a random @align-aligned *@off, and
 * two fresh pages at *@buf. -1 after a diagnostic.
 */
static int fault_test_setup(uint64_t span, uint64_t align, uint64_t seed, uint64_t *off,
			    uint8_t **buf)
{
	struct device *d;
	int fd;

	fd = open_ivshmem(&d);
	if (fd < 0)
		return -1;
	*off = (random_u64() % ((d->info.aperture_size - span) / align + 1)) * align;
	if (pwrite_pattern(fd, *off, span, seed, false)) {
		close(fd);
		return -1;
	}
	*buf = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*buf == MAP_FAILED) {
		close(fd);
		return fail("out of memory");
	}
	return fd;
}

/* The CPU the guest runs on, as /proc/cpuinfo names it. */
static void print_cpu(void)
{
	char info[4096], *vendor, *family, *model;

	if (guest_read_file("/proc/cpuinfo", info, sizeof(info)) < 0)
		return;
	vendor = strstr(info, "vendor_id");
	family = strstr(info, "cpu family");
	model = strstr(info, "\nmodel\t");
	if (vendor && family && model)
		printf("# cpu: %.*s, family %d, model %d\n", (int)strcspn(vendor + 12, "\n"),
		       vendor + 12, atoi(strchr(family, ':') + 1), atoi(strchr(model, ':') + 1));
}

/* Count a wrong case of rw_partial_fault_alignments, the first few in words. */
static void partial_case_wrong(const char *op, unsigned int i, uint64_t done, unsigned int *bad,
			       unsigned int *shortfall)
{
	uint64_t head = pvmap_partial_head(i);

	if (done < head && head - done > *shortfall)
		*shortfall = head - done;
	if ((*bad)++ < 4)
		printf("# %s case %u (user +%u, aperture %%8 = %u): %llu done, want %llu\n", op, i,
		       pvmap_partial_user_off(i), i % 8, (unsigned long long)done,
		       (unsigned long long)head);
}

/*
 * PWRITEs at 24 random offsets across the whole aperture, its first and last
 * byte included, each byte-exact in the host's backing file.
 */
TEST_F(pvmap, pwrite_random_offsets)
{
	struct device *d;
	int fd, ret = 0;

	fd = open_ivshmem(&d);
	ASSERT_GE(fd, 0);
	/* One region in each 24th of the aperture, so none overlaps another. */
	for (int i = 0; i < 24 && !ret; i++) {
		uint64_t slice = d->info.aperture_size / 24;
		uint64_t len = 1 + random_u64() % (3 * 64 * 1024 + 777);
		uint64_t off = i * slice + random_u64() % (slice - len + 1);

		while (i != 0 && i != 23 && hits_host_pattern(off, len))
			off = i * slice + random_u64() % (slice - len + 1);
		if (i == 0)
			off = 0;				/* the first byte */
		if (i == 23)
			off = d->info.aperture_size - len;	/* the last byte */
		if (hits_host_pattern(off, len))
			continue;	/* the first or last byte is the host's */
		ret = pwrite_pattern(fd, off, len, random_u64(), true);
	}
	close(fd);
	ASSERT_TRUE(guest_host_sync("pattern")) TH_LOG("host did not acknowledge the patterns");
	ASSERT_EQ(0, ret);
}

/* PREAD returns the pattern the host wrote before boot. */
TEST_F(pvmap, pread_host_pattern)
{
	uint64_t off, len, seed, done = 0, bad;
	struct device *d;
	uint8_t *buf;
	int fd, ret;

	ASSERT_TRUE(host_pattern(&off, &len, &seed))
		TH_LOG("no pvtest.hostpat= on the command line");
	fd = open_ivshmem(&d);
	ASSERT_GE(fd, 0);
	buf = malloc(len);
	ret = buf ? guest_rw(fd, false, off, buf, len, &done) : -1;
	close(fd);
	bad = buf && !ret && done == len ? pvmap_pattern_check(buf, len, seed, off) : 0;
	free(buf);
	ASSERT_EQ(0, ret) TH_LOG("PREAD: %d, %llu of %llu done", ret, (unsigned long long)done,
				 (unsigned long long)len);
	ASSERT_EQ(len, done) TH_LOG("PREAD: %d, %llu of %llu done", ret, (unsigned long long)done,
				    (unsigned long long)len);
	ASSERT_EQ(len, bad) TH_LOG("PREAD differs from the host's pattern at %#llx",
				   (unsigned long long)(off + bad));
}

/*
 * Writes through a user mmap of three pages reach the host's backing file.
 */
TEST_F(pvmap, mmap_write)
{
	uint64_t off, seed = random_u64(), len = 3 * PAGE;
	struct device *d;
	uint8_t *p;
	int fd;

	fd = open_ivshmem(&d);
	ASSERT_GE(fd, 0);
	do
		off = (random_u64() % (d->info.aperture_size / PAGE - 3)) * PAGE;
	while (hits_host_pattern(off, len));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	close(fd);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap at %#llx: %s", (unsigned long long)off,
					strerror(errno));
	pvmap_pattern_fill(p, len, seed, off);
	munmap(p, len);
	printf("# pvmap-host: pattern off=%#llx len=%#llx seed=%#llx\n",
	       (unsigned long long)off, (unsigned long long)len, (unsigned long long)seed);
	ASSERT_TRUE(guest_host_sync("pattern")) TH_LOG("host did not acknowledge the pattern");
}

/* A user mmap reads the pattern the host wrote before boot. */
TEST_F(pvmap, mmap_read_host_pattern)
{
	uint64_t off, len, seed, start, maplen, bad;
	struct device *d;
	uint8_t *p;
	int fd;

	ASSERT_TRUE(host_pattern(&off, &len, &seed))
		TH_LOG("no pvtest.hostpat= on the command line");
	fd = open_ivshmem(&d);
	ASSERT_GE(fd, 0);
	start = off & ~(PAGE - 1);
	maplen = (off - start + len + PAGE - 1) & ~(PAGE - 1);
	p = mmap(NULL, maplen, PROT_READ, MAP_SHARED, fd, start);
	close(fd);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap at %#llx: %s", (unsigned long long)start,
					strerror(errno));
	bad = pvmap_pattern_check(p + (off - start), len, seed, off);
	munmap(p, maplen);
	ASSERT_EQ(len, bad) TH_LOG("mmap differs from the host's pattern at %#llx",
				   (unsigned long long)(off + bad));
}

/*
 * mmap of the last page works; one page more, past the end, wrapping or
 * private mappings are refused.
 */
TEST_F(pvmap, mmap_bounds)
{
	struct device *d;
	uint64_t size;
	int fd, err;
	void *p;

	fd = open_ivshmem(&d);
	ASSERT_GE(fd, 0);
	size = d->info.aperture_size;
	/* the last page maps; one page more, or past the end, does not */
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, size - PAGE);
	EXPECT_NE(MAP_FAILED, p) TH_LOG("mmap of the last page: %s", strerror(errno));
	if (p != MAP_FAILED)
		munmap(p, PAGE);
	struct {
		uint64_t len, off;
		const char *what;
	} cases[] = {
		{ 2 * PAGE, size - PAGE, "runs past the end" },
		{ PAGE, size, "starts at the end" },
		{ PAGE, (uint64_t)INT64_MAX & ~(uint64_t)(PAGE - 1), "page number wraps" },
	};
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p = mmap(NULL, cases[i].len, PROT_READ, MAP_SHARED, fd, (off_t)cases[i].off);
		EXPECT_EQ(MAP_FAILED, p) TH_LOG("mmap of %#llx bytes at %#llx (%s) was accepted",
						(unsigned long long)cases[i].len,
						(unsigned long long)cases[i].off, cases[i].what);
		if (p != MAP_FAILED)
			munmap(p, cases[i].len);
	}
	/* device memory has nothing to copy on write: private mappings are refused */
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	err = p == MAP_FAILED ? errno : 0;
	EXPECT_EQ(EINVAL, err) TH_LOG("a MAP_PRIVATE mapping: %s, want EINVAL",
				      p == MAP_FAILED ? strerror(err) : "accepted");
	if (p != MAP_FAILED)
		munmap(p, PAGE);
	close(fd);
}

/*
 * PWRITE and PREAD past the end, with wrapping offset+length, zero or huge
 * lengths and bad pointers are refused, and nothing is copied.
 */
TEST_F(pvmap, rw_bounds)
{
	static const uint64_t big = ~0ULL;
	uint8_t buf[16] = { 0 };
	struct device *d;
	uint64_t size, done;
	int fd, ret;

	fd = open_ivshmem(&d);
	ASSERT_GE(fd, 0);
	size = d->info.aperture_size;
	struct {
		uint64_t off, len;
		void *ptr;
		int want;
	} cases[] = {
		{ size, 1, buf, EINVAL },		/* starts at the end */
		{ size - 1, 2, buf, EINVAL },		/* runs past the end */
		{ big, 2, buf, EINVAL },		/* offset + length wraps */
		{ 0, big, buf, EINVAL },		/* huge length */
		{ 0, 16, NULL, EFAULT },		/* NULL buffer */
		{ 0, 16, (void *)(uintptr_t)0xc0000000UL, EFAULT },	/* kernel pointer */
	};
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int write = 0; write < 2; write++) {
			int err;

			ret = guest_rw(fd, write, cases[i].off, cases[i].ptr, cases[i].len, &done);
			err = ret == -1 ? errno : 0;
			EXPECT_EQ(cases[i].want, err) TH_LOG("case %u %s: %d (%s), want %s", i,
							     write ? "PWRITE" : "PREAD", ret,
							     strerror(err),
							     strerror(cases[i].want));
		}
	}
	ret = guest_rw(fd, true, 0, buf, 0, &done);
	EXPECT_EQ(0, ret) TH_LOG("a zero-length PWRITE failed");
	EXPECT_EQ(0, done) TH_LOG("a zero-length PWRITE failed");
	close(fd);
}

/*
 * A buffer whose second page is gone: the copy stops exactly at the fault,
 * reports the bytes before it, and nothing past them reaches the aperture.
 */
TEST_F(pvmap, pwrite_partial_fault)
{
	uint64_t off, done = 0, head = PAGE - 100, seed_old = random_u64(), seed_new;
	struct pvmap_stats before, after;
	uint8_t *buf, *check;
	struct device *d;
	int fd, ret, err;

	fd = open_ivshmem(&d);
	ASSERT_GE(fd, 0);
	seed_new = seed_old ^ 0xff;
	off = (random_u64() % (d->info.aperture_size / PAGE - 2)) * PAGE + 100;
	ASSERT_EQ(0, pwrite_pattern(fd, off, 2 * PAGE, seed_old, false));
	buf = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	check = malloc(2 * PAGE);
	ASSERT_NE(MAP_FAILED, buf) TH_LOG("out of memory");
	ASSERT_NE(NULL, check) TH_LOG("out of memory");
	munmap(buf + PAGE, PAGE);
	pvmap_pattern_fill(buf + 100, head, seed_new, off);
	read_stats(fd, &before);
	ret = guest_rw(fd, true, off, buf + 100, 2 * PAGE, &done);
	ASSERT_EQ(0, ret) TH_LOG("PWRITE across an unmapped page: %llu done, want %llu",
				 (unsigned long long)done, (unsigned long long)head);
	ASSERT_EQ(head, done) TH_LOG("PWRITE across an unmapped page: %llu done, want %llu",
				     (unsigned long long)done, (unsigned long long)head);
	read_stats(fd, &after);
	ASSERT_NE(before.slow_path, after.slow_path) TH_LOG("the fault did not take the slow path");
	ASSERT_EQ(0, guest_rw(fd, false, off, check, 2 * PAGE, &done)) TH_LOG("PREAD back failed");
	ASSERT_EQ(2 * PAGE, done) TH_LOG("PREAD back failed");
	ASSERT_EQ(head, pvmap_pattern_check(check, head, seed_new, off))
		TH_LOG("the bytes before the fault are wrong");
	ASSERT_EQ(2 * PAGE - head,
		  pvmap_pattern_check(check + head, 2 * PAGE - head, seed_old, off + head))
		TH_LOG("bytes past the fault were written");
	/* Nothing at all copied: EFAULT, with done 0. */
	ret = guest_rw(fd, true, off, buf + PAGE, 16, &done);
	err = ret == -1 ? errno : 0;
	ASSERT_EQ(EFAULT, err) TH_LOG("PWRITE from an unmapped page: want EFAULT");
	ASSERT_EQ(0, done) TH_LOG("PWRITE from an unmapped page: want EFAULT");
	munmap(buf, PAGE);
	free(check);
	close(fd);
}

/*
 * A PREAD into a buffer whose second page is read-only stops exactly at that
 * page and reports the bytes before it.
 */
TEST_F(pvmap, pread_partial_fault)
{
	uint64_t off, done = 0, head = PAGE - 100, seed = random_u64();
	uint8_t *buf;
	int fd, ret;

	fd = fault_test_setup(2 * PAGE, PAGE, seed, &off, &buf);
	ASSERT_GE(fd, 0);
	memset(buf, 0xee, 2 * PAGE);
	mprotect(buf + PAGE, PAGE, PROT_READ);	/* the copy cannot write here */
	ret = guest_rw(fd, false, off, buf + 100, 2 * PAGE, &done);
	ASSERT_EQ(0, ret) TH_LOG("PREAD into a read-only page: %llu done, want %llu",
				 (unsigned long long)done, (unsigned long long)head);
	ASSERT_EQ(head, done) TH_LOG("PREAD into a read-only page: %llu done, want %llu",
				     (unsigned long long)done, (unsigned long long)head);
	ASSERT_EQ(head, pvmap_pattern_check(buf + 100, head, seed, off))
		TH_LOG("the bytes before the fault are wrong");
	ASSERT_EQ(0xee, buf[PAGE]) TH_LOG("the read-only page changed");
	munmap(buf, 2 * PAGE);
	close(fd);
}

/*
 * PWRITE and PREAD stop exactly at the first byte that faults, for every
 * case of include/uapi/pvmap_partial.h: user and aperture alignments mod 8, the
 * fault at every position of the copy's last 64-byte block. On an Intel
 * family-6 CPU, Debian's i386 kernels copy such misaligned buffers with
 * __copy_user_intel, which stops up to 63 bytes before the fault. The host
 * then checks every PWRITE's bytes in the backing file: none past the fault.
 */
TEST_F(pvmap, rw_partial_fault_alignments)
{
	uint64_t base, seed_old = random_u64(), seed_new = random_u64(), done;
	uint64_t span = (uint64_t)PVMAP_PARTIAL_CASES * PVMAP_PARTIAL_STRIDE;
	unsigned int i, bad_w = 0, bad_r = 0, short_w = 0, short_r = 0;
	uint8_t *buf;
	int fd;

	print_cpu();
	fd = fault_test_setup(span, span, seed_old, &base, &buf);
	ASSERT_GE(fd, 0);

	/* PWRITE: the source's second page is gone, the copy faults reading it. */
	munmap(buf + PAGE, PAGE);
	for (i = 0; i < PVMAP_PARTIAL_CASES; i++) {
		uint64_t off = base + pvmap_partial_aperture_off(i), head = pvmap_partial_head(i);
		uint8_t *src = buf + pvmap_partial_user_off(i);

		pvmap_pattern_fill(src, head, seed_new, off);
		if (guest_rw(fd, true, off, src, PVMAP_PARTIAL_LEN, &done) || done != head)
			partial_case_wrong("PWRITE", i, done, &bad_w, &short_w);
	}
	printf("# pvmap-host: partial base=%#llx old=%#llx new=%#llx\n", (unsigned long long)base,
	       (unsigned long long)seed_old, (unsigned long long)seed_new);
	EXPECT_TRUE(guest_host_sync("partial"))
		TH_LOG("the host found bytes past a fault (or not before it)");

	/*
	 * PREAD: the destination's second page is read-only, the copy faults
	 * writing it. The region is rewritten whole first, so PREAD's cases do
	 * not depend on PWRITE's.
	 */
	ASSERT_EQ(0, pwrite_pattern(fd, base, span, seed_new, false));
	ASSERT_NE(MAP_FAILED, mmap(buf + PAGE, PAGE, PROT_READ,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0))
		TH_LOG("mmap: %s", strerror(errno));
	for (i = 0; i < PVMAP_PARTIAL_CASES; i++) {
		uint64_t off = base + pvmap_partial_aperture_off(i), head = pvmap_partial_head(i);
		uint8_t *dst = buf + pvmap_partial_user_off(i);

		memset(buf, 0xee, PAGE);
		if (guest_rw(fd, false, off, dst, PVMAP_PARTIAL_LEN, &done) || done != head ||
		    pvmap_pattern_check(dst, head, seed_new, off) != head || buf[PAGE] != 0)
			partial_case_wrong("PREAD", i, done, &bad_r, &short_r);
	}
	munmap(buf, 2 * PAGE);
	close(fd);
	printf("# %u cases each way: PWRITE %u wrong (done up to %u bytes short), "
	       "PREAD %u wrong (up to %u short)\n", PVMAP_PARTIAL_CASES, bad_w, short_w, bad_r,
	       short_r);
	EXPECT_EQ(0, bad_w + bad_r) TH_LOG("done is not exact at the fault");
}

/*
 * A fresh anonymous buffer of @len bytes, never touched, copied from
 * (@write) or into aperture offset @off; the test stops unless all of it went.
 */
static uint8_t *untouched_copy(struct __test_metadata *_metadata, int fd, bool write,
			       uint64_t off, uint64_t len)
{
	const char *what = write ? "PWRITE from" : "PREAD into";
	uint64_t done = 0;
	uint8_t *buf;

	buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf) TH_LOG("%s an untouched buffer: mmap: %s", what, strerror(errno));
	ASSERT_EQ(0, guest_rw(fd, write, off, buf, len, &done))
		TH_LOG("%s an untouched buffer: %llu of %llu done", what,
		       (unsigned long long)done, (unsigned long long)len);
	ASSERT_EQ(len, done) TH_LOG("%s an untouched buffer: %llu of %llu done", what,
				    (unsigned long long)done, (unsigned long long)len);
	return buf;
}

/*
 * Buffers never touched before: the copy with page faults disabled cannot
 * fault their pages in, so all of it must come through the sleepable path.
 */
TEST_F(pvmap, rw_untouched_buffer)
{
	struct pvmap_stats before, after;
	uint64_t off, len = 64 * 1024;
	uint8_t *buf;
	struct device *d;
	int fd;

	fd = open_ivshmem(&d);
	ASSERT_GE(fd, 0);
	off = (random_u64() % (d->info.aperture_size / PAGE - 16)) * PAGE;
	read_stats(fd, &before);
	munmap(untouched_copy(_metadata, fd, true, off, len), len);
	buf = untouched_copy(_metadata, fd, false, off, len);
	for (uint64_t i = 0; i < len; i++) {
		ASSERT_EQ(0, buf[i]) TH_LOG("byte %llu read back as %#x, want 0",
					    (unsigned long long)i, buf[i]);
	}
	munmap(buf, len);
	read_stats(fd, &after);
	close(fd);
	ASSERT_NE(before.slow_path, after.slow_path) TH_LOG("no chunk took the sleepable path");
}

TEST_HARNESS_MAIN
