// SPDX-License-Identifier: GPL-2.0
/*
 * Frames the hypervisor takes back, what still reaches them (pvstub_revoke()),
 * and the violations recorded when a guest access or a PTE does.
 */
#include "pvstub_internal.h"

#include <inttypes.h>
#include <stdlib.h>

bool pvs_is_revoked(const struct pvstub *s, uint64_t frame)
{
	return pvs_map_get(&s->revoked, frame, NULL);
}

void pvs_record(struct pvstub *s, unsigned int vcpu, uint64_t va, uint64_t frame,
		const char *how)
{
	struct violation *v;

	s->counts.violations++;
	if (s->nviol == PVSTUB_MAX_VIOLATIONS ||
	    !pvs_grow((void **)&s->viol, &s->capviol, s->nviol + 1, sizeof(*s->viol))) {
		s->counts.violations_dropped++;
		return;
	}
	v = &s->viol[s->nviol++];
	v->va = va;
	v->frame = frame;
	v->vcpu = vcpu;
	snprintf(v->how, sizeof(v->how), "%s", how);
}

/* What still reaches a revoked frame: a PTE (ours, or the guest's own) or a TLB entry. */
struct revoke_hit {
	uint64_t frame, va, by;
	size_t seq;			/* the walk's order, for a frame's lines */
	unsigned int vcpu;		/* NO_VCPU: a PTE */
	bool behind;			/* a PTE the guest wrote itself */
};

static void report_hit(FILE *out, const struct revoke_hit *h)
{
	if (h->vcpu != NO_VCPU)
		fprintf(out, "revoke %#" PRIx64 ": vCPU %u TLB entry for va %#" PRIx64
			" (from hypercall #%" PRIu64 ") still maps it\n", h->frame, h->vcpu,
			h->va, h->by);
	else
		fprintf(out, "revoke %#" PRIx64 ": PTE of va %#" PRIx64 " (%s%" PRIu64
			") still maps it\n", h->frame, h->va,
			h->behind ? "written behind the hypervisor's back after hypercall #" :
				    "hypercall #", h->by);
}

static int cmp_hit(const void *a, const void *b)
{
	const struct revoke_hit *x = a, *y = b;

	if (x->frame != y->frame)
		return x->frame < y->frame ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* One walk of the frames being revoked: @set holds them (one frame: @one). */
struct revoke_walk {
	struct pvstub *s;
	FILE *out;
	const struct map *set;
	uint64_t one;
	struct revoke_hit *hits;	/* several frames reported: sorted by frame at the end */
	size_t nhits, caphits;
	unsigned int found;
};

static bool walk_has(const struct revoke_walk *w, uint64_t frame)
{
	return w->set ? pvs_map_get(w->set, frame, NULL) : frame == w->one;
}

static void walk_hit(struct revoke_walk *w, struct revoke_hit h)
{
	w->found++;
	if (!w->out)
		return;
	if (!w->set) {			/* one frame: the walk's order is the report's */
		report_hit(w->out, &h);
		return;
	}
	h.seq = w->nhits;
	if (pvs_grow((void **)&w->hits, &w->caphits, w->nhits + 1, sizeof(*w->hits)))
		w->hits[w->nhits++] = h;
	else
		report_hit(w->out, &h);	/* out of memory: reported, out of order */
}

/*
 * Every held PTE (and what the guest wrote itself over a registered one) and
 * every TLB entry is looked at once, whatever the number of frames: a walk
 * per frame made a replay that leaves N mappings behind cost N times N.
 */
static void revoke_walk(struct revoke_walk *w, bool walk_tables)
{
	struct pvstub *s = w->s;

	for (size_t i = 0; walk_tables && i < s->nl1; i++) {
		const struct l1 *l = s->l1[i];

		for_each_held(l, j) {
			uint64_t pte = l->pte[j], va = l->va + ((uint64_t)j << 12), now;

			s->counts.scanned++;
			if ((pte & PTE_P) && walk_has(w, PTE_FRAME(pte))) {
				walk_hit(w, (struct revoke_hit){ .frame = PTE_FRAME(pte), .va = va,
								 .by = l->set_by[j], .vcpu = NO_VCPU });
				continue;
			}
			/* what the guest wrote itself maps the frame as well as ours */
			if (!l->mem || !test_bit64(l->reported, j))
				continue;
			now = __atomic_load_n(&l->mem[j], __ATOMIC_ACQUIRE);
			if ((now & PTE_P) && walk_has(w, PTE_FRAME(now)))
				walk_hit(w, (struct revoke_hit){ .frame = PTE_FRAME(now), .va = va,
								 .by = l->set_by[j], .vcpu = NO_VCPU,
								 .behind = true });
		}
	}
	for (unsigned int v = 0; v < s->cfg.nr_vcpus; v++) {
		for (size_t i = 0; i < s->vcpu[v].n; i++) {
			const struct tlb_entry *t = &s->vcpu[v].tlb[i];

			s->counts.scanned++;
			if (walk_has(w, t->frame))
				walk_hit(w, (struct revoke_hit){ .frame = t->frame, .va = t->va,
								 .by = t->filled_from, .vcpu = v });
		}
	}
}

unsigned int pvstub_revoke_frames(struct pvstub *s, const uint64_t *frames, size_t n,
				  FILE *out)
{
	struct map set = { .lookups = &s->counts.lookups, .probes = &s->counts.lookup_probes };
	struct revoke_walk w = { .s = s, .out = out, .one = n ? frames[0] : 0 };
	/* when nothing the stub holds reaches them, nor anything a guest wrote itself: no walk */
	bool walk_tables = s->nreported;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		walk_tables |= pvs_map_get(&s->present, frames[i], NULL);
		if (!pvs_is_revoked(s, frames[i]))
			pvs_map_put(&s->revoked, frames[i], 1);
		if (n > 1 && !pvs_map_put(&set, frames[i], 1)) {
			/* out of memory for the set: one walk per frame, as slow as before */
			unsigned int found = 0;

			pvs_map_free(&set);
			for (size_t k = 0; k < n; k++)
				found += pvstub_revoke_frames(s, &frames[k], 1, out);
			return found;
		}
	}
	if (n > 1)
		w.set = &set;
	revoke_walk(&w, walk_tables);
	if (w.nhits) {
		qsort(w.hits, w.nhits, sizeof(*w.hits), cmp_hit);
		for (size_t i = 0; i < w.nhits; i++)
			report_hit(out, &w.hits[i]);
	}
	free(w.hits);
	pvs_map_free(&set);
	return w.found;
}

unsigned int pvstub_revoke(struct pvstub *s, uint64_t frame, FILE *out)
{
	return pvstub_revoke_frames(s, &frame, 1, out);
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
	else if (s->counts.violations_dropped)
		fprintf(out, "violations: %" PRIu64 " more, not kept (the first %u are)\n",
			s->counts.violations_dropped, PVSTUB_MAX_VIOLATIONS);
	return (unsigned int)s->nviol;
}
