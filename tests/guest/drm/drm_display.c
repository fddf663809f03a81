// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-drm-tests, the display: pvmap_drm probes, fbcon draws, the screen is
 * unblanked after another driver, a mode set scans out its framebuffer,
 * modetest's SMPTE pattern and pvmap-drmfps's frames reach the screen.
 * A harness program of its own (feature_list.h, ../run_features.h).
 */
#define _GNU_SOURCE
#include "result.h"
#include "drm_tests.h"

/*
 * pvmap_drm binds the std-VGA device and answers DRM_IOCTL_VERSION on its
 * card.
 */
TEST_F(pvmap, drm_probe)
{
	char name[64] = "", path[32];
	struct drm_version v = { .name = name, .name_len = sizeof(name) - 1 };
	struct pvmap_info info;
	int fd, ret;

	ret = guest_load_drm("");
	ASSERT_EQ(0, ret) TH_LOG("load %s: %s", GUEST_DRM_PATH, strerror(-ret));
	fd = open_card();
	ASSERT_LE(0, fd);
	ret = ioctl(fd, DRM_IOCTL_VERSION, &v);
	close(fd);
	ASSERT_EQ(0, ret) TH_LOG("DRM_IOCTL_VERSION: %d, driver '%s'", ret, name);
	ASSERT_STREQ("pvmap_drm", name) TH_LOG("DRM_IOCTL_VERSION: %d, driver '%s'", ret, name);
	ASSERT_EQ(0, guest_drm_stats_path(stats_path, sizeof(stats_path)))
		TH_LOG("no pvmap_drm_stats in debugfs");
	/* pvmap keeps the other apertures */
	ASSERT_EQ(0, find_aperture(PVMAP_KIND_IVSHMEM, path, sizeof(path), &info))
		TH_LOG("pvmap does not have the ivshmem and qxl apertures beside pvmap_drm");
	ASSERT_EQ(0, find_aperture(PVMAP_KIND_QXL, path, sizeof(path), &info))
		TH_LOG("pvmap does not have the ivshmem and qxl apertures beside pvmap_drm");
	ASSERT_NE(0, find_aperture(PVMAP_KIND_STDVGA, path, sizeof(path), &info))
		TH_LOG("pvmap bound the std-VGA too (%s)", path);
	printf("# pvmap_drm on %s, VRAM %lld MiB; pvmap has ivshmem and qxl\n", stats_path,
	       drm_stat("vram_size: ") >> 20);
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
TEST_F(pvmap, drm_fbcon)
{
	static const char text[] = "\033[?25l\033[2J\033[H"	/* no cursor, cleared */
		"pvmap_drm fbcon: this text reached VRAM through pvmap's atomic maps\n"
		"0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz\n";
	long long copies = drm_stat("shadow_copies: "), maps = drm_stat("maps: ");
	char engine[64] = "";

	ASSERT_EQ(0, write_tty1(text));
	wait_copies_rest(copies);
	guest_read_file("/sys/module/pvmap_drm/parameters/copy_engine", engine, sizeof(engine));
	printf("# damage copies %lld -> %lld, engine maps %lld -> %lld, engine %s",
	       copies, drm_stat("shadow_copies: "), maps, drm_stat("maps: "), engine);
	ASSERT_GT(drm_stat("shadow_copies: "), copies)
		TH_LOG("the console's text made no damage copy through pvmap");
	ASSERT_GT(drm_stat("maps: "), maps)
		TH_LOG("the console's text made no damage copy through pvmap");
	ASSERT_EQ(0, fbcon_to_host("fbcon"));
}

/*
 * DRM_IOCTL_MODE_DIRTYFB: a framebuffer whose buffer user space draws into
 * through its mapping is VRAM, on the screen already: ENOSYS, as from a
 * driver without the hook; Xorg's modesetting driver asks once
 * and then tracks and sends no damage. The console's framebuffer, which
 * the kernel draws into a shadow of, takes it: 0, and its shadow is copied.
 */
TEST_F(pvmap, drm_dirtyfb_vram_direct)
{
	struct drm_mode_fb_dirty_cmd dirty = { 0 };
	struct drm_mode_crtc crtc;
	long long copies;
	uint32_t fb_id;
	struct dumb b;
	int fd, ret;

	fd = open_card();
	ASSERT_LE(0, fd);
	dirty.fb_id = scanout_fb(fd, &crtc);
	ASSERT_NE(0, dirty.fb_id) TH_LOG("no framebuffer on the CRTC (fbcon's)");
	copies = drm_stat("shadow_copies: ");
	ASSERT_EQ(0, ioctl(fd, DRM_IOCTL_MODE_DIRTYFB, &dirty))
		TH_LOG("DIRTYFB on the console's framebuffer: %s", strerror(errno));
	ASSERT_LT(copies, drm_stat("shadow_copies: "))
		TH_LOG("DIRTYFB on the console's framebuffer copied nothing");
	ASSERT_EQ(0, dumb_create(fd, 64, 64, &b)) TH_LOG("CREATE_DUMB: %s", strerror(errno));
	fb_id = add_fb(fd, b.handle, 64, 64, b.pitch);
	ASSERT_NE(0, fb_id) TH_LOG("ADDFB: %s", strerror(errno));
	dirty.fb_id = fb_id;
	ret = ioctl(fd, DRM_IOCTL_MODE_DIRTYFB, &dirty);
	ASSERT_EQ(-1, ret) TH_LOG("DIRTYFB on a buffer drawn through its mapping: %d, not ENOSYS",
				  ret);
	ASSERT_EQ(ENOSYS, errno) TH_LOG("DIRTYFB on a buffer drawn through its mapping: %s",
					strerror(errno));
	printf("# DIRTYFB: 0 on the console's framebuffer (its shadow copied), ENOSYS on a "
	       "buffer user space draws into\n");
	ioctl(fd, DRM_IOCTL_MODE_RMFB, &fb_id);
	dumb_destroy(fd, &b);
	close(fd);
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
TEST_F(pvmap, drm_unblank_after_previous_driver)
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
	ASSERT_NE(NULL, strstr(driver, "/pvmap_drm"))
		TH_LOG("card0's device is not pvmap_drm's ('%s')", driver);
	ASSERT_EQ(0, write_tty1(text));
	wait_copies_rest(copies);
	fd = open("/sys/class/drm/card0/device/resource2", O_RDWR | O_SYNC | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open card0's resource2: %s", strerror(errno));
	regs = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	/*
	 * Debian's kernels (CONFIG_IO_STRICT_DEVMEM) refuse the mapping of a
	 * BAR a driver holds, and no guest boots with iomem=relaxed
	 * (docs/kernel-matrix.md): a skip there, a failure on the project's kernels.
	 */
	if (regs == MAP_FAILED && errno == EINVAL && !uname(&uts) && strstr(uts.version, "Debian"))
		SKIP(return,
		     "Debian's IO_STRICT_DEVMEM refuses a mapping of the BAR pvmap_drm holds");
	ASSERT_NE(MAP_FAILED, regs) TH_LOG("mmap card0's resource2: %s", strerror(errno));
	/* from here on a failure restores the screen for the later tests, then ends the test */
	ret = -1;
	blanked = VGA_AR_PAS;
	fb = open("/dev/fb0", O_RDWR | O_CLOEXEC);
	if (fb < 0) {
		TH_LOG("open /dev/fb0: %s", strerror(errno));
		goto restore;
	}
	/*
	 * Between pvmap_drm's disable and its enable, as between bochs's
	 * unbind and pvmap_drm's bind: pvmap_drm's own disable leaves the
	 * flip-flop on "index", bochs's blank leaves it on "data".
	 */
	if (ioctl(fb, FBIOBLANK, FB_BLANK_POWERDOWN)) {
		TH_LOG("FBIOBLANK power-down: %s", strerror(errno));
		goto restore;
	}
	vga_ar_write_index(regs, 0x00);
	blanked = vga_ar_index(regs);
	regs[VGA_REG(0x3c0)] = 0x00;	/* and the flip-flop left on "data", as bochs leaves it */
	if (blanked & VGA_AR_PAS)
		TH_LOG("the blank did not reach the device (attribute index %#x)", blanked);
	else if (ioctl(fb, FBIOBLANK, FB_BLANK_UNBLANK))
		TH_LOG("FBIOBLANK unblank: %s", strerror(errno));
	else
		ret = 0;
	after = vga_ar_index(regs);
	printf("# attribute index: %#x after the blank, %#x after fb0's unblank\n", blanked, after);
	if (!ret && !(after & VGA_AR_PAS)) {
		TH_LOG("pvmap_drm's enable left the display blanked");
		ret = -1;
	}
restore:
	if (ret) {	/* the later tests need a screen */
		vga_ar_write_index(regs, VGA_AR_PAS);
		if (fb >= 0)
			ioctl(fb, FBIOBLANK, FB_BLANK_UNBLANK);
	}
	if (fb >= 0)
		close(fb);
	munmap((void *)regs, PAGE);
	ASSERT_EQ(0, ret);
	copies = drm_stat("shadow_copies: ");
	wait_copies_rest(copies);
	ASSERT_EQ(0, fbcon_to_host("unblank"));
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
TEST_F(pvmap, drm_modeset_scans_out_its_fb)
{
	struct drm_mode_create_dumb c = { .width = 800, .height = 600, .bpp = 32 };
	static struct drm_mode_modeinfo modes[256];
	struct drm_mode_get_connector conn = { 0 };
	struct drm_mode_map_dumb m = { 0 };
	struct drm_mode_crtc crtc;
	uint32_t old, conn_id, *px;
	unsigned int i, mode;
	int fd, ret;

	fd = open_card();
	ASSERT_LE(0, fd);
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
	ASSERT_NE(0, old) TH_LOG("the CRTC, its framebuffer or the connector's modes: %s",
				 strerror(errno));
	ASSERT_EQ(0, ret) TH_LOG("the CRTC, its framebuffer or the connector's modes: %s",
				 strerror(errno));
	ASSERT_GE(256, conn.count_modes)
		TH_LOG("the CRTC, its framebuffer or the connector's modes: %s", strerror(errno));
	for (mode = 0; mode < conn.count_modes; mode++)
		if (modes[mode].hdisplay == 800 && modes[mode].vdisplay == 600)
			break;
	ASSERT_NE(conn.count_modes, mode)
		TH_LOG("no 800x600 among the connector's %u modes", conn.count_modes);
	ASSERT_EQ(0, ioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &c))
		TH_LOG("CREATE_DUMB 800x600: %s", strerror(errno));
	m.handle = c.handle;
	px = ioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &m) ? MAP_FAILED :
		mmap(NULL, c.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, m.offset);
	ASSERT_NE(MAP_FAILED, px) TH_LOG("mapping the buffer: %s", strerror(errno));
	for (i = 0; i < c.size / 4; i++)	/* no pixel black, none alike its neighbour */
		px[i] = 0x00404040 | (i * 2654435761u & 0x00bfbfbf);
	munmap(px, c.size);
	crtc.fb_id = add_fb(fd, c.handle, 800, 600, c.pitch);
	ASSERT_NE(0, crtc.fb_id) TH_LOG("ADDFB: %s", strerror(errno));
	crtc.x = 0;
	crtc.y = 0;
	crtc.set_connectors_ptr = (uintptr_t)&conn_id;
	crtc.count_connectors = 1;
	crtc.mode = modes[mode];
	crtc.mode_valid = 1;
	ASSERT_EQ(0, ioctl(fd, DRM_IOCTL_MODE_SETCRTC, &crtc))
		TH_LOG("SETCRTC 800x600: %s", strerror(errno));
	/* on a failure, the test's exit closes the card: the same as the close below */
	ASSERT_EQ(0, frame_to_host(fd, "modeset", old));
	close(fd);	/* its framebuffer goes, and fbcon's mode comes back */
}

/*
 * Debian's modetest sets 1024x768 XR24 with its SMPTE pattern; while it
 * waits for a key, the scanned-out buffer goes to the host, which checks
 * the screendump against the pattern and against that buffer.
 */
TEST_F(pvmap, drm_modetest_smpte)
{
	int to_mt[2], pty, tty, fd, status;
	struct drm_mode_crtc crtc;
	uint32_t fbdev_fb;
	char arg[64], line[512];
	bool set = false;
	FILE *out;
	pid_t pid;

	/* closed again before modetest starts: it must be the DRM master */
	fd = open_card();
	ASSERT_LE(0, fd);
	snprintf(arg, sizeof(arg), "%u:1024x768@XR24", connector_id(fd));
	fbdev_fb = scanout_fb(fd, &crtc);
	close(fd);
	/* its output on a terminal, so that stdio sends each line as it is written */
	mkdir("/dev/pts", 0755);
	if (mount("devpts", "/dev/pts", "devpts", 0, "")) {
		ASSERT_EQ(EBUSY, errno) TH_LOG("mount devpts: %s", strerror(errno));
	}
	ASSERT_EQ(0, pipe(to_mt)) TH_LOG("pipe or pty: %s", strerror(errno));
	ASSERT_EQ(0, openpty(&pty, &tty, NULL, NULL, NULL))
		TH_LOG("pipe or pty: %s", strerror(errno));
	/* from here on a failure is recorded; modetest is stopped and waited for all the same */
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
		EXPECT_LE(0, fd);
		if (fd >= 0) {
			EXPECT_EQ(0, frame_to_host(fd, "smpte", fbdev_fb));
			close(fd);
		}
	}
	EXPECT_EQ(1, write(to_mt[1], "\n", 1)) TH_LOG("cannot tell modetest to stop");
	close(to_mt[1]);
	while (out && fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\r\n")] = '\0';
		printf("# modetest: %s\n", line);
	}
	if (out)
		fclose(out);
	waitpid(pid, &status, 0);
	ASSERT_TRUE(set) TH_LOG("modetest did not set the mode");
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("modetest: status %#x", status);
	ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("modetest: status %#x", status);
}

/*
 * The project's libdrm client, pvmap-drmfps, with each copy engine and with
 * user-space mmap writes: every frame read back right after its flip. The
 * last run leaves its frame to the host's screendump check.
 */
TEST_F(pvmap, drm_fps_client)
{
	static const char *const runs[][4] = {
		{ "--upload", "kernel", "--engine", "ioremap_page" },
		{ "--upload", "kernel", "--engine", "ioremap_whole" },
		{ "--upload", "mmap", "--engine", "pvmap" },
		{ "--upload", "kernel", "--engine", "pvmap" },
	};

	for (unsigned int i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		bool last = i + 1 == sizeof(runs) / sizeof(runs[0]);
		char *argv[] = { "/bin/pvmap-drmfps", "--frames", "4", (char *)runs[i][0],
				 (char *)runs[i][1], (char *)runs[i][2], (char *)runs[i][3],
				 last ? "--handoff" : NULL, NULL };
		int status = guest_run(argv);

		EXPECT_EQ(0, status) TH_LOG("pvmap-drmfps %s %s %s %s: status %d", runs[i][0],
					    runs[i][1], runs[i][2], runs[i][3], status);
	}
}

TEST_HARNESS_MAIN
