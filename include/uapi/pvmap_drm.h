/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pvmap_drm's driver-private ioctls, beside the DRM core's dumb-buffer and
 * KMS ioctls. Frames uploaded with DRM_IOCTL_PVMAP_DRM_UPLOAD reach video
 * memory the way every kernel-side write of pvmap_drm does: through pvmap's
 * atomic maps (or, for comparison, the engine a test build's copy_engine
 * parameter names), straight from user memory, or through the buffer's
 * shadow in RAM when the kernel draws into it too (the fbdev console's
 * buffer).
 */
#ifndef _UAPI_PVMAP_DRM_H
#define _UAPI_PVMAP_DRM_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <drm/drm.h>
#else
#include <drm.h>		/* libdrm's copy: cc $(pkg-config --cflags libdrm) */
#endif

/**
 * struct drm_pvmap_drm_upload - copy a rectangle of pixels into a dumb buffer
 * @handle: the dumb buffer's GEM handle (32 bits per pixel)
 * @x: left edge of the rectangle, in pixels
 * @y: top edge of the rectangle, in lines
 * @width: width of the rectangle, in pixels
 * @height: height of the rectangle, in lines
 * @stride: bytes from one line of @data to the next, at least @width * 4
 * @data: user address of the rectangle's first pixel
 *
 * The rectangle must lie inside the buffer (the buffer's pitch is the one
 * DRM_IOCTL_MODE_CREATE_DUMB returned). EFAULT when @data cannot be read;
 * the lines before the unreadable byte may have been copied then.
 */
struct drm_pvmap_drm_upload {
	__u32 handle;
	__u32 x;
	__u32 y;
	__u32 width;
	__u32 height;
	__u32 stride;
	__u64 data;
};

/**
 * struct drm_pvmap_drm_bo_info - where a dumb buffer lives in video memory
 * @handle: the dumb buffer's GEM handle
 * @pad: zero
 * @vram_offset: byte offset of the buffer from the start of the VRAM BAR
 * @size: the buffer's size in bytes
 */
struct drm_pvmap_drm_bo_info {
	__u32 handle;
	__u32 pad;
	__u64 vram_offset;
	__u64 size;
};

#define DRM_PVMAP_DRM_UPLOAD	0x00
#define DRM_PVMAP_DRM_BO_INFO	0x01

#define DRM_IOCTL_PVMAP_DRM_UPLOAD \
	DRM_IOW(DRM_COMMAND_BASE + DRM_PVMAP_DRM_UPLOAD, struct drm_pvmap_drm_upload)
#define DRM_IOCTL_PVMAP_DRM_BO_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_PVMAP_DRM_BO_INFO, struct drm_pvmap_drm_bo_info)

#endif /* _UAPI_PVMAP_DRM_H */
