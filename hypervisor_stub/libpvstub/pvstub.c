// SPDX-License-Identifier: GPL-2.0
/*
 * libpvstub: the model behind pvstub.h. Readable first, but bounded: a live
 * guest is not trusted, so its tables are capped and found by hash, and
 * what a request costs does not grow with the tables it did not touch.
 *
 * This file: the domain (its configuration, apertures, creation and
 * counts); the rest, by concern, in pvstub_*.c over pvstub_internal.h.
 */
#include "pvstub_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * Xen's PAT (XEN_MSR_PAT, 0x050100070406): the memory type of each index
 * PAT<<2 | PCD<<1 | PWT; Xen forces the cacheable ones to UC on MMIO.
 */
static const unsigned char xen_pat[8] = {
	MT_WB, MT_WT, MT_UCM, MT_UC, MT_WC, MT_WP, MT_UC, MT_UC,
};

/* Grow *@arr to hold @need elements of @size bytes; false when out of memory. */
bool pvs_grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return true;
	while (ncap < need)
		ncap *= 2;
	if (ncap > SIZE_MAX / size)
		return false;
	p = realloc(*arr, ncap * size);
	if (!p)
		return false;
	*arr = p;
	*cap = ncap;
	return true;
}

bool pvs_is_ram(const struct pvstub *s, uint64_t frame)
{
	return frame < s->cfg.ram_frames ||
	       frame - PVSTUB_HIGH_RAM_FIRST < s->cfg.ram_high_frames;
}

/* Whether [first, first + frames) is clear of the guest's RAM (and does not wrap). */
static bool outside_ram(const struct pvstub_config *cfg, uint64_t first, uint64_t frames)
{
	uint64_t hi = PVSTUB_HIGH_RAM_FIRST;

	if (!frames || first + frames < first)
		return false;
	return first >= cfg->ram_frames &&
	       (!cfg->ram_high_frames || first + frames <= hi || first >= hi + cfg->ram_high_frames);
}

static void map_init(struct pvstub *s, struct map *m)
{
	m->lookups = &s->counts.lookups;
	m->probes = &s->counts.lookup_probes;
}

struct pvstub *pvstub_create(const struct pvstub_config *cfg)
{
	struct pvstub *s;

	if (!cfg->nr_vcpus || cfg->nr_vcpus > PVSTUB_MAX_VCPUS || !cfg->ram_frames ||
	    (cfg->ram_high_frames && (cfg->ram_frames > PVSTUB_HIGH_RAM_FIRST ||
				      cfg->ram_high_frames > (1ULL << 40) - PVSTUB_HIGH_RAM_FIRST)) ||
	    (cfg->aperture_frames &&
	     !outside_ram(cfg, cfg->aperture_first, cfg->aperture_frames)))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cfg = *cfg;
	if (!s->cfg.max_tables)
		s->cfg.max_tables = PVSTUB_MAX_TABLES;
	memcpy(s->pat, xen_pat, sizeof(s->pat));
	s->uc = pvs_uc_index(s->pat);
	map_init(s, &s->by_frame);
	map_init(s, &s->by_va);
	map_init(s, &s->writable);
	map_init(s, &s->present);
	map_init(s, &s->revoked);
	for (unsigned int v = 0; v < PVSTUB_MAX_VCPUS; v++)
		map_init(s, &s->vcpu[v].index);
	return s;
}

void pvstub_destroy(struct pvstub *s)
{
	if (!s)
		return;
	for (unsigned int v = 0; v < PVSTUB_MAX_VCPUS; v++) {
		free(s->vcpu[v].tlb);
		pvs_map_free(&s->vcpu[v].index);
	}
	for (size_t i = 0; i < s->nl1; i++)
		free(s->l1[i]);
	free(s->l1);
	pvs_map_free(&s->by_frame);
	pvs_map_free(&s->by_va);
	pvs_map_free(&s->writable);
	pvs_map_free(&s->present);
	pvs_map_free(&s->revoked);
	free(s->viol);
	free(s);
}

int pvstub_add_aperture(struct pvstub *s, uint64_t first, uint64_t frames)
{
	if (!outside_ram(&s->cfg, first, frames))
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

void pvstub_counts(const struct pvstub *s, struct pvstub_counts *c)
{
	*c = s->counts;
}
