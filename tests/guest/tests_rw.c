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
PVMAP_TEST(pwrite_random_offsets)
{
	struct device *d;
	int fd, ret = 0;

	fd = open_ivshmem(&d);
	if (fd < 0)
		return -1;
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
	if (!guest_host_sync("pattern"))
		return fail("host did not acknowledge the patterns");
	return ret;
}

/* PREAD returns the pattern the host wrote before boot. */
PVMAP_TEST(pread_host_pattern)
{
	uint64_t off, len, seed, done = 0, bad;
	struct device *d;
	uint8_t *buf;
	int fd, ret;

	if (!host_pattern(&off, &len, &seed))
		return fail("no pvtest.hostpat= on the command line");
	fd = open_ivshmem(&d);
	if (fd < 0)
		return -1;
	buf = malloc(len);
	ret = buf ? guest_rw(fd, false, off, buf, len, &done) : -1;
	close(fd);
	bad = buf && !ret && done == len ? pvmap_pattern_check(buf, len, seed, off) : 0;
	free(buf);
	if (ret || done != len)
		return fail("PREAD: %d, %llu of %llu done", ret, (unsigned long long)done,
			    (unsigned long long)len);
	if (bad != len)
		return fail("PREAD differs from the host's pattern at %#llx",
			    (unsigned long long)(off + bad));
	return 0;
}

/*
 * Writes through a user mmap of three pages reach the host's backing file.
 */
PVMAP_TEST(mmap_write)
{
	uint64_t off, seed = random_u64(), len = 3 * PAGE;
	struct device *d;
	uint8_t *p;
	int fd;

	fd = open_ivshmem(&d);
	if (fd < 0)
		return -1;
	do
		off = (random_u64() % (d->info.aperture_size / PAGE - 3)) * PAGE;
	while (hits_host_pattern(off, len));
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	close(fd);
	if (p == MAP_FAILED)
		return fail("mmap at %#llx: %s", (unsigned long long)off, strerror(errno));
	pvmap_pattern_fill(p, len, seed, off);
	munmap(p, len);
	printf("# pvmap-host: pattern off=%#llx len=%#llx seed=%#llx\n",
	       (unsigned long long)off, (unsigned long long)len, (unsigned long long)seed);
	if (!guest_host_sync("pattern"))
		return fail("host did not acknowledge the pattern");
	return 0;
}

/* A user mmap reads the pattern the host wrote before boot. */
PVMAP_TEST(mmap_read_host_pattern)
{
	uint64_t off, len, seed, start, maplen, bad;
	struct device *d;
	uint8_t *p;
	int fd;

	if (!host_pattern(&off, &len, &seed))
		return fail("no pvtest.hostpat= on the command line");
	fd = open_ivshmem(&d);
	if (fd < 0)
		return -1;
	start = off & ~(PAGE - 1);
	maplen = (off - start + len + PAGE - 1) & ~(PAGE - 1);
	p = mmap(NULL, maplen, PROT_READ, MAP_SHARED, fd, start);
	close(fd);
	if (p == MAP_FAILED)
		return fail("mmap at %#llx: %s", (unsigned long long)start, strerror(errno));
	bad = pvmap_pattern_check(p + (off - start), len, seed, off);
	munmap(p, maplen);
	if (bad != len)
		return fail("mmap differs from the host's pattern at %#llx",
			    (unsigned long long)(off + bad));
	return 0;
}

/*
 * mmap of the last page works; one page more, past the end, wrapping or
 * private mappings are refused.
 */
PVMAP_TEST(mmap_bounds)
{
	struct device *d;
	int fd, bad = 0;
	uint64_t size;
	void *p;

	fd = open_ivshmem(&d);
	if (fd < 0)
		return -1;
	size = d->info.aperture_size;
	/* the last page maps; one page more, or past the end, does not */
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, size - PAGE);
	if (p == MAP_FAILED)
		bad += fail("mmap of the last page: %s", strerror(errno)) != 0;
	else
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
		if (p != MAP_FAILED) {
			printf("# mmap of %#llx bytes at %#llx (%s) was accepted\n",
			       (unsigned long long)cases[i].len,
			       (unsigned long long)cases[i].off, cases[i].what);
			munmap(p, cases[i].len);
			bad++;
		}
	}
	/* device memory has nothing to copy on write: private mappings are refused */
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (p != MAP_FAILED || errno != EINVAL) {
		bad += fail("a MAP_PRIVATE mapping: %s, want EINVAL",
			    p == MAP_FAILED ? strerror(errno) : "accepted") != 0;
		if (p != MAP_FAILED)
			munmap(p, PAGE);
	}
	close(fd);
	return bad ? -1 : 0;
}

/*
 * PWRITE and PREAD past the end, with wrapping offset+length, zero or huge
 * lengths and bad pointers are refused, and nothing is copied.
 */
PVMAP_TEST(rw_bounds)
{
	static const uint64_t big = ~0ULL;
	uint8_t buf[16] = { 0 };
	struct device *d;
	uint64_t size, done;
	int fd, bad = 0;

	fd = open_ivshmem(&d);
	if (fd < 0)
		return -1;
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
			int ret = guest_rw(fd, write, cases[i].off, cases[i].ptr,
						 cases[i].len, &done);

			if (ret != -1 || errno != cases[i].want) {
				printf("# case %u %s: %d (%s), want %s\n", i,
				       write ? "PWRITE" : "PREAD", ret, strerror(errno),
				       strerror(cases[i].want));
				bad++;
			}
		}
	}
	if (guest_rw(fd, true, 0, buf, 0, &done) || done)
		bad += fail("a zero-length PWRITE failed");
	close(fd);
	return bad ? -1 : 0;
}

/*
 * A buffer whose second page is gone: the copy stops exactly at the fault,
 * reports the bytes before it, and nothing past them reaches the aperture.
 */
PVMAP_TEST(pwrite_partial_fault)
{
	uint64_t off, done = 0, head = PAGE - 100, seed_old = random_u64(), seed_new;
	struct pvmap_stats before, after;
	uint8_t *buf, *check;
	struct device *d;
	int fd, ret = 0;

	fd = open_ivshmem(&d);
	if (fd < 0)
		return -1;
	seed_new = seed_old ^ 0xff;
	off = (random_u64() % (d->info.aperture_size / PAGE - 2)) * PAGE + 100;
	if (pwrite_pattern(fd, off, 2 * PAGE, seed_old, false)) {
		close(fd);
		return -1;
	}
	buf = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	check = malloc(2 * PAGE);
	if (buf == MAP_FAILED || !check) {
		close(fd);
		return fail("out of memory");
	}
	munmap(buf + PAGE, PAGE);
	pvmap_pattern_fill(buf + 100, head, seed_new, off);
	read_stats(fd, &before);
	if (guest_rw(fd, true, off, buf + 100, 2 * PAGE, &done) || done != head)
		ret = fail("PWRITE across an unmapped page: %llu done, want %llu",
			   (unsigned long long)done, (unsigned long long)head);
	read_stats(fd, &after);
	if (!ret && after.slow_path == before.slow_path)
		ret = fail("the fault did not take the slow path");
	if (!ret && (guest_rw(fd, false, off, check, 2 * PAGE, &done) || done != 2 * PAGE))
		ret = fail("PREAD back failed");
	if (!ret && pvmap_pattern_check(check, head, seed_new, off) != head)
		ret = fail("the bytes before the fault are wrong");
	if (!ret && pvmap_pattern_check(check + head, 2 * PAGE - head, seed_old, off + head) !=
		    2 * PAGE - head)
		ret = fail("bytes past the fault were written");
	/* Nothing at all copied: EFAULT, with done 0. */
	if (!ret && (guest_rw(fd, true, off, buf + PAGE, 16, &done) != -1 ||
		     errno != EFAULT || done))
		ret = fail("PWRITE from an unmapped page: want EFAULT");
	munmap(buf, PAGE);
	free(check);
	close(fd);
	return ret;
}

/*
 * A PREAD into a buffer whose second page is read-only stops exactly at that
 * page and reports the bytes before it.
 */
PVMAP_TEST(pread_partial_fault)
{
	uint64_t off, done = 0, head = PAGE - 100, seed = random_u64();
	uint8_t *buf;
	int fd, ret = 0;

	fd = fault_test_setup(2 * PAGE, PAGE, seed, &off, &buf);
	if (fd < 0)
		return -1;
	memset(buf, 0xee, 2 * PAGE);
	mprotect(buf + PAGE, PAGE, PROT_READ);	/* the copy cannot write here */
	if (guest_rw(fd, false, off, buf + 100, 2 * PAGE, &done) || done != head)
		ret = fail("PREAD into a read-only page: %llu done, want %llu",
			   (unsigned long long)done, (unsigned long long)head);
	else if (pvmap_pattern_check(buf + 100, head, seed, off) != head)
		ret = fail("the bytes before the fault are wrong");
	else if (buf[PAGE] != 0xee)
		ret = fail("the read-only page changed");
	munmap(buf, 2 * PAGE);
	close(fd);
	return ret;
}

/*
 * PWRITE and PREAD stop exactly at the first byte that faults, for every
 * case of include/uapi/pvmap_partial.h: user and aperture alignments mod 8, the
 * fault at every position of the copy's last 64-byte block. On an Intel
 * family-6 CPU, Debian's i386 kernels copy such misaligned buffers with
 * __copy_user_intel, which stops up to 63 bytes before the fault. The host
 * then checks every PWRITE's bytes in the backing file: none past the fault.
 */
PVMAP_TEST(rw_partial_fault_alignments)
{
	uint64_t base, seed_old = random_u64(), seed_new = random_u64(), done;
	uint64_t span = (uint64_t)PVMAP_PARTIAL_CASES * PVMAP_PARTIAL_STRIDE;
	unsigned int i, bad_w = 0, bad_r = 0, short_w = 0, short_r = 0;
	uint8_t *buf;
	int fd, ret = 0;

	print_cpu();
	fd = fault_test_setup(span, span, seed_old, &base, &buf);
	if (fd < 0)
		return -1;

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
	if (!guest_host_sync("partial"))
		ret = fail("the host found bytes past a fault (or not before it)");

	/*
	 * PREAD: the destination's second page is read-only, the copy faults
	 * writing it. The region is rewritten whole first, so PREAD's cases do
	 * not depend on PWRITE's.
	 */
	if (pwrite_pattern(fd, base, span, seed_new, false) ||
	    mmap(buf + PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
	    MAP_FAILED) {
		munmap(buf, PAGE);
		close(fd);
		return fail("mmap: %s", strerror(errno));
	}
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
	if (bad_w || bad_r)
		return fail("done is not exact at the fault");
	return ret;
}

/*
 * Buffers never touched before: the copy with page faults disabled cannot
 * fault their pages in, so all of it must come through the sleepable path.
 */
PVMAP_TEST(rw_untouched_buffer)
{
	struct pvmap_stats before, after;
	uint64_t off, len = 64 * 1024, done = 0;
	uint8_t *buf;
	struct device *d;
	int fd, ret = 0;

	fd = open_ivshmem(&d);
	if (fd < 0)
		return -1;
	off = (random_u64() % (d->info.aperture_size / PAGE - 16)) * PAGE;
	read_stats(fd, &before);
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || guest_rw(fd, true, off, buf, len, &done) || done != len)
		ret = fail("PWRITE from an untouched buffer: %llu of %llu done",
			   (unsigned long long)done, (unsigned long long)len);
	if (buf != MAP_FAILED)
		munmap(buf, len);
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ret && (buf == MAP_FAILED ||
		     guest_rw(fd, false, off, buf, len, &done) || done != len))
		ret = fail("PREAD into an untouched buffer: %llu of %llu done",
			   (unsigned long long)done, (unsigned long long)len);
	for (uint64_t i = 0; !ret && i < len; i++)
		if (buf[i])
			ret = fail("byte %llu read back as %#x, want 0", (unsigned long long)i,
				   buf[i]);
	if (buf != MAP_FAILED)
		munmap(buf, len);
	read_stats(fd, &after);
	close(fd);
	if (!ret && after.slow_path == before.slow_path)
		ret = fail("no chunk took the sleepable path");
	return ret;
}

TEST_HARNESS_MAIN
