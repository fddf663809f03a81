// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-drm-tests: pvmap_drm's tests on the kselftest harness (result.h), in a
 * guest whose std-VGA pvmap leaves to pvmap_drm (pvmap's default) and whose
 * ivshmem and qxl apertures pvmap binds. The DRM calls are the kernel's
 * ioctls, so the program stays static; Debian's modetest (dynamically linked,
 * from its libdrm-tests package) is the libdrm client. The host checks what
 * reaches the screen (QMP screendump) and VRAM (QMP pmemsave) at the
 * handshakes.
 *
 * One program per feature (features.h): the harness keeps its test list per
 * file, so each drm_NAME.c is a harness program of its own, linked here with
 * its main() renamed drm_NAME_main(). This runs each in turn, in a child, with
 * the arguments it was given (-t NAME, -F alone): each prints its own TAP
 * document, which the host joins into one suite. The exit status is 0 when
 * every feature's was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define DRM_FEATURE(name) int drm_##name##_main(int argc, char **argv);
#include "features.h"
#undef DRM_FEATURE

static int run_feature(int (*feature_main)(int, char **), int argc, char **argv)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		exit(feature_main(argc, argv));
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return !WIFEXITED(status) || WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	int failed = 0;

#define DRM_FEATURE(name) failed |= run_feature(drm_##name##_main, argc, argv);
#include "features.h"
#undef DRM_FEATURE
	return failed;
}
