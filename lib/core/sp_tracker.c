// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "sp_tracker.h"

void sp_tracker_bind(struct sp_tracker *tr, sp_atomic64_t *slots, uint32_t cap)
{
	tr->slots = slots;
	tr->cap = cap;
	sp_tracker_reset(tr);
}

void sp_tracker_reset(struct sp_tracker *tr)
{
	uint32_t i;

	for (i = 0; i < tr->cap; i++)
		sp_atomic_store(&tr->slots[i], 0);
	sp_atomic_store(&tr->tracked, 0);
	sp_atomic_store(&tr->untracked, 0);
}

bool sp_tracker_enter(struct sp_tracker *tr, uint64_t tid)
{
	uint32_t i;

	/* Counted before the slot is taken, so that a tracker that reads
	 * empty (sp_tracker_empty, the uncontended acquire path's test) is
	 * empty: the count may run ahead of the slots, never behind. */
	sp_atomic_add(&tr->tracked, 1);
	for (i = 0; i < tr->cap; i++) {
		if (sp_atomic_load(&tr->slots[i]) == 0 &&
		    sp_atomic_cmpxchg(&tr->slots[i], 0, tid))
			return true;
	}
	sp_atomic_add(&tr->untracked, 1);
	sp_atomic_dec_checked(&tr->tracked);
	return false;
}

bool sp_tracker_remove(struct sp_tracker *tr, uint64_t tid)
{
	uint32_t i;

	for (i = 0; i < tr->cap; i++) {
		if (sp_atomic_load(&tr->slots[i]) == tid &&
		    sp_atomic_cmpxchg(&tr->slots[i], tid, 0)) {
			sp_atomic_dec_checked(&tr->tracked);
			return true;
		}
	}
	return false;
}

bool sp_tracker_exit(struct sp_tracker *tr, uint64_t tid)
{
	uint64_t n;

	if (sp_tracker_remove(tr, tid))
		return true;
	/* An untracked entry leaves: decrement without going below zero. */
	for (n = sp_atomic_load(&tr->untracked); n != 0; n = sp_atomic_load(&tr->untracked))
		if (sp_atomic_cmpxchg(&tr->untracked, n, n - 1))
			return true;
	return false;
}

bool sp_tracker_contains(const struct sp_tracker *tr, uint64_t tid)
{
	uint32_t i;

	for (i = 0; i < tr->cap; i++)
		if (sp_atomic_load(&tr->slots[i]) == tid)
			return true;
	return false;
}

void sp_tracker_note(struct sp_tracker *tr, uint64_t tid, sp_atomic64_t *next)
{
	uint32_t i;

	if (!tr->cap || sp_tracker_contains(tr, tid))
		return;
	sp_atomic_add(&tr->tracked, 1); /* ahead of the slot, as in enter */
	for (i = 0; i < tr->cap; i++) {
		if (sp_atomic_load(&tr->slots[i]) == 0 &&
		    sp_atomic_cmpxchg(&tr->slots[i], 0, tid))
			return;
	}
	sp_atomic_dec_checked(&tr->tracked);
	/* Full: replace one. A slot that changed meanwhile keeps its new
	 * entry; the next note replaces another. */
	i = (uint32_t)((sp_atomic_add(next, 1) - 1) % tr->cap);
	{
		uint64_t old = sp_atomic_load(&tr->slots[i]);

		if (old)
			sp_atomic_cmpxchg(&tr->slots[i], old, tid);
	}
}

uint32_t sp_tracker_snapshot(const struct sp_tracker *tr, uint64_t *out, uint32_t cap)
{
	uint32_t i, n = 0;

	for (i = 0; i < tr->cap && n < cap; i++) {
		uint64_t tid = sp_atomic_load(&tr->slots[i]);

		if (tid)
			out[n++] = tid;
	}
	return n;
}
