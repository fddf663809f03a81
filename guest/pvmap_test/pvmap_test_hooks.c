// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap_test's fixtures on pvmap's PTE layer, which pvmap exports only when
 * built with CONFIG_PVMAP_TEST_HOOKS (pvmap_test_has_pte_layer()): the
 * hazard demonstration and the hypervisor channel's refusals and round
 * trip; and a sleepable map held while the host revokes its frame.
 */

#include <linux/io.h>
#include <linux/mm.h>
#include <linux/sort.h>
#include <linux/slab.h>

#include "pvmap_test.h"

/*
 * The hazard demonstration, in two steps with the host acting in between:
 * map page A, write, unmap, and remember the pointer; later, write through
 * that pointer again. With pvmap's clear-on-unmap the second write faults.
 * With hazard_demo=1 the map is made the way io_mapping was before
 * clear-on-unmap (the seed patch's iounmap_atomic() comment): its unmap
 * forgets the map but leaves the PTE and the TLB entry, so the write lands
 * in whatever page A has become. That engine is built here, on pvmap's PTE
 * layer, in a window of this module's own: pvmap.ko has no way to leave a
 * stale mapping behind.
 */
static void __iomem *hazard_vaddr;
static struct pvmap_window hazard_window;	/* hazard_demo's one-page engine */

/* Map @offset in hazard_window; the "unmap" is to forget the address. */
void __iomem *pvmap_test_map_leaving_pte(struct pvmap_test_ctx *ctx, u64 offset)
{
	if (!pvmap_test_has_pte_layer())
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
	if (!pvmap_test_has_pte_layer() || !hazard_window.area)
		return;
	pvmap_pte_clear(&hazard_window, 0);
	pvmap_tlb_flush_all_cpus(&hazard_window, 0, 1);
	pvmap_window_destroy(&hazard_window);
}

int pvmap_test_hazard_map(struct pvmap_test_ctx *ctx, void *arg)
{
	static const char data[] = "guest data in page A";
	struct pvmap_test_hazard *req = arg;
	u64 offset = pvmap_test_random_offset(ctx, 1);
	void __iomem *vaddr;

	if (pvmap_test_hazard_demo) {
		vaddr = pvmap_test_map_leaving_pte(ctx, offset);
		if (!vaddr)
			return test_fail(ctx, "no hazard window");
		memcpy_toio(vaddr, data, sizeof(data));
	} else {
		vaddr = pvmap_io_mapping_map_atomic_wc(ctx->m, offset);
		if (!vaddr)
			return test_fail(ctx, "map returned NULL");
		memcpy_toio(vaddr, data, sizeof(data));
		pvmap_io_mapping_unmap_atomic(vaddr);
	}
	hazard_vaddr = vaddr;
	/* The address is what the host auditor will find, if anything. */
	req->va = (unsigned long)vaddr;
	req->offset = offset;
	req->demo = pvmap_test_hazard_demo;
	return 0;
}

int pvmap_test_hazard_write(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_hazard *req = arg;

	if (!hazard_vaddr)
		return test_fail(ctx, "no hazard_map before");
	req->va = (unsigned long)hazard_vaddr;
	req->demo = pvmap_test_hazard_demo;
	req->landed = pvmap_test_store_stale(hazard_vaddr);
	return 0;
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
 * A refused request writes nothing. The PTE's machine address and each
 * case's value, answer and PTE after are for the host to find in
 * pvmap-hv's refusals.
 */
static struct pvmap_window pv_window;

static int pv_request(pte_t *ptep, u64 val)
{
	int ret;

	if (!pvmap_test_has_pte_layer())
		return -EOPNOTSUPP;
	preempt_disable();	/* a batch belongs to one CPU */
	pvmap_pv_begin();
	pvmap_pv_write(ptep, __pte(val));
	ret = pvmap_pv_end();
	preempt_enable();
	return ret;
}

/* One case: its request, the answer and the PTE after. */
static void pv_case(struct pvmap_test_pv_case *c, pte_t *ptep, u64 val)
{
	c->val = val;
	c->err = pv_request(ptep, val);
	c->pte = pte_val(*ptep);
}

static int pv_verdict(struct pvmap_test_ctx *ctx, const struct pvmap_test_pv *req)
{
	const struct pvmap_test_pv_case *wb = &req->wb;
	u64 ignored = _PAGE_CACHE_MASK | _PAGE_ACCESSED | _PAGE_DIRTY;

	if (wb->err || (wb->pte & _PAGE_CACHE_MASK) != (_PAGE_PCD | _PAGE_PWT) ||
	    (wb->pte ^ wb->val) & ~ignored)
		return test_fail(ctx, "write-back aperture: rc %d, PTE %#llx (asked %#llx)",
				 wb->err, wb->pte, wb->val);
	if (req->outside.err != -EPERM || req->outside.pte)
		return test_fail(ctx, "frame outside the guest: rc %d, PTE %#llx",
				 req->outside.err, req->outside.pte);
	if (req->reserved.err != -EINVAL || req->reserved.pte)
		return test_fail(ctx, "reserved bit: rc %d, PTE %#llx", req->reserved.err,
				 req->reserved.pte);
	return 0;
}

int pvmap_test_pv_refusals(struct pvmap_test_ctx *ctx, void *arg)
{
	u64 frame = (ctx->base + pvmap_test_random_offset(ctx, 1)) >> PAGE_SHIFT;
	pgprot_t prot = pvmap_io_mapping_prot(ctx->m);
	struct pvmap_test_pv *req = arg;
	pte_t *ptep;

	if (!pvmap_test_has_pte_layer())
		return test_skip(ctx, "pvmap built without CONFIG_PVMAP_TEST_HOOKS");
	if (!static_branch_unlikely(&pvmap_pv_on))
		return test_skip(ctx, "no hypervisor channel");
	if (!pv_window.area && pvmap_window_create(&pv_window, 1))
		return test_fail(ctx, "no window");
	ptep = pv_window.ptes[0];
	req->ptr = __pa(ptep);
	pv_case(&req->wb, ptep, pte_val(pfn_pte(frame, pvmap_prot_supported(PAGE_KERNEL))));
	pv_request(ptep, 0);
	pv_case(&req->outside, ptep, pte_val(pfn_pte(0xf00000, prot)));
	pv_case(&req->reserved, ptep, pte_val(pfn_pte(frame, prot)) | BIT_ULL(62));
	pv_request(ptep, 0);
	pvmap_tlb_flush_all_cpus(&pv_window, 0, 1);
	return pv_verdict(ctx, req);
}

static int cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

/* The hypervisor channel's round trip, PV_PINGS calls of nothing, each timed. */
#define PV_PINGS	1001

int pvmap_test_pv_ping(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_ping *req = arg;
	s64 *ns;
	int i;

	if (!pvmap_test_has_pte_layer())
		return test_skip(ctx, "pvmap built without CONFIG_PVMAP_TEST_HOOKS");
	if (!static_branch_unlikely(&pvmap_pv_on))
		return test_skip(ctx, "no hypervisor channel");
	ns = kvmalloc_array(PV_PINGS, sizeof(*ns), GFP_KERNEL);
	if (!ns)
		return -ENOMEM;
	for (i = 0; i < PV_PINGS; i++) {
		ns[i] = pvmap_pv_ping();
		if (ns[i] < 0) {
			test_fail(ctx, "ping %d: %lld", i, ns[i]);
			kvfree(ns);
			return 0;
		}
		if (!(i % 64))
			cond_resched();
	}
	sort(ns, PV_PINGS, sizeof(*ns), cmp_s64, NULL);
	req->n = PV_PINGS;
	req->median_ns = ns[PV_PINGS / 2];
	req->min_ns = ns[0];
	req->max_ns = ns[PV_PINGS - 1];
	kvfree(ns);
	return 0;
}

/* A sleepable map held across requests, for the host to revoke its frame meanwhile. */
static void __iomem *pv_held;

int pvmap_test_pv_hold(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_pv_hold *req = arg;
	u64 offset = ctx->size - PAGE_SIZE;

	if (pv_held)
		return test_fail(ctx, "already holding a map");
	pv_held = pvmap_io_mapping_map_wc(ctx->m, offset, PAGE_SIZE);
	if (!pv_held)
		return test_fail(ctx, "map returned NULL");
	writel(0x70766d70, pv_held);
	req->va = (unsigned long)pv_held;
	req->frame = (ctx->base + offset) >> PAGE_SHIFT;
	return 0;
}

int pvmap_test_pv_release(struct pvmap_test_ctx *ctx, void *arg)
{
	if (!pv_held)
		return test_fail(ctx, "no map held");
	pvmap_io_mapping_unmap(pv_held);
	pv_held = NULL;
	return 0;
}

void pvmap_test_hooks_exit(void)
{
	hazard_window_destroy();
	if (pv_held)
		pvmap_io_mapping_unmap(pv_held);
	pv_held = NULL;
	if (pvmap_test_has_pte_layer() && pv_window.area)
		pvmap_window_destroy(&pv_window);
}
