// SPDX-License-Identifier: GPL-2.0
/*
 * libpvstub's hash map (pvstub_internal.h's struct map): frames and VAs to
 * tables, reference counts, revoked frames, a vCPU's TLB index.
 */
#include "pvstub_internal.h"

#include <stdlib.h>
#include <string.h>

static size_t map_home(const struct map *m, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - m->bits));
}

/* The slot of @key, or of the empty slot where it would go. */
static size_t map_slot(const struct map *m, uint64_t key)
{
	size_t i = map_home(m, key);

	(*m->lookups)++;
	for (;;) {
		(*m->probes)++;
		if (m->key[i] == key || m->key[i] == MAP_EMPTY)
			return i;
		i = (i + 1) & (m->cap - 1);
	}
}

bool pvs_map_get(const struct map *m, uint64_t key, uint64_t *val)
{
	size_t i;

	if (!m->n)
		return false;
	i = map_slot(m, key);
	if (m->key[i] == MAP_EMPTY)
		return false;
	if (val)
		*val = m->val[i];
	return true;
}

static bool map_grow(struct map *m)
{
	unsigned int bits = m->cap ? m->bits + 1 : 6;
	struct map new = { .cap = (size_t)1 << bits, .bits = bits,
			   .lookups = m->lookups, .probes = m->probes };

	new.key = malloc(new.cap * sizeof(*new.key));
	new.val = malloc(new.cap * sizeof(*new.val));
	if (!new.key || !new.val) {
		free(new.key);
		free(new.val);
		return false;
	}
	memset(new.key, 0xff, new.cap * sizeof(*new.key));
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (m->key[i] == MAP_EMPTY)
			continue;
		j = map_slot(&new, m->key[i]);
		new.key[j] = m->key[i];
		new.val[j] = m->val[i];
		new.n++;
	}
	free(m->key);
	free(m->val);
	*m = new;
	return true;
}

/* Set @key to @val; false when out of memory (only a new key can need any). */
bool pvs_map_put(struct map *m, uint64_t key, uint64_t val)
{
	size_t i = m->cap ? map_slot(m, key) : 0;

	if (!m->cap || m->key[i] == MAP_EMPTY) {
		if (2 * (m->n + 1) > m->cap) {
			if (!map_grow(m))
				return false;
			i = map_slot(m, key);
		}
		m->key[i] = key;
		m->n++;
	}
	m->val[i] = val;
	return true;
}

void pvs_map_del(struct map *m, uint64_t key)
{
	size_t mask = m->cap - 1, i, j;

	if (!m->n)
		return;
	i = map_slot(m, key);
	if (m->key[i] == MAP_EMPTY)
		return;
	/* pull back each later entry of the run that may sit in the hole */
	for (j = (i + 1) & mask; m->key[j] != MAP_EMPTY; j = (j + 1) & mask) {
		size_t home = map_home(m, m->key[j]);

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->key[i] = m->key[j];
			m->val[i] = m->val[j];
			i = j;
		}
	}
	m->key[i] = MAP_EMPTY;
	m->n--;
}

void pvs_map_free(struct map *m)
{
	free(m->key);
	free(m->val);
}
