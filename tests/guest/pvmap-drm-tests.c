// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-drm-tests: pvmap_drm's tests on the kselftest harness (result.h), in a guest whose
 * std-VGA pvmap leaves to pvmap_drm (pvmap's default) and whose ivshmem and
 * qxl apertures pvmap binds. The DRM calls are the kernel's ioctls, so the
 * program stays static; Debian's modetest (dynamically linked, from its
 * libdrm-tests package) is the libdrm client. The host checks what reaches
 * the screen (QMP screendump) and VRAM (QMP pmemsave) at the handshakes.
 */
#define _GNU_SOURCE
#include "guest.h"
#include "result.h"
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pthread.h>
#include <pty.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/fb.h>
#include <drm.h>
#include <drm_mode.h>
#include <uapi/pvmap_kind.h>
#include <uapi/pvmap_pattern.h>
#include <uapi/pvmap.h>
#include <uapi/pvmap_drm.h>

#define CARD		"/dev/dri/card0"
#define MODETEST	"/bin/modetest"
#define PAGE		4096ULL

static char stats_path[256];	/* debugfs <pci>/pvmap_drm_stats */

static int open_card(void)
{
	int fd = open(CARD, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		printf("# open %s: %s\n", CARD, strerror(errno));
	return fd;
}

/* One line "key: N" of pvmap_drm's debugfs stats; -1 when absent. */
static long long drm_stat(const char *key)
{
	char buf[1024], *at;

	if (guest_read_file(stats_path, buf, sizeof(buf)) <= 0)
		return -1;
	at = strstr(buf, key);
	return at ? strtoll(at + strlen(key), NULL, 10) : -1;
}

struct dumb {
	uint32_t handle, pitch, width, height;
	uint64_t size, offset;
	uint8_t *map;
};

static int dumb_create(int fd, uint32_t width, uint32_t height, struct dumb *b)
{
	struct drm_mode_create_dumb c = { .width = width, .height = height, .bpp = 32 };
	struct drm_mode_map_dumb m = { 0 };
	struct drm_pvmap_drm_bo_info info = { 0 };

	memset(b, 0, sizeof(*b));
	if (ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &c))
		return -errno;
	b->handle = c.handle;
	b->pitch = c.pitch;
	b->size = c.size;
	b->width = width;
	b->height = height;
	info.handle = c.handle;
	m.handle = c.handle;
	if (ioctl(fd, DRM_IOCTL_PVMAP_DRM_BO_INFO, &info) || ioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &m))
		return -errno;
	b->offset = info.vram_offset;
	b->map = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, m.offset);
	if (b->map == MAP_FAILED) {
		b->map = NULL;
		return -errno;
	}
	return 0;
}

static int dumb_destroy(int fd, struct dumb *b)
{
	struct drm_mode_destroy_dumb d = { .handle = b->handle };

	if (b->map)
		munmap(b->map, b->size);
	b->map = NULL;
	return ioctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d) ? -errno : 0;
}

/* The first pvmap aperture of @kind: its /dev node in @path; 0 or -1. */
static int find_aperture(uint32_t kind, char *path, size_t len, struct pvmap_info *info)
{
	int fd = guest_open_kind(kind, info, path, len);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* The framebuffer the CRTC scans out, its details in *@crtc; 0 when none. */
static uint32_t scanout_fb(int fd, struct drm_mode_crtc *crtc)
{
	struct drm_mode_card_res res = { 0 };
	uint32_t crtc_id;

	res.crtc_id_ptr = (uintptr_t)&crtc_id;
	res.count_crtcs = 1;
	memset(crtc, 0, sizeof(*crtc));
	if (ioctl(fd, DRM_IOCTL_MODE_GETRESOURCES, &res) || res.count_crtcs < 1)
		return 0;
	crtc->crtc_id = crtc_id;
	if (ioctl(fd, DRM_IOCTL_MODE_GETCRTC, crtc) || !crtc->mode_valid)
		return 0;
	return crtc->fb_id;
}

/*
 * The buffer the CRTC scans out, once it is not framebuffer @old, read back
 * through a mapping of it in this process (GETFB gives this file a handle),
 * then handed to the host, which compares it with its screendump:
 * "# pvmap-host: drm-frame ...". 0 or -1.
 */
static int frame_to_host(int fd, const char *what, uint32_t old)
{
	struct drm_mode_crtc crtc;
	struct drm_mode_fb_cmd fb = { 0 };
	struct drm_mode_map_dumb m = { 0 };
	uint64_t len;
	uint8_t *map;
	int ret, i;

	/* modetest says "setting mode" just before its SETCRTC */
	for (i = 0; i < 300 && scanout_fb(fd, &crtc) == old; i++)
		usleep(100 * 1000);
	if (!crtc.fb_id || crtc.fb_id == old)
		return fail("the CRTC still scans out framebuffer %u after 30 s", old);
	fb.fb_id = crtc.fb_id;
	if (ioctl(fd, DRM_IOCTL_MODE_GETFB, &fb) || !fb.handle)
		return fail("GETFB %u: %s", crtc.fb_id, strerror(errno));
	len = (uint64_t)fb.pitch * fb.height;
	m.handle = fb.handle;
	if (ioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &m))
		return fail("MAP_DUMB of the scanned-out buffer: %s", strerror(errno));
	map = mmap(NULL, (len + PAGE - 1) & ~(PAGE - 1), PROT_READ, MAP_SHARED, fd, m.offset);
	if (map == MAP_FAILED)
		return fail("mmap of the scanned-out buffer: %s", strerror(errno));
	ret = guest_hand_to_host(map, len);
	munmap(map, (len + PAGE - 1) & ~(PAGE - 1));
	if (ret)
		return ret;
	printf("# pvmap-host: drm-frame what=%s width=%u height=%u pitch=%u mode=%ux%u\n", what,
	       fb.width, fb.height, fb.pitch, crtc.mode.hdisplay, crtc.mode.vdisplay);
	return guest_host_sync("drm-frame") ? 0 : fail("host did not acknowledge");
}

/* Each test in its own child: the console drained, the stats file found. */
static void test_setup(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	tcdrain(STDOUT_FILENO);
	if (!stats_path[0])
		guest_drm_stats_path(stats_path, sizeof(stats_path));
}

/*
 * pvmap_drm binds the std-VGA device and answers DRM_IOCTL_VERSION on its
 * card.
 */
PVMAP_TEST(drm_probe)
{
	char name[64] = "", path[32];
	struct drm_version v = { .name = name, .name_len = sizeof(name) - 1 };
	struct pvmap_info info;
	int fd, ret;

	ret = guest_load_drm("");
	if (ret)
		return fail("load %s: %s", GUEST_DRM_PATH, strerror(-ret));
	fd = open_card();
	if (fd < 0)
		return -1;
	ret = ioctl(fd, DRM_IOCTL_VERSION, &v);
	close(fd);
	if (ret || strcmp(name, "pvmap_drm"))
		return fail("DRM_IOCTL_VERSION: %d, driver '%s'", ret, name);
	if (guest_drm_stats_path(stats_path, sizeof(stats_path)))
		return fail("no pvmap_drm_stats in debugfs");
	/* pvmap keeps the other apertures */
	if (find_aperture(PVMAP_KIND_IVSHMEM, path, sizeof(path), &info) ||
	    find_aperture(PVMAP_KIND_QXL, path, sizeof(path), &info))
		return fail("pvmap does not have the ivshmem and qxl apertures beside pvmap_drm");
	if (!find_aperture(PVMAP_KIND_STDVGA, path, sizeof(path), &info))
		return fail("pvmap bound the std-VGA too (%s)", path);
	printf("# pvmap_drm on %s, VRAM %lld MiB; pvmap has ivshmem and qxl\n", stats_path,
	       drm_stat("vram_size: ") >> 20);
	return 0;
}

/*
 * The fbdev helper's damage worker copies later, from a workqueue: wait (10 s
 * at most, TCG under load is slow) for a copy after the count @copies, then
 * until it rests.
 */
static void wait_copies_rest(long long copies)
{
	long long before;

	for (int i = 0; i < 100 && drm_stat("shadow_copies: ") <= copies; i++)
		usleep(100 * 1000);
	do {
		before = drm_stat("shadow_copies: ");
		usleep(300 * 1000);
	} while (drm_stat("shadow_copies: ") != before);
}

/* What fbcon drew, as /dev/fb0 reads it, to the host, which compares the screen with it. */
static int fbcon_to_host(const char *what)
{
	uint8_t *buf;
	int fb, ret;

	fb = open("/dev/fb0", O_RDONLY | O_CLOEXEC);
	if (fb < 0)
		return fail("open /dev/fb0: %s", strerror(errno));
	buf = malloc(1024 * 768 * 4);
	ret = buf && read(fb, buf, 1024 * 768 * 4) == 1024 * 768 * 4 ? 0 : -1;
	close(fb);
	if (ret) {
		free(buf);
		return fail("read /dev/fb0: %s", strerror(errno));
	}
	ret = guest_hand_to_host(buf, 1024 * 768 * 4);
	free(buf);
	if (ret)
		return ret;
	printf("# pvmap-host: drm-frame what=%s width=1024 height=768 pitch=4096 mode=1024x768\n",
	       what);
	return guest_host_sync("drm-frame") ? 0 : fail("host did not acknowledge");
}

static int write_tty1(const char *text)
{
	int tty = open("/dev/tty1", O_WRONLY | O_NOCTTY | O_CLOEXEC);
	ssize_t len = strlen(text);
	bool ok;

	if (tty < 0)
		return fail("open /dev/tty1: %s", strerror(errno));
	ok = write(tty, text, len) == len;
	close(tty);
	return ok ? 0 : fail("write to tty1: %s", strerror(errno));
}

/*
 * fbcon draws into the fbdev buffer's shadow; pvmap_drm copies the damage
 * into VRAM through pvmap. Text on tty1, then the counters and the screen.
 */
PVMAP_TEST(drm_fbcon)
{
	static const char text[] = "\033[?25l\033[2J\033[H"	/* no cursor, cleared */
		"pvmap_drm fbcon: this text reached VRAM through pvmap's atomic maps\n"
		"0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz\n";
	long long copies = drm_stat("shadow_copies: "), maps = drm_stat("maps: ");
	char engine[64] = "";

	if (write_tty1(text))
		return -1;
	wait_copies_rest(copies);
	guest_read_file("/sys/module/pvmap_drm/parameters/copy_engine", engine, sizeof(engine));
	printf("# damage copies %lld -> %lld, engine maps %lld -> %lld, engine %s",
	       copies, drm_stat("shadow_copies: "), maps, drm_stat("maps: "), engine);
	if (drm_stat("shadow_copies: ") <= copies || drm_stat("maps: ") <= maps)
		return fail("the console's text made no damage copy through pvmap");
	return fbcon_to_host("fbcon");
}

/* The VGA registers of pvmap_drm's device (BAR 2 at 0x400, as 0x3c0-0x3df). */
#define VGA_REG(reg)	(0x400 + (reg) - 0x3c0)
#define VGA_AR_PAS	0x20	/* the attribute controller's palette-address bit */

/*
 * The attribute controller's index as the device has it: input status 1
 * read first puts its index/data flip-flop on "index", where QEMU answers
 * a read of 0x3c0 with the index.
 */
static uint8_t vga_ar_index(volatile uint8_t *regs)
{
	(void)regs[VGA_REG(0x3da)];
	return regs[VGA_REG(0x3c0)];
}

/* bochs_hw_blank(): colour addressing, the flip-flop to index, index @val */
static void vga_ar_write_index(volatile uint8_t *regs, uint8_t val)
{
	regs[VGA_REG(0x3c2)] = 0x01;
	(void)regs[VGA_REG(0x3da)];
	regs[VGA_REG(0x3c0)] = val;
}

/*
 * The driver bound before pvmap_drm (bochs, at its last disable) blanked
 * the device: the palette-address bit cleared, the index/data flip-flop
 * left on "data". Done here as bochs_hw_blank() does it, through the BAR's
 * sysfs resource file, and read back, between a power-down and an unblank
 * of fb0 (the CRTC disabled, then enabled): the device must have the bit
 * set again and the screen show the console, not black. Found by make
 * vm-bench: Xorg on pvmap_drm after bochs showed nothing.
 */
PVMAP_TEST(drm_unblank_after_previous_driver)
{
	static const char text[] = "\033[?25l\033[2J\033[H"
		"pvmap_drm: the display unblanked after another driver's blank\n";
	long long copies = drm_stat("shadow_copies: ");
	struct utsname uts;
	volatile uint8_t *regs;
	char driver[256];
	uint8_t blanked, after;
	ssize_t n;
	int fd, fb, ret;

	n = readlink("/sys/class/drm/card0/device/driver", driver, sizeof(driver) - 1);
	driver[n > 0 ? n : 0] = '\0';
	if (!strstr(driver, "/pvmap_drm"))
		return fail("card0's device is not pvmap_drm's ('%s')", driver);
	if (write_tty1(text))
		return -1;
	wait_copies_rest(copies);
	fd = open("/sys/class/drm/card0/device/resource2", O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		return fail("open card0's resource2: %s", strerror(errno));
	regs = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	/*
	 * Debian's kernels (CONFIG_IO_STRICT_DEVMEM) refuse the mapping of a
	 * BAR a driver holds, and no guest boots with iomem=relaxed
	 * (docs/kernels.md): a skip there, a failure on the project's kernels.
	 */
	if (regs == MAP_FAILED && errno == EINVAL && !uname(&uts) && strstr(uts.version, "Debian"))
		return skip("Debian's IO_STRICT_DEVMEM refuses a mapping of the BAR pvmap_drm holds");
	if (regs == MAP_FAILED)
		return fail("mmap card0's resource2: %s", strerror(errno));
	ret = -1;
	blanked = VGA_AR_PAS;
	fb = open("/dev/fb0", O_RDWR | O_CLOEXEC);
	if (fb < 0) {
		fail("open /dev/fb0: %s", strerror(errno));
		goto restore;
	}
	/*
	 * Between pvmap_drm's disable and its enable, as between bochs's
	 * unbind and pvmap_drm's bind: pvmap_drm's own disable leaves the
	 * flip-flop on "index", bochs's blank leaves it on "data".
	 */
	if (ioctl(fb, FBIOBLANK, FB_BLANK_POWERDOWN)) {
		fail("FBIOBLANK power-down: %s", strerror(errno));
		goto restore;
	}
	vga_ar_write_index(regs, 0x00);
	blanked = vga_ar_index(regs);
	regs[VGA_REG(0x3c0)] = 0x00;	/* and the flip-flop left on "data", as bochs leaves it */
	if (blanked & VGA_AR_PAS)
		fail("the blank did not reach the device (attribute index %#x)", blanked);
	else if (ioctl(fb, FBIOBLANK, FB_BLANK_UNBLANK))
		fail("FBIOBLANK unblank: %s", strerror(errno));
	else
		ret = 0;
	after = vga_ar_index(regs);
	printf("# attribute index: %#x after the blank, %#x after fb0's unblank\n", blanked, after);
	if (!ret && !(after & VGA_AR_PAS))
		ret = fail("pvmap_drm's enable left the display blanked");
restore:
	if (ret) {	/* the later tests need a screen */
		vga_ar_write_index(regs, VGA_AR_PAS);
		if (fb >= 0)
			ioctl(fb, FBIOBLANK, FB_BLANK_UNBLANK);
	}
	if (fb >= 0)
		close(fb);
	munmap((void *)regs, PAGE);
	if (ret)
		return ret;
	copies = drm_stat("shadow_copies: ");
	wait_copies_rest(copies);
	return fbcon_to_host("unblank");
}

/* The first connector's id; 0 when none. */
static uint32_t connector_id(int fd)
{
	struct drm_mode_card_res res = { 0 };
	uint32_t conn = 0;

	res.connector_id_ptr = (uintptr_t)&conn;
	res.count_connectors = 1;
	if (ioctl(fd, DRM_IOCTL_MODE_GETRESOURCES, &res) || res.count_connectors < 1)
		return 0;
	return conn;
}

/*
 * A mode set that enables the display anew (800x600, not fbcon's
 * 1024x768) onto a buffer of this process's, which is not at VRAM offset 0
 * (fbcon's is): enabling QEMU's DISPI resets its scan-out offsets, after
 * the commit updated the plane. The screen must show this buffer, not
 * what lies at offset 0.
 */
PVMAP_TEST(drm_modeset_scans_out_its_fb)
{
	struct drm_mode_create_dumb c = { .width = 800, .height = 600, .bpp = 32 };
	static struct drm_mode_modeinfo modes[256];
	struct drm_mode_get_connector conn = { 0 };
	struct drm_mode_map_dumb m = { 0 };
	struct drm_mode_fb_cmd f = { 0 };
	struct drm_mode_crtc crtc;
	uint32_t old, conn_id, *px;
	unsigned int i, mode;
	int fd, ret;

	fd = open_card();
	if (fd < 0)
		return -1;
	old = scanout_fb(fd, &crtc);
	conn_id = connector_id(fd);
	conn.connector_id = conn_id;
	/* first the count (and the probe), then the modes */
	ret = ioctl(fd, DRM_IOCTL_MODE_GETCONNECTOR, &conn);
	conn.modes_ptr = (uintptr_t)modes;
	conn.count_props = 0;	/* the modes only */
	conn.count_encoders = 0;
	if (!ret && conn.count_modes <= 256)
		ret = ioctl(fd, DRM_IOCTL_MODE_GETCONNECTOR, &conn);
	if (!old || ret || conn.count_modes > 256) {
		ret = -1;
		fail("the CRTC, its framebuffer or the connector's modes: %s", strerror(errno));
		goto out;
	}
	ret = -1;
	for (mode = 0; mode < conn.count_modes; mode++)
		if (modes[mode].hdisplay == 800 && modes[mode].vdisplay == 600)
			break;
	if (mode == conn.count_modes) {
		fail("no 800x600 among the connector's %u modes", conn.count_modes);
		goto out;
	}
	if (ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &c)) {
		fail("CREATE_DUMB 800x600: %s", strerror(errno));
		goto out;
	}
	m.handle = c.handle;
	px = ioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &m) ? MAP_FAILED :
		mmap(NULL, c.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, m.offset);
	if (px == MAP_FAILED) {
		fail("mapping the buffer: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < c.size / 4; i++)	/* no pixel black, none alike its neighbour */
		px[i] = 0x00404040 | (i * 2654435761u & 0x00bfbfbf);
	munmap(px, c.size);
	f.width = 800;
	f.height = 600;
	f.pitch = c.pitch;
	f.bpp = 32;
	f.depth = 24;
	f.handle = c.handle;
	if (ioctl(fd, DRM_IOCTL_MODE_ADDFB, &f)) {
		fail("ADDFB: %s", strerror(errno));
		goto out;
	}
	crtc.fb_id = f.fb_id;
	crtc.x = 0;
	crtc.y = 0;
	crtc.set_connectors_ptr = (uintptr_t)&conn_id;
	crtc.count_connectors = 1;
	crtc.mode = modes[mode];
	crtc.mode_valid = 1;
	if (ioctl(fd, DRM_IOCTL_MODE_SETCRTC, &crtc)) {
		fail("SETCRTC 800x600: %s", strerror(errno));
		goto out;
	}
	ret = frame_to_host(fd, "modeset", old);
out:
	close(fd);	/* its framebuffer goes, and fbcon's mode comes back */
	return ret;
}

/*
 * Debian's modetest sets 1024x768 XR24 with its SMPTE pattern; while it
 * waits for a key, the scanned-out buffer goes to the host, which checks
 * the screendump against the pattern and against that buffer.
 */
PVMAP_TEST(drm_modetest_smpte)
{
	int to_mt[2], pty, tty, fd, status, ret = 0;
	struct drm_mode_crtc crtc;
	uint32_t fbdev_fb;
	char arg[64], line[512];
	bool set = false;
	FILE *out;
	pid_t pid;

	/* closed again before modetest starts: it must be the DRM master */
	fd = open_card();
	if (fd < 0)
		return -1;
	snprintf(arg, sizeof(arg), "%u:1024x768@XR24", connector_id(fd));
	fbdev_fb = scanout_fb(fd, &crtc);
	close(fd);
	/* its output on a terminal, so that stdio sends each line as it is written */
	mkdir("/dev/pts", 0755);
	if (mount("devpts", "/dev/pts", "devpts", 0, "") && errno != EBUSY)
		return fail("mount devpts: %s", strerror(errno));
	if (pipe(to_mt) || openpty(&pty, &tty, NULL, NULL, NULL))
		return fail("pipe or pty: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		dup2(to_mt[0], 0);
		dup2(tty, 1);
		dup2(tty, 2);
		execl(MODETEST, "modetest", "-M", "pvmap_drm", "-s", arg, (char *)NULL);
		_exit(127);
	}
	close(to_mt[0]);
	close(tty);
	out = fdopen(pty, "r");
	printf("# modetest -M pvmap_drm -s %s\n", arg);
	/* its last line before it waits for a key: "setting mode ...", or a failure */
	while (out && fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\r\n")] = '\0';
		printf("# modetest: %s\n", line);
		if (strstr(line, "setting mode"))
			set = true;
		if (set || strstr(line, "failed to set mode"))
			break;
	}
	if (set) {
		fd = open_card();
		ret = fd < 0 ? -1 : frame_to_host(fd, "smpte", fbdev_fb);
		if (fd >= 0)
			close(fd);
	}
	if (write(to_mt[1], "\n", 1) != 1)
		ret = fail("cannot tell modetest to stop");
	close(to_mt[1]);
	while (out && fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\r\n")] = '\0';
		printf("# modetest: %s\n", line);
	}
	if (out)
		fclose(out);
	waitpid(pid, &status, 0);
	if (!set)
		return fail("modetest did not set the mode");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return fail("modetest: status %#x", status);
	return ret;
}

/*
 * The project's libdrm client, pvmap-drmfps, with each copy engine and with
 * user-space mmap writes: every frame read back right after its flip. The
 * last run leaves its frame to the host's screendump check.
 */
PVMAP_TEST(drm_fps_client)
{
	static const char *const runs[][4] = {
		{ "--upload", "kernel", "--engine", "ioremap_page" },
		{ "--upload", "kernel", "--engine", "ioremap_whole" },
		{ "--upload", "mmap", "--engine", "pvmap" },
		{ "--upload", "kernel", "--engine", "pvmap" },
	};
	int ret = 0;

	for (unsigned int i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		bool last = i + 1 == sizeof(runs) / sizeof(runs[0]);
		char *argv[] = { "/bin/pvmap-drmfps", "--frames", "4", (char *)runs[i][0],
				 (char *)runs[i][1], (char *)runs[i][2], (char *)runs[i][3],
				 last ? "--handoff" : NULL, NULL };
		int status = guest_run(argv);

		if (status)
			ret = fail("pvmap-drmfps %s %s %s %s: status %d", runs[i][0], runs[i][1],
				   runs[i][2], runs[i][3], status);
	}
	return ret;
}

/*
 * 1000 buffers made, mapped, written, read back and destroyed: each one
 * zeroed when made, the allocator back where it started at the end.
 */
PVMAP_TEST(drm_dumb_lifecycle)
{
	long long used = drm_stat("vram_used: "), buffers = drm_stat("buffers: ");
	int fd, ret = 0, i;
	struct dumb b;

	fd = open_card();
	if (fd < 0)
		return -1;
	for (i = 0; i < 1000 && !ret; i++) {
		uint32_t w = 8 + (i * 37) % 600, h = 1 + (i * 53) % 300;
		uint64_t bad;

		ret = dumb_create(fd, w, h, &b);
		if (ret) {
			ret = fail("buffer %d (%ux%u): %s", i, w, h, strerror(-ret));
			break;
		}
		for (uint64_t off = 0; off < b.size && !ret; off += PAGE)
			if (b.map[off] || b.map[b.size - 1])
				ret = fail("buffer %d at VRAM %#llx: old bytes at %#llx", i,
					   (unsigned long long)b.offset, (unsigned long long)off);
		pvmap_pattern_fill(b.map, b.size, 0xd0d0 + i, 0);
		bad = pvmap_pattern_check(b.map, b.size, 0xd0d0 + i, 0);
		if (!ret && bad != b.size)
			ret = fail("buffer %d: byte %#llx read back wrong", i,
				   (unsigned long long)bad);
		if (dumb_destroy(fd, &b) && !ret)
			ret = fail("DESTROY_DUMB %d: %s", i, strerror(errno));
	}
	close(fd);
	printf("# %d buffers; VRAM used %lld -> %lld bytes, buffers %lld -> %lld\n", i, used,
	       drm_stat("vram_used: "), buffers, drm_stat("buffers: "));
	if (!ret && (drm_stat("vram_used: ") != used || drm_stat("buffers: ") != buffers))
		ret = fail("the VRAM allocator did not come back to where it started");
	return ret;
}

/*
 * Hostile sources for the kernel's upload into @b: user memory never
 * touched (each page faults inside pvmap's atomic map) at an odd address,
 * whose zeroes must land; then a source whose second page is unreadable:
 * EFAULT, and no oops. 0 or -1.
 */
static int upload_faults(int fd, struct dumb *b)
{
	uint8_t *src = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct drm_pvmap_drm_upload up = { .handle = b->handle, .width = b->pitch / 4,
					   .height = 1, .stride = b->pitch };
	int ret = 0;

	if (src == MAP_FAILED)
		return fail("mmap: %s", strerror(errno));
	memset(b->map, 0xa5, b->pitch);
	up.data = (uintptr_t)(src + 3);
	if (ioctl(fd, DRM_IOCTL_PVMAP_DRM_UPLOAD, &up))
		ret = fail("UPLOAD from untouched memory at an odd address: %s", strerror(errno));
	for (uint32_t i = 0; !ret && i < b->pitch; i++)
		if (b->map[i])
			ret = fail("UPLOAD from untouched memory: byte %u is %#x, not 0", i,
				   b->map[i]);
	mprotect(src + PAGE, PAGE, PROT_NONE);
	up.data = (uintptr_t)(src + PAGE - 100);
	if (!ret && (!ioctl(fd, DRM_IOCTL_PVMAP_DRM_UPLOAD, &up) || errno != EFAULT))
		ret = fail("UPLOAD from partly unreadable memory: %s, not EFAULT",
			   strerror(errno));
	munmap(src, 3 * PAGE);
	if (!ret)
		printf("# UPLOAD from untouched memory at an odd address: zeroes landed; from "
		       "partly unreadable memory: EFAULT\n");
	return ret;
}

/*
 * Buffers over the whole VRAM, more than vmalloc space could map on i386:
 * each written through its mmap (the last also through the kernel's upload
 * path) and read back, then checked by the host in VRAM with pmemsave.
 */
PVMAP_TEST(drm_vram_beyond_vmalloc)
{
	static struct dumb bufs[128];
	long long vram = drm_stat("vram_size: ");
	char meminfo[4096], *at;
	uint64_t top = 0, vmalloc_kib = 0;
	int fd, n = 0, ret = 0;

	fd = open_card();
	if (fd < 0)
		return -1;
	if (guest_read_file("/proc/meminfo", meminfo, sizeof(meminfo)) > 0 &&
	    (at = strstr(meminfo, "VmallocTotal:")))
		vmalloc_kib = strtoull(at + 13, NULL, 10);
	while (n < 128) {
		struct dumb *b = &bufs[n];
		int err = dumb_create(fd, 1920, 1080, b);

		if (err == -ENOMEM || err == -ENOSPC)
			break;
		if (err) {
			ret = fail("buffer %d: %s", n, strerror(-err));
			break;
		}
		/* first and last page: the host reads those */
		pvmap_pattern_fill(b->map, PAGE, 0xbeef0000 + n, 0);
		pvmap_pattern_fill(b->map + b->size - PAGE, PAGE, 0xbeef0000 + n, b->size - PAGE);
		if (b->offset + b->size > top)
			top = b->offset + b->size;
		n++;
	}
	if (!ret && n) {
		/* the last buffer's first line again, through the kernel's upload */
		struct dumb *b = &bufs[n - 1];
		uint8_t *line = malloc(b->pitch);
		struct drm_pvmap_drm_upload up = { .handle = b->handle, .width = b->pitch / 4,
						   .height = 1, .stride = b->pitch,
						   .data = (uintptr_t)line };

		pvmap_pattern_fill(line, b->pitch, 0x10ad, 0);
		if (ioctl(fd, DRM_IOCTL_PVMAP_DRM_UPLOAD, &up))
			ret = fail("UPLOAD into the buffer at %#llx: %s",
				   (unsigned long long)b->offset, strerror(errno));
		else if (pvmap_pattern_check(b->map, b->pitch, 0x10ad, 0) != b->pitch)
			ret = fail("the upload at VRAM %#llx does not read back",
				   (unsigned long long)b->offset);
		if (!ret)
			ret = upload_faults(fd, b);
		/* the host expects the mmap's pattern there: write it back */
		pvmap_pattern_fill(b->map, PAGE, 0xbeef0000 + n - 1, 0);
		free(line);
	}
	for (int i = 0; i < n && !ret; i++) {
		struct dumb *b = &bufs[i];

		if (pvmap_pattern_check(b->map, PAGE, 0xbeef0000 + i, 0) != PAGE ||
		    pvmap_pattern_check(b->map + b->size - PAGE, PAGE, 0xbeef0000 + i,
					b->size - PAGE) != PAGE)
			ret = fail("buffer %d at VRAM %#llx does not read back", i,
				   (unsigned long long)b->offset);
		printf("# pvmap-host: drm-bo off=%#llx size=%#llx seed=%#x\n",
		       (unsigned long long)b->offset, (unsigned long long)b->size, 0xbeef0000 + i);
	}
	printf("# %d buffers of 1920x1080, VRAM %#llx of %#llx used up to; vmalloc space %llu MiB\n",
	       n, (unsigned long long)top, vram, (unsigned long long)vmalloc_kib >> 10);
	if (!ret && !guest_host_sync("drm-vram"))
		ret = fail("host did not acknowledge");
	for (int i = 0; i < n; i++)
		dumb_destroy(fd, &bufs[i]);
	close(fd);
	if (!ret && top + 2 * bufs[0].size < (uint64_t)vram)
		ret = fail("the buffers stop at %#llx of %#llx", (unsigned long long)top, vram);
#ifdef __i386__
	/* the point on i386: more than a whole-BAR ioremap could ever have mapped */
	if (!ret && (!vmalloc_kib || top <= vmalloc_kib * 1024))
		ret = fail("VRAM used (%#llx) is no more than vmalloc space", (unsigned long long)top);
#endif
	return ret;
}

/* DRM_IOCTL_MODE_MAP_DUMB's fake offset of @handle; 0 when it fails. */
static uint64_t map_dumb_offset(int fd, uint32_t handle)
{
	struct drm_mode_map_dumb m = { .handle = handle };

	return ioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &m) ? 0 : m.offset;
}

/*
 * Any process that can open the card may ask for a private mapping of a
 * dumb buffer: copy-on-write, of VRAM pfns that have no page to copy.
 * The core BUG()s on a fault in such a vma; the driver must refuse the
 * mmap itself (EINVAL, as the shmem and TTM helpers do), readable or not.
 */
PVMAP_TEST(drm_mmap_private_refused)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE };
	struct dumb b;
	uint64_t off;
	int fd, ret = 0;

	fd = open_card();
	if (fd < 0)
		return -1;
	if (dumb_create(fd, 64, 64, &b)) {
		close(fd);
		return fail("CREATE_DUMB: %s", strerror(errno));
	}
	off = map_dumb_offset(fd, b.handle);
	for (unsigned int i = 0; !ret && i < sizeof(prots) / sizeof(prots[0]); i++) {
		volatile uint8_t *p = mmap(NULL, PAGE, prots[i], MAP_PRIVATE, fd, off);

		if (p != MAP_FAILED) {
			ret = fail("mmap(%s, MAP_PRIVATE) of a dumb buffer succeeded; reading it "
				   "next", i ? "PROT_READ | PROT_WRITE" : "PROT_READ");
			/* the attack: the old driver's kernel dies here */
			guest_touch(p, false);
			munmap((void *)p, PAGE);
		} else if (errno != EINVAL) {
			ret = fail("mmap(MAP_PRIVATE): %s, not EINVAL", strerror(errno));
		}
	}
	/* the shared mapping still works beside the refusals */
	memset(b.map, 0x3c, PAGE);
	if (!ret && (b.map[0] != 0x3c || b.map[PAGE - 1] != 0x3c))
		ret = fail("the shared mapping reads %#x, not 0x3c", b.map[0]);
	if (!ret)
		printf("# mmap(MAP_PRIVATE) of a dumb buffer: EINVAL for PROT_READ and "
		       "PROT_READ | PROT_WRITE; MAP_SHARED works\n");
	dumb_destroy(fd, &b);
	close(fd);
	return ret;
}

/*
 * munmap() of a mapping's head moves its start, not the buffer's pages:
 * the pages left must still be the buffer's own at their offsets.
 */
PVMAP_TEST(drm_mmap_head_unmapped)
{
	struct dumb b;
	uint8_t *map;
	int fd, ret = 0;

	fd = open_card();
	if (fd < 0)
		return -1;
	if (dumb_create(fd, 256, 64, &b)) {	/* 16 pages */
		close(fd);
		return fail("CREATE_DUMB: %s", strerror(errno));
	}
	for (uint64_t pg = 0; pg < b.size / PAGE; pg++)
		memset(b.map + pg * PAGE, (int)(0x40 + pg), PAGE);
	munmap(b.map, b.size);
	map = mmap(NULL, b.size, PROT_READ, MAP_SHARED, fd, map_dumb_offset(fd, b.handle));
	b.map = NULL;
	if (map == MAP_FAILED) {
		ret = fail("mmap: %s", strerror(errno));
		goto out;
	}
	/* nothing faulted in yet: every page left faults after the head goes */
	munmap(map, 4 * PAGE);
	for (uint64_t pg = 4; !ret && pg < b.size / PAGE; pg++)
		if (map[pg * PAGE] != (uint8_t)(0x40 + pg))
			ret = fail("page %llu of the buffer reads %#x, page %u's byte",
				   (unsigned long long)pg, map[pg * PAGE],
				   map[pg * PAGE] - 0x40);
	munmap(map + 4 * PAGE, b.size - 4 * PAGE);
	if (!ret)
		printf("# after munmap() of 4 head pages: the other %llu pages are the "
		       "buffer's own\n", (unsigned long long)(b.size / PAGE - 4));
out:
	dumb_destroy(fd, &b);
	close(fd);
	return ret;
}

/* A thread that reads pvmap_drm's "pages:" counter over and over, from the clear's CPU. */
struct clear_watch {
	pthread_t thread;
	long long lo, hi;	/* counts strictly inside the clear, not at its ends */
	long long seen;		/* such a count it read, or -1 */
	long long reads;
	int cpu;
	bool started, stop;
};

static void *clear_watch_run(void *arg)
{
	struct clear_watch *w = arg;

	w->cpu = sched_getcpu();
	__atomic_store_n(&w->started, true, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		long long pages = drm_stat("pages: ");

		w->reads++;
		if (w->seen < 0 && pages > w->lo && pages < w->hi)
			w->seen = pages;
	}
	return NULL;
}

/*
 * A 256 MiB buffer's clear at CREATE_DUMB is 65536 pages, 4096 atomic
 * range maps in one loop of the ioctl. A thread of this process on the
 * same CPU (SCHED_OTHER, runnable throughout) reads the counter of pages
 * those maps covered; it must read one from the middle of the clear (from
 * an eighth to seven eighths of it), that is, run while the ioctl runs. On
 * a kernel without preemption (the project's: PREEMPT_NONE; Debian's:
 * voluntary) only the loop's cond_resched() lets it. No speed is asserted.
 */
PVMAP_TEST(drm_clear_resched)
{
	struct drm_mode_create_dumb c = { .width = 8192, .height = 8192, .bpp = 32 };
	struct drm_mode_destroy_dumb d = { 0 };
	struct clear_watch w = { .seen = -1, .cpu = -1 };
	long long before, after, npages = 8192LL * 8192 * 4 / PAGE;
	struct timespec t0, t1;
	cpu_set_t cpu0;
	int fd, ret = 0, err = 0;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	/* this thread first: the watcher inherits its CPU */
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0))
		return fail("sched_setaffinity to CPU 0: %s", strerror(errno));
	fd = open_card();
	if (fd < 0)
		return -1;
	before = drm_stat("pages: ");
	w.lo = before + npages / 8;
	w.hi = before + npages * 7 / 8;
	if (before < 0 || pthread_create(&w.thread, NULL, clear_watch_run, &w)) {
		close(fd);
		return fail("no pages: counter, or no thread: %s", strerror(errno));
	}
	while (!__atomic_load_n(&w.started, __ATOMIC_ACQUIRE))
		sched_yield();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &c))
		err = errno;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	__atomic_store_n(&w.stop, true, __ATOMIC_RELEASE);
	pthread_join(w.thread, NULL);
	after = drm_stat("pages: ");
	if (!err) {
		d.handle = c.handle;
		ioctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d);
	}
	close(fd);
	printf("# CREATE_DUMB 8192x8192 on CPU %d: %s in %.2f s, pages %lld -> %lld; the thread "
	       "on CPU %d read the counter %lld times, ", sched_getcpu(),
	       err ? strerror(err) : "cleared", (double)(t1.tv_sec - t0.tv_sec) +
	       (t1.tv_nsec - t0.tv_nsec) / 1e9, before, after, w.cpu, w.reads);
	if (w.seen < 0)
		printf("never between %lld and %lld\n", w.lo, w.hi);
	else
		printf("once %lld, inside the clear\n", w.seen);
	if (err)
		ret = fail("CREATE_DUMB 8192x8192: %s", strerror(err));
	else if (after - before < npages)
		ret = fail("the clear covered %lld pages, not %lld", after - before, npages);
	else if (w.cpu != 0 || sched_getcpu() != 0)
		ret = fail("the thread (CPU %d) and the ioctl (CPU %d) not both on CPU 0", w.cpu,
			   sched_getcpu());
	else if (w.seen < 0)
		ret = fail("a runnable thread on the clear's CPU never ran during its %lld pages",
			   npages);
	return ret;
}

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
PVMAP_TEST(drm_unplug_fork_bounded)
{
	char pci[64], path[128], c = 0;
	long long m0 = -1, m1 = -1, m2 = -1;
	int cmd[2], report[2], fd, status = 0, ret = 0, touched = 0;
	pid_t holder;

	if (card_pci_name(pci, sizeof(pci)))
		return fail("no PCI device behind %s", CARD);
	fd = open_card();
	if (fd < 0)
		return -1;
	if (pipe(cmd) || pipe(report)) {
		close(fd);
		return fail("pipe: %s", strerror(errno));
	}
	holder = fork();
	if (holder == 0) {
		close(cmd[1]);
		close(report[0]);
		_exit(fork_holder(fd, cmd[0], report[1]) ? 1 : 0);
	}
	close(cmd[0]);
	close(report[1]);
	if (holder < 0 || read(report[0], &c, 1) != 1 || c != 'R') {
		ret = fail("the holder did not map the buffer");
		goto out;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/pvmap_drm/unbind");
	if (guest_write_file(path, pci) || !card_wait(false)) {
		ret = fail("unbind %s from pvmap_drm: %s still there", pci, CARD);
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
		ret = fail("the holder is gone");
		goto out;
	}
	while (touched < FORK_CHILDREN && read(report[0], &c, 1) == 1 && c == 'T')
		touched++;
	m1 = mem_free_kib();
	if (touched < FORK_CHILDREN || write(cmd[1], "X", 1) != 1 ||
	    read(report[0], &c, 1) != 1 || c != 'E') {
		ret = fail("%d of %d children touched their mappings", touched, FORK_CHILDREN);
		goto out;
	}
	/* the children are gone; what they freed may take a moment (RCU) */
	for (int i = 0; i < 50 && m0 - (m2 = mem_free_kib()) > FORK_BOUND_KIB / 4; i++)
		usleep(100 * 1000);
	printf("# MemFree after the unplug: %lld KiB with the holder's %d mappings; %lld "
	       "(%+lld) with %d children that touched each; %lld (%+lld) once they exited; "
	       "bound -%d KiB\n", m0, FORK_MAPS, m1, m1 - m0, FORK_CHILDREN, m2, m2 - m0,
	       FORK_BOUND_KIB);
	if (m0 - m1 > FORK_BOUND_KIB)
		ret = fail("%d children's faults on %d mappings after the unplug took %lld KiB",
			   FORK_CHILDREN, FORK_MAPS, m0 - m1);
	else if (m0 - m2 > FORK_BOUND_KIB / 4)
		ret = fail("%lld KiB not back once the children exited", m0 - m2);
out:
	close(cmd[1]);		/* the holder goes */
	if (holder > 0 && (waitpid(holder, &status, 0) != holder || !WIFEXITED(status) ||
			   WEXITSTATUS(status)))
		ret = fail("the holder: status %#x", status);
	close(report[0]);
	close(fd);
	/* the device back to pvmap_drm for the tests after this one */
	if (access(CARD, F_OK)) {
		snprintf(path, sizeof(path), "/sys/bus/pci/drivers/pvmap_drm/bind");
		if (guest_write_file(path, pci) || !card_wait(true))
			ret = fail("bind %s to pvmap_drm again: no %s", pci, CARD);
	}
	return ret;
}

/*
 * The host unplugs the std-VGA while this process holds a mapping of a
 * buffer: the mapping no longer reaches VRAM (its PTEs were zapped) but the
 * buffer's zeroed page of RAM, read and written without a signal, as TTM's
 * mappings are, so that a display server survives; the file's ioctls fail,
 * nothing oopses, and the module unloads once the file is closed.
 */
PVMAP_TEST(drm_unplug)
{
	struct drm_mode_create_dumb c = { .width = 64, .height = 64, .bpp = 32 };
	struct dumb b;
	int fd, sig, ret = 0, i;

	fd = open_card();
	if (fd < 0)
		return -1;
	if (dumb_create(fd, 256, 256, &b)) {
		close(fd);
		return fail("CREATE_DUMB: %s", strerror(errno));
	}
	memset(b.map, 0x5a, b.size);
	if (!guest_host_sync("drm-unplug")) {
		dumb_destroy(fd, &b);
		close(fd);
		return fail("host did not unplug");
	}
	for (i = 0; i < 100 && access(CARD, F_OK) == 0; i++)
		usleep(100 * 1000);
	if (access(CARD, F_OK) == 0)
		ret = fail("%s still there 10 s after the unplug", CARD);
	sig = guest_touch(b.map, false);
	/* read before the write below: every page of the mapping is that one page */
	if (!sig && (b.map[0] || b.map[b.size - 1]))
		ret = fail("the mapping reads %#x and %#x, not a zeroed page (VRAM held 0x5a)",
			   b.map[0], b.map[b.size - 1]);
	if (!sig)
		sig = guest_touch(b.map + b.size - 1, true);
	printf("# after the unplug: touching the mapping raised %s, CREATE_DUMB gives %s\n",
	       sig ? strsignal(sig) : "nothing",
	       ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &c) ? strerror(errno) : "a buffer");
	if (sig)
		ret = fail("the mapping raised signal %d after the unplug", sig);
	munmap(b.map, b.size);
	close(fd);
	i = guest_unload_module("pvmap_drm");
	if (i)
		ret = fail("pvmap_drm does not unload: %s", strerror(-i));
	return ret;
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
}
FIXTURE_TEARDOWN(alone) {}

/*
 * An UPLOAD whose source stalls (its fifth line on a page userfaultfd
 * holds back, as FUSE can) while the host device_dels the card: the
 * unplug must not wait for it (the host gets DEVICE_DELETED within 10 s,
 * host test device_del_during_stalled_upload), the card goes, and once
 * the page is served the UPLOAD ends with ENODEV. Run alone (-t NAME): the
 * card is gone after it.
 */
PVMAP_TEST_ALONE(device_del_during_stalled_upload)
{
	struct upload_job job = { 0 };
	struct guest_stall st;
	struct dumb b;
	int fd, ret = 0, i;

	fd = open_card();
	if (fd < 0)
		return -1;
	if (dumb_create(fd, 256, 16, &b)) {	/* 1 KiB lines: four to a page */
		close(fd);
		return fail("CREATE_DUMB: %s", strerror(errno));
	}
	munmap(b.map, b.size);
	b.map = NULL;
	ret = guest_stall_create(&st, 4 * PAGE, PAGE);
	if (ret) {
		close(fd);
		return ret == 1 ? skip("no userfaultfd in this kernel") : -1;
	}
	job.fd = fd;
	job.up = (struct drm_pvmap_drm_upload){
		.handle = b.handle, .width = 256, .height = 16, .stride = 1024,
		.data = (uintptr_t)st.buf,
	};
	if (pthread_create(&job.thread, NULL, upload_run, &job)) {
		ret = fail("pthread_create: %s", strerror(errno));
		goto out;
	}
	if (guest_stall_wait(&st, 10000)) {
		ret = fail("the UPLOAD never reached its stalled page");
		goto release;
	}
	if (!guest_host_sync("drm-unplug-stalled")) {
		ret = fail("host did not unplug");
		goto release;
	}
	for (i = 0; i < 100 && access(CARD, F_OK) == 0; i++)
		usleep(100 * 1000);
	if (access(CARD, F_OK) == 0)
		ret = fail("%s still there 10 s after device_del, behind the stalled UPLOAD", CARD);
release:
	guest_stall_release(&st, 0x77);
	for (i = 0; i < 1000 && !__atomic_load_n(&job.finished, __ATOMIC_ACQUIRE); i++)
		usleep(10 * 1000);
	if (!job.finished) {
		ret = fail("the UPLOAD still runs 10 s after its page was served");
		goto out;	/* the thread goes on: no join */
	}
	pthread_join(job.thread, NULL);
	printf("# once served: UPLOAD %s\n", job.ret ? strerror(job.err) : "succeeded");
	if (!ret && (job.ret != -1 || job.err != ENODEV))
		ret = fail("UPLOAD after the unplug: %s, want ENODEV",
			   job.ret ? strerror(job.err) : "success");
out:
	guest_stall_destroy(&st);
	close(fd);
	return ret;
}

TEST_HARNESS_MAIN
