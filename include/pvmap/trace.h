/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PTE trace format (version 1): every operation of pvmap's PTE layer,
 * written by the module (debugfs pvmap/trace, when the module parameter
 * "trace" is set) and read by tools/pvstub-replay. Text, one operation per
 * line, single spaces; cpu in decimal, va/pte/npages in hex without 0x:
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
 */
#ifndef PVMAP_TRACE_H
#define PVMAP_TRACE_H

#define PVMAP_TRACE_HEADER	"pvmap-trace 1"

enum pvmap_trace_op {
	PVMAP_TRACE_SET = 'S',
	PVMAP_TRACE_CLEAR = 'C',
	PVMAP_TRACE_FLUSH = 'F',
	PVMAP_TRACE_FLUSH_ALL = 'A',
	PVMAP_TRACE_BEGIN = 'B',
	PVMAP_TRACE_END = 'E',
};

#endif /* PVMAP_TRACE_H */
