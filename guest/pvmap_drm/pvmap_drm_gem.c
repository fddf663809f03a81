// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap_drm's dumb buffers: GEM objects in the std-VGA's video memory,
 * allocated by a drm_mm over the whole BAR, which is never mapped whole.
 * User space maps a buffer with DRM_IOCTL_MODE_MAP_DUMB and mmap():
 * write-combining PTEs of the BAR, inserted at fault time. The kernel never
 * writes video memory through a long-lived mapping: it writes a buffer's
 * shadow in RAM (the fbdev console's drawing) and copies the damaged
 * rectangle into VRAM through pvmap's atomic range maps, whose PTEs are
 * cleared and flushed at unmap; DRM_IOCTL_PVMAP_DRM_UPLOAD copies user
 * memory through the same maps. A test build has other engines for the
 * bench beside pvmap's (pvmap_drm_engines.c).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/io.h>
#include <linux/iosys-map.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem.h>
#include <drm/drm_managed.h>
#include <drm/drm_mm.h>
#include <drm/drm_print.h>
#include <drm/drm_rect.h>
#include <drm/drm_vma_manager.h>

#include <pvmap/io_mapping.h>
#include <uapi/pvmap_drm.h>

#include <pvmap/compat.h>

#include "pvmap_drm.h"

/* Pages of one atomic range map: a quarter of a CPU's slots, for the nested. */
#define PVMAP_DRM_CHUNK_PAGES	(PVMAP_SLOTS_PER_CPU / 4)

/* --- copies into video memory -------------------------------------------- */

/* Faults in a row at one byte before an upload takes it for unreadable. */
#define PVMAP_DRM_FAULT_RETRIES	4

/*
 * Map @npages pages of @bo from VRAM offset @off with @engine; NULL when
 * the map fails. The unmap takes the same engine and arguments. Engines
 * other than pvmap's exist only in a test build (pvmap_drm_engines.c).
 */
static void __iomem *engine_map(struct pvmap_drm *pd, struct pvmap_drm_bo *bo, int engine,
				u64 off, unsigned int npages)
{
	if (engine != PVMAP_DRM_ENGINE_PVMAP)
		return pvmap_drm_ioremap(pd, bo, engine, off, npages);
	return pvmap_io_mapping_map_atomic_range_wc(pd->vram, off, npages);
}

static void engine_unmap(int engine, void __iomem *vaddr, unsigned int npages)
{
	if (engine != PVMAP_DRM_ENGINE_PVMAP)
		pvmap_drm_iounmap(engine, vaddr);
	else
		pvmap_io_mapping_unmap_atomic_range(vaddr, npages);
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
 * Context: process context, may sleep between chunks; @bo->lock held,
 * inside drm_dev_enter().
 * Return: 0, -ENOMEM when a map fails, -EAGAIN on a user fault.
 */
static int pvmap_drm_copy_rect(struct pvmap_drm *pd, struct pvmap_drm_bo *bo,
			       const struct pvmap_drm_src *src, u64 pitch, u64 first,
			       const struct drm_rect *clip, struct pvmap_drm_cursor *cur)
{
	int engine = pvmap_drm_engine();
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
		/*
		 * Between chunks, no map held: a 256 MiB buffer's clear is
		 * 4096 chunks, and on a kernel without preemption nothing
		 * else would run on this CPU until the last (drm_clear_resched).
		 */
		cond_resched();
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

/*
 * A fault after drm_dev_unplug(): the BAR is going or gone, and
 * drm_dev_unplug() zapped the PTEs of VRAM. The buffer gets one zeroed page
 * of RAM, made at the first such fault, which every mapping of it, in any
 * process, maps at each of its pages, as they all mapped its VRAM: a
 * display server still drawing into its buffer survives the unplug and
 * learns of it from udev and from its ioctls (-ENODEV), not from a SIGBUS.
 * What it writes there reaches the mappings of that buffer only, which
 * shared its VRAM before; and RAM costs a page per buffer at most, however
 * many mappings, forks and processes fault (no buffer is made after the
 * unplug). The page is freed with the buffer, after the last mapping of it
 * is gone: each holds a reference to the buffer, and its PTEs go before it.
 * The page is RAM: the vma's write-combining, decrypted pgprot is VRAM's.
 */
static vm_fault_t pvmap_drm_gem_fault_unplugged(struct vm_fault *vmf, struct pvmap_drm_bo *bo)
{
	/* pairs with the cmpxchg() below: the page's zeroes before its pointer */
	struct page *page = smp_load_acquire(&bo->unplugged);

	if (!page) {
		struct page *mine = alloc_page(GFP_KERNEL | __GFP_ZERO);

		if (!mine)
			return VM_FAULT_OOM;
		/* one page a buffer: of two first faults, the second frees its own */
		page = cmpxchg(&bo->unplugged, NULL, mine);
		if (page)
			__free_page(mine);
		else
			page = mine;
	}
	return vmf_insert_pfn_prot(vmf->vma, vmf->address, page_to_pfn(page),
				   vm_get_page_prot(vmf->vma->vm_flags));
}

/*
 * A fault maps its page and up to PVMAP_DRM_FAULT_AROUND - 1 after it, as
 * TTM's does (TTM_BO_VM_NUM_PREFAULT): a display server's first pass over
 * its buffer takes a fault every 16 pages, not every page.
 */
#define PVMAP_DRM_FAULT_AROUND	16

static vm_fault_t pvmap_drm_gem_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct pvmap_drm_bo *bo = to_bo(vma->vm_private_data);
	struct pvmap_drm *pd = to_pvmap_drm(bo->base.dev);
	/* from the fake offset, not vm_start: munmap() of a mapping's head moves vm_start */
	unsigned long page = vmf->pgoff - drm_vma_node_start(&bo->base.vma_node);
	unsigned long npages = bo->base.size >> PAGE_SHIFT;
	unsigned long pfn = ((pd->vram_base + bo->node.start) >> PAGE_SHIFT) + page;
	unsigned long addr = vmf->address;
	unsigned int i;
	vm_fault_t ret;
	int idx;

	if (page >= npages)
		return VM_FAULT_SIGBUS;
	if (!drm_dev_enter(&pd->drm, &idx))
		return pvmap_drm_gem_fault_unplugged(vmf, bo);
	ret = vmf_insert_pfn_prot(vma, addr, pfn, vma->vm_page_prot);
	/* the pages after it: within the buffer and the mapping; a page mapped already stays */
	for (i = 1; i < PVMAP_DRM_FAULT_AROUND && !(ret & VM_FAULT_ERROR); i++) {
		addr += PAGE_SIZE;
		if (page + i >= npages || addr >= vma->vm_end)
			break;
		if (vmf_insert_pfn_prot(vma, addr, pfn + i, vma->vm_page_prot) & VM_FAULT_ERROR)
			break;	/* the faulting page is mapped: what it asked for */
	}
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

	pvmap_drm_engines_free(bo);
	vfree(bo->shadow);
	if (bo->unplugged)	/* no mapping of the buffer is left, nor any PTE of it */
		__free_page(bo->unplugged);
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
 * what the kernel draws there reaches VRAM as the framebuffer's damage
 * (drm_atomic_helper_dirtyfb(), then the plane's atomic_update), never
 * through a mapping of VRAM.
 *
 * Only making the shadow reads the device. A shadow once made is RAM and
 * is handed out after an unplug too: the fbdev helper's damage worker maps
 * the buffer before each blit into it and WARNs when the map fails
 * ("Damage blitter failed": 6.1's drm_fb_helper_damage_work(), 6.12's
 * drm_fbdev_ttm_helper_fb_dirty()), which runs until the fb goes: fbcon's
 * drawing (a cursor blink) queued before drm_dev_unplug() marks the device
 * gone runs after it. Nothing reaches VRAM then: the copy that follows
 * stops at drm_dev_enter().
 */
static int pvmap_drm_gem_vmap(struct drm_gem_object *obj, struct iosys_map *map)
{
	struct pvmap_drm_bo *bo = to_bo(obj);
	struct pvmap_drm *pd = to_pvmap_drm(obj->dev);
	bool present;
	int ret = 0, idx;

	present = drm_dev_enter(obj->dev, &idx);
	mutex_lock(&bo->lock);
	if (!bo->shadow)
		ret = present ? pvmap_drm_shadow(pd, bo) : -ENODEV;
	mutex_unlock(&bo->lock);
	if (present)
		drm_dev_exit(idx);
	if (!ret)
		iosys_map_set_vaddr(map, bo->shadow);
	return ret;
}

static void pvmap_drm_gem_vunmap(struct drm_gem_object *obj, struct iosys_map *map)
{
	/* the shadow stays until the buffer goes: the damage is copied from it */
}

static const struct drm_gem_object_funcs pvmap_drm_gem_funcs = {
	.free = pvmap_drm_gem_free,
	.vmap = pvmap_drm_gem_vmap,
	.vunmap = pvmap_drm_gem_vunmap,
	.mmap = pvmap_drm_gem_mmap,
	.vm_ops = &pvmap_drm_gem_vm_ops,
};

int pvmap_drm_dumb_create(struct drm_file *file, struct drm_device *drm,
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
int pvmap_drm_upload_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
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

int pvmap_drm_bo_info_ioctl(struct drm_device *drm, void *data, struct drm_file *file)
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

/*
 * Copy rectangle @clip (in pixels) of @fb from @bo's shadow into VRAM: the
 * framebuffers' damage, the fbdev helper's drawing among it.
 * Context: process context, @bo->lock held, @bo->shadow made, inside
 * drm_dev_enter().
 * Return: 0, -ENOMEM when a map fails.
 */
int pvmap_drm_copy_shadow(struct pvmap_drm *pd, struct pvmap_drm_bo *bo,
			  const struct drm_framebuffer *fb, const struct drm_rect *clip)
{
	struct pvmap_drm_src shadow = { .kernel = bo->shadow };
	struct pvmap_drm_cursor cur;
	int ret;

	pvmap_drm_cursor_init(&cur, bo, fb->pitches[0], fb->offsets[0], clip);
	ret = pvmap_drm_copy_rect(pd, bo, &shadow, fb->pitches[0], fb->offsets[0], clip, &cur);
	if (!ret)
		atomic64_inc(&pd->stats.shadow_copies);
	return ret;
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
	seq_printf(m, "engine: %s\n", pvmap_drm_engine_name(pvmap_drm_engine()));
	seq_printf(m, "copies: %lld\nbytes: %lld\nmaps: %lld\npages: %lld\nshadow_copies: %lld\n",
		   atomic64_read(&s->copies), atomic64_read(&s->bytes), atomic64_read(&s->maps),
		   atomic64_read(&s->pages), atomic64_read(&s->shadow_copies));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pvmap_drm_stats);

/* debugfs <@name>/pvmap_drm_stats: VRAM in use, the copies and their maps */
void pvmap_drm_debugfs_init(struct pvmap_drm *pd, const char *name)
{
	pd->debugfs = debugfs_create_dir(name, NULL);
	debugfs_create_file("pvmap_drm_stats", 0444, pd->debugfs, pd, &pvmap_drm_stats_fops);
}

/* --- the VRAM allocator ---------------------------------------------------- */

static void pvmap_drm_mm_fini(struct drm_device *drm, void *unused)
{
	struct pvmap_drm *pd = to_pvmap_drm(drm);

	drm_mm_takedown(&pd->mm);
}

/* A drm_mm over the whole of VRAM, @pd->vram_size bytes; undone by the DRM device's release. */
int pvmap_drm_gem_init(struct pvmap_drm *pd)
{
	int ret;

	ret = drmm_mutex_init(&pd->drm, &pd->mm_lock);
	if (ret)
		return ret;
	drm_mm_init(&pd->mm, 0, pd->vram_size);
	return drmm_add_action_or_reset(&pd->drm, pvmap_drm_mm_fini, NULL);
}
