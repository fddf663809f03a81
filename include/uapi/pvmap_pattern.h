/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deterministic, position-addressable test pattern: the byte at aperture
 * offset @pos depends only on (@seed, @pos), so a writer in the guest and a
 * checker on the host can agree on any sub-range without exchanging data.
 * Header-only, needing only <linux/types.h>, so the guest tests, the host
 * tools and the module use this one definition.
 */
#ifndef PVMAP_PATTERN_H
#define PVMAP_PATTERN_H

#include <linux/types.h>

/* splitmix64's finaliser: every input bit flips about half the output bits. */
static inline __u64 pvmap_pattern_mix(__u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline __u8 pvmap_pattern_byte(__u64 seed, __u64 pos)
{
	__u64 word = pvmap_pattern_mix(seed ^ pvmap_pattern_mix(pos >> 3));

	return (__u8)(word >> ((pos & 7) * 8));
}

/* Fill @buf with the pattern's bytes for offsets [@pos, @pos + @len). */
static inline void pvmap_pattern_fill(void *buf, __u64 len, __u64 seed,
				      __u64 pos)
{
	__u8 *p = (__u8 *)buf;
	__u64 i;

	for (i = 0; i < len; i++)
		p[i] = pvmap_pattern_byte(seed, pos + i);
}

/*
 * Index of the first byte of @buf that differs from the pattern at
 * [@pos, @pos + @len), or @len when all match.
 */
static inline __u64 pvmap_pattern_check(const void *buf, __u64 len,
					__u64 seed, __u64 pos)
{
	const __u8 *p = (const __u8 *)buf;
	__u64 i;

	for (i = 0; i < len; i++)
		if (p[i] != pvmap_pattern_byte(seed, pos + i))
			return i;
	return len;
}

#endif /* PVMAP_PATTERN_H */
