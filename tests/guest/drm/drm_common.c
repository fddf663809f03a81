// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-drm-tests' shared helpers (drm.h): the card, dumb buffers, the stats,
 * the frame handed to the host.
 */
#define _GNU_SOURCE
#include "drm_tests.h"

char stats_path[256];	/* debugfs <pci>/pvmap_drm_stats */

int open_card(void)
{
	int fd = open(CARD, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		printf("# open %s: %s\n", CARD, strerror(errno));
	return fd;
}

/* One line "key: N" of pvmap_drm's debugfs stats; -1 when absent. */
long long drm_stat(const char *key)
{
	char buf[1024], *at;

	if (guest_read_file(stats_path, buf, sizeof(buf)) <= 0)
		return -1;
	at = strstr(buf, key);
	return at ? strtoll(at + strlen(key), NULL, 10) : -1;
}


int dumb_create(int fd, uint32_t width, uint32_t height, struct dumb *b)
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

int dumb_destroy(int fd, struct dumb *b)
{
	struct drm_mode_destroy_dumb d = { .handle = b->handle };

	if (b->map)
		munmap(b->map, b->size);
	b->map = NULL;
	return ioctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d) ? -errno : 0;
}

/* The first pvmap aperture of @kind: its /dev node in @path; 0 or -1. */
int find_aperture(uint32_t kind, char *path, size_t len, struct pvmap_info *info)
{
	int fd = guest_open_kind(kind, info, path, len);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* The framebuffer the CRTC scans out, its details in *@crtc; 0 when none. */
/* ADDFB of buffer @handle, XRGB8888 @width x @height, @pitch bytes a line: its id, or 0. */
uint32_t add_fb(int fd, uint32_t handle, uint32_t width, uint32_t height, uint32_t pitch)
{
	struct drm_mode_fb_cmd f = {
		.width = width, .height = height, .pitch = pitch, .bpp = 32, .depth = 24,
		.handle = handle,
	};

	return ioctl(fd, DRM_IOCTL_MODE_ADDFB, &f) ? 0 : f.fb_id;
}

uint32_t scanout_fb(int fd, struct drm_mode_crtc *crtc)
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
int frame_to_host(int fd, const char *what, uint32_t old)
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
void drm_test_setup(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	tcdrain(STDOUT_FILENO);
	if (!stats_path[0])
		guest_drm_stats_path(stats_path, sizeof(stats_path));
}
