// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-tests: the hypervisor channel (run-guest --pv): calls, refusals, revocation,
 * a channel lost, its daemon killed (the last test) or stalled (alone).
 * A feature program of pvmap-tests (feature_list.h).
 */
#include "pvmap-tests.h"

/* pv_daemon_stalled: only alone, it leaves the channel dead */
FIXTURE(alone) {};
FIXTURE_SETUP(alone)
{
	test_setup();
}
FIXTURE_TEARDOWN(alone)
{
	fflush(NULL);
}

static long pv_stat(const char *key)
{
	char text[512], *at;

	if (guest_read_file(GUEST_DEBUGFS "/pv", text, sizeof(text)) <= 0)
		return -1;
	at = strstr(text, key);
	return at ? strtol(at + strlen(key), NULL, 10) : -1;
}

/* A PV guest's ivshmem aperture; NULL when the test skips (not a PV guest). */
static struct device *pv_ivshmem(struct __test_metadata *_metadata)
{
	struct device *d;

	if (!pv_active())
		SKIP(return NULL,
		     "no pvmap-hv channel: the guest was not booted with run-guest --pv");
	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	ASSERT_NE(NULL, d) TH_LOG("no ivshmem aperture");
	return d;
}

/* Whether this guest has an ivshmem-doorbell (a BAR1): pvmap-hv's channel, usable or not. */
static bool doorbell_present(char *pci, size_t len)
{
	char path[300], text[512];
	struct dirent *de;
	bool found = false;
	DIR *dir = opendir("/sys/bus/pci/devices");

	while (dir && !found && (de = readdir(dir))) {
		unsigned long long start, end;
		char *line;

		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", de->d_name);
		if (guest_read_file(path, text, sizeof(text)) <= 0 || strncmp(text, "0x1af4", 6))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", de->d_name);
		if (guest_read_file(path, text, sizeof(text)) <= 0)
			continue;
		line = strchr(text, '\n');	/* BAR1 is the second line */
		if (line && sscanf(line + 1, "%llx %llx", &start, &end) == 2 && end > start) {
			snprintf(pci, len, "%s", de->d_name);
			found = true;
		}
	}
	if (dir)
		closedir(dir);
	return found;
}

static long ms_between(const struct timespec *t0, const struct timespec *t1)
{
	return (long)((t1->tv_sec - t0->tv_sec) * 1000 + (t1->tv_nsec - t0->tv_nsec) / 1000000);
}

/* A random MiB-aligned offset with room for @len, clear of the host's pattern. */
static uint64_t pv_free_offset(struct device *d, uint64_t len)
{
	uint64_t off;

	do
		off = (random_u64() % (d->info.aperture_size / MIB - len / MIB)) * MIB;
	while (hits_host_pattern(off, len));
	return off;
}

/*
 * One page of the pattern @seed at @off + cpu pages from each vCPU at once,
 * each writer pinned to its vCPU and released together: every vCPU may
 * spin in a call with interrupts off at the same time, the one that keeps
 * time among them (on refined-jiffies, time then stops for all). 0, or a
 * failure.
 */
static int pwrite_page_per_cpu(int fd, uint64_t off, uint64_t seed)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), go[2], bad = 0, status;
	pid_t pid;

	if (pipe(go))
		return fail("pipe: %s", strerror(errno));
	fflush(stdout);
	for (int c = 0; c < ncpu; c++) {
		pid = fork();
		if (pid == 0) {
			char byte;

			close(go[1]);
			_exit(pin_cpu(c) || read(go[0], &byte, 1) != 0 ||
			      pwrite_pattern(fd, off + (uint64_t)c * PAGE, PAGE, seed, false));
		}
		bad += pid < 0;
	}
	close(go[0]);
	close(go[1]);	/* the writers' read returns 0: all go */
	while ((pid = wait(&status)) > 0)
		bad += !WIFEXITED(status) || WEXITSTATUS(status);
	return bad ? fail("%d of the %d per-vCPU writers failed", bad, ncpu) : 0;
}

/*
 * A MiB through the hypervisor at a random free offset (*@off), @tag's
 * handshake (the host stops or kills pvmap-hv), then the next MiB, whose
 * first pages (one from each vCPU at once) find it gone (the host is told
 * when they are written: "pv-native"): the channel must be dead, the
 * vCPUs having waited under 1 s for it in all (*@waited_ms), as the
 * guest's clock has it too.
 */
static int pv_write_across_loss(struct device *d, int fd, const char *tag, uint64_t *off,
				uint64_t seed, long *waited_ms)
{
	struct timespec t0, t1, t2;
	char text[512];
	int ret;

	*off = pv_free_offset(d, 2 * MIB);
	ret = pwrite_pattern(fd, *off, MIB, seed, false);
	if (!ret && !guest_host_sync(tag))
		ret = fail("host did not answer %s", tag);
	if (ret)
		return ret;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = pwrite_page_per_cpu(fd, *off + MIB, seed + 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("# pvmap-host: pv-native ms=%ld\n", ms_between(&t0, &t1));
	fflush(stdout);
	if (!ret)
		ret = pwrite_pattern(fd, *off + MIB, MIB, seed + 1, false);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	if (ret)
		return ret;
	guest_read_file(GUEST_DEBUGFS "/pv", text, sizeof(text));
	*waited_ms = pv_stat("dead_wait_ms: ");
	printf("# after %s: the first pages took %ld ms, then the MiB %ld ms, by the guest's "
	       "clock; pv: %s\n", tag, ms_between(&t0, &t1), ms_between(&t1, &t2),
	       strchr(text, '\n') ? (*strchr(text, '\n') = '\0', text) : text);
	if (!strstr(text, "channel: dead"))
		return fail("the channel is not marked dead: %s", text);
	if (*waited_ms < 0 || *waited_ms >= 1000)
		return fail("the vCPUs waited %ld ms for the lost hypervisor", *waited_ms);
	if (ms_between(&t0, &t1) >= 1000)
		return fail("the first pages after the loss took %ld ms by the guest's clock",
			    ms_between(&t0, &t1));
	return 0;
}

/* The PV guest's ivshmem aperture, opened in *@fd; NULL when the test skips. */
static struct device *pv_open_aperture(struct __test_metadata *_metadata, int *fd)
{
	struct device *d = pv_ivshmem(_metadata);

	if (!d)
		return NULL;	/* a skip outside a PV guest */
	*fd = open(d->path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, *fd) TH_LOG("open %s: %s", d->path, strerror(errno));
	return d;
}

/* Both MiB of pv_write_across_loss() read back. */
static int pv_read_back(int fd, uint64_t off, uint64_t seed)
{
	uint8_t *check = malloc(2 * MIB);
	uint64_t done = 0;
	int ret = 0;

	if (!check || guest_rw(fd, false, off, check, 2 * MIB, &done) || done != 2 * MIB ||
	    pvmap_pattern_check(check, MIB, seed, off) != MIB ||
	    pvmap_pattern_check(check + MIB, MIB, seed + 1, off + MIB) != MIB)
		ret = fail("the bytes written before and after the loss do not read back");
	free(check);
	return ret;
}

/* Nothing the daemon mapped is left mapped: the host audits. */
static int pv_audit(void)
{
	guest_print_live();
	return guest_host_sync("audit") ? 0 : fail("host did not audit");
}

/* The channel is up: calls made, this guest's PTEs registered with the daemon. */
TEST_F(pvmap, pv_channel_up)
{
	long calls = pv_stat("calls: "), registered = pv_stat("registered: ");

	if (!pv_active())
		SKIP(return, "no pvmap-hv channel: the guest was not booted with run-guest --pv");
	printf("# pvmap-host: pv-up calls=%ld registered=%ld\n", calls, registered);
	ASSERT_LT(0, calls)
		TH_LOG("channel up, but %ld calls and %ld PTEs registered", calls, registered);
	ASSERT_LT(0, registered)
		TH_LOG("channel up, but %ld calls and %ld PTEs registered", calls, registered);
	ASSERT_TRUE(guest_host_sync("pv-up")) TH_LOG("host did not acknowledge");
}

/* A 1 MiB PWRITE: the host counts pvmap-hv's calls for it (<= 2 per 16 pages). */
TEST_F(pvmap, pv_pwrite_hypercalls)
{
	struct device *d;
	int fd;

	if (!pv_active())
		SKIP(return, "no pvmap-hv channel: the guest was not booted with run-guest --pv");
	fd = open_ivshmem(&d);
	ASSERT_LE(0, fd);	/* open_ivshmem() said why */
	ASSERT_TRUE(guest_host_sync("pv-counts")) TH_LOG("host did not acknowledge");
	EXPECT_EQ(0, pwrite_pattern(fd, d->info.aperture_size / 2, MIB, random_u64(), true));
	close(fd);
	printf("# pvmap-host: pv-pwrite bytes=%lu\n", MIB);
	ASSERT_TRUE(guest_host_sync("pv-pwrite")) TH_LOG("host did not acknowledge");
	ASSERT_TRUE(guest_host_sync("pattern")) TH_LOG("host did not acknowledge");
}

/* Requests Xen refuses or adjusts, as pvmap_test makes them; the host checks the daemon's side. */
TEST_F(pvmap, pv_refusals)
{
	struct pvmap_test_pv req;
	const struct pvmap_test_pv_case *c[] = { &req.wb, &req.outside, &req.reserved };
	struct device *d;

	d = pv_ivshmem(_metadata);
	if (!d)
		return;
	ASSERT_EQ(0, guest_test(PVMAP_TEST_PV_REFUSALS, &req, d->info.aperture_base,
				d->info.aperture_size))
		TH_LOG("pv_refusals: %s", req.h.msg);
	/* for the host: the PTE's machine address, then value:errno:PTE after, per case */
	printf("# pvmap-host: pv-refusals %s ptr=%llx wb=%llx:%d:%llx outside=%llx:%d:%llx "
	       "reserved=%llx:%d:%llx\n", req.h.status == PVMAP_TEST_PASS ? "ok" : "fail",
	       (unsigned long long)req.ptr,
	       (unsigned long long)c[0]->val, c[0]->err, (unsigned long long)c[0]->pte,
	       (unsigned long long)c[1]->val, c[1]->err, (unsigned long long)c[1]->pte,
	       (unsigned long long)c[2]->val, c[2]->err, (unsigned long long)c[2]->pte);
	ASSERT_TRUE(guest_host_sync("pv-refusals")) TH_LOG("host did not acknowledge");
	ASSERT_EQ(PVMAP_TEST_PASS, req.h.status) TH_LOG("%s", req.h.msg);
}

/* A frame revoked under a live (held) map: the daemon names the PTE still mapping it. */
TEST_F(pvmap, pv_revoke_live)
{
	struct pvmap_test_pv_hold req;
	struct device *d;
	bool acked;

	d = pv_ivshmem(_metadata);
	if (!d)
		return;
	ASSERT_EQ(0, guest_test(PVMAP_TEST_PV_HOLD, &req, d->info.aperture_base,
				d->info.aperture_size))
		TH_LOG("pv_hold: %s", req.h.msg);
	ASSERT_EQ(PVMAP_TEST_PASS, req.h.status) TH_LOG("pv_hold: %s", req.h.msg);
	printf("# pvmap-host: pv-revoke case=live va=%#llx frame=%#llx\n",
	       (unsigned long long)req.va, (unsigned long long)req.frame);
	acked = guest_host_sync("pv-revoke");
	ASSERT_EQ(0, guest_test(PVMAP_TEST_PV_RELEASE, &req, d->info.aperture_base,
				d->info.aperture_size))
		TH_LOG("pv_release: %s", req.h.msg);
	ASSERT_EQ(PVMAP_TEST_PASS, req.h.status) TH_LOG("pv_release: %s", req.h.msg);
	ASSERT_TRUE(acked) TH_LOG("host did not acknowledge");
}

/*
 * hazard_map in both modes, the frame revoked after each "unmap": nothing
 * maps it after pvmap's; the hazard engine's leftover PTE is reported.
 */
TEST_F(pvmap, pv_hazard_found)
{
	const char *modes[] = { "normal", "hazard" };
	struct pvmap_test_hazard req;
	struct device *d;
	int ret = 0;

	d = pv_ivshmem(_metadata);
	if (!d)
		return;
	for (int i = 0; i < 2 && !ret; i++) {
		guest_test_unload();
		if (guest_test_load(i ? "hazard_demo=1" : "")) {
			ret = fail("cannot load pvmap_test.ko");
			break;
		}
		if (guest_test(PVMAP_TEST_HAZARD_MAP, &req, d->info.aperture_base,
			       d->info.aperture_size) || req.h.status != PVMAP_TEST_PASS) {
			ret = fail("hazard_map: %s", req.h.msg);
			break;
		}
		printf("# pvmap-host: pv-revoke case=%s va=%#llx frame=%#llx\n", modes[i],
		       (unsigned long long)req.va,
		       (unsigned long long)((d->info.aperture_base + req.offset) / PAGE));
		if (!guest_host_sync("pv-revoke"))
			ret = fail("host did not acknowledge");
	}
	/* the hazard engine's window goes with the module, its PTE cleared */
	guest_test_unload();
	ASSERT_EQ(0, ret);
}

/*
 * A hypervisor channel this kernel cannot use (no PAE: Xen's PV MMU has
 * no 2-level tables) with the default pv=-1: pvmap loads, runs natively,
 * says why, and does not take the channel for an aperture.
 */
TEST_F(pvmap, pv_channel_unusable)
{
	char pci[256];
	struct device *d;

	if (!doorbell_present(pci, sizeof(pci)))
		SKIP(return, "no pvmap-hv channel in this guest (run-guest --pv)");
	if (pv_active())
		SKIP(return, "the channel is usable here");
	ASSERT_EQ(0, access("/sys/module/pvmap", F_OK)) TH_LOG("pvmap is not loaded");
	ASSERT_TRUE(guest_kmsg_has("hypervisor channel is unusable"))
		TH_LOG("pvmap runs without the channel %s and never said why", pci);
	scan_devices();
	for (int i = 0; i < ndevices; i++) {
		ASSERT_STRNE(pci, devices[i].info.pci_name)
			TH_LOG("the channel %s is bound as %s", pci, devices[i].path);
	}
	d = find_kind(PVMAP_KIND_IVSHMEM);
	ASSERT_NE(NULL, d) TH_LOG("no ivshmem aperture mapped natively with clear-on-unmap");
	ASSERT_TRUE(d->info.flags & PVMAP_INFO_F_CLEARS_ON_UNMAP)
		TH_LOG("no ivshmem aperture mapped natively with clear-on-unmap");
	printf("# channel %s unusable here: pvmap loaded, PTE updates native, and it said why\n",
	       pci);
}

/*
 * A hypervisor that lies (pvmap-hv's "garbage on": every answer a positive
 * result, garbage in its data): a map it answers is refused, cleanly; a
 * load of pvmap that meets it at HELLO runs natively (pv=-1) and says
 * why, never half loaded; once it answers honestly again a reload uses
 * it; and nothing it was asked to map stays mapped (the host audits).
 */
TEST_F(pvmap, pv_daemon_garbage)
{
	uint8_t buf[4096] = { 0x5a };
	struct device *d;
	uint64_t done = 0;
	int fd, ret = 0, rw;

	d = pv_ivshmem(_metadata);
	if (!d)
		return;
	fd = open(d->path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", d->path, strerror(errno));
	ASSERT_TRUE(guest_host_sync("pv-garbage-on")) TH_LOG("host did not make pvmap-hv lie");
	/* every batch answered +7: each map refused, and pvmap says EPROTO inside */
	rw = guest_rw(fd, true, 0, buf, sizeof(buf), &done);
	printf("# PWRITE with every answer garbage: %s, %llu done\n",
	       rw ? strerror(errno) : "succeeded", (unsigned long long)done);
	close(fd);
	if (!rw)
		ret = fail("a PWRITE through a lying hypervisor succeeded");
	if (!ret && pvmap_reload())
		ret = -1;
	if (!ret && pv_active())
		ret = fail("pvmap took a channel whose HELLO was answered with garbage");
	if (!ret && !guest_kmsg_has("HELLO was refused, not answered or answered wrong"))
		ret = fail("pvmap runs natively and never said why");
	if (!ret) {
		scan_devices();
		d = find_kind(PVMAP_KIND_IVSHMEM);
		fd = d ? open(d->path, O_RDWR | O_CLOEXEC) : -1;
		if (fd < 0 || guest_rw(fd, true, 0, buf, sizeof(buf), &done) || done != sizeof(buf))
			ret = fail("a native PWRITE after the garbage HELLO failed");
		if (fd >= 0)
			close(fd);
	}
	if (!guest_host_sync("pv-garbage-off"))
		ret = fail("host did not make pvmap-hv honest again");
	if (!ret && pvmap_reload())
		ret = -1;
	if (!ret && !pv_active())
		ret = fail("the honest hypervisor is not used after a reload");
	guest_print_live();
	if (!guest_host_sync("audit"))
		ret = fail("host did not audit");
	ASSERT_EQ(0, ret);
	printf("# garbage answers: maps refused, a load runs natively and says why; "
	       "honest again: used again\n");
}

/*
 * The hypervisor lost in the middle of a 2 MiB PWRITE (handshake @lose: the
 * host kills or stops pvmap-hv), then @after with the channel gone; every
 * byte must read back and the host's audit find nothing stale.
 */
static bool pv_lose_hypervisor(struct __test_metadata *_metadata, const char *lose,
			       int (*after)(struct device *d), long *waited_ms)
{
	uint64_t off, seed = random_u64();
	struct device *d;
	int fd = -1;

	d = pv_open_aperture(_metadata, &fd);
	if (!d)
		return false;	/* the test skips */
	ASSERT_EQ(0, pv_write_across_loss(d, fd, lose, &off, seed, waited_ms));
	ASSERT_EQ(0, after(d));
	ASSERT_EQ(0, pv_read_back(fd, off, seed));
	ASSERT_EQ(0, pv_audit());
	close(fd);
	return true;
}

/* Sleepable maps after the kill: a pooled window, and a large one made after the death. */
static int sleepable_after_kill(struct device *d)
{
	for (int i = 0; i < 2; i++) {
		struct pvmap_test_api req = { 0 };

		strcpy(req.name, i ? "sleepable1m" : "sleepable4k");
		if (guest_test(PVMAP_TEST_API, &req, d->info.aperture_base, d->info.aperture_size) ||
		    req.h.status != PVMAP_TEST_PASS)
			return fail("sleepable map %d after the kill: %s", i, req.h.msg);
	}
	return 0;
}

/* The daemon, continued, comes back to the request the guest gave up on. */
static int continue_daemon(struct device *d)
{
	(void)d;
	return guest_host_sync("pv-cont") ? 0 : fail("host did not continue pvmap-hv");
}

/*
 * The hypervisor dies under a live PV guest (the host kills pvmap-hv at
 * handshake "pv-kill"): the next call gives up after PVMAP_PV_TIMEOUT_NS,
 * no vCPU waits for it again (under 1 s of waiting in all), every update
 * from then on is native, so unmaps clear what the daemon had mapped (the
 * host's pvmap-audit finds nothing stale), and maps of every kind go on
 * working. The last test of a PV guest: nothing after it has a daemon.
 */
TEST_F(pvmap, pv_daemon_killed)
{
	long waited_ms;

	if (!pv_lose_hypervisor(_metadata, "pv-kill", sleepable_after_kill, &waited_ms))
		return;
	printf("# waited %ld ms for the dead hypervisor in all; PWRITE, PREAD and sleepable "
	       "maps work natively\n", waited_ms);
}

/*
 * pvmap-hv stopped (SIGSTOP) under the guest, then continued (SIGCONT): the
 * first call after the stop waits its 250 ms, abandons its request, and
 * the guest goes on natively; the daemon, continued, finds the request
 * abandoned and serves none of it, so nothing it would have mapped lands
 * after the guest's own unmaps: every byte reads back, the host's audit
 * finds no mapping left, its pvmap-hv served nothing late. Alone (--only):
 * the channel is dead after it.
 */
TEST_F(alone, pv_daemon_stalled)
{
	long waited_ms;

	if (!pv_lose_hypervisor(_metadata, "pv-stop", continue_daemon, &waited_ms))
		return;
	printf("# waited %ld ms for the stopped hypervisor; its late return changed nothing\n",
	       waited_ms);
}

/* debugfs pvmap/pv in @text, each line a KTAP diagnostic */
static void pv_print(const char *text)
{
	for (const char *line = text; *line; ) {
		size_t n = strcspn(line, "\n");

		printf("# pv: %.*s\n", (int)n, line);
		line += n + (line[n] == '\n');
	}
}

/* This guest's clocksource: "tsc", "hpet", "refined-jiffies"... */
static void current_clocksource(char *name, size_t len)
{
	name[0] = '\0';
	guest_read_file("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			name, len);
	name[strcspn(name, "\n")] = '\0';
}

/*
 * pv_daemon_stalled on a guest whose clock is the tick (booted
 * clocksource=refined-jiffies): a vCPU that spins with interrupts off
 * stops that clock when it is the one that advances jiffies, so the
 * channel's 250 ms are timed by the TSC instead. Native within 1 s of the
 * stop by the guest's clock and by the host's (its host half times the
 * stop to the first page written natively), not frozen until the daemon
 * comes back. Alone (--only): the channel is dead after it.
 */
TEST_F(alone, pv_daemon_stalled_jiffies)
{
	char clock[64];
	long waited_ms;

	current_clocksource(clock, sizeof(clock));
	printf("# clocksource: %s\n", clock);
	ASSERT_TRUE(!strcmp(clock, "refined-jiffies") || !strcmp(clock, "jiffies"))
		TH_LOG("the guest runs on %s: boot it with clocksource=refined-jiffies", clock);
	if (!pv_lose_hypervisor(_metadata, "pv-stop", continue_daemon, &waited_ms))
		return;
	printf("# on %s: waited %ld ms (by the TSC) for the stopped hypervisor\n", clock,
	       waited_ms);
}

/*
 * A hypervisor that answers every call late, by less than the 250 ms a
 * call waits (pvmap-hv's "late 100"): each answer is taken, but once late
 * answers have cost a second of waiting in all the channel is dead and the
 * rest is native, so a slow daemon costs a bounded time, not a bounded
 * time per call. 4 MiB (128 multicalls) through it: the channel dead, and
 * why; the waits on late answers within the budget, what drained meanwhile
 * and one call per vCPU; every byte right (the host checks the pattern,
 * audits, and counts the requests it served late: about a tenth of them).
 */
TEST_F(alone, pv_daemon_slow)
{
	uint64_t off, seed = random_u64();
	char text[512];
	struct device *d;
	long late_ms;
	int fd = -1, ret = 0;

	d = pv_open_aperture(_metadata, &fd);
	if (!d)
		return;
	off = pv_free_offset(d, 4 * MIB);
	if (!guest_host_sync("pv-slow"))
		ret = fail("host did not make pvmap-hv slow");
	if (!ret)
		ret = pwrite_pattern(fd, off, 4 * MIB, seed, true);
	guest_read_file(GUEST_DEBUGFS "/pv", text, sizeof(text));
	late_ms = pv_stat("late_wait_ms: ");
	pv_print(text);
	if (!ret && !strstr(text, "channel: dead"))
		ret = fail("4 MiB through a hypervisor late on every call: the channel is still up");
	if (!ret && !strstr(text, "answered late"))
		ret = fail("the channel is dead, but not for its late answers");
	/* the budget, what drained meanwhile (a tenth), a call's wait on each vCPU */
	if (!ret && (late_ms < 0 || late_ms > 1000 * 10 / 9 + 500 * sysconf(_SC_NPROCESSORS_ONLN)))
		ret = fail("%ld ms waited on late answers: more than the budget, what drained "
			   "and one call per vCPU", late_ms);
	if (!guest_host_sync("pv-slow-done"))
		ret = fail("host did not count");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, pv_audit());
	close(fd);
}

/*
 * A hypervisor made to misbehave at the handshake @on: a 1 MiB PWRITE
 * through it, the channel then dead because it @why, the API's cases
 * passing natively (a released slot faults), the handshake @done (the host
 * checks its side), and the host's audit finding nothing stale.
 */
static void pv_native_after(struct __test_metadata *_metadata, const char *on,
			    const char *done, const char *why)
{
	static const char *const cases[] = { "stale", "nested", "range16", "sleepable1m" };
	uint64_t off, seed = random_u64();
	char text[512];
	struct device *d;
	int fd = -1, ret = 0;

	d = pv_open_aperture(_metadata, &fd);
	if (!d)
		return;	/* the test skips */
	off = pv_free_offset(d, MIB);
	if (!guest_host_sync(on))
		ret = fail("host did not answer %s", on);
	if (!ret)
		ret = pwrite_pattern(fd, off, MIB, seed, true);
	guest_read_file(GUEST_DEBUGFS "/pv", text, sizeof(text));
	pv_print(text);
	if (!ret && !strstr(text, why))
		ret = fail("the channel is not dead because the hypervisor %s", why);
	for (size_t i = 0; !ret && i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pvmap_test_api req = { 0 };

		strcpy(req.name, cases[i]);
		if (guest_test(PVMAP_TEST_API, &req, d->info.aperture_base, d->info.aperture_size) ||
		    req.h.status != PVMAP_TEST_PASS)
			ret = fail("%s, natively: %s", cases[i], req.h.msg);
	}
	if (!guest_host_sync(done))
		ret = fail("host did not answer %s", done);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, pv_audit());
	close(fd);
}

/*
 * A hypervisor that refuses to clear (pvmap-hv's "refuse-clears on"): the
 * PTE would stay live behind the unmap, and the slot be found live by the
 * next map, again and again. The guest clears it itself, ends the channel
 * (one WARN), and every map after it works natively: a 1 MiB PWRITE reads
 * back, the API's cases pass (a released slot faults), and the host's
 * audit finds nothing stale.
 */
TEST_F(alone, pv_refused_clear)
{
	printf("# pvmap-host: expect-warnings 1\n");
	pv_native_after(_metadata, "pv-refuse-clears", "pv-refused", "refused to clear a PTE");
}

/* The driver pvmap's channel device @pci is bound to ("" for none). */
static void pci_driver_of(const char *pci, char *name, size_t len)
{
	char path[300], link[300];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", pci);
	n = readlink(path, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	snprintf(name, len, "%s", strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
}

/* Sleepable maps, then a reload of pvmap (now without a channel): all native. */
static int after_removal(struct device *d)
{
	int ret = sleepable_after_kill(d);

	if (!ret && pvmap_reload())
		ret = -1;
	if (!ret && pv_active())
		ret = fail("a channel is up after its device was removed");
	return ret;
}

/*
 * The channel's device hot-unplugged under a live guest (QMP device_del
 * of the ivshmem-doorbell): bound to pvmap's driver "pvmap-hv" before, its
 * removal ends the channel there and then (said in the log), before the
 * PCI core gives its BARs away; every map after is native: 2 MiB across
 * the removal read back, sleepable maps work, pvmap reloads without it,
 * and the host's audit finds nothing stale.
 */
TEST_F(alone, pv_doorbell_removed)
{
	char pci[256], driver[300];
	uint64_t off, seed = random_u64();
	struct device *d;
	long waited_ms;
	int fd = -1;

	ASSERT_TRUE(doorbell_present(pci, sizeof(pci))) TH_LOG("no ivshmem-doorbell in this guest");
	pci_driver_of(pci, driver, sizeof(driver));
	printf("# the channel %s is bound to \"%s\"\n", pci, driver);
	ASSERT_STREQ("pvmap-hv", driver)
		TH_LOG("the channel's device %s is bound to \"%s\", not pvmap-hv", pci, driver);
	d = pv_open_aperture(_metadata, &fd);
	if (!d)
		return;
	ASSERT_EQ(0, pv_write_across_loss(d, fd, "pv-remove-doorbell", &off, seed, &waited_ms));
	ASSERT_TRUE(guest_kmsg_has("its channel's device was removed"))
		TH_LOG("pvmap never said the channel's device was removed");
	ASSERT_FALSE(doorbell_present(pci, sizeof(pci)))
		TH_LOG("the doorbell %s is still there", pci);
	ASSERT_EQ(0, pv_read_back(fd, off, seed));
	close(fd);	/* before after_removal() reloads pvmap */
	ASSERT_EQ(0, after_removal(d));
	ASSERT_EQ(0, pv_audit());
}

/*
 * A hypervisor that acknowledges what it does not make (pvmap-hv's
 * "fake-acks on": every multicall answered 0, none of it served): a map's
 * slot would point nowhere and the copy into it fault in the kernel, an
 * unmap's PTE stay live. The guest checks each acknowledged update, finds
 * the first map's PTE not made, makes the batch itself and ends the
 * channel: a 1 MiB PWRITE reads back, the API's cases pass natively, and
 * the host's audit finds nothing stale.
 */
TEST_F(alone, pv_daemon_fake_acks)
{
	pv_native_after(_metadata, "pv-fake-acks", "pv-fake-acks-done",
			"acknowledged a PTE update it did not make");
}

TEST_HARNESS_MAIN
