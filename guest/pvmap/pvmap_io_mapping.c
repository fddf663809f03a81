// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap's io_mapping API (include/pvmap/io_mapping.h): aperture
 * descriptors with their write-combining memory type, atomic maps through
 * the per-CPU slots, sleepable maps through a small pool of windows, and the
 * x86_64 path that maps the whole aperture once.
 */

#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/io.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <asm/iomap.h>
#include <asm/memtype.h>
#include <xen/xen.h>

#include <pvmap/io_mapping.h>

#include "pvmap_internal.h"
#include "pvmap_pte.h"

/*
 * On by default everywhere: clear-on-unmap is the guarantee, and on x86_64
 * its cost is counted in docs/benchmarks.md. hygiene=0 is x86_64's explicit
 * opt-out, and INFO (PVMAP_INFO_F_CLEARS_ON_UNMAP) says which mode a device
 * is in.
 */
static bool hygiene = true;
module_param(hygiene, bool, 0444);
MODULE_PARM_DESC(hygiene,
		 "clear-on-unmap through per-CPU slots (default Y); x86_64 with hygiene=0: one whole-aperture mapping instead, whose stale pointers stay valid (i386 ignores it)");

#ifdef CONFIG_64BIT
/*
 * !hygiene, for the inline unmaps, which are not told the mapping; read-only
 * once pvmap is loaded: no other module can turn clear-on-unmap off.
 */
bool pvmap_io_mapping_whole __ro_after_init;
EXPORT_SYMBOL_GPL(pvmap_io_mapping_whole);
#endif

#define PVMAP_POOL_WINDOW_PAGES	(PVMAP_POOL_WINDOW_SIZE / PAGE_SIZE)

/*
 * Sleepable maps of up to PVMAP_POOL_WINDOW_SIZE bytes: a window of
 * PVMAP_POOL_WINDOWS slices, @busy marks those in use, @unmapping those an
 * unmap is clearing (still busy, no second unmap), @owner the task that
 * mapped each. The pool is a cache, never a wait: with every slice busy a
 * map gets a window of its own, so a holder stalled for as long as it
 * likes (a user fault) blocks nobody, and a task holding one map while
 * asking for another cannot deadlock with others doing the same.
 */
static struct {
	struct pvmap_window window;
	spinlock_t lock;	/* protects busy, unmapping, npages and owner */
	unsigned long busy;
	unsigned long unmapping;
	unsigned int npages[PVMAP_POOL_WINDOWS];
	struct task_struct *owner[PVMAP_POOL_WINDOWS];
} pvmap_pool;

/* Whole-aperture mappings, so pvmap_io_mapping_unmap() knows their addresses. */
static LIST_HEAD(pvmap_whole_list);
static DEFINE_SPINLOCK(pvmap_whole_lock);	/* protects pvmap_whole_list */

/**
 * struct pvmap_large_map - a sleepable map larger than a pool window
 * @window: a window of its own, created and destroyed with the map
 * @link: on pvmap_large_list
 * @owner: the task that mapped it, the only one that unmaps it, as a pool
 *	window's: the address of a map unmapped twice may be another
 *	task's map by then
 *
 * Not ioremap_wc(): in 6.1 its __ioremap_caller() aligns the address with
 * PAGE_MASK, an unsigned long, which on i386 PAE drops every bit above
 * 4 GiB and maps the wrong page. A window of our own has no such limit.
 */
struct pvmap_large_map {
	struct pvmap_window window;
	struct list_head link;
	struct task_struct *owner;
};

static LIST_HEAD(pvmap_large_list);
static DEFINE_MUTEX(pvmap_large_lock);	/* protects pvmap_large_list */

/* Exported with the PTE layer, whose inline batch count reads them. */
struct pvmap_counters __percpu *pvmap_counters;
EXPORT_SYMBOL_FOR_PVMAP_TESTS(pvmap_counters);
DEFINE_STATIC_KEY_FALSE(pvmap_counting);
EXPORT_SYMBOL_FOR_PVMAP_TESTS(pvmap_counting);

/* Page start of an aperture offset; PAGE_MASK would truncate a u64 on i386. */
static inline u64 pvmap_page_start(u64 offset)
{
	return offset & ~(u64)(PAGE_SIZE - 1);
}

static bool pvmap_range_ok(const struct pvmap_io_mapping *m, u64 offset, u64 size)
{
	return m && size && offset < m->size && size <= m->size - offset;
}

/*
 * The protection of an aperture's pages, with the memory type the kernel
 * granted its reservation: memtype_reserve() gives a range that overlaps
 * an earlier reservation that one's type rather than failing (a UC-
 * ioremap() of part of it, say), and arch_io_reserve_memtype_wc() does not
 * say which. A one-page reservation nested in ours gets the same answer
 * and shows it: WC PTEs over a UC- reservation would be the very PAT alias
 * the reservation exists to prevent.
 */
static int pvmap_granted_prot(resource_size_t base, pgprot_t *prot)
{
#ifdef CONFIG_X86_32
	/* As mainline's io_mapping_init_wc(); ioremap() truncates above 4 GiB here. */
	int ret = iomap_create_wc(base, PAGE_SIZE, prot);

	if (ret)
		return ret;
	iomap_free(base, PAGE_SIZE);
	return 0;
#else
	void __iomem *probe = ioremap_wc(base, PAGE_SIZE);
	unsigned int level;
	pte_t *ptep;
	int ret = 0;

	if (!probe)
		return -ENOMEM;
	ptep = lookup_address((unsigned long)probe, &level);
	if (ptep && level == PG_LEVEL_4K)
		*prot = __pgprot((pgprot_val(PAGE_KERNEL) & ~_PAGE_CACHE_MASK) |
				 (pte_flags(*ptep) & _PAGE_CACHE_MASK));
	else
		ret = -EFAULT;
	iounmap(probe);
	return ret;
#endif
}

struct pvmap_io_mapping *pvmap_io_mapping_create_wc(resource_size_t base, u64 size)
{
	struct pvmap_io_mapping *m;
	pgprot_t prot;
	int ret;

	if (!size || !PAGE_ALIGNED(base) || size & (PAGE_SIZE - 1))
		return ERR_PTR(-EINVAL);
	/*
	 * The memtype code takes the range's end as a resource_size_t: 32 bits
	 * without PAE, where an aperture ending at 4 GiB would wrap to 0.
	 */
	if (size - 1 > (resource_size_t)~0 - base || (resource_size_t)(base + size) < base)
		return ERR_PTR(-EOVERFLOW);
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->base = base;
	m->size = size;
	INIT_LIST_HEAD(&m->link);

	ret = arch_io_reserve_memtype_wc(base, size);
	if (ret)
		goto err_free;
	ret = pvmap_granted_prot(base, &prot);
	if (ret)
		goto err_memtype;
	m->prot = pvmap_prot_supported(prot);
	/*
	 * An MTRR where there is no PAT (arch_phys_wc_add() does nothing where
	 * there is); it takes unsigned longs.
	 */
	if (IS_ENABLED(CONFIG_64BIT) || !upper_32_bits((u64)base + size - 1))
		m->wc_cookie = arch_phys_wc_add(base, size);

	if (pvmap_io_mapping_whole) {
		/* ioremap_wc() grants the same type again: no alias */
		m->whole = ioremap_wc(base, size);
		if (!m->whole) {
			ret = -ENOMEM;
			goto err_memtype;
		}
		spin_lock(&pvmap_whole_lock);
		list_add(&m->link, &pvmap_whole_list);
		spin_unlock(&pvmap_whole_lock);
	}
	return m;

err_memtype:
	arch_phys_wc_del(m->wc_cookie);
	arch_io_free_memtype_wc(base, size);
err_free:
	kfree(m);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(pvmap_io_mapping_create_wc);

void pvmap_io_mapping_free(struct pvmap_io_mapping *m)
{
	if (!m)
		return;
	if (m->whole) {
		spin_lock(&pvmap_whole_lock);
		list_del(&m->link);
		spin_unlock(&pvmap_whole_lock);
		iounmap(m->whole);
	}
	arch_phys_wc_del(m->wc_cookie);
	arch_io_free_memtype_wc(m->base, m->size);
	kfree(m);
}
EXPORT_SYMBOL_GPL(pvmap_io_mapping_free);

bool pvmap_io_mapping_clears_on_unmap(const struct pvmap_io_mapping *m)
{
	return !m->whole;
}
EXPORT_SYMBOL_GPL(pvmap_io_mapping_clears_on_unmap);

pgprot_t pvmap_io_mapping_prot(const struct pvmap_io_mapping *m)
{
	return m->prot;
}
EXPORT_SYMBOL_GPL(pvmap_io_mapping_prot);

bool pvmap_io_mapping_is_wc(const struct pvmap_io_mapping *m)
{
	return pat_enabled() && (pgprot_val(m->prot) & _PAGE_CACHE_MASK) ==
				cachemode2protval(_PAGE_CACHE_MODE_WC);
}
EXPORT_SYMBOL_GPL(pvmap_io_mapping_is_wc);

bool pvmap_io_mapping_local_preemptible(void)
{
	return pvmap_io_mapping_whole || pvmap_slots_local_preemptible();
}
EXPORT_SYMBOL_GPL(pvmap_io_mapping_local_preemptible);

void __iomem *pvmap_io_mapping_bad_map(const struct pvmap_io_mapping *m, u64 offset,
				       unsigned int npages)
{
	WARN(1, "pvmap: map of %u pages at %#llx outside the aperture\n", npages, offset);
	pvmap_count(PVMAP_CNT_MISUSE);
	return NULL;
}
EXPORT_SYMBOL_GPL(pvmap_io_mapping_bad_map);

void pvmap_io_mapping_bad_unmap(void)
{
	WARN(1, "pvmap: unmap without a live atomic map\n");
	pvmap_count(PVMAP_CNT_MISUSE);
}
EXPORT_SYMBOL_GPL(pvmap_io_mapping_bad_unmap);

/* Give slice @idx of the pool back. */
static void pvmap_pool_release(unsigned int idx)
{
	spin_lock(&pvmap_pool.lock);
	__clear_bit(idx, &pvmap_pool.unmapping);
	__clear_bit(idx, &pvmap_pool.busy);
	pvmap_pool.owner[idx] = NULL;
	spin_unlock(&pvmap_pool.lock);
}

/*
 * A map in an idle slice of the pool; NULL when every slice is busy (*@busy
 * set) or the hypervisor refused it.
 */
static void __iomem *pvmap_pool_map(u64 pfn, unsigned int npages, pgprot_t prot, bool *busy)
{
	unsigned int idx, first;

	spin_lock(&pvmap_pool.lock);
	idx = find_first_zero_bit(&pvmap_pool.busy, PVMAP_POOL_WINDOWS);
	if (idx < PVMAP_POOL_WINDOWS) {
		__set_bit(idx, &pvmap_pool.busy);
		pvmap_pool.npages[idx] = npages;
		pvmap_pool.owner[idx] = current;
	}
	spin_unlock(&pvmap_pool.lock);
	*busy = idx >= PVMAP_POOL_WINDOWS;
	if (*busy)
		return NULL;

	first = idx * PVMAP_POOL_WINDOW_PAGES;
	/* A lazy-MMU section belongs to one CPU. */
	preempt_disable();
	if (unlikely(pvmap_window_map(&pvmap_pool.window, first, pfn, npages, prot))) {
		/* refused by the hypervisor: nothing stays mapped */
		pvmap_window_clear(&pvmap_pool.window, first, npages);
		preempt_enable();
		pvmap_tlb_flush_all_cpus(&pvmap_pool.window, first, npages);
		pvmap_pool_release(idx);
		return NULL;
	}
	preempt_enable();
	pvmap_count(PVMAP_CNT_MAPS);
	pvmap_count_add(PVMAP_CNT_PTE_WRITES, npages);
	return (void __iomem *)pvmap_window_va(&pvmap_pool.window, first);
}

static bool pvmap_pool_unmap(unsigned long va)
{
	unsigned long start = pvmap_pool.window.va;
	unsigned int idx, first, npages;
	bool idle, foreign;

	if (va < start || va >= start + PVMAP_POOL_WINDOWS * PVMAP_POOL_WINDOW_SIZE)
		return false;
	idx = (va - start) / PVMAP_POOL_WINDOW_SIZE;
	first = idx * PVMAP_POOL_WINDOW_PAGES;
	/*
	 * Tested and claimed under the lock: of two unmaps, one does the work.
	 * Only the task that mapped a slice unmaps it: a second unmap of an
	 * address after the slice went to another task must not clear that
	 * task's live map.
	 */
	spin_lock(&pvmap_pool.lock);
	idle = !test_bit(idx, &pvmap_pool.busy);
	foreign = !idle && pvmap_pool.owner[idx] != current;
	if (!idle && !foreign)
		idle = __test_and_set_bit(idx, &pvmap_pool.unmapping);
	npages = pvmap_pool.npages[idx];
	spin_unlock(&pvmap_pool.lock);
	if (WARN(idle || foreign, "pvmap: unmap of a pool window %s\n",
		 foreign ? "another task mapped" : "that is idle")) {
		pvmap_count(PVMAP_CNT_MISUSE);
		return true;
	}

	preempt_disable();
	pvmap_window_clear(&pvmap_pool.window, first, npages);
	preempt_enable();
	pvmap_count_add(PVMAP_CNT_PTE_WRITES, npages);
	pvmap_tlb_flush_all_cpus(&pvmap_pool.window, first, npages);
	pvmap_pool_release(idx);
	pvmap_count(PVMAP_CNT_UNMAPS);
	return true;
}

static void __iomem *pvmap_large_map(u64 pfn, unsigned int npages, pgprot_t prot)
{
	struct pvmap_large_map *lm;

	lm = kzalloc(sizeof(*lm), GFP_KERNEL);
	if (!lm)
		return NULL;
	if (pvmap_window_create(&lm->window, npages)) {
		kfree(lm);
		return NULL;
	}
	preempt_disable();
	if (unlikely(pvmap_window_map(&lm->window, 0, pfn, npages, prot))) {
		/* refused by the hypervisor: the window goes, every PTE restored */
		preempt_enable();
		pvmap_tlb_flush_all_cpus(&lm->window, 0, npages);
		pvmap_window_destroy(&lm->window);
		kfree(lm);
		return NULL;
	}
	preempt_enable();
	pvmap_count_add(PVMAP_CNT_PTE_WRITES, npages);

	lm->owner = current;
	mutex_lock(&pvmap_large_lock);
	list_add(&lm->link, &pvmap_large_list);
	mutex_unlock(&pvmap_large_lock);
	pvmap_count(PVMAP_CNT_MAPS);
	return (void __iomem *)lm->window.va;
}

static bool pvmap_large_unmap(unsigned long va)
{
	struct pvmap_large_map *lm, *found = NULL;
	bool foreign = false;

	mutex_lock(&pvmap_large_lock);
	list_for_each_entry(lm, &pvmap_large_list, link) {
		if (lm->window.va == va) {
			foreign = lm->owner != current;
			if (!foreign) {
				list_del(&lm->link);
				found = lm;
			}
			break;
		}
	}
	mutex_unlock(&pvmap_large_lock);
	if (WARN(foreign, "pvmap: unmap of a sleepable map another task mapped\n")) {
		pvmap_count(PVMAP_CNT_MISUSE);
		return true;
	}
	if (!found)
		return false;

	preempt_disable();
	pvmap_window_clear(&found->window, 0, found->window.npages);
	preempt_enable();
	pvmap_count_add(PVMAP_CNT_PTE_WRITES, found->window.npages);
	pvmap_tlb_flush_all_cpus(&found->window, 0, found->window.npages);
	pvmap_window_destroy(&found->window);
	kfree(found);
	pvmap_count(PVMAP_CNT_UNMAPS);
	return true;
}

static bool pvmap_is_whole_addr(unsigned long va)
{
	struct pvmap_io_mapping *m;
	bool found = false;

	spin_lock(&pvmap_whole_lock);
	list_for_each_entry(m, &pvmap_whole_list, link) {
		unsigned long start = (unsigned long)m->whole;

		if (va >= start && va - start < m->size) {
			found = true;
			break;
		}
	}
	spin_unlock(&pvmap_whole_lock);
	return found;
}

void __iomem *pvmap_io_mapping_map_wc(struct pvmap_io_mapping *m, u64 offset, u64 size)
{
	u64 start = pvmap_page_start(offset);
	void __iomem *vaddr;
	bool busy;
	u64 span;

	might_sleep();
	if (WARN(!pvmap_range_ok(m, offset, size),
		 "pvmap: map of %#llx bytes at %#llx outside the aperture\n", size, offset)) {
		pvmap_count(PVMAP_CNT_MISUSE);
		return NULL;
	}
	if (m->whole)
		return m->whole + offset;

	span = PAGE_ALIGN(offset_in_page(offset) + size);
	vaddr = NULL;
	busy = true;
	if (span <= PVMAP_POOL_WINDOW_SIZE)
		vaddr = pvmap_pool_map((m->base + start) >> PAGE_SHIFT, span >> PAGE_SHIFT,
				       m->prot, &busy);
	/* larger, or every pooled slice busy (not refused): a window of its own */
	if (!vaddr && busy && span >> PAGE_SHIFT <= UINT_MAX)
		vaddr = pvmap_large_map((m->base + start) >> PAGE_SHIFT, span >> PAGE_SHIFT,
					m->prot);
	return vaddr ? vaddr + offset_in_page(offset) : NULL;
}
EXPORT_SYMBOL_GPL(pvmap_io_mapping_map_wc);

void pvmap_io_mapping_unmap(void __iomem *vaddr)
{
	unsigned long va = (unsigned long)vaddr & PAGE_MASK;

	might_sleep();
	if (pvmap_pool_unmap(va) || pvmap_is_whole_addr(va) || pvmap_large_unmap(va))
		return;
	WARN(1, "pvmap: unmap of an address no sleepable map returned\n");
	pvmap_count(PVMAP_CNT_MISUSE);
}
EXPORT_SYMBOL_GPL(pvmap_io_mapping_unmap);

/* The first read starts the counters: they cost nothing until somebody asks. */
void pvmap_stats_read(struct pvmap_stats *st)
{
	int cpu;

	might_sleep();
	if (!static_key_enabled(&pvmap_counting))
		static_branch_enable(&pvmap_counting);
	memset(st, 0, sizeof(*st));
	for_each_possible_cpu(cpu) {
		const struct pvmap_counters *c = per_cpu_ptr(pvmap_counters, cpu);

		st->maps += c->count[PVMAP_CNT_MAPS];
		st->unmaps += c->count[PVMAP_CNT_UNMAPS];
		st->pte_writes += c->count[PVMAP_CNT_PTE_WRITES];
		st->local_flushes += c->count[PVMAP_CNT_LOCAL_FLUSHES];
		st->remote_flushes += c->count[PVMAP_CNT_REMOTE_FLUSHES];
		st->batches += c->count[PVMAP_CNT_BATCHES];
		st->slow_path += c->count[PVMAP_CNT_SLOW_PATH];
		st->misuse += c->count[PVMAP_CNT_MISUSE];
		if (cpu < PVMAP_STATS_MAX_CPUS) {
			st->live_slots[cpu] = pvmap_slots_live(cpu);
			st->nr_cpus = cpu + 1;
		}
	}
}

/*
 * Every range pvmap maps now, as "VA NPAGES KIND" lines: atomic slots per
 * CPU, busy pool windows, large sleepable maps and whole-aperture mappings.
 * What the host auditor (tools/host/audit) compares the guest's page tables with.
 */
void pvmap_live_show(struct seq_file *s)
{
	unsigned long va[PVMAP_MAX_DEPTH];
	unsigned int npages[PVMAP_MAX_DEPTH];
	struct pvmap_large_map *lm;
	struct pvmap_io_mapping *m;
	unsigned int i, n;
	int cpu;

	for_each_possible_cpu(cpu) {
		n = pvmap_slots_live_ranges(cpu, va, npages, PVMAP_MAX_DEPTH);
		for (i = 0; i < n; i++)
			seq_printf(s, "%lx %u slot-cpu%d\n", va[i], npages[i], cpu);
	}
	spin_lock(&pvmap_pool.lock);
	for (i = 0; i < PVMAP_POOL_WINDOWS; i++)
		if (test_bit(i, &pvmap_pool.busy))
			seq_printf(s, "%lx %u pool\n",
				   pvmap_window_va(&pvmap_pool.window, i * PVMAP_POOL_WINDOW_PAGES),
				   pvmap_pool.npages[i]);
	spin_unlock(&pvmap_pool.lock);
	mutex_lock(&pvmap_large_lock);
	list_for_each_entry(lm, &pvmap_large_list, link)
		seq_printf(s, "%lx %u large\n", lm->window.va, lm->window.npages);
	mutex_unlock(&pvmap_large_lock);
	spin_lock(&pvmap_whole_lock);
	list_for_each_entry(m, &pvmap_whole_list, link)
		seq_printf(s, "%lx %llu whole\n", (unsigned long)m->whole, m->size >> PAGE_SHIFT);
	spin_unlock(&pvmap_whole_lock);
}

/*
 * The windows whose PTEs pvmap owns, live or not, as "VA NPAGES KIND"
 * lines: each CPU's atomic slots and the sleepable pool (large sleepable
 * maps are in pvmap/live while they exist). For tests that read across them.
 */
void pvmap_windows_show(struct seq_file *s)
{
	const struct pvmap_window *w;
	int cpu;

	for_each_possible_cpu(cpu) {
		w = pvmap_slots_window(cpu);
		seq_printf(s, "%lx %u slots-cpu%d\n", w->va, w->npages, cpu);
	}
	seq_printf(s, "%lx %u pool\n", pvmap_pool.window.va, pvmap_pool.window.npages);
}

static bool pvmap_window_has(const struct pvmap_window *w, unsigned long va)
{
	return va - w->va < (unsigned long)w->npages * PAGE_SIZE;
}

/*
 * Whether @va is in a window pvmap keeps while it is loaded (each CPU's
 * slots, the pool): its pages map apertures or nothing, never memory of
 * another kernel user, so a test may read there what it did not map.
 */
bool pvmap_windows_own(unsigned long va)
{
	int cpu;

	if (pvmap_window_has(&pvmap_pool.window, va))
		return true;
	for_each_possible_cpu(cpu)
		if (pvmap_window_has(pvmap_slots_window(cpu), va))
			return true;
	return false;
}
EXPORT_SYMBOL_FOR_PVMAP_TESTS(pvmap_windows_own);

/*
 * The load-time reasons for the slot core's slow path (pvmap_internal.h),
 * as counted at load: each given back at unload.
 */
static unsigned int pvmap_slow_reasons;

int pvmap_io_mapping_init(void)
{
	unsigned int i;
	int ret;

#ifdef CONFIG_64BIT
	pvmap_io_mapping_whole = !hygiene;
#endif
	pvmap_counters = alloc_percpu(struct pvmap_counters);
	if (!pvmap_counters)
		return -ENOMEM;
	ret = pvmap_slots_init(!pvmap_io_mapping_whole);
	if (ret)
		goto err_counters;
	spin_lock_init(&pvmap_pool.lock);
	ret = pvmap_window_create(&pvmap_pool.window,
				  PVMAP_POOL_WINDOWS * PVMAP_POOL_WINDOW_PAGES);
	if (ret)
		goto err_slots;
	pvmap_slow_reasons = pvmap_backend_active() +
			     (IS_ENABLED(CONFIG_XEN_PV) && xen_pv_domain());
	for (i = 0; i < pvmap_slow_reasons; i++)
		static_branch_inc(&pvmap_slots_slow);
	return 0;

err_slots:
	pvmap_slots_exit();
err_counters:
	free_percpu(pvmap_counters);
	return ret;
}

void pvmap_io_mapping_exit(void)
{
	unsigned int i;

	for (i = 0; i < pvmap_slow_reasons; i++)
		static_branch_dec(&pvmap_slots_slow);
	pvmap_window_destroy(&pvmap_pool.window);
	pvmap_slots_exit();
	free_percpu(pvmap_counters);
}
