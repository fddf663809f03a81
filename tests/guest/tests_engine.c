// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-tests: the io_mapping engine's counters and trace for a 1 MiB PWRITE,
 * two vCPUs at once without TLB shootdowns, and tools/guest/pvmapctl.
 * A feature program of pvmap-tests (feature_list.h).
 */
#include "pvmap-tests.h"

/* --- tools/guest/pvmapctl ---------------------------------------------------------- */

/* Run pvmapctl with @args (NULL-terminated); its exit status, output in @out. */
static int pvmapctl(char *out, size_t len, const char *const *args)
{
	const char *argv[16] = { "/bin/pvmapctl" };
	size_t used = 0;
	int pipefd[2], status, n = 1;
	ssize_t r;
	pid_t pid;

	while (*args && n < 15)
		argv[n++] = *args++;
	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	while (used < len - 1 && (r = read(pipefd[0], out + used, len - 1 - used)) > 0)
		used += r;
	out[used] = '\0';
	close(pipefd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int expect_pvmapctl(int want, const char *needle, const char *const *args)
{
	char out[4096];
	int ret = pvmapctl(out, sizeof(out), args);

	if (ret != want || !strstr(out, needle)) {
		printf("# pvmapctl");
		while (*args)
			printf(" %s", *args++);
		printf(": exit %d, want %d with \"%s\"; said: %s\n", ret, want, needle, out);
		return -1;
	}
	return 0;
}

/* 1 MiB, page-aligned: print the engine's counts and check them where exact. */
TEST_F(pvmap, stats_1mib_pwrite)
{
	struct pvmap_stats before, after;
	uint64_t off, pte, flushes, batches;
	struct device *d;
	int fd, ret;

	fd = open_ivshmem(&d);
	ASSERT_LE(0, fd);
	off = (random_u64() % (d->info.aperture_size / MIB)) * MIB;
	read_stats(fd, &before);
	ret = pwrite_pattern(fd, off, MIB, random_u64(), true);
	read_stats(fd, &after);
	close(fd);
	ASSERT_EQ(0, ret);
	pte = after.pte_writes - before.pte_writes;
	flushes = after.local_flushes - before.local_flushes;
	batches = after.batches - before.batches;
	printf("# 1 MiB PWRITE: %llu PTE writes, %llu local flushes, %llu batches, %llu maps\n",
	       (unsigned long long)pte, (unsigned long long)flushes,
	       (unsigned long long)batches, (unsigned long long)(after.maps - before.maps));
	ASSERT_TRUE(guest_host_sync("pattern")) TH_LOG("host did not acknowledge the pattern");
	if (d->info.flags & PVMAP_INFO_F_CLEARS_ON_UNMAP) {
		/* 256 pages set and cleared, each flushed once, 16 pages per batch */
		ASSERT_EQ(512, pte) TH_LOG("want 512 PTE writes, 256 flushes, 32 batches");
		ASSERT_EQ(256, flushes) TH_LOG("want 512 PTE writes, 256 flushes, 32 batches");
		ASSERT_EQ(32, batches) TH_LOG("want 512 PTE writes, 256 flushes, 32 batches");
	} else {
		ASSERT_EQ(0, pte) TH_LOG("the whole-aperture mapping wrote PTEs");
		ASSERT_EQ(0, flushes) TH_LOG("the whole-aperture mapping wrote PTEs");
	}
	for (unsigned int cpu = 0; cpu < after.nr_cpus; cpu++) {
		ASSERT_EQ(0, after.live_slots[cpu])
			TH_LOG("%u slots still live on CPU %u", after.live_slots[cpu], cpu);
	}
}

/* Two vCPUs write disjoint regions at once: no corruption, no shootdown IPIs. */
TEST_F(pvmap, concurrent_no_shootdown)
{
	uint64_t half, len = 2 * MIB, off[2], seed[2];
	struct pvmap_stats st0 = { 0 }, st1 = { 0 };
	long long tlb0, tlb1, cal0, cal1;
	int fd, go[2], back[2];
	struct device *d;
	pid_t pid[2];
	char c;

	fd = open_ivshmem(&d);
	ASSERT_LE(0, fd);
	ASSERT_LE(2, sysconf(_SC_NPROCESSORS_ONLN)) TH_LOG("needs 2 CPUs");
	ASSERT_EQ(0, pipe(go)) TH_LOG("pipe: %s", strerror(errno));
	ASSERT_EQ(0, pipe(back)) TH_LOG("pipe: %s", strerror(errno));
	half = d->info.aperture_size / 2;
	for (int i = 0; i < 2; i++) {
		off[i] = i * half + (random_u64() % ((half - len) / PAGE)) * PAGE;
		seed[i] = random_u64();
		fflush(stdout);
		pid[i] = fork();
		if (pid[i] == 0)
			_exit(writer(i, fd, off[i], len, seed[i], go[0], back[1]));
	}
	/* Both writers are pinned and ready: count from here. */
	for (int i = 0; i < 2; i++) {
		EXPECT_EQ(1, read(back[0], &c, 1)) TH_LOG("a writer did not start");
	}
	read_stats(fd, &st0);
	tlb0 = interrupts("TLB:");
	cal0 = interrupts("CAL:");
	EXPECT_EQ(2, write(go[1], "gg", 2)) TH_LOG("cannot start the writers");
	for (int i = 0; i < 2; i++) {
		EXPECT_TRUE(read(back[0], &c, 1) == 1 && c == 'd') TH_LOG("a writer failed");
	}
	tlb1 = interrupts("TLB:");
	cal1 = interrupts("CAL:");
	read_stats(fd, &st1);
	for (int i = 0; i < 2; i++) {
		int status;

		EXPECT_TRUE(waitpid(pid[i], &status, 0) >= 0 && WIFEXITED(status) &&
			    !WEXITSTATUS(status)) TH_LOG("writer on CPU %d failed", i);
		printf("# pvmap-host: pattern off=%#llx len=%#llx seed=%#llx\n",
		       (unsigned long long)off[i], (unsigned long long)len,
		       (unsigned long long)seed[i]);
	}
	close(fd);
	close(go[0]);
	close(go[1]);
	close(back[0]);
	close(back[1]);
	printf("# 2 CPUs x 8 x 2 MiB: %lld TLB shootdowns, %lld function-call IPIs; pvmap's own "
	       "flushes: %llu local, %llu on every CPU\n", tlb1 - tlb0, cal1 - cal0,
	       (unsigned long long)(st1.local_flushes - st0.local_flushes),
	       (unsigned long long)(st1.remote_flushes - st0.remote_flushes));
	ASSERT_TRUE(guest_host_sync("pattern")) TH_LOG("host did not acknowledge the patterns");
	ASSERT_LE(0, tlb0) TH_LOG("no TLB row in /proc/interrupts");
	ASSERT_LE(0, tlb1) TH_LOG("no TLB row in /proc/interrupts");
	ASSERT_EQ(st0.remote_flushes, st1.remote_flushes)
		TH_LOG("the atomic path flushed %llu TLB entries on every CPU",
		       (unsigned long long)(st1.remote_flushes - st0.remote_flushes));
	/*
	 * Shootdowns are the kernel's (pvmap's own flushes are local, counted
	 * above). With two vCPUs nothing else runs, and none may come; with
	 * more, the other vCPUs' own housekeeping (a process exiting on one
	 * that once ran on a writer's CPU) may send a few: attributed to them,
	 * as long as the writers' CPUs saw no more than a handful.
	 */
	if (sysconf(_SC_NPROCESSORS_ONLN) <= 2) {
		ASSERT_EQ(tlb0, tlb1)
			TH_LOG("%lld TLB shootdowns while only pvmap's atomic path ran",
			       tlb1 - tlb0);
	} else {
		ASSERT_GE(16, tlb1 - tlb0)
			TH_LOG("%lld TLB shootdowns while only pvmap's atomic path ran",
			       tlb1 - tlb0);
	}
	/*
	 * A flush by IPI (on_each_cpu) counts as a function call, once per
	 * page: 8192 here. A handful come from the kernel's own housekeeping.
	 */
	ASSERT_GE(16, cal1 - cal0)
		TH_LOG("%lld function-call IPIs: is the atomic path flushing remotely?",
		       cal1 - cal0);
}

/*
 * Record the PTE layer's trace of a 1 MiB PWRITE and hand it to the host
 * (through the aperture), which replays it through the hypervisor stub.
 */
TEST_F(pvmap, trace_1mib_pwrite)
{
	struct device *d;
	uint64_t off;
	int fd, sets;

	fd = open_ivshmem(&d);
	ASSERT_LE(0, fd);
	off = (random_u64() % (d->info.aperture_size / MIB / 2)) * MIB;
	sets = guest_capture_trace(fd, d->info.aperture_size, off);
	close(fd);
	ASSERT_LE(0, sets) TH_LOG("the trace was not taken");
	ASSERT_EQ(d->info.flags & PVMAP_INFO_F_CLEARS_ON_UNMAP ? 256 : 0, sets)
		TH_LOG("%d PTE sets traced", sets);
}

/* pvmapctl's commands, their JSON and their errors. */
TEST_F(pvmap, pvmapctl_cli)
{
	char off[32], end[32], seed[32], other[32];
	struct device *d;
	int fd, bad = 0;

	fd = open_ivshmem(&d);
	ASSERT_LE(0, fd);
	close(fd);
	snprintf(off, sizeof(off), "%#llx",
		 (unsigned long long)(random_u64() % (d->info.aperture_size - MIB)));
	snprintf(end, sizeof(end), "%#llx", (unsigned long long)d->info.aperture_size - 1);
	snprintf(seed, sizeof(seed), "%#llx", (unsigned long long)random_u64());
	snprintf(other, sizeof(other), "%#llx", (unsigned long long)random_u64());

	bad |= expect_pvmapctl(0, "\"kind\": \"ivshmem\"",
			       (const char *[]){ "-d", "ivshmem", "--json", "info", NULL });
	bad |= expect_pvmapctl(0, "wrote 70000 bytes",
			       (const char *[]){ "-d", "ivshmem", "write", off, "--pattern", seed,
						 "--length", "70000", NULL });
	bad |= expect_pvmapctl(0, "match",
			       (const char *[]){ "-d", "ivshmem", "verify", off, "--pattern", seed,
						 "--length", "70000", NULL });
	bad |= expect_pvmapctl(3, "differs at",
			       (const char *[]){ "-d", "ivshmem", "verify", off, "--pattern", other,
						 "--length", "70000", NULL });
	bad |= expect_pvmapctl(1, "outside the",
			       (const char *[]){ "-d", "ivshmem", "read", end, "2", NULL });
	bad |= expect_pvmapctl(1, "is pvmap.ko loaded?",
			       (const char *[]){ "-d", "/dev/pvmap9", "info", NULL });
	bad |= expect_pvmapctl(0, "\"pte_writes\":",
			       (const char *[]){ "-d", "ivshmem", "--json", "stats", NULL });
	bad |= expect_pvmapctl(2, "usage:", (const char *[]){ "frobnicate", NULL });
	EXPECT_EQ(0, bad);
}

TEST_HARNESS_MAIN
