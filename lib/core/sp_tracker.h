/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Bounded tracker of the tasks holding (readers) or waiting for (waiters) a
 * lock: K slots, O(K) enter/exit with compare-and-swap, no allocation, no
 * lock. A task that finds every slot taken is counted as untracked: the
 * paper's point is that a few tracked readers give most of the benefit, and
 * the count tells how many we chose not to follow.
 */
#ifndef SP_TRACKER_H
#define SP_TRACKER_H

#include "sp_os.h"

struct sp_tracker {
	sp_atomic64_t *slots;    /* tid or 0; storage owned by the core */
	uint32_t cap;
	sp_atomic64_t tracked;   /* occupied slots, a hint to skip scans */
	sp_atomic64_t untracked; /* entries that found no free slot */
};

void sp_tracker_bind(struct sp_tracker *tr, sp_atomic64_t *slots, uint32_t cap);
/* Empties every slot and counter (slot reuse). */
void sp_tracker_reset(struct sp_tracker *tr);
/* true if @tid got a slot, false if it is counted as untracked. */
bool sp_tracker_enter(struct sp_tracker *tr, uint64_t tid);
/* true if a slot or an untracked count of @tid was removed. */
bool sp_tracker_exit(struct sp_tracker *tr, uint64_t tid);
/* Removes @tid from a slot only (never touches the untracked count). */
bool sp_tracker_remove(struct sp_tracker *tr, uint64_t tid);
bool sp_tracker_contains(const struct sp_tracker *tr, uint64_t tid);
/* A bounded most-recent set: @tid takes a free slot or, the tracker
 * full, replaces the entry that @next (a counter the caller keeps) points
 * at, round robin: the oldest noted. Never counts an untracked entry. */
void sp_tracker_note(struct sp_tracker *tr, uint64_t tid, sp_atomic64_t *next);
/* Copies up to @cap tracked tids into @out; returns how many. */
uint32_t sp_tracker_snapshot(const struct sp_tracker *tr, uint64_t *out, uint32_t cap);

static inline bool sp_tracker_empty(const struct sp_tracker *tr)
{
	return sp_atomic_load(&tr->tracked) == 0;
}

/* Acquire: a slot is filled by a cmpxchg in sp_tracker_enter (a full
 * barrier), after the task entry it names was published; the caller then
 * looks that task up. */
static inline uint64_t sp_tracker_slot(const struct sp_tracker *tr, uint32_t i)
{
	return sp_atomic_load_acquire(&tr->slots[i]);
}

#endif /* SP_TRACKER_H */
