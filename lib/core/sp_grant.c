// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Fast-track grants: creation, reference counting per target and ending.
 *
 * A grant moves FREE -> CLAIMING -> ACTIVE -> ENDING -> FREE. Only the
 * claimer writes a CLAIMING grant; only the thread whose compare-and-swap
 * took it from ACTIVE to ENDING ends it, so each grant is counted and
 * released exactly once whoever races to end it.
 *
 * The target's refcount goes up before the grant turns ACTIVE, and the
 * grant is checked against the graph after it turns ACTIVE. Whoever changes
 * the graph (a release, an unblock) first changes it, then looks for
 * ACTIVE grants. Both sides use full barriers, so either the creator sees
 * the change and ends its own grant, or the changer sees the grant.
 */
#include "sp_internal.h"

#define SP_MAX_ORIGINS 8u

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

/* Under t->boost_lock. */
static void sp_task_unboost_locked(struct sp_core *core, struct sp_task *t, sp_tid_t tid,
				   uint64_t now)
{
	sp_throttle_roll(core, t, now);
	t->window_used = sp_throttle_used(t, now);
	t->boosted = false;
	sp_count(core, SP_C_RESTORES);
	sp_atomic_add(&core->counters[SP_C_BOOSTED_NOW], (uint64_t)-1);
	if (core->ops.restore(core->ctx, tid) < 0)
		sp_count(core, SP_C_ACTUATOR_ERRORS);
}

void sp_task_force_restore(struct sp_core *core, struct sp_task *t, sp_tid_t tid)
{
	sp_os_lock(&t->boost_lock);
	if (t->boosted)
		sp_task_unboost_locked(core, t, tid, sp_now(core));
	sp_os_unlock(&t->boost_lock);
}

bool sp_grant_end(struct sp_core *core, struct sp_grant *g, enum sp_end_reason why)
{
	struct sp_task *t;

	if (!sp_atomic_cmpxchg(&g->state, SP_GRANT_ACTIVE, SP_GRANT_ENDING))
		return false;
	t = sp_grant_target(core, g);
	if (t) {
		sp_os_lock(&t->boost_lock);
		if (sp_atomic_add(&t->refs, (uint64_t)-1) == 0 && t->boosted)
			sp_task_unboost_locked(core, t, sp_atomic_load(&g->target), sp_now(core));
		sp_os_unlock(&t->boost_lock);
	}
	sp_count(core, (enum sp_counter)why);
	sp_atomic_add(&core->grants_active, (uint64_t)-1);
	sp_atomic_store_release(&g->state, SP_GRANT_FREE);
	return true;
}

bool sp_grant_valid(struct sp_core *core, struct sp_grant *g, enum sp_end_reason *why)
{
	sp_tid_t waiter = sp_atomic_load(&g->waiter), via = sp_atomic_load(&g->via);
	sp_lock_key_t lock = sp_atomic_load(&g->lock);
	struct sp_task *w, *v;

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
	uint32_t i, ended = 0;

	if (!sp_atomic_load(&core->grants_active))
		return 0;
	for (i = 0; i < core->cfg.max_grants; i++) {
		struct sp_grant *g = &core->grants[i];

		if (sp_atomic_load_acquire(&g->state) == SP_GRANT_ACTIVE && sp_grant_matches(g, m) &&
		    sp_grant_end(core, g, why))
			ended++;
	}
	return ended;
}

static struct sp_grant *sp_grant_claim(struct sp_core *core)
{
	uint32_t n = core->cfg.max_grants, i;
	uint32_t start = (uint32_t)(sp_atomic_add(&core->grant_hint, 1) % n);

	for (i = 0; i < n; i++) {
		struct sp_grant *g = &core->grants[(start + i) % n];

		if (sp_atomic_load(&g->state) == SP_GRANT_FREE &&
		    sp_atomic_cmpxchg(&g->state, SP_GRANT_FREE, SP_GRANT_CLAIMING))
			return g;
	}
	return NULL;
}

static bool sp_grant_exists(struct sp_core *core, sp_tid_t waiter, sp_tid_t target,
			    sp_lock_key_t lock)
{
	uint32_t i;

	if (!sp_atomic_load(&core->grants_active))
		return false;
	for (i = 0; i < core->cfg.max_grants; i++) {
		struct sp_grant *g = &core->grants[i];

		if (sp_atomic_load_acquire(&g->state) == SP_GRANT_ACTIVE &&
		    sp_atomic_load(&g->waiter) == waiter && sp_atomic_load(&g->target) == target &&
		    sp_atomic_load(&g->lock) == lock)
			return true;
	}
	return false;
}

/* Takes a reference on @t for a new grant, boosting it on the first one.
 * false if @t may not be fast-tracked now (throttled or exiting). */
static bool sp_task_ref_get(struct sp_core *core, struct sp_task *t, sp_tid_t tid, uint64_t now)
{
	sp_os_lock(&t->boost_lock);
	if (t->dead || now < t->throttled_until) {
		sp_os_unlock(&t->boost_lock);
		return false;
	}
	if (sp_atomic_add(&t->refs, 1) == 1 && !t->boosted) {
		sp_throttle_roll(core, t, now);
		sp_count(core, SP_C_FAST_TRACKS);
		if (core->ops.fast_track(core->ctx, tid) < 0) {
			sp_count(core, SP_C_ACTUATOR_ERRORS);
			/* Not boosted: nothing to restore, but still
			 * counted as a call so fast_tracks == restores. */
			sp_count(core, SP_C_RESTORES);
		} else {
			t->boosted = true;
			t->boost_start = now;
			sp_atomic_add(&core->counters[SP_C_BOOSTED_NOW], 1);
		}
	}
	sp_os_unlock(&t->boost_lock);
	return true;
}

static int sp_grant_create(struct sp_core *core, sp_tid_t waiter, uint64_t waiter_seq,
			   sp_tid_t via, uint64_t via_seq, sp_tid_t target, sp_lock_key_t lock)
{
	enum sp_end_reason why;
	struct sp_grant *g;
	struct sp_task *t;
	uint64_t now;
	int slot;

	if (target == waiter || target == via)
		return 0;
	if (sp_grant_exists(core, waiter, target, lock)) {
		sp_count(core, SP_C_GRANT_DUPS);
		return 0;
	}
	t = sp_task_get(core, target);
	if (!t)
		return -ENOSPC;
	g = sp_grant_claim(core);
	if (!g) {
		sp_count(core, SP_C_GRANT_OVERFLOWS);
		return -ENOSPC;
	}
	now = sp_now(core);
	slot = sp_table_find(&core->task_index, target);
	sp_atomic_store(&g->waiter, waiter);
	sp_atomic_store(&g->waiter_seq, waiter_seq);
	sp_atomic_store(&g->via, via);
	sp_atomic_store(&g->via_seq, via_seq);
	sp_atomic_store(&g->target, target);
	sp_atomic_store(&g->target_ref, sp_atomic_load(&t->gen) << 32 | (uint32_t)slot);
	sp_atomic_store(&g->lock, lock);
	sp_atomic_store(&g->start, now);

	if (slot < 0 || !sp_task_ref_get(core, t, target, now)) {
		sp_count(core, SP_C_GRANTS_REFUSED);
		sp_atomic_store_release(&g->state, SP_GRANT_FREE);
		return -EBUSY;
	}
	sp_atomic_add(&core->grants_active, 1);
	sp_count(core, SP_C_GRANTS);
	sp_atomic_cmpxchg(&g->state, SP_GRANT_CLAIMING, SP_GRANT_ACTIVE);
	if (!sp_grant_valid(core, g, &why))
		sp_grant_end(core, g, why);
	return 0;
}

/* The critical tasks on whose behalf @t (= @tid) is delayed or delays:
 * itself if critical, and the waiters of the grants that target it. */
struct sp_origin {
	sp_tid_t tid;
	uint64_t seq;
};

static uint32_t sp_origins_of(struct sp_core *core, sp_tid_t tid, struct sp_task *t,
			      struct sp_origin *out)
{
	uint32_t n = 0, i, j;

	if (sp_atomic_load(&t->critical))
		out[n++] = (struct sp_origin){ tid, sp_atomic_load(&t->block_seq) };
	if (!sp_atomic_load(&t->refs))
		return n;
	for (i = 0; i < core->cfg.max_grants && n < SP_MAX_ORIGINS; i++) {
		struct sp_grant *g = &core->grants[i];
		sp_tid_t w;

		if (sp_atomic_load_acquire(&g->state) != SP_GRANT_ACTIVE ||
		    sp_atomic_load(&g->target) != tid)
			continue;
		w = sp_atomic_load(&g->waiter);
		for (j = 0; j < n && out[j].tid != w; j++)
			;
		if (j == n)
			out[n++] = (struct sp_origin){ w, sp_atomic_load(&g->waiter_seq) };
	}
	return n;
}

struct sp_grant_walk {
	struct sp_origin origin;
};

static void sp_grant_visit(struct sp_core *core, void *arg, sp_tid_t via, sp_tid_t target,
			   sp_lock_key_t lock)
{
	struct sp_grant_walk *gw = arg;
	struct sp_task *v = sp_task_find(core, via);

	if (v)
		sp_grant_create(core, gw->origin.tid, gw->origin.seq, via,
				sp_atomic_load(&v->block_seq), target, lock);
}

void sp_policy_on_block(struct sp_core *core, sp_tid_t via, struct sp_task *t,
			sp_lock_key_t lock)
{
	struct sp_origin origins[SP_MAX_ORIGINS];
	uint32_t n = sp_origins_of(core, via, t, origins), i;

	for (i = 0; i < n; i++) {
		struct sp_grant_walk gw = { origins[i] };
		struct sp_walk w;

		memset(&w, 0, sizeof(w));
		w.origin = origins[i].tid;
		w.visit = sp_grant_visit;
		w.arg = &gw;
		sp_graph_walk(core, &w, via, lock);
		if (w.depth_limited)
			sp_count(core, SP_C_DEPTH_LIMITED);
		if (w.deadlock) {
			sp_count(core, SP_C_DEADLOCKS);
			if (core->ops.on_deadlock)
				core->ops.on_deadlock(core->ctx, w.origin, lock);
		}
	}
}

void sp_policy_on_acquire(struct sp_core *core, sp_tid_t holder, struct sp_lock *l,
			  sp_lock_key_t lock)
{
	struct sp_origin origins[SP_MAX_ORIGINS];
	uint32_t i, j, n;

	for (i = 0; i < l->waiters.cap; i++) {
		sp_tid_t u = sp_tracker_slot(&l->waiters, i);
		struct sp_task *ut;

		if (!u || u == holder)
			continue;
		ut = sp_task_find(core, u);
		if (!ut || sp_atomic_load_acquire(&ut->blocked_on) != lock)
			continue;
		n = sp_origins_of(core, u, ut, origins);
		for (j = 0; j < n; j++)
			sp_grant_create(core, origins[j].tid, origins[j].seq, u,
					sp_atomic_load(&ut->block_seq), holder, lock);
	}
}
