/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by pvmap's source files; not an interface. */
#ifndef PVMAP_INTERNAL_H
#define PVMAP_INTERNAL_H

#include <linux/export.h>
#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/pgtable.h>
#include <linux/types.h>

#include <uapi/pvmap.h>

/*
 * The PTE layer is a kit for stale mappings: it is exported, to
 * pvmap_test's hazard engine and hypervisor refusal tests and
 * pvmap_bench's PTE-floor benchmark, only in a test build (CONFIG_PVMAP_TEST_HOOKS), as
 * mainline's EXPORT_SYMBOL_IF_KUNIT keeps internals out of production
 * kernels. The DKMS package's pvmap.ko exports the io_mapping API only.
 */
#ifdef CONFIG_PVMAP_TEST_HOOKS
#define EXPORT_SYMBOL_FOR_PVMAP_TESTS(sym)	EXPORT_SYMBOL_NS_GPL(sym, PVMAP_TEST_HOOKS)
#else
#define EXPORT_SYMBOL_FOR_PVMAP_TESTS(sym)
#endif

/*
 * Event counters, per CPU, summed by pvmap_stats_read() into struct
 * pvmap_stats. Counted once per map or unmap (not per PTE), in unsigned
 * long, so that each is one per-CPU add with no interrupt toggling on
 * 32-bit either; and only once somebody has read them (the stats ioctl,
 * debugfs pvmap/stats, pvmapctl stats): until then the static key keeps
 * them off the hot path.
 */
enum pvmap_counter {
	PVMAP_CNT_MAPS,
	PVMAP_CNT_UNMAPS,
	PVMAP_CNT_PTE_WRITES,
	PVMAP_CNT_LOCAL_FLUSHES,
	PVMAP_CNT_REMOTE_FLUSHES,
	PVMAP_CNT_BATCHES,
	PVMAP_CNT_SLOW_PATH,
	PVMAP_CNT_MISUSE,
	PVMAP_NR_COUNTERS
};

struct pvmap_counters {
	unsigned long count[PVMAP_NR_COUNTERS];
};

extern struct pvmap_counters __percpu *pvmap_counters;
DECLARE_STATIC_KEY_FALSE(pvmap_counting);

static __always_inline void pvmap_count_add(enum pvmap_counter c, unsigned int n)
{
	if (static_branch_unlikely(&pvmap_counting))
		this_cpu_add(pvmap_counters->count[c], n);
}

static __always_inline void pvmap_count(enum pvmap_counter c)
{
	pvmap_count_add(c, 1);
}

/*
 * The slot core's slow path (pvmap_slots.c): on while anything needs more
 * than the native PTE writes of a map and an unmap. A count of reasons,
 * each taken at load or when it starts and given back when it stops:
 * - a hypervisor backend (pvmap_pv.h) or Xen PV, which batch the updates;
 * - the trace event pvmap:pvmap_pte while tracefs has it on.
 * The counters are not a reason: the fast path counts too, while they run.
 */
DECLARE_STATIC_KEY_FALSE(pvmap_slots_slow);

/*
 * Slots and map-stack entries beyond PVMAP_SLOTS_PER_CPU and PVMAP_MAX_DEPTH
 * that only interrupt context may take: a hardirq or softirq that maps while
 * the task below holds all it may (a 64-page range, 16 nested maps) still
 * gets a slot. Four levels: softirq, hardirq, and room for nesting.
 */
#define PVMAP_IRQ_SLOTS		16
#define PVMAP_IRQ_DEPTH		4

/*
 * A point in the slot core where an interrupt may land (pvmap_slots.c):
 * nothing in the kernel; the user-space test's shim lands one there.
 */
#ifndef pvmap_irq_point
#define pvmap_irq_point()	do { } while (0)
#endif

int pvmap_slots_init(bool local_maps);
void pvmap_slots_exit(void);
bool pvmap_slots_local_preemptible(void);
struct pvmap_window;
const struct pvmap_window *pvmap_slots_window(int cpu);
unsigned int pvmap_slots_live(int cpu);
unsigned int pvmap_slots_live_ranges(int cpu, unsigned long *va, unsigned int *npages,
				     unsigned int max);

int pvmap_io_mapping_init(void);
void pvmap_io_mapping_exit(void);

/* The hypervisor channel (pvmap_pv_doorbell.c): found and brought up before any window. */
int pvmap_pv_init(void);
void pvmap_pv_exit(void);
struct pci_dev;
bool pvmap_pv_owns(struct pci_dev *pdev);
struct dentry;
void pvmap_pv_debugfs_add(struct dentry *root);

void pvmap_stats_read(struct pvmap_stats *stats);

struct seq_file;
void pvmap_live_show(struct seq_file *s);
void pvmap_windows_show(struct seq_file *s);
bool pvmap_windows_own(unsigned long va);

struct pvmap_io_mapping;
int pvmap_rw_check(u64 aperture_size, struct pvmap_rw *rw);
/* Faults in a row at one byte before a copy takes it for unreadable. */
#define PVMAP_RW_FAULT_RETRIES	4

/* Why pvmap_rw_atomic() stopped before rw->length: see there. */
enum pvmap_rw_stop {
	PVMAP_RW_DONE,
	PVMAP_RW_FAULT,
	PVMAP_RW_YIELD,
	PVMAP_RW_ERROR,
};

enum pvmap_rw_stop pvmap_rw_atomic(struct pvmap_io_mapping *m, struct pvmap_rw *rw, bool write);
int pvmap_rw_fault_in(const struct pvmap_rw *rw, bool write);

#endif /* PVMAP_INTERNAL_H */
