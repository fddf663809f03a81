/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by pvmap_drm's source files; not an interface.
 * pvmap_drm_drv.c: the display (DISPI registers, then KMS) and the PCI
 * device; pvmap_drm_gem.c: dumb buffers in VRAM and the copies into it;
 * pvmap_drm_engines.c, in a test build only: the bench's copy engines.
 */
#ifndef PVMAP_DRM_H
#define PVMAP_DRM_H

#include <linux/atomic.h>
#include <linux/container_of.h>
#include <linux/kconfig.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include <drm/drm_connector.h>
#include <drm/drm_crtc.h>
#include <drm/drm_device.h>
#include <drm/drm_encoder.h>
#include <drm/drm_gem.h>
#include <drm/drm_mm.h>
#include <drm/drm_plane.h>

struct dentry;
struct drm_file;
struct drm_framebuffer;
struct drm_mode_create_dumb;
struct drm_rect;
struct page;
struct pvmap_io_mapping;

#define PVMAP_DRM_BPP		32
#define PVMAP_DRM_MAX_WIDTH	8192	/* a line of 32 KiB fits in one chunk */
#define PVMAP_DRM_MAX_HEIGHT	8192

/**
 * struct pvmap_drm_stats - what the kernel-side writes cost, for debugfs
 * @copies: damage copies into VRAM
 * @bytes: bytes they copied
 * @maps: maps the engine made for them (pvmap range maps or ioremaps)
 * @pages: pages those maps covered
 * @shadow_copies: copies from a buffer the kernel drew into (the fbdev one)
 */
struct pvmap_drm_stats {
	atomic64_t copies;
	atomic64_t bytes;
	atomic64_t maps;
	atomic64_t pages;
	atomic64_t shadow_copies;
};

struct pvmap_drm {
	struct drm_device drm;
	void __iomem *mmio;
	resource_size_t vram_base;
	u64 vram_size;
	struct pvmap_io_mapping *vram;

	/* the VRAM allocator: one node per dumb buffer */
	struct mutex mm_lock;
	struct drm_mm mm;

	struct drm_plane plane;
	struct drm_crtc crtc;
	struct drm_encoder encoder;
	struct drm_connector connector;

	struct pvmap_drm_stats stats;
	struct dentry *debugfs;
};

/**
 * struct pvmap_drm_bo - a dumb buffer in VRAM
 * @base: the GEM object
 * @node: its place in VRAM
 * @shadow: its contents in RAM, once the kernel writes it (vmap, upload)
 * @unplugged: after an unplug, the page of RAM its mappings get instead of
 *	VRAM, once one of them faults; freed with the buffer
 * @whole: the ioremap_whole engine's mapping of it, once used (a test build's)
 * @lock: serialises the shadow's creation and its copies into VRAM
 * @pitch: bytes a line, as dumb_create chose it
 * @height: lines
 */
struct pvmap_drm_bo {
	struct drm_gem_object base;
	struct drm_mm_node node;
	u32 pitch;
	u32 height;
	void *shadow;
	struct page *unplugged;
#if IS_ENABLED(CONFIG_PVMAP_TEST_HOOKS)
	void __iomem *whole;
#endif
	struct mutex lock;	/* see above */
};

static inline struct pvmap_drm *to_pvmap_drm(struct drm_device *drm)
{
	return container_of(drm, struct pvmap_drm, drm);
}

static inline struct pvmap_drm_bo *to_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct pvmap_drm_bo, base);
}

/*
 * How kernel-side writes reach video memory: pvmap's atomic range maps. A
 * test build (CONFIG_PVMAP_TEST_HOOKS, as for pvmap's PTE-layer exports)
 * has the bench's other engines too, chosen with the copy_engine module
 * parameter (pvmap_drm_engines.c); any other build has neither the
 * parameter nor their code, and copies through pvmap always.
 */
enum pvmap_drm_engine {
	PVMAP_DRM_ENGINE_PVMAP,		/* pvmap atomic range maps */
	PVMAP_DRM_ENGINE_IOREMAP_PAGE,	/* ioremap_wc() and iounmap() of each page */
	PVMAP_DRM_ENGINE_IOREMAP_WHOLE,	/* one ioremap_wc() of the buffer, kept */
	PVMAP_DRM_ENGINES
};

#if IS_ENABLED(CONFIG_PVMAP_TEST_HOOKS)
/* pvmap_drm_engines.c */
int pvmap_drm_engine(void);
const char *pvmap_drm_engine_name(int engine);
void __iomem *pvmap_drm_ioremap(struct pvmap_drm *pd, struct pvmap_drm_bo *bo, int engine,
				u64 off, unsigned int npages);
void pvmap_drm_iounmap(int engine, void __iomem *vaddr);
void pvmap_drm_engines_free(struct pvmap_drm_bo *bo);
#else
static inline int pvmap_drm_engine(void)
{
	return PVMAP_DRM_ENGINE_PVMAP;
}

static inline const char *pvmap_drm_engine_name(int engine)
{
	return "pvmap";
}

static inline void __iomem *pvmap_drm_ioremap(struct pvmap_drm *pd, struct pvmap_drm_bo *bo,
					      int engine, u64 off, unsigned int npages)
{
	return NULL;
}

static inline void pvmap_drm_iounmap(int engine, void __iomem *vaddr)
{
}

static inline void pvmap_drm_engines_free(struct pvmap_drm_bo *bo)
{
}
#endif

/* pvmap_drm_gem.c */
int pvmap_drm_gem_init(struct pvmap_drm *pd);
void pvmap_drm_debugfs_init(struct pvmap_drm *pd, const char *name);
int pvmap_drm_dumb_create(struct drm_file *file, struct drm_device *drm,
			  struct drm_mode_create_dumb *args);
int pvmap_drm_upload_ioctl(struct drm_device *drm, void *data, struct drm_file *file);
int pvmap_drm_bo_info_ioctl(struct drm_device *drm, void *data, struct drm_file *file);
int pvmap_drm_copy_shadow(struct pvmap_drm *pd, struct pvmap_drm_bo *bo,
			  const struct drm_framebuffer *fb, const struct drm_rect *clip);

#endif /* PVMAP_DRM_H */
