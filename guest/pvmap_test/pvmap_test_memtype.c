// SPDX-License-Identifier: GPL-2.0
/*
 * pvmap_test's fixtures held across requests: the memory type pvmap's PTEs
 * grant (read back from the page tables), a UC- register page held over
 * the aperture, and a sleepable map held while other processes and CPUs
 * probe it.
 */

#include <linux/completion.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>

#include <asm/memtype.h>

#include "pvmap_test.h"

/*
 * The cache mode that @prot's PWT/PCD/PAT bits select under the kernel's
 * PAT table. Without PAT the kernel gives WC requests UC-'s bits, so UC-
 * is tried first: the answer is what the hardware does, not what was
 * asked. (pgprot2cachemode() is not exported; cachemode2protval() is inline.)
 */
enum pvmap_memtype pvmap_test_memtype_name(pgprot_t prot)
{
	static const struct {
		enum page_cache_mode pcm;
		enum pvmap_memtype type;
	} modes[] = {
		{ _PAGE_CACHE_MODE_UC_MINUS, PVMAP_MEMTYPE_UC_MINUS },
		{ _PAGE_CACHE_MODE_UC, PVMAP_MEMTYPE_UC },
		{ _PAGE_CACHE_MODE_WB, PVMAP_MEMTYPE_WB },
		{ _PAGE_CACHE_MODE_WT, PVMAP_MEMTYPE_WT },
		{ _PAGE_CACHE_MODE_WC, PVMAP_MEMTYPE_WC },
		{ _PAGE_CACHE_MODE_WP, PVMAP_MEMTYPE_WP },
	};
	unsigned long bits = pgprot_val(prot) & _PAGE_CACHE_MASK;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(modes); i++)
		if (cachemode2protval(modes[i].pcm) == bits)
			return modes[i].type;
	return PVMAP_MEMTYPE_OTHER;
}

enum pvmap_memtype pvmap_test_memtype_of(void __iomem *vaddr, bool *large)
{
	unsigned int level;
	pte_t *ptep = lookup_address((unsigned long)vaddr, &level);
	pgprot_t prot;

	*large = false;
	if (!ptep || !pte_present(*ptep))
		return PVMAP_MEMTYPE_NONE;
	prot = __pgprot(pte_flags(*ptep));
	*large = level != PG_LEVEL_4K;
	if (*large)
		prot = pgprot_large_2_4k(prot);
	return pvmap_test_memtype_name(prot);
}

static DECLARE_COMPLETION(memtype_released);
static DEFINE_MUTEX(memtype_lock);	/* protects memtype_held and memtype_holding */
static struct pvmap_test_memtype memtype_held;	/* va 0: none held */
static bool memtype_holding;	/* a hold in progress: a second would take its release */

/* The atomic slot's and the held map's memtypes; the held map in *@held. */
static int memtype_map(struct pvmap_test_ctx *ctx, struct pvmap_test_memtype *req, u64 offset,
		       void __iomem **held)
{
	void __iomem *vaddr;
	bool large;

	vaddr = pvmap_io_mapping_map_atomic_wc(ctx->m, offset);
	if (!vaddr)
		return test_fail(ctx, "atomic map returned NULL");
	req->slot = pvmap_test_memtype_of(vaddr, &large);
	pvmap_io_mapping_unmap_atomic(vaddr);

	vaddr = pvmap_io_mapping_map_wc(ctx->m, offset, PAGE_SIZE);
	if (!vaddr)
		return test_fail(ctx, "map_wc returned NULL");
	req->held = pvmap_test_memtype_of(vaddr, &large);
	req->large = large;
	req->va = (unsigned long)vaddr;
	req->pa = ctx->base + offset;
	req->pat = pat_enabled();
	*held = vaddr;
	return 0;
}

/*
 * An atomic slot's memtype, then a sleepable map held until
 * MEMTYPE_RELEASE (so the host can audit it meanwhile). One at a time.
 */
int pvmap_test_memtype_hold(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_memtype *req = arg;
	void __iomem *vaddr = NULL;
	bool busy;

	mutex_lock(&memtype_lock);
	busy = memtype_holding;
	memtype_holding = true;
	mutex_unlock(&memtype_lock);
	if (busy)
		return test_fail(ctx, "a memtype hold is in progress already");
	memtype_map(ctx, req, pvmap_test_random_offset(ctx, 1), &vaddr);
	if (vaddr) {
		mutex_lock(&memtype_lock);
		memtype_held = *req;
		reinit_completion(&memtype_released);
		mutex_unlock(&memtype_lock);

		if (!wait_for_completion_timeout(&memtype_released, 120 * HZ))
			pr_warn("pvmap_test: memtype_hold: no release in 120 s\n");
		pvmap_io_mapping_unmap(vaddr);
	}
	mutex_lock(&memtype_lock);
	memtype_held.va = 0;
	memtype_holding = false;
	mutex_unlock(&memtype_lock);
	if (!vaddr)
		return 0;	/* memtype_map() said why */
	if (req->slot != PVMAP_MEMTYPE_WC || req->held != PVMAP_MEMTYPE_WC)
		return test_fail(ctx, "slot memtype %u, held %u: not write-combining",
				 req->slot, req->held);
	return test_pass(ctx, "slot and held map write-combining");
}

int pvmap_test_memtype_query(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_memtype *req = arg;

	mutex_lock(&memtype_lock);
	req->va = memtype_held.va;
	req->pa = memtype_held.pa;
	req->held = memtype_held.held;
	req->large = memtype_held.large;
	mutex_unlock(&memtype_lock);
	return 0;
}

int pvmap_test_memtype_release(struct pvmap_test_ctx *ctx, void *arg)
{
	complete(&memtype_released);
	return 0;
}

/* Each of the conflict's maps, and its memtype (NONE when refused). */
static enum pvmap_memtype conflict_map(struct pvmap_io_mapping *m, u64 offset, size_t len)
{
	enum pvmap_memtype type = PVMAP_MEMTYPE_NONE;
	void __iomem *vaddr;
	bool big;

	vaddr = len ? pvmap_io_mapping_map_wc(m, offset, len) :
		      pvmap_io_mapping_map_atomic_wc(m, offset);
	if (!vaddr)
		return type;
	type = pvmap_test_memtype_of(vaddr, &big);
	if (len)
		pvmap_io_mapping_unmap(vaddr);
	else
		pvmap_io_mapping_unmap_atomic(vaddr);
	return type;
}

/*
 * pvmap_io_mapping_create_wc() over an aperture part of which another
 * driver already holds uncached (a UC- ioremap() of a register page):
 * the kernel grants the whole range UC-, and every PTE pvmap writes must
 * carry UC-, never WC over it; or create_wc fails with an error. Run with
 * pvmap unbound from the aperture: its own WC reservation would be found
 * first. The io_mapping here is the request's own.
 */
int pvmap_test_memtype_conflict(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_conflict *req = arg;
	struct pvmap_io_mapping *m;
	enum pvmap_memtype reg;
	void __iomem *regs;
	bool big;

	if (!pat_enabled())
		return test_skip(ctx, "no PAT: every WC request is UC- anyway");
	if (!IS_ENABLED(CONFIG_64BIT) && upper_32_bits(ctx->base + ctx->size - 1))
		/* 6.1's ioremap() truncates such an address on i386 */
		return test_skip(ctx, "no UC- ioremap() above 4 GiB on i386");
	regs = ioremap(ctx->base + ctx->size / 2, PAGE_SIZE);
	if (!regs)
		return test_fail(ctx, "ioremap of the register page");
	reg = pvmap_test_memtype_of(regs, &big);
	if (reg != PVMAP_MEMTYPE_UC_MINUS) {
		iounmap(regs);
		return test_fail(ctx, "the register page got memtype %u, not uc- (pvmap bound?)",
				 reg);
	}
	m = pvmap_io_mapping_create_wc(ctx->base, ctx->size);
	if (IS_ERR(m)) {
		iounmap(regs);
		req->refused = PTR_ERR(m);
		return test_pass(ctx, "create_wc refused: %ld", PTR_ERR(m));
	}
	req->granted = pvmap_test_memtype_name(pvmap_io_mapping_prot(m));
	req->slot = conflict_map(m, 0, 0);
	req->pool = conflict_map(m, PAGE_SIZE, PAGE_SIZE);
	req->large = conflict_map(m, 0, SZ_1M);
	req->is_wc = pvmap_io_mapping_is_wc(m);
	pvmap_io_mapping_free(m);
	iounmap(regs);
	if (req->granted != PVMAP_MEMTYPE_UC_MINUS || req->slot != PVMAP_MEMTYPE_UC_MINUS ||
	    req->pool != PVMAP_MEMTYPE_UC_MINUS || req->large != PVMAP_MEMTYPE_UC_MINUS ||
	    req->is_wc)
		return test_fail(ctx, "a map over the UC- page is not UC-");
	return test_pass(ctx, "every map UC-");
}

/*
 * The same UC- register page, held across requests, so that pvmap can be
 * bound over it (memtype_conflict's second half).
 */
static DEFINE_MUTEX(uc_held_lock);	/* protects uc_held */
static void __iomem *uc_held;

int pvmap_test_uc_hold(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_uc *req = arg;
	bool big;

	mutex_lock(&uc_held_lock);
	if (!uc_held)
		uc_held = ioremap(ctx->base + ctx->size / 2, PAGE_SIZE);
	req->memtype = uc_held ? pvmap_test_memtype_of(uc_held, &big) : PVMAP_MEMTYPE_NONE;
	mutex_unlock(&uc_held_lock);
	if (req->memtype != PVMAP_MEMTYPE_UC_MINUS)
		return test_fail(ctx, "the register page's memtype is %u, not uc-", req->memtype);
	return test_pass(ctx, "uc-");
}

static void uc_release(void)
{
	mutex_lock(&uc_held_lock);
	if (uc_held)
		iounmap(uc_held);
	uc_held = NULL;
	mutex_unlock(&uc_held_lock);
}

int pvmap_test_uc_release(struct pvmap_test_ctx *ctx, void *arg)
{
	uc_release();
	return 0;
}

/*
 * One sleepable map held across requests, for sleepable_reuse_no_stale:
 * the test maps and reads it from one process, probes it from others and
 * from each CPU, and releases it from yet another. Its io_mapping is its own.
 */
static DEFINE_MUTEX(pool_held_lock);	/* protects pool_held */
static struct {
	struct pvmap_io_mapping *m;
	void __iomem *va;
} pool_held;

int pvmap_test_pool_hold(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_pool *req = arg;
	int ret = 0;

	if (req->offset >= ctx->size)
		return -EINVAL;
	mutex_lock(&pool_held_lock);
	if (pool_held.va) {
		ret = test_fail(ctx, "a map is held already");
		goto out;
	}
	pool_held.m = pvmap_io_mapping_create_wc(ctx->base, ctx->size);
	if (IS_ERR(pool_held.m)) {
		ret = test_fail(ctx, "create_wc: %ld", PTR_ERR(pool_held.m));
		pool_held.m = NULL;
		goto out;
	}
	pool_held.va = pvmap_io_mapping_map_wc(pool_held.m, req->offset, PAGE_SIZE);
	if (!pool_held.va) {
		pvmap_io_mapping_free(pool_held.m);
		pool_held.m = NULL;
		ret = test_fail(ctx, "map_wc returned NULL");
		goto out;
	}
	req->va = (unsigned long)pool_held.va;
	req->val = readl(pool_held.va);
out:
	mutex_unlock(&pool_held_lock);
	return ret;
}

struct probe {
	unsigned long va;
	u32 val;
	int ret;
};

static void probe_here(void *arg)
{
	struct probe *p = arg;

	p->ret = get_kernel_nofault(p->val, (u32 *)p->va);
}

/*
 * Release the held map: every CPU reads the window (and caches its
 * translation) right before the unmap; the CPUs that can still read it
 * right after.
 */
static unsigned int pool_release(void)
{
	struct probe p = { 0 };
	unsigned int cpu, stale = 0;

	mutex_lock(&pool_held_lock);
	if (pool_held.va) {
		p.va = (unsigned long)pool_held.va;
		on_each_cpu(probe_here, &p, 1);
		pvmap_io_mapping_unmap(pool_held.va);
		for_each_online_cpu(cpu)
			stale += !smp_call_function_single(cpu, probe_here, &p, 1) && !p.ret;
		pvmap_io_mapping_free(pool_held.m);
		pool_held.va = NULL;
		pool_held.m = NULL;
	}
	mutex_unlock(&pool_held_lock);
	return stale;
}

int pvmap_test_pool_release(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_pool *req = arg;

	req->stale = pool_release();
	return 0;
}

/*
 * A read of VA on CPU, in an IPI, so in whatever address space that CPU
 * has loaded: no switch flushes its TLB first. Only pvmap's own windows
 * (slots, pool) are read, never another user's memory (EPERM); a pvmap
 * built without its test hooks cannot say which they are (EOPNOTSUPP).
 */
int pvmap_test_probe(struct pvmap_test_ctx *ctx, void *arg)
{
	struct pvmap_test_probe *req = arg;
	struct probe p = { .va = req->va };

	if (!pvmap_test_has_pte_layer())
		return -EOPNOTSUPP;
	if (req->va != (unsigned long)req->va || !pvmap_windows_own(p.va))
		return -EPERM;
	if (!IS_ALIGNED(p.va, sizeof(u32)))
		return -EINVAL;
	if (req->cpu >= nr_cpu_ids || !cpu_online(req->cpu) ||
	    smp_call_function_single(req->cpu, probe_here, &p, 1))
		return -EINVAL;
	req->faulted = !!p.ret;
	req->val = p.ret ? 0 : p.val;
	return 0;
}

void pvmap_test_memtype_exit(void)
{
	pool_release();
	uc_release();
}
