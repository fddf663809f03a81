/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by pvmap's source files; not an interface. */
#ifndef PVMAP_INTERNAL_H
#define PVMAP_INTERNAL_H

#include <linux/percpu.h>
#include <linux/types.h>

#include <uapi/pvmap.h>

/* Event counters, per CPU, summed by pvmap_stats_read(). */
struct pvmap_counters {
	u64 maps;
	u64 unmaps;
	u64 pte_writes;
	u64 local_flushes;
	u64 remote_flushes;
	u64 batches;
	u64 slow_path;
	u64 misuse;
};

extern struct pvmap_counters __percpu *pvmap_counters;

#define pvmap_count(field)	this_cpu_inc(pvmap_counters->field)
#define pvmap_count_add(field, n)	this_cpu_add(pvmap_counters->field, n)

int pvmap_slots_init(void);
void pvmap_slots_exit(void);
void __iomem *pvmap_slots_map(u64 pfn, unsigned int npages, pgprot_t prot,
			      void __iomem *whole);
bool pvmap_slots_unmap(void __iomem *vaddr, unsigned int npages);
unsigned int pvmap_slots_live(int cpu);

int pvmap_io_mapping_init(void);
void pvmap_io_mapping_exit(void);

void pvmap_stats_read(struct pvmap_stats *stats);

struct pvmap_io_mapping;
int pvmap_rw(struct pvmap_io_mapping *m, u64 aperture_size, struct pvmap_rw *rw,
	     bool write);

#endif /* PVMAP_INTERNAL_H */
