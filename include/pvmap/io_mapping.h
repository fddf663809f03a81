/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pvmap's io_mapping: page-at-a-time access to an aperture too large to map
 * whole, for other guest drivers. Modelled on <linux/io-mapping.h>, with
 * clear-on-unmap: when an atomic or pooled map is released its PTE is
 * cleared and the TLB entry flushed, so a stale pointer faults instead of
 * reaching a page that may since have changed owner or cacheability.
 */
#ifndef PVMAP_IO_MAPPING_H
#define PVMAP_IO_MAPPING_H

#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/pgtable.h>
#include <linux/preempt.h>
#include <linux/types.h>
#include <linux/uaccess.h>

/**
 * struct pvmap_io_mapping - one aperture, as pvmap_io_mapping_create_wc() made it
 * @base: guest-physical base
 * @size: size in bytes
 * @prot: kernel protection for its pages, with the memory type the kernel
 *	granted (write-combining unless an earlier reservation said otherwise)
 * @whole: the whole aperture mapped, on x86_64 with hygiene=0; else NULL
 * @wc_cookie: arch_phys_wc_add()'s handle
 * @link: on pvmap's list of whole-aperture mappings while @whole is set
 *
 * In this header, as <linux/io-mapping.h>'s struct io_mapping is, only so
 * that the atomic maps below can be inline; drivers use the functions.
 */
struct pvmap_io_mapping {
	resource_size_t base;
	u64 size;
	pgprot_t prot;
	void __iomem *whole;
	int wc_cookie;
	struct list_head link;
};

/*
 * DOC: limits
 *
 * Each CPU owns a window of PVMAP_SLOTS_PER_CPU page slots used as a stack:
 * an atomic map takes npages slots from the top, its unmap returns them.
 * At most PVMAP_MAX_DEPTH atomic maps nest on one CPU, and together they
 * use at most PVMAP_SLOTS_PER_CPU pages, which is also the largest range.
 * Interrupt handlers, tasklets and softirqs may map too, over whatever the
 * interrupted task holds: they have a few slots and levels of their own.
 * Sleepable maps of up to PVMAP_POOL_WINDOW_SIZE bytes use one of
 * PVMAP_POOL_WINDOWS pooled windows when one is idle; larger ones, and any
 * while the pool is all busy, get a window of their own (not ioremap_wc(),
 * which in 6.1 maps the wrong page above 4 GiB on i386). A sleepable map
 * never waits for another's unmap.
 *
 * Local maps share a CPU's slots and nesting depth with its atomic maps,
 * and each task has the whole of both to itself: a task switched out
 * takes its local maps off the CPU (see pvmap_io_mapping_map_local_wc()).
 * Each CPU has records for PVMAP_LOCAL_TASKS tasks holding local maps at
 * once; more are allocated (GFP_NOWAIT) as they come.
 *
 * On x86_64 with the module's hygiene=0 (its opt-out of clear-on-unmap)
 * an atomic or local map is the address of its offset in the
 * whole-aperture mapping, as mainline's io_mapping is there: no slots, so
 * only the range limits hold, and an unmap is not checked against the map
 * it names (see pvmap_io_mapping_unmap_atomic()).
 */
#define PVMAP_SLOTS_PER_CPU	64
#define PVMAP_MAX_DEPTH		16
#define PVMAP_LOCAL_TASKS	32
#define PVMAP_POOL_WINDOWS	8
#define PVMAP_POOL_WINDOW_SIZE	(64 * 1024)

/**
 * pvmap_io_mapping_create_wc() - describe a write-combining aperture
 * @base: guest-physical base address, page-aligned
 * @size: size in bytes, a non-zero multiple of the page size
 *
 * Reserves the write-combining memory type of the range once. When part
 * of the range already holds a reservation of another type (an uncached
 * ioremap() of a register in it, say), the kernel grants that type to the
 * whole range instead, and every map of it uses that type, never WC over
 * it: pvmap_io_mapping_is_wc() tells. On x86_64 with the module's
 * hygiene=0 it also maps the whole range.
 *
 * Context: process context, may sleep.
 * Return: the mapping, or an ERR_PTR() on failure.
 */
struct pvmap_io_mapping *pvmap_io_mapping_create_wc(resource_size_t base, u64 size);

/**
 * pvmap_io_mapping_free() - release a mapping made by create_wc
 * @mapping: the mapping; no map of it may be live
 *
 * Context: process context, may sleep.
 */
void pvmap_io_mapping_free(struct pvmap_io_mapping *mapping);

/**
 * pvmap_io_mapping_clears_on_unmap() - whether released maps fault
 * @mapping: the mapping
 *
 * Context: any.
 * Return: true when maps go through slots whose PTEs are cleared at unmap
 * (always on i386; on x86_64 unless the module has hygiene=0), false
 * when they point into a whole-aperture mapping that stays in place.
 */
bool pvmap_io_mapping_clears_on_unmap(const struct pvmap_io_mapping *mapping);

/**
 * pvmap_io_mapping_prot() - the page protection of every map of @mapping
 * @mapping: the mapping
 *
 * Context: any.
 * Return: the kernel page protection its maps' PTEs carry: the memory
 * type the kernel granted the aperture, in this CPU's PAT encoding.
 */
pgprot_t pvmap_io_mapping_prot(const struct pvmap_io_mapping *mapping);

/**
 * pvmap_io_mapping_is_wc() - whether the kernel granted write-combining
 * @mapping: the mapping
 *
 * Context: any.
 * Return: true when PAT is on and @mapping's maps are write-combining;
 * false when an earlier reservation imposed another type (or without PAT,
 * where the kernel maps WC requests uncached).
 */
bool pvmap_io_mapping_is_wc(const struct pvmap_io_mapping *mapping);

/*
 * The slot core (guest/pvmap/pvmap_slots.c) and the misuse reports behind the
 * inline atomic maps below; not for drivers to call. Their @prot is a
 * mapping's (pvmap_io_mapping_prot()), which the fast path writes as it is.
 */
void __iomem *pvmap_slots_map_addr(u64 addr, pgprot_t prot);
void __iomem *pvmap_slots_map(u64 pfn, unsigned int npages, pgprot_t prot);
bool pvmap_slots_unmap(void __iomem *vaddr, unsigned int npages);
void pvmap_slots_unmap_page(void __iomem *vaddr);
void __iomem *pvmap_slots_map_local_page(u64 pfn, pgprot_t prot);
void __iomem *pvmap_slots_map_local(u64 pfn, unsigned int npages, pgprot_t prot);
void pvmap_slots_unmap_local(void __iomem *vaddr);
void __iomem *pvmap_io_mapping_bad_map(const struct pvmap_io_mapping *mapping, u64 offset,
				       unsigned int npages);
void pvmap_io_mapping_bad_unmap(void);

#ifdef CONFIG_64BIT
/* Set at load from hygiene=0 (x86_64): every mapping is mapped whole. */
extern bool pvmap_io_mapping_whole;
#else
#define pvmap_io_mapping_whole	false
#endif

/* Whether @npages pages from @offset's page are in @m and fit in a CPU's slots. */
static __always_inline bool pvmap_io_mapping_range_ok(const struct pvmap_io_mapping *m,
						      u64 offset, unsigned int npages)
{
	u64 start = offset & ~(u64)(PAGE_SIZE - 1);

	/* @m's size is a multiple of the page size (create_wc): a page starting inside fits */
	if (__builtin_constant_p(npages) && npages == 1)
		return m && start < m->size;
	return m && npages - 1 < PVMAP_SLOTS_PER_CPU && start < m->size &&
	       ((u64)npages << PAGE_SHIFT) <= m->size - start;
}

/*
 * Both atomic maps: the whole-aperture address, or @npages slots of this
 * CPU; the page constant for the single-page map, so that it calls the
 * slot core's single-page entry, which returns @offset's address itself.
 */
static __always_inline void __iomem *
pvmap_io_mapping_map_atomic(struct pvmap_io_mapping *m, u64 offset, unsigned int npages)
{
	void __iomem *vaddr;

	if (unlikely(!pvmap_io_mapping_range_ok(m, offset, npages)))
		return pvmap_io_mapping_bad_map(m, offset, npages);
#ifdef CONFIG_64BIT
	if (m->whole) {
		preempt_disable();
		pagefault_disable();
		return m->whole + offset;
	}
#endif
	if (__builtin_constant_p(npages) && npages == 1)
		return pvmap_slots_map_addr(m->base + offset, m->prot);
	vaddr = pvmap_slots_map((m->base + offset) >> PAGE_SHIFT, npages, m->prot);
	return likely(vaddr) ? vaddr + ((unsigned long)offset & ~PAGE_MASK) : NULL;
}

/**
 * pvmap_io_mapping_map_atomic_wc() - map one aperture page on this CPU
 * @mapping: the mapping
 * @offset: byte offset into the aperture; the page containing it is mapped
 *
 * Disables preemption and page faults until the matching unmap, like
 * kmap_local_page(). Maps nest, and must be released in reverse order.
 *
 * Context: any context but NMI, and not inside an arch_enter_lazy_mmu_mode()
 * section (the kernel does not let a module see one, and pvmap opens its own);
 * the caller must not sleep until the unmap.
 * Return: the address of @offset, or NULL (with one WARN) if @offset is
 * outside the aperture or this CPU's slots or nesting depth are exhausted.
 */
static inline void __iomem *pvmap_io_mapping_map_atomic_wc(struct pvmap_io_mapping *mapping,
							   u64 offset)
{
	return pvmap_io_mapping_map_atomic(mapping, offset, 1);
}

/*
 * The whole-aperture unmap, as mainline's on x86_64, but an unmap with no
 * map to release (page faults enabled, so none of this task's) is refused.
 */
static __always_inline void pvmap_io_mapping_unmap_whole(void)
{
	if (unlikely(!pagefault_disabled())) {
		pvmap_io_mapping_bad_unmap();
		return;
	}
	pagefault_enable();
	preempt_enable();
}

/**
 * pvmap_io_mapping_unmap_atomic() - release the innermost atomic map
 * @vaddr: an address inside the page returned by the matching map
 *
 * Clears the slot's PTE and flushes its TLB entry on this CPU, then enables
 * page faults and preemption again. Misuse gives one WARN, still gives back
 * the preemption and page-fault state of the map @vaddr names, and never
 * clears a PTE another live map uses: a map below the innermost is
 * released together with the one above it; an address no live map on
 * this CPU returned changes nothing. A whole-aperture map's unmap only
 * gives back one map's state: it cannot tell which map it was given, and
 * refuses (one WARN) only an unmap with no map of this task's live.
 *
 * Context: the context and CPU of the matching map.
 */
static inline void pvmap_io_mapping_unmap_atomic(void __iomem *vaddr)
{
	if (pvmap_io_mapping_whole)
		pvmap_io_mapping_unmap_whole();
	else
		pvmap_slots_unmap_page(vaddr);
}

/**
 * pvmap_io_mapping_map_atomic_range_wc() - map consecutive aperture pages
 * @mapping: the mapping
 * @offset: byte offset of the first page; the page containing it is mapped
 * @npages: number of pages, 1 to PVMAP_SLOTS_PER_CPU
 *
 * Like pvmap_io_mapping_map_atomic_wc(), for @npages pages at one
 * contiguous virtual range, its PTEs written as one batch where a
 * hypervisor batches them.
 *
 * Context: as pvmap_io_mapping_map_atomic_wc().
 * Return: the address of @offset, or NULL (with one WARN) on misuse or
 * when this CPU has fewer than @npages free slots.
 */
static inline void __iomem *
pvmap_io_mapping_map_atomic_range_wc(struct pvmap_io_mapping *mapping, u64 offset,
				     unsigned int npages)
{
	return pvmap_io_mapping_map_atomic(mapping, offset, npages);
}

/**
 * pvmap_io_mapping_unmap_atomic_range() - release the innermost range map
 * @vaddr: the address returned by the matching range map
 * @npages: the @npages given to it
 *
 * Context: the context and CPU of the matching map.
 */
static inline void pvmap_io_mapping_unmap_atomic_range(void __iomem *vaddr, unsigned int npages)
{
	if (pvmap_io_mapping_whole)
		pvmap_io_mapping_unmap_whole();
	else
		pvmap_slots_unmap(vaddr, npages);
}

/*
 * Both local maps, as pvmap_io_mapping_map_atomic() is for the atomic ones:
 * on x86_64's whole-aperture path the address, with nothing to hold, as
 * mainline's there.
 */
static __always_inline void __iomem *
pvmap_io_mapping_map_local(struct pvmap_io_mapping *m, u64 offset, unsigned int npages)
{
	void __iomem *vaddr;
	u64 pfn;

	if (unlikely(!pvmap_io_mapping_range_ok(m, offset, npages)))
		return pvmap_io_mapping_bad_map(m, offset, npages);
#ifdef CONFIG_64BIT
	if (m->whole)
		return m->whole + offset;
#endif
	pfn = (m->base + offset) >> PAGE_SHIFT;
	if (__builtin_constant_p(npages) && npages == 1)
		vaddr = pvmap_slots_map_local_page(pfn, m->prot);
	else
		vaddr = pvmap_slots_map_local(pfn, npages, m->prot);
	return likely(vaddr) ? vaddr + ((unsigned long)offset & ~PAGE_MASK) : NULL;
}

/**
 * pvmap_io_mapping_local_preemptible() - whether local maps may be preempted
 *
 * Context: any.
 * Return: true when pvmap_io_mapping_map_local_wc() in task context leaves
 * preemption and page faults enabled, as mainline's does: with preempt
 * notifiers in the kernel (CONFIG_PREEMPT_NOTIFIERS, which Debian's
 * kernels have), or on x86_64's whole-aperture path. False when a local
 * map is an atomic one (preemption and page faults off until its unmap).
 */
bool pvmap_io_mapping_local_preemptible(void);

/**
 * pvmap_io_mapping_map_local_wc() - map one aperture page for this task
 * @mapping: the mapping
 * @offset: byte offset into the aperture; the page containing it is mapped
 *
 * Mainline's io_mapping_map_local_wc(): the map stays valid across
 * preemption and page faults (a copy_from_user() inside may sleep), and
 * the task stays on this CPU until the unmap. Maps nest, with atomic ones
 * too, and are released in reverse order. Whenever the task is switched
 * out, its local maps' PTEs are cleared and their TLB entries flushed, so
 * that no other task on this CPU can reach them, and they are mapped again
 * when it is switched back in; at the unmap the PTE is cleared and
 * flushed, as an atomic map's. Where pvmap_io_mapping_local_preemptible()
 * is false, and outside task context, this is an atomic map: preemption
 * and page faults are off until the unmap.
 *
 * Unlike mainline's, it can fail (below): check for NULL. The task must
 * unmap before it returns to user space or exits (an exit with a local map
 * held clears it with one WARN, but leaves the CPU pinned for good, as the
 * unmap alone lets it migrate: that CPU can no longer go offline), and must
 * not change address space while it holds one (kthread_use_mm()): on
 * x86_64 under page-table isolation with PCIDs a TLB entry may stay in the
 * address space it left. A change of CR3 is caught at the unmap (or the
 * switch out), with no WARN, and every PCID's entries flushed; a change and
 * back again before either is not.
 * Under Xen PV, a task switched out inside a lazy-MMU section of its own
 * gets its maps back with that section's updates sent.
 *
 * Context: any context but NMI, and not inside an arch_enter_lazy_mmu_mode()
 * section; an interrupt handler unmaps before it returns.
 * Return: the address of @offset, or NULL (with one WARN) if @offset is
 * outside the aperture or this CPU's slots or nesting depth are exhausted
 * for this task; NULL (with a ratelimited warning) when a record for the
 * task cannot be allocated (on PREEMPT_RT: when PVMAP_LOCAL_TASKS other
 * tasks hold local maps on this CPU).
 */
static inline void __iomem *pvmap_io_mapping_map_local_wc(struct pvmap_io_mapping *mapping,
							  u64 offset)
{
	return pvmap_io_mapping_map_local(mapping, offset, 1);
}

/**
 * pvmap_io_mapping_map_local_range_wc() - map consecutive pages for this task
 * @mapping: the mapping
 * @offset: byte offset of the first page; the page containing it is mapped
 * @npages: number of pages, 1 to PVMAP_SLOTS_PER_CPU
 *
 * Like pvmap_io_mapping_map_local_wc(), for @npages pages at one contiguous
 * virtual range; released by pvmap_io_mapping_unmap_local().
 *
 * Context: as pvmap_io_mapping_map_local_wc().
 * Return: the address of @offset, or NULL as pvmap_io_mapping_map_local_wc()
 * and when this task has fewer than @npages free slots on this CPU.
 */
static inline void __iomem *
pvmap_io_mapping_map_local_range_wc(struct pvmap_io_mapping *mapping, u64 offset,
				    unsigned int npages)
{
	return pvmap_io_mapping_map_local(mapping, offset, npages);
}

/**
 * pvmap_io_mapping_unmap_local() - release the innermost local map
 * @vaddr: an address inside the first page returned by the matching map
 *
 * Clears the slot's PTE and flushes its TLB entry, then lets the task
 * migrate again. Misuse gives one WARN as an atomic unmap's does, and
 * an atomic map named here (or a local one to pvmap_io_mapping_unmap_atomic())
 * is refused. Every task's local maps start at the same slot, so an unmap
 * made by the wrong task releases that task's own map at that address, if
 * it has one there (as mainline's does). On x86_64's whole-aperture path
 * it does nothing, as mainline's.
 *
 * Context: the task (or interrupt) and CPU of the matching map.
 */
static inline void pvmap_io_mapping_unmap_local(void __iomem *vaddr)
{
	if (!pvmap_io_mapping_whole)
		pvmap_slots_unmap_local(vaddr);
}

/**
 * pvmap_io_mapping_map_wc() - map an aperture range in sleepable context
 * @mapping: the mapping
 * @offset: byte offset into the aperture
 * @size: bytes to map, from @offset
 *
 * Ranges of up to PVMAP_POOL_WINDOW_SIZE bytes (counted from the start of
 * @offset's page) use a pooled window when one is idle; larger ones, and
 * any while every pooled window is busy, get a window of their own. The
 * task that made the map unmaps it: a pooled window unmapped by another
 * task is refused (one WARN), so that a second unmap of an address whose
 * window went to another task cannot clear that task's map.
 *
 * Context: process context, may sleep.
 * Return: the address of @offset, or NULL on misuse (one WARN), or on lack
 * of memory or address space.
 */
void __iomem *pvmap_io_mapping_map_wc(struct pvmap_io_mapping *mapping,
				      u64 offset, u64 size);

/**
 * pvmap_io_mapping_unmap() - release a map made by pvmap_io_mapping_map_wc()
 * @vaddr: the address it returned
 *
 * The window's PTEs are cleared and its TLB entries flushed on every CPU,
 * since the task may have migrated while it held the map. An address no
 * sleepable map returned gives one WARN and changes nothing.
 *
 * Context: process context, may sleep.
 */
void pvmap_io_mapping_unmap(void __iomem *vaddr);

#endif /* PVMAP_IO_MAPPING_H */
