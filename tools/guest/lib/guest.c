// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the guest's init and test programs; see guest.h. */
#define _GNU_SOURCE
#include "guest.h"

#include <stdint.h>
#include <sys/ioctl.h>

#include <uapi/pvmap_pattern.h>
#include <uapi/pvmap.h>
#include <uapi/pvmap_test.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/userfaultfd.h>

#define HOST_SYNC_TIMEOUT_MS	60000
#define GUEST_PAGE		4096

bool guest_cmdline_get(const char *key, char *buf, size_t len)
{
	char cmdline[4096], want[128];
	char *tok, *save;

	if (guest_read_file("/proc/cmdline", cmdline, sizeof(cmdline)) < 0)
		return false;
	snprintf(want, sizeof(want), "pvtest.%s=", key);
	for (tok = strtok_r(cmdline, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		if (strncmp(tok, want, strlen(want)) == 0) {
			snprintf(buf, len, "%s", tok + strlen(want));
			return true;
		}
	}
	return false;
}

/* pvtest.@key=a=1,b=2 as "a=1 b=2" ("" when absent). */
static void params_from_cmdline(const char *key, char *buf, size_t len)
{
	if (!guest_cmdline_get(key, buf, len))
		buf[0] = '\0';
	for (char *c = buf; *c; c++)
		if (*c == ',')
			*c = ' ';
}

void guest_module_params(char *buf, size_t len)
{
	params_from_cmdline("modparams", buf, len);
}

/* The value of the word "hygiene=..." in @params, or NULL. */
static const char *hygiene_value(const char *params)
{
	for (const char *p = strstr(params, "hygiene="); p; p = strstr(p + 1, "hygiene="))
		if (p == params || p[-1] == ' ')
			return p + strlen("hygiene=");
	return NULL;
}

/* As the kernel's kstrtobool() reads a bool parameter: 0, n, f, d (any case), or "off". */
bool guest_hygiene_off(const char *params)
{
	const char *v = hygiene_value(params);

	return v && (strchr("0nNfFdD", *v) || !strncasecmp(v, "off", 3)) && *v;
}

bool guest_hygiene_given(const char *params)
{
	return hygiene_value(params) != NULL;
}

int guest_test_load(const char *extra)
{
	char params[256];
	struct stat st;
	size_t n;

	/*
	 * Not finit_module() again: that reads the module into vmalloc space
	 * only to free it, and on a debug kernel the vfree() flushes every
	 * CPU's TLB, which tests of stale TLB entries must not get for free.
	 */
	if (!stat("/sys/module/pvmap_test", &st))
		return -EEXIST;
	params_from_cmdline("testparams", params, sizeof(params));
	n = strlen(params);
	snprintf(params + n, sizeof(params) - n, "%s%s", n && extra[0] ? " " : "", extra);
	return guest_load_module(GUEST_TEST_PATH, params);
}

int guest_test_unload(void)
{
	/* the suite and the bench use pvmap_test's exports: they go first */
	guest_unload_module("pvmap_kunit");
	guest_unload_module("pvmap_bench");
	return guest_unload_module("pvmap_test");
}

bool guest_clock_is_icount(void)
{
	char clock[16] = "";

	return guest_cmdline_get("clock", clock, sizeof(clock)) && !strcmp(clock, "icount");
}

bool guest_host_sync(const char *tag)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	char line[256], want[160];
	size_t used = 0;
	/*
	 * With the instruction counter as its clock (run-guest --icount,
	 * sleep=off) an idle guest's time jumps to its next deadline: a
	 * timeout would pass at once. The runner's --timeout bounds the wait.
	 */
	int timeout = guest_clock_is_icount() ? -1 : HOST_SYNC_TIMEOUT_MS;

	snprintf(want, sizeof(want), "pvmap-ack %s", tag);
	printf("pvmap-sync: %s\n", tag);
	fflush(stdout);
	while (poll(&pfd, 1, timeout) > 0) {
		ssize_t n = read(STDIN_FILENO, line + used, sizeof(line) - 1 - used);

		if (n <= 0)
			return false;
		used += n;
		line[used] = '\0';
		if (strstr(line, want))
			return true;
		if (used == sizeof(line) - 1)
			used = 0;
	}
	return false;
}

long guest_read_file(const char *path, char *buf, size_t len)
{
	size_t used = 0;
	ssize_t n = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (used < len - 1 && (n = read(fd, buf + used, len - 1 - used)) > 0)
		used += n;
	n = n < 0 ? -errno : (ssize_t)used;
	buf[used] = '\0';
	close(fd);
	return n;
}

int guest_write_file(const char *path, const char *text)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

int guest_load_module(const char *path, const char *params)
{
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params ? params : "", 0);
	ret = ret ? -errno : 0;
	close(fd);
	return ret;
}

int guest_load_module_dir(const char *dir)
{
	struct dirent **names;
	int n, ret = 0;

	n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char path[300];
		int err;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (names[i]->d_name[0] != '.') {
			err = guest_load_module(path, "");
			if (err && err != -EEXIST && !ret)
				ret = err;
		}
		free(names[i]);
	}
	if (n > 0)
		free(names);
	return ret;
}

int guest_load_drm_modules(void)
{
	return guest_load_module_dir("/lib/modules/drm");
}

int guest_load_drm(const char *params)
{
	int ret = guest_load_drm_modules();

	return ret ? ret : guest_load_module(GUEST_DRM_PATH, params);
}

int guest_open_kind(uint32_t kind, struct pvmap_info *info, char *path, size_t len)
{
	for (int i = 0; i < 8; i++) {
		int fd;

		snprintf(path, len, "/dev/pvmap%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!ioctl(fd, PVMAP_IOC_INFO, info) && info->kind == kind)
			return fd;
		close(fd);
	}
	return -1;
}

bool guest_upstream_fixes(void)
{
	struct utsname uts;

	return !uname(&uts) && strstr(uts.release, GUEST_UPSTREAM_FIXES);
}

int guest_hand_to_host(const void *buf, uint64_t len)
{
	struct pvmap_info info;
	uint64_t done = 0;
	char path[32];
	int fd, ret;

	fd = guest_open_kind(PVMAP_KIND_IVSHMEM, &info, path, sizeof(path));
	if (fd < 0) {
		printf("# no ivshmem aperture to hand %llu bytes to the host\n",
		       (unsigned long long)len);
		return -1;
	}
	ret = info.aperture_size < len ? -1 : guest_rw(fd, true, 0, (void *)buf, len, &done);
	close(fd);
	if (ret || done != len)
		printf("# %s: PWRITE of %llu bytes for the host: %d, %llu done\n", path,
		       (unsigned long long)len, ret, (unsigned long long)done);
	return ret || done != len ? -1 : 0;
}

int guest_drm_stats_path(char *path, size_t len)
{
	/* the device's PCI name: 0000:00:SS.0 */
	for (int slot = 0; slot < 32; slot++) {
		snprintf(path, len, "/sys/kernel/debug/0000:00:%02x.0/pvmap_drm_stats", slot);
		if (access(path, R_OK) == 0)
			return 0;
	}
	path[0] = '\0';
	return -1;
}

int guest_run(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static sigjmp_buf touch_env;

static void touch_caught(int sig)
{
	siglongjmp(touch_env, sig);
}

int guest_touch(volatile uint8_t *p, bool write)
{
	struct sigaction sa = { .sa_handler = touch_caught }, old_bus, old_segv;
	int sig;

	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	sig = sigsetjmp(touch_env, 1);
	if (!sig) {
		if (write)
			*p = 0x5a;
		else
			(void)*p;
	}
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return sig;
}

int guest_unload_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

int guest_test(unsigned long cmd, void *req, uint64_t base, uint64_t size)
{
	struct pvmap_test_head *h = req;
	bool bench = _IOC_NR(cmd) >= _IOC_NR(PVMAP_BENCH_RUN);
	const char *file = bench ? "/sys/kernel/debug/pvmap_bench" : "/sys/kernel/debug/pvmap_test";
	struct stat st;
	int fd, ret;

	h->base = base;
	h->size = size;
	h->status = PVMAP_TEST_FAIL;
	ret = guest_test_load("");
	if (ret == -EEXIST)
		ret = 0;
	/* pvmap_bench uses pvmap_test's exports: loaded after it */
	if (!ret && bench && stat("/sys/module/pvmap_bench", &st))
		ret = guest_load_module(GUEST_BENCH_PATH, "");
	if (ret) {
		snprintf(h->msg, sizeof(h->msg), "cannot load the test modules: %s",
			 strerror(-ret));
		return ret;
	}
	fd = open(file, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(h->msg, sizeof(h->msg), "open %s: %s", file, strerror(errno));
		return ret;
	}
	ret = ioctl(fd, cmd, req) ? -errno : 0;
	if (ret)
		snprintf(h->msg, sizeof(h->msg), "ioctl %#lx: %s", cmd, strerror(-ret));
	close(fd);
	return ret;
}

const char *guest_memtype_name(uint32_t type)
{
	static const char *const names[] = {
		[PVMAP_MEMTYPE_NONE] = "none", [PVMAP_MEMTYPE_UC_MINUS] = "uc-",
		[PVMAP_MEMTYPE_UC] = "uc", [PVMAP_MEMTYPE_WB] = "wb", [PVMAP_MEMTYPE_WT] = "wt",
		[PVMAP_MEMTYPE_WC] = "wc", [PVMAP_MEMTYPE_WP] = "wp", [PVMAP_MEMTYPE_OTHER] = "?",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}

void guest_facilities_text(const struct pvmap_test_facilities *f, char *buf, size_t len)
{
	uint32_t fl = f->flags;

	snprintf(buf, len, "kmemleak=%d lockdep=%d debug_pagealloc=%d debug_kmap_local=%d "
		 "debug_atomic_sleep=%d pti=%d pat=%d highmem=%d paging=%u",
		 !!(fl & PVMAP_TEST_F_KMEMLEAK), !!(fl & PVMAP_TEST_F_LOCKDEP),
		 !!(fl & PVMAP_TEST_F_DEBUG_PAGEALLOC), !!(fl & PVMAP_TEST_F_DEBUG_KMAP_LOCAL),
		 !!(fl & PVMAP_TEST_F_DEBUG_ATOMIC_SLEEP), !!(fl & PVMAP_TEST_F_PTI),
		 !!(fl & PVMAP_TEST_F_PAT), !!(fl & PVMAP_TEST_F_HIGHMEM), f->paging);
}

/* pvmap_kunit.c's one KUnit case, its parameters the table's cases */
#define KUNIT_CASE	"api_case"

/* A KTAP result line's verdict, *@desc its description; -1 for another line. */
static int ktap_result(char *line, char **desc)
{
	char *p = line + strspn(line, " \t");
	bool ok = !strncmp(p, "ok ", 3);

	if (!ok && strncmp(p, "not ok ", 7))
		return -1;
	p += ok ? 3 : 7;
	*desc = p + strspn(p, "0123456789 ");
	if (!ok)
		return PVMAP_TEST_FAIL;
	return strstr(*desc, "# SKIP") ? PVMAP_TEST_SKIP : PVMAP_TEST_PASS;
}

/*
 * Case @name's verdict in @results, the debugfs log of pvmap_kunit's one
 * parameterized case run for @name alone: the parameter's line, found by
 * its exact name ("ok 1 range2", "not ok 1 stale"), then the KUnit case's
 * ("ok 1 api_case # SKIP why"), which says a skip that 6.1 does not mark on
 * a parameter's line. PASS, FAIL or SKIP, the line and the case's last
 * "# api_case: " diagnostic (or the skip's reason) in @msg; -1 for no line.
 */
static int kunit_case_status(char *results, const char *name, char *msg, size_t len)
{
	static const char tag[] = "# " KUNIT_CASE ": ";
	char *line, *save, *p, *desc, *found = NULL, *why = "";
	size_t n = strlen(name);
	int status = -1, st;

	for (line = strtok_r(results, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		p = line + strspn(line, " \t");
		if (!found && !strncmp(p, tag, strlen(tag)))
			why = p + strlen(tag);
		st = ktap_result(p, &desc);
		if (st < 0)
			continue;
		if (found) {	/* the KUnit case's line, after its parameter's */
			if (status == PVMAP_TEST_PASS && st == PVMAP_TEST_SKIP) {
				status = st;
				why = strstr(desc, "# SKIP") + strlen("# SKIP");
				why += strspn(why, " ");
			}
			break;
		}
		if (!strncmp(desc, name, n) && (!desc[n] || desc[n] == ' ')) {
			found = p;
			status = st;
		}
	}
	if (found)
		snprintf(msg, len, "%s%s%s", found, why[0] ? ": " : "", why);
	return status;
}

#define KUNIT_PARAMS	"/sys/module/pvmap_test/parameters/"

/* Case @name through pvmap_kunit.ko, loaded for it alone and unloaded after. */
static int api_case_kunit(const char *name, uint64_t base, uint64_t size,
			  struct pvmap_test_api *req)
{
	static char results[16384];
	char params[160], warns[16] = "0";
	int ret, status;

	ret = guest_test_load("");
	if (ret && ret != -EEXIST)
		return ret;
	guest_unload_module("pvmap_kunit");
	/* the suite runs as it loads: its aperture and case are pvmap_test's parameters */
	snprintf(params, sizeof(params), "%llu", (unsigned long long)base);
	ret = guest_write_file(KUNIT_PARAMS "kunit_base", params);
	snprintf(params, sizeof(params), "%llu", (unsigned long long)size);
	ret = ret ?: guest_write_file(KUNIT_PARAMS "kunit_size", params);
	ret = ret ?: guest_write_file(KUNIT_PARAMS "kunit_only", name);
	ret = ret ?: guest_load_module(GUEST_KUNIT_PATH, "");
	if (ret) {
		snprintf(req->h.msg, sizeof(req->h.msg), "load %s: %s", GUEST_KUNIT_PATH,
			 strerror(-ret));
		return ret;
	}
	guest_read_file("/sys/module/pvmap_kunit/parameters/misuse_warns", warns, sizeof(warns));
	req->warns = atoi(warns);
	ret = guest_read_file("/sys/kernel/debug/kunit/pvmap_api/results", results,
			      sizeof(results));
	guest_unload_module("pvmap_kunit");
	if (ret < 0) {
		snprintf(req->h.msg, sizeof(req->h.msg), "no KUnit results: %s", strerror(-ret));
		return ret;
	}
	status = kunit_case_status(results, name, req->h.msg, sizeof(req->h.msg));
	if (status < 0) {
		snprintf(req->h.msg, sizeof(req->h.msg), "no KUnit result for %s", name);
		return -ENOENT;
	}
	req->h.status = status;
	return 0;
}

int guest_api_case(const char *name, uint64_t base, uint64_t size, struct pvmap_test_api *req,
		   const char **how)
{
	struct stat st;

	memset(req, 0, sizeof(*req));
	if (strlen(name) >= sizeof(req->name)) {
		snprintf(req->h.msg, sizeof(req->h.msg), "no case named %.64s...", name);
		return -EINVAL;
	}
	strcpy(req->name, name);
	/*
	 * A kernel with KUnit runs the cases there, and only there: without
	 * pvmap_kunit.ko in its initramfs the case fails rather than falling
	 * back to the ioctl unnoticed, so the KUnit suite cannot go missing.
	 */
	if (!stat("/sys/kernel/debug/kunit", &st)) {
		*how = "KUnit suite pvmap_api (pvmap_kunit.ko)";
		if (stat(GUEST_KUNIT_PATH, &st)) {
			snprintf(req->h.msg, sizeof(req->h.msg),
				 "this kernel has KUnit, but no %s", GUEST_KUNIT_PATH);
			return -ENOENT;
		}
		return api_case_kunit(name, base, size, req);
	}
	*how = "pvmap_test.ko's PVMAP_TEST_API (no KUnit in this kernel)";
	return guest_test(PVMAP_TEST_API, req, base, size);
}

void guest_print_live(void)
{
	static char live[65536];
	char *line, *save;

	if (guest_read_file(GUEST_DEBUGFS "/live", live, sizeof(live)) < 0)
		return;
	for (line = strtok_r(live, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		printf("# pvmap-host: live %s\n", line);
}

int guest_hazard_scenario(unsigned long long base, unsigned long long size, bool *landed)
{
	struct pvmap_test_hazard req = { 0 };

	if (guest_test(PVMAP_TEST_HAZARD_MAP, &req, base, size) ||
	    req.h.status != PVMAP_TEST_PASS) {
		printf("# hazard_map: %s\n", req.h.msg);
		return -1;
	}
	printf("# pvmap-host: hazard off=%#llx va=%#lx mode=%s\n", (unsigned long long)req.offset,
	       (unsigned long)req.va, req.demo ? "hazard" : "normal");
	if (!guest_host_sync("hazard-reassign"))
		return -1;
	if (guest_test(PVMAP_TEST_HAZARD_WRITE, &req, base, size) ||
	    req.h.status != PVMAP_TEST_PASS) {
		printf("# hazard_write: %s\n", req.h.msg);
		return -1;
	}
	*landed = req.landed;
	printf("# pvmap-host: hazard-write %s\n", *landed ? "landed" : "faulted");
	guest_print_live();
	return guest_host_sync("hazard-check") ? 0 : -1;
}

int guest_rw(int fd, bool write, uint64_t off, void *buf, uint64_t len, uint64_t *done)
{
	struct pvmap_rw rw = { .offset = off, .length = len, .user_ptr = (uintptr_t)buf };
	int ret = ioctl(fd, write ? PVMAP_IOC_PWRITE : PVMAP_IOC_PREAD, &rw);

	if (done)
		*done = rw.done;
	return ret;
}

static int pwrite_all(int fd, unsigned long long off, void *buf, unsigned long long len)
{
	uint64_t done;

	return guest_rw(fd, true, off, buf, len, &done) || done != len ? -1 : 0;
}

int guest_capture_trace(int fd, unsigned long long size, unsigned long long off)
{
	static char trace[512 * 1024];
	static uint8_t data[1 << 20];
	const char *event = GUEST_TRACEFS "/events/pvmap/pvmap_pte/enable";
	int ret, sets = 0, clear;
	long len;

	/* opened for writing with O_TRUNC, tracefs's trace file empties the buffer */
	clear = open(GUEST_TRACEFS "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (clear < 0 || guest_write_file(event, "1")) {
		printf("# cannot enable the trace event pvmap:pvmap_pte\n");
		if (clear >= 0)
			close(clear);
		return -1;
	}
	close(clear);
	pvmap_pattern_fill(data, sizeof(data), off, off);
	ret = pwrite_all(fd, off, data, sizeof(data));
	guest_write_file(event, "0");
	len = guest_read_file(GUEST_TRACEFS "/trace", trace, sizeof(trace));
	if (ret || len <= 0 || (size_t)len >= sizeof(trace) - 1) {
		printf("# no trace (%ld)\n", len);
		return -1;
	}
	printf("# pvmap-host: pattern off=%#llx len=%#x seed=%#llx\n", off, (unsigned int)sizeof(data),
	       off);
	for (char *p = trace; (p = strstr(p, " pvmap_pte: S ")); p++)
		sets++;
	printf("# trace of a 1 MiB PWRITE: %ld bytes, %d PTE sets\n", len, sets);
	if (pwrite_all(fd, size - (1 << 20), trace, len)) {
		printf("# cannot hand the trace over\n");
		return -1;
	}
	printf("# pvmap-host: trace off=%#llx len=%#lx\n", size - (1 << 20), len);
	if (!guest_host_sync("trace") || !guest_host_sync("pattern"))
		return -1;
	return sets;
}

bool guest_kmsg_has(const char *text)
{
	char rec[2048];
	bool found = false;
	ssize_t n;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	/* one record a read; EPIPE: some were overwritten, read on */
	while (!found && ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE))) {
		if (n > 0) {
			rec[n] = '\0';
			found = strstr(rec, text) != NULL;
		}
	}
	close(fd);
	return found;
}

int guest_stall_create(struct guest_stall *s, size_t len, size_t stall_at)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };

	memset(s, 0, sizeof(*s));
	s->uffd = -1;
	s->len = len;
	s->stall_at = stall_at;
	s->buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->buf == MAP_FAILED) {
		s->buf = NULL;
		printf("# mmap: %s\n", strerror(errno));
		return -1;
	}
	/* the pages before the stall are there */
	memset(s->buf, 0, stall_at);
	s->uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (s->uffd < 0) {
		int err = errno;

		printf("# userfaultfd: %s\n", strerror(err));
		guest_stall_destroy(s);
		return err == ENOSYS ? 1 : -1;
	}
	reg.range.start = (uintptr_t)s->buf + stall_at;
	reg.range.len = len - stall_at;
	if (ioctl(s->uffd, UFFDIO_API, &api) || ioctl(s->uffd, UFFDIO_REGISTER, &reg)) {
		printf("# userfaultfd set-up: %s\n", strerror(errno));
		guest_stall_destroy(s);
		return -1;
	}
	return 0;
}

int guest_stall_wait(struct guest_stall *s, int timeout_ms)
{
	struct pollfd pfd = { .fd = s->uffd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&pfd, 1, timeout_ms) != 1 || read(s->uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		return -1;
	return 0;
}

int guest_stall_release(struct guest_stall *s, uint8_t fill)
{
	static uint8_t page[GUEST_PAGE] __attribute__((aligned(GUEST_PAGE)));
	int ret = 0;

	memset(page, fill, sizeof(page));
	for (size_t off = s->stall_at; off < s->len; off += GUEST_PAGE) {
		struct uffdio_copy copy = {
			.dst = (uintptr_t)s->buf + off, .src = (uintptr_t)page, .len = GUEST_PAGE,
		};

		/* EEXIST: served already */
		if (ioctl(s->uffd, UFFDIO_COPY, &copy) && errno != EEXIST) {
			printf("# UFFDIO_COPY at +%#zx: %s\n", off, strerror(errno));
			ret = -1;
		}
	}
	return ret;
}

void guest_stall_destroy(struct guest_stall *s)
{
	if (s->uffd >= 0)
		close(s->uffd);
	if (s->buf)
		munmap(s->buf, s->len);
	s->uffd = -1;
	s->buf = NULL;
}
