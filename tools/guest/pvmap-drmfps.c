// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-drmfps: a libdrm client of pvmap_drm. Uploads full-screen frames
 * into two dumb buffers in turn, page-flips to each, and reports frames per
 * second; every frame is read back through the buffer's mapping after its
 * flip (outside the timed part) and compared with what was uploaded.
 *
 *   pvmap-drmfps [--frames N] [--engine pvmap|ioremap_page|ioremap_whole]
 *                [--upload kernel|mmap] [--image FILE.ppm] [--handoff]
 *
 * --upload kernel (the default) hands each frame to the kernel
 * (DRM_IOCTL_PVMAP_DRM_UPLOAD), which copies it into VRAM with pvmap_drm's
 * copy engine, set here with --engine (a test build's copy_engine
 * parameter: a production pvmap_drm has none and copies through pvmap
 * only); --upload mmap writes VRAM from user
 * space through the write-combining mapping. Frames are the pattern of
 * include/uapi/pvmap_pattern.h, a new seed each, or --image's picture (binary
 * PPM, cropped or padded to the mode). --handoff then writes the last
 * frame, as it was meant to look, at offset 0 of pvmap's ivshmem aperture
 * and prints "# pvmap-host: drm-frame ...", for a host to compare with its
 * screendump, while the frame is on screen. The last line is "# pvmap-drmfps: {json}".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "guest.h"
#include <uapi/pvmap_pattern.h>
#include <uapi/pvmap.h>
#include <uapi/pvmap_drm.h>

#define ENGINE_PARAM	"/sys/module/pvmap_drm/parameters/copy_engine"

struct buffer {
	uint32_t handle, pitch, fb;
	uint64_t size;
	uint8_t *map;
};

static int die(const char *what)
{
	fprintf(stderr, "pvmap-drmfps: %s: %s\n", what, strerror(errno));
	return 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int make_buffer(int fd, uint32_t w, uint32_t h, struct buffer *b)
{
	struct drm_mode_create_dumb c = { .width = w, .height = h, .bpp = 32 };
	struct drm_mode_map_dumb m = { 0 };
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };

	if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &c))
		return -1;
	b->handle = c.handle;
	b->pitch = c.pitch;
	b->size = c.size;
	handles[0] = c.handle;
	pitches[0] = c.pitch;
	if (drmModeAddFB2(fd, w, h, DRM_FORMAT_XRGB8888, handles, pitches, offsets, &b->fb, 0))
		return -1;
	m.handle = c.handle;
	if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &m))
		return -1;
	b->map = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, m.offset);
	return b->map == MAP_FAILED ? -1 : 0;
}

/* A binary PPM as XRGB8888 rows of @pitch bytes, cropped or padded to w x h. */
static int load_ppm(const char *path, uint8_t *frame, uint32_t w, uint32_t h, uint32_t pitch)
{
	unsigned int pw, ph, max;
	FILE *f = fopen(path, "rb");
	int ret = -1;

	if (!f)
		return -1;
	if (fscanf(f, "P6 %u %u %u", &pw, &ph, &max) == 3 && max == 255 && fgetc(f) != EOF) {
		memset(frame, 0, (size_t)pitch * h);
		ret = 0;
		for (uint32_t y = 0; y < ph && !ret; y++)
			for (uint32_t x = 0; x < pw; x++) {
				uint8_t rgb[3];

				if (fread(rgb, 1, 3, f) != 3) {
					ret = -1;
					break;
				}
				if (x < w && y < h) {
					uint8_t *p = frame + (size_t)y * pitch + x * 4;

					p[0] = rgb[2];
					p[1] = rgb[1];
					p[2] = rgb[0];
				}
			}
	}
	fclose(f);
	return ret;
}

static void flip_done(int fd, unsigned int seq, unsigned int sec, unsigned int usec, void *data)
{
	(void)fd;
	(void)seq;
	(void)sec;
	(void)usec;
	*(bool *)data = true;
}

/* Flip to @fb and wait for the flip's event. */
static int flip(int fd, uint32_t crtc, uint32_t fb)
{
	drmEventContext ev = { .version = 2, .page_flip_handler = flip_done };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	bool done = false;

	if (drmModePageFlip(fd, crtc, fb, DRM_MODE_PAGE_FLIP_EVENT, &done))
		return -1;
	while (!done) {
		if (poll(&pfd, 1, 5000) <= 0)
			return -1;
		drmHandleEvent(fd, &ev);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *engine = NULL, *upload = "kernel", *image = NULL;
	int frames = 30, fd, verified = 0, wrong = 0, ret;
	bool to_host = false;
	drmModeConnector *conn = NULL;
	drmModeModeInfo *mode = NULL;
	drmModeRes *res;
	struct buffer bufs[2];
	uint32_t w, h, crtc;
	double spent = 0;
	uint8_t *frame;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--frames") && i + 1 < argc)
			frames = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--engine") && i + 1 < argc)
			engine = argv[++i];
		else if (!strcmp(argv[i], "--upload") && i + 1 < argc)
			upload = argv[++i];
		else if (!strcmp(argv[i], "--image") && i + 1 < argc)
			image = argv[++i];
		else if (!strcmp(argv[i], "--handoff"))
			to_host = true;
		else {
			fprintf(stderr, "usage: pvmap-drmfps [--frames N] [--engine pvmap|"
				"ioremap_page|ioremap_whole] [--upload kernel|mmap] "
				"[--image FILE.ppm] [--handoff]\n");
			return 2;
		}
	}
	if (frames < 1 || (strcmp(upload, "kernel") && strcmp(upload, "mmap"))) {
		fprintf(stderr, "pvmap-drmfps: --frames >= 1, --upload kernel or mmap\n");
		return 2;
	}
	if (engine) {
		int p = open(ENGINE_PARAM, O_WRONLY | O_CLOEXEC);

		if (p < 0 && errno == ENOENT) {
			fprintf(stderr, "pvmap-drmfps: --engine: pvmap_drm has no copy_engine "
				"(built without CONFIG_PVMAP_TEST_HOOKS)\n");
			return 1;
		}
		if (p < 0 || write(p, engine, strlen(engine)) != (ssize_t)strlen(engine))
			return die("cannot set " ENGINE_PARAM);
		close(p);
	}
	fd = drmOpen("pvmap_drm", NULL);
	if (fd < 0)
		return die("drmOpen pvmap_drm");
	res = drmModeGetResources(fd);
	if (!res || !res->count_crtcs)
		return die("drmModeGetResources");
	crtc = res->crtcs[0];
	for (int i = 0; i < res->count_connectors && !mode; i++) {
		conn = drmModeGetConnector(fd, res->connectors[i]);
		for (int m = 0; conn && m < conn->count_modes; m++)
			if (conn->modes[m].type & DRM_MODE_TYPE_PREFERRED)
				mode = &conn->modes[m];
	}
	if (!mode) {
		errno = ENOENT;
		return die("no connector with a preferred mode");
	}
	w = mode->hdisplay;
	h = mode->vdisplay;
	for (int i = 0; i < 2; i++)
		if (make_buffer(fd, w, h, &bufs[i]))
			return die("dumb buffer");
	frame = malloc(bufs[0].size);
	if (!frame)
		return die("malloc");
	if (drmModeSetCrtc(fd, crtc, bufs[0].fb, 0, 0, &conn->connector_id, 1, mode))
		return die("drmModeSetCrtc");
	if (image && load_ppm(image, frame, w, h, bufs[0].pitch))
		return die(image);

	for (int i = 1; i <= frames; i++) {
		struct buffer *b = &bufs[i & 1];
		uint64_t len = (uint64_t)b->pitch * h;
		double t;

		if (!image)
			pvmap_pattern_fill(frame, len, 0xf7a3e000 + i, 0);
		t = now();
		if (!strcmp(upload, "mmap")) {
			memcpy(b->map, frame, len);
		} else {
			struct drm_pvmap_drm_upload up = {
				.handle = b->handle, .width = w, .height = h,
				.stride = b->pitch, .data = (uintptr_t)frame,
			};

			if (drmIoctl(fd, DRM_IOCTL_PVMAP_DRM_UPLOAD, &up))
				return die("DRM_IOCTL_PVMAP_DRM_UPLOAD");
		}
		if (flip(fd, crtc, b->fb))
			return die("page flip");
		spent += now() - t;
		/* where the bytes landed, read back through the mapping */
		for (uint32_t y = 0; y < h; y++)
			if (memcmp(b->map + (size_t)y * b->pitch, frame + (size_t)y * b->pitch,
				   (size_t)w * 4)) {
				wrong++;
				break;
			}
		verified++;
	}
	if (!engine) {
		static char current[32];
		int p = open(ENGINE_PARAM, O_RDONLY | O_CLOEXEC);
		ssize_t n = p < 0 ? -1 : read(p, current, sizeof(current) - 1);

		current[n > 0 ? n - 1 : 0] = '\0';
		/* no copy_engine (not a test build): pvmap's, the only engine */
		engine = p < 0 && errno == ENOENT ? "pvmap" : current;
		if (p >= 0)
			close(p);
	}
	ret = wrong ? 1 : 0;
	if (to_host) {
		if (guest_hand_to_host(frame, (uint64_t)bufs[0].pitch * h))
			ret = die("cannot hand the frame to the host (ivshmem aperture)");
		else
			printf("# pvmap-host: drm-frame what=fps width=%u height=%u pitch=%u "
			       "mode=%ux%u engine=%s upload=%s\n", w, h, bufs[0].pitch, w, h,
			       engine ? engine : "-", upload);
		/* the host takes its screendump while the frame is on screen */
		if (!ret && !guest_host_sync("drm-frame"))
			ret = die("the host did not acknowledge the frame");
	}
	printf("pvmap-drmfps: %d frames of %ux%u, upload %s, engine %s: %.1f frames/s, "
	       "%d of %d read back wrong\n", frames, w, h, upload, engine, frames / spent, wrong,
	       verified);
	printf("# pvmap-drmfps: {\"frames\": %d, \"width\": %u, \"height\": %u, \"upload\": \"%s\", "
	       "\"engine\": \"%s\", \"seconds\": %.6f, \"fps\": %.3f, \"verified\": %d, "
	       "\"wrong\": %d}\n", frames, w, h, upload, engine, spent, frames / spent, verified,
	       wrong);
	fflush(stdout);
	drmClose(fd);
	return ret;
}
