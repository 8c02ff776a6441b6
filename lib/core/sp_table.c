// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "sp_table.h"

/* Slot states below SP_KEY_BIAS; a live slot stores key + SP_KEY_BIAS so
 * that every user key, including tid 1, stays distinct from a state. */
enum {
	SP_SLOT_EMPTY = 0,      /* never used: ends a probe sequence */
	SP_SLOT_TOMBSTONE = 1,  /* free, but probe sequences run through it */
	SP_SLOT_RETIRED = 2,    /* removed; readers may still look at it */
	SP_SLOT_RECLAIMING = 3, /* retired before the current grace period */
	SP_SLOT_INIT = 4,       /* claimed, entry being initialised */
	SP_KEY_BIAS = 5,
};

static uint32_t sp_table_hash(const struct sp_table *t, uint64_t key)
{
	/* Fibonacci hashing: the high bits of the product mix every key bit,
	 * which matters for lock addresses that share their low bits. */
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> t->shift);
}

int sp_table_create(struct sp_table *t, uint32_t limit)
{
	uint32_t cap = 16, bits = 4, i;

	if (limit == 0 || limit > (1u << 26))
		return -EINVAL;
	/* At most half full, so probe sequences stay short. */
	while (cap < 2 * limit) {
		cap <<= 1;
		bits++;
	}
	t->keys = sp_os_zalloc((size_t)cap * sizeof(*t->keys));
	if (!t->keys)
		return -ENOMEM;
	t->capacity = cap;
	t->shift = 64 - bits;
	t->max_probe = cap < 128 ? cap : 128;
	t->limit = limit;
	sp_atomic_store(&t->live, 0);
	for (i = 0; i < SP_TABLE_STRIPES; i++)
		sp_os_lock_init(&t->stripes[i]);
	return 0;
}

void sp_table_destroy(struct sp_table *t)
{
	uint32_t i;

	if (!t->keys)
		return;
	for (i = 0; i < SP_TABLE_STRIPES; i++)
		sp_os_lock_destroy(&t->stripes[i]);
	sp_os_free(t->keys);
	t->keys = NULL;
}

int sp_table_find(const struct sp_table *t, uint64_t key)
{
	uint64_t want = key + SP_KEY_BIAS;
	uint32_t i, slot = sp_table_hash(t, key);

	if (sp_unlikely(key > UINT64_MAX - SP_KEY_BIAS))
		return -ENOENT;
	for (i = 0; i < t->max_probe; i++) {
		uint64_t k = sp_atomic_load_acquire(&t->keys[slot]);

		if (k == want)
			return (int)slot;
		if (k == SP_SLOT_EMPTY)
			return -ENOENT;
		slot = (slot + 1) & (t->capacity - 1);
	}
	return -ENOENT;
}

/* A free slot on @key's probe path now in SP_SLOT_INIT, or the slot that
 * already holds @key (*@existing), or -ENOSPC. */
static int sp_table_claim(struct sp_table *t, uint64_t key, bool *existing)
{
	uint64_t want = key + SP_KEY_BIAS;
	uint32_t i, slot = sp_table_hash(t, key);

	/* Same-key inserters are serialised by the stripe lock, so if the key
	 * is not on its probe path now it cannot appear there while we look. */
	for (i = 0; i < t->max_probe; i++) {
		uint64_t k = sp_atomic_load_acquire(&t->keys[slot]);

		if (k == want) {
			*existing = true;
			return (int)slot;
		}
		if ((k == SP_SLOT_EMPTY || k == SP_SLOT_TOMBSTONE) &&
		    sp_atomic_cmpxchg(&t->keys[slot], k, SP_SLOT_INIT))
			return (int)slot;
		slot = (slot + 1) & (t->capacity - 1);
	}
	return -ENOSPC;
}

int sp_table_insert(struct sp_table *t, uint64_t key, sp_table_init_fn init, void *arg,
		    bool *created)
{
	sp_os_lock_t *stripe;
	bool existing = false;
	int slot;

	*created = false;
	if (key == 0 || key > UINT64_MAX - SP_KEY_BIAS)
		return -EINVAL;
	slot = sp_table_find(t, key);
	if (slot >= 0)
		return slot;

	stripe = &t->stripes[sp_table_hash(t, key) & (SP_TABLE_STRIPES - 1)];
	sp_os_lock(stripe);
	/* Look again under the lock: another inserter may have placed the key
	 * beyond a slot that has since become a tombstone, and claim() stops
	 * at the first free slot. */
	slot = sp_table_find(t, key);
	if (slot >= 0) {
		sp_os_unlock(stripe);
		return slot;
	}
	if (sp_atomic_add(&t->live, 1) > t->limit) {
		sp_atomic_add(&t->live, (uint64_t)-1);
		slot = sp_table_find(t, key);
		sp_os_unlock(stripe);
		return slot >= 0 ? slot : -ENOSPC;
	}
	slot = sp_table_claim(t, key, &existing);
	if (existing) {
		/* Inserted by someone else between our find and the lock. */
		sp_atomic_add(&t->live, (uint64_t)-1);
	} else if (slot >= 0) {
		if (init)
			init(arg, (uint32_t)slot);
		/* Release: publishes what init() wrote into the entry; pairs
		 * with the load-acquire of the key in sp_table_find and
		 * sp_table_slot_key, after which the finder reads the entry. */
		sp_atomic_store_release(&t->keys[slot], key + SP_KEY_BIAS);
		*created = true;
	} else {
		sp_atomic_add(&t->live, (uint64_t)-1);
	}
	sp_os_unlock(stripe);
	return slot;
}

bool sp_table_retire(struct sp_table *t, uint32_t slot, uint64_t key)
{
	if (slot >= t->capacity || key > UINT64_MAX - SP_KEY_BIAS)
		return false;
	if (!sp_atomic_cmpxchg(&t->keys[slot], key + SP_KEY_BIAS, SP_SLOT_RETIRED))
		return false;
	sp_atomic_add(&t->live, (uint64_t)-1);
	return true;
}

uint64_t sp_table_slot_key(const struct sp_table *t, uint32_t slot)
{
	uint64_t k = sp_atomic_load_acquire(&t->keys[slot]);

	return k >= SP_KEY_BIAS ? k - SP_KEY_BIAS : 0;
}

uint32_t sp_table_reclaim(struct sp_table *t)
{
	uint32_t i, marked = 0, freed = 0;

	/* Two passes around one grace period: a slot retired before the first
	 * pass can only be seen by readers that started before the grace
	 * period; one retired later waits for the next reclaim. */
	for (i = 0; i < t->capacity; i++)
		if (sp_atomic_cmpxchg(&t->keys[i], SP_SLOT_RETIRED, SP_SLOT_RECLAIMING))
			marked++;
	if (!marked)
		return 0;
	sp_rcu_synchronize();
	for (i = 0; i < t->capacity; i++)
		if (sp_atomic_cmpxchg(&t->keys[i], SP_SLOT_RECLAIMING, SP_SLOT_TOMBSTONE))
			freed++;
	return freed;
}
