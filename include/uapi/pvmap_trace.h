/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PTE trace format (version 1): every operation of pvmap's PTE layer,
 * read by tools/host/pvstub-replay. Text, one operation per line, single spaces;
 * cpu in decimal, va/pte/npages in hex without 0x:
 *
 *   pvmap-trace 1            the first line
 *   S <cpu> <va> <pte>       the PTE of va is set to pte
 *   C <cpu> <va>             the PTE of va is cleared
 *   F <cpu> <va>             va's TLB entry is invalidated on cpu only
 *   A <cpu> <va> <npages>    npages TLB entries from va invalidated on all CPUs
 *   B <cpu>                  a lazy-MMU batch begins on cpu
 *   E <cpu>                  the batch on cpu ends
 *
 * Empty lines and lines starting with '#' are ignored.
 *
 * The module writes it as the trace event pvmap:pvmap_pte
 * (guest/pvmap/pvmap_trace_events.h): tracefs's trace file, which starts with
 * "# tracer: ", is a trace too. Each event's text after " pvmap_pte: " is
 * "<op> <cpu> <va> <arg>", all four always there, those an operation does
 * not use 0; any other line but comments (a "[LOST n EVENTS]" mark, say)
 * makes the trace malformed.
 */
#ifndef PVMAP_TRACE_H
#define PVMAP_TRACE_H

#define PVMAP_TRACE_HEADER	"pvmap-trace 1"
#define PVMAP_TRACE_TRACEFS	"# tracer: "
#define PVMAP_TRACE_EVENT	" pvmap_pte: "

enum pvmap_trace_op {
	PVMAP_TRACE_SET = 'S',
	PVMAP_TRACE_CLEAR = 'C',
	PVMAP_TRACE_FLUSH = 'F',
	PVMAP_TRACE_FLUSH_ALL = 'A',
	PVMAP_TRACE_BEGIN = 'B',
	PVMAP_TRACE_END = 'E',
};

#endif /* PVMAP_TRACE_H */
