/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cases of the guest test rw_partial_fault_alignments, shared with the
 * host's checker (tools/pvmap-pattern partial) so both walk the same table.
 *
 * Case @i copies PVMAP_PARTIAL_LEN bytes between the aperture at
 * base + @i * PVMAP_PARTIAL_STRIDE + (@i % 8) and a user buffer that starts
 * @i / 8 bytes into a page whose next page faults. So the user side takes
 * every alignment mod 8, the fault falls at every position of the copy's
 * last 64-byte block, and the aperture side takes every alignment mod 8:
 * exactly PVMAP_PARTIAL_HEAD(@i) bytes must be copied, and no more.
 */
#ifndef PVMAP_PARTIAL_H
#define PVMAP_PARTIAL_H

#define PVMAP_PARTIAL_CASES	512
#define PVMAP_PARTIAL_STRIDE	8192
#define PVMAP_PARTIAL_LEN	(4096 + 64)

#define PVMAP_PARTIAL_USER_OFF(i)	((i) / 8)		/* into the user page */
#define PVMAP_PARTIAL_APERTURE_OFF(i)	((i) * PVMAP_PARTIAL_STRIDE + (i) % 8)
#define PVMAP_PARTIAL_HEAD(i)		(4096 - PVMAP_PARTIAL_USER_OFF(i))

#endif /* PVMAP_PARTIAL_H */
