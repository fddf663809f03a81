// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap_selftest: in-kernel tests of pvmap's io_mapping API, used as another
 * guest driver would use it. The guest's test program drives it through
 * debugfs, one test per request, and prints the results as KTAP:
 *
 *   write "TEST BASE SIZE" to /sys/kernel/debug/pvmap_selftest/run,
 *   then read the same open file: "ok ...", "skip ..." or "fail ...".
 *
 * The tests write to the aperture at BASE (the ivshmem BAR), so they must
 * not be run on an aperture whose contents matter.
 */

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/cpu.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/io-mapping.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/pgtable.h>
#include <linux/preempt.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include <asm/memtype.h>

#include <pvmap/io_mapping.h>
#include <uapi/pvmap_pattern.h>

#include "pvmap_pte.h"

#define RESULT_LEN	256

static bool shared;
module_param(shared, bool, 0444);
MODULE_PARM_DESC(shared,
		 "other tasks map at the same time (soak): a released slot or pool window may be someone else's again, so do not assert that it faults");

struct selftest_ctx {
	struct pvmap_io_mapping *m;
	resource_size_t base;
	u64 size;
	bool slots;	/* maps go through slots with clear-on-unmap */
	u8 *buf;	/* a page, allocated before any atomic map */
	char *result;
};

#define result(ctx, fmt, ...) \
	snprintf((ctx)->result, RESULT_LEN, fmt, ##__VA_ARGS__)

/* A random page-aligned offset with room for @npages pages. */
static u64 random_page_offset(struct selftest_ctx *ctx, unsigned int npages)
{
	u32 pages = (ctx->size >> PAGE_SHIFT) - npages + 1;

	return (u64)(get_random_u32() % pages) << PAGE_SHIFT;
}

/* True when a read of @vaddr faults, as every released slot must. */
static bool faults(void __iomem *vaddr)
{
	u32 val;

	return get_kernel_nofault(val, (u32 __force *)vaddr) == -EFAULT;
}

/* Write the pattern for [@offset, +@len) of the aperture through @vaddr. */
static void write_pattern(struct selftest_ctx *ctx, void __iomem *vaddr, u64 offset,
			  size_t len, u64 seed)
{
	size_t done;

	for (done = 0; done < len; done += PAGE_SIZE) {
		pvmap_pattern_fill(ctx->buf, PAGE_SIZE, seed, offset + done);
		memcpy_toio(vaddr + done, ctx->buf, PAGE_SIZE);
	}
}

/* Check the pattern through fresh single-page maps, independent of the writer's. */
static int check_pages(struct selftest_ctx *ctx, u64 offset, size_t len, u64 seed)
{
	size_t done;

	for (done = 0; done < len; done += PAGE_SIZE) {
		void __iomem *p = pvmap_io_mapping_map_atomic_wc(ctx->m, offset + done);

		if (!p)
			return -ENOMEM;
		memcpy_fromio(ctx->buf, p, PAGE_SIZE);
		pvmap_io_mapping_unmap_atomic(p);
		if (pvmap_pattern_check(ctx->buf, PAGE_SIZE, seed, offset + done) != PAGE_SIZE)
			return -EIO;
	}
	return 0;
}

static int test_nested(struct selftest_ctx *ctx)
{
	u64 base = random_page_offset(ctx, PVMAP_MAX_DEPTH);
	void __iomem *vaddr[PVMAP_MAX_DEPTH];
	int depth, i, bad = 0;

	/* Distinct pages, mapped in a scrambled order of offsets. */
	for (depth = 0; depth < PVMAP_MAX_DEPTH; depth++) {
		u64 offset = base + (u64)((depth * 7) % PVMAP_MAX_DEPTH) * PAGE_SIZE;

		vaddr[depth] = pvmap_io_mapping_map_atomic_wc(ctx->m, offset);
		if (!vaddr[depth])
			break;
		writel(0x5a000000 | depth, vaddr[depth]);
	}
	/* All live at once: each slot still holds its own page's value. */
	for (i = 0; i < depth; i++)
		bad += readl(vaddr[i]) != (0x5a000000 | i);
	for (i = depth - 1; i >= 0; i--)
		pvmap_io_mapping_unmap_atomic(vaddr[i]);
	if (depth < PVMAP_MAX_DEPTH)
		return result(ctx, "fail: map %d of %d returned NULL", depth + 1,
			      PVMAP_MAX_DEPTH);
	if (bad)
		return result(ctx, "fail: %d of %d nested maps read back wrong", bad, depth);
	for (i = 0; ctx->slots && i < depth; i++)
		if (!faults(vaddr[i]))
			return result(ctx, "fail: nested map %d still reachable after unmap", i);
	return result(ctx, "ok %d nested maps", depth);
}

static int test_range(struct selftest_ctx *ctx, unsigned int npages)
{
	u64 offset = random_page_offset(ctx, npages), seed = get_random_u64();
	size_t len = (size_t)npages << PAGE_SHIFT;
	void __iomem *vaddr;
	unsigned int i;
	int ret;

	vaddr = pvmap_io_mapping_map_atomic_range_wc(ctx->m, offset, npages);
	if (!vaddr)
		return result(ctx, "fail: range map of %u pages returned NULL", npages);
	write_pattern(ctx, vaddr, offset, len, seed);
	pvmap_io_mapping_unmap_atomic_range(vaddr, npages);
	ret = check_pages(ctx, offset, len, seed);
	if (ret)
		return result(ctx, "fail: %u-page range at %#llx: %d", npages, offset, ret);
	for (i = 0; ctx->slots && i < npages; i++)
		if (!faults(vaddr + i * PAGE_SIZE))
			return result(ctx, "fail: page %u of the range reachable after unmap", i);
	return result(ctx, "ok %u pages at %#llx", npages, offset);
}

static int test_stale(struct selftest_ctx *ctx)
{
	void __iomem *vaddr;
	u32 val;

	if (!ctx->slots)
		return result(ctx, "skip whole-aperture mapping: no clear-on-unmap by design");
	vaddr = pvmap_io_mapping_map_atomic_wc(ctx->m, random_page_offset(ctx, 1));
	if (!vaddr)
		return result(ctx, "fail: map returned NULL");
	if (get_kernel_nofault(val, (u32 __force *)vaddr)) {
		pvmap_io_mapping_unmap_atomic(vaddr);
		return result(ctx, "fail: a live map faulted");
	}
	pvmap_io_mapping_unmap_atomic(vaddr);
	if (!faults(vaddr))
		return result(ctx, "fail: the slot is reachable after unmap");
	return result(ctx, "ok a live map reads, the released slot faults");
}

static int test_sleepable(struct selftest_ctx *ctx, size_t len)
{
	u64 offset = random_page_offset(ctx, len >> PAGE_SHIFT), seed = get_random_u64();
	void __iomem *vaddr;
	int ret;

	vaddr = pvmap_io_mapping_map_wc(ctx->m, offset, len);
	if (!vaddr)
		return result(ctx, "fail: map_wc of %zu bytes returned NULL", len);
	/* Sleeping while holding the map is what distinguishes it. */
	usleep_range(1000, 2000);
	write_pattern(ctx, vaddr, offset, len, seed);
	pvmap_io_mapping_unmap(vaddr);
	ret = check_pages(ctx, offset, len, seed);
	if (ret)
		return result(ctx, "fail: %zu bytes at %#llx: %d", len, offset, ret);
	if (ctx->slots && len <= PVMAP_POOL_WINDOW_SIZE && !faults(vaddr))
		return result(ctx, "fail: the pool window is reachable after unmap");
	return result(ctx, "ok %zu bytes at %#llx", len, offset);
}

/* Preemption and page-fault nesting of this task, as a map or unmap leaves them. */
struct atomic_state {
	int preempt;
	int pagefault;
};

static struct atomic_state atomic_state(void)
{
	return (struct atomic_state){ preempt_count(), current->pagefault_disabled };
}

/*
 * After a misused call: the state must be @want (@depth levels of maps
 * above @base); count it in *@bad otherwise, with the first case named.
 * Without PREEMPT_COUNT (a PREEMPT_NONE kernel without atomic-sleep
 * debugging) preempt_disable() counts nothing: only page faults nest there.
 */
static void expect_state(struct selftest_ctx *ctx, struct atomic_state base, int depth,
			 const char *what, int *bad)
{
	int preempt = base.preempt + (IS_ENABLED(CONFIG_PREEMPT_COUNT) ? depth : 0);
	struct atomic_state now = atomic_state();

	if (now.preempt == preempt && now.pagefault == base.pagefault + depth)
		return;
	if (!(*bad)++)
		result(ctx, "fail: after %s: preempt_count %d, pagefaults disabled %d; want %d, %d",
		       what, now.preempt, now.pagefault, preempt, base.pagefault + depth);
}

/*
 * Each misuse must give one WARN, and leave preemption and page faults as
 * the calls the caller made should have: a refused map as if it had never
 * been made, a misused unmap as the unmap of the map it names; nothing may
 * clear a PTE another live map uses, and the engine must keep working.
 * Returns the number of WARNs it provoked in "warns=N".
 */
/* One run of test_misuse: its cases add the WARNs they provoke and what misbehaved. */
struct misuse_run {
	struct selftest_ctx *ctx;
	struct atomic_state base;
	bool through_slots;
	int warns, bad;
};

static void misuse_expect(struct misuse_run *t, int depth, const char *what)
{
	expect_state(t->ctx, t->base, depth, what, &t->bad);
}

static void misuse_unbalanced(struct misuse_run *t)
{
	pvmap_io_mapping_unmap_atomic((void __iomem *)PAGE_SIZE);	/* unbalanced */
	t->warns++;
	misuse_expect(t, 0, "an unbalanced unmap");
	pvmap_io_mapping_unmap((void __iomem *)PAGE_SIZE);	/* never mapped */
	t->warns++;
}

/* A pool window unmapped twice: the second is refused, the pool intact. */
static void misuse_pool_double_unmap(struct misuse_run *t)
{
	void __iomem *a, *maps[PVMAP_POOL_WINDOWS];
	int i;

	a = pvmap_io_mapping_map_wc(t->ctx->m, 0, PAGE_SIZE);
	if (a && t->ctx->slots) {
		pvmap_io_mapping_unmap(a);
		pvmap_io_mapping_unmap(a);
		t->warns++;
	} else if (a) {
		pvmap_io_mapping_unmap(a);	/* whole-aperture mapping: nothing to refuse */
	}
	for (i = 0; i < PVMAP_POOL_WINDOWS; i++)
		maps[i] = pvmap_io_mapping_map_wc(t->ctx->m, (u64)i * PAGE_SIZE, PAGE_SIZE);
	for (i = 0; i < PVMAP_POOL_WINDOWS; i++) {
		t->bad += !maps[i];
		if (maps[i])
			pvmap_io_mapping_unmap(maps[i]);
	}
}

/* Unmaps of the wrong address, out of order, twice, with the wrong size, through slots. */
static void misuse_slot_unmaps(struct misuse_run *t, void __iomem *a, void __iomem *b)
{
	/* An address no live map returned: nothing changes. */
	pvmap_io_mapping_unmap_atomic((void __iomem *)PAGE_SIZE);
	t->warns++;
	misuse_expect(t, 2, "an unmap of an unknown address");
	/* Out of order: a gives back its state, but stays mapped under b. */
	pvmap_io_mapping_unmap_atomic(a);
	t->warns++;
	misuse_expect(t, 1, "an out-of-order unmap");
	writel(1, b);
	writel(2, a);
	t->bad += readl(b) != 1 || readl(a) != 2;
	/* a again: already released, so refused without a change */
	pvmap_io_mapping_unmap_atomic(a);
	t->warns++;
	misuse_expect(t, 1, "a second unmap of a released map");
	/* The wrong npages: b is released whole, and a with it. */
	pvmap_io_mapping_unmap_atomic_range(b, 2);
	t->warns++;
	misuse_expect(t, 0, "an unmap with the wrong size");
	t->bad += t->ctx->slots && (!faults(a) || !faults(b));
}

/*
 * Whole-aperture maps are addresses, as mainline's: an unmap gives back
 * one map's state whichever it names, and only one with none of this
 * task's live is refused.
 */
static void misuse_whole_unmaps(struct misuse_run *t, void __iomem *a, void __iomem *b)
{
	pvmap_io_mapping_unmap_atomic(a);
	misuse_expect(t, 1, "an out-of-order whole-aperture unmap");
	pvmap_io_mapping_unmap_atomic(b);
	misuse_expect(t, 0, "the last whole-aperture unmap");
	pvmap_io_mapping_unmap_atomic(b);
	t->warns++;
	misuse_expect(t, 0, "an unbalanced whole-aperture unmap");
}

static void misuse_unmaps(struct misuse_run *t)
{
	void __iomem *a = pvmap_io_mapping_map_atomic_wc(t->ctx->m, 0);
	void __iomem *b = pvmap_io_mapping_map_atomic_wc(t->ctx->m, PAGE_SIZE);

	if (a && b && t->through_slots) {
		misuse_slot_unmaps(t, a, b);
	} else if (a && b) {
		misuse_whole_unmaps(t, a, b);
	} else {
		t->bad++;
		if (b)
			pvmap_io_mapping_unmap_atomic(b);
		if (a)
			pvmap_io_mapping_unmap_atomic(a);
	}
}

/* Maps outside the aperture or of no pages: refused, nothing changed. */
static void misuse_refused_maps(struct misuse_run *t)
{
	struct pvmap_io_mapping *m = t->ctx->m;
	u64 end = t->ctx->size;

	t->bad += !!pvmap_io_mapping_map_atomic_wc(m, end);
	t->bad += !!pvmap_io_mapping_map_atomic_range_wc(m, end - PAGE_SIZE, 2);
	t->bad += !!pvmap_io_mapping_map_atomic_range_wc(m, 0, 0);
	t->bad += !!pvmap_io_mapping_map_atomic_range_wc(m, 0, PVMAP_SLOTS_PER_CPU + 1);
	t->bad += !!pvmap_io_mapping_map_atomic_wc(m, U64_MAX);
	t->warns += 5;
	misuse_expect(t, 0, "refused maps");
	t->bad += !!pvmap_io_mapping_map_wc(m, end - PAGE_SIZE, 2 * PAGE_SIZE);
	t->warns++;
}

/* One past the documented depth and slots (whole-aperture maps have none). */
static void misuse_past_limits(struct misuse_run *t)
{
	void __iomem *a, *maps[PVMAP_MAX_DEPTH];
	int i;

	if (t->through_slots) {
		for (i = 0; i < PVMAP_MAX_DEPTH; i++)
			maps[i] = pvmap_io_mapping_map_atomic_wc(t->ctx->m, (u64)i << PAGE_SHIFT);
		t->bad += !!pvmap_io_mapping_map_atomic_wc(t->ctx->m, 0);
		t->warns++;
		misuse_expect(t, PVMAP_MAX_DEPTH, "a map past the depth");
		for (i = PVMAP_MAX_DEPTH - 1; i >= 0; i--)
			if (maps[i])
				pvmap_io_mapping_unmap_atomic(maps[i]);
			else
				t->bad++;
	}
	if (t->ctx->slots) {
		a = pvmap_io_mapping_map_atomic_range_wc(t->ctx->m, 0, PVMAP_SLOTS_PER_CPU);
		t->bad += !a;
		t->bad += !!pvmap_io_mapping_map_atomic_wc(t->ctx->m, 0);
		t->warns++;
		misuse_expect(t, 1, "a map past the free slots");
		if (a)
			pvmap_io_mapping_unmap_atomic_range(a, PVMAP_SLOTS_PER_CPU);
	}
}

/* Still works, and nothing is left mapped. */
static void misuse_still_works(struct misuse_run *t)
{
	void __iomem *a = pvmap_io_mapping_map_atomic_wc(t->ctx->m, 0);

	if (a) {
		writel(3, a);
		t->bad += readl(a) != 3;
		pvmap_io_mapping_unmap_atomic(a);
		t->bad += t->ctx->slots && !faults(a);
	} else {
		t->bad++;
	}
	misuse_expect(t, 0, "the whole test");
}

/* The cases, in order: each starts and ends with no map of this test's live. */
static void (*const misuse_cases[])(struct misuse_run *t) = {
	misuse_unbalanced, misuse_pool_double_unmap, misuse_unmaps, misuse_refused_maps,
	misuse_past_limits, misuse_still_works,
};

static int test_misuse(struct selftest_ctx *ctx)
{
	struct misuse_run t = {
		.ctx = ctx, .base = atomic_state(),
		.through_slots = pvmap_io_mapping_clears_on_unmap(ctx->m),
	};
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(misuse_cases); i++)
		misuse_cases[i](&t);
	n = strlen(ctx->result);
	if (t.bad && !strncmp(ctx->result, "fail", 4))
		return snprintf(ctx->result + n, RESULT_LEN - n, " (%d) warns=%d", t.bad, t.warns);
	if (t.bad)
		return result(ctx, "fail: %d misuse cases misbehaved warns=%d", t.bad, t.warns);
	return result(ctx, "ok warns=%d preempt_count=%d restored after every refused call",
		      t.warns, t.base.preempt);
}

/*
 * The hazard demonstration, in two steps with the host acting in between:
 * map page A, write, unmap, and remember the pointer; later, write through
 * that pointer again. With pvmap's clear-on-unmap the second write faults.
 * With this module's hazard_demo=1 the map is made the way io_mapping was
 * before clear-on-unmap (the seed patch's iounmap_atomic() comment): its
 * unmap forgets the map but leaves the PTE and the TLB entry, so the write
 * lands in whatever page A has become. That engine is built here, on
 * pvmap's PTE layer, in a window of this module's own: pvmap.ko has no way
 * to leave a stale mapping behind, and exports that layer only when built
 * with CONFIG_PVMAP_TEST_HOOKS (see selftest_has_pte_layer()).
 */
static bool hazard_demo;
module_param(hazard_demo, bool, 0400);
MODULE_PARM_DESC(hazard_demo,
		 "DANGEROUS, for demonstrations only: hazard_map's unmap leaves the PTE and TLB entry in place, as io_mapping did before clear-on-unmap");

/*
 * pvmap exports its PTE layer (pvmap_pte.h) only in a test build; built
 * against the DKMS package's pvmap this module loads all the same, the
 * engines that need the layer refuse, and the compiler drops their calls.
 */
static __always_inline bool selftest_has_pte_layer(void)
{
	return IS_ENABLED(CONFIG_PVMAP_TEST_HOOKS);
}

static void __iomem *hazard_vaddr;
static struct pvmap_window hazard_window;	/* hazard_demo's one-page engine */

/* Map @offset in hazard_window; the "unmap" is to forget the address. */
static void __iomem *hazard_map_without_clear(struct selftest_ctx *ctx, u64 offset)
{
	if (!selftest_has_pte_layer())
		return NULL;
	if (!hazard_window.area && pvmap_window_create(&hazard_window, 1))
		return NULL;
	preempt_disable();
	pvmap_pte_set(&hazard_window, 0, (ctx->base + offset) >> PAGE_SHIFT,
		      pvmap_io_mapping_prot(ctx->m));
	/* what an earlier hazard_map left there */
	pvmap_tlb_flush_local(&hazard_window, 0);
	preempt_enable();
	return (void __iomem *)pvmap_window_va(&hazard_window, 0);
}

static void hazard_window_destroy(void)
{
	if (!selftest_has_pte_layer() || !hazard_window.area)
		return;
	pvmap_pte_clear(&hazard_window, 0);
	pvmap_tlb_flush_all_cpus(&hazard_window, 0, 1);
	pvmap_window_destroy(&hazard_window);
}

static int test_hazard_map(struct selftest_ctx *ctx)
{
	static const char data[] = "guest data in page A";
	u64 offset = random_page_offset(ctx, 1);
	void __iomem *vaddr;

	if (hazard_demo) {
		vaddr = hazard_map_without_clear(ctx, offset);
		if (!vaddr)
			return result(ctx, "fail: no hazard window");
		memcpy_toio(vaddr, data, sizeof(data));
	} else {
		vaddr = pvmap_io_mapping_map_atomic_wc(ctx->m, offset);
		if (!vaddr)
			return result(ctx, "fail: map returned NULL");
		memcpy_toio(vaddr, data, sizeof(data));
		pvmap_io_mapping_unmap_atomic(vaddr);
	}
	hazard_vaddr = vaddr;
	/* The address is what the host auditor will find, if anything. */
	return result(ctx, "ok va=%lx off=%llx", (unsigned long)vaddr, offset);
}

#define STALE_MSG	"STALE WRITE through a pointer the guest had unmapped!!!!!"

/*
 * Store STALE_MSG's whole words at @dst, stopping at a fault: true when
 * they all landed. copy_to_kernel_nofault() is not exported in 6.1.
 */
static bool store_stale_msg(void __iomem *dst)
{
	u64 *p = (u64 __force *)dst;
	unsigned int i;

	pagefault_disable();
	for (i = 0; i < (sizeof(STALE_MSG) - 1) / sizeof(u64); i++) {
		u64 word;

		memcpy(&word, STALE_MSG + i * sizeof(u64), sizeof(word));
		__put_kernel_nofault(p + i, &word, u64, faulted);
	}
	pagefault_enable();
	return true;
faulted:
	pagefault_enable();
	return false;
}

static int test_hazard_write(struct selftest_ctx *ctx)
{
	if (!hazard_vaddr)
		return result(ctx, "fail: no hazard_map before");
	return result(ctx, "ok %s", store_stale_msg(hazard_vaddr) ? "landed" : "faulted");
}

/*
 * The host's pattern and the guest's, through mainline's io_mapping
 * (<linux/io-mapping.h>): a path independent of pvmap's engine (and of
 * sysfs resource mmaps, which IO_STRICT_DEVMEM refuses while pvmap holds
 * the BAR). Not ioremap_wc() of the pages: 6.1's ioremap truncates a
 * physical address above 4 GiB on i386 PAE. Each page is flushed from this
 * CPU's TLB once mapped, because on i386 without HIGHMEM mainline's
 * kunmap_local does not flush, and a stale entry would read another page.
 *   mainline_check BASE SIZE OFF LEN SEED  ->  "ok" or "fail ... at OFF"
 *   mainline_fill BASE SIZE OFF LEN SEED   ->  "ok"
 */
static int test_mainline_pattern(struct selftest_ctx *ctx, u64 offset, u64 len, u64 seed,
				 bool fill)
{
	u64 start = offset & PAGE_MASK, done, bad = len;
	struct io_mapping mainline;

	if (!len || offset >= ctx->size || len > ctx->size - offset || len > SZ_1M)
		return result(ctx, "fail: range %#llx+%#llx outside the aperture or over 1 MiB",
			      offset, len);
	/* Just the pages concerned: io_mapping's size is an unsigned long. */
	if (!io_mapping_init_wc(&mainline, ctx->base + start, PAGE_ALIGN(offset + len) - start))
		return result(ctx, "fail: io_mapping_init_wc");
	for (done = 0; done < len; ) {
		u64 pos = offset + done;
		size_t n = min_t(u64, len - done, PAGE_SIZE - offset_in_page(pos));
		void __iomem *page = io_mapping_map_local_wc(&mainline,
							     (pos & PAGE_MASK) - start);
		u64 at = n;

		__flush_tlb_one_user((unsigned long)page);
		if (fill) {
			pvmap_pattern_fill(ctx->buf, n, seed, pos);
			memcpy_toio(page + offset_in_page(pos), ctx->buf, n);
		} else {
			memcpy_fromio(ctx->buf, page + offset_in_page(pos), n);
			at = pvmap_pattern_check(ctx->buf, n, seed, pos);
		}
		io_mapping_unmap_local(page);
		if (at != n) {
			bad = done + at;
			break;
		}
		done += n;
	}
	io_mapping_fini(&mainline);
	if (bad != len)
		return result(ctx, "fail: pattern differs at aperture offset %#llx", offset + bad);
	return result(ctx, "ok %llu bytes at %#llx", len, offset);
}

/*
 * The memory type pvmap's PTEs grant, read back from the page tables.
 *   memtype_hold BASE SIZE  ->  checks an atomic slot's PTE, then holds a
 *	sleepable map until memtype_release (so the host can audit it) and
 *	answers "ok slot=wc held=wc pat=on" or "fail ..."
 *   memtype_query BASE SIZE ->  "held va=VA pa=PA mode=MODE level=4k|large"
 *   memtype_release BASE SIZE
 */
static DECLARE_COMPLETION(memtype_released);
static DEFINE_MUTEX(memtype_lock);	/* protects memtype_held */
static struct {
	unsigned long va;
	phys_addr_t pa;
	const char *mode;
	bool large;
} memtype_held;

/*
 * The name of the cache mode that @prot's PWT/PCD/PAT bits select under the
 * kernel's PAT table. Without PAT the kernel gives WC requests UC-'s bits,
 * so UC- is tried first: the answer is what the hardware does, not what was
 * asked. (pgprot2cachemode() is not exported; cachemode2protval() is inline.)
 */
static const char *memtype_name(pgprot_t prot)
{
	static const struct {
		enum page_cache_mode pcm;
		const char *name;
	} modes[] = {
		{ _PAGE_CACHE_MODE_UC_MINUS, "uc-" }, { _PAGE_CACHE_MODE_UC, "uc" },
		{ _PAGE_CACHE_MODE_WB, "wb" }, { _PAGE_CACHE_MODE_WT, "wt" },
		{ _PAGE_CACHE_MODE_WC, "wc" }, { _PAGE_CACHE_MODE_WP, "wp" },
	};
	unsigned long bits = pgprot_val(prot) & _PAGE_CACHE_MASK;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(modes); i++)
		if (cachemode2protval(modes[i].pcm) == bits)
			return modes[i].name;
	return "?";
}

/* The cache mode of the kernel PTE that maps @vaddr, or NULL when none. */
static const char *memtype_of(void __iomem *vaddr, bool *large)
{
	unsigned int level;
	pte_t *ptep = lookup_address((unsigned long)vaddr, &level);
	pgprot_t prot;

	if (!ptep || !pte_present(*ptep))
		return NULL;
	prot = __pgprot(pte_flags(*ptep));
	*large = level != PG_LEVEL_4K;
	if (*large)
		prot = pgprot_large_2_4k(prot);
	return memtype_name(prot);
}

static int test_memtype_hold(struct selftest_ctx *ctx)
{
	u64 offset = random_page_offset(ctx, 1);
	const char *slot, *held;
	void __iomem *vaddr;
	bool large;

	vaddr = pvmap_io_mapping_map_atomic_wc(ctx->m, offset);
	if (!vaddr)
		return result(ctx, "fail: atomic map returned NULL");
	slot = memtype_of(vaddr, &large);
	pvmap_io_mapping_unmap_atomic(vaddr);

	vaddr = pvmap_io_mapping_map_wc(ctx->m, offset, PAGE_SIZE);
	if (!vaddr)
		return result(ctx, "fail: map_wc returned NULL");
	held = memtype_of(vaddr, &large);
	mutex_lock(&memtype_lock);
	memtype_held.va = (unsigned long)vaddr;
	memtype_held.pa = ctx->base + offset;
	memtype_held.mode = held ? held : "none";
	memtype_held.large = large;
	reinit_completion(&memtype_released);
	mutex_unlock(&memtype_lock);

	if (!wait_for_completion_timeout(&memtype_released, 120 * HZ))
		pr_warn("pvmap_selftest: memtype_hold: no release in 120 s\n");

	mutex_lock(&memtype_lock);
	memtype_held.va = 0;
	mutex_unlock(&memtype_lock);
	pvmap_io_mapping_unmap(vaddr);
	if (!slot || !held)
		return result(ctx, "fail: no PTE behind a live map (slot %s, held %s)",
			      slot ?: "none", held ?: "none");
	return result(ctx, "%s slot=%s held=%s pat=%s",
		      strcmp(slot, "wc") || strcmp(held, "wc") ? "fail" : "ok", slot, held,
		      pat_enabled() ? "on" : "off");
}

static int test_memtype_query(struct selftest_ctx *ctx)
{
	int ret;

	mutex_lock(&memtype_lock);
	if (memtype_held.va)
		ret = result(ctx, "held va=%lx pa=%llx mode=%s level=%s", memtype_held.va,
			     (unsigned long long)memtype_held.pa, memtype_held.mode,
			     memtype_held.large ? "large" : "4k");
	else
		ret = result(ctx, "none");
	mutex_unlock(&memtype_lock);
	return ret;
}

/*
 * pvmap_io_mapping_create_wc() over an aperture part of which another
 * driver already holds uncached (a UC- ioremap() of a register page):
 * the kernel grants the whole range UC-, and every PTE pvmap writes must
 * carry UC-, never WC over it; or create_wc fails with an error. Run with
 * pvmap unbound from the aperture: its own WC reservation would be found
 * first. The io_mapping here is the test's own (ctx->m is NULL).
 *   memtype_conflict BASE SIZE
 *	->  "ok refused: ERR", "ok granted=uc- slot=uc- pool=uc- large=uc-",
 *	    "skip ..." or "fail ..."
 */
static int test_memtype_conflict(struct selftest_ctx *ctx)
{
	const char *granted, *slot = "none", *pool = "none", *large = "none", *reg;
	struct pvmap_io_mapping *m;
	void __iomem *regs, *vaddr;
	bool big, wc;
	int ret;

	if (!pat_enabled())
		return result(ctx, "skip no PAT: every WC request is UC- anyway");
	if (!IS_ENABLED(CONFIG_64BIT) && upper_32_bits(ctx->base + ctx->size - 1))
		/* 6.1's ioremap() truncates such an address on i386 */
		return result(ctx, "skip no UC- ioremap() above 4 GiB on i386");
	regs = ioremap(ctx->base + ctx->size / 2, PAGE_SIZE);
	if (!regs)
		return result(ctx, "fail: ioremap of the register page");
	reg = memtype_of(regs, &big);
	if (!reg || strcmp(reg, "uc-")) {
		iounmap(regs);
		return result(ctx, "fail: the register page got %s, not uc- (pvmap bound?)",
			      reg ?: "nothing");
	}
	m = pvmap_io_mapping_create_wc(ctx->base, ctx->size);
	if (IS_ERR(m)) {
		iounmap(regs);
		return result(ctx, "ok refused: %ld", PTR_ERR(m));
	}
	granted = memtype_name(pvmap_io_mapping_prot(m));
	vaddr = pvmap_io_mapping_map_atomic_wc(m, 0);
	if (vaddr) {
		slot = memtype_of(vaddr, &big) ?: "none";
		pvmap_io_mapping_unmap_atomic(vaddr);
	}
	vaddr = pvmap_io_mapping_map_wc(m, PAGE_SIZE, PAGE_SIZE);
	if (vaddr) {
		pool = memtype_of(vaddr, &big) ?: "none";
		pvmap_io_mapping_unmap(vaddr);
	}
	vaddr = pvmap_io_mapping_map_wc(m, 0, SZ_1M);
	if (vaddr) {
		large = memtype_of(vaddr, &big) ?: "none";
		pvmap_io_mapping_unmap(vaddr);
	}
	wc = pvmap_io_mapping_is_wc(m);
	ret = strcmp(granted, "uc-") || strcmp(slot, "uc-") || strcmp(pool, "uc-") ||
	      strcmp(large, "uc-") || wc;
	pvmap_io_mapping_free(m);
	iounmap(regs);
	return result(ctx, "%s granted=%s slot=%s pool=%s large=%s is_wc=%d", ret ? "fail" : "ok",
		      granted, slot, pool, large, wc);
}

/*
 * The same UC- register page, held across commands, so that pvmap can be
 * bound over it (memtype_conflict's second half).
 *   uc_hold BASE SIZE     ->  "ok uc-" or "fail ..."
 *   uc_release BASE SIZE  ->  "ok"
 */
static DEFINE_MUTEX(uc_held_lock);	/* protects uc_held */
static void __iomem *uc_held;

static int test_uc_hold(struct selftest_ctx *ctx)
{
	const char *type;
	bool big;
	int ret;

	mutex_lock(&uc_held_lock);
	if (!uc_held)
		uc_held = ioremap(ctx->base + ctx->size / 2, PAGE_SIZE);
	type = uc_held ? memtype_of(uc_held, &big) : NULL;
	ret = result(ctx, "%s %s", type && !strcmp(type, "uc-") ? "ok" : "fail", type ?: "none");
	mutex_unlock(&uc_held_lock);
	return ret;
}

static void uc_release(void)
{
	mutex_lock(&uc_held_lock);
	if (uc_held)
		iounmap(uc_held);
	uc_held = NULL;
	mutex_unlock(&uc_held_lock);
}

/*
 * One sleepable map held across commands, for sleepable_reuse_no_stale: the
 * test maps and reads it from one process, probes it from others and from
 * each CPU, and releases it from yet another. Its io_mapping is its own.
 *   pool_hold BASE SIZE OFF  ->  "ok va=VA val=V" (the first u32 of the page)
 *   pool_release BASE SIZE   ->  "ok stale=N": every CPU reads the window
 *	(and caches its translation) right before the unmap; N of them can
 *	still read it right after
 *   probe BASE SIZE VA CPU   ->  "ok faults" or "ok reads V": a read of VA on
 *	CPU, in an IPI, so in whatever address space that CPU has loaded: no
 *	switch flushes its TLB first
 */
static DEFINE_MUTEX(pool_held_lock);	/* protects pool_held */
static struct {
	struct pvmap_io_mapping *m;
	void __iomem *va;
} pool_held;

static int test_pool_hold(struct selftest_ctx *ctx, u64 offset)
{
	int ret;

	if (offset >= ctx->size)
		return result(ctx, "fail: offset %#llx outside the aperture", offset);
	mutex_lock(&pool_held_lock);
	if (pool_held.va) {
		ret = result(ctx, "fail: a map is held already");
		goto out;
	}
	pool_held.m = pvmap_io_mapping_create_wc(ctx->base, ctx->size);
	if (IS_ERR(pool_held.m)) {
		ret = result(ctx, "fail: create_wc: %ld", PTR_ERR(pool_held.m));
		pool_held.m = NULL;
		goto out;
	}
	pool_held.va = pvmap_io_mapping_map_wc(pool_held.m, offset, PAGE_SIZE);
	if (!pool_held.va) {
		pvmap_io_mapping_free(pool_held.m);
		pool_held.m = NULL;
		ret = result(ctx, "fail: map_wc returned NULL");
		goto out;
	}
	ret = result(ctx, "ok va=%lx val=%x", (unsigned long)pool_held.va, readl(pool_held.va));
out:
	mutex_unlock(&pool_held_lock);
	return ret;
}

struct probe {
	unsigned long va;
	u32 val;
	int ret;
};

static void probe_here(void *arg)
{
	struct probe *p = arg;

	p->ret = get_kernel_nofault(p->val, (u32 *)p->va);
}

/* Release the held map; the CPUs that can still read it right after. */
static unsigned int pool_release(void)
{
	struct probe p = { 0 };
	unsigned int cpu, stale = 0;

	mutex_lock(&pool_held_lock);
	if (pool_held.va) {
		p.va = (unsigned long)pool_held.va;
		on_each_cpu(probe_here, &p, 1);
		pvmap_io_mapping_unmap(pool_held.va);
		for_each_online_cpu(cpu)
			stale += !smp_call_function_single(cpu, probe_here, &p, 1) && !p.ret;
		pvmap_io_mapping_free(pool_held.m);
		pool_held.va = NULL;
		pool_held.m = NULL;
	}
	mutex_unlock(&pool_held_lock);
	return stale;
}

static int test_probe(struct selftest_ctx *ctx, unsigned long va, unsigned int cpu)
{
	struct probe p = { .va = va };

	/* pvmap's windows are vmalloc space: no other kernel address is read */
	if (!is_vmalloc_addr((void *)va))
		return result(ctx, "fail: %#lx is not a vmalloc address", va);

	if (cpu >= nr_cpu_ids || !cpu_online(cpu) ||
	    smp_call_function_single(cpu, probe_here, &p, 1))
		return result(ctx, "fail: CPU %u is not online", cpu);
	if (p.ret)
		return result(ctx, "ok faults");
	return result(ctx, "ok reads %x", p.val);
}

/* What this kernel has of the facilities the suite relies on, as "ok LIST". */
static int test_facilities(struct selftest_ctx *ctx)
{
	/* Page-table levels in use: 2 or 3 (PAE) on i386, 4 or 5 (LA57) on x86_64. */
	int levels = IS_ENABLED(CONFIG_X86_64) ? (pgtable_l5_enabled() ? 5 : 4) :
		     CONFIG_PGTABLE_LEVELS;
	int n;

	n = scnprintf(ctx->result, RESULT_LEN, "ok kmemleak=%d lockdep=%d debug_pagealloc=%d ",
		      IS_ENABLED(CONFIG_DEBUG_KMEMLEAK), IS_ENABLED(CONFIG_LOCKDEP),
		      debug_pagealloc_enabled());
	n += scnprintf(ctx->result + n, RESULT_LEN - n, "debug_kmap_local=%d ",
		       IS_ENABLED(CONFIG_DEBUG_KMAP_LOCAL));
	n += scnprintf(ctx->result + n, RESULT_LEN - n, "debug_atomic_sleep=%d ",
		       IS_ENABLED(CONFIG_DEBUG_ATOMIC_SLEEP));
	return n + scnprintf(ctx->result + n, RESULT_LEN - n, "pti=%d pat=%d highmem=%d paging=%d",
			     boot_cpu_has(X86_FEATURE_PTI), pat_enabled(),
			     IS_ENABLED(CONFIG_HIGHMEM), levels);
}

/*
 * Atomic maps from interrupt context, as a driver's interrupt handler or
 * tasklet makes them, while tasks map on the same CPUs: on every online
 * CPU an hrtimer fires every IRQ_LOAD_PERIOD_NS (hardirq) and schedules a
 * tasklet (softirq). Each maps one page of the region [@offset, +@npages
 * pages), which holds the pattern @seed: reads 64 bytes back and compares,
 * writes them again, unmaps. A slot mixed up with a task's shows as bytes
 * read wrong here or as bytes written into the task's pages (the host
 * checks both regions). The rates are each CPU's maps per second, the
 * lowest of the CPUs; a late timer skips the periods it missed.
 *   irq_load BASE SIZE OFF NPAGES MSECS SEED
 *	->  "ok hardirq=N softirq=M wrong=W refused=R cpus=C hardirq_hz=H
 *	    softirq_hz=S" (R of the W: maps that returned NULL)
 *	    or "fail ..."
 */
#define IRQ_LOAD_BYTES		64
#define IRQ_LOAD_PERIOD_NS	(500 * NSEC_PER_USEC)	/* 2 kHz asked, >= 1 kHz wanted */

struct irq_load_cpu {
	struct hrtimer timer;
	struct tasklet_struct tasklet;
	struct irq_load *load;
	unsigned int index;	/* this CPU's share of the region */
	unsigned long hard, soft, wrong, refused, next;
};

struct irq_load {
	struct pvmap_io_mapping *m;
	u64 offset, seed;
	unsigned int pages_per_context;
	bool stop;
	struct irq_load_cpu *cpus;	/* nr_cpu_ids of them */
};

static void irq_load_map(struct irq_load_cpu *c, bool hard)
{
	struct irq_load *load = c->load;
	unsigned long n = c->next++;
	unsigned int page = (c->index * 2 + hard) * load->pages_per_context +
			    n % load->pages_per_context;
	u64 off = load->offset + ((u64)page << PAGE_SHIFT) +
		  (n * IRQ_LOAD_BYTES) % PAGE_SIZE;
	u8 want[IRQ_LOAD_BYTES], got[IRQ_LOAD_BYTES];
	void __iomem *vaddr;

	vaddr = pvmap_io_mapping_map_atomic_wc(load->m, off);
	if (!vaddr) {
		c->wrong++;
		c->refused++;
		return;
	}
	pvmap_pattern_fill(want, sizeof(want), load->seed, off);
	memcpy_fromio(got, vaddr, sizeof(got));
	c->wrong += memcmp(got, want, sizeof(want)) != 0;
	memcpy_toio(vaddr, want, sizeof(want));
	pvmap_io_mapping_unmap_atomic(vaddr);
}

static void irq_load_tasklet(struct tasklet_struct *t)
{
	struct irq_load_cpu *c = from_tasklet(c, t, tasklet);

	irq_load_map(c, false);
	c->soft++;
}

static enum hrtimer_restart irq_load_timer(struct hrtimer *t)
{
	struct irq_load_cpu *c = container_of(t, struct irq_load_cpu, timer);

	irq_load_map(c, true);
	c->hard++;
	tasklet_schedule(&c->tasklet);
	if (READ_ONCE(c->load->stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(IRQ_LOAD_PERIOD_NS));
	return HRTIMER_RESTART;
}

/* On the CPU itself: a pinned timer fires where it was started. */
static void irq_load_start(void *arg)
{
	struct irq_load_cpu *c = arg;

	hrtimer_start(&c->timer, ns_to_ktime(IRQ_LOAD_PERIOD_NS), HRTIMER_MODE_REL_PINNED);
}

static int test_irq_load(struct selftest_ctx *ctx, u64 offset, u64 npages, u64 msecs,
			 u64 seed)
{
	struct irq_load load = { .m = ctx->m, .offset = offset, .seed = seed };
	unsigned long hard = 0, soft = 0, wrong = 0, refused = 0;
	unsigned long min_hard = ULONG_MAX, min_soft = ULONG_MAX;
	unsigned int cpu, ncpus = 0;
	u64 t0, ns;

	if (!npages || offset >= ctx->size || npages > (ctx->size - offset) >> PAGE_SHIFT ||
	    !msecs || msecs > 60000)
		return result(ctx, "fail: bad irq_load arguments");
	load.pages_per_context = div_u64(npages, 2 * num_online_cpus());
	if (!load.pages_per_context)
		return result(ctx, "fail: %llu pages for %u CPUs", npages, num_online_cpus());
	load.cpus = kcalloc(nr_cpu_ids, sizeof(*load.cpus), GFP_KERNEL);
	if (!load.cpus)
		return result(ctx, "fail: out of memory");

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct irq_load_cpu *c = &load.cpus[cpu];

		c->load = &load;
		c->index = ncpus++;
		hrtimer_init(&c->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
		c->timer.function = irq_load_timer;
		tasklet_setup(&c->tasklet, irq_load_tasklet);
		smp_call_function_single(cpu, irq_load_start, c, 1);
	}
	t0 = ktime_get_ns();
	msleep(msecs);
	WRITE_ONCE(load.stop, true);
	ns = ktime_get_ns() - t0;
	for_each_online_cpu(cpu) {
		struct irq_load_cpu *c = &load.cpus[cpu];

		if (!c->load)
			continue;
		hrtimer_cancel(&c->timer);
		tasklet_kill(&c->tasklet);
		hard += c->hard;
		soft += c->soft;
		wrong += c->wrong;
		refused += c->refused;
		min_hard = min(min_hard, c->hard);
		min_soft = min(min_soft, c->soft);
	}
	cpus_read_unlock();
	kfree(load.cpus);
	return result(ctx,
		      "%s hardirq=%lu softirq=%lu wrong=%lu refused=%lu cpus=%u %s=%llu %s=%llu",
		      wrong ? "fail" : "ok", hard, soft, wrong, refused, ncpus,
		      "hardirq_hz", div64_u64((u64)min_hard * NSEC_PER_SEC, ns),
		      "softirq_hz", div64_u64((u64)min_soft * NSEC_PER_SEC, ns));
}

/*
 * Benchmarks, side by side on the same aperture and offsets:
 *   bench BASE SIZE ENGINE WORKLOAD ITERS SEED  ->  "ok ns=N bytes=B ops=O"
 * ENGINE: pvmap (atomic, one page per map), pvmap_range (atomic range maps
 * of up to 16 pages), mainline_local and mainline_atomic (<linux/io-mapping.h>,
 * which on i386 is __iomap_local_pfn_prot), ioremap (ioremap_wc + iounmap
 * per map, and the lazy purge its iounmaps left, at the end of the timing),
 * permanent (one ioremap_wc of a BENCH_WINDOW done before timing),
 * pte_floor (the least a clear-on-unmap map can do: one PTE of a window
 * of its own set, the page written, the PTE cleared and its TLB entry
 * flushed, with preemption off; pvmap's PTE layer, no slot, no counter).
 * WORKLOAD: page (map, write 4 KiB, unmap), range16 (64 KiB through 16
 * pages), seq1m (1 MiB in order), rand4k (4 KiB at pseudo-random pages of
 * the whole aperture; of the window for permanent), overhead (see
 * test_bench_overhead()).
 *
 * Every pass writes a pattern of its own: the page at aperture offset O
 * gets pvmap_pattern bytes (SEED, O mod 64 KiB), from a 16-page source
 * filled before the clock starts, so the host can check where each page
 * landed (tools/host/pvmaplib/benchcheck.py computes the same offsets).
 *
 *   bench_stale BASE SIZE ENGINE COUNT  ->  "ok probes=N usable=U"
 * COUNT single-page map, write, unmap through ENGINE, each followed by a
 * read of the old address with the nofault accessor: U of them still had
 * a usable translation (the read did not fault).
 */
#define BENCH_WINDOW	(64UL << 20)	/* fits i386's vmalloc space */
#define BENCH_CHUNK	16
#define BENCH_PERIOD	(BENCH_CHUNK * PAGE_SIZE)

enum bench_engine {
	BENCH_PVMAP, BENCH_PVMAP_RANGE, BENCH_MAINLINE_LOCAL, BENCH_MAINLINE_ATOMIC,
	BENCH_IOREMAP, BENCH_PERMANENT, BENCH_PTE_FLOOR,
};

static const char *const bench_engines[] = {
	[BENCH_PVMAP] = "pvmap", [BENCH_PVMAP_RANGE] = "pvmap_range",
	[BENCH_MAINLINE_LOCAL] = "mainline_local", [BENCH_MAINLINE_ATOMIC] = "mainline_atomic",
	[BENCH_IOREMAP] = "ioremap", [BENCH_PERMANENT] = "permanent",
	[BENCH_PTE_FLOOR] = "pte_floor",
};

struct bench {
	struct selftest_ctx *ctx;
	struct io_mapping mainline;
	void __iomem *window;
	struct pvmap_window floor;
	pgprot_t floor_prot;
	u8 *src;
	enum bench_engine engine;
};

/* The source of the page at aperture offset @offset (page-aligned). */
static const u8 *bench_src(const struct bench *b, u64 offset)
{
	return b->src + ((u32)offset & (BENCH_PERIOD - PAGE_SIZE));
}

/* The @i-th page of a walk over @pages pages: a stride, not a neighbour. */
static u64 spread_page_offset(u32 pages, unsigned int i)
{
	return (u64)((i * 7919U) % pages) << PAGE_SHIFT;
}

/*
 * Map one page at @offset through the engine; NULL if it cannot. Inline,
 * like bench_unmap_page(): under TCG every call and return of the bench's
 * own costs a block lookup, which each per-page engine would pay on top of
 * its own work, pulling every overhead ratio towards 1.
 */
static __always_inline void __iomem *bench_map_page(struct bench *b, u64 offset)
{
	switch (b->engine) {
	case BENCH_PVMAP:
		return pvmap_io_mapping_map_atomic_wc(b->ctx->m, offset);
	case BENCH_PVMAP_RANGE:
		return pvmap_io_mapping_map_atomic_range_wc(b->ctx->m, offset, 1);
	case BENCH_MAINLINE_LOCAL:
		return io_mapping_map_local_wc(&b->mainline, offset);
	case BENCH_MAINLINE_ATOMIC:
		return io_mapping_map_atomic_wc(&b->mainline, offset);
	case BENCH_IOREMAP:
		return ioremap_wc(b->ctx->base + offset, PAGE_SIZE);
	case BENCH_PTE_FLOOR:
		if (!selftest_has_pte_layer())
			return NULL;
		preempt_disable();
		pvmap_pte_set(&b->floor, 0, (b->ctx->base + offset) >> PAGE_SHIFT, b->floor_prot);
		return (void __iomem *)pvmap_window_va(&b->floor, 0);
	default:
		return NULL;
	}
}

static __always_inline void bench_unmap_page(struct bench *b, void __iomem *p)
{
	switch (b->engine) {
	case BENCH_PVMAP:
		pvmap_io_mapping_unmap_atomic(p);
		break;
	case BENCH_PVMAP_RANGE:
		pvmap_io_mapping_unmap_atomic_range(p, 1);
		break;
	case BENCH_MAINLINE_LOCAL:
		io_mapping_unmap_local(p);
		break;
	case BENCH_MAINLINE_ATOMIC:
		io_mapping_unmap_atomic(p);
		break;
	case BENCH_IOREMAP:
		iounmap(p);
		break;
	case BENCH_PTE_FLOOR:
		if (!selftest_has_pte_layer())
			break;
		pvmap_pte_clear(&b->floor, 0);
		pvmap_tlb_flush_local(&b->floor, 0);
		preempt_enable();
		break;
	default:
		break;
	}
}

/* Write @npages pages at page-aligned @offset through the engine. */
static int bench_write(struct bench *b, u64 offset, unsigned int npages)
{
	unsigned int i;
	void __iomem *p;

	if (b->engine == BENCH_PVMAP_RANGE) {
		p = pvmap_io_mapping_map_atomic_range_wc(b->ctx->m, offset, npages);
		if (!p)
			return -ENOMEM;
		memcpy_toio(p, bench_src(b, offset), npages * PAGE_SIZE);
		pvmap_io_mapping_unmap_atomic_range(p, npages);
		return 0;
	}
	if (b->engine == BENCH_PERMANENT) {
		memcpy_toio(b->window + offset, bench_src(b, offset), npages * PAGE_SIZE);
		return 0;
	}
	for (i = 0; i < npages; i++, offset += PAGE_SIZE) {
		p = bench_map_page(b, offset);
		if (!p)
			return -ENOMEM;
		memcpy_toio(p, bench_src(b, offset), PAGE_SIZE);
		bench_unmap_page(b, p);
	}
	return 0;
}

/* xorshift32: rand4k's page sequence, the same on every CPU and on the host. */
static u32 bench_next(u32 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

/* 6.1's ioremap truncates a physical address above 4 GiB on i386 PAE. */
static bool bench_ioremap_wrong_page(const struct selftest_ctx *ctx, const char *engine)
{
	return !strcmp(engine, "ioremap") && ctx->base + ctx->size > (1ULL << 32) &&
	       !IS_ENABLED(CONFIG_64BIT);
}

static int bench_setup(struct bench *b, struct selftest_ctx *ctx, const char *engine,
		       u64 seed)
{
	int e = match_string(bench_engines, ARRAY_SIZE(bench_engines), engine);

	if (e < 0)
		return -EINVAL;
	*b = (struct bench){ .ctx = ctx, .engine = e };
	b->src = kmalloc(BENCH_PERIOD, GFP_KERNEL);
	if (!b->src)
		return -ENOMEM;
	pvmap_pattern_fill(b->src, BENCH_PERIOD, seed, 0);
	if ((e == BENCH_MAINLINE_LOCAL || e == BENCH_MAINLINE_ATOMIC) &&
	    !io_mapping_init_wc(&b->mainline, ctx->base, ctx->size)) {
		kfree(b->src);
		return -ENOMEM;
	}
	if (e == BENCH_PERMANENT) {
		b->window = ioremap_wc(ctx->base, min_t(u64, BENCH_WINDOW, ctx->size));
		if (!b->window) {
			kfree(b->src);
			return -ENOMEM;
		}
	}
	if (e == BENCH_PTE_FLOOR) {
		if (!selftest_has_pte_layer()) {
			kfree(b->src);
			return -EOPNOTSUPP;
		}
		if (pvmap_window_create(&b->floor, 1)) {
			kfree(b->src);
			return -ENOMEM;
		}
		b->floor_prot = pvmap_io_mapping_prot(ctx->m);
	}
	return 0;
}

static void bench_teardown(struct bench *b)
{
	if (b->engine == BENCH_PERMANENT)
		iounmap(b->window);
	if (b->engine == BENCH_MAINLINE_LOCAL || b->engine == BENCH_MAINLINE_ATOMIC)
		io_mapping_fini(&b->mainline);
	/* its one PTE is clear and flushed after every unmap */
	if (selftest_has_pte_layer() && b->engine == BENCH_PTE_FLOOR)
		pvmap_window_destroy(&b->floor);
	kfree(b->src);
}

static int test_bench(struct selftest_ctx *ctx, const char *engine, const char *workload,
		      unsigned int iters, u64 seed)
{
	struct bench b;
	bool permanent = !strcmp(engine, "permanent");
	u64 span = permanent ? min_t(u64, BENCH_WINDOW, ctx->size) : ctx->size;
	/* 32-bit arithmetic for offsets: i386 has no 64-bit modulo in modules */
	u32 pages = span >> PAGE_SHIFT, wpages = min_t(u32, pages, BENCH_WINDOW >> PAGE_SHIFT);
	u32 state = (u32)seed | 1;
	u64 bytes = 0, t0, ns, off;
	unsigned int i, n, ops = 0;
	int ret;

	if (!iters || iters > 100000)
		return result(ctx, "fail: bad iteration count");
	if (bench_ioremap_wrong_page(ctx, engine))
		return result(ctx, "skip ioremap maps the wrong page above 4 GiB on i386 PAE");
	ret = bench_setup(&b, ctx, engine, seed);
	if (ret)
		return result(ctx, "fail: %s: setup: %d", engine, ret);

	/*
	 * No lazy vmap purge left pending by an earlier command (a permanent
	 * window's or a whole-aperture mapping's iounmap) may run during this
	 * one: that cost the first engine measured after them up to 3x.
	 */
	vm_unmap_aliases();
	t0 = ktime_get_ns();
	for (i = 0; i < iters && !ret; i++) {
		if (!strcmp(workload, "page")) {
			off = spread_page_offset(wpages, i);
			ret = bench_write(&b, off, 1);
			bytes += PAGE_SIZE;
			ops++;
		} else if (!strcmp(workload, "range16")) {
			off = (u64)((i * 7919U) % (wpages / BENCH_CHUNK)) * BENCH_CHUNK;
			off <<= PAGE_SHIFT;
			ret = bench_write(&b, off, BENCH_CHUNK);
			bytes += BENCH_CHUNK * PAGE_SIZE;
			ops++;
		} else if (!strcmp(workload, "seq1m")) {
			u64 base = (u64)(i % (wpages >> (20 - PAGE_SHIFT))) << 20;

			for (n = 0; n < 256 && !ret; n += BENCH_CHUNK, ops++)
				ret = bench_write(&b, base + ((u64)n << PAGE_SHIFT), BENCH_CHUNK);
			bytes += 1 << 20;
		} else if (!strcmp(workload, "rand4k")) {
			off = (u64)(bench_next(&state) % pages) << PAGE_SHIFT;
			ret = bench_write(&b, off, 1);
			bytes += PAGE_SIZE;
			ops++;
		} else {
			ret = -EINVAL;
		}
		if (!(i % 64))
			cond_resched();
	}
	/* per-page iounmap defers its TLB flush to a lazy purge: it pays for it here */
	if (b.engine == BENCH_IOREMAP)
		vm_unmap_aliases();
	ns = ktime_get_ns() - t0;
	bench_teardown(&b);
	if (ret)
		return result(ctx, "fail: %s/%s: %d", engine, workload, ret);
	return result(ctx, "ok ns=%llu bytes=%llu ops=%u", ns, bytes, ops);
}

/*
 * The real hazard, no demonstration engine: map page A through ENGINE
 * (pvmap, or mainline_local: <linux/io-mapping.h>'s io_mapping_map_local_wc),
 * write, unmap, then write through the old pointer at once, on the same
 * CPU. On i386 without HIGHMEM mainline's unmap leaves the TLB entry, so
 * the write lands in page A although nothing maps it; the host reads page A.
 *   stale_write BASE SIZE ENGINE  ->  "ok off=OFF va=VA landed|faulted"
 */
static int test_stale_write(struct selftest_ctx *ctx, const char *engine)
{
	static const char data[] = "guest data in page A";
	u64 offset = random_page_offset(ctx, 1);
	void __iomem *vaddr;
	bool landed = false;
	struct bench b;

	if (strcmp(engine, "pvmap") && strcmp(engine, "mainline_local"))
		return result(ctx, "fail: engine %s: pvmap or mainline_local", engine);
	if (bench_setup(&b, ctx, engine, 0))
		return result(ctx, "fail: %s: setup", engine);
	migrate_disable();
	vaddr = bench_map_page(&b, offset);
	if (vaddr) {
		memcpy_toio(vaddr, data, sizeof(data));
		bench_unmap_page(&b, vaddr);
		landed = store_stale_msg(vaddr);
	}
	migrate_enable();
	bench_teardown(&b);
	if (!vaddr)
		return result(ctx, "fail: map returned NULL");
	return result(ctx, "ok off=%llx va=%lx %s", offset, (unsigned long)vaddr,
		      landed ? "landed" : "faulted");
}

/*
 * The mapping overhead, robust to the bursts of a TCG host: blocks of
 * OVH_BLOCK_PAGES page writes through ENGINE and through the permanent
 * window, alternating which goes first, each block timed; the overhead is
 * the median over blocks of (engine - permanent), per page. The permanent
 * window writes the lower half of the first BENCH_WINDOW, the engine the
 * upper half, so the host still checks each engine's own pages.
 *   bench_overhead BASE SIZE ENGINE ITERS SEED
 *     ->  "ok ns=N bytes=B ops=O overhead_ps=D engine_ps=E permanent_ps=P"
 */
#define OVH_BLOCK_PAGES	32
#define OVH_MAX_BLOCKS	128

static int cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

static s64 median_s64(s64 *v, unsigned int n)
{
	sort(v, n, sizeof(*v), cmp_s64, NULL);
	return v[n / 2];
}

static int test_bench_overhead(struct selftest_ctx *ctx, const char *engine, unsigned int iters,
			       u64 seed)
{
	u32 half = (u32)(min_t(u64, BENCH_WINDOW, ctx->size) >> PAGE_SHIFT) / 2;
	unsigned int blocks = min_t(unsigned int, iters / OVH_BLOCK_PAGES, OVH_MAX_BLOCKS);
	s64 *diff, *eng, *perm, total = 0;
	struct bench b, p;
	unsigned int k, j;
	int ret;

	if (blocks < 3)
		return result(ctx, "fail: bad iteration count");
	if (!strcmp(engine, "permanent"))
		return result(ctx, "fail: the permanent window is the reference");
	if (bench_ioremap_wrong_page(ctx, engine))
		return result(ctx, "skip ioremap maps the wrong page above 4 GiB on i386 PAE");
	diff = kmalloc_array(3 * blocks, sizeof(*diff), GFP_KERNEL);
	if (!diff)
		return -ENOMEM;
	eng = diff + blocks;
	perm = eng + blocks;
	ret = bench_setup(&b, ctx, engine, seed);
	if (!ret) {
		ret = bench_setup(&p, ctx, "permanent", seed);
		if (ret)
			bench_teardown(&b);
	}
	if (ret) {
		kfree(diff);
		return result(ctx, "fail: %s: setup: %d", engine, ret);
	}
	vm_unmap_aliases();	/* as in test_bench() */
	for (k = 0; k < blocks && !ret; k++) {
		u64 t[3];
		int first = k & 1;	/* 0: permanent first */

		for (j = 0; j < 2 && !ret; j++) {
			bool engine_now = (j ^ first) == 1;
			unsigned int n;

			t[j] = ktime_get_ns();
			for (n = 0; n < OVH_BLOCK_PAGES && !ret; n++) {
				u32 idx = k * OVH_BLOCK_PAGES + n;
				u64 off = spread_page_offset(half, idx);

				if (engine_now)
					ret = bench_write(&b, off + ((u64)half << PAGE_SHIFT), 1);
				else
					ret = bench_write(&p, off, 1);
			}
		}
		t[2] = ktime_get_ns();
		eng[k] = first ? t[1] - t[0] : t[2] - t[1];
		perm[k] = first ? t[2] - t[1] : t[1] - t[0];
		diff[k] = eng[k] - perm[k];
		total += eng[k];
		cond_resched();
	}
	bench_teardown(&p);
	bench_teardown(&b);
	if (!ret)
		result(ctx, "ok ns=%lld bytes=%llu ops=%u overhead_ps=%lld %s=%lld %s=%lld",
		       total, (u64)blocks * OVH_BLOCK_PAGES * PAGE_SIZE, blocks * OVH_BLOCK_PAGES,
		       div_s64(median_s64(diff, blocks) * 1000, OVH_BLOCK_PAGES),
		       "engine_ps", div_s64(median_s64(eng, blocks) * 1000, OVH_BLOCK_PAGES),
		       "permanent_ps", div_s64(median_s64(perm, blocks) * 1000, OVH_BLOCK_PAGES));
	else
		result(ctx, "fail: %s/overhead: %d", engine, ret);
	kfree(diff);
	return 0;
}

/*
 * How many unmaps leave a usable translation behind: each page is mapped,
 * written (so that its translation is in this CPU's TLB), unmapped, and
 * its old address read with the nofault accessor, before anything else
 * (a per-page iounmap included: its lazy purge has not run yet).
 */
static int test_bench_stale(struct selftest_ctx *ctx, const char *engine, unsigned int count)
{
	u32 pages = min_t(u64, ctx->size, BENCH_WINDOW) >> PAGE_SHIFT;
	unsigned int i, usable = 0, probes = 0;
	struct bench b;
	void __iomem *p;
	int ret;

	if (!count || count > 100000)
		return result(ctx, "fail: bad count");
	if (bench_ioremap_wrong_page(ctx, engine))
		return result(ctx, "skip ioremap maps the wrong page above 4 GiB on i386 PAE");
	ret = bench_setup(&b, ctx, engine, 0);
	if (ret || b.engine == BENCH_PERMANENT) {
		if (!ret)
			bench_teardown(&b);
		return result(ctx, "fail: %s: no single-page map to probe", engine);
	}
	for (i = 0; i < count; i++) {
		u64 off = spread_page_offset(pages, i);

		/* the probe must run where the map did (ioremap sleeps: no preempt_disable) */
		migrate_disable();
		p = bench_map_page(&b, off);
		if (p) {
			writel(i, p);
			bench_unmap_page(&b, p);
			usable += !faults(p);
			probes++;
		}
		migrate_enable();
		if (!(i % 64))
			cond_resched();
	}
	bench_teardown(&b);
	if (probes != count)
		return result(ctx, "fail: %s: %u of %u maps failed", engine, count - probes, count);
	return result(ctx, "ok probes=%u usable=%u", probes, usable);
}

/*
 * Whether mainline's io_mapping flushes what it unmaps. COUNT pages, each
 * tagged first through a map flushed by hand, are read back through ENGINE
 * (mainline_local or mainline_atomic) one after another on this CPU, and
 * each old address is read with the nofault accessor once unmapped. Without
 * the flush (upstream i386 without HIGHMEM: docs/upstream/) the old address
 * stays usable, and the next map, in the same fixmap slot, reaches the page
 * before it. The tags' words are restored afterwards.
 *   io_mapping_flush BASE SIZE ENGINE COUNT
 *     ->  "ok probes=N usable=U misdirected=M"
 */
#define FLUSH_TAG	0x70760000U

static int test_io_mapping_flush(struct selftest_ctx *ctx, const char *engine,
				 unsigned int count)
{
	u32 pages = min_t(u64, ctx->size, BENCH_WINDOW) >> PAGE_SHIFT;
	/* mainline's io_mapping over the probed window: its size is an unsigned long */
	struct selftest_ctx window = { .base = ctx->base, .size = (u64)pages << PAGE_SHIFT };
	unsigned int i, usable = 0, misdirected = 0;
	void __iomem *p;
	struct bench b;
	u32 *saved;

	if (strcmp(engine, "mainline_local") && strcmp(engine, "mainline_atomic"))
		return result(ctx, "fail: engine %s: mainline_local or mainline_atomic", engine);
	if (count > pages || count > 4096)
		return result(ctx, "fail: count %u over %u", count, min_t(u32, pages, 4096));
	saved = kmalloc_array(count, sizeof(*saved), GFP_KERNEL);
	if (!saved)
		return -ENOMEM;
	if (bench_setup(&b, &window, engine, 0)) {
		kfree(saved);
		return result(ctx, "fail: %s: setup", engine);
	}
	/* one CPU throughout: the TLB entries in question are this CPU's */
	migrate_disable();
	for (i = 0; i < count; i++) {
		p = bench_map_page(&b, spread_page_offset(pages, i));
		__flush_tlb_one_user((unsigned long)p);
		saved[i] = readl(p);
		writel(FLUSH_TAG | i, p);
		bench_unmap_page(&b, p);
		__flush_tlb_one_user((unsigned long)p);
	}
	for (i = 0; i < count; i++) {
		p = bench_map_page(&b, spread_page_offset(pages, i));
		misdirected += readl(p) != (FLUSH_TAG | i);
		bench_unmap_page(&b, p);
		usable += !faults(p);
	}
	for (i = 0; i < count; i++) {
		p = bench_map_page(&b, spread_page_offset(pages, i));
		__flush_tlb_one_user((unsigned long)p);
		writel(saved[i], p);
		bench_unmap_page(&b, p);
		__flush_tlb_one_user((unsigned long)p);
	}
	migrate_enable();
	bench_teardown(&b);
	kfree(saved);
	return result(ctx, "ok probes=%u usable=%u misdirected=%u", count, usable, misdirected);
}

/*
 * With a hypervisor channel: requests Xen refuses or adjusts, each alone in
 * its batch on a PTE of this module's own (registered) window, each handled
 * as xen/arch/x86/mm.c's get_page_from_l1e() would:
 * - an aperture frame mapped write-back: accepted, its cache bits made UC
 *   (MMIO is never cacheable for a PV guest);
 * - a frame that is neither the guest's RAM nor its I/O memory: -EPERM;
 * - a flag Xen disallows in an L1 entry (bit 62, _PAGE_GNTTAB of a debug
 *   build): -EINVAL.
 * A refused request writes nothing. The result names the PTE's machine
 * address and each case's value, for the host to find in pvmap-hv's
 * refusals:
 *   "ok ptr=P wb=VAL:ERRNO:PTE outside=VAL:ERRNO:PTE reserved=VAL:ERRNO:PTE"
 */
static struct pvmap_window pv_window;

static int pv_request(pte_t *ptep, u64 val)
{
	int ret;

	if (!selftest_has_pte_layer())
		return -EOPNOTSUPP;
	preempt_disable();	/* a batch belongs to one CPU */
	pvmap_pv_begin();
	pvmap_pv_write(ptep, __pte(val));
	ret = pvmap_pv_end();
	preempt_enable();
	return ret;
}

static int test_pv_refusals(struct selftest_ctx *ctx)
{
	u64 frame = (ctx->base + random_page_offset(ctx, 1)) >> PAGE_SHIFT;
	u64 wb, outside = pte_val(pfn_pte(0xf00000, pvmap_io_mapping_prot(ctx->m)));
	u64 reserved = pte_val(pfn_pte(frame, pvmap_io_mapping_prot(ctx->m))) | BIT_ULL(62);
	int rc_wb, rc_outside, rc_reserved;
	u64 maddr, got_wb, got_outside, got_reserved;
	pte_t *ptep;

	if (!selftest_has_pte_layer())
		return result(ctx, "skip pvmap built without CONFIG_PVMAP_TEST_HOOKS");
	if (!static_branch_unlikely(&pvmap_pv_on))
		return result(ctx, "skip no hypervisor channel");
	wb = pte_val(pfn_pte(frame, pvmap_prot_supported(PAGE_KERNEL)));
	if (!pv_window.area && pvmap_window_create(&pv_window, 1))
		return result(ctx, "fail: no window");
	ptep = pv_window.ptes[0];
	maddr = __pa(ptep);
	rc_wb = pv_request(ptep, wb);
	got_wb = pte_val(*ptep);
	rc_outside = pv_request(ptep, 0);
	rc_outside = rc_outside ?: pv_request(ptep, outside);
	got_outside = pte_val(*ptep);
	rc_reserved = pv_request(ptep, reserved);
	got_reserved = pte_val(*ptep);
	pv_request(ptep, 0);
	pvmap_tlb_flush_all_cpus(&pv_window, 0, 1);
	if (rc_wb || (got_wb & _PAGE_CACHE_MASK) != (_PAGE_PCD | _PAGE_PWT) ||
	    (got_wb ^ wb) & ~(u64)_PAGE_CACHE_MASK & ~(u64)(_PAGE_ACCESSED | _PAGE_DIRTY))
		return result(ctx, "fail: write-back aperture: rc %d, PTE %#llx (asked %#llx)",
			      rc_wb, got_wb, wb);
	if (rc_outside != -EPERM || got_outside)
		return result(ctx, "fail: frame outside the guest: rc %d, PTE %#llx", rc_outside,
			      got_outside);
	if (rc_reserved != -EINVAL || got_reserved)
		return result(ctx, "fail: reserved bit: rc %d, PTE %#llx", rc_reserved,
			      got_reserved);
	/* for the host: the PTE's machine address, then value:errno:PTE after, per case */
	return result(ctx, "ok ptr=%llx %s=%llx:%d:%llx %s=%llx:%d:%llx %s=%llx:%d:%llx",
		      maddr, "wb", wb, rc_wb, got_wb, "outside", outside, rc_outside, got_outside,
		      "reserved", reserved, rc_reserved, got_reserved);
}

/*
 * The hypervisor channel's round trip, PV_PINGS calls of nothing, each
 * timed in the guest (interrupts off):
 *   "ok n=N median_ns=M min_ns=L max_ns=H"
 */
#define PV_PINGS	1001

static int test_pv_ping(struct selftest_ctx *ctx)
{
	s64 *ns;
	int i;

	if (!selftest_has_pte_layer())
		return result(ctx, "skip pvmap built without CONFIG_PVMAP_TEST_HOOKS");
	if (!static_branch_unlikely(&pvmap_pv_on))
		return result(ctx, "skip no hypervisor channel");
	ns = kvmalloc_array(PV_PINGS, sizeof(*ns), GFP_KERNEL);
	if (!ns)
		return result(ctx, "fail: out of memory");
	for (i = 0; i < PV_PINGS; i++) {
		ns[i] = pvmap_pv_ping();
		if (ns[i] < 0) {
			result(ctx, "fail: ping %d: %lld", i, ns[i]);
			kvfree(ns);
			return 0;
		}
		if (!(i % 64))
			cond_resched();
	}
	sort(ns, PV_PINGS, sizeof(*ns), cmp_s64, NULL);
	result(ctx, "ok n=%d median_ns=%lld min_ns=%lld max_ns=%lld", PV_PINGS, ns[PV_PINGS / 2],
	       ns[0], ns[PV_PINGS - 1]);
	kvfree(ns);
	return 0;
}

/* A sleepable map held across calls, for the host to revoke its frame meanwhile. */
static void __iomem *pv_held;

static int test_pv_hold(struct selftest_ctx *ctx)
{
	u64 offset = ctx->size - PAGE_SIZE;

	if (pv_held)
		return result(ctx, "fail: already holding a map");
	pv_held = pvmap_io_mapping_map_wc(ctx->m, offset, PAGE_SIZE);
	if (!pv_held)
		return result(ctx, "fail: map returned NULL");
	writel(0x70766d70, pv_held);
	return result(ctx, "ok va=%lx frame=%llx", (unsigned long)pv_held,
		      (ctx->base + offset) >> PAGE_SHIFT);
}

static int test_pv_release(struct selftest_ctx *ctx)
{
	if (!pv_held)
		return result(ctx, "fail: no map held");
	pvmap_io_mapping_unmap(pv_held);
	pv_held = NULL;
	return result(ctx, "ok");
}

static void pv_release_all(void)
{
	if (pv_held)
		pvmap_io_mapping_unmap(pv_held);
	pv_held = NULL;
	if (selftest_has_pte_layer() && pv_window.area)
		pvmap_window_destroy(&pv_window);
}

static int selftest_run(struct selftest_ctx *ctx, const char *name)
{
	if (!strcmp(name, "pv_refusals"))
		return test_pv_refusals(ctx);
	if (!strcmp(name, "pv_hold"))
		return test_pv_hold(ctx);
	if (!strcmp(name, "pv_ping"))
		return test_pv_ping(ctx);
	if (!strcmp(name, "pv_release"))
		return test_pv_release(ctx);
	if (!strcmp(name, "hazard_map"))
		return test_hazard_map(ctx);
	if (!strcmp(name, "hazard_write"))
		return test_hazard_write(ctx);
	if (!strcmp(name, "nested"))
		return test_nested(ctx);
	if (!strcmp(name, "range1"))
		return test_range(ctx, 1);
	if (!strcmp(name, "range2"))
		return test_range(ctx, 2);
	if (!strcmp(name, "range16"))
		return test_range(ctx, 16);
	if (!strcmp(name, "rangemax"))
		return test_range(ctx, PVMAP_SLOTS_PER_CPU);
	if (!strcmp(name, "stale"))
		return test_stale(ctx);
	if (!strcmp(name, "sleepable4k"))
		return test_sleepable(ctx, PAGE_SIZE);
	if (!strcmp(name, "sleepable64k"))
		return test_sleepable(ctx, PVMAP_POOL_WINDOW_SIZE);
	if (!strcmp(name, "sleepable1m"))
		return test_sleepable(ctx, SZ_1M);
	if (!strcmp(name, "misuse"))
		return test_misuse(ctx);
	if (!strcmp(name, "memtype_hold"))
		return test_memtype_hold(ctx);
	if (!strcmp(name, "memtype_query"))
		return test_memtype_query(ctx);
	if (!strcmp(name, "memtype_release")) {
		complete(&memtype_released);
		return result(ctx, "ok");
	}
	if (!strcmp(name, "facilities"))
		return test_facilities(ctx);
	return result(ctx, "fail: no test named '%s'", name);
}

/* Commands that make their own io_mapping, or none: no ctx->m for them. */
/*
 * Whether [@base, +@size) lies in a memory BAR of a device pvmap has bound,
 * or of one no driver has (memtype_conflict unbinds the aperture first).
 * A command maps what it is given write-combining and writes there: root's
 * debugfs is no reason to reach RAM or another driver's device.
 */
static bool selftest_range_is_aperture(u64 base, u64 size)
{
	struct pci_dev *pdev = NULL;
	int bar;

	if (!size || base + size < base)
		return false;
	for_each_pci_dev(pdev) {
		/* read without the device lock: good enough for a test module */
		const struct device_driver *drv = READ_ONCE(pdev->dev.driver);

		if (drv && strcmp(drv->name, "pvmap"))
			continue;
		for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
			u64 start = pci_resource_start(pdev, bar);
			u64 len = pci_resource_len(pdev, bar);

			if ((pci_resource_flags(pdev, bar) & IORESOURCE_MEM) && len &&
			    base >= start && size <= len && base - start <= len - size) {
				pci_dev_put(pdev);
				return true;
			}
		}
	}
	return false;
}

static int selftest_run_unmapped(struct selftest_ctx *ctx, const char *name,
				 const unsigned long long *arg)
{
	if (!strcmp(name, "memtype_conflict"))
		return test_memtype_conflict(ctx);
	if (!strcmp(name, "pool_hold"))
		return test_pool_hold(ctx, arg[0]);
	if (!strcmp(name, "pool_release"))
		return result(ctx, "ok stale=%u", pool_release());
	if (!strcmp(name, "probe"))
		return test_probe(ctx, arg[0], arg[1]);
	if (!strcmp(name, "uc_hold"))
		return test_uc_hold(ctx);
	if (!strcmp(name, "uc_release")) {
		uc_release();
		return result(ctx, "ok");
	}
	return -ENOENT;
}

static ssize_t selftest_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	struct selftest_ctx ctx = { .result = file->private_data };
	char cmd[160], name[32], engine[16] = "", workload[16] = "";
	unsigned long long base, size, seed = 0, arg[4] = { 0 };
	unsigned int iters = 0;
	int n;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	n = sscanf(cmd, "%31s %llx %llx %15s %15s %u %llx", name, &base, &size, engine, workload,
		   &iters, &seed);
	if (n < 3 || (!strcmp(name, "bench") && n != 7))
		return -EINVAL;
	if (!strcmp(name, "stale_write") && sscanf(cmd, "%*s %*x %*x %15s", engine) != 1)
		return -EINVAL;
	if ((!strcmp(name, "bench_stale") || !strcmp(name, "io_mapping_flush")) &&
	    (sscanf(cmd, "%*s %*x %*x %15s %u", engine, &iters) != 2 || iters == 0))
		return -EINVAL;
	if (!strncmp(name, "mainline_", 9) &&
	    sscanf(cmd, "%*s %*x %*x %llx %llx %llx", &arg[0], &arg[1], &arg[2]) != 3)
		return -EINVAL;
	if (!strcmp(name, "irq_load") &&
	    sscanf(cmd, "%*s %*x %*x %llx %llx %llx %llx", &arg[0], &arg[1], &arg[2],
		   &arg[3]) != 4)
		return -EINVAL;
	if (!strcmp(name, "pool_hold") && sscanf(cmd, "%*s %*x %*x %llx", &arg[0]) != 1)
		return -EINVAL;
	if (!strcmp(name, "probe") &&
	    sscanf(cmd, "%*s %*x %*x %llx %llx", &arg[0], &arg[1]) != 2)
		return -EINVAL;

	/* the commands that map nothing of BASE SIZE take any */
	if (strcmp(name, "probe") && strcmp(name, "pool_release") && strcmp(name, "uc_release") &&
	    !selftest_range_is_aperture(base, size))
		return -EPERM;
	ctx.buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!ctx.buf)
		return -ENOMEM;
	ctx.base = base;
	ctx.size = size;
	if (selftest_run_unmapped(&ctx, name, arg) != -ENOENT) {
		kfree(ctx.buf);
		return len;
	}
	ctx.m = pvmap_io_mapping_create_wc(base, size);
	if (IS_ERR(ctx.m)) {
		result(&ctx, "fail: create_wc: %ld", PTR_ERR(ctx.m));
	} else {
		ctx.slots = pvmap_io_mapping_clears_on_unmap(ctx.m) && !shared;
		if (!strcmp(name, "bench") && !strcmp(workload, "overhead"))
			test_bench_overhead(&ctx, engine, iters, seed);
		else if (!strcmp(name, "bench"))
			test_bench(&ctx, engine, workload, iters, seed);
		else if (!strcmp(name, "bench_stale"))
			test_bench_stale(&ctx, engine, iters);
		else if (!strcmp(name, "io_mapping_flush"))
			test_io_mapping_flush(&ctx, engine, iters);
		else if (!strcmp(name, "stale_write"))
			test_stale_write(&ctx, engine);
		else if (!strcmp(name, "irq_load"))
			test_irq_load(&ctx, arg[0], arg[1], arg[2], arg[3]);
		else if (!strcmp(name, "mainline_check") || !strcmp(name, "mainline_fill"))
			test_mainline_pattern(&ctx, arg[0], arg[1], arg[2],
					      !strcmp(name, "mainline_fill"));
		else
			selftest_run(&ctx, name);
		pvmap_io_mapping_free(ctx.m);
	}
	kfree(ctx.buf);
	return len;
}

static ssize_t selftest_read(struct file *file, char __user *ubuf, size_t len,
			     loff_t *ppos)
{
	const char *res = file->private_data;

	return simple_read_from_buffer(ubuf, len, ppos, res, strnlen(res, RESULT_LEN));
}

static int selftest_open(struct inode *inode, struct file *file)
{
	file->private_data = kzalloc(RESULT_LEN, GFP_KERNEL);
	return file->private_data ? 0 : -ENOMEM;
}

static int selftest_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static const struct file_operations selftest_fops = {
	.owner = THIS_MODULE,
	.open = selftest_open,
	.release = selftest_release,
	.read = selftest_read,
	.write = selftest_write,
	.llseek = default_llseek,
};

static struct dentry *selftest_dir;

static int __init selftest_init(void)
{
	if (hazard_demo && !selftest_has_pte_layer()) {
		pr_err("pvmap_selftest: hazard_demo needs pvmap built with CONFIG_PVMAP_TEST_HOOKS\n");
		return -EOPNOTSUPP;
	}
	if (hazard_demo)
		pr_warn("pvmap_selftest: HAZARD DEMO MODE: hazard_map leaves stale mappings behind\n");
	selftest_dir = debugfs_create_dir("pvmap_selftest", NULL);
	debugfs_create_file("run", 0600, selftest_dir, NULL, &selftest_fops);
	return 0;
}
module_init(selftest_init);

static void __exit selftest_exit(void)
{
	debugfs_remove_recursive(selftest_dir);
	pool_release();
	uc_release();
	hazard_window_destroy();
	pv_release_all();
}
module_exit(selftest_exit);

MODULE_DESCRIPTION("pvmap: in-kernel tests of the io_mapping API");
#if IS_ENABLED(CONFIG_PVMAP_TEST_HOOKS)
MODULE_IMPORT_NS(PVMAP_TEST_HOOKS);
#endif
MODULE_LICENSE("GPL");
