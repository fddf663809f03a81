// SPDX-License-Identifier: GPL-2.0
/*
 * PWRITE and PREAD: copies between a user buffer and the aperture through
 * atomic range maps, page faults disabled. A user page that is not there
 * stops the copy; the caller faults it in with no lock held and no map
 * live, then calls again, as generic_perform_write() does. A fault can
 * sleep for as long as its page's owner likes (userfaultfd, FUSE): unbind
 * must not wait for it, and no map may be held across it.
 */

#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include <pvmap/io_mapping.h>

#include <pvmap/compat.h>
#include "pvmap_internal.h"

/*
 * Pages per atomic range map: one batch of PTE writes to map them and one
 * to unmap them. 16 pages (64 KiB) keeps preemption off for one short copy.
 */
#define PVMAP_RW_CHUNK_PAGES	16
#define PVMAP_RW_CHUNK		(PVMAP_RW_CHUNK_PAGES * PAGE_SIZE)

/* Check @rw against an aperture of @aperture_size bytes: 0, -EINVAL or -EFAULT. */
int pvmap_rw_check(u64 aperture_size, struct pvmap_rw *rw)
{
	rw->done = 0;
	if (rw->offset > aperture_size || rw->length > aperture_size - rw->offset)
		return -EINVAL;
	if (!rw->length)
		return 0;	/* nothing to copy, from anywhere */
	/* On i386 a user_ptr with bits above 31 is no pointer: refuse, do not truncate. */
	if (rw->length > ULONG_MAX || rw->user_ptr != (unsigned long)rw->user_ptr ||
	    !access_ok(u64_to_user_ptr(rw->user_ptr), rw->length))
		return -EFAULT;
	return 0;
}

/*
 * Copy from @from to @to, @len bytes, page faults off: the bytes copied,
 * exactly up to the first byte that faults. A uaccess remainder is only a
 * bound on where the fault is: i386's __copy_user_intel (misaligned copies
 * of 64+ bytes on Intel family 6) reads a block ahead and stops at a
 * 64-byte block boundary, and its tail copies a few bytes short too (67
 * bytes early, measured on Debian's 686-pae kernel). So after a short copy
 * go on a byte at a time until a byte faults.
 */
static u64 pvmap_rw_copy(void __iomem *vaddr, void __user *ubuf, u64 len, bool write)
{
	u8 *kbuf = (u8 __force *)vaddr;
	unsigned long left;
	u64 copied;

	if (write)
		left = copy_from_user_inatomic_nontemporal(kbuf, ubuf, len);
	else
		left = __copy_to_user_inatomic(ubuf, kbuf, len);
	for (copied = len - left; copied < len; copied++) {
		if (write ? __copy_from_user_inatomic(kbuf + copied, ubuf + copied, 1) :
			    __copy_to_user_inatomic(ubuf + copied, kbuf + copied, 1))
			break;
	}
	return copied;
}

/*
 * Chunks one call copies before it gives the device's lock back, so that
 * an unbind waits for at most this much of a long copy (4 MiB).
 */
#define PVMAP_RW_CHUNKS_PER_LOCK	64

/*
 * Copy from rw->done on; rw->done says how far it got. Context: the
 * device's lock held (the aperture stays), no user fault served.
 * Return: PVMAP_RW_DONE at rw->length; PVMAP_RW_FAULT when a user page
 * stopped the copy: pvmap_rw_fault_in() it, with no lock held, and call
 * again; PVMAP_RW_YIELD after PVMAP_RW_CHUNKS_PER_LOCK chunks: drop the
 * lock and call again; PVMAP_RW_ERROR on a fatal signal or a failed map.
 */
enum pvmap_rw_stop pvmap_rw_atomic(struct pvmap_io_mapping *m, struct pvmap_rw *rw, bool write)
{
	void __user *ubuf = u64_to_user_ptr(rw->user_ptr);
	unsigned int chunks = 0;

	while (rw->done < rw->length) {
		u64 offset = rw->offset + rw->done;
		u64 chunk = min_t(u64, rw->length - rw->done,
				  PVMAP_RW_CHUNK - offset_in_page(offset));
		unsigned int npages = DIV_ROUND_UP(offset_in_page(offset) + chunk, PAGE_SIZE);
		void __iomem *vaddr;
		u64 copied;

		if (chunks++ == PVMAP_RW_CHUNKS_PER_LOCK)
			return PVMAP_RW_YIELD;
		vaddr = pvmap_io_mapping_map_atomic_range_wc(m, offset, npages);
		if (!vaddr)
			return PVMAP_RW_ERROR;
		copied = pvmap_rw_copy(vaddr, ubuf + rw->done, chunk, write);
		pvmap_io_mapping_unmap_atomic_range(vaddr, npages);
		rw->done += copied;
		if (copied < chunk) {
			pvmap_count(PVMAP_CNT_SLOW_PATH);
			return PVMAP_RW_FAULT;
		}
		if (fatal_signal_pending(current))
			return PVMAP_RW_ERROR;
		cond_resched();
	}
	return PVMAP_RW_DONE;
}

/*
 * Fault in the user pages of the next chunk from rw->done, readable for a
 * PWRITE, writable (without writing) for a PREAD. Context: no lock held: a
 * fault may sleep until its page's owner serves it. Return: 0 when the
 * first byte's page is there now, -EFAULT when it cannot be, -EINTR on a
 * fatal signal.
 */
int pvmap_rw_fault_in(const struct pvmap_rw *rw, bool write)
{
	char __user *ubuf = u64_to_user_ptr(rw->user_ptr + rw->done);
	size_t len = min_t(u64, rw->length - rw->done, PVMAP_RW_CHUNK);
	size_t left;

	left = write ? fault_in_readable(ubuf, len) : fault_in_safe_writeable(ubuf, len);
	if (fatal_signal_pending(current))
		return -EINTR;
	/* Less than len faulted in: the first byte's page may be all there is. */
	return left == len ? -EFAULT : 0;
}
