// SPDX-License-Identifier: GPL-2.0
/*
 * PWRITE and PREAD: copies between a user buffer and the aperture through
 * atomic range maps, with i915's pattern for faults: copy with page faults
 * disabled, and only for a chunk that faulted take a sleepable map and copy
 * again, letting the fault be served.
 */

#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include <pvmap/io_mapping.h>

#include "pvmap_compat.h"
#include "pvmap_internal.h"

/*
 * Pages per atomic range map: one batch of PTE writes to map them and one
 * to unmap them. 16 pages (64 KiB) keeps preemption off for one short copy.
 */
#define PVMAP_RW_CHUNK_PAGES	16

/*
 * The slow path: bytes copied, exactly up to the first byte that faults.
 * __copy_*_user (not copy_from_user()) because copy_from_user() zero-fills
 * what it could not copy, and that "fill" would land in the aperture past
 * the fault. A uaccess remainder is only a bound on where the fault is:
 * i386's __copy_user_intel (misaligned copies of 64+ bytes on Intel family
 * 6) reads a block ahead and stops at a 64-byte block boundary, and its
 * tail copies a few bytes short too (67 bytes early, measured on Debian's
 * 686-pae kernel). So after a short copy, go on a byte at a time until a
 * byte faults: at most that many single-byte copies.
 */
static u64 pvmap_rw_sleepable(struct pvmap_io_mapping *m, u64 offset,
			      void __user *ubuf, u64 len, bool write)
{
	u8 *kbuf;
	void __iomem *vaddr;
	unsigned long left;
	u64 copied;

	vaddr = pvmap_io_mapping_map_wc(m, offset, len);
	if (!vaddr)
		return 0;
	kbuf = (u8 __force *)vaddr;
	if (write)
		left = __copy_from_user(kbuf, ubuf, len);
	else
		left = __copy_to_user(ubuf, kbuf, len);
	for (copied = len - left; left && copied < len; copied++) {
		if (write ? __copy_from_user(kbuf + copied, ubuf + copied, 1) :
			    __copy_to_user(ubuf + copied, kbuf + copied, 1))
			break;
	}
	pvmap_io_mapping_unmap(vaddr);
	return copied;
}

/*
 * Copy rw->length bytes; rw->done says how many were copied. 0 when at least
 * one byte (or a zero length) was copied, -EINVAL for a range outside the
 * aperture, -EFAULT when the user buffer faulted before the first byte.
 */
int pvmap_rw(struct pvmap_io_mapping *m, u64 aperture_size, struct pvmap_rw *rw,
	     bool write)
{
	void __user *ubuf = u64_to_user_ptr(rw->user_ptr);
	u64 done = 0;

	rw->done = 0;
	if (rw->offset > aperture_size || rw->length > aperture_size - rw->offset)
		return -EINVAL;
	if (!rw->length)
		return 0;
	/* On i386 a user_ptr with bits above 31 is no pointer: refuse, do not truncate. */
	if (rw->length > ULONG_MAX || rw->user_ptr != (unsigned long)rw->user_ptr ||
	    !access_ok(ubuf, rw->length))
		return -EFAULT;

	while (done < rw->length) {
		u64 offset = rw->offset + done;
		u64 chunk = min_t(u64, rw->length - done,
				  PVMAP_RW_CHUNK_PAGES * PAGE_SIZE - offset_in_page(offset));
		unsigned int npages = DIV_ROUND_UP(offset_in_page(offset) + chunk, PAGE_SIZE);
		void __iomem *vaddr;
		unsigned long left;
		u64 copied;

		vaddr = pvmap_io_mapping_map_atomic_range_wc(m, offset, npages);
		if (!vaddr)
			break;
		if (write)
			left = copy_from_user_inatomic_nontemporal((void __force *)vaddr,
								   ubuf + done, chunk);
		else
			left = __copy_to_user_inatomic(ubuf + done, (void __force *)vaddr,
						       chunk);
		pvmap_io_mapping_unmap_atomic_range(vaddr, npages);

		copied = chunk - left;
		if (left) {
			pvmap_count(PVMAP_CNT_SLOW_PATH);
			copied += pvmap_rw_sleepable(m, offset + copied, ubuf + done + copied,
						     left, write);
		}
		done += copied;
		if (copied < chunk || fatal_signal_pending(current))
			break;
		cond_resched();
	}
	rw->done = done;
	return done ? 0 : -EFAULT;
}
