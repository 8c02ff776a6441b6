// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The fast-track policy: who gets a grant when a task blocks or a lock
 * changes hands.
 *
 * A task's waiting matters when it is critical, or when it is itself
 * fast-tracked on behalf of critical tasks (then it extends their chains).
 * Those critical tasks are the grant's "origins": every grant names the
 * critical task it ultimately serves, so that its end is tied to that
 * task's wait.
 */
#include "sp_internal.h"

#define SP_MAX_ORIGINS 8u

struct sp_origin {
	sp_tid_t tid;
	uint64_t seq;
};

/* The critical tasks on whose behalf @t (= @tid) is delayed or delays:
 * itself if critical, and the waiters of the grants that target it. */
static uint32_t sp_origins_of(struct sp_core *core, sp_tid_t tid, struct sp_task *t,
			      struct sp_origin *out)
{
	uint32_t n = 0, i, j, limit;

	if (sp_atomic_load(&t->critical))
		out[n++] = (struct sp_origin){ tid, sp_atomic_load(&t->block_seq) };
	if (!sp_atomic_load(&t->refs))
		return n;
	limit = sp_grant_scan_limit(core);
	for (i = 0; i < limit && n < SP_MAX_ORIGINS; i++) {
		struct sp_grant *g = &core->grants[i];
		sp_tid_t w;

		if (sp_grant_state_of(sp_atomic_load_acquire(&g->state)) != SP_GRANT_ACTIVE ||
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

static void sp_policy_grant_visit(struct sp_core *core, void *arg, sp_tid_t via,
				  sp_tid_t target, sp_lock_key_t lock)
{
	const struct sp_origin *origin = arg;
	struct sp_task *v = sp_task_find(core, via);

	if (v)
		sp_grant_create(core, origin->tid, origin->seq, via, sp_atomic_load(&v->block_seq),
				target, lock);
}

static void sp_walk_start(struct sp_walk *w, sp_tid_t origin, sp_walk_visit_fn visit, void *arg)
{
	memset(w, 0, sizeof(*w));
	w->origin = origin;
	w->visit = visit;
	w->arg = arg;
}

void sp_policy_on_block(struct sp_core *core, sp_tid_t via, struct sp_task *t,
			sp_lock_key_t lock)
{
	struct sp_origin origins[SP_MAX_ORIGINS];
	uint32_t n = sp_origins_of(core, via, t, origins), i;
	bool cycle = false;
	struct sp_walk w;

	for (i = 0; i < n; i++) {
		sp_walk_start(&w, origins[i].tid, sp_policy_grant_visit, &origins[i]);
		sp_graph_walk(core, &w, via, lock);
		if (w.depth_limited)
			sp_count(core, SP_C_depth_limited);
		cycle = cycle || w.deadlock;
	}
	/* A cycle met on the way is only a suspicion until it is checked
	 * (sp_deadlock.c). */
	if (cycle)
		sp_deadlock_check(core, via, t, lock);
}

void sp_policy_on_acquire(struct sp_core *core, sp_tid_t holder, struct sp_lock *l,
			  sp_lock_key_t lock, sp_tid_t except)
{
	struct sp_origin origins[SP_MAX_ORIGINS];
	bool futex = sp_atomic_load(&l->kind) == SP_LOCK_FUTEX;
	uint32_t i, j, n;

	for (i = 0; i < l->waiters.cap; i++) {
		sp_tid_t u = sp_tracker_slot(&l->waiters, i);
		struct sp_task *ut;

		if (!u || u == holder || u == except)
			continue;
		ut = sp_task_find(core, u);
		if (!ut || sp_atomic_load_acquire(&ut->blocked_on) != lock)
			continue;
		/* A waiter that holds the lock it waits for is being handed it
		 * (a reader queued in glibc, reported by a scan): it waits for
		 * nothing through this lock, as the walk holds
		 * (sp_graph_walk.c), and a grant made in its name would end
		 * with its wait: of two such readers, the first to wake would
		 * end the other's only grant, leaving it unboosted until the
		 * tick's walk. A futex lock's candidates hold nothing for sure: one
		 * that waits is a waiter like the others. */
		if (!futex && (sp_atomic_load_acquire(&l->owner) == u ||
			       sp_tracker_contains(&l->readers, u)))
			continue;
		n = sp_origins_of(core, u, ut, origins);
		for (j = 0; j < n; j++)
			sp_grant_create(core, origins[j].tid, origins[j].seq, u,
					sp_atomic_load(&ut->block_seq), holder, lock);
	}
}
