/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pvmap-drm-tests' feature programs, in the order they run: DRM_FEATURE(NAME)
 * is drm_NAME.c, a harness program whose main() is drm_NAME_main() (the
 * Makefile reads this list to build them, test-catalog to list their tests).
 */
DRM_FEATURE(display)
DRM_FEATURE(gem)
DRM_FEATURE(unplug)
