// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap_selftest: in-kernel tests of pvmap's io_mapping API, used as another
 * guest driver would use it. The guest's test program drives it through
 * debugfs, one test per request, and prints the results as KTAP:
 *
 *   write "TEST BASE SIZE" to /sys/kernel/debug/pvmap_selftest/run,
 *   then read the same open file: "ok ...", "skip ..." or "fail ...".
 *
 * The tests write to the aperture at BASE (the ivshmem BAR), so they must
 * not be run on an aperture whose contents matter.
 */

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <pvmap/io_mapping.h>
#include <pvmap/pattern.h>

#define RESULT_LEN	256

struct selftest_ctx {
	struct pvmap_io_mapping *m;
	u64 size;
	bool slots;	/* maps go through slots with clear-on-unmap */
	u8 *buf;	/* a page, allocated before any atomic map */
	char *result;
};

#define result(ctx, fmt, ...) \
	snprintf((ctx)->result, RESULT_LEN, fmt, ##__VA_ARGS__)

/* A random page-aligned offset with room for @npages pages. */
static u64 random_page_offset(struct selftest_ctx *ctx, unsigned int npages)
{
	u32 pages = (ctx->size >> PAGE_SHIFT) - npages + 1;

	return (u64)(get_random_u32() % pages) << PAGE_SHIFT;
}

/* True when a read of @vaddr faults, as every released slot must. */
static bool faults(void __iomem *vaddr)
{
	u32 val;

	return get_kernel_nofault(val, (u32 __force *)vaddr) == -EFAULT;
}

/* Write the pattern for [@offset, +@len) of the aperture through @vaddr. */
static void write_pattern(struct selftest_ctx *ctx, void __iomem *vaddr, u64 offset,
			  size_t len, u64 seed)
{
	size_t done;

	for (done = 0; done < len; done += PAGE_SIZE) {
		pvmap_pattern_fill(ctx->buf, PAGE_SIZE, seed, offset + done);
		memcpy_toio(vaddr + done, ctx->buf, PAGE_SIZE);
	}
}

/* Check the pattern through fresh single-page maps, independent of the writer's. */
static int check_pages(struct selftest_ctx *ctx, u64 offset, size_t len, u64 seed)
{
	size_t done;

	for (done = 0; done < len; done += PAGE_SIZE) {
		void __iomem *p = pvmap_io_mapping_map_atomic_wc(ctx->m, offset + done);

		if (!p)
			return -ENOMEM;
		memcpy_fromio(ctx->buf, p, PAGE_SIZE);
		pvmap_io_mapping_unmap_atomic(p);
		if (pvmap_pattern_check(ctx->buf, PAGE_SIZE, seed, offset + done) != PAGE_SIZE)
			return -EIO;
	}
	return 0;
}

static int test_nested(struct selftest_ctx *ctx)
{
	u64 base = random_page_offset(ctx, PVMAP_MAX_DEPTH);
	void __iomem *vaddr[PVMAP_MAX_DEPTH];
	int depth, i, bad = 0;

	/* Distinct pages, mapped in a scrambled order of offsets. */
	for (depth = 0; depth < PVMAP_MAX_DEPTH; depth++) {
		u64 offset = base + (u64)((depth * 7) % PVMAP_MAX_DEPTH) * PAGE_SIZE;

		vaddr[depth] = pvmap_io_mapping_map_atomic_wc(ctx->m, offset);
		if (!vaddr[depth])
			break;
		writel(0x5a000000 | depth, vaddr[depth]);
	}
	/* All live at once: each slot still holds its own page's value. */
	for (i = 0; i < depth; i++)
		bad += readl(vaddr[i]) != (0x5a000000 | i);
	for (i = depth - 1; i >= 0; i--)
		pvmap_io_mapping_unmap_atomic(vaddr[i]);
	if (depth < PVMAP_MAX_DEPTH)
		return result(ctx, "fail: map %d of %d returned NULL", depth + 1,
			      PVMAP_MAX_DEPTH);
	if (bad)
		return result(ctx, "fail: %d of %d nested maps read back wrong", bad, depth);
	for (i = 0; ctx->slots && i < depth; i++)
		if (!faults(vaddr[i]))
			return result(ctx, "fail: nested map %d still reachable after unmap", i);
	return result(ctx, "ok %d nested maps", depth);
}

static int test_range(struct selftest_ctx *ctx, unsigned int npages)
{
	u64 offset = random_page_offset(ctx, npages), seed = get_random_u64();
	size_t len = (size_t)npages << PAGE_SHIFT;
	void __iomem *vaddr;
	unsigned int i;
	int ret;

	vaddr = pvmap_io_mapping_map_atomic_range_wc(ctx->m, offset, npages);
	if (!vaddr)
		return result(ctx, "fail: range map of %u pages returned NULL", npages);
	write_pattern(ctx, vaddr, offset, len, seed);
	pvmap_io_mapping_unmap_atomic_range(vaddr, npages);
	ret = check_pages(ctx, offset, len, seed);
	if (ret)
		return result(ctx, "fail: %u-page range at %#llx: %d", npages, offset, ret);
	for (i = 0; ctx->slots && i < npages; i++)
		if (!faults(vaddr + i * PAGE_SIZE))
			return result(ctx, "fail: page %u of the range reachable after unmap", i);
	return result(ctx, "ok %u pages at %#llx", npages, offset);
}

static int test_stale(struct selftest_ctx *ctx)
{
	void __iomem *vaddr;
	u32 val;

	if (!ctx->slots)
		return result(ctx, "skip whole-aperture mapping: no clear-on-unmap by design");
	vaddr = pvmap_io_mapping_map_atomic_wc(ctx->m, random_page_offset(ctx, 1));
	if (!vaddr)
		return result(ctx, "fail: map returned NULL");
	if (get_kernel_nofault(val, (u32 __force *)vaddr)) {
		pvmap_io_mapping_unmap_atomic(vaddr);
		return result(ctx, "fail: a live map faulted");
	}
	pvmap_io_mapping_unmap_atomic(vaddr);
	if (!faults(vaddr))
		return result(ctx, "fail: the slot is reachable after unmap");
	return result(ctx, "ok a live map reads, the released slot faults");
}

static int test_sleepable(struct selftest_ctx *ctx, size_t len)
{
	u64 offset = random_page_offset(ctx, len >> PAGE_SHIFT), seed = get_random_u64();
	void __iomem *vaddr;
	int ret;

	vaddr = pvmap_io_mapping_map_wc(ctx->m, offset, len);
	if (!vaddr)
		return result(ctx, "fail: map_wc of %zu bytes returned NULL", len);
	/* Sleeping while holding the map is what distinguishes it. */
	usleep_range(1000, 2000);
	write_pattern(ctx, vaddr, offset, len, seed);
	pvmap_io_mapping_unmap(vaddr);
	ret = check_pages(ctx, offset, len, seed);
	if (ret)
		return result(ctx, "fail: %zu bytes at %#llx: %d", len, offset, ret);
	if (ctx->slots && len <= PVMAP_POOL_WINDOW_SIZE && !faults(vaddr))
		return result(ctx, "fail: the pool window is reachable after unmap");
	return result(ctx, "ok %zu bytes at %#llx", len, offset);
}

/*
 * Each misuse must give one WARN, return NULL or change nothing, and leave
 * the engine working. Returns the number of WARNs it provoked in "warns=N".
 */
static int test_misuse(struct selftest_ctx *ctx)
{
	void __iomem *a, *b, *maps[PVMAP_MAX_DEPTH];
	u64 end = ctx->size;
	int warns = 0, bad = 0, i;

	pvmap_io_mapping_unmap_atomic((void __iomem *)PAGE_SIZE);	/* unbalanced */
	warns++;
	pvmap_io_mapping_unmap((void __iomem *)PAGE_SIZE);	/* never mapped */
	warns++;

	a = pvmap_io_mapping_map_atomic_wc(ctx->m, 0);
	b = pvmap_io_mapping_map_atomic_wc(ctx->m, PAGE_SIZE);
	if (a && b) {
		pvmap_io_mapping_unmap_atomic(a);	/* out of order: refused */
		warns++;
		writel(1, b);				/* b is still mapped */
		writel(2, a);				/* and so is a */
		pvmap_io_mapping_unmap_atomic_range(b, 2);	/* wrong npages */
		warns++;
		pvmap_io_mapping_unmap_atomic(b);
		pvmap_io_mapping_unmap_atomic(a);
	} else {
		bad++;
		if (b)
			pvmap_io_mapping_unmap_atomic(b);
		if (a)
			pvmap_io_mapping_unmap_atomic(a);
	}

	bad += !!pvmap_io_mapping_map_atomic_wc(ctx->m, end);
	warns++;
	bad += !!pvmap_io_mapping_map_atomic_range_wc(ctx->m, end - PAGE_SIZE, 2);
	warns++;
	bad += !!pvmap_io_mapping_map_atomic_range_wc(ctx->m, 0, 0);
	warns++;
	bad += !!pvmap_io_mapping_map_atomic_range_wc(ctx->m, 0, PVMAP_SLOTS_PER_CPU + 1);
	warns++;
	bad += !!pvmap_io_mapping_map_atomic_wc(ctx->m, U64_MAX);
	warns++;
	bad += !!pvmap_io_mapping_map_wc(ctx->m, end - PAGE_SIZE, 2 * PAGE_SIZE);
	warns++;

	/* One past the documented depth. */
	for (i = 0; i < PVMAP_MAX_DEPTH; i++)
		maps[i] = pvmap_io_mapping_map_atomic_wc(ctx->m, (u64)i << PAGE_SHIFT);
	bad += !!pvmap_io_mapping_map_atomic_wc(ctx->m, 0);
	warns++;
	for (i = PVMAP_MAX_DEPTH - 1; i >= 0; i--)
		if (maps[i])
			pvmap_io_mapping_unmap_atomic(maps[i]);
		else
			bad++;

	/* More pages than the free slots. */
	if (ctx->slots) {
		a = pvmap_io_mapping_map_atomic_range_wc(ctx->m, 0, PVMAP_SLOTS_PER_CPU);
		bad += !a;
		bad += !!pvmap_io_mapping_map_atomic_wc(ctx->m, 0);
		warns++;
		if (a)
			pvmap_io_mapping_unmap_atomic_range(a, PVMAP_SLOTS_PER_CPU);
	}

	/* Still works, and nothing is left mapped. */
	a = pvmap_io_mapping_map_atomic_wc(ctx->m, 0);
	if (a) {
		writel(3, a);
		bad += readl(a) != 3;
		pvmap_io_mapping_unmap_atomic(a);
		bad += ctx->slots && !faults(a);
	} else {
		bad++;
	}
	if (bad)
		return result(ctx, "fail: %d misuse cases misbehaved warns=%d", bad, warns);
	return result(ctx, "ok warns=%d", warns);
}

/*
 * The hazard demonstration, in two steps with the host acting in between:
 * map page A, write, unmap, and remember the pointer; later, write through
 * that pointer again. With clear-on-unmap the second write faults; with
 * pvmap's hazard_demo=1 it lands in whatever page A has become.
 */
static void __iomem *hazard_vaddr;

static int test_hazard_map(struct selftest_ctx *ctx)
{
	static const char data[] = "guest data in page A";
	u64 offset = random_page_offset(ctx, 1);
	void __iomem *vaddr;

	vaddr = pvmap_io_mapping_map_atomic_wc(ctx->m, offset);
	if (!vaddr)
		return result(ctx, "fail: map returned NULL");
	memcpy_toio(vaddr, data, sizeof(data));
	pvmap_io_mapping_unmap_atomic(vaddr);
	hazard_vaddr = vaddr;
	/* The address is what the host auditor will find, if anything. */
	return result(ctx, "ok va=%lx off=%llx", (unsigned long)vaddr, offset);
}

/* copy_to_kernel_nofault() is not exported in 6.1: store by hand, 8 bytes at a time. */
static int test_hazard_write(struct selftest_ctx *ctx)
{
	static const char msg[] = "STALE WRITE through a pointer the guest had unmapped!!!!!";
	u64 *dst = (u64 __force *)hazard_vaddr;
	unsigned int i;

	if (!hazard_vaddr)
		return result(ctx, "fail: no hazard_map before");
	pagefault_disable();
	for (i = 0; i < (sizeof(msg) - 1) / sizeof(u64); i++) {
		u64 word;

		memcpy(&word, msg + i * sizeof(u64), sizeof(word));
		__put_kernel_nofault(dst + i, &word, u64, faulted);
	}
	pagefault_enable();
	return result(ctx, "ok landed");
faulted:
	pagefault_enable();
	return result(ctx, "ok faulted");
}

static int selftest_run(struct selftest_ctx *ctx, const char *name)
{
	if (!strcmp(name, "hazard_map"))
		return test_hazard_map(ctx);
	if (!strcmp(name, "hazard_write"))
		return test_hazard_write(ctx);
	if (!strcmp(name, "nested"))
		return test_nested(ctx);
	if (!strcmp(name, "range1"))
		return test_range(ctx, 1);
	if (!strcmp(name, "range2"))
		return test_range(ctx, 2);
	if (!strcmp(name, "range16"))
		return test_range(ctx, 16);
	if (!strcmp(name, "rangemax"))
		return test_range(ctx, PVMAP_SLOTS_PER_CPU);
	if (!strcmp(name, "stale"))
		return test_stale(ctx);
	if (!strcmp(name, "sleepable4k"))
		return test_sleepable(ctx, PAGE_SIZE);
	if (!strcmp(name, "sleepable64k"))
		return test_sleepable(ctx, PVMAP_POOL_WINDOW_SIZE);
	if (!strcmp(name, "sleepable1m"))
		return test_sleepable(ctx, SZ_1M);
	if (!strcmp(name, "misuse"))
		return test_misuse(ctx);
	return result(ctx, "fail: no test named '%s'", name);
}

static ssize_t selftest_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	struct selftest_ctx ctx = { .result = file->private_data };
	unsigned long long base, size;
	char cmd[96], name[32];

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = '\0';
	if (sscanf(cmd, "%31s %llx %llx", name, &base, &size) != 3)
		return -EINVAL;

	ctx.buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!ctx.buf)
		return -ENOMEM;
	ctx.m = pvmap_io_mapping_create_wc(base, size);
	if (IS_ERR(ctx.m)) {
		result(&ctx, "fail: create_wc: %ld", PTR_ERR(ctx.m));
	} else {
		ctx.size = size;
		ctx.slots = pvmap_io_mapping_clears_on_unmap(ctx.m);
		selftest_run(&ctx, name);
		pvmap_io_mapping_free(ctx.m);
	}
	kfree(ctx.buf);
	return len;
}

static ssize_t selftest_read(struct file *file, char __user *ubuf, size_t len,
			     loff_t *ppos)
{
	const char *res = file->private_data;

	return simple_read_from_buffer(ubuf, len, ppos, res, strnlen(res, RESULT_LEN));
}

static int selftest_open(struct inode *inode, struct file *file)
{
	file->private_data = kzalloc(RESULT_LEN, GFP_KERNEL);
	return file->private_data ? 0 : -ENOMEM;
}

static int selftest_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static const struct file_operations selftest_fops = {
	.owner = THIS_MODULE,
	.open = selftest_open,
	.release = selftest_release,
	.read = selftest_read,
	.write = selftest_write,
	.llseek = default_llseek,
};

static struct dentry *selftest_dir;

static int __init selftest_init(void)
{
	selftest_dir = debugfs_create_dir("pvmap_selftest", NULL);
	debugfs_create_file("run", 0600, selftest_dir, NULL, &selftest_fops);
	return 0;
}
module_init(selftest_init);

static void __exit selftest_exit(void)
{
	debugfs_remove_recursive(selftest_dir);
}
module_exit(selftest_exit);

MODULE_DESCRIPTION("pvmap: in-kernel tests of the io_mapping API");
MODULE_LICENSE("GPL");
