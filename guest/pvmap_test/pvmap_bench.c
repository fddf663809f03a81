// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap_bench: pvmap's io_mapping engines measured against mainline's, a
 * permanent mapping and the least a clear-on-unmap map can do, through
 * ioctls on debugfs pvmap_bench (include/uapi/pvmap_test.h), for the
 * guest's pvmap-bench and the tests that probe mainline's flushes. It maps
 * what pvmap_test.ko lets it (pvmap_test_ctx_init()) and writes there.
 */

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/io-mapping.h>
#include <linux/io.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include <uapi/pvmap_pattern.h>

#include "pvmap_test.h"

/*
 * Benchmarks, side by side on the same aperture and offsets
 * (PVMAP_BENCH_RUN, include/uapi/pvmap_test.h). ENGINE: pvmap (atomic,
 * one page per map), pvmap_range (atomic range maps of up to 16 pages),
 * pvmap_local (pvmap_io_mapping_map_local_wc(): mainline_local's semantics,
 * preemptible where the kernel has preempt notifiers, an atomic map where
 * not; INFO's PVMAP_INFO_F_LOCAL_PREEMPTIBLE says which),
 * mainline_local and mainline_atomic (<linux/io-mapping.h>, which on i386
 * is __iomap_local_pfn_prot), ioremap (ioremap_wc + iounmap
 * per map, and the lazy purge its iounmaps left, at the end of the timing),
 * permanent (one ioremap_wc of a BENCH_WINDOW done before timing),
 * pte_floor (the least a clear-on-unmap map can do: one PTE of a window
 * of its own set, the page written, the PTE cleared and its TLB entry
 * flushed, with preemption off; pvmap's PTE layer, no slot, no counter),
 * pte_bare (pte_floor written as the slot core's fast path writes it:
 * pvmap_window_map_direct() and pvmap_window_clear_direct(), the bare PTE
 * write and invlpg instead of the kernel's paravirt primitives; skipped
 * where the fast path never runs, under a backend or Xen PV).
 * WORKLOAD: page (map, write 4 KiB, unmap), range16 (64 KiB through 16
 * pages), seq1m (1 MiB in order), rand4k (4 KiB at pseudo-random pages of
 * the whole aperture; of the window for permanent), overhead (see
 * bench_overhead()).
 *
 * Every pass writes a pattern of its own: the page at aperture offset O
 * gets pvmap_pattern bytes (SEED, O mod 64 KiB), from a 16-page source
 * filled before the clock starts, so the host can check where each page
 * landed (tools/host/pvmaplib/benchcheck.py computes the same offsets).
 */
#define BENCH_WINDOW	(64UL << 20)	/* fits i386's vmalloc space */
#define BENCH_CHUNK	16
#define BENCH_PERIOD	(BENCH_CHUNK * PAGE_SIZE)

struct bench {
	struct pvmap_test_ctx *ctx;
	struct io_mapping mainline;
	void __iomem *window;
	struct pvmap_window floor;
	pgprot_t floor_prot;
	u8 *src;
	enum pvmap_bench_engine engine;
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
 * Map one page at @offset through @engine; NULL if it cannot. Inline, like
 * bench_unmap_as(): under TCG every call and return of the bench's own
 * costs a block lookup, which each per-page engine would pay on top of its
 * own work, pulling every overhead ratio towards 1.
 */
static __always_inline void __iomem *bench_map_as(struct bench *b, u32 engine, u64 offset)
{
	switch (engine) {
	case PVMAP_BENCH_PVMAP:
		return pvmap_io_mapping_map_atomic_wc(b->ctx->m, offset);
	case PVMAP_BENCH_PVMAP_RANGE:
		return pvmap_io_mapping_map_atomic_range_wc(b->ctx->m, offset, 1);
	case PVMAP_BENCH_PVMAP_LOCAL:
		return pvmap_io_mapping_map_local_wc(b->ctx->m, offset);
	case PVMAP_BENCH_MAINLINE_LOCAL:
		return io_mapping_map_local_wc(&b->mainline, offset);
	case PVMAP_BENCH_MAINLINE_ATOMIC:
		return io_mapping_map_atomic_wc(&b->mainline, offset);
	case PVMAP_BENCH_IOREMAP:
		return ioremap_wc(b->ctx->base + offset, PAGE_SIZE);
	case PVMAP_BENCH_PTE_FLOOR:
		if (!pvmap_test_has_pte_layer())
			return NULL;
		preempt_disable();
		pvmap_pte_set(&b->floor, 0, (b->ctx->base + offset) >> PAGE_SHIFT, b->floor_prot);
		return (void __iomem *)pvmap_window_va(&b->floor, 0);
	case PVMAP_BENCH_PTE_BARE:
		if (!pvmap_test_has_pte_layer())
			return NULL;
		preempt_disable();
		pvmap_window_map_direct(&b->floor, 0, (b->ctx->base + offset) >> PAGE_SHIFT, 1,
					b->floor_prot);
		return (void __iomem *)pvmap_window_va(&b->floor, 0);
	default:
		return NULL;
	}
}

static __always_inline void bench_unmap_as(struct bench *b, u32 engine, void __iomem *p)
{
	switch (engine) {
	case PVMAP_BENCH_PVMAP:
		pvmap_io_mapping_unmap_atomic(p);
		break;
	case PVMAP_BENCH_PVMAP_RANGE:
		pvmap_io_mapping_unmap_atomic_range(p, 1);
		break;
	case PVMAP_BENCH_PVMAP_LOCAL:
		pvmap_io_mapping_unmap_local(p);
		break;
	case PVMAP_BENCH_MAINLINE_LOCAL:
		io_mapping_unmap_local(p);
		break;
	case PVMAP_BENCH_MAINLINE_ATOMIC:
		io_mapping_unmap_atomic(p);
		break;
	case PVMAP_BENCH_IOREMAP:
		iounmap(p);
		break;
	case PVMAP_BENCH_PTE_FLOOR:
		if (!pvmap_test_has_pte_layer())
			break;
		pvmap_pte_clear(&b->floor, 0);
		pvmap_tlb_flush_local(&b->floor, 0);
		preempt_enable();
		break;
	case PVMAP_BENCH_PTE_BARE:
		if (!pvmap_test_has_pte_layer())
			break;
		pvmap_window_clear_direct(&b->floor, 0, 1);
		preempt_enable();
		break;
	default:
		break;
	}
}

static __always_inline void __iomem *bench_map_page(struct bench *b, u64 offset)
{
	return bench_map_as(b, b->engine, offset);
}

static __always_inline void bench_unmap_page(struct bench *b, void __iomem *p)
{
	bench_unmap_as(b, b->engine, p);
}

/* Write @npages pages at page-aligned @offset through the engine. */
static int bench_write(struct bench *b, u64 offset, unsigned int npages)
{
	unsigned int i;
	void __iomem *p;

	if (b->engine == PVMAP_BENCH_PVMAP_RANGE) {
		p = pvmap_io_mapping_map_atomic_range_wc(b->ctx->m, offset, npages);
		if (!p)
			return -ENOMEM;
		memcpy_toio(p, bench_src(b, offset), npages * PAGE_SIZE);
		pvmap_io_mapping_unmap_atomic_range(p, npages);
		return 0;
	}
	if (b->engine == PVMAP_BENCH_PERMANENT) {
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
static bool bench_ioremap_wrong_page(const struct pvmap_test_ctx *ctx, u32 engine)
{
	return engine == PVMAP_BENCH_IOREMAP && ctx->base + ctx->size > (1ULL << 32) &&
	       !IS_ENABLED(CONFIG_64BIT);
}

/* pte_floor and pte_bare: a window of their own, of one page. */
static bool bench_floor_engine(u32 engine)
{
	return engine == PVMAP_BENCH_PTE_FLOOR || engine == PVMAP_BENCH_PTE_BARE;
}

/*
 * pte_bare's bare writes are the slot core's fast path, which never runs
 * while a backend takes the PTEs or under Xen PV, where the page tables are
 * the hypervisor's (pvmap_io_mapping_init()): there it has nothing to show.
 * The backend's key is pvmap's only in a test build, where pte_bare runs at
 * all (bench_setup()): against the DKMS package's pvmap nothing refers to it.
 */
static bool bench_bare_unfit(u32 engine)
{
	return engine == PVMAP_BENCH_PTE_BARE && pvmap_test_has_pte_layer() &&
	       (pvmap_backend_active() || (IS_ENABLED(CONFIG_XEN_PV) && xen_pv_domain()));
}

static int bench_setup(struct bench *b, struct pvmap_test_ctx *ctx, u32 engine, u64 seed)
{
	if (engine >= PVMAP_BENCH_ENGINES)
		return -EINVAL;
	if (bench_floor_engine(engine) && !pvmap_test_has_pte_layer())
		return -EOPNOTSUPP;
	if (bench_bare_unfit(engine))
		return -EOPNOTSUPP;
	*b = (struct bench){ .ctx = ctx, .engine = engine };
	b->src = kmalloc(BENCH_PERIOD, GFP_KERNEL);
	if (!b->src)
		return -ENOMEM;
	pvmap_pattern_fill(b->src, BENCH_PERIOD, seed, 0);
	if ((engine == PVMAP_BENCH_MAINLINE_LOCAL || engine == PVMAP_BENCH_MAINLINE_ATOMIC) &&
	    !io_mapping_init_wc(&b->mainline, ctx->base, ctx->size))
		goto nomem;
	if (engine == PVMAP_BENCH_PERMANENT) {
		b->window = ioremap_wc(ctx->base, min_t(u64, BENCH_WINDOW, ctx->size));
		if (!b->window)
			goto nomem;
	}
	if (bench_floor_engine(engine)) {
		if (pvmap_window_create(&b->floor, 1))
			goto nomem;
		b->floor_prot = pvmap_io_mapping_prot(ctx->m);
	}
	return 0;
nomem:
	kfree(b->src);
	return -ENOMEM;
}

static void bench_teardown(struct bench *b)
{
	if (b->engine == PVMAP_BENCH_PERMANENT)
		iounmap(b->window);
	if (b->engine == PVMAP_BENCH_MAINLINE_LOCAL || b->engine == PVMAP_BENCH_MAINLINE_ATOMIC)
		io_mapping_fini(&b->mainline);
	/* its one PTE is clear and flushed after every unmap */
	if (pvmap_test_has_pte_layer() && bench_floor_engine(b->engine))
		pvmap_window_destroy(&b->floor);
	kfree(b->src);
}

/* The @i-th pass of @workload: its bytes in *@bytes, its writes in *@ops. */
static int bench_pass(struct bench *b, u32 workload, unsigned int i, u32 pages, u32 wpages,
		      u32 *state, u64 *bytes, u32 *ops)
{
	unsigned int n;
	u64 off;
	int ret = 0;

	switch (workload) {
	case PVMAP_BENCH_PAGE:
		*bytes += PAGE_SIZE;
		(*ops)++;
		return bench_write(b, spread_page_offset(wpages, i), 1);
	case PVMAP_BENCH_RANGE16:
		off = (u64)((i * 7919U) % (wpages / BENCH_CHUNK)) * BENCH_CHUNK;
		*bytes += BENCH_CHUNK * PAGE_SIZE;
		(*ops)++;
		return bench_write(b, off << PAGE_SHIFT, BENCH_CHUNK);
	case PVMAP_BENCH_SEQ1M:
		off = (u64)(i % (wpages >> (20 - PAGE_SHIFT))) << 20;
		for (n = 0; n < 256 && !ret; n += BENCH_CHUNK, (*ops)++)
			ret = bench_write(b, off + ((u64)n << PAGE_SHIFT), BENCH_CHUNK);
		*bytes += 1 << 20;
		return ret;
	case PVMAP_BENCH_RAND4K:
		*bytes += PAGE_SIZE;
		(*ops)++;
		return bench_write(b, (u64)(bench_next(state) % pages) << PAGE_SHIFT, 1);
	default:
		return -EINVAL;
	}
}

static int bench_run(struct pvmap_test_ctx *ctx, struct pvmap_bench_run *req)
{
	bool permanent = req->engine == PVMAP_BENCH_PERMANENT;
	u64 span = permanent ? min_t(u64, BENCH_WINDOW, ctx->size) : ctx->size;
	/* 32-bit arithmetic for offsets: i386 has no 64-bit modulo in modules */
	u32 pages = span >> PAGE_SHIFT, wpages = min_t(u32, pages, BENCH_WINDOW >> PAGE_SHIFT);
	u32 state = (u32)req->seed | 1;
	struct bench b;
	unsigned int i;
	u64 t0;
	int ret;

	if (!req->iters || req->iters > 100000 || req->workload >= PVMAP_BENCH_OVERHEAD)
		return -EINVAL;
	if (bench_ioremap_wrong_page(ctx, req->engine))
		return test_skip(ctx, "ioremap maps the wrong page above 4 GiB on i386 PAE");
	if (bench_bare_unfit(req->engine))
		return test_skip(ctx, "pte_bare: no fast path under a backend or Xen PV");
	ret = bench_setup(&b, ctx, req->engine, req->seed);
	if (ret)
		return ret;

	/*
	 * No lazy vmap purge left pending by an earlier request (a permanent
	 * window's or a whole-aperture mapping's iounmap) may run during this
	 * one: that cost the first engine measured after them up to 3x.
	 */
	vm_unmap_aliases();
	req->bytes = 0;
	req->ops = 0;
	t0 = ktime_get_ns();
	for (i = 0; i < req->iters && !ret; i++) {
		ret = bench_pass(&b, req->workload, i, pages, wpages, &state, &req->bytes,
				 &req->ops);
		if (!(i % 64))
			cond_resched();
	}
	/* per-page iounmap defers its TLB flush to a lazy purge: it pays for it here */
	if (b.engine == PVMAP_BENCH_IOREMAP)
		vm_unmap_aliases();
	req->ns = ktime_get_ns() - t0;
	bench_teardown(&b);
	if (ret)
		return test_fail(ctx, "engine %u, workload %u: %d", req->engine, req->workload,
				 ret);
	return 0;
}

/*
 * The real hazard, no demonstration engine: map page A through ENGINE
 * (pvmap, or mainline_local: <linux/io-mapping.h>'s io_mapping_map_local_wc),
 * write, unmap, then write through the old pointer at once, on the same
 * CPU. On i386 without HIGHMEM mainline's unmap leaves the TLB entry, so
 * the write lands in page A although nothing maps it; the host reads page A.
 */
static int bench_stale_write(struct pvmap_test_ctx *ctx, struct pvmap_bench_stale_write *req)
{
	static const char data[] = "guest data in page A";
	u64 offset = pvmap_test_random_offset(ctx, 1);
	void __iomem *vaddr;
	struct bench b;
	int ret;

	if (req->engine != PVMAP_BENCH_PVMAP && req->engine != PVMAP_BENCH_MAINLINE_LOCAL)
		return -EINVAL;
	ret = bench_setup(&b, ctx, req->engine, 0);
	if (ret)
		return ret;
	req->landed = false;
	migrate_disable();
	vaddr = bench_map_page(&b, offset);
	if (vaddr) {
		memcpy_toio(vaddr, data, sizeof(data));
		bench_unmap_page(&b, vaddr);
		req->landed = pvmap_test_store_stale(vaddr);
	}
	migrate_enable();
	bench_teardown(&b);
	if (!vaddr)
		return test_fail(ctx, "map returned NULL");
	req->offset = offset;
	req->va = (unsigned long)vaddr;
	return 0;
}

/*
 * The mapping overhead, robust to the bursts of a TCG host: blocks of
 * OVH_BLOCK_PAGES page writes through ENGINE and through the permanent
 * window, alternating which goes first, each block timed; the overhead is
 * the median over blocks of (engine - permanent), per page. The permanent
 * window writes the lower half of the first BENCH_WINDOW, the engine the
 * upper half, so the host still checks each engine's own pages.
 */
#define OVH_BLOCK_PAGES	32
#define OVH_MAX_BLOCKS	128

static int cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

/* The median of @v's @n values, per page of a block, in picoseconds. */
static s64 median_ps(s64 *v, unsigned int n)
{
	sort(v, n, sizeof(*v), cmp_s64, NULL);
	return div_s64(v[n / 2] * 1000, OVH_BLOCK_PAGES);
}

/*
 * Block @k's pages through @engine, a constant wherever this is inlined, so
 * that its switches fold away. Chosen once a page (bench_write()), the
 * engine's dispatch counted in its overhead: a call and, a retpoline
 * kernel's switch having no jump table, a chain of compares shaped by the
 * set of cases, so that adding pte_bare moved other engines' figures by up
 * to 11 instructions a page; and the bench's own per-page work was 15 to
 * 49 instructions of each engine's overhead (on Debian's amd64,
 * mainline_local's 26 without it is 4, pte_floor's 108 is 81).
 */
static __always_inline int overhead_pages(struct bench *b, u32 engine, unsigned int k, u32 half)
{
	unsigned int n;
	void __iomem *p;

	for (n = 0; n < OVH_BLOCK_PAGES; n++) {
		u64 off = spread_page_offset(half, k * OVH_BLOCK_PAGES + n) +
			  ((u64)half << PAGE_SHIFT);

		p = bench_map_as(b, engine, off);
		if (!p)
			return -ENOMEM;
		memcpy_toio(p, bench_src(b, off), PAGE_SIZE);
		bench_unmap_as(b, engine, p);
	}
	return 0;
}

/* The engine's block @k: one choice of engine for its OVH_BLOCK_PAGES pages. */
static int overhead_engine_block(struct bench *b, unsigned int k, u32 half)
{
	switch (b->engine) {
	case PVMAP_BENCH_PVMAP:
		return overhead_pages(b, PVMAP_BENCH_PVMAP, k, half);
	case PVMAP_BENCH_PVMAP_RANGE:
		return overhead_pages(b, PVMAP_BENCH_PVMAP_RANGE, k, half);
	case PVMAP_BENCH_PVMAP_LOCAL:
		return overhead_pages(b, PVMAP_BENCH_PVMAP_LOCAL, k, half);
	case PVMAP_BENCH_MAINLINE_LOCAL:
		return overhead_pages(b, PVMAP_BENCH_MAINLINE_LOCAL, k, half);
	case PVMAP_BENCH_MAINLINE_ATOMIC:
		return overhead_pages(b, PVMAP_BENCH_MAINLINE_ATOMIC, k, half);
	case PVMAP_BENCH_IOREMAP:
		return overhead_pages(b, PVMAP_BENCH_IOREMAP, k, half);
	case PVMAP_BENCH_PTE_FLOOR:
		return overhead_pages(b, PVMAP_BENCH_PTE_FLOOR, k, half);
	case PVMAP_BENCH_PTE_BARE:
		return overhead_pages(b, PVMAP_BENCH_PTE_BARE, k, half);
	default:
		return -EINVAL;
	}
}

/* Block @k of the permanent window, the lower half of the engine's. */
static void overhead_permanent_block(struct bench *p, unsigned int k, u32 half)
{
	unsigned int n;

	for (n = 0; n < OVH_BLOCK_PAGES; n++) {
		u64 off = spread_page_offset(half, k * OVH_BLOCK_PAGES + n);

		memcpy_toio(p->window + off, bench_src(p, off), PAGE_SIZE);
	}
}

/*
 * Block @k of both engines, in alternating order; its times in eng[k],
 * perm[k]. The engine is chosen once a block, not once a page (see
 * overhead_pages()): its overhead is its own map and unmap, not the
 * bench's dispatch.
 */
static int overhead_block(struct bench *b, struct bench *p, unsigned int k, u32 half,
			  s64 *eng, s64 *perm)
{
	int first = k & 1;	/* 0: permanent first */
	unsigned int j;
	u64 t[3];
	int ret = 0;

	for (j = 0; j < 2 && !ret; j++) {
		t[j] = ktime_get_ns();
		if ((j ^ first) == 1)
			ret = overhead_engine_block(b, k, half);
		else
			overhead_permanent_block(p, k, half);
	}
	t[2] = ktime_get_ns();
	eng[k] = first ? t[1] - t[0] : t[2] - t[1];
	perm[k] = first ? t[2] - t[1] : t[1] - t[0];
	return ret;
}

static int bench_overhead(struct pvmap_test_ctx *ctx, struct pvmap_bench_run *req)
{
	u32 half = (u32)(min_t(u64, BENCH_WINDOW, ctx->size) >> PAGE_SHIFT) / 2;
	unsigned int blocks = min_t(unsigned int, req->iters / OVH_BLOCK_PAGES, OVH_MAX_BLOCKS);
	s64 *diff, *eng, *perm;
	struct bench b, p;
	unsigned int k;
	int ret;

	if (blocks < 3 || req->engine == PVMAP_BENCH_PERMANENT)
		return -EINVAL;
	if (bench_ioremap_wrong_page(ctx, req->engine))
		return test_skip(ctx, "ioremap maps the wrong page above 4 GiB on i386 PAE");
	if (bench_bare_unfit(req->engine))
		return test_skip(ctx, "pte_bare: no fast path under a backend or Xen PV");
	/* zeroed: a failed block leaves its entries unset, and the medians read them all */
	diff = kcalloc(3 * blocks, sizeof(*diff), GFP_KERNEL);
	if (!diff)
		return -ENOMEM;
	eng = diff + blocks;
	perm = eng + blocks;
	ret = bench_setup(&b, ctx, req->engine, req->seed);
	if (ret)
		goto out;
	ret = bench_setup(&p, ctx, PVMAP_BENCH_PERMANENT, req->seed);
	if (ret)
		goto out_b;
	vm_unmap_aliases();	/* as in bench_run() */
	req->ns = 0;
	for (k = 0; k < blocks && !ret; k++) {
		ret = overhead_block(&b, &p, k, half, eng, perm);
		diff[k] = eng[k] - perm[k];
		req->ns += eng[k];
		cond_resched();
	}
	bench_teardown(&p);
	req->bytes = (u64)blocks * OVH_BLOCK_PAGES * PAGE_SIZE;
	req->ops = blocks * OVH_BLOCK_PAGES;
	req->overhead_ps = median_ps(diff, blocks);
	req->engine_ps = median_ps(eng, blocks);
	req->permanent_ps = median_ps(perm, blocks);
	if (ret)
		test_fail(ctx, "engine %u, overhead: %d", req->engine, ret);
	ret = 0;
out_b:
	bench_teardown(&b);
out:
	kfree(diff);
	return ret;
}

/*
 * How many unmaps leave a usable translation behind: COUNT pages are each
 * mapped, written (so that its translation is in this CPU's TLB),
 * unmapped, and its old address read with the nofault accessor, before
 * anything else (a per-page iounmap included: its lazy purge has not run yet).
 */
static int bench_stale(struct pvmap_test_ctx *ctx, struct pvmap_bench_probe *req)
{
	u32 pages = min_t(u64, ctx->size, BENCH_WINDOW) >> PAGE_SHIFT;
	struct bench b;
	void __iomem *p;
	unsigned int i;
	int ret;

	if (!req->count || req->count > 100000 || req->engine == PVMAP_BENCH_PERMANENT)
		return -EINVAL;
	if (bench_ioremap_wrong_page(ctx, req->engine))
		return test_skip(ctx, "ioremap maps the wrong page above 4 GiB on i386 PAE");
	ret = bench_setup(&b, ctx, req->engine, 0);
	if (ret)
		return ret;
	req->probes = 0;
	req->usable = 0;
	for (i = 0; i < req->count; i++) {
		/* the probe must run where the map did (ioremap sleeps: no preempt_disable) */
		migrate_disable();
		p = bench_map_page(&b, spread_page_offset(pages, i));
		if (p) {
			writel(i, p);
			bench_unmap_page(&b, p);
			req->usable += !pvmap_test_faults(p);
			req->probes++;
		}
		migrate_enable();
		if (!(i % 64))
			cond_resched();
	}
	bench_teardown(&b);
	if (req->probes != req->count)
		return test_fail(ctx, "%u of %u maps failed", req->count - req->probes, req->count);
	return 0;
}

/*
 * Whether mainline's io_mapping flushes what it unmaps. COUNT pages, each
 * tagged first through a map flushed by hand, are read back through ENGINE
 * (mainline_local or mainline_atomic) one after another on this CPU, and
 * each old address is read with the nofault accessor once unmapped. Without
 * the flush (upstream i386 without HIGHMEM: docs/upstream/) the old address
 * stays usable, and the next map, in the same fixmap slot, reaches the page
 * before it. The tags' words are restored afterwards.
 */
#define FLUSH_TAG	0x70760000U

/* Through a map flushed by hand: the old word at @off, @val written in its place. */
static u32 flush_swap(struct bench *b, u64 off, u32 val)
{
	void __iomem *p = bench_map_page(b, off);
	u32 old;

	__flush_tlb_one_user((unsigned long)p);
	old = readl(p);
	writel(val, p);
	bench_unmap_page(b, p);
	__flush_tlb_one_user((unsigned long)p);
	return old;
}

/*
 * Tag the first @count probed pages (FLUSH_TAG | i) through maps flushed by
 * hand: their old words, which flush_untag() puts back, or NULL.
 */
static u32 *flush_tag(struct bench *b, u32 pages, unsigned int count)
{
	u32 *saved = kmalloc_array(count, sizeof(*saved), GFP_KERNEL);
	unsigned int i;

	for (i = 0; saved && i < count; i++)
		saved[i] = flush_swap(b, spread_page_offset(pages, i), FLUSH_TAG | i);
	return saved;
}

static void flush_untag(struct bench *b, u32 pages, unsigned int count, u32 *saved)
{
	unsigned int i;

	for (i = 0; i < count; i++)
		flush_swap(b, spread_page_offset(pages, i), saved[i]);
	kfree(saved);
}

static int bench_flush(struct pvmap_test_ctx *ctx, struct pvmap_bench_probe *req)
{
	u32 pages = min_t(u64, ctx->size, BENCH_WINDOW) >> PAGE_SHIFT;
	/* mainline's io_mapping over the probed window: its size is an unsigned long */
	struct pvmap_test_ctx window = { .base = ctx->base, .size = (u64)pages << PAGE_SHIFT };
	unsigned int i, count = req->count;
	void __iomem *p;
	struct bench b;
	u32 *saved;

	if ((req->engine != PVMAP_BENCH_MAINLINE_LOCAL &&
	     req->engine != PVMAP_BENCH_MAINLINE_ATOMIC) || !count || count > pages ||
	    count > 4096)
		return -EINVAL;
	if (bench_setup(&b, &window, req->engine, 0))
		return -ENOMEM;
	req->usable = 0;
	req->misdirected = 0;
	/* one CPU throughout: the TLB entries in question are this CPU's */
	migrate_disable();
	saved = flush_tag(&b, pages, count);
	if (!saved) {
		migrate_enable();
		bench_teardown(&b);
		return -ENOMEM;
	}
	for (i = 0; i < count; i++) {
		p = bench_map_page(&b, spread_page_offset(pages, i));
		req->misdirected += readl(p) != (FLUSH_TAG | i);
		bench_unmap_page(&b, p);
		req->usable += !pvmap_test_faults(p);
	}
	flush_untag(&b, pages, count, saved);
	migrate_enable();
	bench_teardown(&b);
	req->probes = count;
	return 0;
}

/*
 * Whether mainline's io_mapping_map_local_wc() releases the slot of a task
 * switched out while it holds the map. For each of COUNT tagged pages, this
 * task maps the page, reads it and waits for a kthread bound to its CPU,
 * which runs once this task is switched out (__kmap_local_sched_out()
 * clears the slot's PTE, and flushes its TLB entry where the arch hook is
 * built): the kthread's nofault read of the held address must fault, and
 * its own map of the next page, in the same slot, must read that page.
 * Switched back in, this task must read its page again. It reads through a
 * fresh translation each time (its own entry flushed by hand after the map
 * and after the switch), so what an unmap left behind is not counted here:
 * a wrong read by this task is a failure of the map or of the context
 * switch itself, not the missing flush, and the request fails.
 */
struct sched_out_probe {
	struct completion done;
	struct bench *b;
	void __iomem *held;
	u64 next_offset;
	u32 next_tag;
	bool usable, misdirected;
};

static int sched_out_other_task(void *data)
{
	struct sched_out_probe *probe = data;
	void __iomem *next;

	probe->usable = !pvmap_test_faults(probe->held);
	next = bench_map_page(probe->b, probe->next_offset);
	probe->misdirected = readl(next) != probe->next_tag;
	bench_unmap_page(probe->b, next);
	complete(&probe->done);
	return 0;
}

/* One page held across a switch to the other task; 0, or how it failed. */
static int sched_out_one(struct bench *b, u64 offset, u32 tag, u64 next_offset,
			 u32 next_tag, struct pvmap_bench_probe *req)
{
	struct sched_out_probe probe = { .b = b, .next_offset = next_offset,
					 .next_tag = next_tag };
	struct task_struct *other;
	void __iomem *held;
	u32 before, after;

	init_completion(&probe.done);
	other = kthread_create_on_cpu(sched_out_other_task, &probe, smp_processor_id(),
				      "pvmap_sched_out/%u");
	if (IS_ERR(other))
		return PTR_ERR(other);
	get_task_struct(other);
	held = bench_map_page(b, offset);
	/* only the switch is under test: what an earlier unmap left goes first */
	__flush_tlb_one_user((unsigned long)held);
	probe.held = held;
	before = readl(held);
	wake_up_process(other);
	wait_for_completion(&probe.done);
	/* the restored PTE, not what the other task's unmap left, is read */
	__flush_tlb_one_user((unsigned long)held);
	after = readl(held);
	bench_unmap_page(b, held);
	kthread_stop(other);
	put_task_struct(other);
	req->usable += probe.usable;
	req->misdirected += probe.misdirected;
	return before == tag && after == tag ? 0 : -EIO;
}

static int bench_sched_out(struct pvmap_test_ctx *ctx, struct pvmap_bench_probe *req)
{
	u32 pages = min_t(u64, ctx->size, BENCH_WINDOW) >> PAGE_SHIFT;
	struct pvmap_test_ctx window = { .base = ctx->base, .size = (u64)pages << PAGE_SHIFT };
	unsigned int i, count = req->count;
	struct bench b;
	u32 *saved;
	int ret = 0;

	if (req->engine != PVMAP_BENCH_MAINLINE_LOCAL || !count || count + 1 > pages ||
	    count > 1024)
		return -EINVAL;
	if (bench_setup(&b, &window, req->engine, 0))
		return -ENOMEM;
	req->usable = 0;
	req->misdirected = 0;
	req->probes = 0;
	/* the kthreads are bound to this CPU, whose TLB holds the entries */
	migrate_disable();
	saved = flush_tag(&b, pages, count + 1);
	if (!saved) {
		migrate_enable();
		bench_teardown(&b);
		return -ENOMEM;
	}
	for (i = 0; i < count && !ret; i++) {
		ret = sched_out_one(&b, spread_page_offset(pages, i), FLUSH_TAG | i,
				    spread_page_offset(pages, i + 1), FLUSH_TAG | (i + 1), req);
		req->probes += !ret;
	}
	flush_untag(&b, pages, count + 1, saved);
	migrate_enable();
	bench_teardown(&b);
	if (ret == -EIO)
		return test_fail(ctx, "probe %u: the held map read another page", req->probes);
	return ret;
}

/* One request: its struct in, an io_mapping of its aperture, its results out. */
static long pvmap_bench_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct pvmap_test_ctx ctx;
	struct pvmap_test_head *h;
	long ret;

	if (cmd != PVMAP_BENCH_RUN && cmd != PVMAP_BENCH_STALE && cmd != PVMAP_BENCH_FLUSH &&
	    cmd != PVMAP_BENCH_STALE_WRITE && cmd != PVMAP_BENCH_SCHED_OUT)
		return -ENOTTY;
	h = memdup_user(uarg, _IOC_SIZE(cmd));
	if (IS_ERR(h))
		return PTR_ERR(h);
	ret = pvmap_test_ctx_init(&ctx, h, true);
	if (!ret && ctx.m) {
		if (cmd == PVMAP_BENCH_RUN &&
		    ((struct pvmap_bench_run *)h)->workload == PVMAP_BENCH_OVERHEAD)
			ret = bench_overhead(&ctx, (struct pvmap_bench_run *)h);
		else if (cmd == PVMAP_BENCH_RUN)
			ret = bench_run(&ctx, (struct pvmap_bench_run *)h);
		else if (cmd == PVMAP_BENCH_STALE)
			ret = bench_stale(&ctx, (struct pvmap_bench_probe *)h);
		else if (cmd == PVMAP_BENCH_FLUSH)
			ret = bench_flush(&ctx, (struct pvmap_bench_probe *)h);
		else if (cmd == PVMAP_BENCH_SCHED_OUT)
			ret = bench_sched_out(&ctx, (struct pvmap_bench_probe *)h);
		else
			ret = bench_stale_write(&ctx, (struct pvmap_bench_stale_write *)h);
	}
	pvmap_test_ctx_fini(&ctx);
	if (!ret && copy_to_user(uarg, h, _IOC_SIZE(cmd)))
		ret = -EFAULT;
	kfree(h);
	return ret;
}

static const struct file_operations pvmap_bench_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.unlocked_ioctl = pvmap_bench_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct dentry *pvmap_bench_file;

static int __init pvmap_bench_init(void)
{
	pvmap_bench_file = debugfs_create_file("pvmap_bench", 0600, NULL, NULL,
					       &pvmap_bench_fops);
	return 0;
}
module_init(pvmap_bench_init);

static void __exit pvmap_bench_exit(void)
{
	debugfs_remove(pvmap_bench_file);
}
module_exit(pvmap_bench_exit);

MODULE_DESCRIPTION("pvmap: the io_mapping engines measured side by side");
MODULE_IMPORT_NS(PVMAP_TEST);
#if IS_ENABLED(CONFIG_PVMAP_TEST_HOOKS)
MODULE_IMPORT_NS(PVMAP_TEST_HOOKS);
#endif
MODULE_LICENSE("GPL");
