// SPDX-License-Identifier: GPL-2.0
/*
 * The io_mapping API's own tests, used as another driver would use it:
 * nesting, range maps, sleepable maps, clear-on-unmap and misuse. Written
 * once as a table; pvmap_kunit.ko runs it as a KUnit suite on kernels with
 * KUnit, pvmap_test.ko's PVMAP_TEST_API on the others (Debian's). Each case
 * writes to the aperture of its context: not one whose contents matter.
 */

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sizes.h>

#include <uapi/pvmap_pattern.h>

#include "pvmap_test.h"

/* Write the pattern for [@offset, +@len) of the aperture through @vaddr. */
static void write_pattern(struct pvmap_test_ctx *ctx, void __iomem *vaddr, u64 offset,
			  size_t len, u64 seed)
{
	size_t done;

	for (done = 0; done < len; done += PAGE_SIZE) {
		pvmap_pattern_fill(ctx->buf, PAGE_SIZE, seed, offset + done);
		memcpy_toio(vaddr + done, ctx->buf, PAGE_SIZE);
	}
}

/* Check the pattern through fresh single-page maps, independent of the writer's. */
static int check_pages(struct pvmap_test_ctx *ctx, u64 offset, size_t len, u64 seed)
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

/* 16 nested atomic maps of distinct pages, read back; with slots, each faults once unmapped. */
static int api_nested(struct pvmap_test_ctx *ctx, unsigned int unused)
{
	u64 base = pvmap_test_random_offset(ctx, PVMAP_MAX_DEPTH);
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
		return test_fail(ctx, "map %d of %d returned NULL", depth + 1,
			      PVMAP_MAX_DEPTH);
	if (bad)
		return test_fail(ctx, "%d of %d nested maps read back wrong", bad, depth);
	for (i = 0; ctx->slots && i < depth; i++)
		if (!pvmap_test_faults(vaddr[i]))
			return test_fail(ctx, "nested map %d still reachable after unmap", i);
	return test_pass(ctx, "%d nested maps", depth);
}

/* An atomic range map of @npages, written and read back; with slots, it faults after. */
static int api_range(struct pvmap_test_ctx *ctx, unsigned int npages)
{
	u64 offset = pvmap_test_random_offset(ctx, npages), seed = get_random_u64();
	size_t len = (size_t)npages << PAGE_SHIFT;
	void __iomem *vaddr;
	unsigned int i;
	int ret;

	vaddr = pvmap_io_mapping_map_atomic_range_wc(ctx->m, offset, npages);
	if (!vaddr)
		return test_fail(ctx, "range map of %u pages returned NULL", npages);
	write_pattern(ctx, vaddr, offset, len, seed);
	pvmap_io_mapping_unmap_atomic_range(vaddr, npages);
	ret = check_pages(ctx, offset, len, seed);
	if (ret)
		return test_fail(ctx, "%u-page range at %#llx: %d", npages, offset, ret);
	for (i = 0; ctx->slots && i < npages; i++)
		if (!pvmap_test_faults(vaddr + i * PAGE_SIZE))
			return test_fail(ctx, "page %u of the range reachable after unmap", i);
	return test_pass(ctx, "%u pages at %#llx", npages, offset);
}

/* A live map reads; the released slot faults (skipped for the whole-aperture mapping). */
static int api_stale(struct pvmap_test_ctx *ctx, unsigned int unused)
{
	void __iomem *vaddr;
	u32 val;

	if (!ctx->slots)
		return test_skip(ctx, "whole-aperture mapping: no clear-on-unmap by design");
	vaddr = pvmap_io_mapping_map_atomic_wc(ctx->m, pvmap_test_random_offset(ctx, 1));
	if (!vaddr)
		return test_fail(ctx, "map returned NULL");
	if (get_kernel_nofault(val, (u32 __force *)vaddr)) {
		pvmap_io_mapping_unmap_atomic(vaddr);
		return test_fail(ctx, "a live map faulted");
	}
	pvmap_io_mapping_unmap_atomic(vaddr);
	if (!pvmap_test_faults(vaddr))
		return test_fail(ctx, "the slot is reachable after unmap");
	return test_pass(ctx, "a live map reads, the released slot faults");
}

/*
 * Local maps nest with atomic ones, LIFO: a local map, an atomic map above
 * it, a local map above that, each reading its own page while all are
 * live, unmapped in reverse; with slots, each faults once unmapped. The
 * local map leaves page faults on (and preemption, where the kernel counts
 * it) exactly when pvmap_io_mapping_local_preemptible() says so, as INFO's
 * PVMAP_INFO_F_LOCAL_PREEMPTIBLE does.
 */
static int api_local(struct pvmap_test_ctx *ctx, unsigned int unused)
{
	u64 base = pvmap_test_random_offset(ctx, 3);
	bool want = pvmap_io_mapping_local_preemptible(), got;
	int preempt = preempt_count(), pagefaults = pagefault_disabled();
	void __iomem *a, *b = NULL, *c = NULL;
	int bad = 0;

	a = pvmap_io_mapping_map_local_wc(ctx->m, base);
	if (!a)
		return test_fail(ctx, "local map returned NULL");
	got = pvmap_test_map_preemptible(preempt, pagefaults);
	writel(0x6c000000, a);
	b = pvmap_io_mapping_map_atomic_wc(ctx->m, base + PAGE_SIZE);
	if (b) {
		writel(0x6c000001, b);
		c = pvmap_io_mapping_map_local_wc(ctx->m, base + 2 * PAGE_SIZE);
	}
	if (c) {
		writel(0x6c000002, c);
		bad += readl(c) != 0x6c000002;
		bad += c == a || c == b;
		pvmap_io_mapping_unmap_local(c);
	}
	if (b) {
		bad += readl(b) != 0x6c000001 || b == a;
		pvmap_io_mapping_unmap_atomic(b);
	}
	bad += readl(a) != 0x6c000000;
	pvmap_io_mapping_unmap_local(a);
	if (pagefault_disabled() != pagefaults || preempt_count() != preempt)
		return test_fail(ctx, "after the unmaps: preempt %d, pagefaults %d; want %d, %d",
				 preempt_count(), pagefault_disabled(), preempt, pagefaults);
	if (!b || !c)
		return test_fail(ctx, "the %s map above the local one returned NULL",
				 b ? "local" : "atomic");
	if (bad)
		return test_fail(ctx, "%d nested maps read back wrong or shared an address", bad);
	if (got != want)
		return test_fail(ctx, "local map preemptible %d, local_preemptible() %d",
				 got, want);
	if (ctx->slots && (!pvmap_test_faults(a) || !pvmap_test_faults(b) ||
			   !pvmap_test_faults(c)))
		return test_fail(ctx, "a local or atomic map reachable after its unmap");
	return test_pass(ctx, "local, atomic, local nested and unmapped in reverse; local maps %s",
			 want ? "preemptible" : "atomic (no preempt notifiers)");
}

/* A sleepable map of @len bytes held across a sleep, read back; its pool window faults after. */
static int api_sleepable(struct pvmap_test_ctx *ctx, unsigned int len)
{
	u64 offset = pvmap_test_random_offset(ctx, len >> PAGE_SHIFT), seed = get_random_u64();
	void __iomem *vaddr;
	int ret;

	vaddr = pvmap_io_mapping_map_wc(ctx->m, offset, len);
	if (!vaddr)
		return test_fail(ctx, "map_wc of %u bytes returned NULL", len);
	/* Sleeping while holding the map is what distinguishes it. */
	usleep_range(1000, 2000);
	write_pattern(ctx, vaddr, offset, len, seed);
	pvmap_io_mapping_unmap(vaddr);
	ret = check_pages(ctx, offset, len, seed);
	if (ret)
		return test_fail(ctx, "%u bytes at %#llx: %d", len, offset, ret);
	if (ctx->slots && len <= PVMAP_POOL_WINDOW_SIZE && !pvmap_test_faults(vaddr))
		return test_fail(ctx, "the pool window is reachable after unmap");
	return test_pass(ctx, "%u bytes at %#llx", len, offset);
}

/* A sleepable map made and unmapped by a thread of its own (pool_owner_large_maps). */
struct owned_map {
	struct pvmap_io_mapping *m;
	u64 offset;
	unsigned int len;
	void __iomem *vaddr;
	struct completion mapped, unmap, done;
};

static int owned_map_thread(void *arg)
{
	struct owned_map *o = arg;

	o->vaddr = pvmap_io_mapping_map_wc(o->m, o->offset, o->len);
	complete(&o->mapped);
	wait_for_completion(&o->unmap);
	if (o->vaddr)
		pvmap_io_mapping_unmap(o->vaddr);
	complete(&o->done);	/* the last touch of @o */
	return 0;
}

/*
 * Another task's sleepable map of @len bytes, which this one unmaps: refused
 * with one WARN, the map still live; then its owner's unmap. Return: what
 * went wrong, or NULL.
 */
static const char *foreign_unmap(struct pvmap_test_ctx *ctx, unsigned int len)
{
	struct owned_map o = {
		.m = ctx->m, .offset = pvmap_test_random_offset(ctx, len >> PAGE_SHIFT), .len = len,
	};
	struct task_struct *t;
	const char *bad = NULL;

	init_completion(&o.mapped);
	init_completion(&o.unmap);
	init_completion(&o.done);
	t = kthread_run(owned_map_thread, &o, "pvmap-owner");
	if (IS_ERR(t))
		return "cannot start a thread";
	wait_for_completion(&o.mapped);
	if (!o.vaddr) {
		bad = "the other task's map returned NULL";
	} else {
		pvmap_io_mapping_unmap(o.vaddr);	/* not this task's: refused */
		ctx->warns++;
		if (pvmap_test_faults(o.vaddr))
			bad = "this task's unmap cleared another task's map";
	}
	complete(&o.unmap);
	wait_for_completion(&o.done);
	if (!bad && len <= PVMAP_POOL_WINDOW_SIZE && !pvmap_test_faults(o.vaddr))
		bad = "the owner's unmap left the pool window reachable";
	return bad;
}

/*
 * Only the task that made a sleepable map unmaps it, a pooled window (64
 * KiB) and a window of its own (1 MiB) alike: a second unmap of an address
 * from a task whose map is gone must not clear another task's map there.
 */
static int api_pool_owner_large_maps(struct pvmap_test_ctx *ctx, unsigned int unused)
{
	static const unsigned int lens[] = { PVMAP_POOL_WINDOW_SIZE, SZ_1M };
	const char *bad;
	size_t i;

	if (!ctx->slots)
		return test_skip(ctx, "whole-aperture mapping: a sleepable map is an address");
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		bad = foreign_unmap(ctx, lens[i]);
		if (bad)
			return test_fail(ctx, "%u bytes: %s", lens[i], bad);
	}
	return test_pass(ctx, "another task's unmap refused, pooled and large: %u WARNs",
			 ctx->warns);
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
static void expect_state(struct pvmap_test_ctx *ctx, struct atomic_state base, int depth,
			 const char *what, int *bad)
{
	int preempt = base.preempt + (IS_ENABLED(CONFIG_PREEMPT_COUNT) ? depth : 0);
	struct atomic_state now = atomic_state();

	if (now.preempt == preempt && now.pagefault == base.pagefault + depth)
		return;
	if (!(*bad)++)
		test_fail(ctx, "after %s: preempt_count %d, pagefaults disabled %d; want %d, %d",
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
	struct pvmap_test_ctx *ctx;
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
	t->bad += t->ctx->slots && (!pvmap_test_faults(a) || !pvmap_test_faults(b));
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

/*
 * A local map named to an atomic unmap, and an atomic map named to a local
 * unmap, are refused with one WARN each, both maps still live. Only where
 * local maps are preemptible and through slots: atomic ones are atomic maps,
 * and whole-aperture unmaps name nothing.
 */
static void misuse_local(struct misuse_run *t)
{
	void __iomem *a, *b;

	if (!t->through_slots || !pvmap_io_mapping_local_preemptible())
		return;
	a = pvmap_io_mapping_map_local_wc(t->ctx->m, 0);
	if (!a) {
		t->bad++;
		return;
	}
	pvmap_io_mapping_unmap_atomic(a);	/* a local map: refused */
	t->warns++;
	misuse_expect(t, 0, "an atomic unmap of a local map");
	b = pvmap_io_mapping_map_atomic_wc(t->ctx->m, PAGE_SIZE);
	if (b) {
		pvmap_io_mapping_unmap_local(b);	/* an atomic map: refused */
		t->warns++;
		misuse_expect(t, 1, "a local unmap of an atomic map");
		writel(4, b);
		writel(5, a);
		t->bad += readl(b) != 4 || readl(a) != 5;
		pvmap_io_mapping_unmap_atomic(b);
	} else {
		t->bad++;
	}
	pvmap_io_mapping_unmap_local(a);
	misuse_expect(t, 0, "the local map's own unmap");
	t->bad += (b && !pvmap_test_faults(b)) || !pvmap_test_faults(a);
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
		t->bad += t->ctx->slots && !pvmap_test_faults(a);
	} else {
		t->bad++;
	}
	misuse_expect(t, 0, "the whole test");
}

/* The cases, in order: each starts and ends with no map of this test's live. */
static void (*const misuse_cases[])(struct misuse_run *t) = {
	misuse_unbalanced, misuse_pool_double_unmap, misuse_unmaps, misuse_local,
	misuse_refused_maps, misuse_past_limits, misuse_still_works,
};

/* Every misuse refused with one WARN, the preempt and page-fault counts restored after each. */
static int api_misuse(struct pvmap_test_ctx *ctx, unsigned int unused)
{
	struct misuse_run t = {
		.ctx = ctx, .base = atomic_state(),
		.through_slots = pvmap_io_mapping_clears_on_unmap(ctx->m),
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(misuse_cases); i++)
		misuse_cases[i](&t);
	ctx->warns = t.warns;
	if (t.bad && ctx->h->status == PVMAP_TEST_FAIL)
		return 0;	/* expect_state() named the first */
	if (t.bad)
		return test_fail(ctx, "%d misuse cases misbehaved", t.bad);
	return test_pass(ctx, "%d WARNs, preempt_count %d restored after every refused call",
			 t.warns, t.base.preempt);
}

/*
 * The cases, by name (pvmap_api_cases.h, which the guest's suite reads too):
 * KUnit's suite runs each as a parameter, pvmap_test.ko's PVMAP_TEST_API the
 * one it is asked for by name. The table ends with a NULL name.
 */
#define PVMAP_API_CASE(name, fn, arg) { #name, fn, arg },
const struct pvmap_api_case pvmap_api_cases[] = {
#include "pvmap_api_cases.h"
#undef PVMAP_API_CASE
	{}
};
EXPORT_SYMBOL_NS_GPL(pvmap_api_cases, PVMAP_TEST);

const struct pvmap_api_case *pvmap_api_case_find(const char *name)
{
	const struct pvmap_api_case *c;

	for (c = pvmap_api_cases; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}
