/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pvmap_pv, the PTE layer's hypervisor backend: with a hypervisor channel
 * (pvmap-hv, include/uapi/pvmap_hv.h) every PTE write and invalidation of a
 * window is a request to the hypervisor, queued per CPU and sent at a
 * batch's end, and each window's PTEs are the hypervisor's while the
 * window exists. Natively the static key pvmap_pv_on keeps all of it out
 * of the way.
 *
 * pvmap_pte.h includes this header for the hooks below (the interface is
 * described there). It knows nothing of the layer: a hook is given
 * addresses and PTE pointers, never a window, and the backend's own files
 * use the native primitives of pvmap_pte_native.h only.
 */
#ifndef PVMAP_PV_H
#define PVMAP_PV_H

#include <linux/jump_label.h>
#include <linux/pgtable.h>
#include <linux/types.h>
#include <xen/interface/xen.h>

DECLARE_STATIC_KEY_FALSE(pvmap_pv_on);
void pvmap_pv_write(pte_t *ptep, pte_t pte);
void pvmap_pv_invlpg(unsigned int cmd, unsigned long va);
void pvmap_pv_begin(void);
int pvmap_pv_end(void);
int pvmap_pv_register(unsigned long va, pte_t **ptes, unsigned int npages);
void pvmap_pv_unregister(unsigned long va, pte_t **ptes, unsigned int npages);
s64 pvmap_pv_ping(void);

#define pvmap_backend_active pvmap_backend_active
static __always_inline bool pvmap_backend_active(void)
{
	return static_branch_unlikely(&pvmap_pv_on);
}

#define pvmap_backend_set_pte pvmap_backend_set_pte
static __always_inline void pvmap_backend_set_pte(pte_t *ptep, pte_t pte)
{
	pvmap_pv_write(ptep, pte);
}

#define pvmap_backend_clear_pte pvmap_backend_clear_pte
static __always_inline void pvmap_backend_clear_pte(unsigned long va, pte_t *ptep)
{
	pvmap_pv_write(ptep, __pte(0));
}

/* Run on this vCPU too, once the hypervisor has acknowledged it. */
#define pvmap_backend_flush_local pvmap_backend_flush_local
static __always_inline void pvmap_backend_flush_local(unsigned long va)
{
	pvmap_pv_invlpg(MMUEXT_INVLPG_LOCAL, va);
}

#define pvmap_backend_flush_all pvmap_backend_flush_all
static __always_inline void pvmap_backend_flush_all(unsigned long va)
{
	pvmap_pv_invlpg(MMUEXT_INVLPG_ALL, va);
}

#define pvmap_backend_batch_begin pvmap_backend_batch_begin
static __always_inline void pvmap_backend_batch_begin(void)
{
	pvmap_pv_begin();
}

#define pvmap_backend_batch_end pvmap_backend_batch_end
static __always_inline int pvmap_backend_batch_end(void)
{
	return pvmap_pv_end();
}

#define pvmap_backend_window_add pvmap_backend_window_add
static __always_inline int pvmap_backend_window_add(unsigned long va, pte_t **ptes,
						    unsigned int npages)
{
	return pvmap_pv_register(va, ptes, npages);
}

#define pvmap_backend_window_remove pvmap_backend_window_remove
static __always_inline void pvmap_backend_window_remove(unsigned long va, pte_t **ptes,
							unsigned int npages)
{
	pvmap_pv_unregister(va, ptes, npages);
}

#endif /* PVMAP_PV_H */
