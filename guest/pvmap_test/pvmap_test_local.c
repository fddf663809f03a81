// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap_test's fixture for local maps (pvmap_io_mapping_map_local_wc()),
 * PVMAP_TEST_LOCAL: one held by the requesting task across a switch to
 * another task on its CPU, across page faults served inside it, and under
 * maps made by interrupts. Where local maps are atomic (no preempt
 * notifiers in the kernel) each scenario checks that fallback instead.
 */

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <uapi/pvmap_pattern.h>

#include "pvmap_test.h"

#define LOCAL_TAG	0x6c6f0000U	/* "lo": the held page's word */
#define OTHER_TAG	0x6f740000U	/* "ot": the other task's page's */
#define IRQ_TAG		0x69720000U	/* "ir": the interrupts' pages' */

/* Through an atomic map: the word at @off, @val written in its place. */
static u32 local_swap(struct pvmap_test_ctx *ctx, u64 off, u32 val)
{
	void __iomem *p = pvmap_io_mapping_map_atomic_wc(ctx->m, off);
	u32 old;

	if (!p)
		return 0;
	old = readl(p);
	writel(val, p);
	pvmap_io_mapping_unmap_atomic(p);
	return old;
}

/* The map's mode differs from what pvmap_io_mapping_local_preemptible() says. */
static int local_mode_wrong(struct pvmap_test_ctx *ctx, const struct pvmap_test_local *req)
{
	return test_fail(ctx, "local map preemptible %u, local_preemptible() %d",
			 req->preemptible, pvmap_io_mapping_local_preemptible());
}

/* @n distinct random pages of ctx's aperture, in @off. */
static void local_pages(struct pvmap_test_ctx *ctx, u64 *off, unsigned int n)
{
	u64 base = pvmap_test_random_offset(ctx, n);
	unsigned int i;

	for (i = 0; i < n; i++)
		off[i] = base + ((u64)i << PAGE_SHIFT);
}

/* PREEMPTED: the other task, bound to the holder's CPU. */
struct local_other {
	struct completion done;
	struct pvmap_test_ctx *ctx;
	void __iomem *held;
	u64 off;
	bool faulted, same_slot, read_own;
};

static int local_other_task(void *data)
{
	struct local_other *o = data;
	void __iomem *p;

	o->faulted = pvmap_test_faults(o->held);
	p = pvmap_io_mapping_map_local_wc(o->ctx->m, o->off);
	if (p) {
		o->same_slot = ((unsigned long)p & PAGE_MASK) ==
			       ((unsigned long)o->held & PAGE_MASK);
		o->read_own = readl(p) == OTHER_TAG;
		pvmap_io_mapping_unmap_local(p);
	}
	complete(&o->done);
	return 0;
}

/*
 * The map held across a switch: this task maps its page, writes its tag
 * through the map and waits for a kthread bound to its CPU, which runs
 * once this task is switched out; its nofault read of the held address
 * must fault, and its own local map must take the same slot and read its
 * own page. Switched back in, this task reads its tag through the held
 * address. Where local maps are atomic, the map must have disabled
 * preemption and page faults, and nothing is switched.
 */
static int local_preempted(struct pvmap_test_ctx *ctx, struct pvmap_test_local *req,
			   const u64 *off)
{
	struct local_other o = { .ctx = ctx, .off = off[1] };
	int preempt = preempt_count(), pagefaults = pagefault_disabled();
	struct task_struct *other = NULL;
	unsigned long switches;
	void __iomem *held;
	bool atomic_ok = true;
	u32 after = 0;

	if (!ctx->slots)
		return test_skip(ctx, "whole-aperture mapping: nothing is cleared by design");
	init_completion(&o.done);
	/* the kthread is bound to this CPU, whose TLB holds the entries */
	migrate_disable();
	if (pvmap_io_mapping_local_preemptible()) {
		other = kthread_create_on_cpu(local_other_task, &o, smp_processor_id(),
					      "pvmap_local/%u");
		if (IS_ERR(other)) {
			migrate_enable();
			return PTR_ERR(other);
		}
		get_task_struct(other);
	}
	switches = current->nvcsw + current->nivcsw;
	held = pvmap_io_mapping_map_local_wc(ctx->m, off[0]);
	if (!held) {
		if (other) {
			kthread_stop(other);
			put_task_struct(other);
		}
		migrate_enable();
		return test_fail(ctx, "local map of %#llx returned NULL", off[0]);
	}
	req->preemptible = pvmap_test_map_preemptible(preempt, pagefaults);
	writel(LOCAL_TAG, held);
	if (other) {
		o.held = held;
		wake_up_process(other);
		wait_for_completion(&o.done);
	} else {
		/* the fallback: both off, as an atomic map has them */
		atomic_ok = pagefault_disabled() > pagefaults &&
			    (!IS_ENABLED(CONFIG_PREEMPT_COUNT) || preempt_count() > preempt);
	}
	/* a map not restored at the switch in faults here: a failure, not an oops */
	if (get_kernel_nofault(after, (u32 __force *)held))
		after = 0;
	req->switches = current->nvcsw + current->nivcsw - switches;
	pvmap_io_mapping_unmap_local(held);
	migrate_enable();
	if (other) {
		kthread_stop(other);
		put_task_struct(other);
	}
	req->faulted = o.faulted;
	req->same_slot = o.same_slot;
	req->read_own = o.read_own;
	if (req->preemptible != pvmap_io_mapping_local_preemptible())
		return local_mode_wrong(ctx, req);
	if (after != LOCAL_TAG)
		return test_fail(ctx, "the held address read %#x (0: faulted), its page holds %#x",
				 after, LOCAL_TAG);
	if (!pvmap_test_faults(held))
		return test_fail(ctx, "the held address is reachable after its unmap");
	if (!other) {
		if (!atomic_ok)
			return test_fail(ctx, "atomic fallback: preempt_count %d, pagefaults %d",
					 preempt_count(), pagefault_disabled());
		return test_pass(ctx, "atomic fallback: preemption, page faults off while mapped");
	}
	if (!req->switches || !o.faulted || !o.same_slot || !o.read_own)
		return test_fail(ctx, "%u switches; other task: faulted %d, same slot %d, own %d",
				 req->switches, o.faulted, o.same_slot, o.read_own);
	return test_pass(ctx, "held across %u switches: the other task faulted, mapped the slot",
			 req->switches);
}

/* FAULT_INSIDE: tries, each with a source page of its own, for a switch inside the fault */
#define LOCAL_FAULT_TRIES	4

/*
 * The other task of FAULT_INSIDE, made ready to take this CPU from the
 * holder: bound to it, SCHED_FIFO. NULL (and @err set) on failure.
 */
static struct task_struct *local_other_ready(struct local_other *o, int *err)
{
	struct task_struct *other;

	other = kthread_create_on_cpu(local_other_task, o, smp_processor_id(), "pvmap_local/%u");
	if (IS_ERR(other)) {
		*err = PTR_ERR(other);
		return NULL;
	}
	get_task_struct(other);
	sched_set_fifo(other);
	return other;
}

static void local_other_stop(struct task_struct *other)
{
	kthread_stop(other);
	put_task_struct(other);
}

/*
 * Page faults inside the map: a whole page copied from a user page into
 * the aperture page and back out to @user_out, neither present in the
 * caller's page tables. With preemptible local maps both faults are
 * served and the copies are whole, and (with slots) a task switch is made
 * inside the first: right after the map, a SCHED_FIFO kthread bound to
 * this CPU is woken, which sets need_resched but, in a kernel preempting
 * voluntarily (Debian's), takes the CPU only at the next resched point,
 * the might_sleep() of the page fault; nothing in between has one. It
 * runs while the holder is inside the fault: its nofault read of the held
 * address must fault, its own local map must take the same address and
 * read its own page. Where the kernel switched elsewhere (the kthread ran
 * before the copy, or only after it), again with the next source page.
 * Atomic, the first access faults and each copy comes back short.
 */
static int local_fault_inside(struct pvmap_test_ctx *ctx, struct pvmap_test_local *req,
			      const u64 *off)
{
	void __user *dst = u64_to_user_ptr(req->user_out);
	int preempt = preempt_count(), pagefaults = pagefault_disabled();
	bool switching = ctx->slots && pvmap_io_mapping_local_preemptible();
	unsigned int try, tries = switching ? min_t(u32, req->user_pages, LOCAL_FAULT_TRIES) : 1;
	struct local_other o = { .ctx = ctx, .off = off[1] };
	struct task_struct *other = NULL;
	unsigned long left_from = PAGE_SIZE, left_to = PAGE_SIZE, switches;
	bool before = false, inside = false;
	void __iomem *held = NULL;
	int err = 0;
	size_t ok;

	if (switching && !tries)
		return test_fail(ctx, "no source page for the switch inside the fault");
	for (try = 0; try < tries; try++) {
		void __user *src = u64_to_user_ptr(req->user + (u64)try * PAGE_SIZE);

		init_completion(&o.done);
		o.faulted = false;
		o.same_slot = false;
		o.read_own = false;
		/* the kthread is bound to this CPU, whose TLB holds the entries */
		migrate_disable();
		if (switching) {
			other = local_other_ready(&o, &err);
			if (!other) {
				migrate_enable();
				return err;
			}
		}
		switches = current->nvcsw + current->nivcsw;
		held = pvmap_io_mapping_map_local_wc(ctx->m, off[0]);
		if (!held) {
			migrate_enable();
			if (other)
				local_other_stop(other);
			return test_fail(ctx, "local map of %#llx returned NULL", off[0]);
		}
		req->preemptible = pvmap_test_map_preemptible(preempt, pagefaults);
		o.held = held;
		if (other)
			wake_up_process(other);
		/* no resched point from the wake to the fault: the kthread has not run */
		before = completion_done(&o.done);
		/*
		 * Not copy_from_user(): it zeroes what it did not copy with a
		 * plain memset(), which oopses where the held address faults
		 * (a map not restored at the switch in), not a failure.
		 */
		left_from = access_ok(src, PAGE_SIZE) ?
			    __copy_from_user((void __force *)held, src, PAGE_SIZE) : PAGE_SIZE;
		inside = !before && completion_done(&o.done);
		left_to = copy_to_user(dst, (void __force *)held, PAGE_SIZE);
		req->switches = current->nvcsw + current->nivcsw - switches;
		pvmap_io_mapping_unmap_local(held);
		migrate_enable();
		if (other)
			local_other_stop(other);
		if (!switching || inside)
			break;
	}
	req->copied_from = PAGE_SIZE - left_from;
	req->copied_to = PAGE_SIZE - left_to;
	req->faulted = o.faulted;
	req->same_slot = o.same_slot;
	req->read_own = o.read_own;
	if (req->preemptible != pvmap_io_mapping_local_preemptible())
		return local_mode_wrong(ctx, req);
	if (!req->preemptible) {
		if (left_from == PAGE_SIZE && left_to == PAGE_SIZE)
			return test_pass(ctx, "atomic fallback: both copies short, nothing copied");
		/* a page already present copies: not what the caller promised */
		return test_fail(ctx, "atomic fallback: copies of %u and %u bytes, want none",
				 req->copied_from, req->copied_to);
	}
	if (switching && !inside)
		return test_fail(ctx, "%u tries: no switch inside the fault (other task ran %s)",
				 tries, before ? "before the copy" : "after it");
	if (left_from || left_to)
		return test_fail(ctx, "copies of %u and %u bytes of %lu in a local map%s",
				 req->copied_from, req->copied_to, PAGE_SIZE,
				 switching ? ", switched out inside the fault" : "");
	if (switching && (!o.faulted || !o.same_slot || !o.read_own))
		return test_fail(ctx, "in the fault: other task faulted %d, same slot %d, own %d",
				 o.faulted, o.same_slot, o.read_own);
	if (switching && !pvmap_test_faults(held))
		return test_fail(ctx, "the held address is reachable after its unmap");
	held = pvmap_io_mapping_map_atomic_wc(ctx->m, off[0]);
	if (!held)
		return test_fail(ctx, "atomic map of %#llx returned NULL", off[0]);
	memcpy_fromio(ctx->buf, held, PAGE_SIZE);
	pvmap_io_mapping_unmap_atomic(held);
	ok = pvmap_pattern_check(ctx->buf, PAGE_SIZE, req->seed, 0);
	if (ok != PAGE_SIZE)
		return test_fail(ctx, "the aperture page differs from the user page at %zu", ok);
	if (!switching)
		return test_pass(ctx, "both copies whole, faults served inside the local map");
	return test_pass(ctx, "switched out in the fault (try %u, %u switches): %s",
			 try + 1, req->switches,
			 "the other task faulted, mapped the slot; both copies whole");
}

/* FAULT_INSIDE with the page it writes saved first and put back after. */
static int local_fault_inside_saved(struct pvmap_test_ctx *ctx, struct pvmap_test_local *req,
				    const u64 *off)
{
	void *saved = kmalloc(PAGE_SIZE, GFP_KERNEL);
	void __iomem *p;
	int ret;

	if (!saved)
		return -ENOMEM;
	p = pvmap_io_mapping_map_atomic_wc(ctx->m, off[0]);
	if (!p) {
		kfree(saved);
		return test_fail(ctx, "atomic map of %#llx returned NULL", off[0]);
	}
	memcpy_fromio(saved, p, PAGE_SIZE);
	pvmap_io_mapping_unmap_atomic(p);
	ret = local_fault_inside(ctx, req, off);
	p = pvmap_io_mapping_map_atomic_wc(ctx->m, off[0]);
	if (p) {
		memcpy_toio(p, saved, PAGE_SIZE);
		pvmap_io_mapping_unmap_atomic(p);
	}
	kfree(saved);
	return ret;
}

/*
 * IRQ_NESTING: while the task holds its local map, an hrtimer on its CPU
 * (hardirq) and the tasklet it schedules (softirq) each map a page
 * atomically and a page locally (atomic there) above it, check they read
 * their own pages and that the held map still reads the task's, and unmap.
 * Then (@out) the same while the task holding the map sleeps, switched
 * out: each context's nofault read of the held address must fault, and
 * each of its maps, one at a time, must take the held address (the stack
 * is empty) and read its own page; the tasklet wakes the task.
 */
struct local_irq {
	struct hrtimer timer;
	struct tasklet_struct tasklet;
	struct completion woken;
	struct pvmap_io_mapping *m;
	struct task_struct *holder;
	void __iomem *held;
	u64 off[2];
	unsigned int maps, bad, held_gone;
	unsigned int over_holder, faulted, same_slot, read_own;
	void __iomem *seen[4];
	bool out, done;
};

/* One context's two maps, nested above the held one, counted in @l. */
static void local_irq_maps(struct local_irq *l, bool hard)
{
	void __iomem *a, *b;
	u32 val;

	/* the held map is the interrupted task's: live (unless it was switched out) */
	if (get_kernel_nofault(val, (u32 __force *)l->held) || val != LOCAL_TAG)
		l->held_gone++;
	a = pvmap_io_mapping_map_atomic_wc(l->m, l->off[0]);
	b = a ? pvmap_io_mapping_map_local_wc(l->m, l->off[1]) : NULL;
	if (!a || !b) {
		l->bad++;
		if (a)
			pvmap_io_mapping_unmap_atomic(a);
		return;
	}
	l->bad += readl(a) != IRQ_TAG || readl(b) != (IRQ_TAG | 1) || a == l->held ||
		  b == l->held || a == b;
	l->seen[hard * 2] = a;
	l->seen[hard * 2 + 1] = b;
	l->maps += 2;
	pvmap_io_mapping_unmap_local(b);
	pvmap_io_mapping_unmap_atomic(a);
}

/* Whether @p, one of an interrupt's maps made alone, took the held address and read @tag. */
static void local_irq_alone(struct local_irq *l, void __iomem *p, u32 tag)
{
	l->same_slot += p == l->held;
	l->read_own += readl(p) == tag;
	l->maps++;
}

/* The same while the holder is switched out: the held address faults, each map takes it. */
static void local_irq_maps_out(struct local_irq *l)
{
	void __iomem *p;

	/* landed over the holder (it has not slept yet): nothing to see, again */
	if (current == l->holder) {
		l->over_holder++;
		return;
	}
	l->faulted += pvmap_test_faults(l->held);
	p = pvmap_io_mapping_map_atomic_wc(l->m, l->off[0]);
	if (!p) {
		l->bad++;
		return;
	}
	local_irq_alone(l, p, IRQ_TAG);
	pvmap_io_mapping_unmap_atomic(p);
	p = pvmap_io_mapping_map_local_wc(l->m, l->off[1]);
	if (!p) {
		l->bad++;
		return;
	}
	local_irq_alone(l, p, IRQ_TAG | 1);
	pvmap_io_mapping_unmap_local(p);
}

static void local_irq_tasklet(struct tasklet_struct *t)
{
	struct local_irq *l = from_tasklet(l, t, tasklet);

	if (l->out) {
		local_irq_maps_out(l);
		complete(&l->woken);
		return;
	}
	local_irq_maps(l, false);
	WRITE_ONCE(l->done, true);
}

static enum hrtimer_restart local_irq_timer(struct hrtimer *t)
{
	struct local_irq *l = container_of(t, struct local_irq, timer);

	if (l->out)
		local_irq_maps_out(l);
	else
		local_irq_maps(l, true);
	tasklet_schedule(&l->tasklet);
	return HRTIMER_NORESTART;
}

#define LOCAL_IRQ_TRIES		5
#define LOCAL_IRQ_WAIT_US	(500 * USEC_PER_MSEC)
#define LOCAL_IRQ_OUT_MS	10000

/* The interrupts over the held map, the task running: 0, or a verdict. */
static int local_irq_over(struct pvmap_test_ctx *ctx, struct pvmap_test_local *req,
			  struct local_irq *l, const u64 *off, unsigned int *tries)
{
	int preempt = preempt_count(), pagefaults = pagefault_disabled();
	unsigned int try, i, bad = 0;
	void __iomem *held;
	u64 t0;

	/* an interrupt that lands while this task is switched out nests above no map: again */
	for (try = 0; try < LOCAL_IRQ_TRIES; try++) {
		migrate_disable();
		held = pvmap_io_mapping_map_local_wc(ctx->m, off[0]);
		if (!held) {
			migrate_enable();
			return test_fail(ctx, "local map of %#llx returned NULL", off[0]);
		}
		req->preemptible = pvmap_test_map_preemptible(preempt, pagefaults);
		writel(LOCAL_TAG, held);
		l->held = held;
		l->maps = 0;
		l->bad = 0;
		l->held_gone = 0;
		WRITE_ONCE(l->done, false);
		/* pinned: it fires on this CPU, over this task (spinning, not sleeping) */
		hrtimer_start(&l->timer, ns_to_ktime(NSEC_PER_MSEC), HRTIMER_MODE_REL_PINNED);
		t0 = ktime_get_ns();
		while (!READ_ONCE(l->done) &&
		       ktime_get_ns() - t0 < LOCAL_IRQ_WAIT_US * NSEC_PER_USEC)
			cpu_relax();
		bad += readl(held) != LOCAL_TAG;
		pvmap_io_mapping_unmap_local(held);
		/* after the unmap: where the map is atomic, tasklet_kill() may sleep */
		hrtimer_cancel(&l->timer);
		tasklet_kill(&l->tasklet);
		migrate_enable();
		if (l->maps == 4 && !l->held_gone)
			break;
	}
	*tries = try + 1;
	req->irq_maps = l->maps;
	for (i = 0; ctx->slots && i < ARRAY_SIZE(l->seen); i++)
		bad += l->seen[i] && !pvmap_test_faults(l->seen[i]);
	if (ctx->slots && !pvmap_test_faults(held))
		bad++;
	if (req->preemptible != pvmap_io_mapping_local_preemptible())
		return local_mode_wrong(ctx, req);
	if (try == LOCAL_IRQ_TRIES)
		return test_fail(ctx, "%u tries: %u maps in interrupts, %u found the held map gone",
				 try, l->maps, l->held_gone);
	if (bad || l->bad)
		return test_fail(ctx, "wrong in interrupts %u, in the task or after unmap %u",
				 l->bad, bad);
	return 0;
}

/*
 * The interrupts while the task holding the map sleeps, switched out: 0,
 * or a verdict. The timer is armed for 1 ms after the task's last step
 * before it sleeps; one that lands over it anyway is tried again.
 */
static int local_irq_out(struct pvmap_test_ctx *ctx, struct pvmap_test_local *req,
			 struct local_irq *l, const u64 *off, unsigned int *tries)
{
	unsigned long switches = 0;
	unsigned int try, bad = 0;
	void __iomem *held = NULL;
	bool woken = true;
	u32 after = 0;

	l->out = true;
	l->holder = current;
	for (try = 0; try < LOCAL_IRQ_TRIES; try++) {
		init_completion(&l->woken);
		l->maps = 0;
		l->bad = 0;
		l->over_holder = 0;
		l->faulted = 0;
		l->same_slot = 0;
		l->read_own = 0;
		migrate_disable();
		held = pvmap_io_mapping_map_local_wc(ctx->m, off[0]);
		if (!held) {
			migrate_enable();
			return test_fail(ctx, "local map of %#llx returned NULL", off[0]);
		}
		writel(LOCAL_TAG, held);
		l->held = held;
		switches = current->nvcsw + current->nivcsw;
		/* pinned: it fires on this CPU, while this task sleeps */
		hrtimer_start(&l->timer, ns_to_ktime(NSEC_PER_MSEC), HRTIMER_MODE_REL_PINNED);
		/*
		 * Generous: a vCPU stalled on a loaded host resumes with the wait's
		 * timeout (TIMER softirq) run before the tasklet (TASKLET softirq)
		 */
		woken = wait_for_completion_timeout(&l->woken, msecs_to_jiffies(LOCAL_IRQ_OUT_MS));
		switches = current->nvcsw + current->nivcsw - switches;
		/* a map not restored at the switch in faults here: a failure, not an oops */
		if (get_kernel_nofault(after, (u32 __force *)held))
			after = 0;
		pvmap_io_mapping_unmap_local(held);
		hrtimer_cancel(&l->timer);
		tasklet_kill(&l->tasklet);
		migrate_enable();
		if (!woken || !l->over_holder)
			break;
	}
	*tries = try + 1;
	req->switches = switches;
	req->faulted = l->faulted;
	req->same_slot = l->same_slot;
	req->read_own = l->read_own;
	req->irq_maps += l->maps;
	bad += !pvmap_test_faults(held);
	if (!woken)
		return test_fail(ctx, "switched out: the tasklet did not wake the task in %u ms",
				 LOCAL_IRQ_OUT_MS);
	if (l->over_holder)
		return test_fail(ctx, "%u tries: the interrupts landed over the task, not asleep",
				 try);
	if (after != LOCAL_TAG)
		return test_fail(ctx, "switched in: held address read %#x (0: faulted), want %#x",
				 after, LOCAL_TAG);
	if (l->faulted != 2 || l->same_slot != 4 || l->read_own != 4 || l->bad || bad)
		return test_fail(ctx, "asleep: %u/2 probes faulted; of 4 maps %u %s, %u %s; %u %u",
				 l->faulted, l->same_slot, "took its slot", l->read_own,
				 "read their own page; wrong, after unmap", l->bad, bad);
	return 0;
}

static int local_irq_nesting(struct pvmap_test_ctx *ctx, struct pvmap_test_local *req,
			     const u64 *off)
{
	struct local_irq l = { .m = ctx->m, .off = { off[1], off[2] } };
	unsigned int over = 0, out = 0;
	int ret;

	hrtimer_init(&l.timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
	l.timer.function = local_irq_timer;
	tasklet_setup(&l.tasklet, local_irq_tasklet);
	ret = local_irq_over(ctx, req, &l, off, &over);
	if (ret || ctx->h->status != PVMAP_TEST_PASS)
		return ret;
	/* atomic local maps cannot sleep; the whole aperture clears nothing */
	if (!req->preemptible || !ctx->slots)
		return test_pass(ctx, "hardirq, tasklet: %s (try %u); %s",
				 "atomic+local maps above the held one", over,
				 req->preemptible ? "whole aperture: none while it sleeps" :
				 "atomic: not held asleep");
	ret = local_irq_out(ctx, req, &l, off, &out);
	if (ret || ctx->h->status != PVMAP_TEST_PASS)
		return ret;
	return test_pass(ctx, "hardirq, tasklet: above the held map (try %u), %s (try %u, %u %s)",
			 over, "in its slot while it slept", out, req->switches, "switches");
}

int pvmap_test_local(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_local *req = arg;
	u32 saved[3];
	u64 off[3];
	int ret;

	if (req->scenario > PVMAP_LOCAL_IRQ_NESTING)
		return -EINVAL;
	req->preemptible = 0;
	req->switches = 0;
	req->faulted = 0;
	req->same_slot = 0;
	req->read_own = 0;
	req->copied_from = 0;
	req->copied_to = 0;
	req->irq_maps = 0;
	local_pages(ctx, off, ARRAY_SIZE(off));
	req->offset = off[0];
	if (req->scenario == PVMAP_LOCAL_FAULT_INSIDE) {
		/* the other task's page, for a switch inside the fault */
		saved[1] = local_swap(ctx, off[1], OTHER_TAG);
		ret = local_fault_inside_saved(ctx, req, off);
		local_swap(ctx, off[1], saved[1]);
		return ret;
	}
	saved[0] = local_swap(ctx, off[0], 0);
	saved[1] = local_swap(ctx, off[1], req->scenario == PVMAP_LOCAL_PREEMPTED ? OTHER_TAG :
			      IRQ_TAG);
	saved[2] = local_swap(ctx, off[2], IRQ_TAG | 1);
	if (req->scenario == PVMAP_LOCAL_PREEMPTED)
		ret = local_preempted(ctx, req, off);
	else
		ret = local_irq_nesting(ctx, req, off);
	local_swap(ctx, off[0], saved[0]);
	local_swap(ctx, off[1], saved[1]);
	local_swap(ctx, off[2], saved[2]);
	return ret;
}
