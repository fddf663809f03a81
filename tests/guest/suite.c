// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-tests' shared helpers (suite.h). No harness here: each feature
 * program (tests_*.c, feature_list.h) has its own.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include "guest.h"
#include "suite.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uapi/pvmap_kind.h>
#include <uapi/pvmap_pattern.h>

struct device devices[MAX_DEVICES];
int ndevices;

/* Open /dev/pvmap* and read INFO of each; the number found or -1. */
int scan_devices(void)
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

struct device *find_kind(uint32_t kind)
{
	for (int i = 0; i < ndevices; i++)
		if (devices[i].info.kind == kind)
			return &devices[i];
	return NULL;
}

/* Run on @cpu only; 0 or -1. */
int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -1 : 0;
}

uint64_t random_u64(void)
{
	uint64_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (uint64_t)rand() << 32 | (uint64_t)rand();
	return v;
}

bool host_pattern(uint64_t *off, uint64_t *len, uint64_t *seed)
{
	unsigned long long o, l, s;
	char arg[96];

	if (!guest_cmdline_get("hostpat", arg, sizeof(arg)) ||
	    sscanf(arg, "%llx:%llx:%llx", &o, &l, &s) != 3)
		return false;
	*off = o;
	*len = l;
	*seed = s;
	return true;
}

/*
 * True when [@off, +@len) overlaps the host's pattern, which
 * pread_host_pattern and mmap_read_host_pattern read back after the tests
 * that write at random offsets: those must leave it alone.
 */
bool hits_host_pattern(uint64_t off, uint64_t len)
{
	uint64_t hoff, hlen, seed;

	return host_pattern(&hoff, &hlen, &seed) && off < hoff + hlen && hoff < off + len;
}

/* --- the io_mapping engine through /dev/pvmapN ----------------------------- */

/* The ivshmem device, opened; -1 after a diagnostic when absent. */
int open_ivshmem(struct device **dp)
{
	struct device *d;
	int fd;

	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	if (!d) {
		printf("# no ivshmem aperture\n");
		return -1;
	}
	fd = open(d->path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		printf("# open %s: %s\n", d->path, strerror(errno));
	*dp = d;
	return fd;
}

/* PWRITE the pattern; @announce: the host checks it at the next handshake. */
int pwrite_pattern(int fd, uint64_t off, uint64_t len, uint64_t seed, bool announce)
{
	uint8_t *buf = malloc(len);
	uint64_t done = 0;
	int ret;

	if (!buf)
		return fail("out of memory for %llu bytes", (unsigned long long)len);
	pvmap_pattern_fill(buf, len, seed, off);
	ret = guest_rw(fd, true, off, buf, len, &done);
	free(buf);
	if (ret || done != len)
		return fail("PWRITE %#llx+%#llx: %d (%s), %llu done", (unsigned long long)off,
			    (unsigned long long)len, ret, strerror(errno),
			    (unsigned long long)done);
	if (announce)
		printf("# pvmap-host: pattern off=%#llx len=%#llx seed=%#llx\n",
		       (unsigned long long)off, (unsigned long long)len,
		       (unsigned long long)seed);
	return 0;
}

/* Reload pvmap with the suite's parameters: 0 or -1. */
int pvmap_reload(void)
{
	char modparams[256];
	int ret;

	guest_module_params(modparams, sizeof(modparams));
	guest_test_unload();
	ret = guest_unload_module("pvmap");
	if (ret)
		return fail("rmmod pvmap: %s", strerror(-ret));
	ret = guest_load_module(GUEST_MODULE_PATH, modparams);
	if (ret)
		return fail("insmod pvmap %s: %s", modparams, strerror(-ret));
	return 0;
}

int read_stats(int fd, struct pvmap_stats *st)
{
	return ioctl(fd, PVMAP_IOC_STATS, st);
}

/* Sum of a /proc/interrupts row ("TLB:", "CAL:") over every CPU. */
long long interrupts(const char *row)
{
	char text[8192], *line;
	long long sum = 0;

	if (guest_read_file("/proc/interrupts", text, sizeof(text)) < 0)
		return -1;
	line = strstr(text, row);
	if (!line)
		return -1;
	line += strlen(row);
	for (;;) {
		char *end;
		long long v = strtoll(line, &end, 10);

		if (end == line)
			break;
		sum += v;
		line = end;
	}
	return sum;
}

/*
 * One writer process pinned to @cpu: fill its buffer, report ready on
 * @to_parent, wait for "go" on @from_parent, PWRITE 8 times, report done.
 * Processes rather than threads: no shared mm, so nothing but pvmap itself
 * could need a TLB shootdown between the two counts.
 */
int writer(int cpu, int fd, uint64_t off, uint64_t len, uint64_t seed,
	   int from_parent, int to_parent)
{
	uint8_t *buf = malloc(len);
	uint64_t done;
	char c = 'r';
	int failed;

	failed = !buf || pin_cpu(cpu);
	if (buf)
		pvmap_pattern_fill(buf, len, seed, off);
	if (write(to_parent, &c, 1) != 1 || read(from_parent, &c, 1) != 1)
		failed = 1;
	for (int pass = 0; pass < 8 && !failed; pass++)
		failed = guest_rw(fd, true, off, buf, len, &done) || done != len;
	c = failed ? 'F' : 'd';
	if (write(to_parent, &c, 1) != 1)
		failed = 1;
	return failed;
}

/* --- the in-kernel API, through pvmap_kunit.ko or pvmap_test.ko ---------------- */

/*
 * One request of pvmap_test.ko (or pvmap_bench.ko) on the ivshmem aperture
 * that must pass: 0, or -1 after a message.
 */
int kernel_request(const char *what, unsigned long cmd, void *req)
{
	struct pvmap_test_head *h = req;
	struct device *d;

	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	if (!d)
		return fail("no ivshmem aperture");
	if (guest_test(cmd, req, d->info.aperture_base, d->info.aperture_size) ||
	    h->status != PVMAP_TEST_PASS)
		return fail("%s: %s", what, h->msg);
	return 0;
}

/* Let the scheduler place this process on any CPU again. */
void unpin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * The hypervisor channel (run-guest --pv): pvmap's PTE updates go to
 * pvmap-hv as Xen multicalls. These tests run last, in a PV guest only:
 * pv_revoke_live and pv_hazard_found leave frames revoked for good.
 */
bool pv_active(void)
{
	char text[256];

	return guest_read_file(GUEST_DEBUGFS "/pv", text, sizeof(text)) > 0 &&
	       strstr(text, "channel: up");
}

/* Spin in user space on @cpu until killed; tell @ready once there. */
static void __attribute__((noreturn)) spin_on(int cpu, int ready)
{
	volatile unsigned long n = 0;

	if (pin_cpu(cpu) || write(ready, "r", 1) != 1)
		_exit(1);
	close(ready);
	for (;;)
		n++;
}

int spinners_start(int ncpus, pid_t *pids)
{
	int ready[2], spinning = 0, there = 0;
	char c;

	if (pipe(ready))
		return fail("pipe: %s", strerror(errno));
	fflush(stdout);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		pids[spinning] = fork();
		if (pids[spinning] == 0) {
			close(ready[0]);
			spin_on(cpu, ready[1]);
		}
		if (pids[spinning] < 0)
			break;
		spinning++;
	}
	close(ready[1]);
	while (there < spinning && read(ready[0], &c, 1) == 1)
		there++;
	close(ready[0]);
	if (there == ncpus)
		return spinning;
	spinners_stop(pids, spinning);
	return fail("%d of %d spinning processes started", there, ncpus);
}

void spinners_stop(pid_t *pids, int n)
{
	for (int i = 0; i < n; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}
