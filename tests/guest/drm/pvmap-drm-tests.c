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
 * One feature program per file (feature_list.h, in the order they run): each runs
 * in turn with these arguments (run_features.h) and prints its own TAP
 * document; the host reads them as one suite. The exit status is 0 when every
 * feature's was.
 */
#define FEATURE_LIST "drm/feature_list.h"	/* from run_features.h's directory */
#include "../run_features.h"
