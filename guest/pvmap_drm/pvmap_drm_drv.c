// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap_drm: a KMS driver for QEMU's std-VGA (1234:1111) whose dumb buffers
 * live in its video memory and whose kernel-side writes go through pvmap.
 *
 * The VRAM BAR (512 MiB at most) is never mapped whole on i386, where it
 * would not fit in vmalloc space. User space maps a dumb buffer with
 * DRM_IOCTL_MODE_MAP_DUMB and mmap(): write-combining PTEs of the BAR,
 * inserted at fault time. The kernel never writes video memory through a
 * long-lived mapping: it writes a buffer's shadow in RAM (the fbdev
 * console's drawing) and copies the damaged rectangle into VRAM through
 * pvmap's atomic range maps, whose PTEs are cleared and flushed at unmap;
 * DRM_IOCTL_PVMAP_DRM_UPLOAD copies user memory through the same maps. The
 * copy_engine parameter swaps in per-page ioremap_wc() or one ioremap_wc()
 * of the buffer, for the bench.
 *
 * Mode setting is the bochs DISPI interface in the MMIO BAR, as
 * drivers/gpu/drm/tiny/bochs.c does it; a buffer is scanned out by pointing
 * the display's virtual-screen offsets at it, which QEMU allows only in the
 * first VBE_DISPI_MAX_YRES lines of video memory.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/io.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/pci.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include <drm/drm_aperture.h>
#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
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
#include <drm/drm_mm.h>
#include <drm/drm_modeset_helper_vtables.h>
#include <drm/drm_probe_helper.h>
#include <drm/drm_rect.h>
#include <drm/drm_simple_kms_helper.h>
#include <drm/drm_vblank.h>

#include <pvmap/io_mapping.h>
#include <uapi/pvmap_drm.h>

#include <pvmap/compat.h>

#define PVMAP_DRM_NAME		"pvmap_drm"

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
/* The legacy VGA registers at 0x400 in the same BAR, for the unblank */
#define VGA_MMIO		0x400
#define VGA_ATT_W		0x3c0

#define PVMAP_DRM_BPP		32
#define PVMAP_DRM_MAX_WIDTH	8192	/* a line of 32 KiB fits in one chunk */
#define PVMAP_DRM_MAX_HEIGHT	8192
/* Pages of one atomic range map: a quarter of a CPU's slots, for the nested. */
#define PVMAP_DRM_CHUNK_PAGES	(PVMAP_SLOTS_PER_CPU / 4)

/* How kernel-side writes reach video memory (the bench compares them). */
enum pvmap_drm_engine {
	PVMAP_DRM_ENGINE_PVMAP,		/* pvmap atomic range maps */
	PVMAP_DRM_ENGINE_IOREMAP_PAGE,	/* ioremap_wc() and iounmap() of each page */
	PVMAP_DRM_ENGINE_IOREMAP_WHOLE,	/* one ioremap_wc() of the buffer, kept */
	PVMAP_DRM_ENGINES
};

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

static bool fbdev = true;
module_param(fbdev, bool, 0444);
MODULE_PARM_DESC(fbdev, "fbdev emulation and its console (default on)");

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
 * @whole: the ioremap_whole engine's mapping of it, once used
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
	void __iomem *whole;
	struct mutex lock;	/* see above */
};

static struct pvmap_drm *to_pvmap_drm(struct drm_device *drm)
{
	return container_of(drm, struct pvmap_drm, drm);
}

static struct pvmap_drm_bo *to_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct pvmap_drm_bo, base);
}

/* --- copies into video memory -------------------------------------------- */

/* Faults in a row at one byte before an upload takes it for unreadable. */
#define PVMAP_DRM_FAULT_RETRIES	4

/*
 * Map @npages pages of @bo from VRAM offset @off with the chosen engine;
 * NULL when the map fails. The unmap takes the same engine and arguments.
 */
static void __iomem *engine_map(struct pvmap_drm *pd, struct pvmap_drm_bo *bo, int engine,
				u64 off, unsigned int npages)
{
	switch (engine) {
	case PVMAP_DRM_ENGINE_IOREMAP_PAGE:
		return ioremap_wc(pd->vram_base + off, (size_t)npages << PAGE_SHIFT);
	case PVMAP_DRM_ENGINE_IOREMAP_WHOLE:
		if (!bo->whole)
			bo->whole = ioremap_wc(pd->vram_base + bo->node.start, bo->base.size);
		return bo->whole ? bo->whole + (off - bo->node.start) : NULL;
	default:
		return pvmap_io_mapping_map_atomic_range_wc(pd->vram, off, npages);
	}
}

static void engine_unmap(int engine, void __iomem *vaddr, unsigned int npages)
{
	switch (engine) {
	case PVMAP_DRM_ENGINE_IOREMAP_PAGE:
		iounmap(vaddr);
		break;
	case PVMAP_DRM_ENGINE_IOREMAP_WHOLE:
		break;
	default:
		pvmap_io_mapping_unmap_atomic_range(vaddr, npages);
	}
}

/**
 * struct pvmap_drm_src - where a copy into VRAM takes its bytes from
 * @kernel: the buffer's bytes as VRAM holds them (its shadow), or NULL
 * @user: else the rectangle's first pixel in user memory, or NULL: zeroes
 * @stride: bytes from one line of @user to the next
 */
struct pvmap_drm_src {
	const u8 *kernel;
	const u8 __user *user;
	u64 stride;
};

/*
 * Copy @len bytes from user memory to @dst with page faults off, whatever
 * the engine: the copy runs under @bo->lock and drm_dev_enter(), which a
 * user fault must never hold (unplug waits for the section, the fbdev
 * worker for the lock, and a fault may wait on userfaultfd or FUSE for as
 * long as its owner likes). The bytes copied, exactly up to the first that
 * faults: a uaccess remainder is only a bound (i386's
 * __copy_user_intel_nocache stops up to a block short), so a short copy
 * goes on a byte at a time.
 */
static u64 pvmap_drm_copy_from_user(void __iomem *dst, const u8 __user *from, u64 len)
{
	u8 *to = (u8 __force *)dst;
	unsigned long left;
	u64 done;

	pagefault_disable();
	left = copy_from_user_inatomic_nontemporal(to, from, len);
	for (done = len - left; done < len; done++)
		if (__copy_from_user_inatomic(to + done, from + done, 1))
			break;
	pagefault_enable();
	return done;
}

/**
 * struct pvmap_drm_cursor - where a copy of a rectangle into VRAM stands
 * @pos: the next VRAM byte to write (from the start of VRAM)
 * @y: the line it is on
 * @fault: after -EAGAIN: the user byte that faulted
 * @unread: and the bytes of its line from there
 */
struct pvmap_drm_cursor {
	u64 pos;
	unsigned int y;
	const u8 __user *fault;
	u64 unread;
};

/* The first byte of rectangle @clip of the image at byte @first of @bo, @pitch a line. */
static void pvmap_drm_cursor_init(struct pvmap_drm_cursor *cur, const struct pvmap_drm_bo *bo,
				  u64 pitch, u64 first, const struct drm_rect *clip)
{
	*cur = (struct pvmap_drm_cursor){
		.pos = bo->node.start + first + (u64)clip->y1 * pitch + (u64)clip->x1 * 4,
		.y = clip->y1,
	};
}

/*
 * Copy rectangle @clip (in pixels) of the image at byte @first of @bo, @pitch
 * bytes a line, from @src into VRAM, from @cur on: chunks of pages, each
 * mapped once, each line's bytes in it copied. A user page that is not
 * there stops the copy: -EAGAIN, @cur says where; fault it in with no lock
 * held and call again.
 * Context: process context, @bo->lock held, inside drm_dev_enter().
 * Return: 0, -ENOMEM when a map fails, -EAGAIN on a user fault.
 */
static int pvmap_drm_copy_rect(struct pvmap_drm *pd, struct pvmap_drm_bo *bo,
			       const struct pvmap_drm_src *src, u64 pitch, u64 first,
			       const struct drm_rect *clip, struct pvmap_drm_cursor *cur)
{
	int engine = READ_ONCE(copy_engine);
	unsigned int chunk = engine == PVMAP_DRM_ENGINE_PVMAP ? PVMAP_DRM_CHUNK_PAGES : 1;
	u64 base = bo->node.start + first, x0 = (u64)clip->x1 * 4;
	u64 width = (u64)drm_rect_width(clip) * 4;
	u64 end = base + (u64)(clip->y2 - 1) * pitch + x0 + width;
	u64 pos = cur->pos;		/* next VRAM byte to write */
	unsigned int y = cur->y;

	if (engine == PVMAP_DRM_ENGINE_IOREMAP_WHOLE)
		chunk = bo->base.size >> PAGE_SHIFT;
	cur->fault = NULL;
	while (pos < end) {
		u64 lo = pos & PAGE_MASK, hi;
		unsigned int npages = min_t(u64, chunk, DIV_ROUND_UP(end - lo, PAGE_SIZE));
		void __iomem *vaddr;

		if (engine == PVMAP_DRM_ENGINE_IOREMAP_WHOLE) {
			lo = bo->node.start;
			npages = chunk;
		}
		hi = lo + ((u64)npages << PAGE_SHIFT);
		vaddr = engine_map(pd, bo, engine, lo, npages);
		if (!vaddr)
			return -ENOMEM;
		atomic64_inc(&pd->stats.maps);
		atomic64_add(npages, &pd->stats.pages);
		/* every line from the one holding pos that starts below hi */
		while (y < clip->y2) {
			u64 line = base + (u64)y * pitch + x0;
			u64 from = max(line, pos), to = min(line + width, hi);

			if (from >= hi)
				break;
			if (src->kernel) {
				memcpy_toio(vaddr + (from - lo),
					    src->kernel + (from - bo->node.start), to - from);
			} else if (src->user) {
				const u8 __user *u = src->user +
					(u64)(y - clip->y1) * src->stride + (from - line);
				u64 done = pvmap_drm_copy_from_user(vaddr + (from - lo), u,
								    to - from);

				if (done < to - from) {
					pos = from + done;
					cur->fault = u + done;
					cur->unread = line + width - pos;
					break;
				}
			} else {
				memset_io(vaddr + (from - lo), 0, to - from);
			}
			pos = to;
			if (line + width > hi)
				break;	/* the line goes on in the next chunk */
			y++;
			pos = y < clip->y2 ? base + (u64)y * pitch + x0 : end;
		}
		engine_unmap(engine, vaddr, npages);
		if (cur->fault) {
			cur->pos = pos;
			cur->y = y;
			return -EAGAIN;
		}
	}
	cur->pos = end;
	cur->y = clip->y2;
	atomic64_inc(&pd->stats.copies);
	atomic64_add((u64)drm_rect_height(clip) * width, &pd->stats.bytes);
	return 0;
}

/* The whole of @bo as one rectangle of its bytes: pitch = size, one line. */
static int pvmap_drm_clear_bo(struct pvmap_drm *pd, struct pvmap_drm_bo *bo)
{
	struct drm_rect all = DRM_RECT_INIT(0, 0, bo->base.size / 4, 1);
	struct pvmap_drm_src zeroes = { };
	struct pvmap_drm_cursor cur;

	pvmap_drm_cursor_init(&cur, bo, bo->base.size, 0, &all);
	return pvmap_drm_copy_rect(pd, bo, &zeroes, bo->base.size, 0, &all, &cur);
}

/* Copy VRAM into @bo's shadow, page by page through pvmap (the vmap's view). */
static int pvmap_drm_read_bo(struct pvmap_drm *pd, struct pvmap_drm_bo *bo)
{
	u64 off;

	for (off = 0; off < bo->base.size; off += PAGE_SIZE) {
		void __iomem *vaddr = pvmap_io_mapping_map_atomic_wc(pd->vram,
								     bo->node.start + off);

		if (!vaddr)
			return -ENOMEM;
		memcpy_fromio(bo->shadow + off, vaddr, PAGE_SIZE);
		pvmap_io_mapping_unmap_atomic(vaddr);
	}
	return 0;
}

/* @bo's shadow, made from VRAM's contents on first use. Context: @bo->lock held. */
static int pvmap_drm_shadow(struct pvmap_drm *pd, struct pvmap_drm_bo *bo)
{
	int ret;

	if (bo->shadow)
		return 0;
	bo->shadow = vzalloc(bo->base.size);
	if (!bo->shadow)
		return -ENOMEM;
	ret = pvmap_drm_read_bo(pd, bo);
	if (ret) {
		vfree(bo->shadow);
		bo->shadow = NULL;
	}
	return ret;
}

/* --- buffers ------------------------------------------------------------- */

static vm_fault_t pvmap_drm_gem_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct pvmap_drm_bo *bo = to_bo(vma->vm_private_data);
	struct pvmap_drm *pd = to_pvmap_drm(bo->base.dev);
	/* from the fake offset, not vm_start: munmap() of a mapping's head moves vm_start */
	unsigned long page = vmf->pgoff - drm_vma_node_start(&bo->base.vma_node);
	vm_fault_t ret;
	int idx;

	if (page >= bo->base.size >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	/* After drm_dev_unplug(): the BAR is going or gone, and so is the PTE. */
	if (!drm_dev_enter(&pd->drm, &idx))
		return VM_FAULT_SIGBUS;
	ret = vmf_insert_pfn_prot(vma, vmf->address,
				  ((pd->vram_base + bo->node.start) >> PAGE_SHIFT) + page,
				  vma->vm_page_prot);
	drm_dev_exit(idx);
	return ret;
}

/*
 * mmap of a buffer: VRAM's pfns, write-combining, inserted at fault time.
 * Shared mappings only, as the shmem and TTM helpers allow: a private
 * mapping that may be written is copy-on-write, a pfn of VRAM has no page
 * to copy, and vmf_insert_pfn_prot() BUG()s on such a vma.
 */
static int pvmap_drm_gem_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	if (is_cow_mapping(vma->vm_flags))
		return -EINVAL;
	vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_page_prot = pgprot_writecombine(vm_get_page_prot(vma->vm_flags));
	vma->vm_page_prot = pgprot_decrypted(vma->vm_page_prot);
	return 0;
}

static const struct vm_operations_struct pvmap_drm_gem_vm_ops = {
	.fault = pvmap_drm_gem_fault,
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

static void pvmap_drm_gem_free(struct drm_gem_object *obj)
{
	struct pvmap_drm_bo *bo = to_bo(obj);
	struct pvmap_drm *pd = to_pvmap_drm(obj->dev);

	if (bo->whole)
		iounmap(bo->whole);
	vfree(bo->shadow);
	mutex_lock(&pd->mm_lock);
	if (drm_mm_node_allocated(&bo->node))	/* not when dumb_create found no room */
		drm_mm_remove_node(&bo->node);
	mutex_unlock(&pd->mm_lock);
	drm_gem_free_mmap_offset(obj);
	drm_gem_object_release(obj);
	mutex_destroy(&bo->lock);
	kfree(bo);
}

/*
 * The kernel's view of a buffer (the fbdev helper's) is its shadow in RAM;
 * what the kernel draws there reaches VRAM through the framebuffer's dirty
 * callback, never through a mapping of VRAM.
 */
static int pvmap_drm_gem_vmap(struct drm_gem_object *obj, struct iosys_map *map)
{
	struct pvmap_drm_bo *bo = to_bo(obj);
	struct pvmap_drm *pd = to_pvmap_drm(obj->dev);
	int ret, idx;

	if (!drm_dev_enter(obj->dev, &idx))
		return -ENODEV;
	mutex_lock(&bo->lock);
	ret = pvmap_drm_shadow(pd, bo);
	mutex_unlock(&bo->lock);
	drm_dev_exit(idx);
	if (!ret)
		iosys_map_set_vaddr(map, bo->shadow);
	return ret;
}

static void pvmap_drm_gem_vunmap(struct drm_gem_object *obj, struct iosys_map *map)
{
	/* the shadow stays until the buffer goes: the dirty callback copies from it */
}

static const struct drm_gem_object_funcs pvmap_drm_gem_funcs = {
	.free = pvmap_drm_gem_free,
	.vmap = pvmap_drm_gem_vmap,
	.vunmap = pvmap_drm_gem_vunmap,
	.mmap = pvmap_drm_gem_mmap,
	.vm_ops = &pvmap_drm_gem_vm_ops,
};

static int pvmap_drm_dumb_create(struct drm_file *file, struct drm_device *drm,
				 struct drm_mode_create_dumb *args)
{
	struct pvmap_drm *pd = to_pvmap_drm(drm);
	struct pvmap_drm_bo *bo;
	u64 size;
	int ret, idx;

	if (args->bpp != PVMAP_DRM_BPP || !args->width || !args->height ||
	    args->width > PVMAP_DRM_MAX_WIDTH || args->height > PVMAP_DRM_MAX_HEIGHT)
		return -EINVAL;
	/* DISPI's virtual width is a multiple of 8 pixels */
	args->pitch = ALIGN(args->width, 8) * 4;
	size = PAGE_ALIGN((u64)args->pitch * args->height);

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return -ENOMEM;
	mutex_init(&bo->lock);
	bo->base.funcs = &pvmap_drm_gem_funcs;
	bo->pitch = args->pitch;
	bo->height = args->height;
	drm_gem_private_object_init(drm, &bo->base, size);

	/* lowest first: scan-out reaches only the start of VRAM */
	mutex_lock(&pd->mm_lock);
	ret = drm_mm_insert_node_in_range(&pd->mm, &bo->node, size, PAGE_SIZE, 0, 0,
					  pd->vram_size, DRM_MM_INSERT_LOW);
	mutex_unlock(&pd->mm_lock);
	if (ret) {
		drm_dbg(drm, "no %llu bytes free in VRAM\n", size);
		ret = -ENOMEM;
		goto err_put;
	}
	/* no client sees another's old pixels */
	ret = -ENODEV;
	if (drm_dev_enter(drm, &idx)) {
		mutex_lock(&bo->lock);
		ret = pvmap_drm_clear_bo(pd, bo);
		mutex_unlock(&bo->lock);
		drm_dev_exit(idx);
	}
	if (ret)
		goto err_put;
	ret = drm_gem_create_mmap_offset(&bo->base);
	if (ret)
		goto err_put;
	ret = drm_gem_handle_create(file, &bo->base, &args->handle);
	if (ret)
		goto err_put;
	args->size = size;
	drm_gem_object_put(&bo->base);	/* the handle holds it now */
	return 0;

err_put:
	drm_gem_object_put(&bo->base);	/* frees the node and the object */
	return ret;
}

/*
 * A buffer the kernel draws into too (fbdev's) keeps its shadow whole: the
 * user's lines go into it through a bounce line, read with no lock held,
 * then the rectangle goes from the shadow into VRAM.
 */
static int pvmap_drm_upload_shadowed(struct pvmap_drm *pd, struct pvmap_drm_bo *bo,
				     const struct drm_pvmap_drm_upload *up,
				     const struct drm_rect *clip)
{
	const u8 __user *from = u64_to_user_ptr(up->data);
	size_t len = (size_t)up->width * 4;
	struct pvmap_drm_src shadow;
	struct pvmap_drm_cursor cur;
	int ret = 0, idx;
	u8 *line;

	line = kmalloc(len, GFP_KERNEL);
	if (!line)
		return -ENOMEM;
	for (u32 y = 0; !ret && y < up->height; y++) {
		if (copy_from_user(line, from + (size_t)y * up->stride, len)) {
			ret = -EFAULT;
			break;
		}
		if (!drm_dev_enter(&pd->drm, &idx)) {
			ret = -ENODEV;
			break;
		}
		mutex_lock(&bo->lock);
		memcpy(bo->shadow + (size_t)(up->y + y) * bo->pitch + (size_t)up->x * 4, line,
		       len);
		mutex_unlock(&bo->lock);
		drm_dev_exit(idx);
	}
	kfree(line);
	if (ret)
		return ret;
	if (!drm_dev_enter(&pd->drm, &idx))
		return -ENODEV;
	mutex_lock(&bo->lock);
	shadow = (struct pvmap_drm_src){ .kernel = bo->shadow };
	pvmap_drm_cursor_init(&cur, bo, bo->pitch, 0, clip);
	ret = pvmap_drm_copy_rect(pd, bo, &shadow, bo->pitch, 0, clip, &cur);
	mutex_unlock(&bo->lock);
	drm_dev_exit(idx);
	return ret;
}

/*
 * DRM_IOCTL_PVMAP_DRM_UPLOAD: user memory straight into VRAM, one copy,
 * with page faults off under the buffer's lock and inside drm_dev_enter().
 * A user page that is not there is faulted in outside both, and the copy
 * goes on where it stopped: an unplug never waits for a user fault, and
 * the copy after it ends with -ENODEV. -EFAULT only for a byte that cannot
 * be faulted in at all.
 */
static int pvmap_drm_upload_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_pvmap_drm_upload *up = data;
	struct pvmap_drm *pd = to_pvmap_drm(drm);
	const u8 __user *from = u64_to_user_ptr(up->data);
	u64 span = (u64)(up->height - 1) * up->stride + (u64)up->width * 4;
	struct pvmap_drm_src user = { .user = from, .stride = up->stride };
	unsigned int faults_here;
	struct pvmap_drm_cursor cur;
	u64 faulted_at = U64_MAX;
	struct drm_gem_object *obj;
	struct pvmap_drm_bo *bo;
	struct drm_rect clip;
	bool shadowed;
	int ret, idx;

	if (!up->width || !up->height || up->stride < (u64)up->width * 4)
		return -EINVAL;
	/* the atomic copy does not check: on i386 a pointer above 4 GiB is none */
	if (up->data != (unsigned long)up->data || span > ULONG_MAX || !access_ok(from, span))
		return -EFAULT;
	obj = drm_gem_object_lookup(file, up->handle);
	if (!obj)
		return -ENOENT;
	bo = to_bo(obj);
	ret = -EINVAL;
	if ((u64)up->x + up->width > bo->pitch / 4 || (u64)up->y + up->height > bo->height)
		goto out_put;
	drm_rect_init(&clip, up->x, up->y, up->width, up->height);
	pvmap_drm_cursor_init(&cur, bo, bo->pitch, 0, &clip);
	for (faults_here = 0;;) {
		ret = -ENODEV;
		if (!drm_dev_enter(drm, &idx))
			break;
		mutex_lock(&bo->lock);
		/* a shadow, once made, stays: then the user's bytes go there too */
		shadowed = bo->shadow;
		if (!shadowed)
			ret = pvmap_drm_copy_rect(pd, bo, &user, bo->pitch, 0, &clip, &cur);
		mutex_unlock(&bo->lock);
		drm_dev_exit(idx);
		if (shadowed) {
			ret = pvmap_drm_upload_shadowed(pd, bo, up, &clip);
			break;
		}
		if (ret != -EAGAIN)
			break;
		/* as PWRITE's: a page that stops the copy at one byte again and again */
		faults_here = cur.pos == faulted_at ? faults_here + 1 : 0;
		faulted_at = cur.pos;
		ret = -EFAULT;
		if (faults_here == PVMAP_DRM_FAULT_RETRIES)
			break;
		/* no lock, no SRCU section: this may sleep as long as the page's owner likes */
		if (fault_in_readable((const char __user *)cur.fault, cur.unread) == cur.unread)
			break;
		ret = -EINTR;
		if (fatal_signal_pending(current))
			break;
	}
out_put:
	drm_gem_object_put(obj);
	return ret;
}

static int pvmap_drm_bo_info_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_pvmap_drm_bo_info *info = data;
	struct drm_gem_object *obj;

	if (info->pad)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, info->handle);
	if (!obj)
		return -ENOENT;
	info->vram_offset = to_bo(obj)->node.start;
	info->size = obj->size;
	drm_gem_object_put(obj);
	return 0;
}

static const struct drm_ioctl_desc pvmap_drm_ioctls[] = {
	DRM_IOCTL_DEF_DRV(PVMAP_DRM_UPLOAD, pvmap_drm_upload_ioctl, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(PVMAP_DRM_BO_INFO, pvmap_drm_bo_info_ioctl, DRM_RENDER_ALLOW),
};

/* --- framebuffers -------------------------------------------------------- */

/*
 * DRM_IOCTL_MODE_DIRTYFB, and the fbdev helper after it drew into the
 * buffer's shadow: copy the damaged rectangles from the shadow into VRAM.
 * A buffer the kernel never wrote has no shadow: user space wrote VRAM
 * itself through its mmap, and there is nothing to copy.
 */
static int pvmap_drm_fb_dirty(struct drm_framebuffer *fb, struct drm_file *file,
			      unsigned int flags, unsigned int color,
			      struct drm_clip_rect *clips, unsigned int num_clips)
{
	struct pvmap_drm *pd = to_pvmap_drm(fb->dev);
	struct pvmap_drm_bo *bo = to_bo(fb->obj[0]);
	struct drm_rect all = DRM_RECT_INIT(0, 0, fb->width, fb->height), clip;
	struct pvmap_drm_cursor cur;
	struct pvmap_drm_src shadow;
	int ret = 0, idx;
	unsigned int i;

	if (!drm_dev_enter(fb->dev, &idx))
		return -ENODEV;
	mutex_lock(&bo->lock);
	/* made under the lock: the shadow read before it may be NULL or just made */
	shadow = (struct pvmap_drm_src){ .kernel = bo->shadow };
	for (i = 0; bo->shadow && !ret && i < max(num_clips, 1U); i++) {
		clip = all;
		if (num_clips) {
			struct drm_rect r = DRM_RECT_INIT(clips[i].x1, clips[i].y1,
							  clips[i].x2 - clips[i].x1,
							  clips[i].y2 - clips[i].y1);

			if (clips[i].x2 <= clips[i].x1 || clips[i].y2 <= clips[i].y1 ||
			    !drm_rect_intersect(&clip, &r))
				continue;
		}
		pvmap_drm_cursor_init(&cur, bo, fb->pitches[0], fb->offsets[0], &clip);
		ret = pvmap_drm_copy_rect(pd, bo, &shadow, fb->pitches[0], fb->offsets[0],
					  &clip, &cur);
		if (!ret)
			atomic64_inc(&pd->stats.shadow_copies);
	}
	mutex_unlock(&bo->lock);
	drm_dev_exit(idx);
	return ret;
}

static const struct drm_framebuffer_funcs pvmap_drm_fb_funcs = {
	.destroy = drm_gem_fb_destroy,
	.create_handle = drm_gem_fb_create_handle,
	.dirty = pvmap_drm_fb_dirty,
};

static struct drm_framebuffer *pvmap_drm_fb_create(struct drm_device *drm, struct drm_file *file,
						   const struct drm_mode_fb_cmd2 *cmd)
{
	if (cmd->pixel_format != DRM_FORMAT_XRGB8888)
		return ERR_PTR(-EINVAL);
	return drm_gem_fb_create_with_funcs(drm, file, cmd, &pvmap_drm_fb_funcs);
}

static const struct drm_mode_config_funcs pvmap_drm_mode_config_funcs = {
	.fb_create = pvmap_drm_fb_create,
	.atomic_check = drm_atomic_helper_check,
	.atomic_commit = drm_atomic_helper_commit,
};

/* --- the display --------------------------------------------------------- */

static void dispi_write(struct pvmap_drm *pd, u16 reg, u16 val)
{
	writew(val, pd->mmio + DISPI_MMIO + reg * 2);
}

static u16 dispi_read(struct pvmap_drm *pd, u16 reg)
{
	return readw(pd->mmio + DISPI_MMIO + reg * 2);
}

/* Where DISPI's virtual-screen offsets put VRAM byte @offset, @pitch a line. */
static bool pvmap_drm_reachable(u64 offset, u32 pitch, u32 height, u64 vram_size)
{
	u64 vy = div_u64(offset, pitch), vx = div_u64(offset - vy * pitch, 4);

	return pitch % 32 == 0 && pitch / 4 <= DISPI_MAX_XRES && vy <= DISPI_MAX_YRES &&
	       vx <= DISPI_MAX_XRES && offset % 4 == 0 &&
	       offset + (u64)height * pitch <= vram_size;
}

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
	if (!pvmap_drm_reachable(pvmap_drm_scanout_offset(new), new->fb->pitches[0],
				 crtc_state->mode.vdisplay, pd->vram_size)) {
		drm_dbg_kms(plane->dev, "framebuffer at VRAM %#llx: out of the display's reach\n",
			    pvmap_drm_scanout_offset(new));
		return -EINVAL;
	}
	return 0;
}

static void pvmap_drm_plane_atomic_update(struct drm_plane *plane, struct drm_atomic_state *state)
{
	struct drm_plane_state *new = drm_atomic_get_new_plane_state(state, plane);
	struct pvmap_drm *pd = to_pvmap_drm(plane->dev);
	u64 offset;
	u32 pitch, vy;
	int idx;

	if (!new->fb || !new->visible || !drm_dev_enter(plane->dev, &idx))
		return;
	offset = pvmap_drm_scanout_offset(new);
	pitch = new->fb->pitches[0];
	vy = div_u64(offset, pitch);
	dispi_write(pd, DISPI_INDEX_VIRT_WIDTH, pitch / 4);
	dispi_write(pd, DISPI_INDEX_X_OFFSET, (offset - (u64)vy * pitch) / 4);
	dispi_write(pd, DISPI_INDEX_Y_OFFSET, vy);
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

static enum drm_mode_status pvmap_drm_crtc_mode_valid(struct drm_crtc *crtc,
						      const struct drm_display_mode *mode)
{
	struct pvmap_drm *pd = to_pvmap_drm(crtc->dev);

	if (mode->hdisplay % 8 || mode->hdisplay > DISPI_MAX_XRES ||
	    mode->vdisplay > DISPI_MAX_YRES)
		return MODE_BAD;
	if ((u64)mode->hdisplay * mode->vdisplay * 4 > pd->vram_size)
		return MODE_MEM;
	return MODE_OK;
}

static void pvmap_drm_crtc_atomic_enable(struct drm_crtc *crtc, struct drm_atomic_state *state)
{
	struct drm_display_mode *mode = &crtc->state->adjusted_mode;
	struct pvmap_drm *pd = to_pvmap_drm(crtc->dev);
	int idx;

	if (!drm_dev_enter(crtc->dev, &idx))
		return;
	writeb(0x20, pd->mmio + VGA_MMIO + VGA_ATT_W - 0x3c0);	/* unblank */
	dispi_write(pd, DISPI_INDEX_ENABLE, 0);
	dispi_write(pd, DISPI_INDEX_BPP, PVMAP_DRM_BPP);
	dispi_write(pd, DISPI_INDEX_XRES, mode->hdisplay);
	dispi_write(pd, DISPI_INDEX_YRES, mode->vdisplay);
	dispi_write(pd, DISPI_INDEX_BANK, 0);
	dispi_write(pd, DISPI_INDEX_ENABLE, DISPI_ENABLED | DISPI_LFB_ENABLED | DISPI_NOCLEARMEM);
	drm_dev_exit(idx);
}

static void pvmap_drm_crtc_atomic_disable(struct drm_crtc *crtc, struct drm_atomic_state *state)
{
	struct pvmap_drm *pd = to_pvmap_drm(crtc->dev);
	int idx;

	if (!drm_dev_enter(crtc->dev, &idx))
		return;
	dispi_write(pd, DISPI_INDEX_ENABLE, 0);
	drm_dev_exit(idx);
}

/* No vblank interrupt: a flip is done when the registers are written. */
static void pvmap_drm_crtc_atomic_flush(struct drm_crtc *crtc, struct drm_atomic_state *state)
{
	struct drm_pending_vblank_event *event = crtc->state->event;

	if (!event)
		return;
	crtc->state->event = NULL;
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

/* No EDID read: DMT modes up to 1920x1080, 1024x768 preferred. */
static int pvmap_drm_connector_get_modes(struct drm_connector *connector)
{
	int count = drm_add_modes_noedid(connector, 1920, 1080);

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

/* --- debugfs -------------------------------------------------------------- */

static int pvmap_drm_stats_show(struct seq_file *m, void *unused)
{
	struct pvmap_drm *pd = m->private;
	struct pvmap_drm_stats *s = &pd->stats;
	struct drm_mm_node *node;
	u64 used = 0, buffers = 0;

	mutex_lock(&pd->mm_lock);
	drm_mm_for_each_node(node, &pd->mm) {
		used += node->size;
		buffers++;
	}
	mutex_unlock(&pd->mm_lock);
	seq_printf(m, "vram_size: %llu\nvram_used: %llu\nbuffers: %llu\n", pd->vram_size, used,
		   buffers);
	seq_printf(m, "engine: %s\n", pvmap_drm_engine_names[READ_ONCE(copy_engine)]);
	seq_printf(m, "copies: %lld\nbytes: %lld\nmaps: %lld\npages: %lld\nshadow_copies: %lld\n",
		   atomic64_read(&s->copies), atomic64_read(&s->bytes), atomic64_read(&s->maps),
		   atomic64_read(&s->pages), atomic64_read(&s->shadow_copies));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pvmap_drm_stats);

/* --- the PCI device ------------------------------------------------------- */

DEFINE_DRM_GEM_FOPS(pvmap_drm_fops);

static const struct drm_driver pvmap_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_MODESET | DRIVER_ATOMIC,
	.fops = &pvmap_drm_fops,
	.name = PVMAP_DRM_NAME,
	.desc = "std-VGA with its VRAM reached through pvmap",
	.date = "20261204",
	.major = 1,
	.minor = 0,
	.dumb_create = pvmap_drm_dumb_create,
	.ioctls = pvmap_drm_ioctls,
	.num_ioctls = ARRAY_SIZE(pvmap_drm_ioctls),
};

static void pvmap_drm_mm_fini(struct drm_device *drm, void *unused)
{
	struct pvmap_drm *pd = to_pvmap_drm(drm);

	drm_mm_takedown(&pd->mm);
}

static int pvmap_drm_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct pvmap_drm *pd;
	struct drm_device *drm;
	u16 dispi_id;
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
	pd->vram = pvmap_io_mapping_create_wc(pd->vram_base, pd->vram_size);
	if (IS_ERR(pd->vram)) {
		ret = PTR_ERR(pd->vram);
		dev_err(&pdev->dev, "cannot describe VRAM to pvmap: %d\n", ret);
		return ret;
	}
	if (!pvmap_io_mapping_is_wc(pd->vram))
		dev_warn(&pdev->dev, "VRAM is not write-combining (PAT off or a conflict)\n");

	ret = drmm_mutex_init(drm, &pd->mm_lock);
	if (ret)
		goto err_free_vram;
	drm_mm_init(&pd->mm, 0, pd->vram_size);
	ret = drmm_add_action_or_reset(drm, pvmap_drm_mm_fini, NULL);
	if (ret)
		goto err_free_vram;
	ret = pvmap_drm_kms_init(pd);
	if (ret)
		goto err_free_vram;
	ret = drm_dev_register(drm, 0);
	if (ret)
		goto err_free_vram;

	pd->debugfs = debugfs_create_dir(pci_name(pdev), NULL);
	debugfs_create_file("pvmap_drm_stats", 0444, pd->debugfs, pd, &pvmap_drm_stats_fops);
	drm_info(drm, "VRAM %llu MiB at %pa, reached through pvmap (%s)\n", pd->vram_size >> 20,
		 &pd->vram_base, pvmap_io_mapping_clears_on_unmap(pd->vram) ?
		 "cleared at unmap" : "whole-aperture mapping");
	if (fbdev)
		drm_fbdev_generic_setup(drm, PVMAP_DRM_BPP);
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

static const struct pci_device_id pvmap_drm_pci_ids[] = {
	{ PCI_DEVICE(0x1234, 0x1111) },	/* QEMU std-VGA, secondary-vga */
	{ }
};
MODULE_DEVICE_TABLE(pci, pvmap_drm_pci_ids);

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
