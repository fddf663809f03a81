/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deterministic, position-addressable test pattern: the byte at aperture
 * offset @pos depends only on (@seed, @pos), so a writer in the guest and a
 * checker on the host can agree on any sub-range without exchanging data.
 * Header-only and free of libc and kernel dependencies, so the guest tests,
 * the host tools and the module use this one definition.
 */
#ifndef PVMAP_PATTERN_H
#define PVMAP_PATTERN_H

#ifdef __KERNEL__
#include <linux/types.h>
typedef u64 pvmap_pattern_u64;
typedef u8 pvmap_pattern_u8;
#else
#include <stdint.h>
typedef uint64_t pvmap_pattern_u64;
typedef uint8_t pvmap_pattern_u8;
#endif

/* splitmix64's finaliser: every input bit flips about half the output bits. */
static inline pvmap_pattern_u64 pvmap_pattern_mix(pvmap_pattern_u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline pvmap_pattern_u8 pvmap_pattern_byte(pvmap_pattern_u64 seed,
						   pvmap_pattern_u64 pos)
{
	pvmap_pattern_u64 word = pvmap_pattern_mix(seed ^ pvmap_pattern_mix(pos >> 3));

	return (pvmap_pattern_u8)(word >> ((pos & 7) * 8));
}

/* Fill @buf with the pattern's bytes for offsets [@pos, @pos + @len). */
static inline void pvmap_pattern_fill(void *buf, pvmap_pattern_u64 len,
				      pvmap_pattern_u64 seed, pvmap_pattern_u64 pos)
{
	pvmap_pattern_u8 *p = (pvmap_pattern_u8 *)buf;
	pvmap_pattern_u64 i;

	for (i = 0; i < len; i++)
		p[i] = pvmap_pattern_byte(seed, pos + i);
}

/*
 * Index of the first byte of @buf that differs from the pattern at
 * [@pos, @pos + @len), or @len when all match.
 */
static inline pvmap_pattern_u64 pvmap_pattern_check(const void *buf,
						     pvmap_pattern_u64 len,
						     pvmap_pattern_u64 seed,
						     pvmap_pattern_u64 pos)
{
	const pvmap_pattern_u8 *p = (const pvmap_pattern_u8 *)buf;
	pvmap_pattern_u64 i;

	for (i = 0; i < len; i++)
		if (p[i] != pvmap_pattern_byte(seed, pos + i))
			return i;
	return len;
}

#endif /* PVMAP_PATTERN_H */
