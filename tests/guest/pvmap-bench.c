// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-bench: the guest half of `make bench`. Runs every engine on every
 * workload, interleaved (run 1: each engine once, run 2: each again, ...),
 * on 1 and on 2 vCPUs, and prints one JSON line per measurement:
 *   # pvmap-bench: {"run":.., "workload":.., "engine":.., "cpus":.., "wall_ns":..,
 *                   "ns":.., "bytes":.., "ops":.., "tlb":.., "cal":..}
 * ns is the kernel's own timing of the loop (the slowest CPU), wall_ns the
 * time seen from user space; tlb and cal count TLB-shootdown and
 * function-call IPIs during the measurement. tools/bench-report turns the
 * lines into the table, the JSON and the plot. pvtest.bench=smoke: one short
 * run, to prove the bench works (make check).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include "guest.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <uapi/pvmap.h>

#define MIB		(1ULL << 20)
#define WINDOW		(64ULL << 20)	/* the permanent mapping's size */

static const char *const engines[] = {
	"pvmap", "pvmap_range", "mainline_local", "mainline_atomic", "ioremap", "permanent",
};
static const struct {
	const char *name;
	unsigned int iters;
} workloads[] = {
	{ "page", 2000 }, { "range16", 200 }, { "seq1m", 8 }, { "rand4k", 2000 },
};
static const char *const user_engines[] = { "pvmap_pwrite", "user_mmap" };
static const struct {
	const char *name;
	unsigned int iters;
} user_workloads[] = { { "user_seq1m", 8 }, { "user_rand4k", 2000 } };

static struct pvmap_info info;
static int devfd;
static uint8_t *umap;		/* the first WINDOW of the aperture, mmapped */
static uint8_t buf[MIB];

/* A child's result: one write() each, so two children's never interleave. */
struct result {
	int rc;
	unsigned int ops;
	unsigned long long ns, bytes;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long long irq_row(const char *row)
{
	char text[8192], *p, *end;
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

/* One measurement on the calling CPU: 0 and ns/bytes/ops, or -1. */
static int measure(const char *engine, const char *workload, unsigned int iters, int cpu,
		   unsigned long long *ns, unsigned long long *bytes, unsigned int *ops)
{
	char res[256], cmd[64];
	uint32_t seed = 2463534242u + cpu;

	if (strncmp(workload, "user_", 5)) {
		snprintf(cmd, sizeof(cmd), "%s %s %u", engine, workload, iters);
		if (guest_selftest_args("bench", info.aperture_base, info.aperture_size, cmd, res,
					sizeof(res)) ||
		    sscanf(res, "ok ns=%llu bytes=%llu ops=%u", ns, bytes, ops) != 3) {
			if (!strncmp(res, "skip", 4))
				return 1;
			printf("# bench %s %s: %s\n", engine, workload, res);
			return -1;
		}
		return 0;
	}
	uint64_t t0 = now_ns(), size = info.aperture_size;
	*bytes = 0;
	*ops = 0;
	for (unsigned int i = 0; i < iters; i++) {
		bool seq = !strcmp(workload, "user_seq1m");
		uint64_t len = seq ? MIB : 4096;
		uint64_t span = !strcmp(engine, "user_mmap") ? WINDOW : size;
		uint64_t off = seq ? (i * MIB) % span : (uint64_t)(rnd(&seed) % (span / 4096)) * 4096;

		if (!strcmp(engine, "user_mmap")) {
			memcpy(umap + off, buf, len);
		} else {
			uint64_t done;

			if (guest_rw(devfd, true, off, buf, len, &done) || done != len)
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
	long long tlb0, cal0;
	unsigned int ops = 0;
	int go[2], back[2], skipped = 0, failed = 0;
	pid_t pid[2];
	char c;

	if (pipe(go) || pipe(back))
		return -1;
	fflush(stdout);
	for (int i = 0; i < cpus; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			struct result res = { 0 };

			pin(i);
			c = 'r';
			if (write(back[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
				_exit(2);
			res.rc = measure(engine, workload, iters, i, &res.ns, &res.bytes, &res.ops);
			_exit(write(back[1], &res, sizeof(res)) == sizeof(res) ? 0 : 2);
		}
	}
	for (int i = 0; i < cpus; i++)
		if (read(back[0], &c, 1) != 1)
			failed = 1;
	tlb0 = irq_row("TLB:");
	cal0 = irq_row("CAL:");
	t0 = now_ns();
	if (write(go[1], "gg", cpus) != cpus)
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
	printf("# pvmap-bench: {\"run\": %d, \"workload\": \"%s\", \"engine\": \"%s\", \"cpus\": %d, "
	       "\"wall_ns\": %llu, \"ns\": %llu, \"bytes\": %llu, \"ops\": %u, \"tlb\": %lld, "
	       "\"cal\": %lld, \"ok\": %s}\n", run, workload, engine, cpus, wall, ns, bytes, ops,
	       tlb0, cal0, failed ? "false" : "true");
	return failed ? -1 : 0;
}

int main(void)
{
	char mode[16] = "full", flag[8] = "";
	int runs, div, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/*
	 * Results are JSON lines on the serial console, which the kernel's own
	 * messages share: keep its late-boot info messages (input devices, TSC
	 * calibration) from landing in the middle of one (the bench smoke run
	 * lost two cells that way). Warnings and worse still reach the console
	 * for the runner's splat check.
	 */
	guest_write_file("/proc/sys/kernel/printk", "5");
	guest_cmdline_get("bench", mode, sizeof(mode));
	runs = strcmp(mode, "smoke") ? 5 : 1;
	div = strcmp(mode, "smoke") ? 1 : 20;
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
	memset(buf, 0x5a, sizeof(buf));
	guest_read_file("/sys/module/pvmap/parameters/hygiene", flag, sizeof(flag));
	printf("# pvmap-bench: {\"mode\": \"%s\", \"clears_on_unmap\": %s, \"aperture\": %llu, "
	       "\"runs\": %d}\n", mode, info.flags & PVMAP_INFO_F_CLEARS_ON_UNMAP ? "true" : "false",
	       (unsigned long long)info.aperture_size, runs);

	/* The trace of one 1 MiB PWRITE, for the hypercall figures. */
	if (guest_capture_trace(devfd, info.aperture_size, 0) < 0)
		failed = 1;

	for (int run = 1; run <= runs; run++) {
		printf("pvmap-bench: run %d of %d\n", run, runs);
		for (unsigned int w = 0; w < sizeof(workloads) / sizeof(workloads[0]); w++)
			for (unsigned int e = 0; e < sizeof(engines) / sizeof(engines[0]); e++)
				for (int cpus = 1; cpus <= 2; cpus++)
					failed |= run_one(run, engines[e], workloads[w].name,
							  workloads[w].iters / div + 1, cpus) != 0;
		for (unsigned int w = 0; w < sizeof(user_workloads) / sizeof(user_workloads[0]); w++)
			for (unsigned int e = 0; e < 2; e++)
				for (int cpus = 1; cpus <= 2; cpus++)
					failed |= run_one(run, user_engines[e], user_workloads[w].name,
							  user_workloads[w].iters / div + 1, cpus) != 0;
	}
	munmap(umap, WINDOW);
	close(devfd);
	printf("pvmap-bench: %s\n", failed ? "FAILED" : "done");
	return failed;
}
