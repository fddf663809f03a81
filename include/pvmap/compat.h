/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel interfaces that differ between the LTS releases pvmap builds
 * against, 6.1 and 6.12: every difference is here and nowhere else. Only
 * those two are supported, so one interface that 6.12 has and 6.1 lacks
 * (FOP_UNSIGNED_OFFSET, a macro) tells them apart; releases in between
 * are not checked.
 */
#ifndef PVMAP_COMPAT_H
#define PVMAP_COMPAT_H

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/uaccess.h>

#ifdef FOP_UNSIGNED_OFFSET
#define PVMAP_KERNEL_6_12	1
#else
#define PVMAP_KERNEL_6_12	0
#endif

/*
 * mmap offsets past LLONG_MAX (a 4 GiB aperture's last page on i386): a
 * per-open f_mode bit in 6.1, a file_operations fop_flags bit in 6.12.
 */
#define PVMAP_HAVE_FOP_FLAGS	PVMAP_KERNEL_6_12

/*
 * pvmap_drm's fbdev emulation, the kind with a shadow buffer and damage:
 * drm_fbdev_generic_setup() of <drm/drm_fb_helper.h> in 6.1, renamed
 * drm_fbdev_ttm_setup() in 6.11, in a header of its own.
 */
#if PVMAP_KERNEL_6_12
#include <drm/drm_fbdev_ttm.h>
#define pvmap_drm_fbdev_setup	drm_fbdev_ttm_setup
#else
#define pvmap_drm_fbdev_setup	drm_fbdev_generic_setup
#endif

static inline void pvmap_file_unsigned_offset(struct file *file)
{
#if !PVMAP_KERNEL_6_12
	file->f_mode |= FMODE_UNSIGNED_OFFSET;
#endif
}

#if !PVMAP_KERNEL_6_12
/* vma->vm_flags is read-only behind vm_flags_set() in 6.12 (since 6.3). */
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

/*
 * The "inatomic, bypass the cache" user copy of i915's pwrite fast path:
 * __copy_from_user_inatomic_nocache() in 6.1, renamed in 6.12.
 */
static inline unsigned long __must_check
copy_from_user_inatomic_nontemporal(void *to, const void __user *from, unsigned long n)
{
	return __copy_from_user_inatomic_nocache(to, from, n);
}
#endif

/*
 * The frame behind @address in @vma, a VM_IO | VM_PFNMAP mapping, with the
 * mmap lock held: follow_pfn() in 6.1, follow_pfnmap_start() in 6.12.
 */
static inline int pvmap_follow_pfn(struct vm_area_struct *vma, unsigned long address,
				   unsigned long *pfn)
{
#if PVMAP_KERNEL_6_12
	struct follow_pfnmap_args args = { .vma = vma, .address = address };
	int ret = follow_pfnmap_start(&args);

	if (ret)
		return ret;
	*pfn = args.pfn;
	follow_pfnmap_end(&args);
	return 0;
#else
	return follow_pfn(vma, address, pfn);
#endif
}

#endif /* PVMAP_COMPAT_H */
