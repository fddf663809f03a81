// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-drm-tests, its memory: dumb buffers through their life, VRAM beyond
 * vmalloc's reach, mmap (private refused, the head unmapped), and the clear
 * of a large buffer that lets others run.
 * A harness program of its own (feature_list.h, ../run_features.h).
 */
#define _GNU_SOURCE
#include "result.h"
#include "drm_tests.h"

/*
 * 1000 buffers made, mapped, written, read back and destroyed: each one
 * zeroed when made, the allocator back where it started at the end.
 */
TEST_F(pvmap, drm_dumb_lifecycle)
{
	long long used = drm_stat("vram_used: "), buffers = drm_stat("buffers: ");
	int fd, ret, i;
	struct dumb b;

	fd = open_card();
	ASSERT_LE(0, fd);
	for (i = 0; i < 1000; i++) {
		uint32_t w = 8 + (i * 37) % 600, h = 1 + (i * 53) % 300;
		uint64_t bad;

		ret = dumb_create(fd, w, h, &b);
		ASSERT_EQ(0, ret) TH_LOG("buffer %d (%ux%u): %s", i, w, h, strerror(-ret));
		for (uint64_t off = 0; off < b.size; off += PAGE) {
			ASSERT_FALSE(b.map[off] || b.map[b.size - 1])
				TH_LOG("buffer %d at VRAM %#llx: old bytes at %#llx", i,
				       (unsigned long long)b.offset, (unsigned long long)off);
		}
		pvmap_pattern_fill(b.map, b.size, 0xd0d0 + i, 0);
		bad = pvmap_pattern_check(b.map, b.size, 0xd0d0 + i, 0);
		ASSERT_EQ(b.size, bad) TH_LOG("buffer %d: byte %#llx read back wrong", i,
					      (unsigned long long)bad);
		ASSERT_EQ(0, dumb_destroy(fd, &b))
			TH_LOG("DESTROY_DUMB %d: %s", i, strerror(errno));
	}
	close(fd);
	printf("# %d buffers; VRAM used %lld -> %lld bytes, buffers %lld -> %lld\n", i, used,
	       drm_stat("vram_used: "), buffers, drm_stat("buffers: "));
	ASSERT_EQ(used, drm_stat("vram_used: "))
		TH_LOG("the VRAM allocator did not come back to where it started");
	ASSERT_EQ(buffers, drm_stat("buffers: "))
		TH_LOG("the VRAM allocator did not come back to where it started");
}

/*
 * Hostile sources for the kernel's upload into @b: user memory never
 * touched (each page faults inside pvmap's atomic map) at an odd address,
 * whose zeroes must land; then a source whose second page is unreadable:
 * EFAULT, and no oops. 0 or -1.
 */
static int upload_faults(int fd, struct dumb *b)
{
	uint8_t *src = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct drm_pvmap_drm_upload up = { .handle = b->handle, .width = b->pitch / 4,
					   .height = 1, .stride = b->pitch };
	int ret = 0;

	if (src == MAP_FAILED)
		return fail("mmap: %s", strerror(errno));
	memset(b->map, 0xa5, b->pitch);
	up.data = (uintptr_t)(src + 3);
	if (ioctl(fd, DRM_IOCTL_PVMAP_DRM_UPLOAD, &up))
		ret = fail("UPLOAD from untouched memory at an odd address: %s", strerror(errno));
	for (uint32_t i = 0; !ret && i < b->pitch; i++)
		if (b->map[i])
			ret = fail("UPLOAD from untouched memory: byte %u is %#x, not 0", i,
				   b->map[i]);
	mprotect(src + PAGE, PAGE, PROT_NONE);
	up.data = (uintptr_t)(src + PAGE - 100);
	if (!ret && (!ioctl(fd, DRM_IOCTL_PVMAP_DRM_UPLOAD, &up) || errno != EFAULT))
		ret = fail("UPLOAD from partly unreadable memory: %s, not EFAULT",
			   strerror(errno));
	munmap(src, 3 * PAGE);
	if (!ret)
		printf("# UPLOAD from untouched memory at an odd address: zeroes landed; from "
		       "partly unreadable memory: EFAULT\n");
	return ret;
}

/*
 * Buffers over the whole VRAM, more than vmalloc space could map on i386:
 * each written through its mmap (the last also through the kernel's upload
 * path) and read back, then checked by the host in VRAM with pmemsave.
 */
TEST_F(pvmap, drm_vram_beyond_vmalloc)
{
	static struct dumb bufs[128];
	long long vram = drm_stat("vram_size: ");
	char meminfo[4096], *at;
	uint64_t top = 0, vmalloc_kib = 0;
	int fd, n = 0;

	fd = open_card();
	ASSERT_LE(0, fd);
	if (guest_read_file("/proc/meminfo", meminfo, sizeof(meminfo)) > 0 &&
	    (at = strstr(meminfo, "VmallocTotal:")))
		vmalloc_kib = strtoull(at + 13, NULL, 10);
	while (n < 128) {
		struct dumb *b = &bufs[n];
		int err = dumb_create(fd, 1920, 1080, b);

		if (err == -ENOMEM || err == -ENOSPC)
			break;
		ASSERT_EQ(0, err) TH_LOG("buffer %d: %s", n, strerror(-err));
		/* first and last page: the host reads those */
		pvmap_pattern_fill(b->map, PAGE, 0xbeef0000 + n, 0);
		pvmap_pattern_fill(b->map + b->size - PAGE, PAGE, 0xbeef0000 + n, b->size - PAGE);
		if (b->offset + b->size > top)
			top = b->offset + b->size;
		n++;
	}
	if (n) {
		/* the last buffer's first line again, through the kernel's upload */
		struct dumb *b = &bufs[n - 1];
		uint8_t *line = malloc(b->pitch);
		struct drm_pvmap_drm_upload up = { .handle = b->handle, .width = b->pitch / 4,
						   .height = 1, .stride = b->pitch,
						   .data = (uintptr_t)line };

		pvmap_pattern_fill(line, b->pitch, 0x10ad, 0);
		ASSERT_EQ(0, ioctl(fd, DRM_IOCTL_PVMAP_DRM_UPLOAD, &up))
			TH_LOG("UPLOAD into the buffer at %#llx: %s",
			       (unsigned long long)b->offset, strerror(errno));
		ASSERT_EQ(b->pitch, pvmap_pattern_check(b->map, b->pitch, 0x10ad, 0))
			TH_LOG("the upload at VRAM %#llx does not read back",
			       (unsigned long long)b->offset);
		ASSERT_EQ(0, upload_faults(fd, b));
		/* the host expects the mmap's pattern there: write it back */
		pvmap_pattern_fill(b->map, PAGE, 0xbeef0000 + n - 1, 0);
		free(line);
	}
	for (int i = 0; i < n; i++) {
		struct dumb *b = &bufs[i];

		ASSERT_EQ(PAGE, pvmap_pattern_check(b->map, PAGE, 0xbeef0000 + i, 0))
			TH_LOG("buffer %d at VRAM %#llx does not read back", i,
			       (unsigned long long)b->offset);
		ASSERT_EQ(PAGE, pvmap_pattern_check(b->map + b->size - PAGE, PAGE, 0xbeef0000 + i,
						    b->size - PAGE))
			TH_LOG("buffer %d at VRAM %#llx does not read back", i,
			       (unsigned long long)b->offset);
		printf("# pvmap-host: drm-bo off=%#llx size=%#llx seed=%#x\n",
		       (unsigned long long)b->offset, (unsigned long long)b->size, 0xbeef0000 + i);
	}
	printf("# %d buffers of 1920x1080, VRAM %#llx of %#llx used up to; vmalloc space %llu MiB\n",
	       n, (unsigned long long)top, vram, (unsigned long long)vmalloc_kib >> 10);
	ASSERT_TRUE(guest_host_sync("drm-vram")) TH_LOG("host did not acknowledge");
	for (int i = 0; i < n; i++)
		dumb_destroy(fd, &bufs[i]);
	close(fd);
	ASSERT_GE(top + 2 * bufs[0].size, (uint64_t)vram)
		TH_LOG("the buffers stop at %#llx of %#llx", (unsigned long long)top, vram);
#ifdef __i386__
	/* the point on i386: more than a whole-BAR ioremap could ever have mapped */
	ASSERT_NE(0, vmalloc_kib)
		TH_LOG("VRAM used (%#llx) is no more than vmalloc space", (unsigned long long)top);
	ASSERT_GT(top, vmalloc_kib * 1024)
		TH_LOG("VRAM used (%#llx) is no more than vmalloc space", (unsigned long long)top);
#endif
}

/* DRM_IOCTL_MODE_MAP_DUMB's fake offset of @handle; 0 when it fails. */
static uint64_t map_dumb_offset(int fd, uint32_t handle)
{
	struct drm_mode_map_dumb m = { .handle = handle };

	return ioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &m) ? 0 : m.offset;
}

/*
 * Any process that can open the card may ask for a private mapping of a
 * dumb buffer: copy-on-write, of VRAM pfns that have no page to copy.
 * The core BUG()s on a fault in such a vma; the driver must refuse the
 * mmap itself (EINVAL, as the shmem and TTM helpers do), readable or not.
 */
TEST_F(pvmap, drm_mmap_private_refused)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE };
	struct dumb b;
	uint64_t off;
	int fd;

	fd = open_card();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dumb_create(fd, 64, 64, &b)) TH_LOG("CREATE_DUMB: %s", strerror(errno));
	off = map_dumb_offset(fd, b.handle);
	for (unsigned int i = 0; i < sizeof(prots) / sizeof(prots[0]); i++) {
		volatile uint8_t *p = mmap(NULL, PAGE, prots[i], MAP_PRIVATE, fd, off);

		/* the failure logged before the read below */
		EXPECT_EQ(MAP_FAILED, p)
			TH_LOG("mmap(%s, MAP_PRIVATE) of a dumb buffer succeeded; reading it "
			       "next", i ? "PROT_READ | PROT_WRITE" : "PROT_READ");
		if (p != MAP_FAILED) {
			/* the attack: the old driver's kernel dies here */
			guest_touch(p, false);
			munmap((void *)p, PAGE);
			return;
		}
		ASSERT_EQ(EINVAL, errno)
			TH_LOG("mmap(MAP_PRIVATE): %s, not EINVAL", strerror(errno));
	}
	/* the shared mapping still works beside the refusals */
	memset(b.map, 0x3c, PAGE);
	ASSERT_EQ(0x3c, b.map[0]) TH_LOG("the shared mapping reads %#x, not 0x3c", b.map[0]);
	ASSERT_EQ(0x3c, b.map[PAGE - 1]) TH_LOG("the shared mapping reads %#x, not 0x3c", b.map[0]);
	printf("# mmap(MAP_PRIVATE) of a dumb buffer: EINVAL for PROT_READ and "
	       "PROT_READ | PROT_WRITE; MAP_SHARED works\n");
	dumb_destroy(fd, &b);
	close(fd);
}

/*
 * munmap() of a mapping's head moves its start, not the buffer's pages:
 * the pages left must still be the buffer's own at their offsets.
 */
TEST_F(pvmap, drm_mmap_head_unmapped)
{
	struct dumb b;
	uint8_t *map;
	int fd;

	fd = open_card();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dumb_create(fd, 256, 64, &b))	/* 16 pages */
		TH_LOG("CREATE_DUMB: %s", strerror(errno));
	for (uint64_t pg = 0; pg < b.size / PAGE; pg++)
		memset(b.map + pg * PAGE, (int)(0x40 + pg), PAGE);
	munmap(b.map, b.size);
	map = mmap(NULL, b.size, PROT_READ, MAP_SHARED, fd, map_dumb_offset(fd, b.handle));
	b.map = NULL;
	ASSERT_NE(MAP_FAILED, map) TH_LOG("mmap: %s", strerror(errno));
	/* nothing faulted in yet: every page left faults after the head goes */
	munmap(map, 4 * PAGE);
	for (uint64_t pg = 4; pg < b.size / PAGE; pg++) {
		ASSERT_EQ((uint8_t)(0x40 + pg), map[pg * PAGE])
			TH_LOG("page %llu of the buffer reads %#x, page %u's byte",
			       (unsigned long long)pg, map[pg * PAGE], map[pg * PAGE] - 0x40);
	}
	munmap(map + 4 * PAGE, b.size - 4 * PAGE);
	printf("# after munmap() of 4 head pages: the other %llu pages are the "
	       "buffer's own\n", (unsigned long long)(b.size / PAGE - 4));
	dumb_destroy(fd, &b);
	close(fd);
}

/*
 * A fault on a buffer's mapping maps its page and the 15 after it, as TTM's
 * does, within the buffer and the mapping: a first pass over 40 pages takes
 * 3 faults (getrusage's minor faults), not 40, and reads each page's own
 * bytes; a mapping of the buffer's first 20 pages takes 2, the second for
 * its last 4 pages.
 */
TEST_F(pvmap, drm_mmap_fault_around)
{
	struct rusage r0, r1, r2;
	volatile uint8_t *map;
	unsigned int sum = 0;
	uint64_t off, pg;
	struct dumb b;
	int fd;

	fd = open_card();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dumb_create(fd, 1024, 40, &b))	/* 40 pages */
		TH_LOG("CREATE_DUMB: %s", strerror(errno));
	for (pg = 0; pg < 40; pg++)
		memset(b.map + pg * PAGE, (int)(0x40 + pg), PAGE);
	munmap(b.map, b.size);
	b.map = NULL;
	off = map_dumb_offset(fd, b.handle);
	map = mmap(NULL, 40 * PAGE, PROT_READ, MAP_SHARED, fd, off);
	ASSERT_NE(MAP_FAILED, map) TH_LOG("mmap: %s", strerror(errno));
	getrusage(RUSAGE_SELF, &r0);
	for (pg = 0; pg < 40; pg++)
		sum += map[pg * PAGE] == (uint8_t)(0x40 + pg);
	getrusage(RUSAGE_SELF, &r1);
	munmap((void *)map, 40 * PAGE);
	map = mmap(NULL, 20 * PAGE, PROT_READ, MAP_SHARED, fd, off);
	ASSERT_NE(MAP_FAILED, map) TH_LOG("mmap: %s", strerror(errno));
	for (pg = 0; pg < 20; pg++)
		sum += map[pg * PAGE] == (uint8_t)(0x40 + pg);
	getrusage(RUSAGE_SELF, &r2);
	munmap((void *)map, 20 * PAGE);
	printf("# 40 pages read: %ld faults; 20 pages of a 20-page mapping: %ld faults\n",
	       r1.ru_minflt - r0.ru_minflt, r2.ru_minflt - r1.ru_minflt);
	ASSERT_EQ(60, sum) TH_LOG("%u of 60 pages read their own bytes", sum);
	ASSERT_GE(4, r1.ru_minflt - r0.ru_minflt)
		TH_LOG("40 pages took %ld faults: no fault-around", r1.ru_minflt - r0.ru_minflt);
	ASSERT_LE(3, r1.ru_minflt - r0.ru_minflt);
	ASSERT_GE(3, r2.ru_minflt - r1.ru_minflt)
		TH_LOG("a 20-page mapping took %ld faults", r2.ru_minflt - r1.ru_minflt);
	dumb_destroy(fd, &b);
	close(fd);
}

/* A thread that reads pvmap_drm's "pages:" counter over and over, from the clear's CPU. */
struct clear_watch {
	pthread_t thread;
	long long lo, hi;	/* counts strictly inside the clear, not at its ends */
	long long seen;		/* such a count it read, or -1 */
	long long reads;
	int cpu;
	bool started, stop;
};

static void *clear_watch_run(void *arg)
{
	struct clear_watch *w = arg;

	w->cpu = sched_getcpu();
	__atomic_store_n(&w->started, true, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		long long pages = drm_stat("pages: ");

		w->reads++;
		if (w->seen < 0 && pages > w->lo && pages < w->hi)
			w->seen = pages;
	}
	return NULL;
}

/*
 * A 256 MiB buffer's clear at CREATE_DUMB is 65536 pages, 4096 atomic
 * range maps in one loop of the ioctl. A thread of this process on the
 * same CPU (SCHED_OTHER, runnable throughout) reads the counter of pages
 * those maps covered; it must read one from the middle of the clear (from
 * an eighth to seven eighths of it), that is, run while the ioctl runs. On
 * a kernel without preemption (the project's: PREEMPT_NONE; Debian's:
 * voluntary) only the loop's cond_resched() lets it. No speed is asserted.
 */
TEST_F(pvmap, drm_clear_resched)
{
	struct drm_mode_create_dumb c = { .width = 8192, .height = 8192, .bpp = 32 };
	struct drm_mode_destroy_dumb d = { 0 };
	struct clear_watch w = { .seen = -1, .cpu = -1 };
	long long before, after, npages = 8192LL * 8192 * 4 / PAGE;
	struct timespec t0, t1;
	cpu_set_t cpu0;
	int fd, err = 0;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	/* this thread first: the watcher inherits its CPU */
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpu0), &cpu0))
		TH_LOG("sched_setaffinity to CPU 0: %s", strerror(errno));
	fd = open_card();
	ASSERT_LE(0, fd);
	before = drm_stat("pages: ");
	w.lo = before + npages / 8;
	w.hi = before + npages * 7 / 8;
	ASSERT_LE(0, before) TH_LOG("no pages: counter, or no thread: %s", strerror(errno));
	ASSERT_EQ(0, pthread_create(&w.thread, NULL, clear_watch_run, &w))
		TH_LOG("no pages: counter, or no thread: %s", strerror(errno));
	while (!__atomic_load_n(&w.started, __ATOMIC_ACQUIRE))
		sched_yield();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &c))
		err = errno;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	__atomic_store_n(&w.stop, true, __ATOMIC_RELEASE);
	pthread_join(w.thread, NULL);
	after = drm_stat("pages: ");
	if (!err) {
		d.handle = c.handle;
		ioctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d);
	}
	close(fd);
	printf("# CREATE_DUMB 8192x8192 on CPU %d: %s in %.2f s, pages %lld -> %lld; the thread "
	       "on CPU %d read the counter %lld times, ", sched_getcpu(),
	       err ? strerror(err) : "cleared", (double)(t1.tv_sec - t0.tv_sec) +
	       (t1.tv_nsec - t0.tv_nsec) / 1e9, before, after, w.cpu, w.reads);
	if (w.seen < 0)
		printf("never between %lld and %lld\n", w.lo, w.hi);
	else
		printf("once %lld, inside the clear\n", w.seen);
	ASSERT_EQ(0, err) TH_LOG("CREATE_DUMB 8192x8192: %s", strerror(err));
	ASSERT_LE(npages, after - before)
		TH_LOG("the clear covered %lld pages, not %lld", after - before, npages);
	ASSERT_EQ(0, w.cpu) TH_LOG("the thread (CPU %d) and the ioctl (CPU %d) not both on CPU 0",
				   w.cpu, sched_getcpu());
	ASSERT_EQ(0, sched_getcpu())
		TH_LOG("the thread (CPU %d) and the ioctl (CPU %d) not both on CPU 0", w.cpu,
		       sched_getcpu());
	ASSERT_LE(0, w.seen)
		TH_LOG("a runnable thread on the clear's CPU never ran during its %lld pages",
		       npages);
}

TEST_HARNESS_MAIN
