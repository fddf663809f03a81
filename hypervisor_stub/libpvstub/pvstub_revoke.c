// SPDX-License-Identifier: GPL-2.0
/*
 * Frames the hypervisor takes back, what still reaches them (pvstub_revoke()),
 * and the violations recorded when a guest access or a PTE does.
 */
#include "pvstub_internal.h"

#include <inttypes.h>

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

static void report_revoked(FILE *out, uint64_t frame, uint64_t va, uint64_t by, bool behind)
{
	if (out)
		fprintf(out, "revoke %#" PRIx64 ": PTE of va %#" PRIx64 " (%s%" PRIu64
			") still maps it\n", frame, va,
			behind ? "written behind the hypervisor's back after hypercall #" :
				 "hypercall #", by);
}

unsigned int pvstub_revoke(struct pvstub *s, uint64_t frame, FILE *out)
{
	/* when nothing the stub holds reaches it, nor anything a guest wrote itself: no walk */
	bool walk = pvs_map_get(&s->present, frame, NULL) || s->nreported;
	unsigned int found = 0;

	if (!pvs_is_revoked(s, frame))
		pvs_map_put(&s->revoked, frame, 1);
	for (size_t i = 0; walk && i < s->nl1; i++) {
		const struct l1 *l = s->l1[i];

		for_each_held(l, j) {
			uint64_t pte = l->pte[j], va = l->va + ((uint64_t)j << 12), now;

			s->counts.scanned++;
			if ((pte & PTE_P) && PTE_FRAME(pte) == frame) {
				found++;
				report_revoked(out, frame, va, l->set_by[j], false);
				continue;
			}
			/* what the guest wrote itself maps the frame as well as ours */
			if (!l->mem || !test_bit64(l->reported, j))
				continue;
			now = __atomic_load_n(&l->mem[j], __ATOMIC_ACQUIRE);
			if ((now & PTE_P) && PTE_FRAME(now) == frame) {
				found++;
				report_revoked(out, frame, va, l->set_by[j], true);
			}
		}
	}
	for (unsigned int v = 0; v < s->cfg.nr_vcpus; v++) {
		for (size_t i = 0; i < s->vcpu[v].n; i++) {
			const struct tlb_entry *t = &s->vcpu[v].tlb[i];

			s->counts.scanned++;
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
