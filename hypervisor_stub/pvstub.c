// SPDX-License-Identifier: GPL-2.0
/*
 * libpvstub: the model behind pvstub.h. Small and linear on purpose: a
 * guest under test has a few hundred live PTEs, and a readable model is
 * worth more than a fast one.
 */
#include "pvstub.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define L1_ENTRIES	512
#define L1_SPAN		((uint64_t)L1_ENTRIES << 12)
#define PTE_P		0x001ULL
#define PTE_RW		0x002ULL
#define PTE_PWT		0x008ULL
#define PTE_PCD		0x010ULL
#define PTE_AD		0x060ULL	/* accessed, dirty */
#define PTE_PAT		0x080ULL
#define PTE_CACHE	(PTE_PAT | PTE_PCD | PTE_PWT)
#define PTE_GNTTAB	(1ULL << 62)	/* _PAGE_GNTTAB of a debug build of Xen */
#define PTE_FRAME(p)	(((p) >> 12) & ((1ULL << 40) - 1))

/*
 * Xen's PAT (XEN_MSR_PAT, 0x050100070406): the memory type of each index
 * PAT<<2 | PCD<<1 | PWT; Xen forces the cacheable ones to UC on MMIO.
 */
enum { MT_UC, MT_WC, MT_WT, MT_WP, MT_WB, MT_UCM };
static const unsigned char xen_pat[8] = {
	MT_WB, MT_WT, MT_UCM, MT_UC, MT_WC, MT_WP, MT_UC, MT_UC,
};

static unsigned int pat_index(uint64_t pte)
{
	return (pte & PTE_PAT ? 4 : 0) | (pte & PTE_PCD ? 2 : 0) | (pte & PTE_PWT ? 1 : 0);
}

/*
 * A page-table page of the guest, covering [va, va + L1_SPAN). A live
 * guest's (@mem set) is its own frame, mapped here: updates are written
 * there, only to the entries it registered, and @pte is their shadow.
 */
struct l1 {
	uint64_t va;
	uint64_t frame;
	uint64_t pte[L1_ENTRIES];
	uint64_t set_by[L1_ENTRIES];	/* hypercall number of the last write */
	uint64_t *mem;
	uint64_t registered[L1_ENTRIES / 64];
};

static bool is_registered(const struct l1 *l, unsigned int idx)
{
	return l->registered[idx / 64] >> (idx % 64) & 1;
}

struct tlb_entry {
	uint64_t va;
	uint64_t frame;
	bool writable;
	uint64_t filled_from;		/* hypercall that wrote the PTE it came from */
};

struct vcpu {
	struct tlb_entry *tlb;
	size_t n, cap;
};

struct violation {
	uint64_t va, frame;
	unsigned int vcpu;		/* NO_VCPU: a PTE, not an access */
	char how[160];
};

#define NO_VCPU		UINT32_MAX

struct pvstub {
	struct pvstub_config cfg;
	struct { uint64_t first, frames; } more_apertures[PVSTUB_MAX_APERTURES];
	unsigned char pat[8];		/* the memory type of each PAT index */
	unsigned int nr_more_apertures;
	struct l1 *l1;
	size_t nl1, capl1;
	uint64_t *revoked;
	size_t nrevoked, caprevoked;
	struct vcpu vcpu[PVSTUB_MAX_VCPUS];
	struct violation *viol;
	size_t nviol, capviol;
	struct pvstub_counts counts;
	uint64_t seq;			/* number of the hypercall being served */
	unsigned int registered;	/* a live guest's registered entries */
};

static void record(struct pvstub *s, unsigned int vcpu, uint64_t va, uint64_t frame,
		   const char *how);

/* Grow *@arr to hold @need elements of @size bytes; false when out of memory. */
static bool grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return true;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, ncap * size);
	if (!p)
		return false;
	*arr = p;
	*cap = ncap;
	return true;
}

struct pvstub *pvstub_create(const struct pvstub_config *cfg)
{
	struct pvstub *s;

	if (!cfg->nr_vcpus || cfg->nr_vcpus > PVSTUB_MAX_VCPUS || !cfg->ram_frames ||
	    (cfg->aperture_frames && cfg->aperture_first < cfg->ram_frames))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cfg = *cfg;
	memcpy(s->pat, xen_pat, sizeof(s->pat));
	return s;
}

void pvstub_destroy(struct pvstub *s)
{
	if (!s)
		return;
	for (unsigned int v = 0; v < PVSTUB_MAX_VCPUS; v++)
		free(s->vcpu[v].tlb);
	free(s->l1);
	free(s->revoked);
	free(s->viol);
	free(s);
}

static struct l1 *l1_for_va(const struct pvstub *s, uint64_t va)
{
	for (size_t i = 0; i < s->nl1; i++)
		if (va - s->l1[i].va < L1_SPAN)
			return &s->l1[i];
	return NULL;
}

static struct l1 *l1_for_frame(const struct pvstub *s, uint64_t frame)
{
	for (size_t i = 0; i < s->nl1; i++)
		if (s->l1[i].frame == frame)
			return &s->l1[i];
	return NULL;
}

int pvstub_alloc_l1(struct pvstub *s, uint64_t va)
{
	struct l1 *l;

	va &= ~(L1_SPAN - 1);
	if (l1_for_va(s, va))
		return 0;
	/* page-table frames come from the top of the guest's RAM */
	if (s->nl1 >= s->cfg.ram_frames / 2 ||
	    !grow((void **)&s->l1, &s->capl1, s->nl1 + 1, sizeof(*s->l1)))
		return -ENOMEM;
	l = &s->l1[s->nl1];
	memset(l, 0, sizeof(*l));
	l->va = va;
	l->frame = s->cfg.ram_frames - 1 - s->nl1;
	s->nl1++;
	return 0;
}

uint64_t pvstub_pte_maddr(const struct pvstub *s, uint64_t va)
{
	const struct l1 *l = l1_for_va(s, va);

	return l ? (l->frame << 12) + ((va - l->va) >> 12) * 8 : 0;
}

uint64_t pvstub_pte(const struct pvstub *s, uint64_t va)
{
	const struct l1 *l = l1_for_va(s, va);

	return l ? l->pte[(va - l->va) >> 12] : 0;
}

int pvstub_register_pte(struct pvstub *s, uint64_t va, uint64_t maddr, uint64_t *frame_mem)
{
	uint64_t frame = maddr >> 12, base = va & ~(L1_SPAN - 1);
	unsigned int idx = (unsigned int)((va >> 12) % L1_ENTRIES);
	struct l1 *l = l1_for_frame(s, frame), *by_va = l1_for_va(s, va);

	/* the entry that maps @va in a PAE or 4-level table is at index (va >> 12) % 512 */
	if ((va & 0xfff) || (maddr & 7) || (maddr & 0xfff) / 8 != idx ||
	    frame >= s->cfg.ram_frames || !frame_mem)
		return -EINVAL;
	if (l != by_va || (l && (!l->mem || l->va != base)))
		return -EINVAL;		/* another table already maps this range */
	if (!l) {
		if (!grow((void **)&s->l1, &s->capl1, s->nl1 + 1, sizeof(*s->l1)))
			return -ENOMEM;
		l = &s->l1[s->nl1++];
		memset(l, 0, sizeof(*l));
		l->va = base;
		l->frame = frame;
		l->mem = frame_mem;
	}
	if (!is_registered(l, idx))
		s->registered++;
	l->registered[idx / 64] |= 1ULL << (idx % 64);
	l->pte[idx] = __atomic_load_n(&l->mem[idx], __ATOMIC_ACQUIRE);
	l->set_by[idx] = 0;
	return 0;
}

int pvstub_unregister_pte(struct pvstub *s, uint64_t va, uint64_t maddr)
{
	unsigned int idx = (unsigned int)((va >> 12) % L1_ENTRIES);
	struct l1 *l = l1_for_frame(s, maddr >> 12);
	bool empty = true;

	if (!l || !l->mem || l->va != (va & ~(L1_SPAN - 1)) || (maddr & 0xfff) / 8 != idx ||
	    !is_registered(l, idx))
		return -EINVAL;
	l->registered[idx / 64] &= ~(1ULL << (idx % 64));
	s->registered--;
	for (unsigned int i = 0; i < L1_ENTRIES / 64; i++)
		empty &= !l->registered[i];
	if (empty)
		*l = s->l1[--s->nl1];
	return 0;
}

unsigned int pvstub_check_shadow(struct pvstub *s, FILE *out)
{
	unsigned int found = 0;

	for (size_t i = 0; i < s->nl1; i++) {
		struct l1 *l = &s->l1[i];

		for (unsigned int j = 0; l->mem && j < L1_ENTRIES; j++) {
			uint64_t now, va = l->va + ((uint64_t)j << 12);
			char how[160];

			if (!is_registered(l, j))
				continue;
			now = __atomic_load_n(&l->mem[j], __ATOMIC_ACQUIRE);
			/* the page walker sets accessed and dirty, as hardware does under Xen */
			if (!((now ^ l->pte[j]) & ~PTE_AD))
				continue;
			found++;
			s->counts.shadow_mismatches++;
			snprintf(how, sizeof(how), "PTE written behind the hypervisor's back: %#"
				 PRIx64 ", hypercall #%" PRIu64 " wrote %#" PRIx64, now,
				 l->set_by[j], l->pte[j]);
			record(s, NO_VCPU, va, PTE_FRAME(now), how);
			if (out)
				fprintf(out, "shadow: va %#" PRIx64 ": %s\n", va, how);
			l->pte[j] = now;	/* reported once */
		}
	}
	return found;
}

unsigned int pvstub_registered(const struct pvstub *s)
{
	return s->registered;
}

static bool is_revoked(const struct pvstub *s, uint64_t frame)
{
	for (size_t i = 0; i < s->nrevoked; i++)
		if (s->revoked[i] == frame)
			return true;
	return false;
}

static bool is_aperture(const struct pvstub *s, uint64_t frame)
{
	for (unsigned int i = 0; i < s->nr_more_apertures; i++)
		if (frame - s->more_apertures[i].first < s->more_apertures[i].frames)
			return true;
	return frame - s->cfg.aperture_first < s->cfg.aperture_frames;
}

int pvstub_set_pat(struct pvstub *s, uint64_t msr)
{
	/* IA32_PAT's encodings: 0 UC, 1 WC, 4 WT, 5 WP, 6 WB, 7 UC-; the rest reserved */
	static const int type[8] = { MT_UC, MT_WC, -1, -1, MT_WT, MT_WP, MT_WB, MT_UCM };
	unsigned char pat[8];

	for (unsigned int i = 0; i < 8; i++) {
		unsigned int e = (msr >> (8 * i)) & 0xff;

		if (e > 7 || type[e] < 0)
			return -EINVAL;
		pat[i] = (unsigned char)type[e];
	}
	memcpy(s->pat, pat, sizeof(pat));
	return 0;
}

int pvstub_add_aperture(struct pvstub *s, uint64_t first, uint64_t frames)
{
	if (!frames || first < s->cfg.ram_frames || first + frames < first)
		return -EINVAL;
	for (unsigned int i = 0; i < s->nr_more_apertures; i++)
		if (s->more_apertures[i].first == first && s->more_apertures[i].frames == frames)
			return 0;
	if (s->nr_more_apertures == PVSTUB_MAX_APERTURES)
		return -ENOSPC;
	s->more_apertures[s->nr_more_apertures].first = first;
	s->more_apertures[s->nr_more_apertures++].frames = frames;
	return 0;
}

/*
 * Xen's get_page_from_l1e() (xen/arch/x86/mm.c) on a new present PTE: 0, a
 * negative errno, or the flags to flip (MMIO mapped cacheable is made UC).
 * The guest is a PV domU whose I/O-memory permission is the aperture: with
 * one, cache_flush_permitted() lets it use the cache attributes
 * (l1_disallow_mask()); without, they are refused. Revoked frames are the
 * model's own: the hypervisor has taken them back.
 */
static int64_t check_pte(const struct pvstub *s, uint64_t val)
{
	uint64_t frame = PTE_FRAME(val), disallow = PTE_GNTTAB;

	if (!(val & PTE_P))
		return 0;
	if (!s->cfg.aperture_frames && !s->nr_more_apertures)
		disallow |= PTE_CACHE;
	if (val & disallow)
		return -EINVAL;		/* "Bad L1 flags" */
	if (is_revoked(s, frame))
		return -EPERM;
	if (frame >= s->cfg.ram_frames) {
		/* MMIO: iomem_access_permitted(), then cacheable types forced to UC */
		if (!is_aperture(s, frame))
			return -EPERM;
		switch (s->pat[pat_index(val)]) {
		case MT_UC:
		case MT_UCM:
		case MT_WC:
			return 0;
		default:
			return (int64_t)((val & PTE_CACHE) ^ (PTE_PCD | PTE_PWT));
		}
	}
	/* a writable mapping of a page table: get_page_type() fails, "could_not_pin" */
	if (l1_for_frame(s, frame) && (val & PTE_RW))
		return -EBUSY;
	return 0;
}

/* Xen's mod_l1_entry(): validate, flip, store; @preserve_ad keeps the old A/D bits. */
static int write_pte(struct pvstub *s, struct l1 *l, unsigned int idx, uint64_t val,
		     bool preserve_ad)
{
	int64_t rc = check_pte(s, val);

	if (rc < 0) {
		s->counts.refused++;
		return (int)rc;
	}
	val ^= (uint64_t)rc;
	if (preserve_ad)
		val |= (l->mem ? __atomic_load_n(&l->mem[idx], __ATOMIC_RELAXED) : l->pte[idx]) &
		       PTE_AD;
	l->pte[idx] = val;
	if (l->mem)
		__atomic_store_n(&l->mem[idx], val, __ATOMIC_RELEASE);
	l->set_by[idx] = s->seq;
	s->counts.pte_writes++;
	return 0;
}

static void tlb_drop(struct vcpu *v, uint64_t va)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->tlb[i].va == va) {
			v->tlb[i] = v->tlb[--v->n];
			return;
		}
}

/*
 * The foreigndom of mmu_update (low 16 bits: the data pages' owner; high 16:
 * the page tables', 0 meaning self) as Xen's get_pg_owner() sees it in a
 * one-domain world: 0, or -ESRCH for any domain that is not this one.
 * DOMID_IO (I/O mappings only) is allowed for the data pages.
 */
static int foreign_owner(unsigned int foreigndom, bool allow_io)
{
	domid_t fd = foreigndom & 0xffff;

	if (foreigndom >> 16)
		return -ESRCH;
	if (fd == DOMID_SELF || (allow_io && fd == DOMID_IO))
		return 0;
	return -ESRCH;
}

/* Xen's do_mmu_update(), for L1 entries and plain RAM. */
static int do_mmu_update(struct pvstub *s, const struct mmu_update *req, unsigned int count,
			 unsigned int *done, unsigned int foreigndom)
{
	bool io = (foreigndom & 0xffff) == DOMID_IO;
	unsigned int i;
	int rc = foreign_owner(foreigndom, true);

	if (rc)
		count = 0;
	for (i = 0; i < count && !rc; i++) {
		/* The command is in the bits an 8-byte entry's address leaves clear. */
		unsigned int cmd = req[i].ptr & 7;
		uint64_t maddr = req[i].ptr - cmd, frame = maddr >> 12;
		struct l1 *l = l1_for_frame(s, frame);

		switch (cmd) {
		case MMU_NORMAL_PT_UPDATE:
		case MMU_PT_UPDATE_PRESERVE_AD:
		case MMU_PT_UPDATE_NO_TRANSLATE:
			if (l && io && (req[i].val & PTE_P) &&
			    PTE_FRAME(req[i].val) < s->cfg.ram_frames) {
				/* DOMID_IO maps I/O only: RAM cannot be pinned for it */
				s->counts.refused++;
				rc = -EBUSY;
			} else if (l && l->mem && !is_registered(l, (maddr & 0xfff) / 8)) {
				/* the rest of a live guest's table is its own, not ours */
				s->counts.refused++;
				rc = -EPERM;
			} else if (l) {
				rc = write_pte(s, l, (maddr & 0xfff) / 8, req[i].val,
					       cmd == MMU_PT_UPDATE_PRESERVE_AD);
			} else if (frame < s->cfg.ram_frames && !is_revoked(s, frame)) {
				/* the PGT_writable_page path: a plain write to the guest's RAM */
				s->counts.plain_writes++;
			} else {
				s->counts.refused++;
				rc = -EINVAL;
			}
			break;
		case MMU_MACHPHYS_UPDATE:
			/* the M2P table is not modelled: checked, accepted, no effect */
			if (frame >= s->cfg.ram_frames || is_revoked(s, frame)) {
				s->counts.refused++;
				rc = -EINVAL;
			}
			break;
		default:
			s->counts.refused++;
			rc = -ENOSYS;
			break;
		}
		if (rc)
			break;
	}
	if (done)
		*done = i;
	return rc;
}

/* A guest address in a hypercall's arguments as a pointer to @len bytes here. */
static void *guest_ptr(const struct pvstub *s, uint64_t addr, size_t len)
{
	if (s->cfg.guest_mem)
		return s->cfg.guest_mem(s->cfg.guest_opaque, addr, len);
	return (void *)(uintptr_t)addr;
}

/*
 * Xen's vcpumask_to_pcpumask(): the vCPUs set in the guest's bitmap at
 * @addr, read in words of the guest's size; ids past the domain's ignored.
 * Returns false when the bitmap cannot be read.
 */
static bool read_vcpumask(const struct pvstub *s, uint64_t addr, bool compat, bool *mask)
{
	size_t word = compat ? 4 : 8;
	const unsigned char *p = guest_ptr(s, addr, word);

	if (!p)
		return false;
	for (unsigned int v = 0; v < PVSTUB_MAX_VCPUS; v++)
		mask[v] = v < s->cfg.nr_vcpus && (p[v / 8] >> (v % 8)) & 1;
	return true;
}

/* One invalidation (counted once): of @va, or whole TLBs, on the vCPUs in @mask. */
static void flush_vcpus(struct pvstub *s, const bool *mask, uint64_t va, bool one)
{
	for (unsigned int v = 0; v < s->cfg.nr_vcpus; v++) {
		if (!mask[v])
			continue;
		if (one)
			tlb_drop(&s->vcpu[v], va & ~0xfffULL);
		else
			s->vcpu[v].n = 0;
	}
	if (one)
		s->counts.invlpg++;
	else
		s->counts.tlb_flush++;
}

/*
 * Xen's __do_update_va_mapping(): the PTE of @va (its low 12 bits ignored),
 * then the flush @flags ask for: type in bits 1:0 (0 and 3: none), target
 * above them (UVMF_LOCAL, UVMF_ALL, or the guest address of a vCPU bitmap).
 * A refused update skips the flush, as Xen does; an unreadable bitmap is
 * -EFAULT after the update.
 */
static int do_update_va_mapping(struct pvstub *s, unsigned int vcpu, uint64_t va,
				uint64_t val, uint64_t flags, bool compat)
{
	struct l1 *l = l1_for_va(s, va & ~0xfffULL);
	uint64_t target = flags & ~(uint64_t)UVMF_FLUSHTYPE_MASK;
	bool mask[PVSTUB_MAX_VCPUS] = { false };
	int rc;

	va &= ~0xfffULL;
	if (!l) {
		s->counts.refused++;
		return -EINVAL;
	}
	if (l->mem && !is_registered(l, (unsigned int)((va - l->va) >> 12))) {
		s->counts.refused++;
		return -EPERM;
	}
	rc = write_pte(s, l, (va - l->va) >> 12, val, false);
	if (rc)
		return rc;
	if ((flags & UVMF_FLUSHTYPE_MASK) != UVMF_INVLPG &&
	    (flags & UVMF_FLUSHTYPE_MASK) != UVMF_TLB_FLUSH)
		return 0;
	if (target == UVMF_LOCAL) {
		mask[vcpu] = true;
	} else if (target == UVMF_ALL) {
		for (unsigned int v = 0; v < s->cfg.nr_vcpus; v++)
			mask[v] = true;
	} else if (!read_vcpumask(s, target, compat, mask)) {
		return -EFAULT;
	}
	flush_vcpus(s, mask, va, (flags & UVMF_FLUSHTYPE_MASK) == UVMF_INVLPG);
	return 0;
}

/*
 * Xen's do_mmuext_op(), its TLB operations: LOCAL on the calling vCPU,
 * MULTI on a guest bitmap of vCPUs (-EINVAL when unreadable), ALL on every
 * vCPU. A domU must name itself (DOMID_SELF): any other domain, DOMID_IO
 * included, is -EPERM (xsm_mmuext_op()), an unknown one -ESRCH. Commands
 * the model does not implement are -ENOSYS, as unknown ones are in Xen.
 */
static int do_mmuext_op(struct pvstub *s, unsigned int vcpu, const struct mmuext_op *op,
			unsigned int count, unsigned int *done, unsigned int foreigndom,
			bool compat)
{
	domid_t dom = foreigndom & 0xffff;
	unsigned int i;
	int rc = 0;

	if (dom == DOMID_IO || dom == DOMID_XEN)
		rc = -EPERM;
	else if (dom != DOMID_SELF)
		rc = -ESRCH;
	if (rc)
		count = 0;
	for (i = 0; i < count && !rc; i++) {
		uint64_t va = op[i].arg1.linear_addr;
		bool mask[PVSTUB_MAX_VCPUS] = { false };

		switch (op[i].cmd) {
		case MMUEXT_INVLPG_LOCAL:
		case MMUEXT_TLB_FLUSH_LOCAL:
			mask[vcpu] = true;
			break;
		case MMUEXT_INVLPG_MULTI:
		case MMUEXT_TLB_FLUSH_MULTI:
			if (!read_vcpumask(s, (uintptr_t)op[i].arg2.vcpumask, compat, mask))
				rc = -EINVAL;
			break;
		case MMUEXT_INVLPG_ALL:
		case MMUEXT_TLB_FLUSH_ALL:
			for (unsigned int v = 0; v < s->cfg.nr_vcpus; v++)
				mask[v] = true;
			break;
		case MMUEXT_MARK_SUPER:
		case MMUEXT_UNMARK_SUPER:
			rc = -EOPNOTSUPP;
			break;
		default:
			rc = -ENOSYS;
			break;
		}
		if (rc) {
			s->counts.refused++;
			break;
		}
		flush_vcpus(s, mask, va, op[i].cmd == MMUEXT_INVLPG_LOCAL ||
			    op[i].cmd == MMUEXT_INVLPG_MULTI || op[i].cmd == MMUEXT_INVLPG_ALL);
	}
	if (done)
		*done = i;
	return rc;
}

/* Every entry point: one trap into the hypervisor, numbered. */
static void trap(struct pvstub *s, uint64_t *counter)
{
	s->seq++;
	s->counts.hypercalls++;
	(*counter)++;
}

int pvstub_mmu_update(struct pvstub *s, unsigned int vcpu, const struct mmu_update *req,
		      unsigned int count, unsigned int *done, unsigned int dom)
{
	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	trap(s, &s->counts.mmu_update);
	return do_mmu_update(s, req, count, done, dom);
}

int pvstub_update_va_mapping(struct pvstub *s, unsigned int vcpu, uint64_t va,
			     uint64_t val, uint64_t flags)
{
	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	trap(s, &s->counts.update_va_mapping);
	return do_update_va_mapping(s, vcpu, va, val, flags, false);
}

int pvstub_mmuext_op(struct pvstub *s, unsigned int vcpu, const struct mmuext_op *op,
		     unsigned int count, unsigned int *done, unsigned int dom)
{
	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	trap(s, &s->counts.mmuext_op);
	return do_mmuext_op(s, vcpu, op, count, done, dom, false);
}

/*
 * One multicall entry, its arguments widened to 64 bits; @compat: a 32-bit
 * guest's (its mmuext_op layout, update_va_mapping's PTE in two halves).
 * Array and count arguments are guest addresses; -EFAULT when unreadable.
 */
static long multicall_entry(struct pvstub *s, unsigned int vcpu, uint64_t op,
			    const uint64_t *a, bool compat)
{
	unsigned int *done = a[2] ? guest_ptr(s, a[2], sizeof(*done)) : NULL;
	unsigned int count = (unsigned int)a[1];

	switch (op) {
	case __HYPERVISOR_mmu_update: {
		const struct mmu_update *req = guest_ptr(s, a[0], (size_t)count * sizeof(*req));

		if ((count && !req) || (a[2] && !done))
			return -EFAULT;
		return do_mmu_update(s, req, count, done, (unsigned int)a[3]);
	}
	case __HYPERVISOR_update_va_mapping:
		if (compat)
			return do_update_va_mapping(s, vcpu, a[0], a[1] | a[2] << 32, a[3], true);
		return do_update_va_mapping(s, vcpu, a[0], a[1], a[2], false);
	case __HYPERVISOR_mmuext_op: {
		struct mmuext_op ops[PVSTUB_MMUEXT_MAX];
		const void *p;

		if (count > PVSTUB_MMUEXT_MAX) {
			s->counts.refused++;
			return -E2BIG;	/* the model's limit, not Xen's (it preempts) */
		}
		p = guest_ptr(s, a[0], (size_t)count * (compat ?
			sizeof(struct pvstub_compat_mmuext_op) : sizeof(struct mmuext_op)));
		if ((count && !p) || (a[2] && !done))
			return -EFAULT;
		for (unsigned int i = 0; i < count; i++) {
			if (compat) {
				const struct pvstub_compat_mmuext_op *c =
					(const struct pvstub_compat_mmuext_op *)p + i;

				ops[i] = (struct mmuext_op){
					.cmd = c->cmd, .arg1.linear_addr = c->arg1,
					.arg2.vcpumask = (const void *)(uintptr_t)c->arg2,
				};
			} else {
				ops[i] = ((const struct mmuext_op *)p)[i];
			}
		}
		return do_mmuext_op(s, vcpu, ops, count, done, (unsigned int)a[3], compat);
	}
	default:
		s->counts.refused++;
		return -ENOSYS;
	}
}

/*
 * One entry of either layout (@compat: 32-bit fields), its arguments
 * widened. Entries run in order; a failed one sets only its own result
 * (xen/common/multicall.c).
 */
static long multicall_one(struct pvstub *s, unsigned int vcpu, uint64_t op, const void *args,
			  bool compat)
{
	uint64_t a[6];

	for (unsigned int j = 0; j < 6; j++)
		a[j] = compat ? ((const uint32_t *)args)[j] : ((const xen_ulong_t *)args)[j];
	s->counts.multicall_entries++;
	return multicall_entry(s, vcpu, op, a, compat);
}

int pvstub_multicall(struct pvstub *s, unsigned int vcpu, struct multicall_entry *call,
		     unsigned int nr)
{
	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	trap(s, &s->counts.multicall);
	for (unsigned int i = 0; i < nr; i++)
		call[i].result = (xen_ulong_t)multicall_one(s, vcpu, call[i].op, call[i].args, false);
	return 0;
}

int pvstub_multicall_compat(struct pvstub *s, unsigned int vcpu,
			    struct pvstub_compat_multicall_entry *call, unsigned int nr)
{
	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	trap(s, &s->counts.multicall);
	for (unsigned int i = 0; i < nr; i++)
		call[i].result = (uint32_t)multicall_one(s, vcpu, call[i].op, call[i].args, true);
	return 0;
}

/* Append to @q's last entry when it is of @op, else start one; its index in its array. */
static bool queue_add(struct pvstub_queue *q, unsigned int op, unsigned int *n)
{
	if (*n == PVSTUB_QUEUE_MAX)
		return false;
	if (q->nentry && q->entry[q->nentry - 1].op == op) {
		q->entry[q->nentry - 1].count++;
	} else {
		q->entry[q->nentry].op = op;
		q->entry[q->nentry].first = *n;
		q->entry[q->nentry++].count = 1;
	}
	(*n)++;
	return true;
}

bool pvstub_queue_update(struct pvstub_queue *q, const struct mmu_update *u)
{
	unsigned int i = q->nupd;

	if (!queue_add(q, __HYPERVISOR_mmu_update, &q->nupd))
		return false;
	q->upd[i] = *u;
	return true;
}

bool pvstub_queue_mmuext(struct pvstub_queue *q, const struct mmuext_op *op)
{
	unsigned int i = q->next;

	if (!queue_add(q, __HYPERVISOR_mmuext_op, &q->next))
		return false;
	q->ext[i] = *op;
	return true;
}

/*
 * One multicall of @q's entries, in order; its arrays are this process's,
 * so it runs them directly rather than through the guest's addresses.
 */
unsigned int pvstub_queue_flush(struct pvstub *s, unsigned int vcpu, struct pvstub_queue *q)
{
	unsigned int refused = 0;

	if (q->nentry && vcpu >= s->cfg.nr_vcpus)
		refused = q->nentry;
	if (q->nentry && !refused) {
		trap(s, &s->counts.multicall);
		for (unsigned int i = 0; i < q->nentry; i++) {
			unsigned int first = q->entry[i].first, n = q->entry[i].count;
			int rc;

			s->counts.multicall_entries++;
			if (q->entry[i].op == __HYPERVISOR_mmu_update)
				rc = do_mmu_update(s, &q->upd[first], n, NULL, DOMID_SELF);
			else
				rc = do_mmuext_op(s, vcpu, &q->ext[first], n, NULL, DOMID_SELF,
						  false);
			refused += rc != 0;
		}
	}
	q->nupd = 0;
	q->next = 0;
	q->nentry = 0;
	return refused;
}

static void record(struct pvstub *s, unsigned int vcpu, uint64_t va, uint64_t frame,
		   const char *how)
{
	struct violation *v;

	s->counts.violations++;
	if (!grow((void **)&s->viol, &s->capviol, s->nviol + 1, sizeof(*s->viol)))
		return;
	v = &s->viol[s->nviol++];
	v->va = va;
	v->frame = frame;
	v->vcpu = vcpu;
	snprintf(v->how, sizeof(v->how), "%s", how);
}

int pvstub_access(struct pvstub *s, unsigned int vcpu, uint64_t va, bool write,
		  uint64_t *frame)
{
	struct vcpu *v;
	uint64_t pte;
	char how[160];

	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	va &= ~0xfffULL;
	v = &s->vcpu[vcpu];
	for (size_t i = 0; i < v->n; i++) {
		if (v->tlb[i].va != va)
			continue;
		/* a write through a read-only entry faults, as on hardware */
		if (write && !v->tlb[i].writable)
			return -EFAULT;
		*frame = v->tlb[i].frame;
		if (is_revoked(s, *frame)) {
			pte = pvstub_pte(s, va);
			if ((pte & PTE_P) && PTE_FRAME(pte) == *frame)
				snprintf(how, sizeof(how),
					 "PTE written by hypercall #%" PRIu64 " was never cleared",
					 v->tlb[i].filled_from);
			else
				snprintf(how, sizeof(how),
					 "stale TLB entry: the PTE from hypercall #%" PRIu64
					 " changed without an invalidation on this vCPU",
					 v->tlb[i].filled_from);
			record(s, vcpu, va, *frame, how);
		}
		return 0;
	}
	pte = pvstub_pte(s, va);
	if (!(pte & PTE_P) || (write && !(pte & PTE_RW)))
		return -EFAULT;
	*frame = PTE_FRAME(pte);
	if (grow((void **)&v->tlb, &v->cap, v->n + 1, sizeof(*v->tlb))) {
		struct l1 *l = l1_for_va(s, va);

		v->tlb[v->n++] = (struct tlb_entry){
			.va = va, .frame = *frame, .writable = pte & PTE_RW,
			.filled_from = l->set_by[(va - l->va) >> 12],
		};
	}
	if (is_revoked(s, *frame)) {
		snprintf(how, sizeof(how), "PTE written by hypercall #%" PRIu64 " was never cleared",
			 l1_for_va(s, va)->set_by[(va - l1_for_va(s, va)->va) >> 12]);
		record(s, vcpu, va, *frame, how);
	}
	return 0;
}

unsigned int pvstub_revoke(struct pvstub *s, uint64_t frame, FILE *out)
{
	unsigned int found = 0;

	if (!is_revoked(s, frame) &&
	    grow((void **)&s->revoked, &s->caprevoked, s->nrevoked + 1, sizeof(*s->revoked)))
		s->revoked[s->nrevoked++] = frame;
	for (size_t i = 0; i < s->nl1; i++) {
		for (unsigned int j = 0; j < L1_ENTRIES; j++) {
			uint64_t pte = s->l1[i].pte[j];

			if (s->l1[i].mem && !is_registered(&s->l1[i], j))
				continue;
			if (!(pte & PTE_P) || PTE_FRAME(pte) != frame)
				continue;
			found++;
			if (out)
				fprintf(out, "revoke %#" PRIx64 ": PTE of va %#" PRIx64
					" (hypercall #%" PRIu64 ") still maps it\n", frame,
					s->l1[i].va + ((uint64_t)j << 12), s->l1[i].set_by[j]);
		}
	}
	for (unsigned int v = 0; v < s->cfg.nr_vcpus; v++) {
		for (size_t i = 0; i < s->vcpu[v].n; i++) {
			const struct tlb_entry *t = &s->vcpu[v].tlb[i];

			if (t->frame != frame)
				continue;
			found++;
			if (out)
				fprintf(out, "revoke %#" PRIx64 ": vCPU %u TLB entry for va %#" PRIx64
					" (from hypercall #%" PRIu64 ") still maps it\n", frame, v,
					t->va, t->filled_from);
		}
	}
	return found;
}

void pvstub_counts(const struct pvstub *s, struct pvstub_counts *c)
{
	*c = s->counts;
}

unsigned int pvstub_report_violations(const struct pvstub *s, FILE *out, bool json)
{
	if (json)
		fputc('[', out);
	for (size_t i = 0; i < s->nviol; i++) {
		const struct violation *v = &s->viol[i];
		bool pte = v->vcpu == NO_VCPU;

		if (json && pte)
			fprintf(out, "%s{\"va\": %" PRIu64 ", \"frame\": %" PRIu64
				", \"vcpu\": null, \"how\": \"%s\"}", i ? ", " : "", v->va,
				v->frame, v->how);
		else if (json)
			fprintf(out, "%s{\"va\": %" PRIu64 ", \"frame\": %" PRIu64
				", \"vcpu\": %u, \"how\": \"%s\"}", i ? ", " : "", v->va,
				v->frame, v->vcpu, v->how);
		else if (pte)
			fprintf(out, "violation: the PTE of va %#" PRIx64 " (frame %#" PRIx64 "): %s\n",
				v->va, v->frame, v->how);
		else
			fprintf(out, "violation: vCPU %u reached revoked frame %#" PRIx64
				" through va %#" PRIx64 ": %s\n", v->vcpu, v->frame, v->va, v->how);
	}
	if (json)
		fputc(']', out);
	return s->nviol;
}
