/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What pvmap's test modules share: a request's context (the aperture it
 * names, an io_mapping of it, its result), the io_mapping API's case table
 * and the helpers pvmap_test.ko exports to pvmap_bench.ko and pvmap_kunit.ko.
 */
#ifndef PVMAP_TEST_H
#define PVMAP_TEST_H

#include <linux/preempt.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/uaccess.h>

#include <pvmap/io_mapping.h>
#include <uapi/pvmap_test.h>

#include "pvmap_pte.h"

struct pvmap_test_ctx {
	struct pvmap_io_mapping *m;	/* NULL for requests that make their own */
	resource_size_t base;
	u64 size;
	bool slots;	/* maps go through slots with clear-on-unmap */
	u8 *buf;	/* a page, allocated before any atomic map */
	struct pvmap_test_head *h;	/* the verdict and message */
	u32 warns;	/* the WARNs a case provoked on purpose */
};

/*
 * pvmap exports its PTE layer (pvmap_pte.h) only in a test build; built
 * against the DKMS package's pvmap the test modules load all the same, the
 * engines that need the layer refuse, and the compiler drops their calls.
 */
static __always_inline bool pvmap_test_has_pte_layer(void)
{
	return IS_ENABLED(CONFIG_PVMAP_TEST_HOOKS);
}

/* The smallest range a request that maps may name: twice its largest unit, 1 MiB. */
#define PVMAP_TEST_MIN_SIZE	SZ_2M

/* A random page-aligned offset with room for @npages pages. */
static inline u64 pvmap_test_random_offset(struct pvmap_test_ctx *ctx, unsigned int npages)
{
	u32 pages = (ctx->size >> PAGE_SHIFT) - npages + 1;

	return (u64)(get_random_u32() % pages) << PAGE_SHIFT;
}

/* True when a read of @vaddr faults, as every released slot must. */
static inline bool pvmap_test_faults(void __iomem *vaddr)
{
	u32 val;

	return get_kernel_nofault(val, (u32 __force *)vaddr) == -EFAULT;
}

/*
 * Whether a local map just made left preemption and page faults on: the
 * page-fault count against @pagefaults before it, and the preempt count
 * against @preempt where the kernel counts it (PREEMPT_COUNT).
 */
static inline bool pvmap_test_map_preemptible(int preempt, int pagefaults)
{
	if (pagefault_disabled() != !!pagefaults)
		return false;
	return !IS_ENABLED(CONFIG_PREEMPT_COUNT) || preempt_count() == preempt;
}

/* Set the verdict and its message; 0, for a test to return. */
__printf(3, 4)
int pvmap_test_report(struct pvmap_test_ctx *ctx, enum pvmap_test_status status,
		      const char *fmt, ...);
#define test_pass(ctx, fmt, ...) pvmap_test_report(ctx, PVMAP_TEST_PASS, fmt, ##__VA_ARGS__)
#define test_fail(ctx, fmt, ...) pvmap_test_report(ctx, PVMAP_TEST_FAIL, fmt, ##__VA_ARGS__)
#define test_skip(ctx, fmt, ...) pvmap_test_report(ctx, PVMAP_TEST_SKIP, fmt, ##__VA_ARGS__)

/*
 * The context of a request on @h's aperture: -EPERM unless it lies in a
 * memory BAR of a device pvmap has bound or no driver has; with @map an
 * io_mapping of it (a failure to create one is the request's verdict).
 */
int pvmap_test_ctx_init(struct pvmap_test_ctx *ctx, struct pvmap_test_head *h, bool map);
void pvmap_test_ctx_fini(struct pvmap_test_ctx *ctx);

/* Store a message through @dst, stopping at a fault: true when it all landed. */
bool pvmap_test_store_stale(void __iomem *dst);

/* The io_mapping API's own cases (pvmap_api_cases.c), run by KUnit or the ioctl. */
struct pvmap_api_case {
	const char *name;
	int (*run)(struct pvmap_test_ctx *ctx, unsigned int arg);
	unsigned int arg;
};

/* The table, ended by a NULL name, and its case named @name (NULL for none). */
extern const struct pvmap_api_case pvmap_api_cases[];
const struct pvmap_api_case *pvmap_api_case_find(const char *name);

/* pvmap_kunit.ko's aperture (in @h) and the one case it runs ("" for all). */
void pvmap_test_kunit_target(struct pvmap_test_head *h, char *only, size_t len);

/* The fixtures of pvmap_test.ko, one per ioctl (the driver dispatches). */
int pvmap_test_memtype_hold(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_memtype_query(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_memtype_release(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_memtype_conflict(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_uc_hold(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_uc_release(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_pool_hold(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_pool_release(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_probe(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_mainline(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_pattern(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_irq_load(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_local(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_hazard_map(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_hazard_write(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_pv_refusals(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_pv_ping(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_pv_hold(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_pv_release(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_xen_vector(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_vgpu_window_request(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_blob_hazard(struct pvmap_test_ctx *ctx, void *arg);
int pvmap_test_blob_step(struct pvmap_test_ctx *ctx, void *arg);

struct pci_dev;
bool pvmap_test_vgpu_window(struct pci_dev *pdev, u64 *base, u64 *size);
bool pvmap_test_bar_assigned(struct pci_dev *pdev, int bar);

/* The memory type that @vaddr's kernel PTE selects (*@large: a large page's). */
enum pvmap_memtype pvmap_test_memtype_of(void __iomem *vaddr, bool *large);
enum pvmap_memtype pvmap_test_memtype_name(pgprot_t prot);

/* What the fixtures hold across requests, given back at unload. */
void pvmap_test_memtype_exit(void);
void pvmap_test_hooks_exit(void);

extern bool pvmap_test_hazard_demo;
/* hazard_demo's engine: a map of @offset of ctx->m whose PTE stays (NULL: no PTE layer) */
void __iomem *pvmap_test_map_leaving_pte(struct pvmap_test_ctx *ctx, u64 offset);

#endif /* PVMAP_TEST_H */
