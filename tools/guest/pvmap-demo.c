// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-demo: runs in the guest for `make demo` and says, in plain words,
 * which apertures pvmap found and what a whole-aperture ioremap_wc() does,
 * then writes a banner into the ivshmem aperture through pvmap's atomic
 * slots and asks the host to show it from its side (the backing file).
 * pvtest.demo=drm: the same facts on the screen of pvmap_drm's std-VGA,
 * drawn by the framebuffer console through pvmap, after pvmap-drmfps has
 * shown frames through each copy engine; the host saves a screendump.
 */
#define _GNU_SOURCE
#include "guest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uapi/pvmap.h>
#include <uapi/pvmap_test.h>

static const char banner[] =
	" ____  __     __ __  __    _    ____\n"
	"|  _ \\ \\ \\   / /|  \\/  |  / \\  |  _ \\\n"
	"| |_) | \\ \\ / / | |\\/| | / _ \\ | |_) |\n"
	"|  __/   \\ V /  | |  | |/ ___ \\|  __/\n"
	"|_|       \\_/   |_|  |_/_/   \\_\\_|\n";

/* what pvtest.demo=drm puts on the console: the banner, then the facts */
static char screen[4096];
static size_t screen_len;

static void __attribute__((format(printf, 1, 2))) on_screen(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(screen + screen_len, sizeof(screen) - screen_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		screen_len = screen_len + n < sizeof(screen) ? screen_len + n : sizeof(screen) - 1;
}

static const char *const kind_names[] = {
	[PVMAP_KIND_IVSHMEM] = "ivshmem-plain shared memory",
	[PVMAP_KIND_STDVGA] = "std VGA video memory",
	[PVMAP_KIND_QXL] = "qxl video memory",
};

/* The banner, through PWRITE into the ivshmem aperture, shown by the host. */
static int write_banner(const struct utsname *uts)
{
	struct pvmap_stats before, after;
	struct pvmap_info info;
	char text[1024];
	struct pvmap_rw rw;
	uint64_t off;
	int fd, len;

	fd = open("/dev/pvmap0", O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, PVMAP_IOC_INFO, &info) || info.kind != PVMAP_KIND_IVSHMEM) {
		printf("pvmap-demo: /dev/pvmap0 is not the ivshmem aperture\n");
		return 1;
	}
	/* Near the end of the aperture, across a page boundary. */
	off = info.aperture_size - 2 * 4096 - 150;
	len = snprintf(text, sizeof(text),
		       "%s\nWritten by the %s guest through pvmap's atomic slots\n"
		       "at aperture offset %#llx, guest-physical %#llx.\n",
		       banner, uts->machine, (unsigned long long)off,
		       (unsigned long long)(info.aperture_base + off));
	rw = (struct pvmap_rw){ .offset = off, .length = len, .user_ptr = (uintptr_t)text };
	ioctl(fd, PVMAP_IOC_STATS, &before);
	if (ioctl(fd, PVMAP_IOC_PWRITE, &rw) || rw.done != (uint64_t)len) {
		printf("pvmap-demo: PWRITE failed: %s\n", strerror(errno));
		return 1;
	}
	ioctl(fd, PVMAP_IOC_STATS, &after);
	close(fd);
	printf("pvmap-demo: wrote a %d-byte banner at offset %#llx with PWRITE:\n"
	       "pvmap-demo:   %llu PTE writes, %llu local TLB flushes, %llu batch(es);\n"
	       "pvmap-demo:   every slot was cleared and flushed after use (%s).\n",
	       len, (unsigned long long)off,
	       (unsigned long long)(after.pte_writes - before.pte_writes),
	       (unsigned long long)(after.local_flushes - before.local_flushes),
	       (unsigned long long)(after.batches - before.batches),
	       info.flags & PVMAP_INFO_F_CLEARS_ON_UNMAP ? "clear-on-unmap"
							 : "whole mapping: nothing to clear");
	printf("pvmap-demo: asking the host to read it back from its side...\n");
	printf("# pvmap-host: show off=%#llx len=%#x\n", (unsigned long long)off, len);
	if (!guest_host_sync("show")) {
		printf("pvmap-demo: the host did not answer\n");
		return 1;
	}
	return 0;
}

/* Open /dev/pvmap0 (the ivshmem aperture) and read its INFO; 0 on success. */
static int ivshmem_info(struct pvmap_info *info)
{
	char path[32];
	int fd = guest_open_kind(PVMAP_KIND_IVSHMEM, info, path, sizeof(path));

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int hazard_round(const char *mode)
{
	struct pvmap_info info;
	bool landed;

	if (ivshmem_info(&info) ||
	    guest_hazard_scenario(info.aperture_base, info.aperture_size, &landed)) {
		printf("pvmap-demo: the hazard scenario could not run\n");
		return 1;
	}
	printf("pvmap-demo:   %s mode: the write through the old pointer %s.\n", mode,
	       landed ? "LANDED in page A" : "faulted, caught by the nofault accessor");
	return 0;
}

/*
 * Map page A, write, unmap; the host gives page A to someone else; write
 * through the old pointer. Once as pvmap is, once through pvmap_test's
 * hazard_demo=1 engine (pvmap.ko itself has no such mode).
 */
static int hazard_demo(void)
{
	int ret;

	printf("pvmap-demo: the stale-mapping hazard. Page A is mapped, written and\n"
	       "pvmap-demo: unmapped; the host then hands page A to someone else; then\n"
	       "pvmap-demo: the guest writes through the pointer it had. First, as pvmap is:\n");
	if (hazard_round("normal"))
		return 1;
	printf("pvmap-demo: again through a map that does not clear on unmap, as io_mapping\n"
	       "pvmap-demo: did before clear-on-unmap (pvmap_test hazard_demo=1, built\n"
	       "pvmap-demo: on pvmap's PTE layer; pvmap.ko itself has no such mode):\n");
	guest_test_unload();
	ret = guest_test_load("hazard_demo=1");
	if (ret) {
		printf("pvmap-demo: cannot load pvmap_test hazard_demo=1: %s\n", strerror(-ret));
		return 1;
	}
	return hazard_round("hazard");
}

/*
 * The real hazard, on a kernel without HIGHMEM (make demo's third and fourth
 * guests): mainline's own io_mapping_map_local_wc(), mapped, written,
 * unmapped, then written through the old pointer at once; the same through
 * pvmap. The host reads page A from the backing file (handshake
 * "stale-write-check"). A kernel with docs/upstream/'s patch
 * (GUEST_UPSTREAM_FIXES in its release) flushes on unmap: there mainline's
 * write faults too.
 */
static int real_hazard(void)
{
	static const char *const engines[] = { "mainline_local", "pvmap" };
	static const uint32_t engine_ids[] = { PVMAP_BENCH_MAINLINE_LOCAL, PVMAP_BENCH_PVMAP };
	struct pvmap_bench_stale_write req;
	struct pvmap_info info;
	struct utsname uts;
	const char *word;

	if (ivshmem_info(&info))
		return 1;
	uname(&uts);
	printf("pvmap-demo: the same hazard with no demonstration engine, on a kernel without\n"
	       "pvmap-demo: HIGHMEM (%s, %s): page A is mapped\n"
	       "pvmap-demo: through the engine, written and unmapped, then the guest writes\n"
	       "pvmap-demo: through the old pointer at once.\n", uts.release,
	       guest_upstream_fixes() ? "with the fix of docs/upstream/" :
	       "upstream as released");
	for (unsigned int i = 0; i < 2; i++) {
		req.engine = engine_ids[i];
		if (guest_test(PVMAP_BENCH_STALE_WRITE, &req, info.aperture_base,
			       info.aperture_size) || req.h.status != PVMAP_TEST_PASS) {
			printf("pvmap-demo: stale_write %s: %s\n", engines[i], req.h.msg);
			return 1;
		}
		word = req.landed ? "landed" : "faulted";
		printf("pvmap-demo:   %s: the write through the old pointer %s.\n",
		       !strcmp(engines[i], "pvmap") ? "pvmap's io_mapping" :
		       "mainline's io_mapping_map_local_wc()",
		       !strcmp(word, "landed") ? "LANDED: the unmap left a usable TLB entry" :
		       "faulted, caught by the nofault accessor");
		printf("# pvmap-host: stale-write off=%#llx engine=%s write=%s\n",
		       (unsigned long long)req.offset, engines[i], word);
		if (!guest_host_sync("stale-write-check"))
			return 1;
	}
	return 0;
}

/*
 * pvmap_drm's part: frames through each copy engine, each read back and
 * checked by pvmap-drmfps, then the facts on the console of its screen,
 * where fbcon draws them into a RAM shadow and pvmap_drm copies them into
 * VRAM through pvmap's atomic maps; the host takes the screendump. No
 * speed figure: one run's frame rate under TCG means little (make bench
 * ranks the engines by ratios that repeat).
 */
static int drm_demo(void)
{
	static const char *const engines[] = { "ioremap_page", "pvmap" };
	char vram[64] = "";
	int tty, ret;

	ret = guest_load_drm("");
	if (ret) {
		printf("pvmap-demo: cannot load pvmap_drm: %s\n", strerror(-ret));
		return 1;
	}
	printf("pvmap-demo: pvmap_drm drives the std-VGA; frames through its copy engines:\n");
	on_screen("pvmap_drm: std-VGA, dumb buffers in its VRAM, which is never mapped whole.\n"
		  "Full-screen frames uploaded through the kernel, page-flipped and read\n"
		  "back (pvmap-drmfps; speed: make bench, on Debian's kernels):\n");
	for (unsigned int i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		char *argv[] = { "/bin/pvmap-drmfps", "--frames", "10", "--engine",
				 (char *)engines[i], NULL };
		int status = -1, devnull;
		pid_t pid = fork();

		/* its own output has frames/s: not shown (see above) */
		if (pid == 0) {
			devnull = open("/dev/null", O_WRONLY);
			dup2(devnull, 1);
			execv(argv[0], argv);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			status = -1;

		if (status)
			printf("pvmap-demo: pvmap-drmfps --engine %s failed\n", engines[i]);
		on_screen("  %-13s 10 frames, every one read back %s\n", engines[i],
			  status ? "WRONG (or failed)" : "as uploaded");
	}
	{
		char path[96], stats[1024], *at;

		if (!guest_drm_stats_path(path, sizeof(path)) &&
		    guest_read_file(path, stats, sizeof(stats)) > 0 &&
		    (at = strstr(stats, "vram_size: ")))
			snprintf(vram, sizeof(vram), "%llu MiB",
				 strtoull(at + 11, NULL, 10) >> 20);
	}
	on_screen("\nThis text: the console draws it in RAM; pvmap_drm copies it into the\n"
		  "%s VRAM through pvmap's atomic maps, cleared and flushed at unmap.\n", vram);
	tty = open("/dev/tty1", O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (tty < 0 || write(tty, "\033[?25l\033[2J\033[H", 13) != 13 ||
	    write(tty, screen, screen_len) != (ssize_t)screen_len) {
		printf("pvmap-demo: cannot write to /dev/tty1: %s\n", strerror(errno));
		return 1;
	}
	close(tty);
	sleep(1);	/* the fbdev helper's damage worker */
	printf("pvmap-demo: the screen says:\n%s", screen);
	return guest_host_sync("drm-screen") ? 0 : 1;
}

int main(void)
{
	char mode[16] = "";
	struct utsname uts;
	struct dirent *de;
	int found = 0;
	DIR *dir;

	setvbuf(stdout, NULL, _IOLBF, 0);
	uname(&uts);
	on_screen("%s\n", banner);
	printf("\npvmap-demo: guest kernel %s %s, %ld MiB of RAM.\n", uts.machine,
	       uts.release, sysconf(_SC_PHYS_PAGES) * (sysconf(_SC_PAGESIZE) >> 10) >> 10);
	if (guest_cmdline_get("demo", mode, sizeof(mode)) && !strcmp(mode, "real-hazard")) {
		if (real_hazard())
			return 1;
		printf("pvmap-demo: done.\n\n");
		return 0;
	}
	dir = opendir("/dev");
	while (dir && (de = readdir(dir))) {
		char path[300], dbg[320], result[64];
		struct pvmap_info info;
		const char *kind;
		int fd;

		if (strncmp(de->d_name, "pvmap", 5))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || ioctl(fd, PVMAP_IOC_INFO, &info)) {
			printf("pvmap-demo: cannot query %s\n", path);
			if (fd >= 0)
				close(fd);
			continue;
		}
		close(fd);
		found++;
		kind = info.kind < sizeof(kind_names) / sizeof(kind_names[0]) &&
		       kind_names[info.kind] ? kind_names[info.kind] : "unknown";
		printf("pvmap-demo: %s is a %llu MiB aperture (%s, PCI %s BAR%u)\n"
		       "pvmap-demo:   at guest-physical 0x%llx-0x%llx.\n",
		       path, (unsigned long long)info.aperture_size >> 20, kind,
		       info.pci_name, info.bar, (unsigned long long)info.aperture_base,
		       (unsigned long long)(info.aperture_base + info.aperture_size - 1));
		on_screen("%s: %4llu MiB of %s at 0x%llx", path,
			  (unsigned long long)info.aperture_size >> 20, kind,
			  (unsigned long long)info.aperture_base);
		snprintf(dbg, sizeof(dbg), GUEST_DEBUGFS "/%s/whole_ioremap", de->d_name);
		if (guest_read_file(dbg, result, sizeof(result)) < 0) {
			printf("pvmap-demo:   (cannot read %s)\n", dbg);
			continue;
		}
		on_screen(": ioremap_wc() of it all %s\n",
			  strncmp(result, "failed", 6) ? "fits" : "FAILS");
		if (!strncmp(result, "failed", 6))
			printf("pvmap-demo:   Mapping all of it at once with ioremap_wc() FAILED:\n"
			       "pvmap-demo:   it does not fit in this kernel's address space.\n"
			       "pvmap-demo:   That is the problem pvmap solves: map it a page at a time.\n");
		else
			printf("pvmap-demo:   Mapping all of it at once with ioremap_wc() worked:\n"
			       "pvmap-demo:   this kernel has room for it.\n");
	}
	if (dir)
		closedir(dir);
	if (!found) {
		printf("pvmap-demo: no aperture found: is pvmap.ko loaded?\n");
		return 1;
	}
	if (!strcmp(mode, "drm")) {
		on_screen("%s %s guest, %ld MiB of RAM\n", uts.machine, uts.release,
			  sysconf(_SC_PHYS_PAGES) * (sysconf(_SC_PAGESIZE) >> 10) >> 10);
		if (drm_demo())
			return 1;
		printf("pvmap-demo: done.\n\n");
		return 0;
	}
	if (write_banner(&uts) || hazard_demo())
		return 1;
	printf("pvmap-demo: done.\n\n");
	return 0;
}
