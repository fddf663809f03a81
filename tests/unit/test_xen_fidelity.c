// SPDX-License-Identifier: GPL-2.0
/*
 * libpvstub against Xen: each test reproduces one behaviour of Xen's PV MMU
 * as Xen implements it (xen/arch/x86/mm.c and xen/common/multicall.c at
 * commit c447b7308b), named in the test's comment, where the stub once
 * differed. KTAP output.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <kselftest.h>
#include "pvstub.h"

#define RAM_FRAMES	0x10000ULL
#define APERTURE_FIRST	0x80000ULL
#define VA		0xd0000000ULL
#define P_RW		0x003ULL
#define PWT		0x008ULL
#define PCD		0x010ULL
#define ACCESSED	0x020ULL
#define DIRTY		0x040ULL
#define PAT		0x080ULL
#define WB(frame)	(((frame) << 12) | P_RW)
#define WC(frame)	(((frame) << 12) | P_RW | PAT)	/* Xen's PAT index 4 */

/* 32-bit guest memory for the compat tests: addresses are offsets into it. */
static unsigned char guest_ram[4096];

static void *guest_mem(void *opaque, uint64_t addr, size_t len)
{
	(void)opaque;
	if (!addr || addr > sizeof(guest_ram) || len > sizeof(guest_ram) - addr)
		return NULL;
	return guest_ram + addr;
}

/* A stub with 2 vCPUs, 256 MiB of RAM, a 1 GiB aperture (0 frames: none), VA's L1. */
static struct pvstub *new_stub(uint64_t aperture_frames)
{
	struct pvstub_config cfg = {
		.nr_vcpus = 2, .ram_frames = RAM_FRAMES, .aperture_first = APERTURE_FIRST,
		.aperture_frames = aperture_frames, .guest_mem = guest_mem,
	};
	struct pvstub *s = pvstub_create(&cfg);

	if (s && pvstub_alloc_l1(s, VA)) {
		pvstub_destroy(s);
		return NULL;
	}
	return s;
}

static int update(struct pvstub *s, uint64_t ptr, uint64_t val, unsigned int dom)
{
	struct mmu_update u = { .ptr = ptr, .val = val };

	return pvstub_mmu_update(s, 0, &u, 1, NULL, dom);
}

static bool expect(const char *what, long got, long want)
{
	if (got == want)
		return true;
	printf("# %s: %ld, want %ld\n", what, got, want);
	return false;
}

/*
 * do_mmu_update(): the command is ptr & (sizeof(l1_pgentry_t) - 1), i.e.
 * bits 2:0; MMU_PT_UPDATE_PRESERVE_AD (which Linux's Xen code uses) keeps
 * the entry's accessed and dirty bits; MMU_PT_UPDATE_NO_TRANSLATE writes as
 * the normal update does for a PV guest; any other value, such as ptr + 4,
 * is -ENOSYS and writes nothing.
 */
static int test_mmu_update_commands(void)
{
	struct pvstub *s = new_stub(0x40000);
	uint64_t maddr, f = APERTURE_FIRST + 1;
	bool ok;

	if (!s)
		return 0;
	maddr = pvstub_pte_maddr(s, VA);
	ok = expect("normal update", update(s, maddr, WC(f) | ACCESSED | DIRTY, DOMID_SELF), 0);
	ok &= expect("preserve A/D", update(s, maddr | MMU_PT_UPDATE_PRESERVE_AD, WC(f + 1),
					   DOMID_SELF), 0) &&
	      expect("A/D kept", (long)(pvstub_pte(s, VA) == (WC(f + 1) | ACCESSED | DIRTY)), 1);
	ok &= expect("no-translate", update(s, maddr | MMU_PT_UPDATE_NO_TRANSLATE, WC(f + 2),
					    DOMID_SELF), 0) &&
	      expect("written", (long)(pvstub_pte(s, VA) == WC(f + 2)), 1);
	ok &= expect("ptr + 4", update(s, maddr + 4, WC(f), DOMID_SELF), -ENOSYS) &&
	      expect("ptr | 7", update(s, maddr | 7, WC(f), DOMID_SELF), -ENOSYS) &&
	      expect("unchanged", (long)(pvstub_pte(s, VA) == WC(f + 2)), 1);
	pvstub_destroy(s);
	return ok;
}

/*
 * do_mmu_update() on a frame that is not a page table: the guest's own RAM
 * takes the PGT_writable_page path, a plain write that succeeds; a frame
 * that is not the guest's RAM is -EINVAL.
 */
static int test_mmu_update_plain_ram(void)
{
	struct pvstub *s = new_stub(0x40000);
	struct pvstub_counts c;
	bool ok;

	if (!s)
		return 0;
	ok = expect("RAM frame 0x100", update(s, 0x100000 + 8, 0x1234, DOMID_SELF), 0) &&
	     expect("aperture frame", update(s, (APERTURE_FIRST << 12) + 8, 0, DOMID_SELF),
		    -EINVAL) &&
	     expect("past RAM", update(s, RAM_FRAMES << 12, 0, DOMID_SELF), -EINVAL);
	pvstub_counts(s, &c);
	ok = ok && expect("plain writes", (long)c.plain_writes, 1) &&
	     expect("PTE writes", (long)c.pte_writes, 0);
	pvstub_destroy(s);
	return ok;
}

/*
 * get_page_from_l1e(): a writable mapping of a page-table frame fails
 * get_page_type() and leaves by "could_not_pin": -EBUSY. Read-only is fine.
 */
static int test_pt_frame_writable_busy(void)
{
	struct pvstub *s = new_stub(0x40000);
	uint64_t maddr, l1 = RAM_FRAMES - 1;	/* the stub's first L1 frame */
	bool ok;

	if (!s)
		return 0;
	maddr = pvstub_pte_maddr(s, VA);
	ok = expect("page table writable", update(s, maddr, (l1 << 12) | P_RW, DOMID_SELF),
		    -EBUSY) &&
	     expect("page table read-only", update(s, maddr, (l1 << 12) | 1, DOMID_SELF), 0);
	pvstub_destroy(s);
	return ok;
}

/*
 * get_page_from_l1e() on MMIO, opt_mmio_relax off: a type XEN_MSR_PAT makes
 * cacheable (WB, WT, WP) is accepted and flipped to UC (PCD|PWT); UC, UC-
 * and WC stay; MMIO outside the domain's iomem permission is -EPERM.
 */
static int test_mmio_cacheable_forced_uc(void)
{
	struct pvstub *s = new_stub(0x40000);
	uint64_t maddr, f = APERTURE_FIRST + 5;
	bool ok;

	if (!s)
		return 0;
	maddr = pvstub_pte_maddr(s, VA);
	ok = expect("WB", update(s, maddr, WB(f), DOMID_SELF), 0) &&
	     expect("WB made UC", (long)(pvstub_pte(s, VA) == (WB(f) | PCD | PWT)), 1);
	ok &= expect("WT", update(s, maddr, WB(f) | PWT, DOMID_SELF), 0) &&
	      expect("WT made UC", (long)(pvstub_pte(s, VA) == (WB(f) | PCD | PWT)), 1);
	ok &= expect("WP", update(s, maddr, WB(f) | PAT | PWT, DOMID_SELF), 0) &&
	      expect("WP made UC", (long)(pvstub_pte(s, VA) == (WB(f) | PCD | PWT)), 1);
	ok &= expect("WC", update(s, maddr, WC(f), DOMID_SELF), 0) &&
	      expect("WC kept", (long)(pvstub_pte(s, VA) == WC(f)), 1);
	ok &= expect("UC-", update(s, maddr, WB(f) | PCD, DOMID_SELF), 0) &&
	      expect("UC- kept", (long)(pvstub_pte(s, VA) == (WB(f) | PCD)), 1);
	ok &= expect("MMIO outside the aperture", update(s, maddr, WC(0x20000), DOMID_SELF),
		     -EPERM);
	pvstub_destroy(s);
	return ok;
}

/*
 * l1_disallow_mask(): _PAGE_GNTTAB (PTE bit 62, in a debug build) is always
 * refused; the cache attributes are refused to a PV domain without I/O
 * resources (!cache_flush_permitted()), allowed to one with them.
 */
static int test_l1_disallow_mask(void)
{
	struct pvstub *io = new_stub(0x40000), *plain = new_stub(0);
	bool ok;

	if (!io || !plain) {
		pvstub_destroy(io);
		pvstub_destroy(plain);
		return 0;
	}
	ok = expect("bit 62", update(io, pvstub_pte_maddr(io, VA), WB(0x100) | 1ULL << 62,
				     DOMID_SELF), -EINVAL) &&
	     expect("RAM as WC, I/O domain", update(io, pvstub_pte_maddr(io, VA), WC(0x100),
						    DOMID_SELF), 0) &&
	     expect("RAM as WC, no I/O", update(plain, pvstub_pte_maddr(plain, VA), WC(0x100),
						DOMID_SELF), -EINVAL) &&
	     expect("RAM as WB, no I/O", update(plain, pvstub_pte_maddr(plain, VA), WB(0x100),
						DOMID_SELF), 0);
	pvstub_destroy(io);
	pvstub_destroy(plain);
	return ok;
}

/*
 * l1_disallow_mask() of a release build (Debian's Xen 4.17.7, measured by
 * pvmap-tests' xen_fidelity_diff in the xen-dom0 guest):
 * _PAGE_GNTTAB is 0 there, so bit 62 is accepted and stored as written.
 */
static int test_l1_disallow_mask_release(void)
{
	struct pvstub_config cfg = {
		.nr_vcpus = 2, .ram_frames = RAM_FRAMES, .aperture_first = APERTURE_FIRST,
		.aperture_frames = 0x40000, .release_build = true,
	};
	struct pvstub *s = pvstub_create(&cfg);
	bool ok;

	if (!s || pvstub_alloc_l1(s, VA)) {
		pvstub_destroy(s);
		return 0;
	}
	ok = expect("bit 62, release build", update(s, pvstub_pte_maddr(s, VA),
						       WB(0x100) | 1ULL << 62, DOMID_SELF), 0) &&
	     expect("kept", (long)(pvstub_pte(s, VA) == (WB(0x100) | 1ULL << 62)), 1);
	pvstub_destroy(s);
	return ok;
}

/*
 * xen/common/multicall.c: entries run in the order issued, a failed one
 * setting only its own result. A lazy-MMU queue of update, invalidation,
 * bad update, invalidation, update is five entries: the last update is
 * made although the third failed.
 */
static int test_multicall_in_order(void)
{
	struct pvstub *s = new_stub(0x40000);
	struct pvstub_queue q = { .nupd = 0 };
	struct mmuext_op inv = { .cmd = MMUEXT_INVLPG_LOCAL, .arg1.linear_addr = VA };
	struct mmu_update u[3];
	unsigned int refused;
	bool ok;

	if (!s)
		return 0;
	for (unsigned int i = 0; i < 3; i++)
		u[i] = (struct mmu_update){ .ptr = pvstub_pte_maddr(s, VA + i * 4096),
					    .val = WC(APERTURE_FIRST + i) };
	u[1].ptr = APERTURE_FIRST << 12;	/* not a page table: -EINVAL */
	ok = pvstub_queue_update(&q, &u[0]) && pvstub_queue_mmuext(&q, &inv) &&
	     pvstub_queue_update(&q, &u[1]) && pvstub_queue_mmuext(&q, &inv) &&
	     pvstub_queue_update(&q, &u[2]);
	refused = pvstub_queue_flush(s, 0, &q);
	ok = ok && expect("entries refused", refused, 1) &&
	     expect("first", (long)(pvstub_pte(s, VA) == u[0].val), 1) &&
	     expect("second", (long)pvstub_pte(s, VA + 4096), 0) &&
	     expect("third", (long)(pvstub_pte(s, VA + 8192) == u[2].val), 1);
	pvstub_destroy(s);
	return ok;
}

/*
 * Whether vCPU @v reaches @frame at @va: through its TLB, else a walk that
 * fills it (so a first call fills, and after a PTE is cleared it tells
 * whether the TLB entry survived).
 */
static bool reaches(struct pvstub *s, unsigned int v, uint64_t va, uint64_t frame)
{
	uint64_t got = 0;

	return !pvstub_access(s, v, va, false, &got) && got == frame;
}

/*
 * __do_update_va_mapping(): the bits above the flush type name the target:
 * UVMF_LOCAL, UVMF_ALL, or else the guest address of a vCPU bitmap; flush
 * type 3 flushes nothing; the low 12 bits of the VA are ignored; a refused
 * update skips the flush (mm.c: "Any error at this point means that we
 * haven't change the L1e. Skip the flush").
 */
static int test_update_va_mapping_flags(void)
{
	struct pvstub *s = new_stub(0x40000);
	uint64_t f = APERTURE_FIRST + 7, mask_addr = 64;
	bool ok;

	if (!s)
		return 0;
	memset(guest_ram, 0, sizeof(guest_ram));
	guest_ram[mask_addr] = 1 << 1;		/* vCPU 1 only */
	ok = expect("map", pvstub_update_va_mapping(s, 0, VA + 0x123, WC(f), 0), 0) &&
	     reaches(s, 0, VA, f) && reaches(s, 1, VA, f);
	ok = ok && expect("clear, invlpg on the bitmap's vCPUs",
			  pvstub_update_va_mapping(s, 0, VA, 0, UVMF_INVLPG | mask_addr), 0) &&
	     expect("vCPU 0 kept its entry", reaches(s, 0, VA, f), 1) &&
	     expect("vCPU 1 lost its entry", reaches(s, 1, VA, f), 0);
	ok = ok && expect("flush type 3", pvstub_update_va_mapping(s, 0, VA, 0, 3), 0) &&
	     expect("nothing flushed", reaches(s, 0, VA, f), 1);
	ok = ok && expect("bad update", pvstub_update_va_mapping(s, 0, VA, WC(f) | 1ULL << 62,
								 UVMF_INVLPG), -EINVAL) &&
	     expect("flush skipped", reaches(s, 0, VA, f), 1);
	ok = ok && expect("unreadable bitmap", pvstub_update_va_mapping(s, 0, VA, 0,
			  UVMF_INVLPG | 0x100000), -EFAULT);
	pvstub_destroy(s);
	return ok;
}

/*
 * do_mmuext_op(): MMUEXT_INVLPG_MULTI and MMUEXT_TLB_FLUSH_MULTI act on the
 * vCPUs of a guest bitmap (-EINVAL when it cannot be read), _ALL on every
 * vCPU; MMUEXT_MARK_SUPER is -EOPNOTSUPP, an unknown command -ENOSYS.
 */
static int test_mmuext_multi(void)
{
	struct pvstub *s = new_stub(0x40000);
	uint64_t f = APERTURE_FIRST + 8;
	struct mmuext_op op = { .cmd = MMUEXT_INVLPG_MULTI, .arg1.linear_addr = VA,
				.arg2.vcpumask = (const void *)64 };
	bool ok;

	if (!s)
		return 0;
	memset(guest_ram, 0, sizeof(guest_ram));
	guest_ram[64] = 1 << 0;			/* vCPU 0 only */
	ok = !pvstub_update_va_mapping(s, 0, VA, WC(f), 0) && reaches(s, 0, VA, f) &&
	     reaches(s, 1, VA, f) && !pvstub_update_va_mapping(s, 0, VA, 0, 0);
	ok = ok && expect("INVLPG_MULTI", pvstub_mmuext_op(s, 1, &op, 1, NULL, DOMID_SELF), 0) &&
	     expect("vCPU 0 flushed", reaches(s, 0, VA, f), 0) &&
	     expect("vCPU 1 not", reaches(s, 1, VA, f), 1);
	op = (struct mmuext_op){ .cmd = MMUEXT_TLB_FLUSH_MULTI, .arg2.vcpumask = (const void *)64 };
	guest_ram[64] = 1 << 1;
	ok = ok && expect("TLB_FLUSH_MULTI", pvstub_mmuext_op(s, 0, &op, 1, NULL, DOMID_SELF), 0) &&
	     expect("vCPU 1 flushed", reaches(s, 1, VA, f), 0);
	op.arg2.vcpumask = (const void *)0x100000;
	ok = ok && expect("unreadable mask", pvstub_mmuext_op(s, 0, &op, 1, NULL, DOMID_SELF),
			  -EINVAL);
	op = (struct mmuext_op){ .cmd = MMUEXT_MARK_SUPER };
	ok = ok && expect("MARK_SUPER", pvstub_mmuext_op(s, 0, &op, 1, NULL, DOMID_SELF),
			  -EOPNOTSUPP);
	op = (struct mmuext_op){ .cmd = 99 };
	ok = ok && expect("unknown", pvstub_mmuext_op(s, 0, &op, 1, NULL, DOMID_SELF), -ENOSYS);
	pvstub_destroy(s);
	return ok;
}

/* DOMID_XEN as dom0 names it: RAM -EBUSY, MMIO -EPERM, a cleared entry written. */
static bool test_foreigndom_xen_privileged(void)
{
	struct pvstub_config cfg = {
		.nr_vcpus = 2, .ram_frames = RAM_FRAMES, .aperture_first = APERTURE_FIRST,
		.aperture_frames = 0x40000, .privileged = true,
	};
	struct pvstub *s = pvstub_create(&cfg);
	uint64_t maddr;
	bool ok;

	if (!s || pvstub_alloc_l1(s, VA)) {
		pvstub_destroy(s);
		return false;
	}
	maddr = pvstub_pte_maddr(s, VA);
	ok = expect("DOMID_XEN, dom0, RAM", update(s, maddr, WB(0x100), DOMID_XEN), -EBUSY) &&
	     expect("DOMID_XEN, dom0, MMIO", update(s, maddr, WC(APERTURE_FIRST), DOMID_XEN),
		    -EPERM) &&
	     expect("DOMID_XEN, dom0, cleared", update(s, maddr, 0, DOMID_XEN), 0);
	pvstub_destroy(s);
	return ok;
}

/*
 * get_pg_owner() and the XSM checks: mmu_update through DOMID_IO may map
 * I/O memory (not RAM: -EBUSY); mmuext_op must name the caller itself
 * (DOMID_IO: -EPERM); a domain that does not exist is -ESRCH, as is a
 * page-table owner (foreigndom bits 31:16) other than the caller.
 * DOMID_XEN is found (dom_xen), and xsm_mmu_update() refuses it to an
 * unprivileged domain (-EPERM); dom0 passes XSM, and then
 * get_page_from_l1e() refuses its RAM (-EBUSY: dom_xen does not own it)
 * and MMIO (-EPERM: dom_xen has no I/O permission), as Debian's Xen 4.17.7
 * answered pvmap-tests' xen_fidelity_diff.
 */
static int test_foreigndom(void)
{
	struct pvstub *s = new_stub(0x40000);
	struct mmuext_op op = { .cmd = MMUEXT_TLB_FLUSH_LOCAL };
	uint64_t maddr;
	bool ok;

	if (!s)
		return 0;
	maddr = pvstub_pte_maddr(s, VA);
	ok = expect("DOMID_IO, aperture", update(s, maddr, WC(APERTURE_FIRST), DOMID_IO), 0) &&
	     expect("DOMID_IO, RAM", update(s, maddr, WB(0x100), DOMID_IO), -EBUSY) &&
	     expect("domain 5", update(s, maddr, WB(0x100), 5), -ESRCH) &&
	     expect("PFD domain 4", update(s, maddr, WB(0x100), (5 << 16) | DOMID_SELF), -ESRCH) &&
	     expect("mmuext DOMID_IO", pvstub_mmuext_op(s, 0, &op, 1, NULL, DOMID_IO), -EPERM) &&
	     expect("mmuext domain 5", pvstub_mmuext_op(s, 0, &op, 1, NULL, 5), -ESRCH) &&
	     expect("DOMID_XEN, domU", update(s, maddr, WB(0x100), DOMID_XEN), -EPERM);
	pvstub_destroy(s);
	return ok && test_foreigndom_xen_privileged();
}

/* The MMU, not Xen: a write through a read-only PTE faults; a read does not. */
static int test_access_write_bit(void)
{
	struct pvstub *s = new_stub(0x40000);
	uint64_t f = APERTURE_FIRST + 9, got = 0;
	bool ok;

	if (!s)
		return 0;
	ok = !pvstub_update_va_mapping(s, 0, VA, (f << 12) | PAT | 1, 0) &&
	     expect("write, read-only PTE", pvstub_access(s, 0, VA, true, &got), -EFAULT) &&
	     expect("read", pvstub_access(s, 0, VA, false, &got), 0) &&
	     expect("write, read-only TLB entry", pvstub_access(s, 0, VA, true, &got), -EFAULT);
	pvstub_destroy(s);
	return ok;
}

/*
 * A 32-bit guest's multicall (compat_multicall_entry_t: every field 32
 * bits; update_va_mapping's PTE as two arguments, low half first; mmuext_op
 * 12 bytes; pointers are guest addresses).
 */
static int test_multicall_compat(void)
{
	struct pvstub *s = new_stub(0x40000);
	struct pvstub_compat_multicall_entry mc[3];
	struct pvstub_compat_mmuext_op *op = (void *)(guest_ram + 256);
	struct mmu_update *u = (void *)(guest_ram + 128);
	uint64_t f = APERTURE_FIRST + 0x12345, nx = 1ULL << 63;	/* in the high half */
	uint32_t *done = (void *)(guest_ram + 512);
	bool ok;

	if (!s)
		return 0;
	memset(guest_ram, 0, sizeof(guest_ram));
	*u = (struct mmu_update){ .ptr = pvstub_pte_maddr(s, VA + 4096), .val = WC(f + 1) };
	*op = (struct pvstub_compat_mmuext_op){ .cmd = MMUEXT_INVLPG_LOCAL,
						.arg1 = (uint32_t)VA };
	mc[0] = (struct pvstub_compat_multicall_entry){
		.op = __HYPERVISOR_update_va_mapping,
		.args = { (uint32_t)VA, (uint32_t)WC(f), (uint32_t)((WC(f) | nx) >> 32), 0 },
	};
	mc[1] = (struct pvstub_compat_multicall_entry){
		.op = __HYPERVISOR_mmu_update, .args = { 128, 1, 512, DOMID_SELF },
	};
	mc[2] = (struct pvstub_compat_multicall_entry){
		.op = __HYPERVISOR_mmuext_op, .args = { 256, 1, 0, DOMID_SELF },
	};
	ok = expect("multicall", pvstub_multicall_compat(s, 0, mc, 3), 0) &&
	     expect("results", (long)(mc[0].result | mc[1].result | mc[2].result), 0) &&
	     expect("64-bit PTE from two halves", (long)(pvstub_pte(s, VA) == (WC(f) | nx)), 1) &&
	     expect("mmu_update from guest memory", (long)(pvstub_pte(s, VA + 4096) ==
							   WC(f + 1)), 1) &&
	     expect("done written", *done, 1);
	mc[1].args[0] = 0x100000;		/* not in guest memory */
	ok = ok && !pvstub_multicall_compat(s, 0, &mc[1], 1) &&
	     expect("unreadable requests", (int32_t)mc[1].result, -EFAULT);
	pvstub_destroy(s);
	return ok;
}

/*
 * A live guest (pvmap-hv): its own L1 frame, in its memory; registered
 * entries are written there, the rest of the frame is the guest's (-EPERM),
 * and the stub's shadow catches a registered entry the guest wrote itself
 * (accessed and dirty aside, which the page walker sets).
 */
#define LIVE_FRAME	0x1234ULL

static long violations(const struct pvstub *s)
{
	struct pvstub_counts c;

	pvstub_counts(s, &c);
	return c.shadow_mismatches == c.violations ? (long)c.violations : -1;
}

#define LIVE_VA		0xe0a03000ULL	/* index 3 of its L1 */

static int test_live_registered_entries(void)
{
	static uint64_t frame_mem[512];
	struct pvstub *s = new_stub(0x40000);
	uint64_t maddr = (LIVE_FRAME << 12) + 3 * 8, f = APERTURE_FIRST + 7;
	bool ok;

	if (!s)
		return false;
	memset(frame_mem, 0, sizeof(frame_mem));
	frame_mem[4] = 0x5a5a;	/* the guest's own entry beside ours */
	ok = expect("register", pvstub_register_pte(s, LIVE_VA, maddr, frame_mem), 0) &&
	     expect("register at the wrong index", pvstub_register_pte(s, LIVE_VA + 4096, maddr,
								      frame_mem), -EINVAL) &&
	     expect("registered", pvstub_registered(s), 1) &&
	     expect("update", update(s, maddr, WC(f), DOMID_SELF), 0) &&
	     expect("written in guest memory", frame_mem[3] == WC(f), 1) &&
	     expect("the guest's own entry", update(s, maddr + 8, WC(f), DOMID_SELF), -EPERM) &&
	     expect("left alone", frame_mem[4], 0x5a5a) &&
	     expect("a clean shadow", pvstub_check_shadow(s, NULL), 0);
	frame_mem[3] |= ACCESSED | DIRTY;
	ok = ok && expect("accessed and dirty are the walker's", pvstub_check_shadow(s, NULL), 0);
	frame_mem[3] = WC(f + 1);
	ok = ok && expect("written behind the stub", pvstub_check_shadow(s, NULL), 1) &&
	     expect("reported once", pvstub_check_shadow(s, NULL), 0) &&
	     expect("a violation", violations(s), 1) &&
	     expect("unregister", pvstub_unregister_pte(s, LIVE_VA, maddr), 0) &&
	     expect("registered", pvstub_registered(s), 0) &&
	     expect("unregister again", pvstub_unregister_pte(s, LIVE_VA, maddr), -EINVAL);
	pvstub_destroy(s);
	return ok;
}

/*
 * A live guest's permissions and PAT: an aperture BAR granted after boot
 * may be mapped; cache bits are read with the guest's own PAT (Linux's puts
 * WC at index 1, PWT), so its WC is not Xen's WT and stays as written.
 */
static int test_live_apertures_and_pat(void)
{
	static uint64_t frame_mem[512];
	struct pvstub *s = new_stub(0);
	uint64_t maddr = (LIVE_FRAME << 12) + 3 * 8, bar = 0x90000;
	bool ok;

	if (!s)
		return false;
	ok = expect("register", pvstub_register_pte(s, LIVE_VA, maddr, frame_mem), 0) &&
	     expect("no permission yet", update(s, maddr, WB(bar), DOMID_SELF), -EPERM) &&
	     expect("grant", pvstub_add_aperture(s, bar, 16), 0) &&
	     expect("grant again", pvstub_add_aperture(s, bar, 16), 0) &&
	     expect("a grant inside RAM", pvstub_add_aperture(s, 1, 1), -EINVAL) &&
	     expect("Xen's PAT: index 1 is WT", update(s, maddr, WB(bar) | PWT, DOMID_SELF), 0) &&
	     expect("made UC", frame_mem[3], WB(bar) | PWT | PCD) &&
	     expect("Linux's PAT", pvstub_set_pat(s, 0x0007010600070106ULL), 0) &&
	     expect("a reserved PAT type", pvstub_set_pat(s, 0x02), -EINVAL) &&
	     expect("index 1 is WC", update(s, maddr, WB(bar) | PWT, DOMID_SELF), 0) &&
	     expect("kept", frame_mem[3], WB(bar) | PWT);
	pvstub_destroy(s);
	return ok;
}

int main(void)
{
	ksft_print_header();
	ksft_print_msg("Subtest: %s\n", "xen-fidelity");
	ksft_set_plan(14);
	ksft_test_result(test_mmu_update_commands(), "%s\n", "xen_mmu_update_command_bits");
	ksft_test_result(test_mmu_update_plain_ram(), "%s\n", "xen_mmu_update_plain_ram_write");
	ksft_test_result(test_pt_frame_writable_busy(), "%s\n", "xen_page_table_writable_ebusy");
	ksft_test_result(test_mmio_cacheable_forced_uc(), "%s\n", "xen_mmio_cacheable_forced_uc");
	ksft_test_result(test_l1_disallow_mask(), "%s\n", "xen_l1_disallow_mask");
	ksft_test_result(test_l1_disallow_mask_release(), "%s\n",
			 "xen_l1_disallow_mask_release_build");
	ksft_test_result(test_multicall_in_order(), "%s\n", "xen_multicall_in_order");
	ksft_test_result(test_update_va_mapping_flags(), "%s\n", "xen_update_va_mapping_flags");
	ksft_test_result(test_mmuext_multi(), "%s\n", "xen_mmuext_multi_and_unknown");
	ksft_test_result(test_foreigndom(), "%s\n", "xen_foreigndom");
	ksft_test_result(test_access_write_bit(), "%s\n", "mmu_write_needs_rw");
	ksft_test_result(test_multicall_compat(), "%s\n", "xen_multicall_compat_layout");
	ksft_test_result(test_live_registered_entries(), "%s\n", "live_registered_entries");
	ksft_test_result(test_live_apertures_and_pat(), "%s\n", "live_apertures_and_guest_pat");
	ksft_finished();
}
