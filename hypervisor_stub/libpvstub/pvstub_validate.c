// SPDX-License-Identifier: GPL-2.0
/*
 * What an L1 entry may hold: Xen's get_page_from_l1e() on a new entry under
 * the guest's PAT, and the PAT itself (pvstub_set_pat()).
 */
#include "pvstub_internal.h"

#include <errno.h>
#include <string.h>

static unsigned int pat_index(uint64_t pte)
{
	return (pte & PTE_PAT ? 4 : 0) | (pte & PTE_PCD ? 2 : 0) | (pte & PTE_PWT ? 1 : 0);
}

static uint64_t pat_bits(unsigned int index)
{
	return (index & 4 ? PTE_PAT : 0) | (index & 2 ? PTE_PCD : 0) | (index & 1 ? PTE_PWT : 0);
}

/* The lowest PAT index whose type is UC, or -1: what MMIO mapped cacheable becomes. */
int pvs_uc_index(const unsigned char *pat)
{
	for (int i = 0; i < 8; i++)
		if (pat[i] == MT_UC)
			return i;
	return -1;
}

static bool is_aperture(const struct pvstub *s, uint64_t frame)
{
	for (unsigned int i = 0; i < s->nr_more_apertures; i++)
		if (frame - s->more_apertures[i].first < s->more_apertures[i].frames)
			return true;
	return frame - s->cfg.aperture_first < s->cfg.aperture_frames;
}

/*
 * Xen's get_page_from_l1e() (xen/arch/x86/mm.c) on a new present PTE, the
 * cache bits read with @pat: 0, a negative errno, or the flags to flip
 * (MMIO mapped cacheable is made UC). The guest is a PV domU whose
 * I/O-memory permission is the aperture: with one, cache_flush_permitted()
 * lets it use the cache attributes (l1_disallow_mask()); without, they are
 * refused. Revoked frames are the model's own: the hypervisor has taken
 * them back.
 */
static int64_t check_pte_pat(const struct pvstub *s, uint64_t val, const unsigned char *pat,
			     int uc)
{
	/* l1_disallow_mask(): _PAGE_GNTTAB is bit 62 in a debug build of Xen, 0 in a release one */
	uint64_t frame = PTE_FRAME(val), disallow = s->cfg.release_build ? 0 : PTE_GNTTAB;

	if (!(val & PTE_P))
		return 0;
	if (!s->cfg.aperture_frames && !s->nr_more_apertures)
		disallow |= PTE_CACHE;
	if (val & disallow)
		return -EINVAL;		/* "Bad L1 flags" */
	if (pvs_is_revoked(s, frame))
		return -EPERM;
	if (!pvs_is_ram(s, frame)) {
		/* MMIO: iomem_access_permitted(), then cacheable types forced to UC */
		if (!is_aperture(s, frame))
			return -EPERM;
		switch (pat[pat_index(val)]) {
		case MT_UC:
		case MT_UCM:
		case MT_WC:
			return 0;
		default:
			/*
			 * Xen flips to PCD|PWT, index 3, UC in its own PAT; under
			 * the guest's PAT it is the index that decodes as UC, and
			 * with none the mapping cannot be made safe.
			 */
			if (uc < 0)
				return -EINVAL;
			return (int64_t)((val & PTE_CACHE) ^ pat_bits((unsigned int)uc));
		}
	}
	/* a writable mapping of a page table: get_page_type() fails, "could_not_pin" */
	if (pvs_l1_for_frame(s, frame) && (val & PTE_RW))
		return -EBUSY;
	return 0;
}

int64_t pvs_check_pte(const struct pvstub *s, uint64_t val)
{
	return check_pte_pat(s, val, s->pat, s->uc);
}

int pvstub_set_pat(struct pvstub *s, uint64_t msr)
{
	/* IA32_PAT's encodings: 0 UC, 1 WC, 4 WT, 5 WP, 6 WB, 7 UC-; the rest reserved */
	static const int type[8] = { MT_UC, MT_WC, -1, -1, MT_WT, MT_WP, MT_WB, MT_UCM };
	unsigned char pat[8];
	int uc;

	for (unsigned int i = 0; i < 8; i++) {
		unsigned int e = (msr >> (8 * i)) & 0xff;

		if (e > 7 || type[e] < 0)
			return -EINVAL;
		pat[i] = (unsigned char)type[e];
	}
	if (!memcmp(pat, s->pat, sizeof(pat)))
		return 0;
	/*
	 * Every entry validated under the old PAT must stand as it is under
	 * the new one: an MMIO entry it would make cacheable is not re-typed
	 * behind the validator's back.
	 */
	uc = pvs_uc_index(pat);
	for (size_t i = 0; i < s->nl1; i++) {
		for_each_held(s->l1[i], j) {
			uint64_t pte = s->l1[i]->pte[j];

			s->counts.scanned++;
			if (check_pte_pat(s, pte, pat, uc) && !pvs_is_revoked(s, PTE_FRAME(pte)))
				return -EBUSY;
		}
	}
	memcpy(s->pat, pat, sizeof(pat));
	s->uc = uc;
	return 0;
}
