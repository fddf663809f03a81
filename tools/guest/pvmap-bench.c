// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-bench: the guest half of `make bench`. Runs every engine on every
 * workload, interleaved (run 1: each engine once, run 2: each again, ...),
 * on 1, 2 and 4 vCPUs (as many as the guest has), and prints one JSON line
 * per measurement:
 *   # pvmap-bench: {"run":.., "workload":.., "engine":.., "cpus":.., "seed":..,
 *                   "iters":.., "wall_ns":.., "ns":.., "bytes":.., "ops":..,
 *                   "tlb":.., "cal":.., "ok":..}
 * ns is the kernel's own timing of the loop (the slowest CPU), wall_ns the
 * time seen from user space; tlb and cal count TLB-shootdown and
 * function-call IPIs during the measurement.
 *
 * A bench verifies before it ranks: every measurement writes a pattern of
 * its own (seed), and before the next one overwrites anything the host
 * checks in the ivshmem backing file that each page written holds it
 * (handshake "bench-verify"; tools/host/pvmaplib/benchcheck.py). Then, per
 * engine, how many unmaps leave a usable translation behind ("stale"
 * lines). tools/host/bench-report turns it all into the table, the JSON and the
 * plot. pvtest.bench=smoke: one short run, to prove the bench works (make
 * check). pvtest.bench=drm and drm-smoke: pvmap_drm's frame uploads (see
 * drm_bench()). pvtest.bench=pv and pv-smoke: pvmap natively against pvmap
 * through pvmap-hv (pv_bench()).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include "guest.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <uapi/pvmap.h>
#include <uapi/pvmap_test.h>

#include <uapi/pvmap_pattern.h>

#define MIB		(1ULL << 20)
#define WINDOW		(64ULL << 20)	/* the permanent mapping's size */
#define PERIOD		(64 * 1024)	/* the pattern repeats every 64 KiB */
#define MAX_CPUS	4
#define STALE_PROBES	200

/* pvmap_bench.ko's engines and workloads (include/uapi/pvmap_test.h), by name */
static const char *const engines[] = {
	[PVMAP_BENCH_PVMAP] = "pvmap", [PVMAP_BENCH_PVMAP_RANGE] = "pvmap_range",
	[PVMAP_BENCH_MAINLINE_LOCAL] = "mainline_local",
	[PVMAP_BENCH_MAINLINE_ATOMIC] = "mainline_atomic", [PVMAP_BENCH_IOREMAP] = "ioremap",
	[PVMAP_BENCH_PERMANENT] = "permanent", [PVMAP_BENCH_PTE_FLOOR] = "pte_floor",
	/* mainline_local's semantics: preemptible where meta's local_preemptible says so */
	[PVMAP_BENCH_PVMAP_LOCAL] = "pvmap_local",
	/* pte_floor through the slot core's fast-path writes: bare PTE write and invlpg */
	[PVMAP_BENCH_PTE_BARE] = "pte_bare",
};
#define NR_ENGINES	(sizeof(engines) / sizeof(engines[0]))
static const struct {
	const char *name;
	unsigned int iters;
} workloads[] = {
	[PVMAP_BENCH_PAGE] = { "page", 4000 }, [PVMAP_BENCH_RANGE16] = { "range16", 400 },
	[PVMAP_BENCH_SEQ1M] = { "seq1m", 16 }, [PVMAP_BENCH_RAND4K] = { "rand4k", 4000 },
	/* blocks of 32 pages, engine against the permanent window (1 vCPU only) */
	[PVMAP_BENCH_OVERHEAD] = { "overhead", 4096 },
};
#define NR_WORKLOADS	(sizeof(workloads) / sizeof(workloads[0]))
static const char *const user_engines[] = { "pvmap_pwrite", "user_mmap" };
/* engines with an unmap, whose stale translations are counted */
static const char *const stale_engines[] = {
	"pvmap", "pvmap_range", "pvmap_local", "mainline_local", "mainline_atomic", "ioremap",
};
static const struct {
	const char *name;
	unsigned int iters;
} user_workloads[] = { { "user_seq1m", 8 }, { "user_rand4k", 2000 } };

static struct pvmap_info info;
/* pvtest.bench=pv: appended to the engine's name in result lines ("+pv": through pvmap-hv) */
static const char *engine_mode = "";
static int devfd;
static uint8_t *umap;		/* the first WINDOW of the aperture, mmapped */
static uint8_t buf[MIB + PERIOD];

/* A child's result: one write() each, so two children's never interleave. */
struct result {
	int rc;
	unsigned int ops;
	unsigned long long ns, bytes;
	long long overhead_ps;	/* the overhead workload's: per page, picoseconds */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long long irq_row(const char *row)
{
	static char text[32768];
	char *p, *end;
	long long sum = 0;

	if (guest_read_file("/proc/interrupts", text, sizeof(text)) < 0 || !(p = strstr(text, row)))
		return -1;
	for (p += strlen(row);; p = end) {
		long long v = strtoll(p, &end, 10);

		if (end == p)
			break;
		sum += v;
	}
	return sum;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static uint32_t rnd(uint32_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

/* A pass's own seed: FNV-1a of its name, so no two passes write the same bytes. */
static uint32_t pass_seed(int run, const char *workload, const char *engine, int cpus)
{
	char name[96];
	uint32_t h = 2166136261u;

	snprintf(name, sizeof(name), "%d/%s/%s/%d", run, workload, engine, cpus);
	for (const char *p = name; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	return h;
}

/* buf: the pass's pattern for offsets 0..PERIOD-1, repeated (see measure()). */
static void fill_user_pattern(uint32_t seed)
{
	pvmap_pattern_fill(buf, PERIOD, seed, 0);
	for (size_t i = PERIOD; i < sizeof(buf); i += PERIOD)
		memcpy(buf + i, buf, PERIOD);
}

/* pte_floor or pte_bare: a reference for the overhead workload, not a way to map. */
static bool floor_engine(const char *name)
{
	return !strcmp(name, "pte_floor") || !strcmp(name, "pte_bare");
}

/* pvmap_bench.ko's number of engine @name, or -1. */
static int kernel_engine(const char *name)
{
	for (unsigned int e = 0; e < NR_ENGINES; e++)
		if (!strcmp(engines[e], name))
			return e;
	return -1;
}

/* One measurement through pvmap_bench.ko: 0, 1 (skipped) or -1. */
static int measure_kernel(const char *engine, const char *workload, unsigned int iters,
			  uint32_t seed, struct pvmap_bench_run *req)
{
	req->engine = kernel_engine(engine);
	req->iters = iters;
	req->seed = seed;
	for (req->workload = 0; req->workload < NR_WORKLOADS; req->workload++)
		if (!strcmp(workloads[req->workload].name, workload))
			break;
	if (guest_test(PVMAP_BENCH_RUN, req, info.aperture_base, info.aperture_size) ||
	    req->h.status == PVMAP_TEST_FAIL) {
		printf("# bench %s %s: %s\n", engine, workload, req->h.msg);
		return -1;
	}
	return req->h.status == PVMAP_TEST_SKIP;
}

/* One measurement on the calling CPU: 0 and ns/bytes/ops, or -1. */
static int measure(const char *engine, const char *workload, unsigned int iters, uint32_t seed,
		   unsigned long long *ns, unsigned long long *bytes, unsigned int *ops,
		   long long *overhead_ps)
{
	uint32_t state = seed | 1;	/* the kernel's rand4k sequence, on every CPU */

	if (strncmp(workload, "user_", 5)) {
		struct pvmap_bench_run req;
		int ret = measure_kernel(engine, workload, iters, seed, &req);

		*ns = req.ns;
		*bytes = req.bytes;
		*ops = req.ops;
		*overhead_ps = req.overhead_ps;
		return ret;
	}
	uint64_t t0 = now_ns(), size = info.aperture_size;
	*bytes = 0;
	*ops = 0;
	for (unsigned int i = 0; i < iters; i++) {
		bool seq = !strcmp(workload, "user_seq1m");
		uint64_t len = seq ? MIB : 4096;
		uint64_t span = !strcmp(engine, "user_mmap") ? WINDOW : size;
		uint64_t off = seq ? (i * MIB) % span : (uint64_t)(rnd(&state) % (span / 4096)) * 4096;
		/* buf repeats the pattern every PERIOD: the bytes for offset @off */
		uint8_t *src = buf + (off & (PERIOD - 1));

		if (!strcmp(engine, "user_mmap")) {
			memcpy(umap + off, src, len);
		} else {
			uint64_t done;

			if (guest_rw(devfd, true, off, src, len, &done) || done != len)
				return -1;
		}
		*bytes += len;
		(*ops)++;
	}
	*ns = now_ns() - t0;
	return 0;
}

/* @cpus processes, pinned one per CPU, measure at once; print one line. */
static int run_one(int run, const char *engine, const char *workload, unsigned int iters,
		   int cpus)
{
	unsigned long long ns = 0, bytes = 0, t0, wall;
	long long tlb0, cal0, overhead_ps = LLONG_MIN;
	char extra[48] = "";
	unsigned int ops = 0;
	int go[2], back[2], skipped = 0, failed = 0;
	uint32_t seed = pass_seed(run, workload, engine, cpus);
	pid_t pid[MAX_CPUS];
	char c;

	if (pipe(go) || pipe(back))
		return -1;
	if (!strncmp(workload, "user_", 5))
		fill_user_pattern(seed);
	fflush(stdout);
	for (int i = 0; i < cpus; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			struct result res = { 0 };

			pin(i);
			c = 'r';
			if (write(back[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
				_exit(2);
			res.overhead_ps = LLONG_MIN;
			res.rc = measure(engine, workload, iters, seed, &res.ns, &res.bytes, &res.ops,
					 &res.overhead_ps);
			_exit(write(back[1], &res, sizeof(res)) == sizeof(res) ? 0 : 2);
		}
	}
	for (int i = 0; i < cpus; i++)
		if (read(back[0], &c, 1) != 1)
			failed = 1;
	tlb0 = irq_row("TLB:");
	cal0 = irq_row("CAL:");
	t0 = now_ns();
	if (cpus < 1 || cpus > MAX_CPUS || write(go[1], "gggg", (size_t)cpus) != cpus)
		failed = 1;
	for (int i = 0; i < cpus; i++) {
		struct result res;

		if (read(back[0], &res, sizeof(res)) != sizeof(res)) {
			failed = 1;
			continue;
		}
		skipped |= res.rc == 1;
		failed |= res.rc < 0;
		ns = res.ns > ns ? res.ns : ns;
		if (res.overhead_ps != LLONG_MIN)
			overhead_ps = res.overhead_ps;
		bytes += res.bytes;
		ops += res.ops;
	}
	wall = now_ns() - t0;
	/* counted before the children exit: tearing down their mm sends IPIs of its own */
	tlb0 = irq_row("TLB:") - tlb0;
	cal0 = irq_row("CAL:") - cal0;
	for (int i = 0; i < cpus; i++)
		waitpid(pid[i], NULL, 0);
	close(go[0]);
	close(go[1]);
	close(back[0]);
	close(back[1]);
	if (skipped)
		return 0;
	/* the host checks this pass's pages before the next pass writes any */
	printf("# pvmap-host: bench-verify {\"run\": %d, \"workload\": \"%s\", \"engine\": \"%s%s\", "
	       "\"cpus\": %d, \"seed\": %u, \"iters\": %u, \"aperture\": %llu, \"window\": %llu}\n",
	       run, workload, engine, engine_mode, cpus, seed, iters, (unsigned long long)info.aperture_size,
	       WINDOW);
	if (!guest_host_sync("bench-verify"))
		failed = 1;
	if (overhead_ps != LLONG_MIN)
		snprintf(extra, sizeof(extra), ", \"overhead_ps\": %lld", overhead_ps);
	printf("# pvmap-bench: {\"run\": %d, \"workload\": \"%s\", \"engine\": \"%s%s\", \"cpus\": %d, "
	       "\"seed\": %u, \"iters\": %u, \"wall_ns\": %llu, \"ns\": %llu, \"bytes\": %llu, "
	       "\"ops\": %u, \"tlb\": %lld, \"cal\": %lld, \"ok\": %s%s}\n", run, workload, engine,
	       engine_mode, cpus, seed, iters, wall, ns, bytes, ops, tlb0, cal0, failed ? "false" : "true", extra);
	return failed ? -1 : 0;
}

/* One unreported pass of @engine's @workload on each of @cpus CPUs. */
static void warm_up(const char *engine, const char *workload, unsigned int iters, int cpus)
{
	unsigned long long ns, bytes;
	long long ovh;
	unsigned int ops;

	if (!strcmp(workload, "overhead") && iters < 128)
		iters = 128;	/* its minimum: 4 blocks */
	for (int i = 0; i < cpus; i++) {
		pin(i);
		measure(engine, workload, iters, 1, &ns, &bytes, &ops, &ovh);
	}
	pin(0);
}

/*
 * Before each block of measurements: let the last block's processes finish
 * exiting, then one unreported page pass of every engine on every CPU, so
 * that whichever engine comes first does not pay for the others' aftermath.
 */
static void settle(int cpus, int div)
{
	usleep(200000);
	for (unsigned int e = 0; e < NR_ENGINES; e++)
		warm_up(engines[e], "page", workloads[0].iters / div / 4 + 1, cpus);
}

/* Per engine: how many of STALE_PROBES unmaps leave a usable translation. */
static int count_stale(int div)
{
	int failed = 0;

	for (unsigned int e = 0; e < sizeof(stale_engines) / sizeof(stale_engines[0]); e++) {
		struct pvmap_bench_probe req = {
			.engine = kernel_engine(stale_engines[e]), .count = STALE_PROBES / div,
		};

		if (guest_test(PVMAP_BENCH_STALE, &req, info.aperture_base, info.aperture_size) ||
		    req.h.status == PVMAP_TEST_FAIL) {
			printf("# bench stale %s: %s\n", stale_engines[e], req.h.msg);
			failed = 1;
			continue;
		}
		if (req.h.status == PVMAP_TEST_SKIP)
			continue;
		printf("# pvmap-bench: {\"stale\": \"%s\", \"probes\": %u, \"usable\": %u}\n",
		       stale_engines[e], req.probes, req.usable);
	}
	return failed;
}

/* The kernel, CPU and PAT state the figures come from, for results.json. */
static void print_meta(const char *mode, int runs, int ncpus)
{
	char flag[8] = "", cpuinfo[8192] = "", model[96] = "?", fac[256] = "?", *p;
	struct pvmap_test_facilities req;
	struct utsname uts;

	uname(&uts);
	guest_read_file("/sys/module/pvmap/parameters/hygiene", flag, sizeof(flag));
	if (guest_read_file("/proc/cpuinfo", cpuinfo, sizeof(cpuinfo)) > 0 &&
	    (p = strstr(cpuinfo, "model name"))) {
		p = strchr(p, ':');
		if (p && sscanf(p + 1, " %95[^\n]", model) != 1)
			strcpy(model, "?");
	}
	if (!guest_test(PVMAP_TEST_FACILITIES, &req, info.aperture_base, info.aperture_size))
		guest_facilities_text(&req, fac, sizeof(fac));
	/*
	 * local_preemptible: pvmap_local's maps leave preemption on (preempt
	 * notifiers, or x86_64's whole aperture); false: each is an atomic map.
	 */
	printf("# pvmap-bench: {\"mode\": \"%s\", \"clears_on_unmap\": %s, \"write_combining\": %s, "
	       "\"local_preemptible\": %s, "
	       "\"hygiene\": \"%c\", \"aperture\": %llu, \"runs\": %d, \"vcpus\": %d, "
	       "\"release\": \"%s\", \"machine\": \"%s\", \"cpu_model\": \"%s\", "
	       "\"facilities\": \"%s\", \"clock\": \"%s\"}\n",
	       mode, info.flags & PVMAP_INFO_F_CLEARS_ON_UNMAP ? "true" : "false",
	       info.flags & PVMAP_INFO_F_WRITE_COMBINING ? "true" : "false",
	       info.flags & PVMAP_INFO_F_LOCAL_PREEMPTIBLE ? "true" : "false", flag[0] ? flag[0] : '?',
	       (unsigned long long)info.aperture_size, runs, ncpus, uts.release, uts.machine, model,
	       /* run-guest --icount: every "ns" is then a count of guest instructions */
	       fac, guest_clock_is_icount() ? "icount" : "time");
}

/* pvmap.ko again, with pv=@pv; /dev/pvmap0 reopened. */
static int reload_pvmap(int pv)
{
	char params[16];

	if (devfd >= 0)
		close(devfd);
	devfd = -1;
	guest_test_unload();
	if (guest_unload_module("pvmap"))
		return -1;
	snprintf(params, sizeof(params), "pv=%d", pv);
	if (guest_load_module(GUEST_MODULE_PATH, params))
		return -1;
	devfd = open("/dev/pvmap0", O_RDWR | O_CLOEXEC);
	return devfd < 0 || ioctl(devfd, PVMAP_IOC_INFO, &info) ? -1 : 0;
}

/*
 * pvtest.bench=pv (pv-smoke: one short run), in a guest run against
 * pvmap-hv: pvmap natively (pv=0) and through the hypervisor (pv=1),
 * side by side in each run (the module reloaded in between, the order
 * turning), on the page and range16 workloads on one vCPU, every pass's
 * bytes checked by the host; around each hypervisor pass the host counts
 * pvmap-hv's calls ("# pvmap-hv-bench:" lines). Then the channel's round
 * trip from pvmap_test's PVMAP_TEST_PV_PING.
 */
static int pv_bench(int runs, int div)
{
	static const struct {
		const char *engine, *workload;
		unsigned int pages;	/* per operation */
	} cells[] = { { "pvmap", "page", 1 }, { "pvmap_range", "range16", 16 } };
	struct pvmap_test_ping ping;
	int failed = 0;

	for (int run = 1; run <= runs && !failed; run++) {
		printf("pvmap-bench: pv run %d of %d\n", run, runs);
		for (int m = 0; m < 2 && !failed; m++) {
			int pv = (m + run) % 2;

			if (reload_pvmap(pv)) {
				printf("# pvmap-bench: cannot reload pvmap.ko with pv=%d\n", pv);
				return 1;
			}
			engine_mode = pv ? "+pv" : "";
			for (unsigned int c = 0; c < 2; c++) {
				unsigned int iters = (c ? 400 : 4000) / div + 1;

				warm_up(cells[c].engine, cells[c].workload, iters / 4 + 1, 1);
				if (pv && !guest_host_sync("pv-counts"))
					failed = 1;
				failed |= run_one(run, cells[c].engine, cells[c].workload, iters, 1) != 0;
				if (!pv)
					continue;
				printf("# pvmap-host: pv-bench run=%d workload=%s engine=%s+pv pages=%u\n",
				       run, cells[c].workload, cells[c].engine, iters * cells[c].pages);
				if (!guest_host_sync("pv-bench"))
					failed = 1;
			}
		}
	}
	engine_mode = "";
	if (!failed && reload_pvmap(1))
		failed = 1;
	if (!failed && (guest_test(PVMAP_TEST_PV_PING, &ping, info.aperture_base,
				   info.aperture_size) || ping.h.status != PVMAP_TEST_PASS)) {
		printf("# pv_ping: %s\n", ping.h.msg);
		failed = 1;
	}
	if (!failed)
		printf("# pvmap-bench: {\"pv_ping\": %llu, \"median_ns\": %lld, \"min_ns\": %lld, "
		       "\"max_ns\": %lld}\n", (unsigned long long)ping.n, (long long)ping.median_ns,
		       (long long)ping.min_ns, (long long)ping.max_ns);
	printf("pvmap-bench: %s\n", failed ? "FAILED" : "done");
	return failed;
}

/*
 * pvtest.bench=drm (drm-smoke: one short run), in a guest whose secondary-vga
 * pvmap_drm drives: full-screen frame uploads per second through each of
 * pvmap_drm's copy engines (and user-space mmap writes), pvmap-drmfps run
 * for each in turn, the order turning from run to run. pvmap-drmfps reads
 * every frame back and hands its last one to the host, which compares its
 * screendump with it ("# pvmap-drm-verify:" lines, tools/host/run-guest).
 */
static int drm_bench(int runs, int frames)
{
	static const char *const passes[][2] = {
		{ "kernel", "pvmap" }, { "kernel", "ioremap_page" },
		{ "kernel", "ioremap_whole" }, { "mmap", "pvmap" },
	};
	const int n = sizeof(passes) / sizeof(passes[0]);
	char count[16];
	int failed = 0, ret;

	ret = guest_load_drm("");
	if (ret) {
		printf("pvmap-bench: cannot load pvmap_drm: %s\n", strerror(-ret));
		return 1;
	}
	snprintf(count, sizeof(count), "%d", frames);
	for (int run = 1; run <= runs; run++) {
		printf("pvmap-bench: drm run %d of %d\n", run, runs);
		for (int i = 0; i < n; i++) {
			const char *const *p = passes[(i + run - 1) % n];
			char *argv[] = { "/bin/pvmap-drmfps", "--frames", count, "--upload",
					 (char *)p[0], "--engine", (char *)p[1], "--handoff", NULL };

			if (guest_run(argv)) {
				printf("pvmap-bench: pvmap-drmfps --upload %s --engine %s failed\n",
				       p[0], p[1]);
				failed = 1;
			}
		}
	}
	printf("pvmap-bench: %s\n", failed ? "FAILED" : "done");
	return failed;
}

int main(void)
{
	static const int cpu_counts[] = { 1, 2, 4 };
	char mode[16] = "full";
	int runs, div, ncpus, failed = 0;

	/*
	 * Results are JSON lines on the serial console, which the kernel's own
	 * messages share: init forwards those as whole lines (tools/guest/init.c),
	 * so none lands in the middle of a result.
	 */
	setvbuf(stdout, NULL, _IOLBF, 0);
	guest_cmdline_get("bench", mode, sizeof(mode));
	/*
	 * 7 runs: an odd number, and the median shrugs off a burst in up to 3.
	 * Counted in instructions (run-guest --icount) a run repeats: 2 show it.
	 */
	runs = strstr(mode, "smoke") ? 1 : guest_clock_is_icount() ? 2 : 7;
	div = runs > 1 ? 1 : 40;
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	devfd = open("/dev/pvmap0", O_RDWR | O_CLOEXEC);
	if (devfd < 0 || ioctl(devfd, PVMAP_IOC_INFO, &info) || info.kind != PVMAP_KIND_IVSHMEM) {
		printf("pvmap-bench: /dev/pvmap0 is not an ivshmem aperture\n");
		return 1;
	}
	umap = mmap(NULL, WINDOW, PROT_READ | PROT_WRITE, MAP_SHARED, devfd, 0);
	if (umap == MAP_FAILED) {
		printf("pvmap-bench: mmap: %s\n", strerror(errno));
		return 1;
	}
	print_meta(mode, runs, ncpus);
	if (!strncmp(mode, "drm", 3)) {
		munmap(umap, WINDOW);
		return drm_bench(runs, runs > 1 ? 20 : 3);
	}
	if (!strncmp(mode, "pv", 2)) {
		munmap(umap, WINDOW);
		return pv_bench(runs, div);
	}

	/* The trace of one 1 MiB PWRITE, for the hypercall figures. */
	if (guest_capture_trace(devfd, info.aperture_size, 0) < 0)
		failed = 1;
	failed |= count_stale(div);

	for (int run = 1; run <= runs; run++) {
		printf("pvmap-bench: run %d of %d\n", run, runs);
		for (unsigned int c = 0; c < sizeof(cpu_counts) / sizeof(cpu_counts[0]); c++) {
			int cpus = cpu_counts[c];

			if (cpus > ncpus)
				continue;
			settle(cpus, div);
			/*
			 * The engines' order turns from run to run, so that none
			 * is always first; and each workload starts with an
			 * unreported pass of its first engine: the first cell
			 * after a change of workload measured up to 4x slower
			 * than the same engine later in the block.
			 */
			for (unsigned int w = 0; w < sizeof(workloads) / sizeof(workloads[0]); w++) {
				const char *list[NR_ENGINES];
				unsigned int n = 0;

				/*
				 * pte_floor and pte_bare, the least a
				 * clear-on-unmap map can cost, are references
				 * for the overhead workload only.
				 */
				for (unsigned int e = 0; e < NR_ENGINES; e++)
					if (strcmp(workloads[w].name, "overhead") ?
					    !floor_engine(engines[e]) :
					    cpus == 1 && strcmp(engines[e], "permanent"))
						list[n++] = engines[e];
				if (!n)
					continue;
				warm_up(list[(run - 1) % n], workloads[w].name,
					workloads[w].iters / div / 4 + 1, cpus);
				for (unsigned int i = 0; i < n; i++)
					failed |= run_one(run, list[(i + run - 1) % n],
							  workloads[w].name,
							  workloads[w].iters / div + 1, cpus) != 0;
			}
			for (unsigned int w = 0; w < sizeof(user_workloads) / sizeof(user_workloads[0]);
			     w++)
				for (unsigned int e = 0; e < 2; e++)
					failed |= run_one(run, user_engines[e], user_workloads[w].name,
							  user_workloads[w].iters / div + 1, cpus) != 0;
		}
	}
	munmap(umap, WINDOW);
	close(devfd);
	printf("pvmap-bench: %s\n", failed ? "FAILED" : "done");
	return failed;
}
