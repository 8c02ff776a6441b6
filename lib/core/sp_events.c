// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Events: the graph edges change here, and the policy is asked to act
 * only when a grant could follow (a critical or fast-tracked task blocks, a
 * lock with tracked waiters changes hands, a fast-tracked task releases).
 * The uncontended acquire/release path touches two table lookups, a few
 * atomic words of its own and no lock.
 *
 * sp_core_event() is the one entry every host uses for an event record;
 * the named functions below are the same events without the dispatch.
 */
#include "sp_internal.h"

static bool sp_hold_valid(enum sp_hold hold)
{
	return hold == SP_HOLD_EXCL || hold == SP_HOLD_SHARED;
}

/* A malformed event: counted, never acted on. */
static int sp_event_bad(struct sp_core *core)
{
	if (core)
		sp_count(core, SP_C_bad_events);
	return -EINVAL;
}

int sp_lock_declare(struct sp_core *core, sp_lock_key_t lock, enum sp_lock_kind kind)
{
	struct sp_lock *l;
	int rc = 0;

	if (!core || !lock ||
	    (kind != SP_LOCK_MUTEX && kind != SP_LOCK_RWLOCK && kind != SP_LOCK_FUTEX))
		return sp_event_bad(core);
	sp_rcu_read_lock();
	l = sp_lock_get(core, lock);
	if (l)
		sp_atomic_store(&l->kind, kind);
	else
		rc = -ENOSPC;
	sp_rcu_read_unlock();
	return rc;
}

/*
 * @tid was seen at futex lock @l: waking it or back from a wait on it. It
 * becomes a candidate holder, and the lock's other waiters, which may have
 * lost their grants to a wake, get theirs on it.
 */
static void sp_futex_note(struct sp_core *core, sp_tid_t tid, struct sp_lock *l,
			  sp_lock_key_t lock)
{
	struct sp_task *t = sp_task_get(core, tid);

	/* known, and marked as recorded on a lock without an acquire, so
	 * that its exit takes it out of the set (sp_task_release_all) */
	if (!t)
		return;
	if (!sp_atomic_load(&t->word_owned))
		sp_atomic_store(&t->word_owned, 1);
	sp_tracker_note(&l->readers, tid, &l->cand_next);
	if (!sp_tracker_empty(&l->waiters))
		sp_policy_on_acquire(core, tid, l, lock, 0);
}

/* The acquire itself, inside the caller's read-side section. */
static int sp_lock_record_acquire(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock,
				  enum sp_hold hold, bool word_derived)
{
	struct sp_task *t;
	struct sp_lock *l;

	l = sp_lock_get(core, lock);
	t = sp_task_get(core, tid);
	/* An acquire event even when a full lock table keeps it out of the
	 * graph. */
	if (t)
		sp_atomic_add(&t->acquires, 1);
	else
		sp_count(core, SP_C_acquires);
	if (sp_unlikely(!l))
		return -ENOSPC;
	if (sp_unlikely(sp_atomic_load(&l->kind) == SP_LOCK_FUTEX)) {
		sp_futex_note(core, tid, l, lock);
		return 0;
	}
	if (hold == SP_HOLD_EXCL) {
		/* An owner the core heard acquire the lock is no longer one
		 * a lock word named (sp_lock_set_owner may replace only
		 * those), unless it is the end of a wait whose host reads
		 * lock words: such a host may never see the release (the
		 * kernel does not trace mutex_unlock), so the next word it
		 * reads must be able to replace this owner. Same cache line,
		 * read-mostly: no cost worth a branch miss. */
		if (sp_unlikely(word_derived))
			sp_atomic_store(&l->word_owner, tid);
		else if (sp_unlikely(sp_atomic_load(&l->word_owner)))
			sp_atomic_store(&l->word_owner, 0);
		/* No full barrier here: it would cost more than the rest of
		 * this path. Without it, a waiter that blocks in the same
		 * instant may read the previous owner while we read no
		 * waiters; the tick's refresh of long critical waits
		 * (sp_tick.c) closes that window.
		 * Release: pairs with the acquire loads of l->owner in the
		 * graph walk, so a walker that sees us as owner also sees the
		 * word_owner store above. */
		sp_atomic_store_release(&l->owner, tid);
	} else {
		if (sp_atomic_load(&l->kind) != SP_LOCK_RWLOCK)
			sp_atomic_store(&l->kind, SP_LOCK_RWLOCK);
		if (!sp_tracker_enter(&l->readers, tid))
			sp_count(core, SP_C_reader_overflows);
	}
	if (sp_unlikely(!sp_tracker_empty(&l->waiters)))
		sp_policy_on_acquire(core, tid, l, lock, 0);
	return 0;
}

int sp_lock_acquired(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock, enum sp_hold hold)
{
	int rc;

	if (sp_unlikely(!core || !tid || !lock || !sp_hold_valid(hold)))
		return sp_event_bad(core);
	sp_rcu_read_lock();
	rc = sp_lock_record_acquire(core, tid, lock, hold, false);
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
		return sp_event_bad(core);
	sp_rcu_read_lock();
	l = sp_lock_find(core, lock);
	t = sp_task_find(core, tid);
	if (sp_unlikely(!l)) {
		sp_count(core, SP_C_stale_events);
		rc = -ENOENT;
		goto out;
	}
	if (sp_unlikely(sp_atomic_load(&l->kind) == SP_LOCK_FUTEX)) {
		/* A wake: the word was just let go. No grant on it stands (it
		 * is free, or the woken waiter's now), and the waker is the
		 * likeliest next holder. */
		struct sp_grant_match m = { .lock = lock };

		if (t)
			sp_atomic_add(&t->releases, 1);
		sp_grants_end_matching(core, &m, SP_END_RELEASE);
		sp_futex_note(core, tid, l, lock);
		goto out;
	}
	/* A successful exchange is a full barrier (sp_os.h): the graph
	 * change is ordered before the refs load below. Pairs with the
	 * sp_smp_mb() in sp_grant_create between publishing a grant ACTIVE
	 * and validating it: either we see its ref, or it sees the lock
	 * released and ends itself. A failed exchange changed nothing. */
	if (hold == SP_HOLD_EXCL)
		held = sp_atomic_cmpxchg(&l->owner, tid, 0);
	else
		held = sp_tracker_exit(&l->readers, tid);
	if (sp_unlikely(!held))
		sp_count(core, SP_C_stale_events);
	if (t) {
		sp_atomic_add(&t->releases, 1);
		if (sp_unlikely(sp_atomic_load(&t->refs))) {
			struct sp_grant_match m = { .target = tid, .lock = lock };

			sp_grants_end_matching(core, &m, SP_END_RELEASE);
		}
	} else {
		sp_count(core, SP_C_releases);
	}
out:
	sp_rcu_read_unlock();
	return rc;
}

/*
 * The one place where the owner a host read from the lock word meets the
 * core's record of @l. The word is taken when the record is empty or was
 * itself taken from a word (l->word_owner): in the kernel, where only
 * contended acquisitions are seen, every owner is such a one, and a new
 * word replaces it (a release the host never saw). An owner the core heard
 * acquire the lock wins: its release event will come, and the word may be
 * stale already. A word of 0 ("free") only clears an owner taken from a
 * word. Returns true if the record changed to a task.
 */
static bool sp_lock_set_owner(struct sp_core *core, struct sp_lock *l, sp_lock_key_t key,
			      sp_tid_t self, sp_tid_t word)
{
	sp_tid_t cur = sp_atomic_load_acquire(&l->owner);

	if (word == cur || word == self)
		return false;
	if (cur && cur != sp_atomic_load(&l->word_owner))
		return false;
	/* Full barrier on success (sp_os.h): a release that clears the owner
	 * between our load and here makes it fail, and we keep the release. */
	if (!sp_atomic_cmpxchg(&l->owner, cur, word))
		return false;
	sp_atomic_store(&l->word_owner, word);
	sp_count(core, SP_C_owner_updates);
	if (word) {
		/* Its exit must drop this owner record: no acquire of its was
		 * counted (sp_task_exit). */
		struct sp_task *wt = sp_task_get(core, word);

		if (wt)
			sp_atomic_store(&wt->word_owned, 1);
	}
	if (cur) {
		/* The previous owner let go unseen: its grants on @l end
		 * as its release would have ended them. */
		struct sp_grant_match m = { .target = cur, .lock = key };

		sp_grants_end_matching(core, &m, SP_END_RELEASE);
	}
	return word != 0;
}

int sp_lock_blocked_owner(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock,
			  enum sp_hold hold, bool owner_known, sp_tid_t owner)
{
	struct sp_task *t;
	struct sp_lock *l;
	sp_lock_key_t prev;
	bool new_owner = false;
	int rc = 0;

	if (!core || !tid || !lock || !sp_hold_valid(hold) || (!owner_known && owner))
		return sp_event_bad(core);
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
		 * tracepoint fires again after wakeups, a host re-reads a
		 * changed lock word) keeps the start time and tracker entry
		 * but re-runs the policy: the holder may have changed. */
		if (prev) {
			/* The unblock of the previous wait was lost: close it. */
			struct sp_grant_match m = { .waiter_or_via = tid };
			struct sp_lock *pl = sp_lock_find(core, prev);

			sp_count(core, SP_C_stale_events);
			if (pl)
				sp_tracker_exit(&pl->waiters, tid);
			sp_atomic_add(&t->block_seq, 1);
			sp_grants_end_matching(core, &m, SP_END_UNBLOCK);
		}
		sp_atomic_add(&t->block_seq, 1);
		sp_count(core, SP_C_blocks);
		sp_task_set_block_start(core, t,
					sp_atomic_load(&t->critical) ? sp_now(core) : 0);
		if (l && !sp_tracker_enter(&l->waiters, tid))
			sp_count(core, SP_C_waiter_overflows);
	}
	/* Relaxed, after blocked_on was published: only this task's own
	 * unblock reads them (sp_lock_unblocked), in program order (a task
	 * that moves to another CPU passes the scheduler's full barriers). */
	sp_atomic_store(&t->blocked_hold, hold);
	sp_atomic_store(&t->blocked_word, owner_known);
	if (l && hold == SP_HOLD_SHARED && sp_atomic_load(&l->kind) != SP_LOCK_RWLOCK &&
	    sp_atomic_load(&l->kind) != SP_LOCK_FUTEX)
		sp_atomic_store(&l->kind, SP_LOCK_RWLOCK);
	if (l && owner_known)
		new_owner = sp_lock_set_owner(core, l, lock, tid, owner);
	/* A futex word's candidate that waits for it holds it not: its
	 * grants on it end now, before it sleeps. Kept, it would queue in
	 * the kernel at its fast track's RT priority, ahead of the critical
	 * waiter, and take the word first at every wake. */
	if (l && sp_unlikely(sp_atomic_load(&l->kind) == SP_LOCK_FUTEX) &&
	    sp_atomic_load(&t->refs)) {
		struct sp_grant_match m = { .target = tid, .lock = lock };

		sp_grants_end_matching(core, &m, SP_END_RELEASE);
	}
	/* Pairs with the full barrier of the release path's cmpxchg on
	 * l->owner (sp_lock_released): either it sees us in the waiters (and
	 * ends what we grant), or we see its release in the walk. */
	sp_smp_mb();
	/* The other waiters of a lock whose holder just became known. */
	if (new_owner)
		sp_policy_on_acquire(core, owner, l, lock, tid);
	if (sp_atomic_load(&t->critical) || sp_atomic_load(&t->refs))
		sp_policy_on_block(core, tid, t, lock);
	if (!l)
		rc = -ENOSPC;
out:
	sp_rcu_read_unlock();
	return rc;
}

int sp_lock_blocked(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock, enum sp_hold hold)
{
	return sp_lock_blocked_owner(core, tid, lock, hold, false, 0);
}

int sp_lock_unblocked(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock, bool acquired)
{
	struct sp_grant_match m = { .waiter_or_via = tid };
	uint64_t start;
	struct sp_task *t;
	struct sp_lock *l;
	int rc = 0;

	if (!core || !tid || !lock)
		return sp_event_bad(core);
	sp_rcu_read_lock();
	t = sp_task_find(core, tid);
	/* Full barrier on success: blocked_on = 0 is ordered before the grant
	 * scan below; pairs with the sp_smp_mb() in sp_grant_create between
	 * publishing a grant and validating its waiter's blocked_on. */
	if (!t || !sp_atomic_cmpxchg(&t->blocked_on, lock, 0)) {
		sp_count(core, SP_C_stale_events);
		rc = -ENOENT;
		goto out;
	}
	sp_atomic_add(&t->block_seq, 1);
	sp_count(core, SP_C_unblocks);
	l = sp_lock_find(core, lock);
	if (l)
		sp_tracker_exit(&l->waiters, tid);
	start = sp_atomic_load(&t->block_start);
	sp_task_set_block_start(core, t, 0);
	if (start) {
		uint64_t now = sp_now(core);

		sp_count(core, SP_C_blockings);
		sp_stats_record_blocking(core, now > start ? now - start : 0);
	}
	sp_grants_end_matching(core, &m, SP_END_UNBLOCK);
	/* After the wait's grants end: the acquire may grant to us on behalf
	 * of the lock's other waiters, and must not be undone as "ours". */
	if (acquired)
		(void)sp_lock_record_acquire(core, tid, lock,
					     (enum sp_hold)sp_atomic_load(&t->blocked_hold),
					     sp_atomic_load(&t->blocked_word));
out:
	sp_rcu_read_unlock();
	return rc;
}

int sp_lock_destroyed(struct sp_core *core, sp_lock_key_t lock)
{
	struct sp_grant_match m = { .lock = lock };
	int slot, rc = 0;

	if (!core || !lock)
		return sp_event_bad(core);
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

static const char *const sp_event_names[SP_EV_NR] = {
	[SP_EV_ACQUIRED] = "acquired",   [SP_EV_RELEASED] = "released",
	[SP_EV_BLOCKED] = "blocked",     [SP_EV_UNBLOCKED] = "unblocked",
	[SP_EV_DESTROYED] = "destroyed", [SP_EV_DECLARED] = "declared",
	[SP_EV_EXIT] = "exit",           [SP_EV_CRITICAL] = "critical",
};

/* The flags each type takes; anything else is a malformed record. */
static const uint32_t sp_event_flags[SP_EV_NR] = {
	[SP_EV_BLOCKED] = SP_EVF_OWNER,
	[SP_EV_UNBLOCKED] = SP_EVF_ACQUIRED,
	[SP_EV_CRITICAL] = SP_EVF_ON,
};

const char *sp_event_name(unsigned int type)
{
	return type < SP_EV_NR ? sp_event_names[type] : NULL;
}

int sp_core_event(struct sp_core *core, const struct sp_event *ev)
{
	if (!core || !ev)
		return -EINVAL;
	if (ev->type == 0 || ev->type >= SP_EV_NR || (ev->flags & ~sp_event_flags[ev->type]) ||
	    (ev->owner && !(ev->flags & SP_EVF_OWNER)))
		return sp_event_bad(core);
	switch ((enum sp_event_type)ev->type) {
	case SP_EV_ACQUIRED:
		return sp_lock_acquired(core, ev->tid, ev->lock, (enum sp_hold)ev->hold);
	case SP_EV_RELEASED:
		return sp_lock_released(core, ev->tid, ev->lock, (enum sp_hold)ev->hold);
	case SP_EV_BLOCKED:
		if (ev->kind > SP_LOCK_RWLOCK)
			return sp_event_bad(core);
		if (ev->kind != SP_LOCK_UNKNOWN && ev->lock)
			sp_lock_declare(core, ev->lock, (enum sp_lock_kind)ev->kind);
		return sp_lock_blocked_owner(core, ev->tid, ev->lock, (enum sp_hold)ev->hold,
					     ev->flags & SP_EVF_OWNER, ev->owner);
	case SP_EV_UNBLOCKED:
		return sp_lock_unblocked(core, ev->tid, ev->lock, ev->flags & SP_EVF_ACQUIRED);
	case SP_EV_DESTROYED:
		return sp_lock_destroyed(core, ev->lock);
	case SP_EV_DECLARED:
		return sp_lock_declare(core, ev->lock, (enum sp_lock_kind)ev->kind);
	case SP_EV_EXIT:
		return ev->tid ? sp_task_exit(core, ev->tid) : sp_event_bad(core);
	case SP_EV_CRITICAL:
		return ev->tid ? sp_task_set_critical(core, ev->tid, ev->flags & SP_EVF_ON)
			       : sp_event_bad(core);
	case SP_EV_NR:
		break;
	}
	return sp_event_bad(core);
}
