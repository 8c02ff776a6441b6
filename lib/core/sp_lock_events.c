// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Lock events: the graph edges change here, and the policy is asked to act
 * only when a grant could follow (a critical or fast-tracked task blocks, a
 * lock with tracked waiters changes hands, a fast-tracked task releases).
 * The uncontended acquire/release path touches two table lookups, a few
 * atomic words of its own and no lock.
 */
#include "sp_internal.h"

static bool sp_hold_valid(enum sp_hold hold)
{
	return hold == SP_HOLD_EXCL || hold == SP_HOLD_SHARED;
}

int sp_lock_declare(struct sp_core *core, sp_lock_key_t lock, enum sp_lock_kind kind)
{
	struct sp_lock *l;
	int rc = 0;

	if (!core || !lock || (kind != SP_LOCK_MUTEX && kind != SP_LOCK_RWLOCK))
		return -EINVAL;
	sp_rcu_read_lock();
	l = sp_lock_get(core, lock);
	if (l)
		sp_atomic_store(&l->kind, kind);
	else
		rc = -ENOSPC;
	sp_rcu_read_unlock();
	return rc;
}

int sp_lock_acquired(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock, enum sp_hold hold)
{
	struct sp_task *t;
	struct sp_lock *l;
	int rc = 0;

	if (sp_unlikely(!core || !tid || !lock || !sp_hold_valid(hold)))
		return -EINVAL;
	sp_rcu_read_lock();
	l = sp_lock_get(core, lock);
	t = sp_task_get(core, tid);
	/* An acquire event even when a full lock table keeps it out of the
	 * graph. */
	if (t)
		sp_atomic_add(&t->acquires, 1);
	else
		sp_count(core, SP_C_ACQUIRES);
	if (sp_unlikely(!l)) {
		rc = -ENOSPC;
		goto out;
	}
	if (hold == SP_HOLD_EXCL) {
		/* No full barrier here: it tripled the cost of this path
		 * (measured: 29 ns vs 17 ns per acquire+release). Without it, a
		 * waiter that blocks in the same instant may read the previous
		 * owner while we read no waiters; the tick's refresh of long
		 * critical waits (sp_tick.c) closes that window within 1 ms. */
		sp_atomic_store_release(&l->owner, tid);
	} else {
		if (sp_atomic_load(&l->kind) != SP_LOCK_RWLOCK)
			sp_atomic_store(&l->kind, SP_LOCK_RWLOCK);
		if (!sp_tracker_enter(&l->readers, tid))
			sp_count(core, SP_C_READER_OVERFLOWS);
	}
	if (sp_unlikely(!sp_tracker_empty(&l->waiters)))
		sp_policy_on_acquire(core, tid, l, lock);
out:
	sp_rcu_read_unlock();
	return rc;
}

int sp_lock_released(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock, enum sp_hold hold)
{
	struct sp_task *t;
	struct sp_lock *l;
	bool held;
	int rc = 0;

	if (sp_unlikely(!core || !tid || !lock || !sp_hold_valid(hold)))
		return -EINVAL;
	sp_rcu_read_lock();
	l = sp_lock_find(core, lock);
	t = sp_task_find(core, tid);
	if (sp_unlikely(!l)) {
		sp_count(core, SP_C_STALE_EVENTS);
		rc = -ENOENT;
		goto out;
	}
	/* Both paths are full barriers before the refs check below. */
	if (hold == SP_HOLD_EXCL)
		held = sp_atomic_cmpxchg(&l->owner, tid, 0);
	else
		held = sp_tracker_exit(&l->readers, tid);
	if (sp_unlikely(!held))
		sp_count(core, SP_C_STALE_EVENTS);
	if (t) {
		sp_atomic_add(&t->releases, 1);
		if (sp_unlikely(sp_atomic_load(&t->refs))) {
			struct sp_grant_match m = { .target = tid, .lock = lock };

			sp_grants_end_matching(core, &m, SP_END_RELEASE);
		}
	} else {
		sp_count(core, SP_C_RELEASES);
	}
out:
	sp_rcu_read_unlock();
	return rc;
}

int sp_lock_blocked(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock, enum sp_hold hold)
{
	struct sp_task *t;
	struct sp_lock *l;
	sp_lock_key_t prev;
	int rc = 0;

	if (!core || !tid || !lock || !sp_hold_valid(hold))
		return -EINVAL;
	sp_rcu_read_lock();
	t = sp_task_get(core, tid);
	l = sp_lock_get(core, lock);
	if (!t) {
		rc = -ENOSPC;
		goto out;
	}
	prev = sp_atomic_xchg(&t->blocked_on, lock);
	if (prev != lock) {
		/* A repeat report of the same wait (the kernel's contention
		 * tracepoint fires again after wakeups) keeps the start time
		 * and tracker entry but re-runs the policy: the holder may
		 * have changed. */
		if (prev) {
			/* The unblock of the previous wait was lost: close it. */
			struct sp_grant_match m = { .waiter_or_via = tid };
			struct sp_lock *pl = sp_lock_find(core, prev);

			sp_count(core, SP_C_STALE_EVENTS);
			if (pl)
				sp_tracker_exit(&pl->waiters, tid);
			sp_atomic_add(&t->block_seq, 1);
			sp_grants_end_matching(core, &m, SP_END_UNBLOCK);
		}
		sp_atomic_add(&t->block_seq, 1);
		sp_count(core, SP_C_BLOCKS);
		sp_task_set_block_start(core, t,
					sp_atomic_load(&t->critical) ? sp_now(core) : 0);
		if (l && !sp_tracker_enter(&l->waiters, tid))
			sp_count(core, SP_C_WAITER_OVERFLOWS);
	}
	if (l && hold == SP_HOLD_SHARED && sp_atomic_load(&l->kind) != SP_LOCK_RWLOCK)
		sp_atomic_store(&l->kind, SP_LOCK_RWLOCK);
	sp_smp_mb();
	if (sp_atomic_load(&t->critical) || sp_atomic_load(&t->refs))
		sp_policy_on_block(core, tid, t, lock);
	if (!l)
		rc = -ENOSPC;
out:
	sp_rcu_read_unlock();
	return rc;
}

int sp_lock_unblocked(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock, bool acquired)
{
	struct sp_grant_match m = { .waiter_or_via = tid };
	uint64_t start;
	struct sp_task *t;
	struct sp_lock *l;
	int rc = 0;

	(void)acquired;
	if (!core || !tid || !lock)
		return -EINVAL;
	sp_rcu_read_lock();
	t = sp_task_find(core, tid);
	if (!t || !sp_atomic_cmpxchg(&t->blocked_on, lock, 0)) {
		sp_count(core, SP_C_STALE_EVENTS);
		rc = -ENOENT;
		goto out;
	}
	sp_atomic_add(&t->block_seq, 1);
	sp_count(core, SP_C_UNBLOCKS);
	l = sp_lock_find(core, lock);
	if (l)
		sp_tracker_exit(&l->waiters, tid);
	start = sp_atomic_load(&t->block_start);
	sp_task_set_block_start(core, t, 0);
	if (start) {
		uint64_t now = sp_now(core);

		sp_count(core, SP_C_BLOCKINGS);
		sp_stats_record_blocking(core, now > start ? now - start : 0);
	}
	sp_grants_end_matching(core, &m, SP_END_UNBLOCK);
out:
	sp_rcu_read_unlock();
	return rc;
}

int sp_lock_destroyed(struct sp_core *core, sp_lock_key_t lock)
{
	struct sp_grant_match m = { .lock = lock };
	int slot, rc = 0;

	if (!core || !lock)
		return -EINVAL;
	sp_rcu_read_lock();
	slot = sp_table_find(&core->lock_index, lock);
	if (slot < 0) {
		rc = -ENOENT;
	} else {
		sp_grants_end_matching(core, &m, SP_END_EXIT);
		sp_table_retire(&core->lock_index, (uint32_t)slot, lock);
	}
	sp_rcu_read_unlock();
	return rc;
}

int sp_lock_owner_hint(struct sp_core *core, sp_lock_key_t lock, sp_tid_t expected,
		       sp_tid_t owner)
{
	struct sp_lock *l;
	int rc = 0;

	if (!core || !lock || expected == owner)
		return -EINVAL;
	sp_rcu_read_lock();
	l = owner ? sp_lock_get(core, lock) : sp_lock_find(core, lock);
	if (!l)
		rc = owner ? -ENOSPC : -EAGAIN;
	else if (!sp_atomic_cmpxchg(&l->owner, expected, owner))
		rc = -EAGAIN;
	else if (owner && !sp_tracker_empty(&l->waiters))
		sp_policy_on_acquire(core, owner, l, lock);
	sp_rcu_read_unlock();
	return rc;
}

int sp_lock_owner(struct sp_core *core, sp_lock_key_t lock, sp_tid_t *owner)
{
	struct sp_lock *l;
	int rc = 0;

	if (!core || !lock || !owner)
		return -EINVAL;
	sp_rcu_read_lock();
	l = sp_lock_find(core, lock);
	if (l)
		*owner = sp_atomic_load_acquire(&l->owner);
	else
		rc = -ENOENT;
	sp_rcu_read_unlock();
	return rc;
}

int sp_lock_readers(struct sp_core *core, sp_lock_key_t lock, sp_tid_t *out, uint32_t cap,
		    uint32_t *untracked)
{
	struct sp_lock *l;
	int rc;

	if (!core || !lock || (cap && !out))
		return -EINVAL;
	sp_rcu_read_lock();
	l = sp_lock_find(core, lock);
	if (l) {
		rc = (int)sp_tracker_snapshot(&l->readers, out, cap);
		if (untracked)
			*untracked = (uint32_t)sp_atomic_load(&l->readers.untracked);
	} else {
		rc = -ENOENT;
	}
	sp_rcu_read_unlock();
	return rc;
}
