/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest's init and test programs: KTAP output, the
 * kernel command line, and the host handshake over the serial console.
 */
#ifndef PVMAP_GUEST_H
#define PVMAP_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A test's failure: "# why" on the console, and -1 for the caller to return. */
#define fail(...) ({ printf("# " __VA_ARGS__); printf("\n"); -1; })
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define GUEST_MODULE_PATH	"/lib/modules/pvmap.ko"
/* guest/pvmap_test/: the test driver, the bench engines, the KUnit suite (project kernels) */
#define GUEST_TEST_PATH		"/lib/modules/pvmap_test.ko"
#define GUEST_BENCH_PATH	"/lib/modules/pvmap_bench.ko"
#define GUEST_KUNIT_PATH	"/lib/modules/pvmap_kunit.ko"
#define GUEST_DRM_PATH		"/lib/modules/pvmap_drm.ko"
#define GUEST_DEBUGFS		"/sys/kernel/debug/pvmap"
#define GUEST_TRACEFS		"/sys/kernel/tracing"
/* pvmap_test's demonstration of a stale mapping; pvmap.ko has none */
#define GUEST_HAZARD_PARAM	"/sys/module/pvmap_test/parameters/hazard_demo"
/*
 * In the release of the kernels built with docs/upstream/'s patches
 * (tools/host/kconfig/upstream-fixes.config): mainline's io_mapping flushes
 * on unmap there without HIGHMEM, as it does not upstream.
 */
#define GUEST_UPSTREAM_FIXES	"-pvmap-upstream"

/*
 * Value of "pvtest.@key=" on the kernel command line copied into @buf, or
 * false when absent. The "pvtest." prefix keeps the kernel from handing the
 * options to a module or to init's environment.
 */
bool guest_cmdline_get(const char *key, char *buf, size_t len);
/* Whether the guest's clock counts instructions (run-guest --icount: pvtest.clock=icount). */
bool guest_clock_is_icount(void);

/* pvtest.modparams= with its commas turned into spaces ("" when absent). */
void guest_module_params(char *buf, size_t len);
/*
 * Whether @params (guest_module_params()) opt out of clear-on-unmap with
 * hygiene=0 (or n, N): x86_64's whole-aperture mapping. The default is on.
 */
bool guest_hygiene_off(const char *params);
/* Whether @params name hygiene= at all, either way. */
bool guest_hygiene_given(const char *params);

/*
 * Load pvmap_test.ko with pvtest.testparams= (commas turned into
 * spaces) and @extra; 0 or -errno (-EEXIST when it is loaded already).
 */
int guest_test_load(const char *extra);
/* Unload the test modules (KUnit suite, bench, driver); 0 or pvmap_test's -errno. */
int guest_test_unload(void);

/*
 * Ask the host runner to act now (read QMP, check a file) while the guest
 * waits; true when the host acknowledged @tag within its timeout.
 */
bool guest_host_sync(const char *tag);

/* Read a small text file into @buf (NUL-terminated); bytes read or -errno. */
long guest_read_file(const char *path, char *buf, size_t len);
/* Write @text to @path (a sysfs attribute, say); 0 or -errno. */
int guest_write_file(const char *path, const char *text);

/*
 * Every module in @dir (N-NAME.ko, in N's order: the initramfs numbers them
 * in load order); 0 or the first -errno but EEXIST, the rest still tried.
 */
int guest_load_module_dir(const char *dir);
/* The DRM modules a Debian kernel has as modules (/lib/modules/drm; none elsewhere). */
int guest_load_drm_modules(void);
/* pvmap_drm.ko with @params, after guest_load_drm_modules(); 0 or -errno. */
int guest_load_drm(const char *params);

struct pvmap_info;
struct pvmap_test_api;
struct pvmap_test_facilities;

/*
 * The first /dev/pvmapN whose aperture is of @kind (PVMAP_KIND_*), opened
 * read-write, its INFO in *@info and its path in @path: the fd, or -1.
 */
int guest_open_kind(uint32_t kind, struct pvmap_info *info, char *path, size_t len);

/* True when the running kernel was built with docs/upstream/ (GUEST_UPSTREAM_FIXES). */
bool guest_upstream_fixes(void);

/*
 * Hand @len bytes to the host: PWRITE them at offset 0 of pvmap's ivshmem
 * aperture, whose backing file the host reads. 0, or -1 after a message.
 */
int guest_hand_to_host(const void *buf, uint64_t len);

/* pvmap_drm's debugfs stats file (<pci name>/pvmap_drm_stats) in @path; 0 or -1. */
int guest_drm_stats_path(char *path, size_t len);

/* Run the program @argv[0] with @argv to its end: its exit status, or -1. */
int guest_run(char *const argv[]);

/* Read (or write) the byte at @p: the signal that raised, 0 when none did. */
int guest_touch(volatile uint8_t *p, bool write);

/* finit_module() / delete_module() without kmod; 0 or -errno. */
int guest_load_module(const char *path, const char *params);
int guest_unload_module(const char *name);

/*
 * One request of include/uapi/pvmap_test.h (PVMAP_TEST_* to pvmap_test.ko,
 * PVMAP_BENCH_* to pvmap_bench.ko, each loaded if need be) on the aperture
 * at @base/@size; @req starts with its struct pvmap_test_head. 0 when it
 * ran (its verdict in the head's status), else -errno with the head's msg
 * saying why.
 */
int guest_test(unsigned long cmd, void *req, uint64_t base, uint64_t size);

/* PVMAP_TEST_FACILITIES's answer as "kmemleak=0 lockdep=1 ... paging=2" */
void guest_facilities_text(const struct pvmap_test_facilities *f, char *buf, size_t len);

/* The kernel's name of memory type @type (enum pvmap_memtype): "wc", "uc-", ... */
const char *guest_memtype_name(uint32_t type);

/*
 * The io_mapping API's case @name (pvmap_api_cases.c: "nested", ...) on the
 * aperture at @base/@size: through KUnit (pvmap_kunit.ko, its results in
 * debugfs) where the kernel has KUnit and the initramfs the suite, else
 * through pvmap_test.ko's PVMAP_TEST_API. *@req as PVMAP_TEST_API answers;
 * *@how names the way taken. 0 when it ran, or -errno.
 */
int guest_api_case(const char *name, uint64_t base, uint64_t size, struct pvmap_test_api *req,
		   const char **how);

/* Print pvmap's live table (debugfs pvmap/live) as "# pvmap-host: live" lines. */
void guest_print_live(void);

/*
 * The hazard scenario, host half included (handshakes "hazard-reassign" and
 * "hazard-check"): map page A, write, unmap; the host hands page A to
 * someone else; the guest writes through the old pointer. *@landed says
 * whether that write reached the page. 0 when the scenario ran.
 */
int guest_hazard_scenario(unsigned long long base, unsigned long long size, bool *landed);

/* PWRITE (@write) or PREAD; the ioctl's result, the bytes copied in *@done (if given). */
int guest_rw(int fd, bool write, uint64_t off, void *buf, uint64_t len, uint64_t *done);

/*
 * Trace a 1 MiB PWRITE at @off through @fd (the trace event pvmap:pvmap_pte,
 * tracefs's text) and hand the trace to the host through the aperture's last
 * MiB (handshake "trace").
 * The number of PTE sets traced, or -1.
 */
int guest_capture_trace(int fd, unsigned long long size, unsigned long long off);

/* Whether a kernel message logged so far (/dev/kmsg) contains @text. */
bool guest_kmsg_has(const char *text);

/*
 * A user buffer that stalls the kernel: @len bytes of anonymous memory
 * whose pages from @stall_at on are missing and registered with
 * userfaultfd, so a kernel copy that reaches them sleeps until
 * guest_stall_release() serves them (as a FUSE or userfaultfd-backed
 * buffer can make any ioctl wait).
 */
struct guest_stall {
	uint8_t *buf;
	size_t len, stall_at;
	int uffd;
};

/* 0, 1 when this kernel has no userfaultfd (ENOSYS), or -1. */
int guest_stall_create(struct guest_stall *s, size_t len, size_t stall_at);
/* Wait up to @timeout_ms for a fault on @s: 0 when one came, else -1. */
int guest_stall_wait(struct guest_stall *s, int timeout_ms);
/* Serve every stalled page of @s, filled with @fill; 0 or -1. */
int guest_stall_release(struct guest_stall *s, uint8_t fill);
void guest_stall_destroy(struct guest_stall *s);

#endif /* PVMAP_GUEST_H */
