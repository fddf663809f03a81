// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap: PCI binding of virtual-GPU memory apertures.
 *
 * Binds to the devices QEMU offers with a large, host-visible memory BAR
 * (ivshmem-plain, std VGA / bochs-display, qxl), claims that BAR and exposes
 * it as /dev/pvmapN: PWRITE/PREAD through the io_mapping engine, mmap of
 * aperture ranges into user space, INFO and STATS. The BAR is claimed but
 * never mapped whole on a 32-bit guest: it does not fit in the kernel's
 * address space, which is the problem the io_mapping engine solves.
 *
 * User mappings are filled at fault time and live in one address space per
 * device (an inode of pvmap's own, as DRM's drm_dev_unplug() relies on), so
 * that unbind can zap every process's PTEs before the BAR is released.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/pci.h>
#include <linux/pseudo_fs.h>
#include <linux/rwsem.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/memtype.h>

#include <pvmap/io_mapping.h>
#include <uapi/pvmap_kind.h>
#include <uapi/pvmap.h>

#include <pvmap/compat.h>
#include "pvmap_internal.h"

#define PVMAP_DRV_NAME		"pvmap"

/* The ABI is the same for i386 and x86_64 user space: no compat layout. */
static_assert(sizeof(struct pvmap_info) == 48);

#define PCI_VENDOR_ID_IVSHMEM	0x1af4
#define PCI_DEVICE_ID_IVSHMEM	0x1110
#define PCI_VENDOR_ID_BOCHS	0x1234
#define PCI_DEVICE_ID_BOCHS	0x1111
#define PCI_VENDOR_ID_QXL	0x1b36
#define PCI_DEVICE_ID_QXL	0x0100

#define PVMAP_IVSHMEM_BAR	2
#define PVMAP_STDVGA_BAR	0
#define PVMAP_QXL_VRAM_BAR	1
#define PVMAP_QXL_VRAM64_BAR	4

/**
 * struct pvmap_device - one bound aperture
 * @pdev: the PCI device; NULL once unbound (checked under @lock or @mmap_lock)
 * @lock: held for reading by ioctls, for writing by unbind; never across a
 *	user fault (PWRITE/PREAD copy with page faults off under it, and fault
 *	the user's pages in without it), so unbind never waits for one
 * @mmap_lock: held for reading by mmap and by faults on user mappings, for
 *	writing by unbind. Both run under the mm's mmap_lock, which a fault
 *	in of PWRITE/PREAD takes too
 * @ref: one reference for the binding, one per open file
 * @misc: the /dev/pvmapN character device
 * @inode: owns the address space of every user mapping of the aperture,
 *	whichever device node was opened: unbind zaps them all through it
 * @cache_bits: the PTE cache bits of the memory type the kernel granted the
 *	aperture (write-combining unless it was reserved otherwise), for
 *	user mappings as for the io_mapping's
 * @iomap: the aperture's io_mapping
 * @debugfs: this device's debugfs directory
 * @id: N of pvmapN
 * @kind: enum pvmap_kind
 * @bar: PCI BAR of the aperture
 * @base: guest-physical base of the aperture
 * @size: size of the aperture in bytes
 * @name: "pvmapN"
 */
struct pvmap_device {
	struct pci_dev *pdev;
	struct rw_semaphore lock;
	struct rw_semaphore mmap_lock;	/* see @mmap_lock above */
	struct kref ref;
	struct miscdevice misc;
	struct inode *inode;
	pgprotval_t cache_bits;
	struct pvmap_io_mapping *iomap;
	struct dentry *debugfs;
	int id;
	enum pvmap_kind kind;
	int bar;
	resource_size_t base;
	resource_size_t size;
	char name[16];
};

static DEFINE_IDA(pvmap_ida);
static struct dentry *pvmap_debugfs_root;

/*
 * An internal mount whose inodes give each device one address space for
 * its user mappings (DRM's drm_fs_inode_new() does the same). Mounted for
 * the module's lifetime: no owner, or the mount would pin the module;
 * virtio_balloon's balloon_fs is the model.
 */
#define PVMAP_FS_MAGIC	0x70766d70	/* "pvmp" */

static struct vfsmount *pvmap_fs_mnt;

static int pvmap_fs_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, PVMAP_FS_MAGIC) ? 0 : -ENOMEM;
}

static struct file_system_type pvmap_fs_type = {
	.name = "pvmap",
	.init_fs_context = pvmap_fs_init_fs_context,
	.kill_sb = kill_anon_super,
};

static void pvmap_device_release(struct kref *ref)
{
	struct pvmap_device *pvdev = container_of(ref, struct pvmap_device, ref);

	iput(pvdev->inode);
	ida_free(&pvmap_ida, pvdev->id);
	kfree(pvdev);
}

static void pvmap_device_put(struct pvmap_device *pvdev)
{
	kref_put(&pvdev->ref, pvmap_device_release);
}

/* qxl has a 64-bit VRAM BAR only when configured larger than the 32-bit one. */
static int pvmap_aperture_bar(struct pci_dev *pdev, enum pvmap_kind kind)
{
	switch (kind) {
	case PVMAP_KIND_IVSHMEM:
		return PVMAP_IVSHMEM_BAR;
	case PVMAP_KIND_STDVGA:
		return PVMAP_STDVGA_BAR;
	case PVMAP_KIND_QXL:
		if (pci_resource_len(pdev, PVMAP_QXL_VRAM64_BAR))
			return PVMAP_QXL_VRAM64_BAR;
		return PVMAP_QXL_VRAM_BAR;
	default:
		return -ENODEV;
	}
}

static void pvmap_fill_info(struct pvmap_device *pvdev, struct pvmap_info *info)
{
	memset(info, 0, sizeof(*info));
	info->abi_version = PVMAP_ABI_VERSION;
	info->kind = pvdev->kind;
	info->aperture_base = pvdev->base;
	info->aperture_size = pvdev->size;
	info->vendor = pvdev->pdev->vendor;
	info->device = pvdev->pdev->device;
	info->bar = pvdev->bar;
	if (pvmap_io_mapping_clears_on_unmap(pvdev->iomap))
		info->flags |= PVMAP_INFO_F_CLEARS_ON_UNMAP;
	if (pvmap_io_mapping_is_wc(pvdev->iomap))
		info->flags |= PVMAP_INFO_F_WRITE_COMBINING;
	if (pvmap_io_mapping_local_preemptible())
		info->flags |= PVMAP_INFO_F_LOCAL_PREEMPTIBLE;
	strscpy(info->pci_name, pci_name(pvdev->pdev), sizeof(info->pci_name));
}

static int pvmap_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;
	struct pvmap_device *pvdev = container_of(misc, struct pvmap_device, misc);

	/* misc_open() holds misc_mtx, so unbind cannot have dropped @ref yet. */
	kref_get(&pvdev->ref);
	file->private_data = pvdev;
	/* one address space for all the device's user mappings, whatever the node */
	file->f_mapping = pvdev->inode->i_mapping;
	/* mmap offsets reach 4 GiB and more: past ULONG_MAX on i386. */
	pvmap_file_unsigned_offset(file);
	return 0;
}

static int pvmap_release(struct inode *inode, struct file *file)
{
	pvmap_device_put(file->private_data);
	return 0;
}

/* Filled under the lock, copied out after it: a user fault may take its time. */
static long pvmap_ioctl_info(struct pvmap_device *pvdev, void __user *arg)
{
	struct pvmap_info info;

	down_read(&pvdev->lock);
	if (!pvdev->pdev) {
		up_read(&pvdev->lock);
		return -ENODEV;
	}
	pvmap_fill_info(pvdev, &info);
	up_read(&pvdev->lock);
	if (copy_to_user(arg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

/*
 * PWRITE/PREAD: copy with the lock held for reading (unbind waits only for
 * a copy with faults off), and fault the user's pages in between copies
 * with no lock held. Once unbound, the copy ends where it got to: 0 with
 * done < length, or -ENODEV before the first byte.
 */
static long pvmap_ioctl_rw(struct file *file, void __user *arg, bool write)
{
	struct pvmap_device *pvdev = file->private_data;
	unsigned int faults_here = 0;
	enum pvmap_rw_stop stop;
	u64 faulted_at = U64_MAX;
	struct pvmap_rw rw;
	int ret;

	/* a PWRITE writes the device, a PREAD reads it: as the descriptor was opened */
	if (!(file->f_mode & (write ? FMODE_WRITE : FMODE_READ)))
		return -EBADF;
	if (copy_from_user(&rw, arg, sizeof(rw)))
		return -EFAULT;
	ret = pvmap_rw_check(pvdev->size, &rw);
	while (!ret && rw.done < rw.length) {
		down_read(&pvdev->lock);
		if (!pvdev->pdev) {
			up_read(&pvdev->lock);
			ret = -ENODEV;
			break;
		}
		stop = pvmap_rw_atomic(pvdev->iomap, &rw, write);
		up_read(&pvdev->lock);
		if (stop == PVMAP_RW_YIELD)
			continue;	/* let an unbind in between long copies */
		if (stop != PVMAP_RW_FAULT) {
			if (rw.done < rw.length)	/* a fatal signal, or no map */
				ret = fatal_signal_pending(current) ? -EINTR : -ENOMEM;
			break;
		}
		/*
		 * A page faulted in that the copy still cannot use (a shadow
		 * stack's, say) would stop it at the same byte for ever; one
		 * reclaimed before the retry makes it stop there again once.
		 * After PVMAP_RW_FAULT_RETRIES stops there, the bytes before
		 * it are what there is.
		 */
		faults_here = rw.done == faulted_at ? faults_here + 1 : 0;
		if (faults_here == PVMAP_RW_FAULT_RETRIES) {
			ret = -EFAULT;
			break;
		}
		faulted_at = rw.done;
		ret = pvmap_rw_fault_in(&rw, write);
	}
	/* What was copied stands: an error only when nothing was. */
	if (rw.done)
		ret = 0;
	if (copy_to_user(arg, &rw, sizeof(rw)))
		return -EFAULT;
	return ret;
}

static long pvmap_ioctl_stats(void __user *arg)
{
	struct pvmap_stats stats;

	pvmap_stats_read(&stats);
	if (copy_to_user(arg, &stats, sizeof(stats)))
		return -EFAULT;
	return 0;
}

static long pvmap_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pvmap_device *pvdev = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	/* Each takes the device's lock as it needs, never across a user fault. */
	switch (cmd) {
	case PVMAP_IOC_PWRITE:
	case PVMAP_IOC_PREAD:
		return pvmap_ioctl_rw(file, uarg, cmd == PVMAP_IOC_PWRITE);
	case PVMAP_IOC_INFO:
		return pvmap_ioctl_info(pvdev, uarg);
	case PVMAP_IOC_STATS:
		/* the module's counters: nothing of the device's */
		ret = READ_ONCE(pvdev->pdev) ? pvmap_ioctl_stats(uarg) : -ENODEV;
		return ret;
	default:
		return -ENOTTY;
	}
}

/*
 * A page of a user mapping, at its first access: the aperture's pfn, with
 * the memory type the kernel granted it. Once the device is gone a fault
 * gets SIGBUS; unbind zaps the PTEs made before under @mmap_lock, so none
 * made here can outlive the BAR.
 */
static vm_fault_t pvmap_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct pvmap_device *pvdev = vma->vm_private_data;
	/* vm_pgoff << PAGE_SHIFT in 64 bits: on i386 unsigned long would wrap. */
	u64 offset = (u64)vmf->pgoff << PAGE_SHIFT;
	vm_fault_t ret = VM_FAULT_SIGBUS;

	down_read(&pvdev->mmap_lock);
	if (pvdev->pdev && offset < pvdev->size)
		ret = vmf_insert_pfn_prot(vma, vmf->address, (pvdev->base + offset) >> PAGE_SHIFT,
					  vma->vm_page_prot);
	up_read(&pvdev->mmap_lock);
	return ret;
}

static const struct vm_operations_struct pvmap_vm_ops = {
	.fault = pvmap_vm_fault,
};

/*
 * Map [file offset, + length) of the aperture into user space; the PTEs
 * come at fault time. They are the device's pfns, never struct pages, so
 * only shared mappings: there is nothing to copy on write.
 */
static int pvmap_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct pvmap_device *pvdev = file->private_data;
	unsigned long len = vma->vm_end - vma->vm_start;
	u64 offset;
	int ret = 0;

	down_read(&pvdev->mmap_lock);
	if (!pvdev->pdev) {
		ret = -ENODEV;
		goto out;
	}
	offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	if (!(vma->vm_flags & VM_SHARED) || offset >= pvdev->size ||
	    len > pvdev->size - offset) {
		ret = -EINVAL;
		goto out;
	}
	vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_page_prot = __pgprot((pgprot_val(vma->vm_page_prot) & ~_PAGE_CACHE_MASK) |
				     pvdev->cache_bits);
	vma->vm_private_data = pvdev;
	vma->vm_ops = &pvmap_vm_ops;
out:
	up_read(&pvdev->mmap_lock);
	return ret;
}

static const struct file_operations pvmap_fops = {
	.owner = THIS_MODULE,
	.open = pvmap_open,
	.release = pvmap_release,
	.unlocked_ioctl = pvmap_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = pvmap_mmap,
	.llseek = noop_llseek,
#if PVMAP_HAVE_FOP_FLAGS
	.fop_flags = FOP_UNSIGNED_OFFSET,
#endif
};

static int pvmap_debugfs_info_show(struct seq_file *s, void *unused)
{
	struct pvmap_device *pvdev = s->private;

	seq_printf(s, "kind: %s\n", pvmap_kind_name(pvdev->kind));
	seq_printf(s, "pci: %s\n", pci_name(pvdev->pdev));
	seq_printf(s, "bar: %d\n", pvdev->bar);
	seq_printf(s, "base: %pa\n", &pvdev->base);
	seq_printf(s, "size: %pa\n", &pvdev->size);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pvmap_debugfs_info);

/*
 * Try what pvmap exists to avoid: ioremap_wc() of the whole aperture. On
 * i386 a 1 GiB aperture does not fit in the vmalloc space and this fails;
 * the guest tests assert that, so the problem stays demonstrated.
 *
 * Not tried on i386 for an aperture that ends above 4 GiB or whose size an
 * unsigned long cannot hold: 6.1's and 6.12's __ioremap_caller() align the
 * address with a 32-bit PAGE_MASK there, which would map (and reserve the
 * memory type of) the aperture's address less 4 GiB, low RAM perhaps
 * (whole_ioremap_above_4g), and ioremap_wc() takes the size as unsigned long.
 */
static int pvmap_debugfs_whole_ioremap_show(struct seq_file *s, void *unused)
{
	struct pvmap_device *pvdev = s->private;
	void __iomem *whole;

	if (IS_ENABLED(CONFIG_X86_32) && ((u64)pvdev->base + pvdev->size - 1 > U32_MAX ||
					  pvdev->size != (unsigned long)pvdev->size)) {
		seq_printf(s, "failed %d: not tried above 4 GiB on i386\n", -EOPNOTSUPP);
		return 0;
	}
	whole = ioremap_wc(pvdev->base, pvdev->size);
	if (!whole) {
		seq_printf(s, "failed %d\n", -ENOMEM);
		return 0;
	}
	iounmap(whole);
	seq_puts(s, "mapped\n");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pvmap_debugfs_whole_ioremap);

static int pvmap_debugfs_stats_show(struct seq_file *s, void *unused)
{
	struct pvmap_stats st;
	unsigned int cpu;

	pvmap_stats_read(&st);
	seq_printf(s, "maps: %llu\n", st.maps);
	seq_printf(s, "unmaps: %llu\n", st.unmaps);
	seq_printf(s, "pte_writes: %llu\n", st.pte_writes);
	seq_printf(s, "local_flushes: %llu\n", st.local_flushes);
	seq_printf(s, "remote_flushes: %llu\n", st.remote_flushes);
	seq_printf(s, "batches: %llu\n", st.batches);
	seq_printf(s, "slow_path: %llu\n", st.slow_path);
	seq_printf(s, "misuse: %llu\n", st.misuse);
	for (cpu = 0; cpu < st.nr_cpus; cpu++)
		seq_printf(s, "live_slots_cpu%u: %u\n", cpu, st.live_slots[cpu]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pvmap_debugfs_stats);

static int pvmap_debugfs_live_show(struct seq_file *s, void *unused)
{
	pvmap_live_show(s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pvmap_debugfs_live);

static int pvmap_debugfs_windows_show(struct seq_file *s, void *unused)
{
	pvmap_windows_show(s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pvmap_debugfs_windows);

static void pvmap_debugfs_add(struct pvmap_device *pvdev)
{
	pvdev->debugfs = debugfs_create_dir(pvdev->name, pvmap_debugfs_root);
	debugfs_create_file("info", 0400, pvdev->debugfs, pvdev,
			    &pvmap_debugfs_info_fops);
	debugfs_create_file("whole_ioremap", 0400, pvdev->debugfs, pvdev,
			    &pvmap_debugfs_whole_ioremap_fops);
}

/*
 * Display-class devices are a VM's own display (bochs, qxl): pvmap takes
 * one only when the administrator asks, and udev never loads pvmap for one
 * (pvmap_pci_alias_ids). Not named stdvga=: QEMU's -kernel loader takes
 * any "vga=" in the command line for the boot video mode.
 */
static bool stdvga_aperture;
module_param(stdvga_aperture, bool, 0444);
MODULE_PARM_DESC(stdvga_aperture,
		 "bind QEMU's std-VGA (1234:1111) as an aperture; default 0: left to bochs or pvmap_drm");
static bool qxl_aperture;
module_param(qxl_aperture, bool, 0444);
MODULE_PARM_DESC(qxl_aperture, "bind QEMU's qxl (1b36:0100) as an aperture; default 0: left to qxl");

/* A device of @kind for @pdev, with the inode of its user mappings and its number. */
static struct pvmap_device *pvmap_device_alloc(struct pci_dev *pdev, enum pvmap_kind kind)
{
	struct pvmap_device *pvdev;
	int ret;

	pvdev = kzalloc(sizeof(*pvdev), GFP_KERNEL);
	if (!pvdev)
		return ERR_PTR(-ENOMEM);
	init_rwsem(&pvdev->lock);
	init_rwsem(&pvdev->mmap_lock);
	kref_init(&pvdev->ref);
	pvdev->pdev = pdev;
	pvdev->kind = kind;

	pvdev->inode = alloc_anon_inode(pvmap_fs_mnt->mnt_sb);
	if (IS_ERR(pvdev->inode)) {
		ret = PTR_ERR(pvdev->inode);
		dev_err(&pdev->dev, "cannot make the address space of user mappings: %d\n", ret);
		goto err_free;
	}
	pvdev->id = ida_alloc(&pvmap_ida, GFP_KERNEL);
	if (pvdev->id < 0) {
		ret = pvdev->id;
		goto err_free_inode;
	}
	snprintf(pvdev->name, sizeof(pvdev->name), PVMAP_DRV_NAME "%d", pvdev->id);
	return pvdev;

err_free_inode:
	iput(pvdev->inode);
err_free:
	kfree(pvdev);
	return ERR_PTR(ret);
}

/*
 * The aperture BAR of @pvdev's device: its number, base and size in
 * @pvdev. Return: 0, or -ENODEV (said why) when it has none to bind.
 */
static int pvmap_find_aperture(struct pvmap_device *pvdev)
{
	struct pci_dev *pdev = pvdev->pdev;
	struct device *dev = &pdev->dev;

	pvdev->bar = pvmap_aperture_bar(pdev, pvdev->kind);
	if (pvdev->kind == PVMAP_KIND_IVSHMEM && pvmap_pv_owns(pdev)) {
		dev_info(dev, "the hypervisor channel, not an aperture\n");
		return -ENODEV;
	}
	if (pvdev->bar < 0 || !(pci_resource_flags(pdev, pvdev->bar) & IORESOURCE_MEM)) {
		dev_err(dev, "no memory aperture BAR\n");
		return -ENODEV;
	}
	/* a BAR the PCI core could not place: say so, and why it may be */
	if (!pci_resource_len(pdev, pvdev->bar) ||
	    pci_resource_flags(pdev, pvdev->bar) & (IORESOURCE_UNSET | IORESOURCE_DISABLED)) {
		dev_err(dev, "aperture BAR%d has no address the kernel can use (%pR): %s\n",
			pvdev->bar, &pdev->resource[pvdev->bar],
			IS_ENABLED(CONFIG_X86_32) && !IS_ENABLED(CONFIG_X86_PAE) ?
			"no room below 4 GiB, and without PAE nothing above" :
			"the PCI core found no room for it");
		return -ENODEV;
	}
	pvdev->base = pci_resource_start(pdev, pvdev->bar);
	pvdev->size = pci_resource_len(pdev, pvdev->bar);
	return 0;
}

/*
 * Enable the device and claim its aperture BAR. Managed by pcim: released
 * on unbind or on a later probe failure.
 */
static int pvmap_claim_aperture(struct pvmap_device *pvdev)
{
	struct pci_dev *pdev = pvdev->pdev;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret) {
		dev_err(&pdev->dev, "cannot enable device: %d\n", ret);
		return ret;
	}
	ret = pci_request_region(pdev, pvdev->bar, PVMAP_DRV_NAME);
	if (ret)
		dev_err(&pdev->dev, "cannot claim BAR%d: %d\n", pvdev->bar, ret);
	return ret;
}

/* The aperture's io_mapping, with the memory type the kernel granted it. */
static int pvmap_create_iomap(struct pvmap_device *pvdev)
{
	struct device *dev = &pvdev->pdev->dev;
	int ret;

	pvdev->iomap = pvmap_io_mapping_create_wc(pvdev->base, pvdev->size);
	if (IS_ERR(pvdev->iomap)) {
		ret = PTR_ERR(pvdev->iomap);
		dev_err(dev, "cannot set up the aperture's io_mapping: %d%s\n", ret,
			ret == -EOVERFLOW ? " (it ends at 4 GiB: too far for 32 bits)" : "");
		return ret;
	}
	pvdev->cache_bits = pgprot_val(pvmap_io_mapping_prot(pvdev->iomap)) & _PAGE_CACHE_MASK;
	if (!pvmap_io_mapping_is_wc(pvdev->iomap))
		dev_warn(dev, "not write-combining (%s): maps use the type the kernel granted\n",
			 pat_enabled() ? "already reserved with another memory type" : "no PAT");
	return 0;
}

static int pvmap_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	struct pvmap_device *pvdev;
	int ret;

	if ((id->driver_data == PVMAP_KIND_STDVGA && !stdvga_aperture) ||
	    (id->driver_data == PVMAP_KIND_QXL && !qxl_aperture))
		return -ENODEV;
	pvdev = pvmap_device_alloc(pdev, id->driver_data);
	if (IS_ERR(pvdev))
		return PTR_ERR(pvdev);
	ret = pvmap_find_aperture(pvdev);
	if (ret)
		goto err_free;
	ret = pvmap_claim_aperture(pvdev);
	if (ret)
		goto err_free;
	ret = pvmap_create_iomap(pvdev);
	if (ret)
		goto err_free;

	pvdev->misc.minor = MISC_DYNAMIC_MINOR;
	pvdev->misc.name = pvdev->name;
	pvdev->misc.fops = &pvmap_fops;
	pvdev->misc.parent = dev;
	pvdev->misc.mode = 0600;
	ret = misc_register(&pvdev->misc);
	if (ret) {
		dev_err(dev, "cannot register /dev/%s: %d\n", pvdev->name, ret);
		goto err_free_iomap;
	}

	pci_set_drvdata(pdev, pvdev);
	pvmap_debugfs_add(pvdev);
	dev_info(dev, "%s: %s aperture BAR%d, %llu MiB at %pa\n", pvdev->name,
		 pvmap_kind_name(pvdev->kind), pvdev->bar,
		 (unsigned long long)pvdev->size >> 20, &pvdev->base);
	return 0;

err_free_iomap:
	pvmap_io_mapping_free(pvdev->iomap);
err_free:
	ida_free(&pvmap_ida, pvdev->id);
	iput(pvdev->inode);
	kfree(pvdev);
	return ret;
}

static void pvmap_remove(struct pci_dev *pdev)
{
	struct pvmap_device *pvdev = pci_get_drvdata(pdev);

	debugfs_remove_recursive(pvdev->debugfs);
	/* No new opens after this; files already open keep a reference. */
	misc_deregister(&pvdev->misc);

	/* Waits for PWRITE/PREAD in flight; later calls see -ENODEV. */
	down_write(&pvdev->lock);
	/* Later mmaps get -ENODEV, later faults SIGBUS ... */
	down_write(&pvdev->mmap_lock);
	pvdev->pdev = NULL;
	up_write(&pvdev->mmap_lock);
	/* ... and every PTE of a user mapping goes before the BAR is released. */
	unmap_mapping_range(pvdev->inode->i_mapping, 0, 0, 1);
	pvmap_io_mapping_free(pvdev->iomap);
	pvdev->iomap = NULL;
	up_write(&pvdev->lock);

	dev_info(&pdev->dev, "%s: unbound\n", pvdev->name);
	pvmap_device_put(pvdev);
}

static const struct pci_device_id pvmap_pci_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_IVSHMEM, PCI_DEVICE_ID_IVSHMEM),
	  .driver_data = PVMAP_KIND_IVSHMEM },
	{ PCI_DEVICE(PCI_VENDOR_ID_BOCHS, PCI_DEVICE_ID_BOCHS),
	  .driver_data = PVMAP_KIND_STDVGA },
	{ PCI_DEVICE(PCI_VENDOR_ID_QXL, PCI_DEVICE_ID_QXL),
	  .driver_data = PVMAP_KIND_QXL },
	{ }
};

/*
 * What udev loads pvmap for: ivshmem only. A display device is bound by
 * hand (stdvga_aperture=1, qxl_aperture=1), never raced for at coldplug.
 */
static const struct pci_device_id pvmap_pci_alias_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_IVSHMEM, PCI_DEVICE_ID_IVSHMEM) },
	{ }
};
MODULE_DEVICE_TABLE(pci, pvmap_pci_alias_ids);

static struct pci_driver pvmap_pci_driver = {
	.name = PVMAP_DRV_NAME,
	.id_table = pvmap_pci_ids,
	.probe = pvmap_probe,
	.remove = pvmap_remove,
};

static int __init pvmap_init(void)
{
	int ret;

	/* Before any window: each is registered with the hypervisor as it is made. */
	ret = pvmap_pv_init();
	if (ret < 0)
		return ret;
	ret = pvmap_io_mapping_init();
	if (ret)
		goto err_pv;
	pvmap_fs_mnt = kern_mount(&pvmap_fs_type);
	if (IS_ERR(pvmap_fs_mnt)) {
		ret = PTR_ERR(pvmap_fs_mnt);
		goto err_io_mapping;
	}
	pvmap_debugfs_root = debugfs_create_dir(PVMAP_DRV_NAME, NULL);
	debugfs_create_file("stats", 0400, pvmap_debugfs_root, NULL,
			    &pvmap_debugfs_stats_fops);
	debugfs_create_file("live", 0400, pvmap_debugfs_root, NULL,
			    &pvmap_debugfs_live_fops);
	debugfs_create_file("windows", 0400, pvmap_debugfs_root, NULL,
			    &pvmap_debugfs_windows_fops);
	pvmap_pv_debugfs_add(pvmap_debugfs_root);
	ret = pci_register_driver(&pvmap_pci_driver);
	if (ret)
		goto err_debugfs;
	return 0;

err_debugfs:
	debugfs_remove_recursive(pvmap_debugfs_root);
	kern_unmount(pvmap_fs_mnt);
err_io_mapping:
	pvmap_io_mapping_exit();
err_pv:
	pvmap_pv_exit();
	return ret;
}
module_init(pvmap_init);

/* Open files and user mappings hold the module: every device's inode is gone. */
static void __exit pvmap_exit(void)
{
	pci_unregister_driver(&pvmap_pci_driver);
	debugfs_remove_recursive(pvmap_debugfs_root);
	kern_unmount(pvmap_fs_mnt);
	pvmap_io_mapping_exit();
	pvmap_pv_exit();
}
module_exit(pvmap_exit);

MODULE_DESCRIPTION("pvmap: fast, stale-free access to virtual-GPU apertures");
MODULE_LICENSE("GPL");
