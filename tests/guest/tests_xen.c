// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-tests: pvmap under real Xen (run-guest --xen: Debian's amd64 kernel as
 * Xen 4.17's PV dom0), its hypercalls counted with the kernel's own Xen trace
 * events (include/trace/events/xen.h) in a tracefs instance of its own. Every
 * PTE write of a PV guest is Xen's to validate: in a lazy-MMU section Linux
 * queues them into a multicall (xen_mc_flush issues it), outside one each is
 * an mmu_update hypercall of its own, and each TLB invalidation an mmuext_op.
 * Skipped on every other guest. A feature program of pvmap-tests (feature_list.h).
 */
#include "pvmap-tests.h"

#include <limits.h>
#include <stdatomic.h>

#define XEN_TRACE	GUEST_TRACEFS "/instances/pvmap-xen"

/* Whether this kernel runs as a Xen PV domain (drivers/xen/sys-hypervisor.c). */
static bool xen_pv(void)
{
	char type[16] = "", guest[16] = "";

	guest_read_file("/sys/hypervisor/type", type, sizeof(type));
	guest_read_file("/sys/hypervisor/guest_type", guest, sizeof(guest));
	return !strncmp(type, "xen", 3) && !strncmp(guest, "PV", 2);
}

/*
 * sched_switch: a switch to this task issues multicalls of its own, and a
 * switch away inside one of pvmap's batches (pvmap_pte's marks B and E)
 * would send the batch's queue unrecorded.
 */
static const char *const xen_events[] = {
	"xen/xen_mc_flush", "xen/xen_mc_extend_args", "xen/xen_mmu_set_pte",
	"xen/xen_mmu_flush_tlb_one_user", "pvmap_xen/xen_flush_tlb", "sched/sched_switch",
	"pvmap/pvmap_pte",
};

/* xen_flush_tlb() (MMUEXT_TLB_FLUSH_LOCAL) has no trace event: a kprobe event counts it */
#define XEN_FLUSH_TLB_PROBE	"p:pvmap_xen/xen_flush_tlb xen_flush_tlb"

/*
 * Leave tracefs as it was: events off, the instance and the kprobe event
 * gone (each test runs in a child of its own; this runs on every path).
 */
static void xen_trace_remove(void)
{
	char path[256];
	int fd;

	guest_write_file(XEN_TRACE "/tracing_on", "0");
	for (size_t i = 0; i < ARRAY_SIZE(xen_events); i++) {
		snprintf(path, sizeof(path), XEN_TRACE "/events/%s/enable", xen_events[i]);
		guest_write_file(path, "0");
	}
	rmdir(XEN_TRACE);
	fd = open(GUEST_TRACEFS "/kprobe_events", O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "-:pvmap_xen/xen_flush_tlb", 25) < 0)
			printf("# cannot remove the kprobe event: %s\n", strerror(errno));
		close(fd);
	}
}

/* Start recording Xen's trace events of this process only: 0, or -1 with tracefs as it was. */
static int xen_trace_start(void)
{
	char path[256], pid[16];
	int fd, ret = 0;

	fd = open(GUEST_TRACEFS "/kprobe_events", O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0 || (write(fd, XEN_FLUSH_TLB_PROBE, strlen(XEN_FLUSH_TLB_PROBE)) < 0 &&
		       errno != EEXIST)) {
		if (fd >= 0)
			close(fd);
		return fail("cannot add the kprobe event %s: %s", XEN_FLUSH_TLB_PROBE,
			    strerror(errno));
	}
	close(fd);
	if (mkdir(XEN_TRACE, 0700) && errno != EEXIST)
		ret = fail("mkdir %s: %s", XEN_TRACE, strerror(errno));
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (!ret && (guest_write_file(XEN_TRACE "/tracing_on", "0") ||
		     guest_write_file(XEN_TRACE "/buffer_size_kb", "4096") ||
		     guest_write_file(XEN_TRACE "/set_event_pid", pid)))
		ret = fail("cannot set up the trace instance %s", XEN_TRACE);
	for (size_t i = 0; i < ARRAY_SIZE(xen_events) && !ret; i++) {
		snprintf(path, sizeof(path), XEN_TRACE "/events/%s/enable", xen_events[i]);
		if (guest_write_file(path, "1"))
			ret = fail("cannot enable the trace event %s", xen_events[i]);
	}
	/* opened for writing with O_TRUNC, tracefs's trace file empties the buffer */
	if (!ret)
		close(open(XEN_TRACE "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC));
	if (!ret && guest_write_file(XEN_TRACE "/tracing_on", "1"))
		ret = fail("cannot start tracing");
	if (ret)
		xen_trace_remove();
	return ret;
}

/* What the recorded events say, as hypercalls. */
struct xen_hypercalls {
	unsigned long flushes;		/* multicall buffers issued (one hypercall each) */
	unsigned long entries;		/* the entries in them */
	unsigned long pte_writes;	/* PTE writes through Xen's pv_ops */
	unsigned long batched;		/* of them, queued into a multicall */
	unsigned long invlpgs;		/* TLB invalidations of one page */
	unsigned long flush_alls;	/* flushes of this vCPU's whole TLB */
	unsigned long lost;		/* events the buffer overwrote or dropped */
	unsigned long irq_events;	/* events of interrupts that came in meanwhile */
	unsigned long batches;		/* pvmap's batches (lazy-MMU sections) */
	unsigned long switch_flushes;	/* multicalls of switches to this task */
	unsigned long switched_in_batch; /* switches away inside one of pvmap's batches */
};

/*
 * Whether a trace line was recorded in interrupt context: its flags field
 * ("d..1.") says hardirq or softirq third. An interrupt's events are not
 * the task's, except a multicall inside one of pvmap's batches, which
 * takes the batch's queue with it (xen_trace_stop()).
 */
static bool in_interrupt(const char *line)
{
	const char *flags = strstr(line, "] ");

	return flags && strlen(flags) > 4 && flags[4] != '.';
}

/* The pid a sched_switch line names after @key (" prev_pid=", " next_pid="), or -1. */
static int switch_pid(const char *line, const char *key)
{
	const char *at = strstr(line, "sched_switch: ");

	at = at ? strstr(at, key) : NULL;
	return at ? atoi(at + strlen(key)) : -1;
}

/*
 * Tracefs records a switch when either task is traced, and from then on
 * what the next task runs. A switch to this task is thus recorded to its
 * end, and Linux 6.1 ends it with two flushes of its own: __switch_to()'s
 * arch_end_context_switch() sends what the switch queued in lazy-CPU mode
 * (new page tables, whose two mmuext_ops xen_write_cr3() queues first, as
 * xen_mc_extend_args events; TLS), then update_task_stack() the new
 * kernel stack. Those two, and nothing after another event of the task,
 * are the scheduler's. (A previous task in lazy-MMU mode adds a flush of
 * its queue first; it then counts, failing the test, not passing it.)
 */
#define SWITCH_FLUSHES	2
#define SWITCH_CR3_OP	"xen_mc_extend_args: extending op 26("	/* mmuext_op */

/* PTE-update hypercalls: each multicall, and each PTE write made outside one. */
static unsigned long xen_hypercalls_total(const struct xen_hypercalls *h)
{
	return h->flushes + (h->pte_writes - h->batched);
}

/* Events the instance's buffers overwrote or dropped, on every CPU (their stats files). */
static unsigned long xen_trace_lost(void)
{
	unsigned long lost = 0;
	char path[256], text[1024];

	for (int cpu = 0; ; cpu++) {
		const char *keys[] = { "overrun: ", "dropped events: " };

		snprintf(path, sizeof(path), XEN_TRACE "/per_cpu/cpu%d/stats", cpu);
		if (guest_read_file(path, text, sizeof(text)) <= 0)
			return cpu ? lost : ULONG_MAX;	/* no stats at all: cannot tell */
		for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
			char *at = strstr(text, keys[k]);

			lost += at ? strtoul(at + strlen(keys[k]), NULL, 10) : 0;
		}
	}
}

/* The trace's text, NUL-terminated (malloc'd), or NULL. */
static char *xen_trace_text(void)
{
	size_t len = 0, cap = 0;
	char *text = NULL;
	ssize_t n;
	int fd;

	fd = open(XEN_TRACE "/trace", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	do {
		if (cap - len < 65536) {
			char *more = realloc(text, cap += 1 << 20);

			if (!more) {
				free(text);
				close(fd);
				return NULL;
			}
			text = more;
		}
		n = read(fd, text + len, cap - len - 1);
		len += n > 0 ? n : 0;
	} while (n > 0);
	close(fd);
	text[len] = '\0';
	return text;
}

/* Stop recording, count the events and leave tracefs as it was: 0 or -1. */
static int xen_trace_stop(struct xen_hypercalls *h)
{
	bool in_batch = false;	/* between pvmap_pte's batch marks B and E */
	int switch_left = 0;	/* flushes of a switch to this task still to come */
	int self = getpid();
	char *line, *text;

	memset(h, 0, sizeof(*h));
	guest_write_file(XEN_TRACE "/tracing_on", "0");
	text = xen_trace_text();
	h->lost = xen_trace_lost();
	xen_trace_remove();
	if (!text)
		return fail("cannot read %s/trace", XEN_TRACE);
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned int mcidx = 0;
		char *at = strstr(line, "xen_mc_flush: flushing ");
		bool flush = at && sscanf(at, "xen_mc_flush: flushing %u", &mcidx) == 1;

		if (in_interrupt(line)) {
			h->irq_events++;
			/*
			 * Linux is out of lazy mode in an interrupt: its
			 * multicall takes the task's queue, so inside one of
			 * pvmap's batches it counts as the batch's.
			 */
			if (flush && in_batch && mcidx) {
				h->flushes++;
				h->entries += mcidx;
			}
			continue;
		}
		if (flush) {
			if (switch_left && mcidx) {
				h->switch_flushes++;
				printf("# Xen: left out, a switch's multicall: %s\n", at);
			} else if (mcidx) {
				h->flushes++;
				h->entries += mcidx;
			}
			switch_left -= !!switch_left;
			continue;
		}
		if (switch_left == SWITCH_FLUSHES && strstr(line, SWITCH_CR3_OP))
			continue;	/* the switch's new page tables, queued */
		switch_left = 0;
		if (strstr(line, " pvmap_pte: B ")) {
			in_batch = true;
			h->batches++;
		} else if (strstr(line, " pvmap_pte: E ")) {
			in_batch = false;
		} else if (switch_pid(line, " prev_pid=") == self) {
			h->switched_in_batch += in_batch;
		} else if (switch_pid(line, " next_pid=") == self) {
			switch_left = SWITCH_FLUSHES;
		} else if (strstr(line, "xen_mc_extend_args: extending op 1(")) {
			h->batched++;	/* xen_batched_set_pte() extends an mmu_update */
		} else if (strstr(line, "xen_mmu_set_pte: ")) {
			h->pte_writes++;
		} else if (strstr(line, "xen_mmu_flush_tlb_one_user: ")) {
			h->invlpgs++;
		} else if (strstr(line, "xen_flush_tlb: ")) {
			h->flush_alls++;
		} else if (strstr(line, "LOST")) {
			h->lost++;
		}
	}
	free(text);
	printf("# Xen: %lu PTE writes (%lu queued into multicalls), %lu page invalidations, "
	       "%lu whole-TLB flushes, %lu batches, %lu multicall buffers issued (%lu entries): "
	       "%lu PTE-update hypercalls; left out: %lu events of interrupts, "
	       "%lu multicalls of switches to this task\n", h->pte_writes,
	       h->batched, h->invlpgs, h->flush_alls, h->batches, h->flushes, h->entries,
	       xen_hypercalls_total(h), h->irq_events, h->switch_flushes);
	if (h->batched && !h->batches)
		return fail("PTE writes were queued, but no pvmap batch was seen");
	if (h->switched_in_batch)
		return fail("switched away %lu times inside pvmap's batch: its queue went "
			    "out unrecorded", h->switched_in_batch);
	return h->lost ? fail("the trace lost events (or its stats cannot be read)") : 0;
}

/*
 * The slot engine's ivshmem aperture on a Xen PV domain, opened; else the
 * test skips (-1), or fails where there is no aperture.
 */
static int xen_slots_fd(struct __test_metadata *_metadata, struct device **d)
{
	int fd;

	if (!xen_pv())
		SKIP(return -1, "not a Xen PV domain");
	fd = open_ivshmem(d);
	ASSERT_LE(0, fd);	/* open_ivshmem() said why */
	if (!((*d)->info.flags & PVMAP_INFO_F_CLEARS_ON_UNMAP)) {
		close(fd);
		SKIP(return -1, "whole-aperture mapping: a PWRITE writes no PTE");
	}
	return fd;
}

/* As xen_slots_fd(), for a test that needs the device only: whether the test goes on. */
static bool xen_slots_device(struct __test_metadata *_metadata, struct device **d)
{
	int fd = xen_slots_fd(_metadata, d);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * A thread that spins on this thread's CPU (it inherits the pin) until
 * cpu_hog_stop(): the scheduler switches between the two. A thread, not a
 * process: its tid is not traced, and no fork leaves the test's pages
 * copy-on-write (each fault a PTE write of its own).
 */
struct cpu_hog {
	pthread_t thread;
	atomic_bool stop;
};

static void *cpu_hog_run(void *arg)
{
	struct cpu_hog *hog = arg;

	while (!atomic_load_explicit(&hog->stop, memory_order_relaxed))
		;
	return NULL;
}

static int cpu_hog_start(struct cpu_hog *hog)
{
	atomic_init(&hog->stop, false);
	return pthread_create(&hog->thread, NULL, cpu_hog_run, hog);
}

static void cpu_hog_stop(struct cpu_hog *hog)
{
	atomic_store(&hog->stop, true);
	pthread_join(hog->thread, NULL);
}

/*
 * A 1 MiB PWRITE through the slot engine (256 pages, 16 per batch): its
 * 512 PTE writes and the invalidation of every page it cleared reach Xen
 * in at most 2 hypercalls per 16 pages. Without pvmap's batch bracket each
 * PTE write would be an mmu_update and each invalidation an mmuext_op of
 * its own; with 16 single-page invalidations per batch, Linux's multicall
 * buffer overflows into a third (pvmap_native_flush_whole()). A thread
 * spinning on the same CPU lets the scheduler switch away between batches,
 * as on a busy machine: the two multicalls that end each switch back are
 * left out, every other multicall of the task counts.
 */
TEST_F(pvmap, xen_pwrite_multicalls)
{
	uint64_t off, seed = random_u64(), done = 0;
	struct xen_hypercalls h;
	unsigned long want;
	struct device *d;
	uint8_t *buf;
	struct cpu_hog hog;
	int fd, ret = 0, err;

	fd = xen_slots_fd(_metadata, &d);
	if (fd < 0)
		return;
	ASSERT_EQ(0, pin_cpu(0)) TH_LOG("cannot pin to CPU 0: %s", strerror(errno));
	off = (random_u64() % (d->info.aperture_size / MIB)) * MIB;
	/* filled before the trace starts: only the PWRITE's own PTE writes count */
	buf = malloc(MIB);
	ASSERT_NE(NULL, buf) TH_LOG("out of memory");
	pvmap_pattern_fill(buf, MIB, seed, off);
	err = cpu_hog_start(&hog);
	ASSERT_EQ(0, err) TH_LOG("cannot start a thread beside the PWRITE: %s", strerror(err));
	/* from here tracefs must be left as it was: the verdict after the cleanup */
	ret = xen_trace_start();
	if (!ret && (guest_rw(fd, true, off, buf, MIB, &done) || done != MIB)) {
		TH_LOG("PWRITE of 1 MiB at %#llx: %s, %llu done", (unsigned long long)off,
		       strerror(errno), (unsigned long long)done);
		ret = -1;
		xen_trace_remove();
	}
	/* the trace ends with the PWRITE, before the hog's exit and join */
	guest_write_file(XEN_TRACE "/tracing_on", "0");
	cpu_hog_stop(&hog);
	if (!ret)
		ret = xen_trace_stop(&h);
	free(buf);
	close(fd);
	ASSERT_EQ(0, ret);
	printf("# pvmap-host: pattern off=%#llx len=%#llx seed=%#llx\n",
	       (unsigned long long)off, (unsigned long long)MIB, (unsigned long long)seed);
	ASSERT_TRUE(guest_host_sync("pattern")) TH_LOG("host did not acknowledge the pattern");
	want = 2 * (MIB / PAGE / 16);
	ASSERT_LE(512, h.pte_writes)
		TH_LOG("want 512 PTE writes and every page invalidated through Xen");
	ASSERT_LE(256, h.invlpgs + 16 * h.flush_alls)
		TH_LOG("want 512 PTE writes and every page invalidated through Xen");
	ASSERT_GE(want, xen_hypercalls_total(&h))
		TH_LOG("%lu PTE-update hypercalls, want at most %lu (2 per 16 pages)",
		       xen_hypercalls_total(&h), want);
}

/*
 * After unmap the old address faults: pvmap's invalidations went to Xen and
 * Xen flushed. The API's own cases probe each old address in the kernel
 * (pvmap_test_faults()): one page (stale: an mmuext_op INVLPG_LOCAL) and a
 * 16-page range (range16: one TLB_FLUSH_LOCAL, past what one multicall
 * holds; its check reads the pages back one map at a time, each with its
 * own INVLPG_LOCAL, so the whole flush is counted apart).
 */
TEST_F(pvmap, xen_stale_faults)
{
	static const char *const cases[] = { "stale", "range16" };
	static const bool whole[] = { false, true };
	struct xen_hypercalls h;
	struct device *d;
	int ret;

	if (!xen_slots_device(_metadata, &d))
		return;
	pin_cpu(0);
	/* loaded before the trace starts: only the cases' own PTE writes count */
	ret = guest_test_load("");
	if (ret != -EEXIST) {
		ASSERT_EQ(0, ret) TH_LOG("cannot load pvmap_test: %s", strerror(-ret));
	}
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		/* each leaves tracefs as it was, also when it fails */
		ASSERT_EQ(0, xen_trace_start());
		ret = kernel_case(cases[i]);
		if (ret)
			xen_trace_remove();
		ASSERT_EQ(0, ret);	/* kernel_case() said why; a skip here is no result */
		ASSERT_EQ(0, xen_trace_stop(&h));
		ASSERT_NE(0, whole[i] ? h.flush_alls : h.invlpgs)
			TH_LOG("%s: no %s through Xen", cases[i],
			       whole[i] ? "local flush of the range" : "invalidation of the page");
	}
}

/*
 * pvmap_test's hazard engine (io_mapping before its clear-on-unmap) under
 * Xen: the write through the old pointer lands, and the host sees it (its
 * sentinel overwritten, the audit finds the stale mapping); then pvmap's
 * own map: the same write faults, the sentinel stays. The host checks both
 * (hazard_outcome_hazard, hazard_outcome_normal).
 */
TEST_F(pvmap, xen_hazard_demo)
{
	static const char *const modes[] = { "hazard_demo=1", "hazard_demo=0" };
	struct device *d;

	if (!xen_slots_device(_metadata, &d))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		bool landed = false;
		int loaded, ran = -1;

		guest_test_unload();
		loaded = guest_test_load(modes[i]);
		if (!loaded)
			ran = guest_hazard_scenario(d->info.aperture_base, d->info.aperture_size,
						    &landed);
		/* hazard_demo=1 is nothing to leave behind, whatever the verdict */
		guest_test_unload();
		ASSERT_EQ(0, loaded) TH_LOG("cannot load pvmap_test with %s", modes[i]);
		ASSERT_EQ(0, ran) TH_LOG("the scenario did not run (%s)", modes[i]);
		ASSERT_EQ(i == 0, landed) TH_LOG("%s: the write through the old pointer %s",
						 modes[i], landed ? "landed" : "faulted");
	}
}

TEST_HARNESS_MAIN
