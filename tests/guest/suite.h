/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pvmap-tests' feature files (tests_*.c) share: the devices found,
 * the ivshmem aperture, the patterns the host checks, CPU pinning, the
 * engine's counters, the in-kernel test module and the PV channel.
 * Lines starting with "# pvmap-host:" carry facts the host runner checks.
 */
#ifndef PVMAP_GUEST_SUITE_H
#define PVMAP_GUEST_SUITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <uapi/pvmap.h>
#include <uapi/pvmap_test.h>

#define MAX_DEVICES	8
#define MIB		(1024UL * 1024)
#define PAGE		((uint64_t)4096)	/* 64-bit, so masks do not truncate offsets */
#define PVMAP_DRIVER	"/sys/bus/pci/drivers/pvmap"
#define GUEST_PAT_LEN	(3 * PAGE + 123)	/* crosses pages, odd length */
#define POOL_WINDOWS	8	/* <pvmap/io_mapping.h>'s PVMAP_POOL_WINDOWS */

struct device {
	char path[272];
	struct pvmap_info info;
};

/* What scan_devices() found: each test scans at its start (its own child). */
extern struct device devices[MAX_DEVICES];
extern int ndevices;

/* Open /dev/pvmap* and read INFO of each; the number found or -1. */
int scan_devices(void);
struct device *find_kind(uint32_t kind);
/* The ivshmem device, opened; -1 after a diagnostic when absent. */
int open_ivshmem(struct device **dp);

/* Run on @cpu only; 0 or -1. unpin(): on any CPU again. */
int pin_cpu(int cpu);
void unpin(void);

/*
 * A process spinning in user space on each of CPUs 0..@ncpus-1, each there
 * when this returns (with what this process maps): @ncpus, their pids in
 * @pids; or -1 after fail(), none left. spinners_stop(): kill and reap @n.
 */
int spinners_start(int ncpus, pid_t *pids);
void spinners_stop(pid_t *pids, int n);

uint64_t random_u64(void);
/* The pattern the host wrote before boot (pvtest.hostpat=OFF:LEN:SEED). */
bool host_pattern(uint64_t *off, uint64_t *len, uint64_t *seed);
/* Whether [@off, @off + @len) overlaps the host's pattern (which must stay). */
bool hits_host_pattern(uint64_t off, uint64_t len);
/* PWRITE the pattern; @announce: the host checks it at the next handshake. */
int pwrite_pattern(int fd, uint64_t off, uint64_t len, uint64_t seed, bool announce);
/*
 * One writer process pinned to @cpu: ready on @to_parent, "go" on
 * @from_parent, 8 PWRITEs, done (see suite.c).
 */
int writer(int cpu, int fd, uint64_t off, uint64_t len, uint64_t seed,
	   int from_parent, int to_parent);

int read_stats(int fd, struct pvmap_stats *st);
/* Sum of a /proc/interrupts row ("TLB:", "CAL:") over every CPU. */
long long interrupts(const char *row);

/* Reload pvmap with the suite's parameters: 0 or -1. */
int pvmap_reload(void);

/* One request of pvmap_test.ko (or pvmap_bench.ko) on the ivshmem aperture that must pass. */
int kernel_request(const char *what, unsigned long cmd, void *req);

/* Whether pvmap maps through the hypervisor channel (a PV guest). */
bool pv_active(void);

#endif /* PVMAP_GUEST_SUITE_H */
