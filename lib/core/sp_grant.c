// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Fast-track grants: creation, reference counting per target and ending.
 *
 * A grant moves FREE -> CLAIMING -> ACTIVE -> ENDING -> FREE, each step a
 * compare-and-swap on a word that also carries the slot's generation. Only
 * the claimer writes a CLAIMING grant; only the thread whose CAS took it
 * from ACTIVE to ENDING ends it, so each grant is counted and released
 * exactly once whoever races to end it, and a scanner that read a reused
 * slot's fields cannot end the new grant by mistake.
 *
 * The target's refcount goes up before the grant turns ACTIVE, and the
 * grant is checked against the graph after it turns ACTIVE. Whoever changes
 * the graph (a release, an unblock) first changes it, then looks for
 * ACTIVE grants. Both sides use full barriers, so either the creator sees
 * the change and ends its own grant, or the changer sees the grant.
 */
#include "sp_internal.h"

struct sp_task *sp_grant_target(struct sp_core *core, struct sp_grant *g)
{
	uint64_t ref = sp_atomic_load(&g->target_ref);
	struct sp_task *t = &core->tasks[(uint32_t)ref];

	return sp_atomic_load(&t->gen) == (ref >> 32) ? t : NULL;
}

void sp_throttle_roll(struct sp_core *core, struct sp_task *t, uint64_t now)
{
	uint64_t window = core->cfg.throttle_window_ns;

	if (window && now - t->window_start >= window) {
		t->window_start = now;
		t->window_used = 0;
	}
}

uint64_t sp_throttle_used(struct sp_task *t, uint64_t now)
{
	uint64_t since = t->boost_start > t->window_start ? t->boost_start : t->window_start;

	return t->window_used + (t->boosted && now > since ? now - since : 0);
}

/* One actuator call for @t and its bookkeeping. */
static void sp_task_actuate(struct sp_core *core, struct sp_task *t, sp_tid_t tid, bool boost)
{
	uint64_t now = sp_now(core);
	int rc;

	if (boost) {
		sp_count(core, SP_C_fast_tracks);
		rc = core->ops.fast_track(core->ctx, tid);
	} else {
		sp_count(core, SP_C_restores);
		rc = core->ops.restore(core->ctx, tid);
	}
	if (rc < 0)
		sp_count(core, SP_C_actuator_errors);

	sp_os_lock(&t->boost_lock);
	sp_throttle_roll(core, t, now);
	if (boost && rc < 0) {
		/* Nothing was boosted, so nothing will be restored: count the
		 * restore now to keep fast_tracks == restores + boosted_now,
		 * and stop wanting what the host cannot do for this grant. */
		sp_count(core, SP_C_restores);
		t->want_boost = false;
	} else if (boost) {
		t->boosted = true;
		t->boost_start = now;
		sp_atomic_add(&core->counters[SP_C_boosted_now], 1);
	} else {
		t->window_used = sp_throttle_used(t, now);
		t->boosted = false;
		sp_atomic_dec_checked(&core->counters[SP_C_boosted_now]);
	}
	sp_os_unlock(&t->boost_lock);
}

/* Whoever wins t->applying makes the calls, one at a time and in order, so
 * a restore can never overtake the fast track it undoes. A thread that
 * loses leaves its change to the winner, which looks again before it
 * leaves; nobody waits for anybody. */
/* Whether the host's state for @t lags the policy's wish (*@want). */
static bool sp_task_pending(struct sp_task *t, bool *want)
{
	bool pending;

	sp_os_lock(&t->boost_lock);
	*want = t->want_boost;
	pending = *want != t->boosted;
	sp_os_unlock(&t->boost_lock);
	return pending;
}

void sp_task_apply(struct sp_core *core, struct sp_task *t, sp_tid_t tid)
{
	bool want;

	for (;;) {
		/* An exiting task may busy-wait on this section (see
		 * sp_task_force_restore): in the kernel it must not be
		 * preempted (the actuator there only queues work). */
		sp_os_nopreempt_begin();
		if (!sp_atomic_cmpxchg(&t->applying, 0, 1)) {
			sp_os_nopreempt_end();
			return;
		}
		while (sp_task_pending(t, &want))
			sp_task_actuate(core, t, tid, want);
		/* Release: our host calls and bookkeeping are done before
		 * another thread may win "applying"; pairs with its cmpxchg
		 * above and with the load-acquire in sp_task_force_restore. */
		sp_atomic_store_release(&t->applying, 0);
		sp_os_nopreempt_end();
		/* Whoever changed want_boost meanwhile and then failed the
		 * cmpxchg on "applying" relies on us to look again. Their
		 * failed cmpxchg orders nothing; the ordering comes from
		 * boost_lock, under which they wrote want_boost and we read it
		 * below: if their section came first we see the change; if
		 * ours did, our store of 0 above precedes our unlock, which
		 * precedes their lock, which precedes their cmpxchg, so that
		 * one reads 0 and they apply themselves. This full barrier
		 * (store "applying", then load under the lock) is not needed
		 * for that; it keeps the look-again from depending on the
		 * lock's implementation (an acquire compare-and-swap, as
		 * sp_os_lock's on arm64, does not order a prior store before
		 * it). It pairs with their boost_lock section, which precedes
		 * their cmpxchg. */
		sp_smp_mb();
		if (!sp_task_pending(t, &want))
			return;
	}
}

/* How long an exit waits for another thread's actuator call on its task.
 * Bounded: in userspace that thread may be preempted by the very thread
 * that waits (a boosted FIFO thread exiting), and yielding does not let a
 * lower class run. Giving up leaves the restore to that thread, which
 * still makes it; only a tid reused at once could then be caught. */
#define SP_EXIT_WAIT_SPINS 10000u

void sp_task_force_restore(struct sp_core *core, struct sp_task *t, sp_tid_t tid)
{
	uint32_t spins;
	bool boosted;

	sp_os_lock(&t->boost_lock);
	t->want_boost = false;
	sp_os_unlock(&t->boost_lock);
	/* Unlike other callers, wait for a concurrent applier to finish: once
	 * the task is gone its tid may come back in another slot, and a
	 * restore still in flight for this slot would undo the new one's
	 * fast track. (t is dead, so nothing wants it boosted again.) */
	for (spins = 0; spins < SP_EXIT_WAIT_SPINS; spins++) {
		sp_task_apply(core, t, tid);
		sp_os_lock(&t->boost_lock);
		boosted = t->boosted;
		sp_os_unlock(&t->boost_lock);
		/* Acquire: pairs with the store-release of applying = 0 in
		 * sp_task_apply: the applier's last host call is over. */
		if (!boosted && !sp_atomic_load_acquire(&t->applying))
			return;
		sp_os_spin_wait();
	}
}

bool sp_grant_end(struct sp_core *core, struct sp_grant *g, uint64_t word,
		  enum sp_end_reason why)
{
	struct sp_task *t;

	if (sp_grant_state_of(word) != SP_GRANT_ACTIVE ||
	    !sp_atomic_cmpxchg(&g->state, word, (word & ~SP_GRANT_STATE_MASK) | SP_GRANT_ENDING))
		return false;
	t = sp_grant_target(core, g);
	if (t) {
		sp_os_lock(&t->boost_lock);
		if (why == SP_END_EXPIRY) {
			t->spent_waiter = sp_atomic_load(&g->waiter);
			t->spent_seq = sp_atomic_load(&g->waiter_seq);
			t->spent_lock = sp_atomic_load(&g->lock);
			t->spent_until = sp_now(core) + core->cfg.budget_ns;
		}
		if (sp_atomic_dec_checked(&t->refs) == 0)
			t->want_boost = false;
		sp_os_unlock(&t->boost_lock);
		sp_task_apply(core, t, sp_atomic_load(&g->target));
	}
	sp_count(core, (enum sp_counter)why);
	sp_atomic_dec_checked(&core->grants_active);
	/* Release: our reads of the fields above (target_ref, waiter, ...)
	 * are done before the slot can be claimed again; pairs with the
	 * cmpxchg of sp_grant_claim (a full barrier on success), after
	 * which its claimer overwrites them. Relaxed, the claimer's stores
	 * could reach a field before our read of it on arm64, and we would
	 * restore the wrong task. */
	sp_atomic_store_release(&g->state, (word & ~SP_GRANT_STATE_MASK) | SP_GRANT_FREE);
	return true;
}

bool sp_grant_valid(struct sp_core *core, struct sp_grant *g, enum sp_end_reason *why)
{
	sp_tid_t waiter = sp_atomic_load(&g->waiter), via = sp_atomic_load(&g->via);
	sp_lock_key_t lock = sp_atomic_load(&g->lock);
	struct sp_task *w, *v;

	/* The fields are this grant's: the caller published it (creator) or
	 * read its state with a load-acquire (tick). The graph words below
	 * are read with load-acquire (l->owner in sp_lock_held_by,
	 * blocked_on) and change by cmpxchg/xchg, full barriers: see
	 * sp_grant_create for the store-buffering pair this completes. */
	if (!sp_lock_held_by(core, lock, sp_atomic_load(&g->target))) {
		*why = SP_END_RELEASE;
		return false;
	}
	*why = SP_END_UNBLOCK;
	w = sp_task_find(core, waiter);
	if (!w || !sp_atomic_load_acquire(&w->blocked_on) ||
	    sp_atomic_load(&w->block_seq) != sp_atomic_load(&g->waiter_seq))
		return false;
	v = sp_task_find(core, via);
	if (!v || sp_atomic_load_acquire(&v->blocked_on) != lock ||
	    sp_atomic_load(&v->block_seq) != sp_atomic_load(&g->via_seq))
		return false;
	return true;
}

static bool sp_grant_matches(struct sp_grant *g, const struct sp_grant_match *m)
{
	sp_tid_t waiter = sp_atomic_load(&g->waiter), via = sp_atomic_load(&g->via);
	sp_tid_t target = sp_atomic_load(&g->target);

	if (m->target && target != m->target)
		return false;
	if (m->lock && sp_atomic_load(&g->lock) != m->lock)
		return false;
	if (m->waiter_or_via && waiter != m->waiter_or_via && via != m->waiter_or_via)
		return false;
	if (m->any_role && waiter != m->any_role && via != m->any_role && target != m->any_role)
		return false;
	return true;
}

uint32_t sp_grants_end_matching(struct sp_core *core, const struct sp_grant_match *m,
				enum sp_end_reason why)
{
	uint32_t i, n = sp_grant_scan_limit(core), ended = 0;

	for (i = 0; i < n; i++) {
		struct sp_grant *g = &core->grants[i];
		/* Acquire: pairs with the store-release that published the
		 * grant ACTIVE (sp_grant_create), so that sp_grant_matches reads
		 * this grant's fields or a later one's, never an earlier
		 * grant's: relaxed, a releaser could read the previous
		 * target, skip the grant and leave it to the tick. The cmpxchg
		 * in sp_grant_end then checks that the slot did not move on. */
		uint64_t word = sp_atomic_load_acquire(&g->state);

		if (sp_grant_state_of(word) == SP_GRANT_ACTIVE && sp_grant_matches(g, m) &&
		    sp_grant_end(core, g, word, why))
			ended++;
	}
	return ended;
}

/* First fit, so live grants stay packed at the front of the table. */
static struct sp_grant *sp_grant_claim(struct sp_core *core, uint64_t *word)
{
	uint32_t i, n = core->cfg.max_grants;

	for (i = 0; i < n; i++) {
		struct sp_grant *g = &core->grants[i];
		uint64_t w = sp_atomic_load(&g->state), hwm;

		if (sp_grant_state_of(w) != SP_GRANT_FREE)
			continue;
		*word = ((w >> 2) + 1) << 2 | SP_GRANT_CLAIMING;
		/* Full barrier on success: reads FREE from the store-release
		 * at the end of sp_grant_end (or of a refused create), so that
		 * the last owner's reads of the fields precede our stores to
		 * them. A relaxed load found w; only this cmpxchg orders. */
		if (!sp_atomic_cmpxchg(&g->state, w, *word))
			continue;
		for (hwm = sp_atomic_load(&core->grant_hwm); hwm < i + 1;
		     hwm = sp_atomic_load(&core->grant_hwm))
			if (sp_atomic_cmpxchg(&core->grant_hwm, hwm, i + 1))
				break;
		return g;
	}
	return NULL;
}

static bool sp_grant_exists(struct sp_core *core, sp_tid_t waiter, sp_tid_t target,
			    sp_lock_key_t lock)
{
	uint32_t i, n = sp_grant_scan_limit(core);

	for (i = 0; i < n; i++) {
		struct sp_grant *g = &core->grants[i];

		if (sp_grant_state_of(sp_atomic_load_acquire(&g->state)) == SP_GRANT_ACTIVE &&
		    sp_atomic_load(&g->waiter) == waiter && sp_atomic_load(&g->target) == target &&
		    sp_atomic_load(&g->lock) == lock)
			return true;
	}
	return false;
}

/* Takes a reference on @t for grant @g; the first one makes the policy
 * want @t fast-tracked (sp_task_apply tells the host). false if @t may not
 * be fast-tracked now: throttled, exiting, or this very wait used up a
 * grant's budget on it less than a budget ago (the wait may ask again after
 * as long off as it had on, so a long critical section still progresses
 * at half speed instead of starving). */
static bool sp_task_ref_get(struct sp_task *t, struct sp_grant *g, uint64_t now)
{
	sp_os_lock(&t->boost_lock);
	if (t->dead || now < t->throttled_until ||
	    (now < t->spent_until && t->spent_waiter == sp_atomic_load(&g->waiter) &&
	     t->spent_seq == sp_atomic_load(&g->waiter_seq) &&
	     t->spent_lock == sp_atomic_load(&g->lock))) {
		sp_os_unlock(&t->boost_lock);
		return false;
	}
	if (sp_atomic_add(&t->refs, 1) == 1)
		t->want_boost = true;
	sp_os_unlock(&t->boost_lock);
	return true;
}

int sp_grant_create(struct sp_core *core, sp_tid_t waiter, uint64_t waiter_seq, sp_tid_t via,
		    uint64_t via_seq, sp_tid_t target, sp_lock_key_t lock)
{
	enum sp_end_reason why;
	struct sp_grant *g;
	struct sp_task *t;
	uint64_t now, word;
	int slot;

	if (target == waiter || target == via)
		return 0;
	if (sp_grant_exists(core, waiter, target, lock)) {
		sp_count(core, SP_C_grant_dups);
		return 0;
	}
	t = sp_task_get(core, target);
	slot = sp_table_find(&core->task_index, target);
	if (!t || slot < 0)
		return -ENOSPC;
	g = sp_grant_claim(core, &word);
	if (!g) {
		sp_count(core, SP_C_grant_overflows);
		return -ENOSPC;
	}
	now = sp_now(core);
	sp_atomic_store(&g->waiter, waiter);
	sp_atomic_store(&g->waiter_seq, waiter_seq);
	sp_atomic_store(&g->via, via);
	sp_atomic_store(&g->via_seq, via_seq);
	sp_atomic_store(&g->target, target);
	sp_atomic_store(&g->target_ref, sp_atomic_load(&t->gen) << 32 | (uint32_t)slot);
	sp_atomic_store(&g->lock, lock);
	sp_atomic_store(&g->start, now);

	if (!sp_task_ref_get(t, g, now)) {
		sp_count(core, SP_C_grants_refused);
		sp_atomic_store_release(&g->state, (word & ~SP_GRANT_STATE_MASK) | SP_GRANT_FREE);
		return -EBUSY;
	}
	sp_atomic_add(&core->grants_active, 1);
	sp_count(core, SP_C_grants);
	/* ACTIVE before the host is told: a fast-tracked target may preempt
	 * us right away, and its release (or the tick) must find the grant.
	 * Release: publishes the fields stored above; pairs with the acquire
	 * loads of g->state in every scanner (sp_grants_end_matching,
	 * sp_grant_exists, sp_origins_of, sp_tick), which then read them. On
	 * a weakly ordered CPU a relaxed store here could let a scanner read
	 * the previous grant's target_ref and drop another task's ref. */
	word = (word & ~SP_GRANT_STATE_MASK) | SP_GRANT_ACTIVE;
	sp_atomic_store_release(&g->state, word);
	/* Store-load order between "grant ACTIVE" and the graph reads of
	 * sp_grant_valid; pairs with the full barrier a release or unblock
	 * makes between changing the graph and scanning for grants (the
	 * cmpxchg in sp_lock_released / sp_tracker_exit, the one in
	 * sp_lock_unblocked on blocked_on). Either side sees the other. */
	sp_smp_mb();
	if (!sp_grant_valid(core, g, &why))
		sp_grant_end(core, g, word, why);
	sp_task_apply(core, t, target);
	return 0;
}
