/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Fixed-capacity hash index from a 64-bit key to a slot number.
 *
 * Lookups are lock-free (open addressing, linear probing, keys read with
 * acquire). Inserts of one key are serialised by a striped lock chosen by
 * the key, so a key is never inserted twice; inserts of different keys race
 * only through a compare-and-swap on the slot. Removal retires a slot; it
 * becomes reusable only after sp_table_reclaim() has waited for an RCU grace
 * period, so a reader inside sp_rcu_read_lock() never sees a slot change
 * identity under its feet. Callers keep their entries in a parallel array
 * indexed by slot.
 */
#ifndef SP_TABLE_H
#define SP_TABLE_H

#include "sp_os.h"

#define SP_TABLE_STRIPES 64u

struct sp_table {
	sp_atomic64_t *keys;     /* stored key (key + SP_KEY_BIAS) or a state */
	uint32_t capacity;       /* power of two */
	uint32_t shift;          /* 64 - log2(capacity) */
	uint32_t max_probe;
	uint32_t limit;          /* live entries allowed (the configured size) */
	sp_atomic64_t live;
	sp_os_lock_t stripes[SP_TABLE_STRIPES];
};

/* Called with the stripe lock held, before the key becomes visible. */
typedef void (*sp_table_init_fn)(void *arg, uint32_t slot);

int sp_table_create(struct sp_table *t, uint32_t limit);
void sp_table_destroy(struct sp_table *t);
/* Slot of @key or -ENOENT. Call inside sp_rcu_read_lock(). */
int sp_table_find(const struct sp_table *t, uint64_t key);
/* Slot of @key, inserting it (and running @init) if missing. -ENOSPC when
 * the table is at its limit or the probe sequence is full, -EINVAL for a
 * key the table cannot store. *@created says whether it was inserted. */
int sp_table_insert(struct sp_table *t, uint64_t key, sp_table_init_fn init, void *arg,
		    bool *created);
/* Retires @slot if it still holds @key; true if this call retired it. */
bool sp_table_retire(struct sp_table *t, uint32_t slot, uint64_t key);
/* The key held by @slot, or 0 if the slot is not live. */
uint64_t sp_table_slot_key(const struct sp_table *t, uint32_t slot);
/* Waits for an RCU grace period, then makes retired slots reusable. */
uint32_t sp_table_reclaim(struct sp_table *t);
static inline uint64_t sp_table_live(const struct sp_table *t)
{
	return sp_atomic_load(&t->live);
}

#endif /* SP_TABLE_H */
