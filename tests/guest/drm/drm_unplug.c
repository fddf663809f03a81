// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-drm-tests, the card unplugged: under forked holders of its mappings,
 * with its module, and (alone) under an UPLOAD whose source stalls.
 * A harness program of its own (feature_list.h, ../run_features.h).
 */
#define _GNU_SOURCE
#include "result.h"
#include "drm_tests.h"

/* MemFree of /proc/meminfo in KiB; -1 when unreadable. */
static long long mem_free_kib(void)
{
	char buf[4096], *at;

	if (guest_read_file("/proc/meminfo", buf, sizeof(buf)) <= 0 ||
	    !(at = strstr(buf, "MemFree:")))
		return -1;
	return strtoll(at + 8, NULL, 10);
}

/* card0's PCI device name ("0000:00:05.0") in @name; 0 or -1. */
static int card_pci_name(char *name, size_t len)
{
	char link[256], *base;
	ssize_t n = readlink("/sys/class/drm/card0/device", link, sizeof(link) - 1);

	if (n <= 0)
		return -1;
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (strlen(base) >= len)
		return -1;
	memcpy(name, base, strlen(base) + 1);
	return 0;
}

/* Wait up to 10 s for card0 to be there (@there) or gone; true when it was. */
static bool card_wait(bool there)
{
	for (int i = 0; i < 100; i++) {
		if ((access(CARD, F_OK) == 0) == there)
			return true;
		usleep(100 * 1000);
	}
	return false;
}

#define FORK_MAPS	8000	/* one-page mmaps of one buffer */
#define FORK_CHILDREN	3
/* what the children may cost while they live: 1 KiB, a quarter page, a mapping and child */
#define FORK_BOUND_KIB	(FORK_MAPS * FORK_CHILDREN)

/* The holder's end of the test, as uid 65534: 0, or -1 after a line on why not. */
static int fork_holder(int fd, int cmd, int report)
{
	struct drm_mode_map_dumb m = { 0 };
	volatile uint8_t **maps, *other;
	int release[2], status, bad = 0;
	struct dumb x, y;
	char c;

	if (setgroups(0, NULL) || setgid(65534) || setuid(65534) || getuid() != 65534)
		return fail("cannot become uid 65534: %s", strerror(errno));
	maps = calloc(FORK_MAPS, sizeof(*maps));
	if (!maps || dumb_create(fd, 64, 64, &x) || dumb_create(fd, 64, 64, &y))
		return fail("buffers as uid 65534: %s", strerror(errno));
	m.handle = x.handle;
	if (ioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &m))
		return fail("MAP_DUMB: %s", strerror(errno));
	for (int i = 0; i < FORK_MAPS; i++) {
		maps[i] = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, m.offset);
		if (maps[i] == MAP_FAILED)
			return fail("mmap %d of %d: %s", i, FORK_MAPS, strerror(errno));
	}
	other = y.map;
	/* none touched: fork() copies them without a PTE, each child faults each */
	if (write(report, "R", 1) != 1 || read(cmd, &c, 1) != 1 || c != 'U' || pipe(release))
		return fail("the test's command");
	for (int k = 0; k < FORK_CHILDREN; k++) {
		if (fork() == 0) {
			close(release[1]);
			for (int i = 0; i < FORK_MAPS; i++) {
				(void)*maps[i];
				*maps[i] = 0x5a;	/* a signal here ends the child */
			}
			if (write(report, "T", 1) != 1)
				_exit(2);
			_exit(read(release[0], &c, 1) == 0 ? 0 : 3);
		}
	}
	close(release[0]);
	if (read(cmd, &c, 1) != 1 || c != 'X')
		return fail("the test's command");
	close(release[1]);	/* the children go */
	for (int k = 0; k < FORK_CHILDREN; k++) {
		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fail("a child that touched the %d mappings: status %#x%s%s", FORK_MAPS,
			     status, WIFSIGNALED(status) ? ", " : "",
			     WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "");
			bad = -1;
		}
	}
	/* another buffer's mapping: a page of its own, none of the writes above */
	if (guest_touch(other, false) || *other) {
		fail("a mapping of another buffer reads %#x after the children wrote 0x5a",
		     *other);
		bad = -1;
	}
	if (write(report, "E", 1) != 1)
		bad = -1;
	/* then wait, every mapping held, until the test closes its end */
	while (read(cmd, &c, 1) == 1)
		;
	return bad;
}

/*
 * An unprivileged process (uid 65534) holds 8000 one-page mappings of a
 * buffer, none touched; pvmap_drm is unbound (its remove: drm_dev_unplug(),
 * as at a hot-unplug); the process forks three children, each of which
 * reads and writes every mapping. What they cost, MemFree from after the
 * unplug on, must be bounded (less than a quarter page a mapping and child:
 * no page of RAM each) and come back when they exit, while the holder
 * keeps its mappings. A mapping of another buffer does not see their
 * writes. Then pvmap_drm binds the device again, for the tests after it.
 */
TEST_F(pvmap, drm_unplug_fork_bounded)
{
	char pci[64], path[128], c = 0;
	long long m0 = -1, m1 = -1, m2 = -1;
	int cmd[2], report[2], fd, status = 0, ret = 0, touched = 0;
	pid_t holder;

	ASSERT_EQ(0, card_pci_name(pci, sizeof(pci))) TH_LOG("no PCI device behind %s", CARD);
	fd = open_card();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(cmd)) TH_LOG("pipe: %s", strerror(errno));
	ASSERT_EQ(0, pipe(report)) TH_LOG("pipe: %s", strerror(errno));
	holder = fork();
	if (holder == 0) {
		close(cmd[1]);
		close(report[0]);
		_exit(fork_holder(fd, cmd[0], report[1]) ? 1 : 0);
	}
	close(cmd[0]);
	close(report[1]);
	/*
	 * From here on a failure is recorded in ret and goes to out: the holder
	 * ends, and the device goes back to pvmap_drm, before the test ends.
	 */
	if (holder < 0 || read(report[0], &c, 1) != 1 || c != 'R') {
		TH_LOG("the holder did not map the buffer");
		ret = -1;
		goto out;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/pvmap_drm/unbind");
	if (guest_write_file(path, pci) || !card_wait(false)) {
		TH_LOG("unbind %s from pvmap_drm: %s still there", pci, CARD);
		ret = -1;
		goto out;
	}
	/* after what the unbind frees (fbdev's shadow): a second of MemFree at rest */
	for (int i = 0; i < 20; i++) {
		m0 = mem_free_kib();
		usleep(250 * 1000);
		if (llabs(mem_free_kib() - m0) < 256)
			break;
	}
	if (write(cmd[1], "U", 1) != 1) {
		TH_LOG("the holder is gone");
		ret = -1;
		goto out;
	}
	while (touched < FORK_CHILDREN && read(report[0], &c, 1) == 1 && c == 'T')
		touched++;
	m1 = mem_free_kib();
	if (touched < FORK_CHILDREN || write(cmd[1], "X", 1) != 1 ||
	    read(report[0], &c, 1) != 1 || c != 'E') {
		TH_LOG("%d of %d children touched their mappings", touched, FORK_CHILDREN);
		ret = -1;
		goto out;
	}
	/* the children are gone; what they freed may take a moment (RCU) */
	for (int i = 0; i < 50 && m0 - (m2 = mem_free_kib()) > FORK_BOUND_KIB / 4; i++)
		usleep(100 * 1000);
	printf("# MemFree after the unplug: %lld KiB with the holder's %d mappings; %lld "
	       "(%+lld) with %d children that touched each; %lld (%+lld) once they exited; "
	       "bound -%d KiB\n", m0, FORK_MAPS, m1, m1 - m0, FORK_CHILDREN, m2, m2 - m0,
	       FORK_BOUND_KIB);
	if (m0 - m1 > FORK_BOUND_KIB) {
		TH_LOG("%d children's faults on %d mappings after the unplug took %lld KiB",
		       FORK_CHILDREN, FORK_MAPS, m0 - m1);
		ret = -1;
	} else if (m0 - m2 > FORK_BOUND_KIB / 4) {
		TH_LOG("%lld KiB not back once the children exited", m0 - m2);
		ret = -1;
	}
out:
	close(cmd[1]);		/* the holder goes */
	if (holder > 0 && (waitpid(holder, &status, 0) != holder || !WIFEXITED(status) ||
			   WEXITSTATUS(status))) {
		TH_LOG("the holder: status %#x", status);
		ret = -1;
	}
	close(report[0]);
	close(fd);
	/* the device back to pvmap_drm for the tests after this one */
	if (access(CARD, F_OK)) {
		snprintf(path, sizeof(path), "/sys/bus/pci/drivers/pvmap_drm/bind");
		if (guest_write_file(path, pci) || !card_wait(true)) {
			TH_LOG("bind %s to pvmap_drm again: no %s", pci, CARD);
			ret = -1;
		}
	}
	ASSERT_EQ(0, ret);
}

/*
 * The host unplugs the std-VGA while this process holds a mapping of a
 * buffer: the mapping no longer reaches VRAM (its PTEs were zapped) but the
 * buffer's zeroed page of RAM, read and written without a signal, as TTM's
 * mappings are, so that a display server survives; the file's ioctls fail,
 * nothing oopses, and the module unloads once the file is closed.
 */
TEST_F(pvmap, drm_unplug)
{
	struct drm_mode_create_dumb c = { .width = 64, .height = 64, .bpp = 32 };
	struct dumb b;
	int fd, sig, i;

	fd = open_card();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dumb_create(fd, 256, 256, &b)) TH_LOG("CREATE_DUMB: %s", strerror(errno));
	memset(b.map, 0x5a, b.size);
	ASSERT_TRUE(guest_host_sync("drm-unplug")) TH_LOG("host did not unplug");
	/* the card unplugged: a failure is recorded, and the module unloaded below all the same */
	for (i = 0; i < 100 && access(CARD, F_OK) == 0; i++)
		usleep(100 * 1000);
	EXPECT_NE(0, access(CARD, F_OK)) TH_LOG("%s still there 10 s after the unplug", CARD);
	sig = guest_touch(b.map, false);
	/* read before the write below: every page of the mapping is that one page */
	if (!sig) {
		EXPECT_FALSE(b.map[0] || b.map[b.size - 1])
			TH_LOG("the mapping reads %#x and %#x, not a zeroed page (VRAM held 0x5a)",
			       b.map[0], b.map[b.size - 1]);
	}
	if (!sig)
		sig = guest_touch(b.map + b.size - 1, true);
	printf("# after the unplug: touching the mapping raised %s, CREATE_DUMB gives %s\n",
	       sig ? strsignal(sig) : "nothing",
	       ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &c) ? strerror(errno) : "a buffer");
	EXPECT_EQ(0, sig) TH_LOG("the mapping raised signal %d after the unplug", sig);
	munmap(b.map, b.size);
	close(fd);
	i = guest_unload_module("pvmap_drm");
	ASSERT_EQ(0, i) TH_LOG("pvmap_drm does not unload: %s", strerror(-i));
}

/* One UPLOAD on its own thread, whose source may stall. */
struct upload_job {
	pthread_t thread;
	int fd, ret, err;
	struct drm_pvmap_drm_upload up;
	bool finished;
};

static void *upload_run(void *arg)
{
	struct upload_job *j = arg;

	j->ret = ioctl(j->fd, DRM_IOCTL_PVMAP_DRM_UPLOAD, &j->up);
	j->err = errno;
	__atomic_store_n(&j->finished, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Tests run alone (-t NAME): pvmap_drm loaded for them, as drm_probe does. */
FIXTURE(alone) {};
FIXTURE_SETUP(alone)
{
	int ret = guest_load_drm("");

	ASSERT_TRUE(!ret || ret == -EEXIST) TH_LOG("load %s: %s", GUEST_DRM_PATH, strerror(-ret));
	test_setup();	/* after the load: its messages drained, its stats file found */
}
FIXTURE_TEARDOWN(alone)
{
	fflush(NULL);
}

/*
 * An UPLOAD whose source stalls (its fifth line on a page userfaultfd
 * holds back, as FUSE can) while the host device_dels the card: the
 * unplug must not wait for it (the host gets DEVICE_DELETED within 10 s,
 * host test device_del_during_stalled_upload), the card goes, and once
 * the page is served the UPLOAD ends with ENODEV. Run alone (-t NAME): the
 * card is gone after it.
 */
TEST_F(alone, device_del_during_stalled_upload)
{
	struct upload_job job = { 0 };
	struct guest_stall st;
	struct dumb b;
	int fd, ret = 0, i;

	fd = open_card();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dumb_create(fd, 256, 16, &b))	/* 1 KiB lines: four to a page */
		TH_LOG("CREATE_DUMB: %s", strerror(errno));
	munmap(b.map, b.size);
	b.map = NULL;
	ret = guest_stall_create(&st, 4 * PAGE, PAGE);
	if (ret == 1)
		SKIP(return, "no userfaultfd in this kernel");
	ASSERT_EQ(0, ret);
	job.fd = fd;
	job.up = (struct drm_pvmap_drm_upload){
		.handle = b.handle, .width = 256, .height = 16, .stride = 1024,
		.data = (uintptr_t)st.buf,
	};
	ASSERT_EQ(0, pthread_create(&job.thread, NULL, upload_run, &job))
		TH_LOG("pthread_create: %s", strerror(errno));
	/*
	 * From here on a failure is recorded in ret: the stalled page is served
	 * and the UPLOAD waited for, as when none failed, before the test ends.
	 */
	if (guest_stall_wait(&st, 10000)) {
		TH_LOG("the UPLOAD never reached its stalled page");
		ret = -1;
		goto release;
	}
	if (!guest_host_sync("drm-unplug-stalled")) {
		TH_LOG("host did not unplug");
		ret = -1;
		goto release;
	}
	for (i = 0; i < 100 && access(CARD, F_OK) == 0; i++)
		usleep(100 * 1000);
	if (access(CARD, F_OK) == 0) {
		TH_LOG("%s still there 10 s after device_del, behind the stalled UPLOAD", CARD);
		ret = -1;
	}
release:
	guest_stall_release(&st, 0x77);
	for (i = 0; i < 1000 && !__atomic_load_n(&job.finished, __ATOMIC_ACQUIRE); i++)
		usleep(10 * 1000);
	if (!job.finished) {
		TH_LOG("the UPLOAD still runs 10 s after its page was served");
		ret = -1;
		goto out;	/* the thread goes on: no join */
	}
	pthread_join(job.thread, NULL);
	printf("# once served: UPLOAD %s\n", job.ret ? strerror(job.err) : "succeeded");
	if (!ret && (job.ret != -1 || job.err != ENODEV)) {
		TH_LOG("UPLOAD after the unplug: %s, want ENODEV",
		       job.ret ? strerror(job.err) : "success");
		ret = -1;
	}
out:
	guest_stall_destroy(&st);
	close(fd);
	ASSERT_EQ(0, ret);
}

TEST_HARNESS_MAIN
