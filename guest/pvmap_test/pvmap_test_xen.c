// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap_test's XEN_VECTOR: one vector of the fidelity test
 * (tests/guest/tests_xen_fidelity.c) as real hypercalls, so that Xen's
 * answers can be set beside libpvstub's. It owns two PTEs, slots 0 and 1 of
 * a vmap() of its own page, in one L1 table; it sets each slot up, runs the
 * steps (mmu_update, update_va_mapping, mmuext_op, one call each or one
 * multicall), reads back each PTE and whether the slot's address still
 * reads, then restores both PTEs and flushes them on every vCPU.
 */

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "pvmap_test.h"

#ifdef CONFIG_XEN_PV
#include <xen/xen.h>
#include <xen/xen-ops.h>
#include <xen/interface/xen.h>
#include <asm/xen/hypercall.h>
#include <asm/xen/page.h>

/* vmap()'d pages: two neighbours in one L1 are among any four. */
#define XEN_WINDOW_PAGES	4
#define XEN_NONCANON_VA		BIT_ULL(47)
#define XEN_LAPIC_FRAME		0xfee00ULL
#define XEN_MMUEXT_UNKNOWN	64	/* mmuext commands from here on are Xen's -ENOSYS */
#define PTE_FRAME_MASK		(((1ULL << 52) - 1) & PAGE_MASK)

struct xen_window {
	struct page *page;		/* behind every slot of the window */
	struct page *ram[2];		/* PVMAP_XEN_RAM, PVMAP_XEN_RAM2 */
	void *area;
	unsigned long va[2];
	pte_t *ptep[2];
	pteval_t orig[2];
	u64 mfn[PVMAP_XEN_FRAMES];
	unsigned long mask;		/* a vCPU bitmap Xen reads */
	struct mmu_update mu[PVMAP_XEN_STEPS];
	struct mmuext_op ext[PVMAP_XEN_STEPS];
	struct multicall_entry mc[PVMAP_XEN_STEPS];
};

static void xen_window_free(struct xen_window *w)
{
	if (w->area)
		vunmap(w->area);
	if (w->page)
		__free_page(w->page);
	if (w->ram[0])
		__free_page(w->ram[0]);
	if (w->ram[1])
		__free_page(w->ram[1]);
	kfree(w);
}

/* The window, its slots' PTEs and the frames each kind names; NULL on failure. */
static struct xen_window *xen_window_alloc(u64 aperture)
{
	struct page *pages[XEN_WINDOW_PAGES];
	struct xen_window *w;
	unsigned int i, lvl, first;

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return NULL;
	w->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	w->ram[0] = alloc_page(GFP_KERNEL | __GFP_ZERO);
	w->ram[1] = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!w->page || !w->ram[0] || !w->ram[1])
		goto fail;
	for (i = 0; i < XEN_WINDOW_PAGES; i++)
		pages[i] = w->page;
	w->area = vmap(pages, XEN_WINDOW_PAGES, VM_MAP, PAGE_KERNEL);
	if (!w->area)
		goto fail;
	/* the first of two neighbours that do not straddle a 2 MiB boundary */
	first = (((unsigned long)w->area + PAGE_SIZE) & (PMD_SIZE - 1)) ? 0 : 2;
	for (i = 0; i < 2; i++) {
		w->va[i] = (unsigned long)w->area + (first + i) * PAGE_SIZE;
		w->ptep[i] = lookup_address(w->va[i], &lvl);
		if (!w->ptep[i] || lvl != PG_LEVEL_4K)
			goto fail;
		w->orig[i] = READ_ONCE(w->ptep[i]->pte);
	}
	w->mfn[PVMAP_XEN_RAM] = pfn_to_mfn(page_to_pfn(w->ram[0]));
	w->mfn[PVMAP_XEN_RAM2] = pfn_to_mfn(page_to_pfn(w->ram[1]));
	w->mfn[PVMAP_XEN_APERTURE] = aperture >> PAGE_SHIFT;	/* dom0's MMIO: mfn == pfn */
	w->mfn[PVMAP_XEN_L1] = arbitrary_virt_to_machine(w->ptep[0]).maddr >> PAGE_SHIFT;
	w->mfn[PVMAP_XEN_LAPIC] = XEN_LAPIC_FRAME;
	return w;
fail:
	xen_window_free(w);
	return NULL;
}

static u64 xen_val(const struct xen_window *w, u32 frame, u64 flags)
{
	return (frame && frame < PVMAP_XEN_FRAMES ? w->mfn[frame] << PAGE_SHIFT : 0) | flags;
}

/* The kind of frame @pte maps (PVMAP_XEN_NONE for an empty PTE). */
static u32 xen_kind(const struct xen_window *w, u64 pte)
{
	u32 k;

	if (!pte)
		return PVMAP_XEN_NONE;
	for (k = PVMAP_XEN_RAM; k < PVMAP_XEN_FRAMES; k++)
		if ((pte & PTE_FRAME_MASK) >> PAGE_SHIFT == w->mfn[k])
			return k;
	return PVMAP_XEN_OTHER;
}

static bool xen_reads(unsigned long va)
{
	u64 v;

	return !copy_from_kernel_nofault(&v, (void *)va, sizeof(v));
}

/* Step @i of @req as an entry of the multicall, and as its own call when !@mc. */
static void xen_step(struct xen_window *w, struct pvmap_test_xen_step *st, unsigned int i,
		     bool mc)
{
	unsigned long va = st->slot < 2 ? w->va[st->slot] : XEN_NONCANON_VA;
	void *mask = st->mask ? &w->mask : NULL;
	u64 val = xen_val(w, st->frame, st->flags), ptr;
	struct multicall_entry *e = &w->mc[i];

	switch (st->op) {
	case PVMAP_XEN_MMU_UPDATE:
		if (st->ptr == PVMAP_XEN_PTR_RAM)
			ptr = w->mfn[PVMAP_XEN_RAM] << PAGE_SHIFT;
		else if (st->ptr == PVMAP_XEN_PTR_APERTURE)
			ptr = w->mfn[PVMAP_XEN_APERTURE] << PAGE_SHIFT;
		else
			ptr = arbitrary_virt_to_machine(w->ptep[st->slot & 1]).maddr;
		/*
		 * MACHPHYS names an M2P entry, not a PTE: only our own RAM page's,
		 * set to what it is. Another frame's would corrupt the M2P that
		 * Linux walks its page tables with.
		 */
		if ((st->cmd & 7) == MMU_MACHPHYS_UPDATE) {
			ptr = w->mfn[PVMAP_XEN_RAM] << PAGE_SHIFT;
			val = page_to_pfn(w->ram[0]);
		}
		w->mu[i] = (struct mmu_update){ .ptr = ptr | (st->cmd & 7), .val = val };
		*e = (struct multicall_entry){ .op = __HYPERVISOR_mmu_update,
			.args = { (unsigned long)&w->mu[i], 1, 0, st->domid } };
		if (!mc)
			st->rc = HYPERVISOR_mmu_update(&w->mu[i], 1, NULL, st->domid);
		break;
	case PVMAP_XEN_UPDATE_VA:
		*e = (struct multicall_entry){ .op = __HYPERVISOR_update_va_mapping,
			.args = { va, val, st->uvmf | (unsigned long)mask } };
		if (!mc)
			st->rc = HYPERVISOR_update_va_mapping(va, native_make_pte(val),
							      st->uvmf | (unsigned long)mask);
		break;
	case PVMAP_XEN_MMUEXT:
		w->ext[i] = (struct mmuext_op){ .cmd = st->cmd };
		w->ext[i].arg1.linear_addr = va;
		w->ext[i].arg2.vcpumask = mask;
		*e = (struct multicall_entry){ .op = __HYPERVISOR_mmuext_op,
			.args = { (unsigned long)&w->ext[i], 1, 0, st->domid } };
		if (!mc)
			st->rc = HYPERVISOR_mmuext_op(&w->ext[i], 1, NULL, st->domid);
		break;
	}
}

/* The vector itself, interrupts off: nothing else flushes this CPU's TLB meanwhile. */
static int xen_run(struct xen_window *w, struct pvmap_test_xen *req)
{
	unsigned int i, n = 0;
	unsigned long irq;
	int rc = 0;

	local_irq_save(irq);
	w->mask = 1UL << xen_vcpu_nr(smp_processor_id());
	for (i = 0; i < 2 && !rc; i++) {
		pte_t pre = native_make_pte(xen_val(w, req->pre_frame[i], req->pre_flags[i]));

		rc = HYPERVISOR_update_va_mapping(w->va[i], pre, UVMF_INVLPG | UVMF_LOCAL);
		if (!rc && req->fill[i])
			xen_reads(w->va[i]);
	}
	for (; n < PVMAP_XEN_STEPS && req->step[n].op && !rc; n++)
		xen_step(w, &req->step[n], n, req->multicall);
	if (!rc && req->multicall && n) {
		req->mc_rc = HYPERVISOR_multicall(w->mc, n);
		for (i = 0; i < n; i++)
			req->step[i].rc = (int)(long)w->mc[i].result;
	}
	for (i = 0; i < 2; i++) {
		req->pte[i] = READ_ONCE(w->ptep[i]->pte);
		req->kind[i] = xen_kind(w, req->pte[i]);
		req->readable[i] = xen_reads(w->va[i]);
	}
	local_irq_restore(irq);
	return rc;
}

/*
 * Only what the vectors need: an unknown op would be multicall entry 0,
 * set_trap_table(NULL), which wipes the domain's trap table; flush targets
 * other than our own bitmap, and mmuext commands other than the TLB ones,
 * superpages and unknown ones, reach beyond the test's two PTEs.
 */
static bool xen_step_valid(const struct pvmap_test_xen_step *st)
{
	if (st->op > PVMAP_XEN_MMUEXT || st->slot > PVMAP_XEN_SLOT_NONCANON ||
	    st->ptr > PVMAP_XEN_PTR_APERTURE || st->frame >= PVMAP_XEN_FRAMES ||
	    st->uvmf > (UVMF_FLUSHTYPE_MASK | UVMF_ALL))
		return false;
	/*
	 * Frames by kind only: flags naming a frame would map any page dom0
	 * may. (An mmu_update aimed at our RAM page or the aperture writes no
	 * PTE: its value is data, e.g. the plain write of mmu_ptr_plain_ram.)
	 */
	if ((st->flags & PTE_FRAME_MASK) &&
	    (st->op != PVMAP_XEN_MMU_UPDATE || st->ptr == PVMAP_XEN_PTR_PTE))
		return false;
	/* no page-table owner (foreigndom bits 31:16) */
	if (st->domid >> 16)
		return false;
	/* a bitmap is the flush target itself, not a flag beside UVMF_ALL */
	if (st->mask && (st->uvmf & ~UVMF_FLUSHTYPE_MASK))
		return false;
	if (st->op != PVMAP_XEN_MMUEXT)
		return true;
	switch (st->cmd) {
	case MMUEXT_INVLPG_LOCAL:
	case MMUEXT_INVLPG_MULTI:
	case MMUEXT_INVLPG_ALL:
	case MMUEXT_TLB_FLUSH_LOCAL:
	case MMUEXT_TLB_FLUSH_MULTI:
	case MMUEXT_TLB_FLUSH_ALL:
	case MMUEXT_MARK_SUPER:
	case MMUEXT_UNMARK_SUPER:
		return true;
	default:
		return st->cmd >= XEN_MMUEXT_UNKNOWN;
	}
}

int pvmap_test_xen_vector(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_xen *req = arg;
	struct xen_window *w;
	unsigned int i;
	int rc, bad = 0;

	if (!xen_pv_domain())
		return -EOPNOTSUPP;
	for (i = 0; i < 2; i++)
		if (req->pre_frame[i] >= PVMAP_XEN_FRAMES || req->pre_flags[i] & PTE_FRAME_MASK)
			return -EINVAL;
	for (i = 0; i < PVMAP_XEN_STEPS; i++)
		if (!xen_step_valid(&req->step[i]))
			return -EINVAL;
	w = xen_window_alloc(ctx->base);
	if (!w)
		return test_fail(ctx, "no window");
	rc = xen_run(w, req);
	/* both PTEs as they were, on every vCPU: no stale translation survives */
	for (i = 0; i < 2; i++) {
		int r = HYPERVISOR_update_va_mapping(w->va[i], native_make_pte(w->orig[i]),
						     UVMF_INVLPG | UVMF_ALL);

		bad = bad ?: r;
	}
	if (bad) {
		/* vunmap() must not meet a PTE it did not make: keep it all */
		pr_err("pvmap_test: a Xen test slot could not be restored; its pages leak\n");
		w->area = NULL;
		w->page = NULL;
		w->ram[0] = NULL;
		w->ram[1] = NULL;
	}
	xen_window_free(w);
	if (rc)
		return test_fail(ctx, "setting up the slots: %d", rc);
	if (bad)
		return test_fail(ctx, "restoring the slots: %d", bad);
	return test_pass(ctx, "ran");
}
#else
int pvmap_test_xen_vector(struct pvmap_test_ctx *ctx, void *arg)
{
	return -EOPNOTSUPP;
}
#endif
