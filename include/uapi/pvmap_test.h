/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The ABI of pvmap's test modules (guest/pvmap_test/), for test machines only:
 * pvmap_test.ko's ioctls on debugfs pvmap_test (the io_mapping API's cases
 * on kernels without KUnit, and the fixtures a test coordinates with the
 * host) and pvmap_bench.ko's on debugfs pvmap_bench (the bench engines), on
 * the model of mm/gup_test.h. Fixed-width fields and explicit padding only,
 * so i386 and x86_64 user space see one layout (tests/unit/test_pattern.c).
 *
 * Every request starts with struct pvmap_test_head: the aperture it is
 * about, and how it ended. An ioctl that fails (-1) did not run: EPERM when
 * the range is no aperture the test modules may map, EINVAL for arguments
 * out of range (a request that maps needs at least 2 MiB, page-aligned).
 * One that ran returns 0 with its verdict in status and its
 * results in the typed fields; msg is for people, never parsed.
 */
#ifndef _UAPI_PVMAP_TEST_H
#define _UAPI_PVMAP_TEST_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define PVMAP_TEST_MSG_LEN	120

enum pvmap_test_status {
	PVMAP_TEST_PASS		= 0,
	PVMAP_TEST_FAIL		= 1,
	PVMAP_TEST_SKIP		= 2,
};

struct pvmap_test_head {
	__u64 base;			/* in: the aperture's physical address */
	__u64 size;			/* in: its size in bytes */
	__u32 status;			/* out: enum pvmap_test_status */
	__u32 pad;
	char msg[PVMAP_TEST_MSG_LEN];	/* out: what happened, for people */
};

#define PVMAP_TEST_NAME_LEN	32

/*
 * API: the io_mapping API's case @name (guest/pvmap_test/pvmap_api_cases.c's
 * table: "nested", "range1", ...), NUL-terminated; EINVAL when it is not,
 * ENOENT when no case has the name.
 */
struct pvmap_test_api {
	struct pvmap_test_head h;
	char name[PVMAP_TEST_NAME_LEN];	/* in */
	__u32 warns;			/* out: the WARNs the case provoked on purpose */
	__u32 pad;
};

/* The cache mode a PTE selects under the kernel's PAT table. */
enum pvmap_memtype {
	PVMAP_MEMTYPE_NONE	= 0,	/* no present PTE */
	PVMAP_MEMTYPE_UC_MINUS	= 1,
	PVMAP_MEMTYPE_UC	= 2,
	PVMAP_MEMTYPE_WB	= 3,
	PVMAP_MEMTYPE_WT	= 4,
	PVMAP_MEMTYPE_WC	= 5,
	PVMAP_MEMTYPE_WP	= 6,
	PVMAP_MEMTYPE_OTHER	= 7,
};

/*
 * MEMTYPE_HOLD: an atomic slot's memtype, then a sleepable map held until
 * MEMTYPE_RELEASE (from another process); MEMTYPE_QUERY: the held map (va 0
 * while none is).
 */
struct pvmap_test_memtype {
	struct pvmap_test_head h;
	__u64 va;			/* out: the held map's address */
	__u64 pa;			/* out: its physical address */
	__u32 slot;			/* out: enum pvmap_memtype of the atomic slot */
	__u32 held;			/* out: enum pvmap_memtype of the held map */
	__u32 pat;			/* out: PAT enabled */
	__u32 large;			/* out: the held map's PTE is a large page's */
};

/* MEMTYPE_CONFLICT: create_wc over an aperture with a UC- register page. */
struct pvmap_test_conflict {
	struct pvmap_test_head h;
	__s32 refused;			/* out: create_wc's error, 0 when it gave one */
	__u32 granted;			/* out: enum pvmap_memtype of the io_mapping */
	__u32 slot, pool, large;	/* out: enum pvmap_memtype of each kind of map */
	__u32 is_wc;			/* out: pvmap_io_mapping_is_wc() */
};

/* UC_HOLD / UC_RELEASE: the same register page, held across requests. */
struct pvmap_test_uc {
	struct pvmap_test_head h;
	__u32 memtype;			/* out: enum pvmap_memtype of the held page */
	__u32 pad;
};

/* POOL_HOLD (offset in; va, val out) / POOL_RELEASE (stale out). */
struct pvmap_test_pool {
	struct pvmap_test_head h;
	__u64 offset;			/* in: the page held */
	__u64 va;			/* out: its address */
	__u32 val;			/* out: its first u32 */
	__u32 stale;			/* out: CPUs that could read it after the unmap */
};

/* PROBE: a read of @va (vmalloc space only) on @cpu, in an IPI. */
struct pvmap_test_probe {
	struct pvmap_test_head h;
	__u64 va;			/* in */
	__u32 cpu;			/* in */
	__u32 faulted;			/* out: the read faulted */
	__u32 val;			/* out: what it read */
	__u32 pad;
};

#define PVMAP_TEST_F_KMEMLEAK		0x0001
#define PVMAP_TEST_F_LOCKDEP		0x0002
#define PVMAP_TEST_F_DEBUG_PAGEALLOC	0x0004
#define PVMAP_TEST_F_DEBUG_KMAP_LOCAL	0x0008
#define PVMAP_TEST_F_DEBUG_ATOMIC_SLEEP	0x0010
#define PVMAP_TEST_F_PTI		0x0020
#define PVMAP_TEST_F_PAT		0x0040
#define PVMAP_TEST_F_HIGHMEM		0x0080
#define PVMAP_TEST_F_KUNIT		0x0100
#define PVMAP_TEST_F_PTE_LAYER		0x0200	/* pvmap built with TEST_HOOKS */

/* FACILITIES: what this kernel has of what the suite leans on. */
struct pvmap_test_facilities {
	struct pvmap_test_head h;
	__u32 flags;			/* out: PVMAP_TEST_F_* */
	__u32 paging;			/* out: page-table levels */
};

/*
 * What a write through an unmapped pointer stores (pvmap_test_store_stale()):
 * the message's first PVMAP_TEST_STALE_LEN bytes, whole 64-bit words.
 */
#define PVMAP_TEST_STALE_MSG	"STALE WRITE through a pointer the guest had unmapped!!!!!"
#define PVMAP_TEST_STALE_LEN	56

/* HAZARD_MAP (va, offset, demo out) / HAZARD_WRITE (landed out). */
struct pvmap_test_hazard {
	struct pvmap_test_head h;
	__u64 va;
	__u64 offset;
	__u32 demo;			/* the module was loaded with hazard_demo=1 */
	__u32 landed;			/* the write through the old pointer landed */
};

/*
 * MAINLINE: the pattern through mainline's io_mapping, checked or filled;
 * PATTERN: the same through one of pvmap's maps (@engine).
 */
struct pvmap_test_pattern {
	struct pvmap_test_head h;
	__u64 offset, len, seed;	/* in: len <= 1 MiB */
	__u32 fill;			/* in: write it, else check it */
	__u32 engine;			/* in (PATTERN): enum pvmap_test_pattern_engine */
	__u64 bad;			/* out: aperture offset of the first wrong byte */
};

enum pvmap_test_pattern_engine {
	PVMAP_PATTERN_ATOMIC,		/* pvmap_io_mapping_map_atomic_wc(), a page at a time */
	PVMAP_PATTERN_RANGE,		/* map_atomic_range_wc(), up to 16 pages at a time */
	PVMAP_PATTERN_SLEEPABLE,	/* map_wc(), the whole range in one window */
	PVMAP_PATTERN_ENGINES,
};

/*
 * VGPU_WINDOW: virtio-gpu's host-visible window (shared memory region
 * VIRTIO_GPU_SHM_ID_HOST_VISIBLE) of the first virtio-gpu device and, with
 * @user_va, the physical address of the page there that this process maps
 * at @user_va (/proc/self/pagemap skips such VM_PFNMAP maps).
 */
struct pvmap_test_vgpu_window {
	struct pvmap_test_head h;
	__u64 base, size;		/* out */
	__u64 user_va;			/* in: an address of this process's map of a blob */
	__u64 user_phys;		/* out: where its page is (user_va 0: not asked) */
};

/*
 * BLOB_HAZARD: the page at window offset @offset mapped through @engine
 * (enum pvmap_test_blob_engine), written, unmapped;
 * then, once another task has sent BLOB_STEP GO, a write through the old
 * pointer (landed: it did not fault). BLOB_STEP ARM readies the next run,
 * WAIT_UNMAPPED returns once its unmap is done. Each wait ends after
 * @timeout_ms (-ETIMEDOUT) or on a fatal signal.
 */
struct pvmap_test_blob_hazard {
	struct pvmap_test_head h;
	__u64 offset;			/* in (HAZARD) */
	__u32 engine;			/* in (HAZARD) */
	__u32 timeout_ms;		/* in: 1 to 60000 */
	__u32 step;			/* in (STEP): enum pvmap_test_blob_step */
	__u32 landed;			/* out (HAZARD) */
	__u32 clears;			/* out (HAZARD): the engine clears on unmap */
	__u32 pad;
	__u64 va;			/* out: the old pointer */
};

enum pvmap_test_blob_engine {
	PVMAP_BLOB_PVMAP,		/* pvmap_io_mapping_map_atomic_wc() */
	PVMAP_BLOB_MAINLINE,		/* <linux/io-mapping.h>'s map_local */
	PVMAP_BLOB_PTE_LEFT,		/* hazard_demo's: the unmap leaves the PTE */
};

enum pvmap_test_blob_step {
	PVMAP_BLOB_ARM,
	PVMAP_BLOB_WAIT_UNMAPPED,
	PVMAP_BLOB_GO,
	PVMAP_BLOB_CANCEL,		/* as GO, but the run writes nothing (-ECANCELED) */
};

/*
 * IRQ_LOAD: atomic maps from hardirq and softirq on every CPU, until each
 * CPU has made @maps of each kind; failed when that takes over @msecs.
 */
struct pvmap_test_irq_load {
	struct pvmap_test_head h;
	__u64 offset, npages, maps, seed;		/* in */
	__u64 msecs;					/* in: the bound; out: time taken */
	__u64 hardirq, softirq, wrong, refused;		/* out: maps, all CPUs */
	__u64 hardirq_min, softirq_min;			/* out: the fewest of one CPU */
	__u32 cpus;
	__u32 pad;
};

/*
 * LOCAL: a local map (pvmap_io_mapping_map_local_wc()) of an aperture page
 * held by the requesting task across what it must survive (@scenario):
 * PREEMPTED, a switch to a kthread on its CPU, which probes the held
 * address and maps a page of its own; FAULT_INSIDE, copy_from_user() from
 * @user and copy_to_user() to @user_out (pages not present in the caller's
 * page tables)
 * through the map; IRQ_NESTING, an hrtimer's hardirq and a tasklet each
 * taking an atomic and a local map above it. Where local maps are atomic
 * (@preemptible 0), the fallback is checked instead. @user holds the
 * pattern of @seed at offset 0 (pvmap_pattern.h); with preemptible maps it
 * must reach the aperture page and @user_out. What the aperture held is put
 * back after.
 */
enum pvmap_test_local_scenario {
	PVMAP_LOCAL_PREEMPTED		= 0,
	PVMAP_LOCAL_FAULT_INSIDE	= 1,
	PVMAP_LOCAL_IRQ_NESTING		= 2,
};

struct pvmap_test_local {
	struct pvmap_test_head h;
	__u32 scenario;			/* in: enum pvmap_test_local_scenario */
	__u32 preemptible;		/* out: the map left preemption and page faults on */
	__u64 user, user_out;		/* in: FAULT_INSIDE's source and destination page */
	__u64 seed;			/* in: FAULT_INSIDE's pattern, at offset 0 */
	__u64 offset;			/* out: the aperture page held */
	/*
	 * out: this task's switches while it held; the other context's probe
	 * of the held address faulted, its own maps took that address, read
	 * their own pages (PREEMPTED and FAULT_INSIDE: the other task;
	 * IRQ_NESTING: the interrupts while this task was switched out, counts)
	 */
	__u32 switches;
	__u32 faulted;
	__u32 same_slot;
	__u32 read_own;
	__u32 copied_from, copied_to;	/* out: FAULT_INSIDE: bytes each copy moved */
	__u32 irq_maps;			/* out: IRQ_NESTING: maps made in interrupts above */
	__u32 user_pages;		/* in: FAULT_INSIDE: source pages at user, one a try */
};

/* PV_REFUSALS: one request Xen refuses or adjusts, and its outcome. */
struct pvmap_test_pv_case {
	__u64 val;			/* the PTE asked */
	__u64 pte;			/* the PTE after */
	__s32 err;			/* the hypervisor's answer */
	__u32 pad;
};

struct pvmap_test_pv {
	struct pvmap_test_head h;
	__u64 ptr;			/* out: the PTE's machine address */
	struct pvmap_test_pv_case wb, outside, reserved;
};

/* PV_PING: the channel's round trip. */
struct pvmap_test_ping {
	struct pvmap_test_head h;
	__u64 n, median_ns, min_ns, max_ns;
};

/* PV_HOLD (va, frame out) / PV_RELEASE. */
struct pvmap_test_pv_hold {
	struct pvmap_test_head h;
	__u64 va;
	__u64 frame;
};

/*
 * XEN_VECTOR (a Xen PV domain only; EOPNOTSUPP elsewhere): one fidelity
 * vector (tests/guest/tests_xen_fidelity.c) as real hypercalls on two PTEs
 * of a window the module owns, slot 0 and 1; each is restored and flushed
 * before the request returns. Frames are named by kind, resolved here.
 */
enum pvmap_xen_frame {
	PVMAP_XEN_NONE,			/* val 0: a cleared PTE */
	PVMAP_XEN_RAM,			/* a RAM page of the domain */
	PVMAP_XEN_RAM2,			/* another */
	PVMAP_XEN_APERTURE,		/* the head's aperture (MMIO the domain may map) */
	PVMAP_XEN_L1,			/* the page-table frame that holds both slots' PTEs */
	PVMAP_XEN_LAPIC,		/* 0xfee00: MMIO outside the domain's permission */
	PVMAP_XEN_FRAMES,
	PVMAP_XEN_OTHER = 0xff,		/* out: a frame of no kind above */
};

enum pvmap_xen_op {
	PVMAP_XEN_MMU_UPDATE = 1,	/* cmd: the command in ptr's low bits */
	PVMAP_XEN_UPDATE_VA,		/* uvmf: update_va_mapping's flags */
	PVMAP_XEN_MMUEXT,		/* cmd: MMUEXT_*; slot names linear_addr */
};

#define PVMAP_XEN_SLOT_NONCANON	2	/* slot: the address 1 << 47, non-canonical */
#define PVMAP_XEN_PTR_PTE	0	/* mmu_update's ptr: the slot's PTE */
#define PVMAP_XEN_PTR_RAM	1	/* a RAM page that is no page table */
#define PVMAP_XEN_PTR_APERTURE	2	/* an aperture frame */
#define PVMAP_XEN_MASK_SELF	1	/* uvmf/vcpumask target: a bitmap of this vCPU */
#define PVMAP_XEN_STEPS		4

struct pvmap_test_xen_step {
	__u32 op;			/* enum pvmap_xen_op; 0 ends the steps */
	__u32 slot;			/* 0, 1 or PVMAP_XEN_SLOT_NONCANON */
	__u32 frame;			/* enum pvmap_xen_frame of the new PTE */
	__u32 cmd;			/* mmu_update command; mmuext: TLB, superpage, >= 64 */
	__u64 flags;			/* the new PTE's flag bits */
	__u32 uvmf;			/* update_va_mapping: UVMF_* flush type, LOCAL or ALL */
	__u32 ptr;			/* mmu_update: PVMAP_XEN_PTR_* */
	__u32 mask;			/* PVMAP_XEN_MASK_SELF: uvmf's or the mmuext's bitmap */
	__u32 domid;			/* mmu_update's or mmuext_op's foreigndom */
	__s32 rc;			/* out: this call's (or multicall entry's) result */
	__u32 pad;
};

struct pvmap_test_xen {
	struct pvmap_test_head h;
	__u32 pre_frame[2];		/* in: each slot's PTE before the steps */
	__u64 pre_flags[2];
	__u32 fill[2];			/* in: read the slot first (a TLB entry) */
	__u32 multicall;		/* in: the steps as one multicall */
	__u32 pad;
	struct pvmap_test_xen_step step[PVMAP_XEN_STEPS];
	__u64 pte[2];			/* out: each slot's PTE after the steps, raw */
	__u32 kind[2];			/* out: enum pvmap_xen_frame its frame is */
	__u32 readable[2];		/* out: a read of the slot then did not fault */
	__s32 mc_rc;			/* out: the multicall's own result */
	__u32 pad2;
};

#define PVMAP_TEST_MAGIC	'P'
#define PVMAP_TEST_API		_IOWR(PVMAP_TEST_MAGIC, 0x01, struct pvmap_test_api)
#define PVMAP_TEST_MEMTYPE_HOLD	_IOWR(PVMAP_TEST_MAGIC, 0x02, struct pvmap_test_memtype)
#define PVMAP_TEST_MEMTYPE_QUERY _IOWR(PVMAP_TEST_MAGIC, 0x03, struct pvmap_test_memtype)
#define PVMAP_TEST_MEMTYPE_RELEASE _IOWR(PVMAP_TEST_MAGIC, 0x04, struct pvmap_test_memtype)
#define PVMAP_TEST_MEMTYPE_CONFLICT _IOWR(PVMAP_TEST_MAGIC, 0x05, struct pvmap_test_conflict)
#define PVMAP_TEST_UC_HOLD	_IOWR(PVMAP_TEST_MAGIC, 0x06, struct pvmap_test_uc)
#define PVMAP_TEST_UC_RELEASE	_IOWR(PVMAP_TEST_MAGIC, 0x07, struct pvmap_test_uc)
#define PVMAP_TEST_POOL_HOLD	_IOWR(PVMAP_TEST_MAGIC, 0x08, struct pvmap_test_pool)
#define PVMAP_TEST_POOL_RELEASE	_IOWR(PVMAP_TEST_MAGIC, 0x09, struct pvmap_test_pool)
#define PVMAP_TEST_PROBE	_IOWR(PVMAP_TEST_MAGIC, 0x0a, struct pvmap_test_probe)
#define PVMAP_TEST_FACILITIES	_IOWR(PVMAP_TEST_MAGIC, 0x0b, struct pvmap_test_facilities)
#define PVMAP_TEST_HAZARD_MAP	_IOWR(PVMAP_TEST_MAGIC, 0x0c, struct pvmap_test_hazard)
#define PVMAP_TEST_HAZARD_WRITE	_IOWR(PVMAP_TEST_MAGIC, 0x0d, struct pvmap_test_hazard)
#define PVMAP_TEST_MAINLINE	_IOWR(PVMAP_TEST_MAGIC, 0x0e, struct pvmap_test_pattern)
#define PVMAP_TEST_IRQ_LOAD	_IOWR(PVMAP_TEST_MAGIC, 0x0f, struct pvmap_test_irq_load)
#define PVMAP_TEST_PV_REFUSALS	_IOWR(PVMAP_TEST_MAGIC, 0x10, struct pvmap_test_pv)
#define PVMAP_TEST_PV_PING	_IOWR(PVMAP_TEST_MAGIC, 0x11, struct pvmap_test_ping)
#define PVMAP_TEST_PV_HOLD	_IOWR(PVMAP_TEST_MAGIC, 0x12, struct pvmap_test_pv_hold)
#define PVMAP_TEST_PV_RELEASE	_IOWR(PVMAP_TEST_MAGIC, 0x13, struct pvmap_test_pv_hold)
#define PVMAP_TEST_XEN_VECTOR	_IOWR(PVMAP_TEST_MAGIC, 0x14, struct pvmap_test_xen)
#define PVMAP_TEST_PATTERN	_IOWR(PVMAP_TEST_MAGIC, 0x15, struct pvmap_test_pattern)
#define PVMAP_TEST_VGPU_WINDOW	_IOWR(PVMAP_TEST_MAGIC, 0x16, struct pvmap_test_vgpu_window)
#define PVMAP_TEST_BLOB_HAZARD	_IOWR(PVMAP_TEST_MAGIC, 0x17, struct pvmap_test_blob_hazard)
#define PVMAP_TEST_BLOB_STEP	_IOWR(PVMAP_TEST_MAGIC, 0x18, struct pvmap_test_blob_hazard)
#define PVMAP_TEST_LOCAL	_IOWR(PVMAP_TEST_MAGIC, 0x19, struct pvmap_test_local)

/* pvmap_bench.ko: the engines measured side by side. */
enum pvmap_bench_engine {
	PVMAP_BENCH_PVMAP,		/* atomic, one page per map */
	PVMAP_BENCH_PVMAP_RANGE,	/* atomic range maps of up to 16 pages */
	PVMAP_BENCH_MAINLINE_LOCAL,	/* <linux/io-mapping.h>'s map_local */
	PVMAP_BENCH_MAINLINE_ATOMIC,	/* and map_atomic */
	PVMAP_BENCH_IOREMAP,		/* ioremap_wc + iounmap per map */
	PVMAP_BENCH_PERMANENT,		/* one ioremap_wc before timing */
	PVMAP_BENCH_PTE_FLOOR,		/* one PTE set, cleared, flushed */
	PVMAP_BENCH_PVMAP_LOCAL,	/* pvmap's map_local: mainline_local's semantics */
	PVMAP_BENCH_PTE_BARE,		/* pte_floor with the fast path's bare writes */
	PVMAP_BENCH_ENGINES,
};

enum pvmap_bench_workload {
	PVMAP_BENCH_PAGE,		/* map, write 4 KiB, unmap */
	PVMAP_BENCH_RANGE16,		/* 64 KiB through 16 pages */
	PVMAP_BENCH_SEQ1M,		/* 1 MiB in order */
	PVMAP_BENCH_RAND4K,		/* 4 KiB at pseudo-random pages */
	PVMAP_BENCH_OVERHEAD,		/* engine against the permanent window */
	PVMAP_BENCH_WORKLOADS,
};

/* RUN: ITERS passes of WORKLOAD through ENGINE, each page its own pattern. */
struct pvmap_bench_run {
	struct pvmap_test_head h;
	__u32 engine, workload;		/* in */
	__u32 iters;			/* in: <= 100000 */
	__u32 ops;			/* out */
	__u64 seed;			/* in */
	__u64 ns, bytes;		/* out */
	__s64 overhead_ps, engine_ps, permanent_ps;	/* out: overhead only */
};

/*
 * STALE: count single-page maps, each old address read after its unmap;
 * FLUSH: mainline's io_mapping (engine mainline_*) flushing what it unmaps;
 * SCHED_OUT: mainline's io_mapping_map_local_wc() (engine mainline_local)
 * flushing the slot of a task switched out while it holds the map.
 */
struct pvmap_bench_probe {
	struct pvmap_test_head h;
	__u32 engine, count;		/* in */
	__u32 probes, usable;		/* out: reads that did not fault */
	__u32 misdirected;		/* out (FLUSH, SCHED_OUT): maps that read the page before */
	__u32 pad;
};

/* STALE_WRITE: map, write, unmap, write through the old pointer at once. */
struct pvmap_bench_stale_write {
	struct pvmap_test_head h;
	__u32 engine;			/* in: pvmap or mainline_local */
	__u32 landed;			/* out */
	__u64 offset, va;		/* out */
};

#define PVMAP_BENCH_RUN		_IOWR(PVMAP_TEST_MAGIC, 0x40, struct pvmap_bench_run)
#define PVMAP_BENCH_STALE	_IOWR(PVMAP_TEST_MAGIC, 0x41, struct pvmap_bench_probe)
#define PVMAP_BENCH_FLUSH	_IOWR(PVMAP_TEST_MAGIC, 0x42, struct pvmap_bench_probe)
#define PVMAP_BENCH_STALE_WRITE	_IOWR(PVMAP_TEST_MAGIC, 0x43, struct pvmap_bench_stale_write)
#define PVMAP_BENCH_SCHED_OUT	_IOWR(PVMAP_TEST_MAGIC, 0x44, struct pvmap_bench_probe)

#endif /* _UAPI_PVMAP_TEST_H */
