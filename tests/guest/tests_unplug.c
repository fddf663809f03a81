// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-tests: devices going away under their users: hot unplug, unbind,
 * a stalled copy, the window pool, module unload, a display left alone.
 * A feature program of pvmap-tests (feature_list.h).
 */
#include "pvmap-tests.h"

/* --- user buffers that stall the kernel's copy (userfaultfd) ----------------- */

/* One PWRITE or PREAD on its own thread, whose buffer may stall. */
struct stalled_rw {
	pthread_t thread;
	int fd;
	bool write;
	struct pvmap_rw rw;
	int ret, err;
	bool finished;
};

static void *stalled_rw_run(void *arg)
{
	struct stalled_rw *t = arg;

	t->ret = ioctl(t->fd, t->write ? PVMAP_IOC_PWRITE : PVMAP_IOC_PREAD, &t->rw);
	t->err = errno;
	__atomic_store_n(&t->finished, true, __ATOMIC_RELEASE);
	return NULL;
}

static int stalled_rw_start(struct stalled_rw *t, int fd, bool write, uint64_t off,
			    struct guest_stall *st)
{
	*t = (struct stalled_rw){
		.fd = fd, .write = write,
		.rw = { .offset = off, .length = st->len, .user_ptr = (uintptr_t)st->buf },
	};
	if (pthread_create(&t->thread, NULL, stalled_rw_run, t))
		return fail("pthread_create: %s", strerror(errno));
	return 0;
}

/* "done=N of M" or the errno, for the log. */
static const char *stalled_rw_result(const struct stalled_rw *t, char *buf, size_t len)
{
	if (t->ret)
		snprintf(buf, len, "%s", strerror(t->err));
	else
		snprintf(buf, len, "done=%llu of %llu", (unsigned long long)t->rw.done,
			 (unsigned long long)t->rw.length);
	return buf;
}

/* A write of a sysfs file (an unbind, say) on its own thread, which may block. */
struct sysfs_writer {
	pthread_t thread;
	const char *path, *text;
	int ret;
	bool finished;
};

static void *sysfs_writer_run(void *arg)
{
	struct sysfs_writer *w = arg;

	w->ret = guest_write_file(w->path, w->text);
	__atomic_store_n(&w->finished, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Start writing @text to @path and wait up to @timeout_ms: the
 * milliseconds it took, or -1 while it still blocks (then the caller
 * joins w->thread once it has unblocked it).
 */
static long sysfs_write_timed(struct sysfs_writer *w, const char *path, const char *text,
			      int timeout_ms)
{
	struct timespec t0, t1;

	*w = (struct sysfs_writer){ .path = path, .text = text };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pthread_create(&w->thread, NULL, sysfs_writer_run, w)) {
		printf("# pthread_create: %s\n", strerror(errno));
		w->finished = true;
		w->ret = -EAGAIN;
		return 0;
	}
	for (int waited = 0; waited <= timeout_ms; waited += 10) {
		if (__atomic_load_n(&w->finished, __ATOMIC_ACQUIRE)) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			if (w->ret)
				printf("# writing %s to %s: %s\n", text, path, strerror(-w->ret));
			return (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		}
		usleep(10 * 1000);
	}
	return -1;
}

/* After a replug: the ivshmem device bound again, within 10 s. */
static struct device *wait_for_ivshmem(void)
{
	for (int i = 0; i < 100; i++) {
		scan_devices();
		if (find_kind(PVMAP_KIND_IVSHMEM))
			return find_kind(PVMAP_KIND_IVSHMEM);
		usleep(100000);
	}
	return NULL;
}

/*
 * The ivshmem device goes away (QMP device_del) under a writer in the middle
 * of long PWRITEs: the writer gets ENODEV, the module unloads; the device
 * comes back (device_add), binds again, and I/O works.
 */
TEST_F(pvmap, hot_unplug)
{
	static uint8_t data[4 << 20];
	char modparams[256], pci[16];
	uint64_t done, n = 0;
	int fd, p[2], err = 0, ret, info, rm, ins;
	bool unplugged, replugged;
	struct device *d;
	pid_t pid;

	guest_module_params(modparams, sizeof(modparams));
	fd = open_ivshmem(&d);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(p)) TH_LOG("pipe: %s", strerror(errno));
	snprintf(pci, sizeof(pci), "%s", d->info.pci_name);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* write until the device is gone; report how it ended */
		for (;;) {
			if (guest_rw(fd, true, 0, data, sizeof(data), &done)) {
				err = errno;
				break;
			}
			n++;
		}
		_exit(write(p[1], &err, sizeof(err)) == sizeof(err) &&
		      write(p[1], &n, sizeof(n)) == sizeof(n) ? 0 : 1);
	}
	usleep(200000);		/* the writer is under way */
	unplugged = guest_host_sync("unplug");
	if (!unplugged)
		ret = fail("host did not unplug");
	else if (read(p[0], &err, sizeof(err)) != sizeof(err) || read(p[0], &n, sizeof(n)) != sizeof(n))
		ret = fail("the writer did not report");
	else if (err != ENODEV)
		ret = fail("the writer ended with %s, want ENODEV", strerror(err));
	else
		ret = 0;
	waitpid(pid, NULL, 0);
	close(p[0]);
	close(p[1]);
	printf("# writer: %llu x 4 MiB PWRITEs, then %s\n", (unsigned long long)n, strerror(err));
	ASSERT_TRUE(unplugged) TH_LOG("host did not unplug");
	info = ioctl(fd, PVMAP_IOC_INFO, &d->info);
	close(fd);
	/* The module reloaded and the device back before any verdict: the tests after need them. */
	guest_test_unload();
	rm = guest_unload_module("pvmap");
	ins = guest_load_module(GUEST_MODULE_PATH, modparams);
	replugged = guest_host_sync("replug");
	if (replugged)
		wait_for_ivshmem();	/* device_add's hotplug is the guest's to finish */
	ASSERT_EQ(0, ret);
	ASSERT_EQ(-1, info) TH_LOG("INFO on the unplugged device succeeded");
	ASSERT_EQ(0, rm) TH_LOG("rmmod after unplug: %s", strerror(-rm));
	ASSERT_EQ(0, ins) TH_LOG("insmod: %s", strerror(-ins));
	ASSERT_TRUE(replugged) TH_LOG("host did not replug");
	fd = open_ivshmem(&d);
	ASSERT_LE(0, fd) TH_LOG("the device did not come back");
	ret = pwrite_pattern(fd, 4096, 8192, 77, true);
	close(fd);
	ASSERT_EQ(0, ret) TH_LOG("no I/O after the replug");
	ASSERT_TRUE(guest_host_sync("pattern")) TH_LOG("no I/O after the replug");
	printf("# %s unplugged, module unloaded and reloaded, device back as %s\n", pci,
	       d->info.pci_name);
}

/*
 * A process holds an mmap of the ivshmem aperture across its hot-unplug
 * (QMP device_del): the host's auditor sees its user mappings of the
 * aperture before, and none of the old range after; its next access gets
 * SIGBUS. The device comes back (device_add) and binds again. The holder
 * spins on a vCPU of its own meanwhile, so that its page tables are the
 * ones that vCPU has loaded when the host looks (an idle vCPU may have
 * switched to the kernel's).
 */
TEST_F(pvmap, mmap_zapped_on_unplug)
{
	const uint64_t len = 4 * PAGE, off = 2 * MIB;
	struct holder {
		volatile int ready, go, rsig, wsig, done;
	} *h;
	int fd, ret = 0, status;
	struct device *d;
	char pci[16];
	pid_t pid;

	fd = open_ivshmem(&d);
	ASSERT_LE(0, fd);
	snprintf(pci, sizeof(pci), "%s", d->info.pci_name);
	h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, h) TH_LOG("mmap: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		volatile uint8_t *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
		bool ok = map != MAP_FAILED && !pin_cpu(1);

		for (uint64_t i = 0; ok && i < len; i += PAGE)
			ok = !guest_touch(map + i, true);
		h->ready = ok ? 1 : -1;
		while (ok && !h->go)
			;
		if (ok) {
			h->rsig = guest_touch(map, false);
			h->wsig = guest_touch(map + PAGE, true);
		}
		h->done = 1;
		_exit(ok ? 0 : 1);
	}
	while (pid > 0 && !h->ready)
		usleep(10000);
	if (pid < 0 || h->ready < 0)
		ret = fail("the holder could not map and write its pages");
	printf("# pvmap-host: mmap-hold base=%#llx len=%#llx\n",
	       (unsigned long long)(d->info.aperture_base + off), (unsigned long long)len);
	if (!ret && !guest_host_sync("mmap-audit"))
		ret = fail("host did not audit");
	if (!ret && !guest_host_sync("unplug"))
		ret = fail("host did not unplug");
	if (!ret) {
		printf("# pvmap-host: mmap-gone base=%#llx size=%#llx\n",
		       (unsigned long long)d->info.aperture_base,
		       (unsigned long long)d->info.aperture_size);
		if (!guest_host_sync("mmap-audit-gone"))
			ret = fail("host did not audit");
	}
	h->go = 1;
	if (pid > 0 && (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || !h->done))
		ret = fail("the holder died (status %#x)", status);
	if (!ret) {
		printf("# after the unplug, the holder's read: %s, its write: %s\n",
		       h->rsig ? strsignal(h->rsig) : "went through",
		       h->wsig ? strsignal(h->wsig) : "went through");
		if (h->rsig != SIGBUS || h->wsig != SIGBUS)
			ret = fail("want SIGBUS for both");
	}
	munmap((void *)h, sizeof(*h));
	close(fd);
	ASSERT_TRUE(guest_host_sync("replug")) TH_LOG("host did not replug");
	ASSERT_NE(NULL, wait_for_ivshmem()) TH_LOG("%s did not come back", pci);
	ASSERT_EQ(0, ret);
}

/*
 * Unbind and rebind through sysfs: the node goes and comes back, open files
 * get ENODEV, and a mapping made before the unbind gets SIGBUS: its PTEs
 * were zapped before the BAR was given up.
 */
TEST_F(pvmap, unbind_rebind)
{
	struct pvmap_info info;
	volatile uint8_t *map;
	int fd, ret, err, sig, bound, i;
	bool node_gone;
	struct stat st;
	char pci[16];

	ASSERT_GT(scan_devices(), 0) TH_LOG("no pvmap device");
	snprintf(pci, sizeof(pci), "%s", devices[0].info.pci_name);
	fd = open(devices[0].path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", devices[0].path, strerror(errno));
	map = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map) TH_LOG("mmap before the unbind: %s", strerror(errno));
	ASSERT_EQ(0, guest_touch(map, true))
		TH_LOG("mmap before the unbind: the first access faulted");
	ret = guest_write_file(PVMAP_DRIVER "/unbind", pci);
	ASSERT_EQ(0, ret) TH_LOG("unbind %s: %s", pci, strerror(-ret));
	ret = ioctl(fd, PVMAP_IOC_INFO, &info);
	err = errno;
	sig = guest_touch(map, false);
	munmap((void *)map, PAGE);
	close(fd);
	node_gone = stat(devices[0].path, &st) != 0;
	/* bound again before any verdict, so that a failure leaves pvmap its device */
	bound = guest_write_file(PVMAP_DRIVER "/bind", pci);
	ASSERT_EQ(-1, ret)
		TH_LOG("INFO after unbind returned %d (%s), want ENODEV", ret, strerror(err));
	ASSERT_EQ(ENODEV, err)
		TH_LOG("INFO after unbind returned %d (%s), want ENODEV", ret, strerror(err));
	ASSERT_EQ(SIGBUS, sig) TH_LOG("a mapping made before the unbind: %s after it, want SIGBUS",
				      sig ? strsignal(sig) : "still readable");
	ASSERT_TRUE(node_gone) TH_LOG("%s still exists after unbind", devices[0].path);
	ASSERT_EQ(0, bound) TH_LOG("bind %s: %s", pci, strerror(-bound));
	scan_devices();
	for (i = 0; i < ndevices; i++)
		if (!strcmp(devices[i].info.pci_name, pci))
			break;
	ASSERT_LT(i, ndevices) TH_LOG("%s not bound again", pci);
}

/*
 * The kernel copies a user buffer that stalls (userfaultfd, as FUSE can):
 * a PWRITE and a PREAD, each sleeping on its buffer's second page. An
 * unbind must not wait for them: it finishes within 5 s. Once the pages
 * are served each call ends short (done < length) or with ENODEV, and
 * nothing lands past done: not in the aperture for the PWRITE, not in the
 * user buffer for the PREAD. Then the device binds again.
 */
TEST_F(pvmap, unbind_during_stalled_pwrite)
{
	struct guest_stall ws, rs;
	struct stalled_rw w, r;
	uint64_t off, wdone, seed = random_u64();
	uint8_t *check = NULL;
	char pci[16], res[2][64];
	struct sysfs_writer unbind;
	struct device *d;
	long ms;
	int fd, ret;

	fd = open_ivshmem(&d);
	ASSERT_LE(0, fd);
	snprintf(pci, sizeof(pci), "%s", d->info.pci_name);
	/* 4 pages the host's pattern does not use: the PWRITE's 2, then the PREAD's 2 */
	do
		off = (random_u64() % (d->info.aperture_size / PAGE - 4)) * PAGE;
	while (hits_host_pattern(off, 4 * PAGE));
	ASSERT_EQ(0, pwrite_pattern(fd, off, 4 * PAGE, seed, false));
	ret = guest_stall_create(&ws, 2 * PAGE, PAGE);
	if (ret == 1)
		SKIP(return, "no userfaultfd in this kernel");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, guest_stall_create(&rs, 2 * PAGE, PAGE));
	memset(ws.buf, 0xab, PAGE);
	memset(rs.buf, 0xee, PAGE);
	if (stalled_rw_start(&w, fd, true, off, &ws) ||
	    stalled_rw_start(&r, fd, false, off + 2 * PAGE, &rs)) {
		ret = -1;
		goto out;
	}
	if (guest_stall_wait(&ws, 10000) || guest_stall_wait(&rs, 10000)) {
		ret = fail("the PWRITE and PREAD did not both reach their stalled page");
		guest_stall_release(&ws, 0xcd);
		guest_stall_release(&rs, 0);
		pthread_join(w.thread, NULL);
		pthread_join(r.thread, NULL);
		goto out;
	}
	/* the copies stall for good: an unbind behind them never ends; 30 s tells that */
	ms = sysfs_write_timed(&unbind, PVMAP_DRIVER "/unbind", pci, 30000);
	if (ms < 0)
		ret = fail("unbind %s still waiting 30 s after it began, behind the stalled copies",
			   pci);
	else
		printf("# unbind of %s with a PWRITE and a PREAD stalled: %ld ms\n", pci, ms);
	/* serve the pages: the copies go on, or end */
	guest_stall_release(&ws, 0xcd);
	guest_stall_release(&rs, 0);
	pthread_join(w.thread, NULL);
	pthread_join(r.thread, NULL);
	pthread_join(unbind.thread, NULL);
	printf("# once served: PWRITE %s, PREAD %s\n", stalled_rw_result(&w, res[0], 64),
	       stalled_rw_result(&r, res[1], 64));
	for (int i = 0; i < 2; i++) {
		struct stalled_rw *t = i ? &r : &w;

		if (t->ret ? t->err != ENODEV : t->rw.done >= t->rw.length)
			ret = fail("%s after the unbind: %s, want done < length or ENODEV",
				   i ? "PREAD" : "PWRITE", res[i]);
	}
	/* the PREAD wrote the user's buffer up to done, and not a byte past it */
	for (uint64_t i = r.ret ? 0 : r.rw.done; !ret && i < 2 * PAGE; i++)
		if (rs.buf[i] != (i < PAGE ? 0xee : 0))
			ret = fail("PREAD wrote the user's byte %llu, past done",
				   (unsigned long long)i);
out:
	guest_stall_destroy(&ws);
	guest_stall_destroy(&rs);
	close(fd);
	if (guest_write_file(PVMAP_DRIVER "/bind", pci) && scan_devices() >= 0) {
		ASSERT_NE(NULL, find_kind(PVMAP_KIND_IVSHMEM))
			TH_LOG("bind %s again: %s", pci, strerror(errno));
	}
	/* the PWRITE's bytes: its own up to done, the old ones after */
	fd = open_ivshmem(&d);
	check = malloc(2 * PAGE);
	ASSERT_TRUE(fd >= 0 && check) TH_LOG("the device did not come back");
	ASSERT_EQ(0, ret);
	wdone = w.ret ? 0 : w.rw.done;
	ASSERT_EQ(0, guest_rw(fd, false, off, check, 2 * PAGE, NULL))
		TH_LOG("the aperture changed past the PWRITE's done");
	ASSERT_EQ(2 * PAGE - wdone,
		  pvmap_pattern_check(check + wdone, 2 * PAGE - wdone, seed, off + wdone))
		TH_LOG("the aperture changed past the PWRITE's done");
	for (uint64_t i = 0; !w.ret && i < w.rw.done; i++) {
		ASSERT_EQ(i < PAGE ? 0xab : 0xcd, check[i])
			TH_LOG("the aperture's byte %llu is not the PWRITE's",
			       (unsigned long long)i);
	}
	free(check);
	close(fd);
}

/*
 * Nine PWRITEs on one aperture, each stalled on its buffer: more than the
 * pool of sleepable windows. No window may be held across a user fault:
 * a sleepable map and a PWRITE of another aperture complete meanwhile.
 */
TEST_F(pvmap, pool_stalled_writers)
{
	enum { WRITERS = POOL_WINDOWS + 1 };
	struct guest_stall st[WRITERS];
	struct stalled_rw t[WRITERS];
	struct device *d, *other = NULL;
	char res[256];
	int fd, ofd = -1, ret = 0, made = 0, started = 0, status;
	uint64_t done = 0;
	pid_t pid = 0;

	fd = open_ivshmem(&d);
	ASSERT_LE(0, fd);
	for (int i = 0; i < ndevices; i++)
		if (devices[i].info.kind != PVMAP_KIND_IVSHMEM)
			other = &devices[i];
	if (!other)
		SKIP(return, "one aperture only: nothing to block");
	/* no writer has started yet: what a failure here leaves goes with the process */
	for (; made < WRITERS; made++) {
		int r = guest_stall_create(&st[made], 2 * PAGE, PAGE);

		if (r == 1)
			SKIP(return, "no userfaultfd in this kernel");
		ASSERT_EQ(0, r);
	}
	/* the last page of each writer's own 2: away from the host's pattern */
	for (; started < WRITERS; started++) {
		uint64_t off = d->info.aperture_size - (uint64_t)(started + 1) * 2 * PAGE;

		if (hits_host_pattern(off, 2 * PAGE))
			off -= 64 * MIB;
		if (stalled_rw_start(&t[started], fd, true, off, &st[started])) {
			ret = -1;
			goto out;
		}
	}
	for (int i = 0; i < WRITERS; i++)
		if (guest_stall_wait(&st[i], 10000))
			ret = fail("writer %d did not reach its stalled page", i);
	/* the other aperture, from a child: if it hangs, the parent still reports */
	pid = fork();
	if (pid == 0) {
		uint8_t buf[256] = { 0x42 };

		ofd = open(other->path, O_RDWR | O_CLOEXEC);
		if (ofd < 0 || guest_rw(ofd, true, 0, buf, sizeof(buf), &done) || done != sizeof(buf))
			_exit(2);
		struct pvmap_test_api req = { .name = "sleepable4k" };

		if (guest_test(PVMAP_TEST_API, &req, other->info.aperture_base,
			       other->info.aperture_size) || req.h.status != PVMAP_TEST_PASS)
			_exit(3);
		_exit(0);
	}
	for (int waited = 0; waited < 20000; waited += 10) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			pid = 0;
			break;
		}
		usleep(10 * 1000);
	}
	if (pid)
		ret = fail("%s's PWRITE and sleepable map still waiting after 20 s behind %d "
			   "stalled writers", other->path, WRITERS);
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		ret = fail("%s's PWRITE (2) or sleepable map (3) failed: status %d", other->path,
			   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	else
		printf("# with %d PWRITEs stalled on %s: %s's PWRITE and sleepable map done\n",
		       WRITERS, d->path, other->path);
out:
	for (int i = 0; i < made; i++)
		guest_stall_release(&st[i], 0x11);
	for (int i = 0; i < started; i++) {
		pthread_join(t[i].thread, NULL);
		if (!ret && (t[i].ret || t[i].rw.done != 2 * PAGE))
			ret = fail("writer %d once served: %s", i,
				   stalled_rw_result(&t[i], res, sizeof(res)));
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	for (int i = 0; i < made; i++)
		guest_stall_destroy(&st[i]);
	close(fd);
	ASSERT_EQ(0, ret);
}

/*
 * unload_reload's unloads, @fd open on a device (closed here): refused while
 * @fd and then a mapping of it live, then done. 0, or -1 after saying why;
 * it asserts nothing, so that the test can load pvmap again before its
 * verdict.
 */
static int unload_refused_then_done(int fd)
{
	struct stat st;
	void *map;
	int ret;

	ret = guest_unload_module("pvmap");
	if (ret != -EWOULDBLOCK && ret != -EBUSY) {
		close(fd);
		return fail("rmmod with an open file: %s, want EBUSY", strerror(-ret));
	}
	/* a mapping outlives its file descriptor, and holds the module too */
	map = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return fail("mmap: %s", strerror(errno));
	ret = guest_unload_module("pvmap");
	munmap(map, PAGE);
	if (ret != -EWOULDBLOCK && ret != -EBUSY)
		return fail("rmmod with a live mmap: %s, want EBUSY", strerror(-ret));
	ret = guest_unload_module("pvmap");
	if (ret)
		return fail("rmmod: %s", strerror(-ret));
	if (!stat("/sys/module/pvmap", &st) || scan_devices())
		return fail("module or devices still present after rmmod");
	return 0;
}

/* rmmod is refused while a file is open, then works; loading again rebinds. */
TEST_F(pvmap, unload_reload)
{
	char modparams[256];
	int before, fd, ret, reload = 0;
	struct stat st;

	guest_module_params(modparams, sizeof(modparams));
	/* the test modules use pvmap's exports: they go first */
	ret = guest_test_unload();
	if (ret != -ENOENT) {
		ASSERT_EQ(0, ret) TH_LOG("rmmod pvmap_test: %s", strerror(-ret));
	}
	before = scan_devices();
	ASSERT_GT(before, 0) TH_LOG("no pvmap device");
	fd = open(devices[0].path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", devices[0].path, strerror(errno));
	ret = unload_refused_then_done(fd);
	/* loaded again before any verdict, whenever an unload went through */
	if (stat("/sys/module/pvmap", &st))
		reload = guest_load_module(GUEST_MODULE_PATH, modparams);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, reload) TH_LOG("reload: %s", strerror(-reload));
	ASSERT_EQ(before, scan_devices())
		TH_LOG("%d devices after reload, %d before", ndevices, before);
}

/*
 * A VM's own display is not pvmap's unless the administrator asks: loaded
 * with default parameters pvmap binds no std-VGA and no qxl (udev would
 * otherwise race bochs and qxl for the boot display), and its aliases,
 * what udev loads it for, name ivshmem only.
 */
TEST_F(pvmap, display_not_taken)
{
	static const struct { const char *vendor, *device; } displays[] = {
		{ "0x1234", "0x1111" }, { "0x1b36", "0x0100" },
	};
	char path[300], buf[64], link[300];
	int ret = 0, seen = 0, before, aliases = 0;
	struct dirent *de;
	DIR *dir;
	FILE *ko;

	/* the module's aliases: "alias=pci:v...d..." strings in its .modinfo */
	ko = fopen(GUEST_MODULE_PATH, "rb");
	ASSERT_NE(NULL, ko) TH_LOG("%s: %s", GUEST_MODULE_PATH, strerror(errno));
	for (int c, matched = 0; (c = fgetc(ko)) != EOF;) {
		static const char key[] = "alias=pci:v";
		char id[24];

		matched = c == key[matched] ? matched + 1 : c == key[0];
		if (key[matched])
			continue;
		matched = 0;
		if (!fgets(id, 18, ko))
			break;
		aliases++;
		printf("# alias pci:v%s...\n", id);
		if (strncasecmp(id, "00001AF4d00001110", 17))
			ret = fail("pvmap.ko has an alias for pci:v%s, not only ivshmem's", id);
	}
	fclose(ko);
	if (!aliases)
		ret = fail("pvmap.ko has no PCI alias at all");

	before = scan_devices();
	guest_test_unload();
	ASSERT_EQ(0, guest_unload_module("pvmap")) TH_LOG("rmmod pvmap: %s", strerror(errno));
	if (guest_load_module(GUEST_MODULE_PATH, ""))
		ret = fail("insmod pvmap with default parameters failed");
	dir = opendir("/sys/bus/pci/devices");
	while (dir && (de = readdir(dir))) {
		bool display = false;

		for (unsigned int i = 0; i < sizeof(displays) / sizeof(displays[0]); i++) {
			char vendor[16] = "", device[16] = "";

			snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", de->d_name);
			guest_read_file(path, vendor, sizeof(vendor));
			snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device", de->d_name);
			guest_read_file(path, device, sizeof(device));
			display |= !strncmp(vendor, displays[i].vendor, 6) &&
				   !strncmp(device, displays[i].device, 6);
		}
		if (!display)
			continue;
		seen++;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", de->d_name);
		ssize_t n = readlink(path, link, sizeof(link) - 1);

		link[n > 0 ? n : 0] = '\0';
		snprintf(buf, sizeof(buf), "%s", n > 0 ? strrchr(link, '/') + 1 : "no driver");
		printf("# display device %s: %s\n", de->d_name, buf);
		if (!strcmp(buf, "pvmap"))
			ret = fail("pvmap with default parameters took the display %s", de->d_name);
	}
	if (dir)
		closedir(dir);
	/* back to the suite's parameters */
	ASSERT_EQ(0, pvmap_reload());
	ASSERT_EQ(before, scan_devices())
		TH_LOG("%d devices after the reload, %d before", ndevices, before);
	ASSERT_EQ(0, ret);
	if (!seen)
		SKIP(return, "no std-VGA or qxl in this guest");
}

TEST_HARNESS_MAIN
