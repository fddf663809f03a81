// SPDX-License-Identifier: GPL-2.0
/*
 * The MMU hypercalls as Xen serves them (xen/arch/x86/mm.c): do_mmu_update(),
 * __do_update_va_mapping(), do_mmuext_op()'s TLB operations, and their
 * entry points, one trap each.
 */
#include "pvstub_internal.h"

#include <errno.h>

/*
 * The foreigndom of mmu_update (low 16 bits: the data pages' owner; high 16:
 * the page tables', 0 meaning self) as Xen's get_pg_owner() and
 * xsm_mmu_update() see it in a one-domain world: 0, or -ESRCH for a domain
 * that is not this one. DOMID_IO (I/O mappings only) is allowed for the
 * data pages; DOMID_XEN (dom_xen) is found, and XSM lets only a privileged
 * domain name it (-EPERM).
 */
static int foreign_owner(const struct pvstub *s, unsigned int foreigndom)
{
	domid_t fd = foreigndom & 0xffff;

	if (foreigndom >> 16)
		return -ESRCH;
	if (fd == DOMID_SELF || fd == DOMID_IO)
		return 0;
	if (fd == DOMID_XEN)
		return s->cfg.privileged ? 0 : -EPERM;
	return -ESRCH;
}

/*
 * get_page_from_l1e() for a present entry whose data pages another owner
 * than the caller is named for: DOMID_IO maps I/O only, so the guest's RAM
 * cannot be pinned for it (-EBUSY), and for MMIO it reverts to the caller;
 * dom_xen owns neither the guest's RAM (-EBUSY) nor I/O permission (-EPERM).
 * 0: the usual checks decide.
 */
static int foreign_entry(const struct pvstub *s, unsigned int foreigndom, uint64_t val)
{
	domid_t fd = foreigndom & 0xffff;
	bool ram = pvs_is_ram(s, PTE_FRAME(val));

	if (!(val & PTE_P))
		return 0;
	if (fd == DOMID_IO)
		return ram ? -EBUSY : 0;
	if (fd == DOMID_XEN)
		return ram ? -EBUSY : -EPERM;
	return 0;
}

/* Xen's do_mmu_update(), for L1 entries and plain RAM. */
int pvs_do_mmu_update(struct pvstub *s, const struct mmu_update *req, unsigned int count,
		      unsigned int *done, unsigned int foreigndom)
{
	unsigned int i;
	int rc = foreign_owner(s, foreigndom);

	if (rc)
		count = 0;
	for (i = 0; i < count && !rc; i++) {
		/* The command is in the bits an 8-byte entry's address leaves clear. */
		unsigned int cmd = req[i].ptr & 7;
		uint64_t maddr = req[i].ptr - cmd, frame = maddr >> 12;
		struct l1 *l = pvs_l1_for_frame(s, frame);
		int foreign = l ? foreign_entry(s, foreigndom, req[i].val) : 0;

		switch (cmd) {
		case MMU_NORMAL_PT_UPDATE:
		case MMU_PT_UPDATE_PRESERVE_AD:
		case MMU_PT_UPDATE_NO_TRANSLATE:
			if (foreign) {
				s->counts.refused++;
				rc = foreign;
			} else if (l && l->mem && !is_registered(l, (maddr & 0xfff) / 8)) {
				/* the rest of a live guest's table is its own, not ours */
				s->counts.refused++;
				rc = -EPERM;
			} else if (l) {
				rc = pvs_write_pte(s, l, (maddr & 0xfff) / 8, req[i].val,
						   cmd == MMU_PT_UPDATE_PRESERVE_AD);
			} else if (pvs_is_ram(s, frame) && !pvs_is_revoked(s, frame)) {
				/* the PGT_writable_page path: a plain write to the guest's RAM */
				s->counts.plain_writes++;
			} else {
				s->counts.refused++;
				rc = -EINVAL;
			}
			break;
		case MMU_MACHPHYS_UPDATE:
			/* the M2P table is not modelled: checked, accepted, no effect */
			if (!pvs_is_ram(s, frame) || pvs_is_revoked(s, frame)) {
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

/*
 * A guest address in a hypercall's arguments as a pointer to @len bytes
 * here; NULL for a length this host cannot even address.
 */
void *pvs_guest_ptr(const struct pvstub *s, uint64_t addr, uint64_t len)
{
	if (len != (size_t)len)
		return NULL;
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
	const unsigned char *p = pvs_guest_ptr(s, addr, word);

	if (!p)
		return false;
	for (unsigned int v = 0; v < PVSTUB_MAX_VCPUS; v++)
		mask[v] = v < s->cfg.nr_vcpus && (p[v / 8] >> (v % 8)) & 1;
	return true;
}

/*
 * Xen's __do_update_va_mapping(): the PTE of @va (its low 12 bits ignored),
 * then the flush @flags ask for: type in bits 1:0 (0 and 3: none), target
 * above them (UVMF_LOCAL, UVMF_ALL, or the guest address of a vCPU bitmap).
 * A refused update skips the flush, as Xen does; an unreadable bitmap is
 * -EFAULT after the update.
 */
int pvs_do_update_va_mapping(struct pvstub *s, unsigned int vcpu, uint64_t va,
			     uint64_t val, uint64_t flags, bool compat)
{
	struct l1 *l = pvs_l1_for_va(s, va & ~0xfffULL);
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
	rc = pvs_write_pte(s, l, (va - l->va) >> 12, val, false);
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
	pvs_flush_vcpus(s, mask, va, (flags & UVMF_FLUSHTYPE_MASK) == UVMF_INVLPG);
	return 0;
}

/*
 * Xen's do_mmuext_op(), its TLB operations: LOCAL on the calling vCPU,
 * MULTI on a guest bitmap of vCPUs (-EINVAL when unreadable), ALL on every
 * vCPU. A domU must name itself (DOMID_SELF): any other domain, DOMID_IO
 * included, is -EPERM (xsm_mmuext_op()), an unknown one -ESRCH. Commands
 * the model does not implement are -ENOSYS, as unknown ones are in Xen.
 */
int pvs_do_mmuext_op(struct pvstub *s, unsigned int vcpu, const struct mmuext_op *op,
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
		pvs_flush_vcpus(s, mask, va, op[i].cmd == MMUEXT_INVLPG_LOCAL ||
				op[i].cmd == MMUEXT_INVLPG_MULTI || op[i].cmd == MMUEXT_INVLPG_ALL);
	}
	if (done)
		*done = i;
	return rc;
}

/* Every entry point: one trap into the hypervisor, numbered. */
void pvs_trap(struct pvstub *s, uint64_t *counter)
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
	pvs_trap(s, &s->counts.mmu_update);
	return pvs_do_mmu_update(s, req, count, done, dom);
}

int pvstub_update_va_mapping(struct pvstub *s, unsigned int vcpu, uint64_t va,
			     uint64_t val, uint64_t flags)
{
	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	pvs_trap(s, &s->counts.update_va_mapping);
	return pvs_do_update_va_mapping(s, vcpu, va, val, flags, false);
}

int pvstub_mmuext_op(struct pvstub *s, unsigned int vcpu, const struct mmuext_op *op,
		     unsigned int count, unsigned int *done, unsigned int dom)
{
	if (vcpu >= s->cfg.nr_vcpus)
		return -EINVAL;
	pvs_trap(s, &s->counts.mmuext_op);
	return pvs_do_mmuext_op(s, vcpu, op, count, done, dom, false);
}
