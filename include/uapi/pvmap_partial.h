/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cases of the guest test rw_partial_fault_alignments, shared with the
 * host's checker (tools/host/pvmap-pattern partial) so both walk the same table.
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

/* Bytes into the user page where case @i's buffer starts. */
static inline unsigned int pvmap_partial_user_off(unsigned int i)
{
	return i / 8;
}

/* Offset of case @i's copy from the base of the region. */
static inline unsigned long long pvmap_partial_aperture_off(unsigned int i)
{
	return (unsigned long long)i * PVMAP_PARTIAL_STRIDE + i % 8;
}

/* Bytes before the fault: exactly what case @i must copy. */
static inline unsigned int pvmap_partial_head(unsigned int i)
{
	return 4096 - pvmap_partial_user_off(i);
}

#endif /* PVMAP_PARTIAL_H */
