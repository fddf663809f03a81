// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap_drm: a KMS driver for QEMU's std-VGA (1234:1111) whose dumb buffers
 * live in its video memory and whose kernel-side writes go through pvmap.
 *
 * This file is the display and the PCI device, in the order of
 * drivers/gpu/drm/tiny/bochs.c: the hardware (the bochs DISPI interface in
 * the MMIO BAR), then the DRM glue on top of it (plane, CRTC, connector,
 * framebuffers), then the PCI driver. A buffer is scanned out by pointing
 * the display's virtual-screen offsets at it, which QEMU allows only in the
 * first VBE_DISPI_MAX_YRES lines of video memory. The buffers themselves,
 * and every kernel-side write into video memory, are pvmap_drm_gem.c's.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/io.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/pci.h>

#include <drm/drm_aperture.h>
#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_damage_helper.h>
#include <drm/drm_drv.h>
#include <drm/drm_edid.h>
#include <drm/drm_fb_helper.h>
#include <drm/drm_file.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_modeset_helper_vtables.h>
#include <drm/drm_print.h>
#include <drm/drm_probe_helper.h>
#include <drm/drm_rect.h>
#include <drm/drm_simple_kms_helper.h>
#include <drm/drm_vblank.h>
#include <video/vga.h>

#include <pvmap/compat.h>
#include <pvmap/io_mapping.h>
#include <uapi/pvmap_drm.h>

#include "pvmap_drm.h"

#define PVMAP_DRM_NAME		"pvmap_drm"

static bool fbdev = true;
module_param(fbdev, bool, 0444);
MODULE_PARM_DESC(fbdev, "fbdev emulation and its console (default on)");

/* --- the hardware: bochs DISPI registers ---------------------------------- */

/* The bochs DISPI registers, 16 bits each, at 0x500 in the MMIO BAR (BAR2) */
#define DISPI_MMIO		0x500
#define DISPI_INDEX_ID		0x0
#define DISPI_INDEX_XRES	0x1
#define DISPI_INDEX_YRES	0x2
#define DISPI_INDEX_BPP		0x3
#define DISPI_INDEX_ENABLE	0x4
#define DISPI_INDEX_BANK	0x5
#define DISPI_INDEX_VIRT_WIDTH	0x6
#define DISPI_INDEX_VIRT_HEIGHT	0x7
#define DISPI_INDEX_X_OFFSET	0x8
#define DISPI_INDEX_Y_OFFSET	0x9
#define DISPI_INDEX_VRAM_64K	0xa
#define DISPI_ID5		0xb0c5
#define DISPI_ID_MIN		0xb0c0
#define DISPI_ENABLED		0x01
#define DISPI_LFB_ENABLED	0x40
/* Without it, enabling the display clears the start of VRAM: a buffer's. */
#define DISPI_NOCLEARMEM	0x80
/* QEMU clamps the offsets to these (hw/display/vga_int.h) */
#define DISPI_MAX_XRES		16000
#define DISPI_MAX_YRES		12000
/* The legacy VGA registers (0x3c0-0x3df) at 0x400 in the same BAR */
#define VGA_MMIO		0x400

static void dispi_write(struct pvmap_drm *pd, u16 reg, u16 val)
{
	writew(val, pd->mmio + DISPI_MMIO + reg * 2);
}

static u16 dispi_read(struct pvmap_drm *pd, u16 reg)
{
	return readw(pd->mmio + DISPI_MMIO + reg * 2);
}

/*
 * The attribute controller's palette-address bit: clear, the device shows
 * black whatever VRAM holds. Its index and data share one port, a
 * flip-flop choosing which a write goes to, and the driver bound before
 * (bochs's blank at its last disable) may have left it on "data": reading
 * input status 1, colour addressing on, resets it to "index" first.
 */
static void pvmap_drm_hw_blank(struct pvmap_drm *pd, bool blank)
{
	writeb(VGA_MIS_COLOR, pd->mmio + VGA_MMIO + VGA_MIS_W - 0x3c0);
	readb(pd->mmio + VGA_MMIO + VGA_IS1_RC - 0x3c0);
	writeb(blank ? 0 : VGA_AR_ENABLE_DISPLAY, pd->mmio + VGA_MMIO + VGA_ATT_W - 0x3c0);
}

/*
 * The MMIO BAR mapped, the VRAM BAR requested (never mapped whole: pvmap
 * maps it a range at a time), the DISPI interface found, and how much of
 * VRAM it says there is.
 */
static int pvmap_drm_hw_init(struct pvmap_drm *pd, struct pci_dev *pdev)
{
	u16 dispi_id;
	int ret;

	if (!(pci_resource_flags(pdev, 2) & IORESOURCE_MEM)) {
		dev_err(&pdev->dev, "no MMIO BAR: QEMU's VGA or secondary-vga has one\n");
		return -ENODEV;
	}
	ret = pcim_iomap_regions(pdev, BIT(2), PVMAP_DRM_NAME);
	if (ret)
		return ret;
	pd->mmio = pcim_iomap_table(pdev)[2];
	/* VRAM: requested, never mapped whole; pvmap maps it a range at a time */
	ret = pci_request_region(pdev, 0, PVMAP_DRM_NAME);
	if (ret)
		return ret;

	dispi_id = dispi_read(pd, DISPI_INDEX_ID);
	if (dispi_id < DISPI_ID_MIN || dispi_id > DISPI_ID5) {
		dev_err(&pdev->dev, "no bochs DISPI interface (ID %#x)\n", dispi_id);
		return -ENODEV;
	}
	pd->vram_base = pci_resource_start(pdev, 0);
	pd->vram_size = min_t(u64, pci_resource_len(pdev, 0),
			      (u64)dispi_read(pd, DISPI_INDEX_VRAM_64K) * SZ_64K);
	return 0;
}

/* Where DISPI's virtual-screen offsets put VRAM byte @offset, @pitch a line. */
static bool pvmap_drm_hw_reachable(u64 offset, u32 pitch, u32 height, u64 vram_size)
{
	u64 vy = div_u64(offset, pitch), vx = div_u64(offset - vy * pitch, 4);

	return pitch % 32 == 0 && pitch / 4 <= DISPI_MAX_XRES && vy <= DISPI_MAX_YRES &&
	       vx <= DISPI_MAX_XRES && offset % 4 == 0 &&
	       offset + (u64)height * pitch <= vram_size;
}

static enum drm_mode_status pvmap_drm_hw_mode_valid(struct pvmap_drm *pd,
						    const struct drm_display_mode *mode)
{
	if (mode->hdisplay % 8 || mode->hdisplay > DISPI_MAX_XRES ||
	    mode->vdisplay > DISPI_MAX_YRES)
		return MODE_BAD;
	if ((u64)mode->hdisplay * mode->vdisplay * 4 > pd->vram_size)
		return MODE_MEM;
	return MODE_OK;
}

static void pvmap_drm_hw_setmode(struct pvmap_drm *pd, const struct drm_display_mode *mode)
{
	pvmap_drm_hw_blank(pd, false);
	dispi_write(pd, DISPI_INDEX_ENABLE, 0);
	dispi_write(pd, DISPI_INDEX_BPP, PVMAP_DRM_BPP);
	dispi_write(pd, DISPI_INDEX_XRES, mode->hdisplay);
	dispi_write(pd, DISPI_INDEX_YRES, mode->vdisplay);
	dispi_write(pd, DISPI_INDEX_BANK, 0);
	dispi_write(pd, DISPI_INDEX_ENABLE, DISPI_ENABLED | DISPI_LFB_ENABLED | DISPI_NOCLEARMEM);
}

static void pvmap_drm_hw_disable(struct pvmap_drm *pd)
{
	pvmap_drm_hw_blank(pd, true);
	dispi_write(pd, DISPI_INDEX_ENABLE, 0);
}

/* Scan out from VRAM byte @offset, @pitch bytes a line. */
static void pvmap_drm_hw_setbase(struct pvmap_drm *pd, u64 offset, u32 pitch)
{
	u32 vy = div_u64(offset, pitch);

	dispi_write(pd, DISPI_INDEX_VIRT_WIDTH, pitch / 4);
	dispi_write(pd, DISPI_INDEX_X_OFFSET, (offset - (u64)vy * pitch) / 4);
	dispi_write(pd, DISPI_INDEX_Y_OFFSET, vy);
}

/* --- the plane ------------------------------------------------------------ */

static u64 pvmap_drm_scanout_offset(struct drm_plane_state *state)
{
	struct drm_framebuffer *fb = state->fb;

	return to_bo(fb->obj[0])->node.start + fb->offsets[0] +
	       (u64)(state->src_y >> 16) * fb->pitches[0] + (u64)(state->src_x >> 16) * 4;
}

static int pvmap_drm_plane_atomic_check(struct drm_plane *plane, struct drm_atomic_state *state)
{
	struct drm_plane_state *new = drm_atomic_get_new_plane_state(state, plane);
	struct pvmap_drm *pd = to_pvmap_drm(plane->dev);
	struct drm_crtc_state *crtc_state;
	int ret;

	if (!new->crtc)
		return 0;
	crtc_state = drm_atomic_get_crtc_state(state, new->crtc);
	if (IS_ERR(crtc_state))
		return PTR_ERR(crtc_state);
	ret = drm_atomic_helper_check_plane_state(new, crtc_state, DRM_PLANE_NO_SCALING,
						  DRM_PLANE_NO_SCALING, false, true);
	if (ret || !new->visible)
		return ret;
	if (!pvmap_drm_hw_reachable(pvmap_drm_scanout_offset(new), new->fb->pitches[0],
				    crtc_state->mode.vdisplay, pd->vram_size)) {
		drm_dbg_kms(plane->dev, "framebuffer at VRAM %#llx: out of the display's reach\n",
			    pvmap_drm_scanout_offset(new));
		return -EINVAL;
	}
	return 0;
}

/*
 * The plane's damage since @old, copied from its buffer's shadow into
 * VRAM: DRM_IOCTL_MODE_DIRTYFB's rectangles and the fbdev helper's drawing
 * come here through drm_atomic_helper_dirtyfb(); a commit without damage
 * (a flip, the fbdev helper's mode restore) copies the whole of the
 * plane's source. A buffer the kernel never wrote has no shadow: user
 * space wrote VRAM itself through its mmap, and there is nothing to copy.
 * Context: inside drm_dev_enter(); no user memory is touched under the lock.
 */
static void pvmap_drm_plane_copy_damage(struct pvmap_drm *pd, struct drm_plane_state *old,
					struct drm_plane_state *new)
{
	struct pvmap_drm_bo *bo = to_bo(new->fb->obj[0]);
	struct drm_atomic_helper_damage_iter iter;
	struct drm_rect clip;
	int ret = 0;

	mutex_lock(&bo->lock);
	/* made under the lock: the shadow read before it may be NULL or just made */
	if (bo->shadow) {
		drm_atomic_helper_damage_iter_init(&iter, old, new);
		drm_atomic_for_each_plane_damage(&iter, &clip) {
			ret = pvmap_drm_copy_shadow(pd, bo, new->fb, &clip);
			if (ret)
				break;
		}
	}
	mutex_unlock(&bo->lock);
	if (ret)
		drm_err_ratelimited(&pd->drm, "damage not copied into VRAM: %d\n", ret);
}

static void pvmap_drm_plane_atomic_update(struct drm_plane *plane, struct drm_atomic_state *state)
{
	struct drm_plane_state *old = drm_atomic_get_old_plane_state(state, plane);
	struct drm_plane_state *new = drm_atomic_get_new_plane_state(state, plane);
	struct pvmap_drm *pd = to_pvmap_drm(plane->dev);
	int idx;

	if (!new->fb || !new->visible || !drm_dev_enter(plane->dev, &idx))
		return;
	/* the pixels first, then the display pointed at them */
	pvmap_drm_plane_copy_damage(pd, old, new);
	pvmap_drm_hw_setbase(pd, pvmap_drm_scanout_offset(new), new->fb->pitches[0]);
	drm_dev_exit(idx);
}

static const struct drm_plane_helper_funcs pvmap_drm_plane_helper_funcs = {
	.atomic_check = pvmap_drm_plane_atomic_check,
	.atomic_update = pvmap_drm_plane_atomic_update,
};

static const struct drm_plane_funcs pvmap_drm_plane_funcs = {
	.update_plane = drm_atomic_helper_update_plane,
	.disable_plane = drm_atomic_helper_disable_plane,
	.destroy = drm_plane_cleanup,
	.reset = drm_atomic_helper_plane_reset,
	.atomic_duplicate_state = drm_atomic_helper_plane_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_plane_destroy_state,
};

static const u32 pvmap_drm_formats[] = { DRM_FORMAT_XRGB8888 };

/* --- the CRTC ------------------------------------------------------------- */

static enum drm_mode_status pvmap_drm_crtc_mode_valid(struct drm_crtc *crtc,
						      const struct drm_display_mode *mode)
{
	return pvmap_drm_hw_mode_valid(to_pvmap_drm(crtc->dev), mode);
}

/*
 * The commit's own states, not crtc->state and crtc->primary->state, which
 * are the objects' current ones: the same here only because the helpers
 * hold a later commit's swap back until this one is done. The helpers put
 * the CRTC's planes in every commit that enables it
 * (drm_atomic_helper_check_modeset()).
 */
static void pvmap_drm_crtc_atomic_enable(struct drm_crtc *crtc, struct drm_atomic_state *state)
{
	struct drm_crtc_state *crtc_state = drm_atomic_get_new_crtc_state(state, crtc);
	struct drm_plane_state *plane = drm_atomic_get_new_plane_state(state, crtc->primary);
	struct pvmap_drm *pd = to_pvmap_drm(crtc->dev);
	int idx;

	if (!drm_dev_enter(crtc->dev, &idx))
		return;
	pvmap_drm_hw_setmode(pd, &crtc_state->adjusted_mode);
	/*
	 * Enabling DISPI resets its virtual width and offsets (QEMU's
	 * vbe_ioport_write_data()), and the commit updated the plane before
	 * this: point the display at the plane's buffer again, or it shows
	 * VRAM offset 0, another buffer, until the next plane update.
	 */
	if (plane && plane->fb && plane->visible)
		pvmap_drm_hw_setbase(pd, pvmap_drm_scanout_offset(plane), plane->fb->pitches[0]);
	drm_dev_exit(idx);
}

static void pvmap_drm_crtc_atomic_disable(struct drm_crtc *crtc, struct drm_atomic_state *state)
{
	struct pvmap_drm *pd = to_pvmap_drm(crtc->dev);
	int idx;

	if (!drm_dev_enter(crtc->dev, &idx))
		return;
	pvmap_drm_hw_disable(pd);
	drm_dev_exit(idx);
}

/* No vblank interrupt: a flip is done when the registers are written. */
static void pvmap_drm_crtc_atomic_flush(struct drm_crtc *crtc, struct drm_atomic_state *state)
{
	struct drm_crtc_state *crtc_state = drm_atomic_get_new_crtc_state(state, crtc);
	struct drm_pending_vblank_event *event = crtc_state->event;

	if (!event)
		return;
	crtc_state->event = NULL;
	spin_lock_irq(&crtc->dev->event_lock);
	drm_crtc_send_vblank_event(crtc, event);
	spin_unlock_irq(&crtc->dev->event_lock);
}

static const struct drm_crtc_helper_funcs pvmap_drm_crtc_helper_funcs = {
	.mode_valid = pvmap_drm_crtc_mode_valid,
	.atomic_enable = pvmap_drm_crtc_atomic_enable,
	.atomic_disable = pvmap_drm_crtc_atomic_disable,
	.atomic_flush = pvmap_drm_crtc_atomic_flush,
};

static const struct drm_crtc_funcs pvmap_drm_crtc_funcs = {
	.set_config = drm_atomic_helper_set_config,
	.page_flip = drm_atomic_helper_page_flip,
	.destroy = drm_crtc_cleanup,
	.reset = drm_atomic_helper_crtc_reset,
	.atomic_duplicate_state = drm_atomic_helper_crtc_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_crtc_destroy_state,
};

/* --- the connector -------------------------------------------------------- */

/*
 * No EDID read: DMT modes up to 2560x1600, and 3840x2160 (CVT with reduced
 * blanking: DMT has no such mode), 1024x768 preferred; mode_valid drops what
 * VRAM cannot hold.
 */
static int pvmap_drm_connector_get_modes(struct drm_connector *connector)
{
	int count = drm_add_modes_noedid(connector, 2560, 1600);
	struct drm_display_mode *uhd;

	uhd = drm_cvt_mode(connector->dev, 3840, 2160, 60, true, false, false);
	if (uhd) {
		drm_mode_probed_add(connector, uhd);
		count++;
	}
	drm_set_preferred_mode(connector, 1024, 768);
	return count;
}

static const struct drm_connector_helper_funcs pvmap_drm_connector_helper_funcs = {
	.get_modes = pvmap_drm_connector_get_modes,
};

static const struct drm_connector_funcs pvmap_drm_connector_funcs = {
	.fill_modes = drm_helper_probe_single_connector_modes,
	.destroy = drm_connector_cleanup,
	.reset = drm_atomic_helper_connector_reset,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
};

/* --- framebuffers --------------------------------------------------------- */

/*
 * Damage goes through an atomic commit to the plane's atomic_update, as
 * udl's and gud's, which may be unplugged too; only a buffer the kernel
 * draws into has any to copy: the fbdev helper's, whose framebuffer an
 * in-kernel client makes (a drm_file of no open file). A framebuffer user
 * space makes is of a buffer it draws into through its mapping, in VRAM, on
 * the screen already: it has no dirty hook, and DIRTYFB answers as for a
 * driver without one (drm_mode_dirtyfb_ioctl()). Xorg's modesetting driver
 * asks once at start and, so answered, tracks no damage and sends none;
 * with the hook it sent a DIRTYFB ioctl and an atomic commit at each flush,
 * 12.75 per x11perf -putimage500 (docs/drm.md: make vm-bench's counts).
 * After an unplug DIRTYFB fails with ENODEV in drm_ioctl(); the fbdev
 * helper's damage worker, the one caller left, gets 0, as it must not to
 * WARN: the commit holds nothing that fails then, and its atomic_update
 * stops at drm_dev_enter().
 */
static struct drm_framebuffer *pvmap_drm_fb_create(struct drm_device *drm, struct drm_file *file,
						   const struct drm_mode_fb_cmd2 *cmd)
{
	if (cmd->pixel_format != DRM_FORMAT_XRGB8888)
		return ERR_PTR(-EINVAL);
	if (!file->filp)	/* an in-kernel client's: drm_client_init() */
		return drm_gem_fb_create_with_dirty(drm, file, cmd);
	return drm_gem_fb_create(drm, file, cmd);
}

static const struct drm_mode_config_funcs pvmap_drm_mode_config_funcs = {
	.fb_create = pvmap_drm_fb_create,
	.atomic_check = drm_atomic_helper_check,
	.atomic_commit = drm_atomic_helper_commit,
};

static int pvmap_drm_kms_init(struct pvmap_drm *pd)
{
	struct drm_device *drm = &pd->drm;
	int ret;

	ret = drmm_mode_config_init(drm);
	if (ret)
		return ret;
	drm->mode_config.min_width = 8;
	drm->mode_config.min_height = 1;
	drm->mode_config.max_width = PVMAP_DRM_MAX_WIDTH;
	drm->mode_config.max_height = PVMAP_DRM_MAX_HEIGHT;
	drm->mode_config.preferred_depth = 24;
	drm->mode_config.funcs = &pvmap_drm_mode_config_funcs;

	ret = drm_universal_plane_init(drm, &pd->plane, 1, &pvmap_drm_plane_funcs,
				       pvmap_drm_formats, ARRAY_SIZE(pvmap_drm_formats), NULL,
				       DRM_PLANE_TYPE_PRIMARY, NULL);
	if (ret)
		return ret;
	drm_plane_helper_add(&pd->plane, &pvmap_drm_plane_helper_funcs);
	drm_plane_enable_fb_damage_clips(&pd->plane);

	ret = drm_crtc_init_with_planes(drm, &pd->crtc, &pd->plane, NULL, &pvmap_drm_crtc_funcs,
					NULL);
	if (ret)
		return ret;
	drm_crtc_helper_add(&pd->crtc, &pvmap_drm_crtc_helper_funcs);

	ret = drm_simple_encoder_init(drm, &pd->encoder, DRM_MODE_ENCODER_DAC);
	if (ret)
		return ret;
	pd->encoder.possible_crtcs = drm_crtc_mask(&pd->crtc);

	ret = drm_connector_init(drm, &pd->connector, &pvmap_drm_connector_funcs,
				 DRM_MODE_CONNECTOR_VIRTUAL);
	if (ret)
		return ret;
	drm_connector_helper_add(&pd->connector, &pvmap_drm_connector_helper_funcs);
	ret = drm_connector_attach_encoder(&pd->connector, &pd->encoder);
	if (ret)
		return ret;
	drm_mode_config_reset(drm);
	return 0;
}

/* --- the PCI device ------------------------------------------------------- */

DEFINE_DRM_GEM_FOPS(pvmap_drm_fops);

static const struct drm_ioctl_desc pvmap_drm_ioctls[] = {
	DRM_IOCTL_DEF_DRV(PVMAP_DRM_UPLOAD, pvmap_drm_upload_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(PVMAP_DRM_BO_INFO, pvmap_drm_bo_info_ioctl, DRM_RENDER_ALLOW),
};

/*
 * A file closed after the unplug: drm_file_free() has released its
 * framebuffers unless the kernel carries the stable backport of 6bee098b9141
 * ("drm: Fix use-after-free on framebuffers and property blobs when calling
 * drm_dev_unplug", in Debian's 6.1.170, reverted upstream by 45ebe43ea00d),
 * which skips drm_fb_release() once the device is unplugged: the last
 * drm_dev_put() then WARNs of a leaked framebuffer and frees it through the
 * freed file. Release what is left here, where the file is private still;
 * elsewhere the list is empty and this does nothing.
 */
static void pvmap_drm_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct drm_framebuffer *fb, *tmp;

	list_for_each_entry_safe(fb, tmp, &file->fbs, filp_head) {
		list_del_init(&fb->filp_head);
		drm_framebuffer_remove(fb);
	}
}

static const struct drm_driver pvmap_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_MODESET | DRIVER_ATOMIC,
	.fops = &pvmap_drm_fops,
	.name = PVMAP_DRM_NAME,
	.desc = "std-VGA with its VRAM reached through pvmap",
	.date = "20261204",
	.major = 1,
	.minor = 0,
	.dumb_create = pvmap_drm_dumb_create,
	.postclose = pvmap_drm_postclose,
	.ioctls = pvmap_drm_ioctls,
	.num_ioctls = ARRAY_SIZE(pvmap_drm_ioctls),
};

static int pvmap_drm_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct pvmap_drm *pd;
	struct drm_device *drm;
	int ret;

	ret = drm_aperture_remove_conflicting_pci_framebuffers(pdev, &pvmap_drm_driver);
	if (ret)
		return ret;
	pd = devm_drm_dev_alloc(&pdev->dev, &pvmap_drm_driver, struct pvmap_drm, drm);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	drm = &pd->drm;
	pci_set_drvdata(pdev, pd);

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pvmap_drm_hw_init(pd, pdev);
	if (ret)
		return ret;
	pd->vram = pvmap_io_mapping_create_wc(pd->vram_base, pd->vram_size);
	if (IS_ERR(pd->vram)) {
		ret = PTR_ERR(pd->vram);
		dev_err(&pdev->dev, "cannot describe VRAM to pvmap: %d\n", ret);
		return ret;
	}
	if (!pvmap_io_mapping_is_wc(pd->vram))
		dev_warn(&pdev->dev, "VRAM is not write-combining (PAT off or a conflict)\n");

	ret = pvmap_drm_gem_init(pd);
	if (ret)
		goto err_free_vram;
	ret = pvmap_drm_kms_init(pd);
	if (ret)
		goto err_free_vram;
	ret = drm_dev_register(drm, 0);
	if (ret)
		goto err_free_vram;

	pvmap_drm_debugfs_init(pd, pci_name(pdev));
	drm_info(drm, "VRAM %llu MiB at %pa, reached through pvmap (%s)\n", pd->vram_size >> 20,
		 &pd->vram_base, pvmap_io_mapping_clears_on_unmap(pd->vram) ?
		 "cleared at unmap" : "whole-aperture mapping");
	if (fbdev)
		pvmap_drm_fbdev_setup(drm, PVMAP_DRM_BPP);
	return 0;

err_free_vram:
	pvmap_io_mapping_free(pd->vram);
	return ret;
}

static void pvmap_drm_remove(struct pci_dev *pdev)
{
	struct pvmap_drm *pd = pci_get_drvdata(pdev);

	debugfs_remove_recursive(pd->debugfs);
	/* every user PTE of VRAM zapped, every copy into it finished ... */
	drm_dev_unplug(&pd->drm);
	drm_atomic_helper_shutdown(&pd->drm);
	/* ... so no map of VRAM is live when pvmap lets it go */
	pvmap_io_mapping_free(pd->vram);
	pd->vram = NULL;
}

static void pvmap_drm_shutdown(struct pci_dev *pdev)
{
	struct pvmap_drm *pd = pci_get_drvdata(pdev);

	drm_atomic_helper_shutdown(&pd->drm);
}

/*
 * QEMU's secondary-vga only: a std-VGA of class "display, other", which no
 * firmware console or boot display uses. The VM's VGA (class VGA) stays with
 * its own driver (bochs), and no MODULE_DEVICE_TABLE: udev would load
 * pvmap_drm at boot to race bochs for the secondary-vga too. Loading it is
 * the administrator's choice (docs/install.md: "softdep bochs pre: pvmap_drm").
 */
static const struct pci_device_id pvmap_drm_pci_ids[] = {
	{ PCI_DEVICE(0x1234, 0x1111), .class = PCI_CLASS_DISPLAY_OTHER << 8,
	  .class_mask = 0xffff00 },
	{ }
};

static struct pci_driver pvmap_drm_pci_driver = {
	.name = PVMAP_DRM_NAME,
	.id_table = pvmap_drm_pci_ids,
	.probe = pvmap_drm_probe,
	.remove = pvmap_drm_remove,
	.shutdown = pvmap_drm_shutdown,
};

module_pci_driver(pvmap_drm_pci_driver);

MODULE_DESCRIPTION("pvmap_drm: KMS for QEMU std-VGA, VRAM written through pvmap");
MODULE_LICENSE("GPL");
