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
#define PTE_PAT		0x080ULL
#define PTE_FRAME(p)	(((p) >> 12) & ((1ULL << 40) - 1))

/* A page-table page of the guest, covering [va, va + L1_SPAN). */
struct l1 {
	uint64_t va;
	uint64_t frame;
	uint64_t pte[L1_ENTRIES];
	uint64_t set_by[L1_ENTRIES];	/* hypercall number of the last write */
};

struct tlb_entry {
	uint64_t va;
	uint64_t frame;
	uint64_t filled_from;		/* hypercall that wrote the PTE it came from */
};

struct vcpu {
	struct tlb_entry *tlb;
	size_t n, cap;
};

struct violation {
	uint64_t va, frame;
	unsigned int vcpu;
	char how[160];
};

struct pvstub {
	struct pvstub_config cfg;
	struct l1 *l1;
	size_t nl1, capl1;
	uint64_t *revoked;
	size_t nrevoked, caprevoked;
	struct vcpu vcpu[PVSTUB_MAX_VCPUS];
	struct violation *viol;
	size_t nviol, capviol;
	struct pvstub_counts counts;
	uint64_t seq;			/* number of the hypercall being served */
};

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
	if (s)
		s->cfg = *cfg;
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

static bool is_revoked(const struct pvstub *s, uint64_t frame)
{
	for (size_t i = 0; i < s->nrevoked; i++)
		if (s->revoked[i] == frame)
			return true;
	return false;
}

static bool is_aperture(const struct pvstub *s, uint64_t frame)
{
	return frame - s->cfg.aperture_first < s->cfg.aperture_frames;
}

/* Xen's checks on a new PTE value. */
static int check_pte(const struct pvstub *s, uint64_t val)
{
	uint64_t frame = PTE_FRAME(val);

	if (!(val & PTE_P))
		return 0;
	if (is_revoked(s, frame))
		return -EPERM;
	if (is_aperture(s, frame))
		return val & (PTE_PWT | PTE_PCD | PTE_PAT) ? 0 : -EINVAL;
	if (frame >= s->cfg.ram_frames)
		return -EPERM;
	if (l1_for_frame(s, frame) && (val & PTE_RW))
		return -EPERM;
	return 0;
}

static int write_pte(struct pvstub *s, struct l1 *l, unsigned int idx, uint64_t val)
{
	int rc = check_pte(s, val);

	if (rc) {
		s->counts.refused++;
		return rc;
	}
	l->pte[idx] = val;
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

static int do_mmu_update(struct pvstub *s, const struct mmu_update *req, unsigned int count,
			 unsigned int *done, domid_t dom)
{
	unsigned int i;
	int rc = 0;

	if (dom != DOMID_SELF) {
		rc = -ESRCH;
		count = 0;
	}
	for (i = 0; i < count && !rc; i++) {
		uint64_t maddr = req[i].ptr & ~3ULL;
		struct l1 *l = l1_for_frame(s, maddr >> 12);

		if ((req[i].ptr & 3) != MMU_NORMAL_PT_UPDATE || (maddr & 7) || !l) {
			s->counts.refused++;
			rc = -EINVAL;
			break;
		}
		rc = write_pte(s, l, (maddr & 0xfff) / 8, req[i].val);
		if (rc)
			break;
	}
	if (done)
		*done = i;
	return rc;
}

static int do_update_va_mapping(struct pvstub *s, unsigned int vcpu, uint64_t va,
				uint64_t val, uint64_t flags)
{
	struct l1 *l = l1_for_va(s, va);
	int rc;

	if (!l || (va & 0xfff) || (flags & ~(UVMF_FLUSHTYPE_MASK | UVMF_ALL)) ||
	    (flags & UVMF_FLUSHTYPE_MASK) == UVMF_FLUSHTYPE_MASK) {
		s->counts.refused++;
		return -EINVAL;
	}
	rc = write_pte(s, l, (va - l->va) >> 12, val);
	if (rc)
		return rc;
	for (unsigned int v = 0; v < s->cfg.nr_vcpus; v++) {
		if (v != vcpu && !(flags & UVMF_ALL))
			continue;
		if ((flags & UVMF_FLUSHTYPE_MASK) == UVMF_INVLPG) {
			tlb_drop(&s->vcpu[v], va);
			s->counts.invlpg++;
		} else if ((flags & UVMF_FLUSHTYPE_MASK) == UVMF_TLB_FLUSH) {
			s->vcpu[v].n = 0;
			s->counts.tlb_flush++;
		}
	}
	return 0;
}

static int do_mmuext_op(struct pvstub *s, unsigned int vcpu, const struct mmuext_op *op,
			unsigned int count, unsigned int *done, domid_t dom)
{
	unsigned int i;
	int rc = 0;

	if (dom != DOMID_SELF) {
		rc = -ESRCH;
		count = 0;
	}
	for (i = 0; i < count && !rc; i++) {
		uint64_t va = op[i].arg1.linear_addr;

		switch (op[i].cmd) {
		case MMUEXT_INVLPG_LOCAL:
			tlb_drop(&s->vcpu[vcpu], va & ~0xfffULL);
			s->counts.invlpg++;
			break;
		case MMUEXT_INVLPG_ALL:
			for (unsigned int v = 0; v < s->cfg.nr_vcpus; v++)
				tlb_drop(&s->vcpu[v], va & ~0xfffULL);
			s->counts.invlpg++;
			break;
		case MMUEXT_TLB_FLUSH_LOCAL:
			s->vcpu[vcpu].n = 0;
			s->counts.tlb_flush++;
			break;
		case MMUEXT_TLB_FLUSH_ALL:
			for (unsigned int v = 0; v < s->cfg.nr_vcpus; v++)
				s->vcpu[v].n = 0;
			s->counts.tlb_flush++;
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

/* Every entry point: one trap into the hypervisor, numbered. */
static void trap(struct pvstub *s, uint64_t *counter)
{
	s->seq++;
	s->counts.hypercalls++;
	(*counter)++;
}

int pvstub_mmu_update(struct pvstub *s, unsigned int vcpu, const struct mmu_update *req,
		      unsigned int count, unsigned int *done, domid_t dom)
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
	return do_update_va_mapping(s, vcpu, va, val, flags);
}

int pvstub_mmuext_op(struct pvstub *s, unsigned int vcpu, const struct mmuext_op *op,
		     unsigned int count, unsigned int *done, domid_t dom)
{
	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	trap(s, &s->counts.mmuext_op);
	return do_mmuext_op(s, vcpu, op, count, done, dom);
}

/*
 * Arguments as a 64-bit guest passes them: pointers in the guest's (here:
 * our) address space, counts and flags as integers.
 */
int pvstub_multicall(struct pvstub *s, unsigned int vcpu, struct multicall_entry *call,
		     unsigned int nr)
{
	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	trap(s, &s->counts.multicall);
	for (unsigned int i = 0; i < nr; i++) {
		xen_ulong_t *a = call[i].args;
		long rc;

		s->counts.multicall_entries++;
		switch (call[i].op) {
		case __HYPERVISOR_mmu_update:
			rc = do_mmu_update(s, (const struct mmu_update *)(uintptr_t)a[0],
					   (unsigned int)a[1], (unsigned int *)(uintptr_t)a[2],
					   (domid_t)a[3]);
			break;
		case __HYPERVISOR_update_va_mapping:
			rc = do_update_va_mapping(s, vcpu, a[0], a[1], a[2]);
			break;
		case __HYPERVISOR_mmuext_op:
			rc = do_mmuext_op(s, vcpu, (const struct mmuext_op *)(uintptr_t)a[0],
					  (unsigned int)a[1], (unsigned int *)(uintptr_t)a[2],
					  (domid_t)a[3]);
			break;
		default:
			s->counts.refused++;
			rc = -ENOSYS;
			break;
		}
		call[i].result = (xen_ulong_t)rc;
	}
	return 0;
}

unsigned int pvstub_queue_flush(struct pvstub *s, unsigned int vcpu, struct pvstub_queue *q)
{
	struct multicall_entry mc[2];
	unsigned int n = 0, refused = 0;

	if (q->nupd)
		mc[n++] = (struct multicall_entry){
			.op = __HYPERVISOR_mmu_update,
			.args = { (uintptr_t)q->upd, q->nupd, 0, DOMID_SELF },
		};
	if (q->next)
		mc[n++] = (struct multicall_entry){
			.op = __HYPERVISOR_mmuext_op,
			.args = { (uintptr_t)q->ext, q->next, 0, DOMID_SELF },
		};
	if (n && pvstub_multicall(s, vcpu, mc, n))
		refused = n;
	for (unsigned int i = 0; n && !refused && i < n; i++)
		refused += mc[i].result != 0;
	q->nupd = 0;
	q->next = 0;
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

	(void)write;
	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	va &= ~0xfffULL;
	v = &s->vcpu[vcpu];
	for (size_t i = 0; i < v->n; i++) {
		if (v->tlb[i].va != va)
			continue;
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
	if (!(pte & PTE_P))
		return -EFAULT;
	*frame = PTE_FRAME(pte);
	if (grow((void **)&v->tlb, &v->cap, v->n + 1, sizeof(*v->tlb))) {
		struct l1 *l = l1_for_va(s, va);

		v->tlb[v->n++] = (struct tlb_entry){
			.va = va, .frame = *frame, .filled_from = l->set_by[(va - l->va) >> 12],
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

		if (json)
			fprintf(out, "%s{\"va\": %" PRIu64 ", \"frame\": %" PRIu64
				", \"vcpu\": %u, \"how\": \"%s\"}", i ? ", " : "", v->va,
				v->frame, v->vcpu, v->how);
		else
			fprintf(out, "violation: vCPU %u reached revoked frame %#" PRIx64
				" through va %#" PRIx64 ": %s\n", v->vcpu, v->frame, v->va, v->how);
	}
	if (json)
		fputc(']', out);
	return s->nviol;
}
