// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap_test's fixtures on virtio-gpu's host-visible window (run-guest
 * --vgpu, docs/virtio-gpu.md): host memory that the guest reaches only where
 * the host has mapped a blob, whose pages change owner as blobs come and go.
 * The window is found from the device's virtio capability, not its driver:
 * pvmap maps it without binding the device, which virtio-pci keeps.
 */

#include <linux/completion.h>
#include <linux/io-mapping.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/virtio_gpu.h>
#include <linux/virtio_ids.h>
#include <linux/virtio_pci.h>

#include <pvmap/compat.h>

#include "pvmap_test.h"

/* A modern virtio-pci device's id is 0x1040 plus its virtio id. */
#define VGPU_PCI_DEVICE		(0x1040 + VIRTIO_ID_GPU)

static u64 vgpu_cap_u64(struct pci_dev *pdev, int pos, size_t lo, size_t hi)
{
	u32 low = 0, high = 0;

	pci_read_config_dword(pdev, pos + lo, &low);
	pci_read_config_dword(pdev, pos + hi, &high);
	return (u64)high << 32 | low;
}

/*
 * Whether @pdev's @bar is memory the PCI core assigned and claimed: one it
 * could not place (IORESOURCE_UNSET, no parent) may read as address 0.
 */
bool pvmap_test_bar_assigned(struct pci_dev *pdev, int bar)
{
	const struct resource *r = &pdev->resource[bar];

	return (r->flags & IORESOURCE_MEM) && !(r->flags & IORESOURCE_UNSET) && r->parent &&
	       resource_size(r);
}

/*
 * The host-visible window of @pdev, a virtio-gpu device: its shared memory
 * capability VIRTIO_GPU_SHM_ID_HOST_VISIBLE, which names a BAR and a range
 * inside it (virtio_pci_modern's virtio_pci_find_shm_cap() reads the same).
 * False when @pdev is no virtio-gpu or has no such window.
 */
bool pvmap_test_vgpu_window(struct pci_dev *pdev, u64 *base, u64 *size)
{
	int pos;

	if (pdev->vendor != PCI_VENDOR_ID_REDHAT_QUMRANET || pdev->device != VGPU_PCI_DEVICE)
		return false;
	for (pos = pci_find_capability(pdev, PCI_CAP_ID_VNDR); pos > 0;
	     pos = pci_find_next_capability(pdev, pos, PCI_CAP_ID_VNDR)) {
		u8 type = 0, bar = 0, id = 0;
		u64 offset, len, bar_len;

		pci_read_config_byte(pdev, pos + offsetof(struct virtio_pci_cap, cfg_type), &type);
		pci_read_config_byte(pdev, pos + offsetof(struct virtio_pci_cap, bar), &bar);
		pci_read_config_byte(pdev, pos + offsetof(struct virtio_pci_cap, id), &id);
		if (type != VIRTIO_PCI_CAP_SHARED_MEMORY_CFG ||
		    id != VIRTIO_GPU_SHM_ID_HOST_VISIBLE)
			continue;
		if (bar >= PCI_STD_NUM_BARS || !pvmap_test_bar_assigned(pdev, bar))
			return false;
		offset = vgpu_cap_u64(pdev, pos, offsetof(struct virtio_pci_cap64, cap.offset),
				      offsetof(struct virtio_pci_cap64, offset_hi));
		len = vgpu_cap_u64(pdev, pos, offsetof(struct virtio_pci_cap64, cap.length),
				   offsetof(struct virtio_pci_cap64, length_hi));
		bar_len = pci_resource_len(pdev, bar);
		if (!len || offset > bar_len || len > bar_len - offset)
			return false;
		*base = pci_resource_start(pdev, bar) + offset;
		*size = len;
		return true;
	}
	return false;
}

/* Where the page this process maps at @va is: a map of an I/O range only. */
static int vgpu_user_phys(unsigned long va, u64 *phys)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long pfn;
	int ret = -EINVAL;

	if (!mm)
		return -EINVAL;
	mmap_read_lock(mm);
	vma = vma_lookup(mm, va);
	if (vma && (vma->vm_flags & (VM_IO | VM_PFNMAP)) == (VM_IO | VM_PFNMAP))
		ret = pvmap_follow_pfn(vma, va, &pfn);
	mmap_read_unlock(mm);
	if (!ret)
		*phys = (u64)pfn << PAGE_SHIFT;
	return ret;
}

/* The first virtio-gpu device's window, and where a page of a blob is. */
int pvmap_test_vgpu_window_request(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_vgpu_window *req = arg;
	struct pci_dev *pdev = NULL;

	for_each_pci_dev(pdev) {
		if (pvmap_test_vgpu_window(pdev, &req->base, &req->size)) {
			pci_dev_put(pdev);
			req->user_phys = 0;
			if (req->user_va > ULONG_MAX)
				return -EINVAL;
			return req->user_va ? vgpu_user_phys(req->user_va, &req->user_phys) : 0;
		}
	}
	return -ENODEV;
}

/*
 * The hazard where pages change owner: a kernel map of blob A's page,
 * written and unmapped; then the guest's program, on another CPU, frees
 * blob A and has blob B (another context's) mapped at the same window
 * offset, while this task waits on the CPU that made the map; then a write
 * through the old pointer. With clear-on-unmap it faults; where the unmap
 * leaves the PTE (io_mapping before clear-on-unmap, hazard_demo's engine)
 * it lands in blob B. Mainline's io_mapping on i386 without HIGHMEM
 * clears the PTE but leaves the TLB entry: the write lands only if that
 * entry outlives the host's remapping of the window, which QEMU follows
 * with a flush of every vCPU's TLB (docs/virtio-gpu.md).
 */
static DEFINE_MUTEX(blob_hazard_lock);
static DECLARE_COMPLETION(blob_unmapped);
static DECLARE_COMPLETION(blob_go);
static void __iomem *blob_old_va;
static bool blob_armed;	/* ARM since the last run: its completions fresh */
static bool blob_cancelled;	/* CANCEL since ARM */

static int blob_wait(struct completion *done, u32 timeout_ms)
{
	long left = wait_for_completion_killable_timeout(done, msecs_to_jiffies(timeout_ms));

	return left > 0 ? 0 : left ? (int)left : -ETIMEDOUT;
}

int pvmap_test_blob_step(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_blob_hazard *req = arg;
	int ret;

	if (!req->timeout_ms || req->timeout_ms > 60000)
		return -EINVAL;
	switch (req->step) {
	case PVMAP_BLOB_ARM:
		/* not under a run, whose waits would miss their completion */
		if (!mutex_trylock(&blob_hazard_lock))
			return -EBUSY;
		reinit_completion(&blob_unmapped);
		reinit_completion(&blob_go);
		WRITE_ONCE(blob_old_va, NULL);
		WRITE_ONCE(blob_cancelled, false);
		blob_armed = true;
		mutex_unlock(&blob_hazard_lock);
		return 0;
	case PVMAP_BLOB_WAIT_UNMAPPED:
		ret = blob_wait(&blob_unmapped, req->timeout_ms);
		req->va = (unsigned long)READ_ONCE(blob_old_va);
		return ret;
	case PVMAP_BLOB_CANCEL:
		WRITE_ONCE(blob_cancelled, true);
		fallthrough;
	case PVMAP_BLOB_GO:
		complete(&blob_go);
		return 0;
	default:
		return -EINVAL;
	}
}

int pvmap_test_blob_hazard(struct pvmap_test_ctx *ctx, void *arg)
{
	static const char data[] = "guest data in blob A";
	struct pvmap_test_blob_hazard *req = arg;
	struct pvmap_io_mapping *m = NULL;
	void __iomem *vaddr = NULL;
	struct io_mapping mainline;
	bool have_mainline = false;
	int ret = 0;

	if (req->offset >= ctx->size || ctx->size - req->offset < PAGE_SIZE ||
	    !IS_ALIGNED(ctx->base + req->offset, PAGE_SIZE) ||
	    !req->timeout_ms || req->timeout_ms > 60000)
		return -EINVAL;
	if (!mutex_trylock(&blob_hazard_lock))
		return -EBUSY;
	/* a GO left from before would let the write go before the host remapped */
	if (!blob_armed) {
		ret = test_fail(ctx, "BLOB_STEP ARM first");
		goto done;
	}
	blob_armed = false;
	if (req->engine == PVMAP_BLOB_PTE_LEFT && !pvmap_test_hazard_demo) {
		ret = test_fail(ctx, "the engine that leaves its PTE needs hazard_demo=1");
		goto done;
	}
	/* just the page: the rest of the window may be mapped otherwise by now */
	switch (req->engine) {
	case PVMAP_BLOB_PVMAP:
	case PVMAP_BLOB_PTE_LEFT:
		m = pvmap_io_mapping_create_wc(ctx->base + req->offset, PAGE_SIZE);
		if (IS_ERR(m)) {
			ret = test_fail(ctx, "create_wc: %ld", PTR_ERR(m));
			m = NULL;
			goto done;
		}
		req->clears = req->engine == PVMAP_BLOB_PVMAP &&
			      pvmap_io_mapping_clears_on_unmap(m);
		break;
	case PVMAP_BLOB_MAINLINE:
		if (!io_mapping_init_wc(&mainline, ctx->base + req->offset, PAGE_SIZE)) {
			ret = test_fail(ctx, "io_mapping_init_wc");
			goto done;
		}
		have_mainline = true;
		/* what <linux/io-mapping.h> promises: x86_64 maps the range for good */
		req->clears = !IS_ENABLED(CONFIG_64BIT);
		break;
	default:
		ret = -EINVAL;
		goto done;
	}
	/* one CPU throughout: the TLB entry in question is this CPU's */
	migrate_disable();
	if (req->engine == PVMAP_BLOB_PTE_LEFT) {
		struct pvmap_test_ctx page = { .m = m, .base = ctx->base + req->offset };

		vaddr = pvmap_test_map_leaving_pte(&page, 0);
	} else {
		vaddr = m ? pvmap_io_mapping_map_atomic_wc(m, 0) :
			    io_mapping_map_local_wc(&mainline, 0);
	}
	if (vaddr) {
		memcpy_toio(vaddr, data, sizeof(data));
		/* PTE_LEFT's unmap: forget the address */
		if (req->engine == PVMAP_BLOB_PVMAP)
			pvmap_io_mapping_unmap_atomic(vaddr);
		else if (req->engine == PVMAP_BLOB_MAINLINE)
			io_mapping_unmap_local(vaddr);
		WRITE_ONCE(blob_old_va, vaddr);
		req->va = (unsigned long)vaddr;
		complete(&blob_unmapped);
		ret = blob_wait(&blob_go, req->timeout_ms);
		if (!ret && READ_ONCE(blob_cancelled))
			ret = -ECANCELED;
		if (!ret)
			req->landed = pvmap_test_store_stale(vaddr);
	} else {
		ret = test_fail(ctx, "map returned NULL");
	}
	migrate_enable();
done:
	/* WAIT_UNMAPPED's answer on every way out: va 0 when there was no map */
	complete(&blob_unmapped);
	if (m)
		pvmap_io_mapping_free(m);
	if (have_mainline)
		io_mapping_fini(&mainline);
	mutex_unlock(&blob_hazard_lock);
	return ret;
}
