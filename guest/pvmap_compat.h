/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel interfaces that differ between the LTS releases pvmap builds
 * against (6.1 and 6.12): every version test of the module is here, in
 * one place, with the kernel release that changed the interface.
 */
#ifndef PVMAP_COMPAT_H
#define PVMAP_COMPAT_H

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <linux/version.h>

/*
 * The "inatomic, bypass the cache" user copy (i915's pwrite fast path):
 * __copy_from_user_inatomic_nocache() in 6.1, renamed by 6.12. Only the
 * two LTS releases are checked; releases in between are not supported.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
static inline unsigned long __must_check
copy_from_user_inatomic_nontemporal(void *to, const void __user *from, unsigned long n)
{
	return __copy_from_user_inatomic_nocache(to, from, n);
}
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
/* 6.3 made vma->vm_flags read-only behind vm_flags_set(). */
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

/*
 * mmap offsets past LLONG_MAX (a 4 GiB aperture's last page on i386): a
 * per-open f_mode bit until 6.12, a file_operations fop_flags bit since.
 */
#ifdef FOP_UNSIGNED_OFFSET
#define PVMAP_HAVE_FOP_FLAGS	1
static inline void pvmap_file_unsigned_offset(struct file *file)
{
}
#else
#define PVMAP_HAVE_FOP_FLAGS	0
static inline void pvmap_file_unsigned_offset(struct file *file)
{
	file->f_mode |= FMODE_UNSIGNED_OFFSET;
}
#endif

#endif /* PVMAP_COMPAT_H */
