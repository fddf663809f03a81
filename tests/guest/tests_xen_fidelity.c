// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap-tests: libpvstub judged by real Xen. Each vector below is one
 * behaviour of Xen's PV MMU that tests/unit/test_xen_fidelity.c models
 * (mod_l1_entry(), get_page_from_l1e(), multicall order, mmuext flushes,
 * update_va_mapping's flags, DOMID_IO) or an XTF-style scenario; in a Xen
 * PV domain pvmap_test.ko issues it as real hypercalls (XEN_VECTOR), and
 * the same vector runs here through libpvstub, linked in, on a stub set up
 * as dom0 is: RAM, every other frame its I/O memory but the local APIC's
 * and the MSI range (Xen's dom0_setup_permissions()), a release build of
 * Xen as Debian's is (cfg.release_build), privileged (cfg.privileged). Any disagreement
 * not in the known deviations (documented in docs/hypervisor.md, "The
 * model judged by Xen 4.17.7") fails the test.
 * A feature program of pvmap-tests (feature_list.h).
 */
#include "pvmap-tests.h"

#if defined(__x86_64__)
#include "pvstub.h"

#define XP	0x001ULL		/* present */
#define XRW	0x002ULL
#define XUS	0x004ULL
#define XPWT	0x008ULL
#define XPCD	0x010ULL
#define XA	0x020ULL
#define XD	0x040ULL
#define XPAT	0x080ULL		/* Xen's PAT: index 4 (PAT alone) is WC */
#define XG	0x100ULL
#define XGK	(1ULL << 52)		/* _PAGE_GUEST_KERNEL */
#define XB62	(1ULL << 62)		/* _PAGE_GNTTAB */
#define XNX	(1ULL << 63)
#define XFRAME	(((1ULL << 52) - 1) & ~0xfffULL)
#define XSELF	DOMID_SELF

/* One step: mmu_update of a slot's PTE (or of another frame), update_va_mapping, mmuext_op. */
#define MMU(s, c, f, fl) { .op = PVMAP_XEN_MMU_UPDATE, .slot = (s), .cmd = (c), .frame = (f), \
			   .flags = (fl), .domid = XSELF }
#define MMU_DOM(s, f, fl, d) { .op = PVMAP_XEN_MMU_UPDATE, .slot = (s), .frame = (f), \
			       .flags = (fl), .domid = (d) }
#define MMU_PTR(p, f, fl) { .op = PVMAP_XEN_MMU_UPDATE, .ptr = (p), .frame = (f), .flags = (fl), \
			    .domid = XSELF }
#define UVA(s, f, fl, u) { .op = PVMAP_XEN_UPDATE_VA, .slot = (s), .frame = (f), .flags = (fl), \
			   .uvmf = (u), .domid = XSELF }
#define UVA_MASK(s, f, fl, u) { .op = PVMAP_XEN_UPDATE_VA, .slot = (s), .frame = (f), \
				.flags = (fl), .uvmf = (u), .mask = PVMAP_XEN_MASK_SELF, \
				.domid = XSELF }
#define EXT(c, s, d) { .op = PVMAP_XEN_MMUEXT, .cmd = (c), .slot = (s), .domid = (d) }
#define EXT_MASK(c, s) { .op = PVMAP_XEN_MMUEXT, .cmd = (c), .slot = (s), \
			 .mask = PVMAP_XEN_MASK_SELF, .domid = XSELF }

#define RAM	PVMAP_XEN_RAM
#define RAM2	PVMAP_XEN_RAM2
#define APER	PVMAP_XEN_APERTURE
#define L1F	PVMAP_XEN_L1
#define LAPIC	PVMAP_XEN_LAPIC
#define NONC	PVMAP_XEN_SLOT_NONCANON
#define NOFRAME	PVMAP_XEN_NONE
#define MAPPED	{ RAM, 0 }, { XP | XRW, 0 }	/* slot 0 maps RAM, slot 1 empty */

struct xen_vector {
	const char *name;
	uint32_t pre_frame[2];
	uint64_t pre_flags[2];
	uint32_t fill[2];
	uint32_t multicall;
	struct pvmap_test_xen_step step[PVMAP_XEN_STEPS];
};

static const struct xen_vector xen_vectors[] = {
	/* do_mmu_update(): the command in ptr's low bits; the frame ptr names */
	{ "mmu_normal_ram_rw", {0}, {0}, {0}, 0, { MMU(0, MMU_NORMAL_PT_UPDATE, RAM, XP | XRW) } },
	{ "mmu_preserve_ad", { RAM, 0 }, { XP | XRW | XA | XD, 0 }, {0}, 0,
	  { MMU(0, MMU_PT_UPDATE_PRESERVE_AD, RAM2, XP | XRW) } },
	{ "mmu_no_translate", {0}, {0}, {0}, 0,
	  { MMU(0, MMU_PT_UPDATE_NO_TRANSLATE, RAM, XP | XRW) } },
	/* the M2P entry of the domain's own RAM page, set to what it is (pvmap_test_xen.c) */
	{ "mmu_machphys_own_ram", {0}, {0}, {0}, 0,
	  { { .op = PVMAP_XEN_MMU_UPDATE, .ptr = PVMAP_XEN_PTR_RAM, .cmd = MMU_MACHPHYS_UPDATE,
	      .domid = XSELF } } },
	{ "mmu_cmd_4", {0}, {0}, {0}, 0, { MMU(0, 4, RAM, XP | XRW) } },
	{ "mmu_cmd_7", {0}, {0}, {0}, 0, { MMU(0, 7, RAM, XP | XRW) } },
	{ "mmu_ptr_plain_ram", {0}, {0}, {0}, 0, { MMU_PTR(PVMAP_XEN_PTR_RAM, NOFRAME, 0x1234) } },
	{ "mmu_ptr_mmio", {0}, {0}, {0}, 0, { MMU_PTR(PVMAP_XEN_PTR_APERTURE, NOFRAME, 0) } },
	/* get_page_from_l1e(): RAM, MMIO and its cache types, page tables, flags */
	{ "l1e_ram_wc", {0}, {0}, {0}, 0, { MMU(0, 0, RAM, XP | XRW | XPAT) } },
	{ "l1e_ram_nx", {0}, {0}, {0}, 0, { MMU(0, 0, RAM, XP | XRW | XNX) } },
	{ "l1e_aperture_wb", {0}, {0}, {0}, 0, { MMU(0, 0, APER, XP | XRW) } },
	{ "l1e_aperture_wt", {0}, {0}, {0}, 0, { MMU(0, 0, APER, XP | XRW | XPWT) } },
	{ "l1e_aperture_wp", {0}, {0}, {0}, 0, { MMU(0, 0, APER, XP | XRW | XPAT | XPWT) } },
	{ "l1e_aperture_wc", {0}, {0}, {0}, 0, { MMU(0, 0, APER, XP | XRW | XPAT) } },
	{ "l1e_aperture_ucminus", {0}, {0}, {0}, 0, { MMU(0, 0, APER, XP | XRW | XPCD) } },
	{ "l1e_aperture_uc", {0}, {0}, {0}, 0, { MMU(0, 0, APER, XP | XRW | XPCD | XPWT) } },
	{ "l1e_lapic", {0}, {0}, {0}, 0, { MMU(0, 0, LAPIC, XP | XRW | XPCD | XPWT) } },
	{ "l1e_bit62", {0}, {0}, {0}, 0, { MMU(0, 0, RAM, XP | XRW | XB62) } },
	{ "l1e_user", {0}, {0}, {0}, 0, { MMU(0, 0, RAM, XP | XRW | XUS) } },
	{ "l1e_global", {0}, {0}, {0}, 0, { MMU(0, 0, RAM, XP | XRW | XG) } },
	{ "l1e_not_present_any_frame", {0}, {0}, {0}, 0, { MMU(0, 0, LAPIC, XRW) } },
	/* XTF-style: a page-table frame writable; read-only, then RW added by flags alone */
	{ "xtf_pt_frame_writable", {0}, {0}, {0}, 0, { MMU(0, 0, L1F, XP | XRW) } },
	{ "l1e_pt_frame_readonly", {0}, {0}, {0}, 0, { MMU(0, 0, L1F, XP) } },
	{ "xtf_pt_frame_flag_only_rw", { L1F, 0 }, { XP, 0 }, {0}, 0,
	  { MMU(0, 0, L1F, XP | XRW) } },
	/* foreigndom: DOMID_IO, a domain that does not exist, dom0 naming itself */
	{ "mmu_domid_io_aperture", {0}, {0}, {0}, 0, { MMU_DOM(0, APER, XP | XRW | XPAT, DOMID_IO) } },
	{ "mmu_domid_io_ram", {0}, {0}, {0}, 0, { MMU_DOM(0, RAM, XP | XRW, DOMID_IO) } },
	{ "mmu_domid_absent", {0}, {0}, {0}, 0, { MMU_DOM(0, RAM, XP | XRW, 42) } },
	{ "mmu_domid_0_self", {0}, {0}, {0}, 0, { MMU_DOM(0, RAM, XP | XRW, 0) } },
	{ "mmuext_domid_io", {0}, {0}, {0}, 0, { EXT(MMUEXT_TLB_FLUSH_LOCAL, 0, DOMID_IO) } },
	{ "mmu_domid_xen_ram", {0}, {0}, {0}, 0, { MMU_DOM(0, RAM, XP | XRW, DOMID_XEN) } },
	{ "mmu_domid_xen_aperture", {0}, {0}, {0}, 0,
	  { MMU_DOM(0, APER, XP | XRW | XPAT, DOMID_XEN) } },
	{ "mmu_domid_xen_clear", {0}, {0}, {0}, 0, { MMU_DOM(0, NOFRAME, 0, DOMID_XEN) } },
	{ "mmuext_domid_xen", {0}, {0}, {0}, 0, { EXT(MMUEXT_TLB_FLUSH_LOCAL, 0, DOMID_XEN) } },
	{ "mmuext_domid_absent", {0}, {0}, {0}, 0, { EXT(MMUEXT_TLB_FLUSH_LOCAL, 0, 42) } },
	/* __do_update_va_mapping(): flush types and targets; a refusal skips the flush */
	{ "uvm_map_invlpg_local", {0}, {0}, {0}, 0,
	  { UVA(0, RAM, XP | XRW, UVMF_INVLPG | UVMF_LOCAL) } },
	{ "uvm_clear_none", MAPPED, { 1, 0 }, 0, { UVA(0, NOFRAME, 0, UVMF_NONE) } },
	{ "uvm_clear_type3", MAPPED, { 1, 0 }, 0, { UVA(0, NOFRAME, 0, 3) } },
	{ "uvm_clear_invlpg_local", MAPPED, { 1, 0 }, 0,
	  { UVA(0, NOFRAME, 0, UVMF_INVLPG | UVMF_LOCAL) } },
	{ "uvm_clear_invlpg_all", MAPPED, { 1, 0 }, 0, { UVA(0, NOFRAME, 0, UVMF_INVLPG | UVMF_ALL) } },
	{ "uvm_clear_flush_local", MAPPED, { 1, 0 }, 0,
	  { UVA(0, NOFRAME, 0, UVMF_TLB_FLUSH | UVMF_LOCAL) } },
	{ "uvm_clear_flush_all", MAPPED, { 1, 0 }, 0,
	  { UVA(0, NOFRAME, 0, UVMF_TLB_FLUSH | UVMF_ALL) } },
	{ "uvm_clear_invlpg_bitmap", MAPPED, { 1, 0 }, 0,
	  { UVA_MASK(0, NOFRAME, 0, UVMF_INVLPG) } },
	{ "uvm_other_va_invlpg", MAPPED, { 1, 0 }, 0,
	  { MMU(0, 0, NOFRAME, 0), UVA(1, RAM2, XP | XRW, UVMF_INVLPG | UVMF_LOCAL) } },
	{ "uvm_refused_skips_flush", MAPPED, { 1, 0 }, 0,
	  { MMU(0, 0, NOFRAME, 0), UVA(0, LAPIC, XP | XRW | XPCD | XPWT, UVMF_INVLPG | UVMF_LOCAL) } },
	{ "xtf_uvm_noncanonical_invlpg", {0}, {0}, {0}, 0,
	  { UVA(NONC, NOFRAME, 0, UVMF_INVLPG | UVMF_LOCAL) } },
	/* do_mmuext_op(): the TLB operations after a PTE cleared without a flush */
	{ "mmuext_invlpg_local", MAPPED, { 1, 0 }, 0,
	  { MMU(0, 0, NOFRAME, 0), EXT(MMUEXT_INVLPG_LOCAL, 0, XSELF) } },
	{ "mmuext_invlpg_all", MAPPED, { 1, 0 }, 0,
	  { MMU(0, 0, NOFRAME, 0), EXT(MMUEXT_INVLPG_ALL, 0, XSELF) } },
	{ "mmuext_invlpg_multi", MAPPED, { 1, 0 }, 0,
	  { MMU(0, 0, NOFRAME, 0), EXT_MASK(MMUEXT_INVLPG_MULTI, 0) } },
	{ "mmuext_tlb_flush_local", MAPPED, { 1, 0 }, 0,
	  { MMU(0, 0, NOFRAME, 0), EXT(MMUEXT_TLB_FLUSH_LOCAL, 0, XSELF) } },
	{ "mmuext_tlb_flush_multi", MAPPED, { 1, 0 }, 0,
	  { MMU(0, 0, NOFRAME, 0), EXT_MASK(MMUEXT_TLB_FLUSH_MULTI, 0) } },
	{ "mmuext_tlb_flush_all", MAPPED, { 1, 0 }, 0,
	  { MMU(0, 0, NOFRAME, 0), EXT(MMUEXT_TLB_FLUSH_ALL, 0, XSELF) } },
	{ "mmuext_invlpg_noncanonical", {0}, {0}, {0}, 0, { EXT(MMUEXT_INVLPG_LOCAL, NONC, XSELF) } },
	{ "mmuext_mark_super", {0}, {0}, {0}, 0, { EXT(MMUEXT_MARK_SUPER, 0, XSELF) } },
	{ "mmuext_unknown_cmd", {0}, {0}, {0}, 0, { EXT(99, 0, XSELF) } },
	/* xen/common/multicall.c: in order, each entry its own result */
	{ "multicall_in_order", {0}, {0}, {0}, 1,
	  { MMU(0, 0, RAM, XP | XRW), MMU(0, 4, RAM2, XP | XRW), MMU(1, 0, RAM2, XP | XRW) } },
	{ "multicall_refused_then_flush", MAPPED, { 1, 0 }, 1,
	  { MMU(0, 0, NOFRAME, 0), MMU(1, 0, LAPIC, XP), EXT(MMUEXT_INVLPG_LOCAL, 0, XSELF) } },
	/* XTF-style: no stale linear mapping once the last entry flushes */
	{ "xtf_multicall_uvm_mmu_uvm", MAPPED, { 1, 0 }, 1,
	  { UVA(0, RAM2, XP | XRW, UVMF_NONE), MMU(0, 0, NOFRAME, 0),
	    UVA(1, RAM, XP | XRW, UVMF_TLB_FLUSH | UVMF_LOCAL) } },
};

/*
 * The known deviations, each with why the model stays as it is;
 * docs/hypervisor.md ("The model judged by Xen 4.17.7") lists the same.
 */
#define DEV_PV64_ADJUST	"pv64_adjust_guest_l1e"

static const struct xen_deviation {
	const char *id, *why;
} xen_deviations[] = {
	{ DEV_PV64_ADJUST,
	  "Xen's adjust_guest_l1e() adds _PAGE_USER and _PAGE_GUEST_KERNEL (bit 52) to each "
	  "present kernel entry (no _PAGE_USER) of a 64-bit PV guest, whose kernel runs in "
	  "ring 3, and _PAGE_GLOBAL to each user entry (no XPTI here); the model's entries are "
	  "an HVM guest's own (pvmap-hv writes them into its page tables, its kernel in ring "
	  "0), where a user bit would open kernel mappings to user space" },
};

/* Whether @id is among the known deviations: without its row, what it explains fails. */
static bool deviation_listed(const char *id)
{
	for (size_t j = 0; j < sizeof(xen_deviations) / sizeof(xen_deviations[0]); j++)
		if (!strcmp(xen_deviations[j].id, id))
			return true;
	return false;
}

/* One side's answer to a vector. */
struct xen_answer {
	int rc[PVMAP_XEN_STEPS], mc_rc;
	uint64_t pte[2];
	uint32_t kind[2], readable[2];
};

/* The stub, set up as Xen sets up dom0: RAM below 1 GiB, the rest I/O memory. */
#define M_RAM_FRAMES	0x40000ULL
#define M_APERTURE	0xe0000ULL
#define M_MSI_FIRST	0xfee00ULL		/* the local APIC's frame, in the MSI range */
#define M_MSI_FRAMES	0x100ULL
#define M_PADDR_FRAMES	(1ULL << 28)		/* 40 physical address bits */
#define M_VA		0xffffc90000200000ULL

static struct pvstub *model_dom0(uint64_t *frames)
{
	struct pvstub_config cfg = {
		.nr_vcpus = 2, .ram_frames = M_RAM_FRAMES, .aperture_first = M_RAM_FRAMES,
		.aperture_frames = M_MSI_FIRST - M_RAM_FRAMES, .release_build = true,
		.privileged = true,
	};
	struct pvstub *s = pvstub_create(&cfg);

	if (!s)
		return NULL;
	if (pvstub_add_aperture(s, M_MSI_FIRST + M_MSI_FRAMES,
				M_PADDR_FRAMES - M_MSI_FIRST - M_MSI_FRAMES) ||
	    pvstub_alloc_l1(s, M_VA)) {
		pvstub_destroy(s);
		return NULL;
	}
	frames[PVMAP_XEN_NONE] = 0;
	frames[PVMAP_XEN_RAM] = 0x100;
	frames[PVMAP_XEN_RAM2] = 0x101;
	frames[PVMAP_XEN_APERTURE] = M_APERTURE;
	frames[PVMAP_XEN_L1] = pvstub_pte_maddr(s, M_VA) >> 12;
	frames[PVMAP_XEN_LAPIC] = M_MSI_FIRST;
	return s;
}

static uint64_t model_va(uint32_t slot)
{
	return slot == NONC ? 1ULL << 47 : M_VA + slot * PAGE;
}

/* The vector through libpvstub, as vCPU 0. */
static int model_run(const struct xen_vector *v, struct xen_answer *a)
{
	static uint64_t self_mask = 1;		/* vCPU 0 */
	struct multicall_entry mc[PVMAP_XEN_STEPS];
	struct mmu_update mu[PVMAP_XEN_STEPS];
	struct mmuext_op ext[PVMAP_XEN_STEPS];
	uint64_t fr[PVMAP_XEN_FRAMES], got;
	struct pvstub *s = model_dom0(fr);
	unsigned int n;

	if (!s)
		return -1;
	memset(a, 0, sizeof(*a));
	for (unsigned int i = 0; i < 2; i++) {
		if (pvstub_update_va_mapping(s, 0, model_va(i), fr[v->pre_frame[i]] << 12 |
					     v->pre_flags[i], UVMF_INVLPG | UVMF_LOCAL)) {
			pvstub_destroy(s);
			return -1;
		}
		if (v->fill[i])
			pvstub_access(s, 0, model_va(i), false, &got);
	}
	for (n = 0; n < PVMAP_XEN_STEPS && v->step[n].op; n++) {
		const struct pvmap_test_xen_step *st = &v->step[n];
		uint64_t va = model_va(st->slot), val = fr[st->frame] << 12 | st->flags;
		uint64_t ptr = pvstub_pte_maddr(s, model_va(st->slot & 1));
		uintptr_t mask = st->mask ? (uintptr_t)&self_mask : 0;

		if (st->ptr)
			ptr = fr[st->ptr == PVMAP_XEN_PTR_RAM ? RAM : APER] << 12;
		mu[n] = (struct mmu_update){ .ptr = ptr | (st->cmd & 7), .val = val };
		ext[n] = (struct mmuext_op){ .cmd = st->cmd, .arg1.linear_addr = va,
					     .arg2.vcpumask = (void *)mask };
		if (st->op == PVMAP_XEN_MMU_UPDATE)
			mc[n] = (struct multicall_entry){ .op = __HYPERVISOR_mmu_update,
				.args = { (uintptr_t)&mu[n], 1, 0, st->domid } };
		else if (st->op == PVMAP_XEN_UPDATE_VA)
			mc[n] = (struct multicall_entry){ .op = __HYPERVISOR_update_va_mapping,
				.args = { va, val, st->uvmf | mask } };
		else
			mc[n] = (struct multicall_entry){ .op = __HYPERVISOR_mmuext_op,
				.args = { (uintptr_t)&ext[n], 1, 0, st->domid } };
		if (v->multicall)
			continue;
		if (st->op == PVMAP_XEN_MMU_UPDATE)
			a->rc[n] = pvstub_mmu_update(s, 0, &mu[n], 1, NULL, st->domid);
		else if (st->op == PVMAP_XEN_UPDATE_VA)
			a->rc[n] = pvstub_update_va_mapping(s, 0, va, val, st->uvmf | mask);
		else
			a->rc[n] = pvstub_mmuext_op(s, 0, &ext[n], 1, NULL, st->domid);
	}
	if (v->multicall) {
		a->mc_rc = pvstub_multicall(s, 0, mc, n);
		for (unsigned int i = 0; i < n; i++)
			a->rc[i] = (int)(long)mc[i].result;
	}
	for (unsigned int i = 0; i < 2; i++) {
		a->pte[i] = pvstub_pte(s, model_va(i));
		a->kind[i] = PVMAP_XEN_OTHER;
		for (uint32_t k = 0; k < PVMAP_XEN_FRAMES; k++)
			if (a->pte[i] ? k && (a->pte[i] & XFRAME) >> 12 == fr[k] : !k)
				a->kind[i] = k;
		a->readable[i] = !pvstub_access(s, 0, model_va(i), false, &got);
	}
	pvstub_destroy(s);
	return 0;
}

/* The vector as real hypercalls: 0, -EOPNOTSUPP when this is no Xen PV domain, -1. */
static int xen_run(const struct xen_vector *v, const struct device *d, struct xen_answer *a)
{
	struct pvmap_test_xen req = { .multicall = v->multicall };
	int ret;

	memcpy(req.pre_frame, v->pre_frame, sizeof(req.pre_frame));
	memcpy(req.pre_flags, v->pre_flags, sizeof(req.pre_flags));
	memcpy(req.fill, v->fill, sizeof(req.fill));
	memcpy(req.step, v->step, sizeof(req.step));
	ret = guest_test(PVMAP_TEST_XEN_VECTOR, &req, d->info.aperture_base,
			 d->info.aperture_size);
	if (ret == -EOPNOTSUPP)
		return ret;
	if (ret || req.h.status != PVMAP_TEST_PASS)
		return fail("%s: %s", v->name, req.h.msg);
	memset(a, 0, sizeof(*a));
	for (unsigned int i = 0; i < PVMAP_XEN_STEPS; i++)
		a->rc[i] = req.step[i].rc;
	a->mc_rc = req.mc_rc;
	memcpy(a->pte, req.pte, sizeof(a->pte));
	memcpy(a->kind, req.kind, sizeof(a->kind));
	memcpy(a->readable, req.readable, sizeof(a->readable));
	return 0;
}

static const char *const kind_names[] = { "none", "RAM", "RAM2", "aperture", "L1", "LAPIC" };

/*
 * An answer as the table shows it: each step's result, then each slot's
 * frame, flags (A masked on a slot the vector read first: the hardware
 * sets it, the model's walker does not) and whether its address read.
 */
static void answer_text(const struct xen_vector *v, const struct xen_answer *a, char *buf,
			size_t len)
{
	size_t o = 0;

	for (unsigned int i = 0; i < PVMAP_XEN_STEPS && v->step[i].op; i++)
		o += snprintf(buf + o, len - o, "%s%d", i ? "/" : "rc ", a->rc[i]);
	if (v->multicall)
		o += snprintf(buf + o, len - o, " (mc %d)", a->mc_rc);
	for (unsigned int i = 0; i < 2 && o < len; i++) {
		uint64_t flags = a->pte[i] & ~XFRAME & ~(v->fill[i] ? XA : 0);

		o += snprintf(buf + o, len - o, "; s%u %s", i, a->kind[i] < PVMAP_XEN_FRAMES ?
			      kind_names[a->kind[i]] : "other");
		if (a->pte[i])
			o += snprintf(buf + o, len - o, " %#" PRIx64, flags);
		o += snprintf(buf + o, len - o, " %s", a->readable[i] ? "reads" : "faults");
	}
}

/*
 * Whether a step of @v that succeeded (in the model's answer @m) invalidated
 * slot @s on this vCPU after the slot's PTE last changed: update_va_mapping
 * with a TLB flush, or an INVLPG of the slot; an mmuext INVLPG of the slot
 * or a TLB flush (LOCAL, ALL, or a bitmap that is this vCPU).
 */
static bool slot_flushed(const struct xen_vector *v, const struct xen_answer *m, unsigned int s)
{
	bool flushed = false;

	for (unsigned int i = 0; i < PVMAP_XEN_STEPS && v->step[i].op; i++) {
		const struct pvmap_test_xen_step *st = &v->step[i];
		unsigned int type = st->uvmf & UVMF_FLUSHTYPE_MASK;

		if (st->slot == s && (st->op == PVMAP_XEN_UPDATE_VA ||
				      (st->op == PVMAP_XEN_MMU_UPDATE && st->ptr == PVMAP_XEN_PTR_PTE)))
			flushed = false;	/* changed: earlier flushes no longer count */
		if (m->rc[i])
			continue;
		if (st->op == PVMAP_XEN_UPDATE_VA)
			flushed |= type == UVMF_TLB_FLUSH || (type == UVMF_INVLPG && st->slot == s);
		else if (st->op == PVMAP_XEN_MMUEXT)
			flushed |= ((st->cmd == MMUEXT_INVLPG_LOCAL || st->cmd == MMUEXT_INVLPG_MULTI ||
				     st->cmd == MMUEXT_INVLPG_ALL) && st->slot == s) ||
				    st->cmd == MMUEXT_TLB_FLUSH_LOCAL ||
				    st->cmd == MMUEXT_TLB_FLUSH_MULTI || st->cmd == MMUEXT_TLB_FLUSH_ALL;
	}
	return flushed;
}

/*
 * A stale translation (the model reads through a TLB entry its PTE no
 * longer has) is what a CPU may keep, not must: where no step invalidated
 * the slot since, Xen's slot may read or fault, and is compared as if it
 * read. After an invalidation the model must fault as Xen does.
 */
static struct xen_answer stale_allowed(const struct xen_vector *v, const struct xen_answer *x,
				       const struct xen_answer *m)
{
	struct xen_answer xn = *x;

	for (unsigned int i = 0; i < 2; i++)
		if (m->readable[i] && !(m->pte[i] & XP) && !slot_flushed(v, m, i))
			xn.readable[i] = 1;
	return xn;
}

/*
 * DEV_PV64_ADJUST: Xen's answer less what adjust_guest_l1e() adds to a
 * present slot: _PAGE_USER and bit 52 to a kernel entry, _PAGE_GLOBAL to a
 * user one, where the model has none of them.
 */
static struct xen_answer pv64_adjust_removed(const struct xen_answer *x,
					     const struct xen_answer *m)
{
	struct xen_answer xn = *x;

	for (unsigned int i = 0; i < 2; i++) {
		uint64_t xf = x->pte[i], mf = m->pte[i];

		if (!(xf & XP))
			continue;
		if (!(mf & (XUS | XGK)) && (xf & (XUS | XGK)) == (XUS | XGK))
			xn.pte[i] &= ~(XUS | XGK);
		else if ((mf & XUS) && !(mf & XG) && (xf & XG))
			xn.pte[i] &= ~XG;
	}
	return xn;
}

#endif /* __x86_64__ */

/*
 * libpvstub judged by Xen 4.17: each vector as real hypercalls and through
 * the model, one table row each (Xen's answer, the model's, the verdict);
 * fails on any disagreement that is not a known deviation.
 */
TEST_F(pvmap, xen_fidelity_diff)
{
#if !defined(__x86_64__)
	SKIP(return, "not a Xen PV domain (no 32-bit Xen PV since Linux 5.9)");
#else
	const size_t nv = sizeof(xen_vectors) / sizeof(xen_vectors[0]);
	const size_t nd = sizeof(xen_deviations) / sizeof(xen_deviations[0]);
	unsigned int bad = 0, known = 0;
	struct device *d;

	scan_devices();
	d = find_kind(PVMAP_KIND_IVSHMEM);
	if (!d)
		SKIP(return, "no ivshmem aperture");
	for (size_t i = 0; i < nv; i++) {
		const struct xen_vector *v = &xen_vectors[i];
		char xs[192], xc[192], xd[192], ms[192];
		struct xen_answer x, xn, xd1, m;
		const char *verdict;
		int ret = xen_run(v, d, &x);

		if (ret == -EOPNOTSUPP && !i)
			SKIP(return, "not a Xen PV domain");
		if (!i)
			printf("# | vector | Xen 4.17 | libpvstub | verdict |\n");
		ASSERT_EQ(0, ret) TH_LOG("%s: Xen's side did not run", v->name);
		ASSERT_EQ(0, model_run(v, &m)) TH_LOG("%s: the model could not be set up", v->name);
		xn = stale_allowed(v, &x, &m);
		xd1 = pv64_adjust_removed(&xn, &m);
		answer_text(v, &x, xs, sizeof(xs));
		answer_text(v, &xn, xc, sizeof(xc));
		answer_text(v, &xd1, xd, sizeof(xd));
		answer_text(v, &m, ms, sizeof(ms));
		if (!strcmp(xc, ms)) {
			verdict = "agree";
		} else if (!strcmp(xd, ms) && deviation_listed(DEV_PV64_ADJUST)) {
			verdict = "known deviation " DEV_PV64_ADJUST;
			known++;
		} else {
			verdict = "DISAGREE";
			bad++;
		}
		printf("# | %s | %s | %s | %s |\n", v->name, xs, ms, verdict);
	}
	for (size_t j = 0; j < nd; j++)
		printf("# known deviation %s: %s\n", xen_deviations[j].id, xen_deviations[j].why);
	printf("# %zu vectors: %zu agree, %u known deviations, %u undocumented\n", nv,
	       nv - known - bad, known, bad);
	EXPECT_EQ(0, bad) TH_LOG("%u undocumented disagreements with Xen", bad);
#endif
}

TEST_HARNESS_MAIN
