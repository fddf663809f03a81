// SPDX-License-Identifier: GPL-2.0
/* guest/pvmap/pvmap_pte.h's functions as hypercalls to libpvstub; see pvmap_pte_stub.h. */
#include <errno.h>
#include <string.h>

#include <linux/percpu.h>
#include <linux/preempt.h>

#include "pvmap_pte.h"
#include "pvmap_pte_stub.h"

#define WINDOW_BASE	0xc8000000ULL
#define L1_SPAN		(512ULL << 12)

struct pvmap_pte_stub pvmap_pte_stub = { .batching = true };

static struct {
	bool active;
	unsigned int errors_at_begin;
	struct pvstub_queue q;
} batch[PVMAP_SHIM_NR_CPUS];

static uint64_t next_window = WINDOW_BASE;

pgprot_t pvmap_prot_supported(pgprot_t prot)
{
	return prot;
}

/* Windows are 2 MiB-aligned VA ranges whose L1 frames the stub owns. */
int pvmap_window_create(struct pvmap_window *w, unsigned int npages)
{
	uint64_t span = ((uint64_t)npages << PAGE_SHIFT) + L1_SPAN - 1;

	memset(w, 0, sizeof(*w));
	span -= span % L1_SPAN;
	for (uint64_t va = next_window; va < next_window + span; va += L1_SPAN)
		if (pvstub_alloc_l1(pvmap_pte_stub.hv, va))
			return -ENOMEM;
	w->va = next_window;
	w->npages = npages;
	w->area = w;
	next_window += span;
	return 0;
}

void pvmap_window_destroy(struct pvmap_window *w)
{
	memset(w, 0, sizeof(*w));
}

static void count_error(int rc)
{
	if (rc)
		pvmap_pte_stub.errors++;
}

static void untag(uint64_t va);

/*
 * The queued invalidations run with the multicall, after the clears queued
 * before them: only then is an entry gone from the current space, and an
 * access meanwhile, through a PTE still live, fills it again.
 */
static void batch_flush(void)
{
	struct pvstub_queue *q = &batch[pvmap_shim_cpu].q;
	uint64_t invlpg[PVSTUB_QUEUE_MAX];
	unsigned int n = 0;

	for (unsigned int i = 0; i < q->next; i++)
		if (q->ext[i].cmd == MMUEXT_INVLPG_LOCAL)
			invlpg[n++] = q->ext[i].arg1.linear_addr;
	pvmap_pte_stub.errors += pvstub_queue_flush(pvmap_pte_stub.hv, pvmap_shim_cpu, q);
	for (unsigned int i = 0; i < n; i++)
		untag(invlpg[i]);
}

/* As in the kernel, interrupts do not batch: their updates go at once. */
void pvmap_batch_begin(void)
{
	if (pvmap_shim_in_irq)
		return;
	batch[pvmap_shim_cpu].errors_at_begin = pvmap_pte_stub.errors;
	if (pvmap_pte_stub.batching)
		batch[pvmap_shim_cpu].active = true;
}

/* -EPERM when the stub refused an update of the task's batch. */
int pvmap_batch_end(void)
{
	if (pvmap_shim_in_irq)
		return 0;
	if (batch[pvmap_shim_cpu].active)
		batch_flush();
	batch[pvmap_shim_cpu].active = false;
	return pvmap_pte_stub.errors > batch[pvmap_shim_cpu].errors_at_begin ? -EPERM : 0;
}

/* The PTE as the stub has it, with this CPU's queued updates not yet issued. */
bool pvmap_pte_is_clear(const struct pvmap_window *w, unsigned int slot)
{
	return !(pvstub_pte(pvmap_pte_stub.hv, pvmap_window_va(w, slot)) & 1);
}

static void pte_write(struct pvmap_window *w, unsigned int slot, uint64_t val)
{
	struct pvstub_queue *q = &batch[pvmap_shim_cpu].q;
	struct mmu_update u = {
		.ptr = pvstub_pte_maddr(pvmap_pte_stub.hv, pvmap_window_va(w, slot)) |
		       MMU_NORMAL_PT_UPDATE,
		.val = val,
	};

	if (!batch[pvmap_shim_cpu].active || pvmap_shim_in_irq) {
		count_error(pvstub_mmu_update(pvmap_pte_stub.hv, pvmap_shim_cpu, &u, 1, NULL,
					      DOMID_SELF));
		return;
	}
	if (!pvstub_queue_update(q, &u)) {
		batch_flush();
		pvstub_queue_update(q, &u);
	}
}

void pvmap_pte_set(struct pvmap_window *w, unsigned int slot, u64 pfn, pgprot_t prot)
{
	pte_write(w, slot, (pfn << PAGE_SHIFT) | pgprot_val(prot));
}

void pvmap_pte_clear(struct pvmap_window *w, unsigned int slot)
{
	if (!pvmap_pte_stub.skip_clear)
		pte_write(w, slot, 0);
}

/* Return: whether @cmd was queued, not run. */
static bool mmuext(unsigned int cmd, uint64_t va)
{
	struct pvstub_queue *q = &batch[pvmap_shim_cpu].q;
	struct mmuext_op op = { .cmd = cmd, .arg1.linear_addr = va };

	if (!batch[pvmap_shim_cpu].active || pvmap_shim_in_irq) {
		count_error(pvstub_mmuext_op(pvmap_pte_stub.hv, pvmap_shim_cpu, &op, 1, NULL,
					     DOMID_SELF));
		return false;
	}
	if (!pvstub_queue_mmuext(q, &op)) {
		batch_flush();
		pvstub_queue_mmuext(q, &op);
	}
	return true;
}

/*
 * The address-space model (pvmap_pte_stub.h): tags per CPU and window page.
 * Windows are placed one after the other for the whole run (each
 * core_begin() sets up a slot core with 8 MiB of windows), so a page's tags
 * are at its page number modulo TAGGED_PAGES: the windows of one slot core
 * never share one, and the tags do not end at the fifth slot core's (where
 * a touch tagged nothing, and a test found nothing stale).
 */
#define TAGGED_PAGES	8192

static struct {
	unsigned int space;
	uint8_t tagged[TAGGED_PAGES];
} spaces[PVMAP_SHIM_NR_CPUS];

static uint8_t *tag_of(unsigned int cpu, uint64_t va)
{
	uint64_t page = (va - WINDOW_BASE) >> PAGE_SHIFT;

	return va >= WINDOW_BASE ? &spaces[cpu].tagged[page % TAGGED_PAGES] : NULL;
}

void pvmap_pte_stub_spaces_reset(void)
{
	memset(spaces, 0, sizeof(spaces));
	pvmap_pte_stub.space_flushes = 0;
}

void pvmap_pte_stub_set_space(unsigned int cpu, unsigned int space)
{
	spaces[cpu].space = space % PVMAP_STUB_SPACES;
}

void pvmap_pte_stub_touch(uint64_t va)
{
	uint8_t *tag = tag_of(pvmap_shim_cpu, va);

	if (tag && (pvstub_pte(pvmap_pte_stub.hv, va) & 1))
		*tag |= 1U << spaces[pvmap_shim_cpu].space;
}

unsigned int pvmap_pte_stub_tagged(unsigned int cpu, uint64_t va)
{
	uint8_t *tag = tag_of(cpu, va);

	return tag ? *tag : 0;
}

bool pvmap_tlb_other_pcids(void)
{
	return pvmap_pte_stub.pcids;
}

/* The current space's number: CR3, in the kernel. */
unsigned long pvmap_tlb_space(void)
{
	return pvmap_pte_stub.pcids ? spaces[pvmap_shim_cpu].space : 0;
}

void pvmap_tlb_flush_spaces(void)
{
	memset(spaces[pvmap_shim_cpu].tagged, 0, sizeof(spaces[pvmap_shim_cpu].tagged));
	pvmap_pte_stub.space_flushes++;
}

/* An invalidation run on this CPU: @va's entry gone from the current space only. */
static void untag(uint64_t va)
{
	uint8_t *tag = tag_of(pvmap_shim_cpu, va);

	if (tag)
		*tag &= ~(1U << spaces[pvmap_shim_cpu].space);
}

void pvmap_tlb_flush_local(struct pvmap_window *w, unsigned int slot)
{
	if (pvmap_pte_stub.skip_clear)
		return;
	if (!mmuext(MMUEXT_INVLPG_LOCAL, pvmap_window_va(w, slot)))
		untag(pvmap_window_va(w, slot));
}

/* As the stub's backend is a hypervisor of its own: each page invalidated, never the whole TLB. */
bool pvmap_tlb_flush_whole(unsigned int npages)
{
	(void)npages;
	return false;
}

void pvmap_tlb_flush_local_all(struct pvmap_window *w, unsigned int first, unsigned int npages)
{
	for (unsigned int i = 0; i < npages; i++)
		pvmap_tlb_flush_local(w, first + i);
}

/* As the kernel's: every space of every CPU (pvmap_pte.c). */
void pvmap_tlb_flush_all_cpus(struct pvmap_window *w, unsigned int slot, unsigned int npages)
{
	for (unsigned int i = 0; i < npages; i++) {
		mmuext(MMUEXT_INVLPG_ALL, pvmap_window_va(w, slot + i));
		for (unsigned int cpu = 0; cpu < PVMAP_SHIM_NR_CPUS; cpu++) {
			uint8_t *tag = tag_of(cpu, pvmap_window_va(w, slot + i));

			if (tag)
				*tag = 0;
		}
	}
}
