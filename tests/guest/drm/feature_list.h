/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pvmap-drm-tests' feature programs, in the order they run: FEATURE(NAME) is
 * NAME.c (../run_features.h; the Makefile builds them from this list,
 * test-catalog lists their tests from it).
 */
FEATURE(drm_display)	/* probe, fbcon, unblank, mode set, modetest, pvmap-drmfps */
FEATURE(drm_gem)	/* dumb buffers, VRAM beyond vmalloc, mmap, the clear */
FEATURE(drm_unplug)	/* the card unplugged under its users */
