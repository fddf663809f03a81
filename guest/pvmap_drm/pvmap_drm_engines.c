// SPDX-License-Identifier: GPL-2.0
/*
 * The bench's copy engines, built only in a test build
 * (CONFIG_PVMAP_TEST_HOOKS, the option that exports pvmap's PTE layer to
 * its tests): the copy_engine parameter swaps pvmap's atomic range maps for
 * ioremap_wc() and iounmap() of each page, or for one ioremap_wc() of the
 * whole buffer, kept until the buffer goes, so that tools/guest/pvmap-drmfps.c
 * can compare them. The production driver has neither the parameter nor
 * this file: it copies through pvmap, always.
 */

#include <linux/io.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "pvmap_drm.h"

static const char * const pvmap_drm_engine_names[PVMAP_DRM_ENGINES] = {
	[PVMAP_DRM_ENGINE_PVMAP] = "pvmap",
	[PVMAP_DRM_ENGINE_IOREMAP_PAGE] = "ioremap_page",
	[PVMAP_DRM_ENGINE_IOREMAP_WHOLE] = "ioremap_whole",
};

static int copy_engine = PVMAP_DRM_ENGINE_PVMAP;

static int copy_engine_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(pvmap_drm_engine_names, val);

	if (i < 0)
		return i;
	WRITE_ONCE(copy_engine, i);
	return 0;
}

static int copy_engine_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", pvmap_drm_engine_names[READ_ONCE(copy_engine)]);
}

static const struct kernel_param_ops copy_engine_ops = {
	.set = copy_engine_set,
	.get = copy_engine_get,
};
module_param_cb(copy_engine, &copy_engine_ops, NULL, 0644);
MODULE_PARM_DESC(copy_engine,
		 "how kernel-side writes reach VRAM: pvmap (default), ioremap_page, ioremap_whole");

/* The engine a copy starts with: it keeps it to the end. */
int pvmap_drm_engine(void)
{
	return READ_ONCE(copy_engine);
}

const char *pvmap_drm_engine_name(int engine)
{
	return pvmap_drm_engine_names[engine];
}

/*
 * Map @npages pages of @bo from VRAM offset @off with ioremap engine
 * @engine; NULL when the map fails. ioremap_whole maps the whole buffer
 * on its first use and keeps it: the pages asked for lie in it.
 */
void __iomem *pvmap_drm_ioremap(struct pvmap_drm *pd, struct pvmap_drm_bo *bo, int engine,
				u64 off, unsigned int npages)
{
	if (engine == PVMAP_DRM_ENGINE_IOREMAP_PAGE)
		return ioremap_wc(pd->vram_base + off, (size_t)npages << PAGE_SHIFT);
	if (!bo->whole)
		bo->whole = ioremap_wc(pd->vram_base + bo->node.start, bo->base.size);
	return bo->whole ? bo->whole + (off - bo->node.start) : NULL;
}

void pvmap_drm_iounmap(int engine, void __iomem *vaddr)
{
	/* ioremap_whole's mapping stays until the buffer goes */
	if (engine == PVMAP_DRM_ENGINE_IOREMAP_PAGE)
		iounmap(vaddr);
}

/* When @bo goes: ioremap_whole's mapping of it, if it made one. */
void pvmap_drm_engines_free(struct pvmap_drm_bo *bo)
{
	if (bo->whole)
		iounmap(bo->whole);
}
