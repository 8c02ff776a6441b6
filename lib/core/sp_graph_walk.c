// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Walks the blocker graph from a waiter to every task that delays it:
 * the owner and tracked readers of the lock it waits for, then, for each of
 * those that is itself waiting, the holders of that lock, and so on.
 *
 * The walk reads atomic words only and takes no lock, so it can run inside
 * a kernel lock-contention probe. Its cost is bounded twice: by max_depth
 * (chain length) and by SP_WALK_MAX_NODES (fan-out through readers). A lock
 * met twice on the current path, or the walk's origin met as a holder, is a
 * cycle: flagged, never followed; whether it is reported is for
 * sp_deadlock.c to say. A futex lock's candidates are guesses
 * (SP_LOCK_FUTEX): those that wait for it themselves, and the waiter,
 * are skipped, and a cycle behind a guess is not flagged.
 */
#include "sp_internal.h"

#define SP_WALK_MAX_NODES 256u

static void sp_walk_holder(struct sp_core *core, struct sp_walk *w, sp_tid_t via,
			   sp_tid_t holder, sp_lock_key_t lock)
{
	struct sp_task *t;
	sp_lock_key_t next;

	if (holder == w->origin || holder == via) {
		/* The delayed task holds what it waits for: a deadlock (for
		 * via, a reader asking for the write side of its own lock). */
		if (!w->guessed)
			w->deadlock = true;
		return;
	}
	if (w->nodes >= SP_WALK_MAX_NODES) {
		w->depth_limited = true;
		return;
	}
	w->nodes++;
	w->visit(core, w->arg, via, holder, lock);

	t = sp_task_find(core, holder);
	if (!t)
		return;
	next = sp_atomic_load_acquire(&t->blocked_on);
	/* A holder still waiting for the very lock it holds is being handed
	 * it (a kernel mutex handoff names the waiter in the owner word
	 * before it wakes): nothing further delays us through it, and it is
	 * no cycle. A task that really waits for what it holds is found by
	 * its own walk (holder == via above). */
	if (next && next != lock)
		sp_graph_walk(core, w, holder, next);
}

/* A candidate of futex lock @lock that cannot be what @via waits for: the
 * waiter itself, or one waiting for the same word. */
static bool sp_futex_not_holder(struct sp_core *core, const struct sp_walk *w, sp_tid_t via,
				sp_tid_t cand, sp_lock_key_t lock)
{
	struct sp_task *t;

	if (cand == via || cand == w->origin)
		return true;
	t = sp_task_find(core, cand);
	return t && sp_atomic_load_acquire(&t->blocked_on) == lock;
}

void sp_graph_walk(struct sp_core *core, struct sp_walk *w, sp_tid_t via, sp_lock_key_t lock)
{
	struct sp_lock *l;
	sp_tid_t owner;
	uint32_t i;

	for (i = 0; i < w->depth; i++) {
		if (w->path[i] == lock) {
			if (!w->guessed)
				w->deadlock = true;
			return;
		}
	}
	if (w->depth >= core->cfg.max_depth) {
		w->depth_limited = true;
		return;
	}
	l = sp_lock_find(core, lock);
	if (!l)
		return;

	w->path[w->depth++] = lock;
	owner = sp_atomic_load_acquire(&l->owner);
	if (owner)
		sp_walk_holder(core, w, via, owner, lock);
	if (!sp_tracker_empty(&l->readers)) {
		bool guess = sp_atomic_load(&l->kind) == SP_LOCK_FUTEX;

		w->guessed += guess;
		for (i = 0; i < l->readers.cap; i++) {
			sp_tid_t reader = sp_tracker_slot(&l->readers, i);

			if (!reader || (guess && sp_futex_not_holder(core, w, via, reader, lock)))
				continue;
			sp_walk_holder(core, w, via, reader, lock);
		}
		w->guessed -= guess;
	}
	w->depth--;
}

bool sp_lock_held_by(struct sp_core *core, sp_lock_key_t key, sp_tid_t tid)
{
	struct sp_lock *l = sp_lock_find(core, key);

	if (!l)
		return false;
	return sp_atomic_load_acquire(&l->owner) == tid || sp_tracker_contains(&l->readers, tid);
}

struct sp_collect {
	sp_tid_t *out;
	uint32_t cap;
	uint32_t nr;
	uint32_t missed;
};

static void sp_collect_visit(struct sp_core *core, void *arg, sp_tid_t via, sp_tid_t target,
			     sp_lock_key_t lock)
{
	struct sp_collect *c = arg;
	uint32_t i;

	(void)core;
	(void)via;
	(void)lock;
	for (i = 0; i < c->nr; i++)
		if (c->out[i] == target)
			return;
	if (c->nr < c->cap)
		c->out[c->nr++] = target;
	else
		c->missed++;
}

int sp_graph_blockers(struct sp_core *core, sp_tid_t tid, sp_tid_t *out, uint32_t cap,
		      struct sp_walk_result *res)
{
	struct sp_collect c = { .out = out, .cap = cap };
	struct sp_walk w;
	struct sp_task *t;
	sp_lock_key_t lock;
	int rc = 0;

	if (!core || !tid || !res || (cap && !out))
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	memset(&w, 0, sizeof(w));
	w.origin = tid;
	w.visit = sp_collect_visit;
	w.arg = &c;

	sp_rcu_read_lock();
	t = sp_task_find(core, tid);
	if (!t) {
		rc = -ENOENT;
		goto out;
	}
	lock = sp_atomic_load_acquire(&t->blocked_on);
	if (lock)
		sp_graph_walk(core, &w, tid, lock);
	res->nr = c.nr;
	res->missed = c.missed;
	res->deadlock = w.deadlock;
	res->depth_limited = w.depth_limited;
out:
	sp_rcu_read_unlock();
	return rc;
}
