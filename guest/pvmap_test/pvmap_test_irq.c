// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap_test's fixtures that read and write the host's patterns: through
 * mainline's io_mapping, through each of pvmap's maps, and from interrupt
 * context on every CPU.
 */

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/io-mapping.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/wait.h>

#include <uapi/pvmap_pattern.h>

#include "pvmap_test.h"

/*
 * The pattern of @seed at aperture offset @pos, @n bytes (at most a page),
 * written to @p (@fill) or read from it through ctx->buf and checked: the
 * offset of the first wrong byte, or @n.
 */
static size_t pattern_copy(struct pvmap_test_ctx *ctx, void __iomem *p, u64 pos, size_t n,
			   u64 seed, bool fill)
{
	if (fill) {
		pvmap_pattern_fill(ctx->buf, n, seed, pos);
		memcpy_toio(p, ctx->buf, n);
		return n;
	}
	memcpy_fromio(ctx->buf, p, n);
	return pvmap_pattern_check(ctx->buf, n, seed, pos);
}

static bool pattern_request_ok(struct pvmap_test_ctx *ctx, const struct pvmap_test_pattern *req)
{
	return req->len && req->offset < ctx->size && req->len <= ctx->size - req->offset &&
	       req->len <= SZ_1M;
}

/*
 * The host's pattern and the guest's, through mainline's io_mapping
 * (<linux/io-mapping.h>): a path independent of pvmap's engine (and of
 * sysfs resource mmaps, which IO_STRICT_DEVMEM refuses while pvmap holds
 * the BAR). Not ioremap_wc() of the pages: 6.1's ioremap truncates a
 * physical address above 4 GiB on i386 PAE. Each page is flushed from this
 * CPU's TLB once mapped, because on i386 without HIGHMEM mainline's
 * kunmap_local_indexed() clears the PTE but does not flush the TLB entry,
 * and a stale entry would read another page.
 * With fill, the range gets the pattern; else the first wrong byte's offset.
 */
int pvmap_test_mainline(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_pattern *req = arg;
	u64 offset = req->offset, len = req->len;
	u64 start = round_down(offset, PAGE_SIZE), done, bad = len;
	struct io_mapping mainline;

	if (!pattern_request_ok(ctx, req))
		return -EINVAL;
	/* Just the pages concerned: io_mapping's size is an unsigned long. */
	if (!io_mapping_init_wc(&mainline, ctx->base + start, PAGE_ALIGN(offset + len) - start))
		return test_fail(ctx, "io_mapping_init_wc");
	for (done = 0; done < len; ) {
		u64 pos = offset + done;
		size_t n = min_t(u64, len - done, PAGE_SIZE - offset_in_page(pos));
		void __iomem *page = io_mapping_map_local_wc(&mainline,
							     round_down(pos, PAGE_SIZE) - start);
		size_t at;

		__flush_tlb_one_user((unsigned long)page);
		at = pattern_copy(ctx, page + offset_in_page(pos), pos, n, req->seed, req->fill);
		io_mapping_unmap_local(page);
		if (at != n) {
			bad = done + at;
			break;
		}
		done += n;
	}
	io_mapping_fini(&mainline);
	req->bad = offset + bad;
	if (bad != len)
		return test_fail(ctx, "pattern differs at aperture offset %#llx", offset + bad);
	return 0;
}

/* Pages per map of PVMAP_PATTERN_RANGE: a quarter of a CPU's slots. */
#define PATTERN_RANGE_PAGES	(PVMAP_SLOTS_PER_CPU / 4)

/*
 * The same pattern through pvmap's maps of ctx->m: atomic maps of a page,
 * atomic ranges of PATTERN_RANGE_PAGES pages, or one sleepable window over
 * the whole range.
 */
int pvmap_test_pattern(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_pattern *req = arg;
	u64 offset = req->offset, len = req->len, done, bad = len;
	void __iomem *window = NULL;

	if (!pattern_request_ok(ctx, req) || req->engine >= PVMAP_PATTERN_ENGINES)
		return -EINVAL;
	if (req->engine == PVMAP_PATTERN_SLEEPABLE) {
		window = pvmap_io_mapping_map_wc(ctx->m, offset, len);
		if (!window)
			return test_fail(ctx, "map_wc of %#llx bytes at %#llx", len, offset);
	}
	for (done = 0; done < len && bad == len; ) {
		u64 pos = offset + done;
		u64 left = len - done;
		unsigned int npages = req->engine == PVMAP_PATTERN_RANGE ?
			min_t(u64, PATTERN_RANGE_PAGES,
			      DIV_ROUND_UP(offset_in_page(pos) + left, PAGE_SIZE)) : 1;
		u64 span = min_t(u64, left, ((u64)npages << PAGE_SHIFT) - offset_in_page(pos));
		void __iomem *p;
		u64 at;

		if (window)
			p = window + done;
		else if (req->engine == PVMAP_PATTERN_RANGE)
			p = pvmap_io_mapping_map_atomic_range_wc(ctx->m, pos, npages);
		else
			p = pvmap_io_mapping_map_atomic_wc(ctx->m, pos);
		if (!p)
			return test_fail(ctx, "map of %u page(s) at %#llx returned NULL",
					 npages, pos);
		/* ctx->buf holds a page: copy the span a page at a time */
		for (at = 0; at < span; ) {
			size_t n = min_t(u64, span - at, PAGE_SIZE - offset_in_page(pos + at));
			size_t ok = pattern_copy(ctx, p + at, pos + at, n, req->seed, req->fill);

			if (ok != n) {
				bad = done + at + ok;
				break;
			}
			at += n;
		}
		if (req->engine == PVMAP_PATTERN_RANGE)
			pvmap_io_mapping_unmap_atomic_range(p, npages);
		else if (!window)
			pvmap_io_mapping_unmap_atomic(p);
		done += span;
	}
	if (window)
		pvmap_io_mapping_unmap(window);
	req->bad = offset + bad;
	if (bad != len)
		return test_fail(ctx, "pattern differs at aperture offset %#llx", offset + bad);
	return 0;
}

/*
 * Atomic maps from interrupt context, as a driver's interrupt handler or
 * tasklet makes them, while tasks map on the same CPUs: on every online
 * CPU an hrtimer fires every IRQ_LOAD_PERIOD_NS (hardirq) and schedules a
 * tasklet (softirq). Each maps one page of the region [@offset, +@npages
 * pages), which holds the pattern @seed: reads 64 bytes back and compares,
 * writes them again, unmaps. A slot mixed up with a task's shows as bytes
 * read wrong here or as bytes written into the task's pages (the host
 * checks both regions). Each CPU goes on until it has made @maps of each
 * kind, however slowly its timer fires: a count, not a rate, so that the
 * verdict holds on a loaded host and on any clocksource. refused: the
 * wrong maps that returned NULL.
 */
#define IRQ_LOAD_BYTES		64
#define IRQ_LOAD_PERIOD_NS	(500 * NSEC_PER_USEC)

struct irq_load_cpu {
	struct hrtimer timer;
	struct tasklet_struct tasklet;
	struct irq_load *load;
	unsigned int index;	/* this CPU's share of the region */
	unsigned long hard, soft, wrong, refused, next;
	bool done;		/* @maps of each made: counted once in @pending */
};

struct irq_load {
	struct pvmap_io_mapping *m;
	u64 offset, seed, maps;
	unsigned int pages_per_context;
	bool stop;
	atomic_t pending;	/* CPUs that have not made @maps of each kind yet */
	wait_queue_head_t wait;
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
	WRITE_ONCE(c->soft, c->soft + 1);
}

static enum hrtimer_restart irq_load_timer(struct hrtimer *t)
{
	struct irq_load_cpu *c = container_of(t, struct irq_load_cpu, timer);
	struct irq_load *load = c->load;

	irq_load_map(c, true);
	c->hard++;
	tasklet_schedule(&c->tasklet);
	/* the tasklet's count lags the timer's: the timer goes on until both are made */
	if (!c->done && c->hard >= load->maps && READ_ONCE(c->soft) >= load->maps) {
		c->done = true;
		if (atomic_dec_and_test(&load->pending))
			wake_up(&load->wait);
	}
	if (c->done || READ_ONCE(load->stop))
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

/* Stop every CPU's timer and tasklet; their counts summed into @req. */
static void irq_load_stop(struct irq_load *load, struct pvmap_test_irq_load *req)
{
	unsigned long min_hard = ULONG_MAX, min_soft = ULONG_MAX;
	unsigned int cpu;

	WRITE_ONCE(load->stop, true);
	for_each_online_cpu(cpu) {
		struct irq_load_cpu *c = &load->cpus[cpu];

		if (!c->load)
			continue;
		hrtimer_cancel(&c->timer);
		tasklet_kill(&c->tasklet);
		req->hardirq += c->hard;
		req->softirq += c->soft;
		req->wrong += c->wrong;
		req->refused += c->refused;
		min_hard = min(min_hard, c->hard);
		min_soft = min(min_soft, c->soft);
	}
	req->hardirq_min = min_hard;
	req->softirq_min = min_soft;
}

int pvmap_test_irq_load(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_irq_load *req = arg;
	struct irq_load load = {
		.m = ctx->m, .offset = req->offset, .seed = req->seed, .maps = req->maps,
	};
	unsigned int cpu;
	long left;
	u64 t0;

	if (!req->npages || req->offset >= ctx->size ||
	    req->npages > (ctx->size - req->offset) >> PAGE_SHIFT ||
	    !req->maps || !req->msecs || req->msecs > 3600 * MSEC_PER_SEC)
		return -EINVAL;
	load.pages_per_context = div_u64(req->npages, 2 * num_online_cpus());
	if (!load.pages_per_context)
		return -EINVAL;
	load.cpus = kcalloc(nr_cpu_ids, sizeof(*load.cpus), GFP_KERNEL);
	if (!load.cpus)
		return -ENOMEM;
	init_waitqueue_head(&load.wait);

	req->hardirq = 0;
	req->softirq = 0;
	req->wrong = 0;
	req->refused = 0;
	req->cpus = 0;
	cpus_read_lock();
	atomic_set(&load.pending, num_online_cpus());
	for_each_online_cpu(cpu) {
		struct irq_load_cpu *c = &load.cpus[cpu];

		c->load = &load;
		c->index = req->cpus++;
		hrtimer_init(&c->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
		c->timer.function = irq_load_timer;
		tasklet_setup(&c->tasklet, irq_load_tasklet);
		smp_call_function_single(cpu, irq_load_start, c, 1);
	}
	t0 = ktime_get_ns();
	left = wait_event_timeout(load.wait, !atomic_read(&load.pending),
				  msecs_to_jiffies(req->msecs));
	req->msecs = div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC);
	irq_load_stop(&load, req);
	cpus_read_unlock();
	kfree(load.cpus);
	if (req->wrong)
		return test_fail(ctx, "%llu of the maps in interrupts read wrong bytes or none",
				 req->wrong);
	if (!left)
		return test_fail(ctx, "%llu ms: a CPU made %llu hardirq, %llu softirq maps of %llu",
				 req->msecs, req->hardirq_min, req->softirq_min, req->maps);
	return 0;
}
