// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-tests: maps from interrupt context, and the soak (make soak).
 * A feature program of pvmap-tests (feature_list.h).
 */
#include "pvmap-tests.h"

/* --- soak ------------------------------------------------------------------------ */

#define SOAK_REGION	(8 * MIB)

#define SOAK_KERNEL	(64 * MIB)	/* the top of the aperture: in-kernel map stress */

#define SOAK_IRQ_REGION	MIB		/* just below it: maps from interrupt context */

struct soak_totals {
	unsigned long long ops, bytes, verified, mismatches, errors;
};

static uint32_t xs(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/*
 * One worker, pinned to @cpu, owns [off, off + SOAK_REGION) whose contents
 * always equal the pattern (@seed): it rewrites random pieces (PWRITE, or
 * memcpy through an mmap), reads random pieces back (PREAD) and compares,
 * and drives in-kernel range and sleepable maps in the shared top window.
 */
static void soak_worker(int fd, int cpu, uint64_t off, uint64_t seed, uint64_t kbase,
			uint64_t ksize, time_t deadline, const volatile int *stop, int out)
{
	static const char *const kernel_ops[] = {
		"range16", "rangemax", "sleepable4k", "sleepable64k", "sleepable1m", "nested",
	};
	static uint8_t want[SOAK_REGION], got[256 * 1024];
	struct soak_totals t = { 0 };
	uint32_t x = (uint32_t)seed | 1;
	struct pvmap_test_api req;

	pin_cpu(cpu);
	pvmap_pattern_fill(want, SOAK_REGION, seed, off);
	while (time(NULL) < deadline && !*stop) {
		uint32_t r = xs(&x);
		uint64_t len = 1 + xs(&x) % sizeof(got);
		uint64_t at = xs(&x) % (SOAK_REGION - len);
		uint64_t done = 0;

		switch (r % 8) {
		case 0: case 1: case 2:
			t.errors += guest_rw(fd, true, off + at, want + at, len, &done) ||
				    done != len;
			t.bytes += len;
			break;
		case 3: case 4: case 5:
			if (guest_rw(fd, false, off + at, got, len, &done) || done != len) {
				t.errors++;
				break;
			}
			t.verified += len;
			t.mismatches += memcmp(got, want + at, len) != 0;
			break;
		case 6: {
			uint64_t page = at & ~(PAGE - 1), maplen = (len + PAGE - 1) & ~(PAGE - 1);
			uint8_t *p = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
					  off + page);

			if (p == MAP_FAILED) {
				t.errors++;
				break;
			}
			memcpy(p, want + page, maplen);
			t.mismatches += memcmp(p, want + page, maplen) != 0;
			t.bytes += maplen;
			t.verified += maplen;
			munmap(p, maplen);
			break;
		}
		default:
			memset(&req, 0, sizeof(req));
			strcpy(req.name, kernel_ops[r % 6 == 0 ? 0 : xs(&x) % 6]);
			if (guest_test(PVMAP_TEST_API, &req, kbase, ksize) ||
			    req.h.status != PVMAP_TEST_PASS) {
				printf("# soak cpu %d: %s\n", cpu, req.h.msg);
				t.errors++;
			}
			break;
		}
		t.ops++;
	}
	_exit(write(out, &t, sizeof(t)) == sizeof(t) ? 0 : 1);
}

/*
 * How long the interrupt maps may take: far more than any host needs (a
 * loaded 2-core host runs 4 vCPUs' 2000 maps in seconds), so that only a
 * CPU whose interrupts stopped mapping fails, never a slow host.
 */
#define IRQ_LOAD_BOUND_S	600

/*
 * Two workers per vCPU mix every path for @seconds; with @irq_maps,
 * pvmap_test maps from hardirq and softirq context on every vCPU at the
 * same time (irq_load), in a region of its own just below the top window,
 * until each vCPU has made @irq_maps of each kind, and the workers run
 * until then instead. The host checks every region.
 */
static int soak_run(long seconds, uint64_t irq_maps)
{
	bool irq = irq_maps;
	struct soak_totals sum = { 0 };
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), workers, fd, p[2], ret = 0;
	uint64_t usable, seed[8], off[8], irq_seed = random_u64();
	struct pvmap_stats st;
	volatile int *stop;
	time_t deadline;
	struct device *d;
	pid_t pid[8];

	/* shared with the workers: the interrupt maps are done */
	stop = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stop == MAP_FAILED)
		return fail("mmap: %s", strerror(errno));
	*stop = 0;
	fd = open_ivshmem(&d);
	if (fd < 0 || pipe(p))
		return -1;
	workers = 2 * ncpu > 8 ? 8 : 2 * ncpu;
	usable = d->info.aperture_size - SOAK_KERNEL;
	/* released slots may be another worker's again at once: see pvmap_test's shared */
	guest_test_unload();
	if (guest_test_load("shared=1"))
		return fail("cannot load pvmap_test shared=1");
	for (int i = 0; i < workers; i++) {
		uint8_t *fill = malloc(SOAK_REGION);
		uint64_t done;

		seed[i] = random_u64();
		off[i] = (usable / workers) * i / MIB * MIB;
		if (!fill)
			return fail("out of memory");
		pvmap_pattern_fill(fill, SOAK_REGION, seed[i], off[i]);
		if (guest_rw(fd, true, off[i], fill, SOAK_REGION, &done) || done != SOAK_REGION)
			return fail("cannot fill region %d", i);
		free(fill);
	}
	if (irq && pwrite_pattern(fd, usable - SOAK_IRQ_REGION, SOAK_IRQ_REGION, irq_seed, false))
		return -1;
	deadline = time(NULL) + (irq ? IRQ_LOAD_BOUND_S : seconds);
	fflush(stdout);
	for (int i = 0; i < workers; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			/* each its own slice of the top window: no two write the same page */
			soak_worker(fd, i % ncpu, off[i], seed[i],
				    d->info.aperture_base + usable + i * (SOAK_KERNEL / workers),
				    SOAK_KERNEL / workers, deadline, stop, p[1]);
	}
	if (irq) {
		struct pvmap_test_irq_load req = {
			.offset = usable - SOAK_IRQ_REGION, .npages = SOAK_IRQ_REGION / PAGE,
			.maps = irq_maps, .msecs = IRQ_LOAD_BOUND_S * 1000, .seed = irq_seed,
		};

		if (guest_test(PVMAP_TEST_IRQ_LOAD, &req, d->info.aperture_base,
			       d->info.aperture_size) || req.h.status != PVMAP_TEST_PASS) {
			ret = fail("irq_load: %s", req.h.msg);
		} else {
			/* the time is the guest's, for the log: make bench measures rates */
			printf("# irq_load: %u CPUs, %llu maps of each kind asked of each: "
			       "hardirq=%llu softirq=%llu (the fewest of a CPU: %llu, %llu) "
			       "wrong=%llu refused=%llu, in %llu ms\n", req.cpus,
			       (unsigned long long)irq_maps, (unsigned long long)req.hardirq,
			       (unsigned long long)req.softirq,
			       (unsigned long long)req.hardirq_min,
			       (unsigned long long)req.softirq_min, (unsigned long long)req.wrong,
			       (unsigned long long)req.refused, (unsigned long long)req.msecs);
		}
		*stop = 1;
	}
	for (int i = 0; i < workers; i++) {
		struct soak_totals t;

		if (read(p[0], &t, sizeof(t)) != sizeof(t)) {
			sum.errors++;
			continue;
		}
		sum.ops += t.ops;
		sum.bytes += t.bytes;
		sum.verified += t.verified;
		sum.mismatches += t.mismatches;
		sum.errors += t.errors;
	}
	for (int i = 0; i < workers; i++) {
		waitpid(pid[i], NULL, 0);
		printf("# pvmap-host: pattern off=%#llx len=%#llx seed=%#llx\n",
		       (unsigned long long)off[i], (unsigned long long)SOAK_REGION,
		       (unsigned long long)seed[i]);
	}
	if (irq)
		printf("# pvmap-host: pattern off=%#llx len=%#llx seed=%#llx\n",
		       (unsigned long long)(usable - SOAK_IRQ_REGION),
		       (unsigned long long)SOAK_IRQ_REGION, (unsigned long long)irq_seed);
	if (read_stats(fd, &st))
		ret = fail("STATS: %s", strerror(errno));
	for (unsigned int c = 0; c < st.nr_cpus && c < PVMAP_STATS_MAX_CPUS; c++)
		if (st.live_slots[c])
			ret = fail("%u atomic slots still live on CPU %u", st.live_slots[c], c);
	close(p[0]);
	close(p[1]);
	close(fd);
	guest_test_unload();
	munmap((void *)stop, PAGE);
	printf("# soak: %d workers on %d vCPUs%s: %llu operations, %llu bytes written, "
	       "%llu bytes read back and compared, %llu mismatches, %llu errors; the host checks "
	       "%llu bytes\n", workers, ncpu, irq ? " while interrupts mapped" : "", sum.ops,
	       sum.bytes, sum.verified,
	       sum.mismatches, sum.errors,
	       (unsigned long long)workers * SOAK_REGION + (irq ? SOAK_IRQ_REGION : 0));
	if (!guest_host_sync("pattern"))
		return fail("host did not check the regions");
	return sum.mismatches || sum.errors ? -1 : ret;
}

/*
 * Atomic maps from hardirq and softirq context (per-CPU hrtimers, tasklets)
 * on every vCPU, while tasks PWRITE, PREAD, mmap and map in the kernel
 * (nested and range maps), until every vCPU has made pvtest.irqload maps
 * (default 2000; make check-full asks 60000) in each context: every byte
 * either side wrote is checked, and no slot stays live. A count, not a
 * rate: the verdict is the same on a loaded host and on any clocksource
 * (make bench measures speed). Where maps point into a whole-aperture
 * mapping there are no slots for an interrupt to share.
 */
TEST_F(pvmap, atomic_map_in_irq)
{
	char arg[32] = "2000";
	struct device *d;
	long maps;

	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	ASSERT_NE(NULL, d) TH_LOG("no ivshmem aperture");
	if (!(d->info.flags & PVMAP_INFO_F_CLEARS_ON_UNMAP))
		SKIP(return, "whole-aperture mapping: no slots to share with interrupts");
	guest_cmdline_get("irqload", arg, sizeof(arg));
	maps = strtol(arg, NULL, 0);
	ASSERT_LT(0, maps) TH_LOG("pvtest.irqload=%s: a number of maps", arg);
	ASSERT_EQ(0, soak_run(0, maps));
}

/* pvtest.soak=SECONDS: every vCPU mixes every path; the host checks every region. */
TEST_F(pvmap, soak)
{
	char arg[32];

	if (!guest_cmdline_get("soak", arg, sizeof(arg)))
		SKIP(return, "only in make soak (pvtest.soak=SECONDS)");
	ASSERT_EQ(0, soak_run(strtol(arg, NULL, 0), 0));
}

TEST_HARNESS_MAIN
