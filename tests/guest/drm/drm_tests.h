/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pvmap-drm-tests' feature programs share (drm_common.c): the card, its
 * dumb buffers, pvmap_drm's debugfs stats, the frame the host compares with
 * the screen. Each feature is a harness program of its own (feature_list.h,
 * ../run_features.h), linked into /bin/pvmap-drm-tests.
 */
#ifndef PVMAP_GUEST_DRM_TESTS_H
#define PVMAP_GUEST_DRM_TESTS_H

#include "guest.h"
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
#include <sys/resource.h>
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

extern char stats_path[256];	/* debugfs <pci>/pvmap_drm_stats */

struct dumb {
	uint32_t handle, pitch, width, height;
	uint64_t size, offset;
	uint8_t *map;
};

int open_card(void);
long long drm_stat(const char *key);
int dumb_create(int fd, uint32_t width, uint32_t height, struct dumb *b);
int dumb_destroy(int fd, struct dumb *b);
int find_aperture(uint32_t kind, char *path, size_t len, struct pvmap_info *info);
uint32_t add_fb(int fd, uint32_t handle, uint32_t width, uint32_t height, uint32_t pitch);
uint32_t scanout_fb(int fd, struct drm_mode_crtc *crtc);
int frame_to_host(int fd, const char *what, uint32_t old);
/* At the start of each test, in its child: the console drained, the stats file found. */
void drm_test_setup(void);

#ifdef PVMAP_GUEST_RESULT_H
/* result.h's hook, in each feature program (drm_common.c has no harness) */
static inline void test_setup(void)
{
	drm_test_setup();
}
#endif

#endif
