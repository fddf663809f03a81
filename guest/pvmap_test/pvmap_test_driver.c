// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap_test: the test driver of pvmap's io_mapping API, on the model of
 * mm/gup_test.c: typed ioctls (include/uapi/pvmap_test.h) on debugfs
 * pvmap_test, one request each, for the guest's test programs. It runs the
 * API's own cases (pvmap_api_cases.c) on kernels without KUnit, and the
 * fixtures a test coordinates with the host: maps held across requests,
 * memory types, probes from each CPU, interrupt load, the hazard
 * demonstration, virtio-gpu's blobs, the hypervisor channel's refusals
 * and, in a Xen PV domain, the fidelity test's vectors as real hypercalls.
 *
 * The requests write to the aperture they name, so they must not be made
 * on an aperture whose contents matter; the driver maps only a memory BAR
 * of a device bound to pvmap or to no driver, or virtio-gpu's host-visible
 * window (pvmap_test_ctx_init()).
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include <asm/memtype.h>

#include "pvmap_test.h"

static bool shared;
module_param(shared, bool, 0444);
MODULE_PARM_DESC(shared,
		 "other tasks map at the same time (soak): a released slot or pool window may be someone else's again, so do not assert that it faults");

/*
 * The hazard demonstration (pvmap_test_hooks.c): with hazard_demo=1 its
 * map is made the way io_mapping was before clear-on-unmap.
 */
bool pvmap_test_hazard_demo;
module_param_named(hazard_demo, pvmap_test_hazard_demo, bool, 0400);
MODULE_PARM_DESC(hazard_demo,
		 "DANGEROUS, for demonstrations only: hazard_map's unmap leaves the PTE and TLB entry in place, as io_mapping did before clear-on-unmap");

/*
 * What pvmap_kunit.ko runs on: its suite runs as it loads, before 6.1
 * parses its own parameters, so the guest sets these first.
 */
static unsigned long long kunit_base, kunit_size;
module_param(kunit_base, ullong, 0600);
MODULE_PARM_DESC(kunit_base, "the aperture pvmap_kunit.ko's cases run on");
module_param(kunit_size, ullong, 0600);
MODULE_PARM_DESC(kunit_size, "its size");
static char kunit_only[PVMAP_TEST_NAME_LEN];
module_param_string(kunit_only, kunit_only, sizeof(kunit_only), 0600);
MODULE_PARM_DESC(kunit_only, "the one case pvmap_kunit.ko runs (default: every case)");

void pvmap_test_kunit_target(struct pvmap_test_head *h, char *only, size_t len)
{
	kernel_param_lock(THIS_MODULE);
	h->base = kunit_base;
	h->size = kunit_size;
	strscpy(only, kunit_only, len);
	kernel_param_unlock(THIS_MODULE);
	strim(only);
}
EXPORT_SYMBOL_NS_GPL(pvmap_test_kunit_target, PVMAP_TEST);

int pvmap_test_report(struct pvmap_test_ctx *ctx, enum pvmap_test_status status,
		      const char *fmt, ...)
{
	va_list args;

	ctx->h->status = status;
	va_start(args, fmt);
	vsnprintf(ctx->h->msg, sizeof(ctx->h->msg), fmt, args);
	va_end(args);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(pvmap_test_report, PVMAP_TEST);

static bool range_within(u64 base, u64 size, u64 start, u64 len)
{
	return len && base >= start && size <= len && base - start <= len - size;
}

/*
 * Whether [@base, +@size) lies in a memory BAR of a device pvmap has bound,
 * or of one no driver has (memtype_conflict unbinds the aperture first),
 * or, with @window_ok, in virtio-gpu's host-visible window, which holds
 * only the blobs the host maps there (its driver never maps the window in
 * the kernel; the requests that take it are made on the caller's own
 * blobs). A BAR counts only where it was assigned: a request maps what it
 * is given write-combining and writes there, and root's debugfs is no
 * reason to reach RAM or another driver's registers.
 */
static bool pvmap_test_range_is_aperture(u64 base, u64 size, bool window_ok)
{
	struct pci_dev *pdev = NULL;
	u64 start, len;
	int bar;

	if (!size || base + size < base)
		return false;
	for_each_pci_dev(pdev) {
		/* read without the device lock: good enough for a test module */
		const struct device_driver *drv = READ_ONCE(pdev->dev.driver);

		if (window_ok && pvmap_test_vgpu_window(pdev, &start, &len) &&
		    range_within(base, size, start, len)) {
			pci_dev_put(pdev);
			return true;
		}
		if (drv && strcmp(drv->name, "pvmap"))
			continue;
		for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
			if (pvmap_test_bar_assigned(pdev, bar) &&
			    range_within(base, size, pci_resource_start(pdev, bar),
					 pci_resource_len(pdev, bar))) {
				pci_dev_put(pdev);
				return true;
			}
		}
	}
	return false;
}

static int ctx_init(struct pvmap_test_ctx *ctx, struct pvmap_test_head *h, bool map,
		    bool window_ok)
{
	*ctx = (struct pvmap_test_ctx){ .base = h->base, .size = h->size, .h = h };
	h->status = PVMAP_TEST_PASS;
	memset(h->msg, 0, sizeof(h->msg));
	if (!pvmap_test_range_is_aperture(h->base, h->size, window_ok))
		return -EPERM;
	/*
	 * What maps picks random pages of the range, up to a MiB at a time:
	 * a smaller or unaligned one would divide by zero or run off its end.
	 */
	if (map && (h->size < PVMAP_TEST_MIN_SIZE || !PAGE_ALIGNED(h->base) ||
		    !PAGE_ALIGNED(h->size)))
		return -EINVAL;
	ctx->buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!ctx->buf)
		return -ENOMEM;
	if (!map)
		return 0;
	ctx->m = pvmap_io_mapping_create_wc(h->base, h->size);
	if (IS_ERR(ctx->m)) {
		test_fail(ctx, "create_wc: %ld", PTR_ERR(ctx->m));
		ctx->m = NULL;
		return 0;
	}
	ctx->slots = pvmap_io_mapping_clears_on_unmap(ctx->m) && !shared;
	return 0;
}

/* The context of a request on an aperture pvmap has bound or no driver has. */
int pvmap_test_ctx_init(struct pvmap_test_ctx *ctx, struct pvmap_test_head *h, bool map)
{
	return ctx_init(ctx, h, map, false);
}
EXPORT_SYMBOL_NS_GPL(pvmap_test_ctx_init, PVMAP_TEST);

void pvmap_test_ctx_fini(struct pvmap_test_ctx *ctx)
{
	if (ctx->m)
		pvmap_io_mapping_free(ctx->m);
	kfree(ctx->buf);
}
EXPORT_SYMBOL_NS_GPL(pvmap_test_ctx_fini, PVMAP_TEST);

/*
 * PVMAP_TEST_STALE_MSG's whole words at @dst, stopping at a fault: true
 * when they all landed. copy_to_kernel_nofault() is not exported in 6.1.
 */
bool pvmap_test_store_stale(void __iomem *dst)
{
	u64 *p = (u64 __force *)dst;
	unsigned int i;

	pagefault_disable();
	for (i = 0; i < PVMAP_TEST_STALE_LEN / sizeof(u64); i++) {
		u64 word;

		memcpy(&word, PVMAP_TEST_STALE_MSG + i * sizeof(u64), sizeof(word));
		__put_kernel_nofault(p + i, &word, u64, faulted);
	}
	pagefault_enable();
	return true;
faulted:
	pagefault_enable();
	return false;
}
EXPORT_SYMBOL_NS_GPL(pvmap_test_store_stale, PVMAP_TEST);

/* The API's case the request names, on kernels without KUnit (pvmap_kunit.ko there). */
static int pvmap_test_api(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_api *req = arg;
	const struct pvmap_api_case *c;

	if (!memchr(req->name, '\0', sizeof(req->name)))
		return -EINVAL;
	c = pvmap_api_case_find(req->name);
	if (!c)
		return -ENOENT;
	c->run(ctx, c->arg);
	req->warns = ctx->warns;
	return 0;
}

/* What this kernel has of the facilities the suite relies on. */
static int pvmap_test_facilities(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_facilities *req = arg;
	static const struct {
		bool on;
		u32 flag;
	} have[] = {
		{ IS_ENABLED(CONFIG_DEBUG_KMEMLEAK), PVMAP_TEST_F_KMEMLEAK },
		{ IS_ENABLED(CONFIG_LOCKDEP), PVMAP_TEST_F_LOCKDEP },
		{ IS_ENABLED(CONFIG_DEBUG_KMAP_LOCAL), PVMAP_TEST_F_DEBUG_KMAP_LOCAL },
		{ IS_ENABLED(CONFIG_DEBUG_ATOMIC_SLEEP), PVMAP_TEST_F_DEBUG_ATOMIC_SLEEP },
		{ IS_ENABLED(CONFIG_HIGHMEM), PVMAP_TEST_F_HIGHMEM },
		{ IS_ENABLED(CONFIG_KUNIT), PVMAP_TEST_F_KUNIT },
		{ IS_ENABLED(CONFIG_PVMAP_TEST_HOOKS), PVMAP_TEST_F_PTE_LAYER },
	};
	unsigned int i;

	req->flags = 0;
	for (i = 0; i < ARRAY_SIZE(have); i++)
		req->flags |= have[i].on ? have[i].flag : 0;
	req->flags |= debug_pagealloc_enabled() ? PVMAP_TEST_F_DEBUG_PAGEALLOC : 0;
	req->flags |= boot_cpu_has(X86_FEATURE_PTI) ? PVMAP_TEST_F_PTI : 0;
	req->flags |= pat_enabled() ? PVMAP_TEST_F_PAT : 0;
	/* Page-table levels in use: 2 or 3 (PAE) on i386, 4 or 5 (LA57) on x86_64. */
	req->paging = IS_ENABLED(CONFIG_X86_64) ? (pgtable_l5_enabled() ? 5 : 4) :
		      CONFIG_PGTABLE_LEVELS;
	return 0;
}

/* Requests that map nothing of the range they name take any. */
#define ANY_RANGE	BIT(0)
/* Requests that make their own io_mapping, or need none. */
#define NO_MAPPING	BIT(1)
/*
 * Requests on state kept between requests (the hazard engine's address
 * and window, the held PV map): one at a time, so that two openers neither
 * leak a map nor unmap one twice. Not the memtype hold, which waits for
 * its release.
 */
#define HELD_STATE	BIT(2)
static DEFINE_MUTEX(held_state_lock);
/* Requests made on a blob of the caller's own, in virtio-gpu's window. */
#define WINDOW_OK	BIT(3)

static const struct pvmap_test_ioctl {
	unsigned int cmd;
	int (*run)(struct pvmap_test_ctx *ctx, void *arg);
	unsigned int flags;
} pvmap_test_ioctls[] = {
	{ PVMAP_TEST_API, pvmap_test_api },
	{ PVMAP_TEST_MEMTYPE_HOLD, pvmap_test_memtype_hold },
	{ PVMAP_TEST_MEMTYPE_QUERY, pvmap_test_memtype_query, NO_MAPPING },
	{ PVMAP_TEST_MEMTYPE_RELEASE, pvmap_test_memtype_release, NO_MAPPING },
	{ PVMAP_TEST_MEMTYPE_CONFLICT, pvmap_test_memtype_conflict, NO_MAPPING },
	{ PVMAP_TEST_UC_HOLD, pvmap_test_uc_hold, NO_MAPPING },
	{ PVMAP_TEST_UC_RELEASE, pvmap_test_uc_release, NO_MAPPING | ANY_RANGE },
	{ PVMAP_TEST_POOL_HOLD, pvmap_test_pool_hold, NO_MAPPING },
	{ PVMAP_TEST_POOL_RELEASE, pvmap_test_pool_release, NO_MAPPING | ANY_RANGE },
	{ PVMAP_TEST_PROBE, pvmap_test_probe, NO_MAPPING | ANY_RANGE },
	{ PVMAP_TEST_FACILITIES, pvmap_test_facilities, NO_MAPPING | WINDOW_OK },
	{ PVMAP_TEST_HAZARD_MAP, pvmap_test_hazard_map, HELD_STATE | WINDOW_OK },
	{ PVMAP_TEST_HAZARD_WRITE, pvmap_test_hazard_write, NO_MAPPING | HELD_STATE },
	{ PVMAP_TEST_MAINLINE, pvmap_test_mainline, NO_MAPPING },
	{ PVMAP_TEST_IRQ_LOAD, pvmap_test_irq_load },
	{ PVMAP_TEST_LOCAL, pvmap_test_local },
	{ PVMAP_TEST_PV_REFUSALS, pvmap_test_pv_refusals },
	{ PVMAP_TEST_PV_PING, pvmap_test_pv_ping, NO_MAPPING },
	{ PVMAP_TEST_PV_HOLD, pvmap_test_pv_hold, HELD_STATE },
	{ PVMAP_TEST_PV_RELEASE, pvmap_test_pv_release, NO_MAPPING | HELD_STATE },
	{ PVMAP_TEST_XEN_VECTOR, pvmap_test_xen_vector, NO_MAPPING },
	{ PVMAP_TEST_PATTERN, pvmap_test_pattern, WINDOW_OK },
	{ PVMAP_TEST_VGPU_WINDOW, pvmap_test_vgpu_window_request, NO_MAPPING | ANY_RANGE },
	{ PVMAP_TEST_BLOB_HAZARD, pvmap_test_blob_hazard, NO_MAPPING | HELD_STATE | WINDOW_OK },
	{ PVMAP_TEST_BLOB_STEP, pvmap_test_blob_step, NO_MAPPING | ANY_RANGE },
};

/* Run @op on the request at @uarg: its struct in, its results out. */
static long pvmap_test_run(const struct pvmap_test_ioctl *op, void __user *uarg)
{
	size_t size = _IOC_SIZE(op->cmd);
	struct pvmap_test_head *h;
	struct pvmap_test_ctx ctx;
	long ret;

	h = memdup_user(uarg, size);
	if (IS_ERR(h))
		return PTR_ERR(h);
	if (op->flags & ANY_RANGE) {
		ctx = (struct pvmap_test_ctx){ .h = h };
		h->status = PVMAP_TEST_PASS;
		memset(h->msg, 0, sizeof(h->msg));
		ret = op->run(&ctx, h);
		goto out;
	}
	ret = ctx_init(&ctx, h, !(op->flags & NO_MAPPING), op->flags & WINDOW_OK);
	if (ret)
		goto out;
	/* a mapping that could not be made is the request's verdict */
	if ((op->flags & NO_MAPPING) || ctx.m) {
		bool held = op->flags & HELD_STATE;

		/* BLOB_HAZARD holds it for as long as its wait: a killed waiter goes */
		ret = held ? mutex_lock_killable(&held_state_lock) : 0;
		if (!ret) {
			ret = op->run(&ctx, h);
			if (held)
				mutex_unlock(&held_state_lock);
		}
	}
	pvmap_test_ctx_fini(&ctx);
out:
	if (!ret && copy_to_user(uarg, h, size))
		ret = -EFAULT;
	kfree(h);
	return ret;
}

static long pvmap_test_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pvmap_test_ioctls); i++)
		if (pvmap_test_ioctls[i].cmd == cmd)
			return pvmap_test_run(&pvmap_test_ioctls[i], (void __user *)arg);
	return -ENOTTY;
}

static const struct file_operations pvmap_test_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.unlocked_ioctl = pvmap_test_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct dentry *pvmap_test_file;

static int __init pvmap_test_init(void)
{
	if (pvmap_test_hazard_demo && !pvmap_test_has_pte_layer()) {
		pr_err("pvmap_test: hazard_demo needs pvmap built with CONFIG_PVMAP_TEST_HOOKS\n");
		return -EOPNOTSUPP;
	}
	if (pvmap_test_hazard_demo)
		pr_warn("pvmap_test: HAZARD DEMO MODE: hazard_map leaves stale mappings behind\n");
	pvmap_test_file = debugfs_create_file("pvmap_test", 0600, NULL, NULL, &pvmap_test_fops);
	return 0;
}
module_init(pvmap_test_init);

static void __exit pvmap_test_exit(void)
{
	debugfs_remove(pvmap_test_file);
	pvmap_test_memtype_exit();
	pvmap_test_hooks_exit();
}
module_exit(pvmap_test_exit);

MODULE_DESCRIPTION("pvmap: the test driver of the io_mapping API");
#if IS_ENABLED(CONFIG_PVMAP_TEST_HOOKS)
MODULE_IMPORT_NS(PVMAP_TEST_HOOKS);
#endif
MODULE_LICENSE("GPL");
