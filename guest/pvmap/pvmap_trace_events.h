/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pvmap's PTE layer as a trace event: every PTE write, TLB invalidation
 * and batch mark, in tracefs as events/pvmap/pvmap_pte. Free when nobody
 * enabled it (a tracepoint is a static key). The text after "pvmap_pte: "
 * is "<op> <cpu> <va> <arg>" in include/uapi/pvmap_trace.h's terms, the fields
 * an operation does not use 0; tools/host/pvstub-replay reads the trace file.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM pvmap

#if !defined(PVMAP_TRACE_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define PVMAP_TRACE_EVENTS_H

#include <linux/tracepoint.h>

/* While it is on, the slot core takes its slow path, which traces (pvmap_pte.c). */
int pvmap_trace_reg(void);
void pvmap_trace_unreg(void);

TRACE_EVENT_FN(pvmap_pte,
	       TP_PROTO(unsigned int op, unsigned long va, u64 arg),
	       TP_ARGS(op, va, arg),
	       TP_STRUCT__entry(__field(unsigned long, va)
				__field(u64, arg)
				__field(u8, op)
				__field(u16, cpu)),
	       TP_fast_assign(__entry->va = va;
			      __entry->arg = arg;
			      __entry->op = op;
			      __entry->cpu = raw_smp_processor_id();),
	       TP_printk("%c %u %lx %llx", __entry->op, __entry->cpu, __entry->va,
			 __entry->arg),
	       pvmap_trace_reg, pvmap_trace_unreg
);

#endif /* PVMAP_TRACE_EVENTS_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE pvmap_trace_events
#include <trace/define_trace.h>
