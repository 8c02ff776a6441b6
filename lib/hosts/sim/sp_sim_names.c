// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The name index of sp_sim_names.h: open addressing, linear probing, at
 * most half full, a generation number per slot so that clearing is O(1). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "sp_sim_internal.h"
#include "sp_sim_names.h"

struct sp_sim_name_slot {
	const char *s;
	uint32_t len;
	uint32_t tag;
	uint32_t hash;
	uint32_t gen;
	int32_t value;
};

static uint64_t sp_names_mix(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	h ^= h >> 32;
	return h;
}

/* A keyed hash, 8 bytes per step: a file cannot be made of names that
 * collide without knowing the index's seed. */
static uint32_t sp_names_hash(uint64_t seed, const char *s, size_t len, uint32_t tag)
{
	uint64_t h = seed ^ ((uint64_t)len * 0x9e3779b97f4a7c15ull) ^ tag;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, 8);
		h = sp_names_mix(h ^ w) + 0x9e3779b97f4a7c15ull;
	}
	if (i < len) {
		uint64_t w = 0;

		memcpy(&w, s + i, len - i);
		h = sp_names_mix(h ^ w ^ ((uint64_t)(len - i) << 56));
	}
	return (uint32_t)sp_names_mix(h);
}

static uint64_t sp_names_seed(void)
{
	uint64_t seed;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed))
		seed = 0x2545f4914f6cdd1dull; /* no entropy yet: still correct, only predictable */
	return seed;
}

int sp_sim_names_find(const struct sp_sim_names *ix, const char *s, size_t len, uint32_t tag)
{
	uint32_t h;
	size_t mask, i;

	if (!ix->n || len > UINT32_MAX)
		return -ENOENT;
	h = sp_names_hash(ix->seed, s, len, tag);
	mask = ix->cap - 1;
	for (i = h & mask;; i = (i + 1) & mask) {
		const struct sp_sim_name_slot *e = &ix->slots[i];

		if (e->gen != ix->gen)
			return -ENOENT;
		if (e->hash == h && e->len == len && e->tag == tag && !memcmp(e->s, s, len))
			return e->value;
	}
}

static void sp_names_put(struct sp_sim_name_slot *slots, size_t cap, uint32_t gen,
			 const struct sp_sim_name_slot *e)
{
	size_t i;

	for (i = e->hash & (cap - 1); slots[i].gen == gen; i = (i + 1) & (cap - 1))
		;
	slots[i] = *e;
	slots[i].gen = gen;
}

/* Twice the room: the current generation's names moved into new slots. */
static int sp_names_grow(struct sp_sim_names *ix)
{
	size_t cap = ix->cap ? ix->cap * 2 : 16;
	struct sp_sim_name_slot *slots;

	if (cap > SIZE_MAX / sizeof(*slots))
		return -ENOMEM;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < ix->cap; i++)
		if (ix->slots[i].gen == ix->gen)
			sp_names_put(slots, cap, 1, &ix->slots[i]);
	free(ix->slots);
	ix->slots = slots;
	ix->cap = cap;
	ix->gen = 1; /* the new slots are gen 0: empty */
	return 0;
}

int sp_sim_names_add(struct sp_sim_names *ix, const char *s, size_t len, uint32_t tag,
		     int value)
{
	struct sp_sim_name_slot e = { .s = s, .len = (uint32_t)len, .tag = tag, .value = value };

	if (len > UINT32_MAX || value < 0)
		return -EINVAL;
	if (!ix->slots)
		ix->seed = sp_names_seed();
	if ((ix->n + 1) * 2 > ix->cap && sp_names_grow(ix))
		return -ENOMEM;
	e.hash = sp_names_hash(ix->seed, s, len, tag);
	sp_names_put(ix->slots, ix->cap, ix->gen, &e);
	ix->n++;
	return 0;
}

void sp_sim_names_clear(struct sp_sim_names *ix)
{
	if (!ix->n)
		return;
	ix->n = 0;
	if (++ix->gen == 0) { /* wrapped: old slots could look current */
		memset(ix->slots, 0, ix->cap * sizeof(*ix->slots));
		ix->gen = 1;
	}
}

void sp_sim_names_free(struct sp_sim_names *ix)
{
	free(ix->slots);
	memset(ix, 0, sizeof(*ix));
}

int sp_sim_workload_index(struct sp_sim_workload *w)
{
	for (uint32_t i = 0; i < w->ntasks; i++)
		if (sp_sim_names_add(&w->task_ix, w->tasks[i].name, strlen(w->tasks[i].name), 0,
				     (int)i))
			return -ENOMEM;
	for (uint32_t i = 0; i < w->nlocks; i++)
		if (sp_sim_names_add(&w->lock_ix, w->locks[i].name, strlen(w->locks[i].name), 0,
				     (int)i))
			return -ENOMEM;
	for (uint32_t i = 0; i < w->ntimers; i++)
		if (sp_sim_names_add(&w->timer_ix, w->timers[i].name, strlen(w->timers[i].name),
				     w->timers[i].unique, (int)i))
			return -ENOMEM;
	return 0;
}
