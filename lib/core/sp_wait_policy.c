// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The critical waiter's own mechanisms: what it does with itself while it
 * waits, and when a thread that just took its lock gives it back. Hosts
 * carry the decisions out with their primitives (core.h lists who has
 * which); the rules and their bounds live here, so the simulator runs the
 * runtime's.
 *
 * The raise (SP_WAIT_CAN_RAISE). A critical waiter raises itself to the
 * fast tracks' own priority before its holders are fast-tracked: a holder
 * fast-tracked on its CPU would otherwise preempt it before it sleeps, and
 * one of two fast-tracked holders on one other CPU would be pushed to it
 * by the RT class. An equal priority neither preempts it nor is pushed to
 * its CPU. It stays raised while it sleeps and, if its wait took the lock,
 * until it releases that lock or wait_raise_hold_ns pass (one tick at
 * HZ=250, by when the fair class has looked again): lowered at its wake it
 * would be back in the fair class with the lag it slept with (its CPU ran
 * real-time holders, which stops the fair clock), not eligible, behind a
 * hog until the next tick. At most wait_raise_max threads are raised at
 * once (a UI thread and a render or audio thread, with room to spare);
 * the bound is the host's, which holds the slots.
 *
 * The slice (SP_WAIT_CAN_SLICE). Without the raise, a critical thread
 * waits with a short EEVDF slice: woken when its lock is let go, it must
 * still get a CPU to take it, and the fair class lets a woken thread
 * preempt the running one only if its slice is shorter (PREEMPT_SHORT);
 * otherwise it waits for the running one's slice to end at a tick.
 * Where the raise is made it stands in for the slice.
 *
 * The hand-off. A lock whose unlock frees the word and wakes one waiter
 * (glibc's mutex) goes to whoever reaches the word first: a holder the
 * fast track just ran through its section, with a backlog, locks again
 * before the woken critical thread has run, and the critical thread
 * sleeps again behind a new fast-tracked hold, as often as the backlog
 * lasts. So a taker that is not critical gives a lock a critical task
 * waits for back at once and sleeps until that wait ends (the critical
 * thread has the lock by then, or gave up) or handoff_wait_ns pass, then
 * waits like anybody. Safe because: the lock was free when it took it, so
 * the critical thread needs only a CPU from it; the sleep is bounded and
 * a lock call yields at most once; a taker that holds anything (it may be
 * the holder somebody needs next) or is critical keeps the lock.
 */
#include "sp_internal.h"

int sp_core_wait_plan(struct sp_core *core, sp_tid_t tid, uint32_t can,
		      struct sp_wait_plan *out)
{
	const struct sp_config *cfg;
	struct sp_task *t;
	bool critical;

	if (!core || !tid || !out || (can & ~(SP_WAIT_CAN_RAISE | SP_WAIT_CAN_SLICE)))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	sp_rcu_read_lock();
	t = sp_task_find(core, tid);
	critical = t && sp_atomic_load(&t->critical);
	sp_rcu_read_unlock();
	if (!critical)
		return 0;
	cfg = &core->cfg;
	if ((can & SP_WAIT_CAN_RAISE) && cfg->wait_raise_max) {
		out->raise = true;
		out->raise_max = cfg->wait_raise_max;
		out->raise_hold_ns = cfg->wait_raise_hold_ns;
	}
	if (can & SP_WAIT_CAN_SLICE)
		out->slice_ns = cfg->wait_slice_ns; /* where the raise is not made */
	return out->raise || out->slice_ns ? 1 : 0;
}

/* A critical task waits for @l now (its wait is @l's, not a stale slot). */
static bool sp_critical_waits(struct sp_core *core, struct sp_lock *l, sp_lock_key_t lock)
{
	const struct sp_tracker *w = &l->waiters;

	if (sp_tracker_empty(w))
		return false;
	for (uint32_t i = 0; i < w->cap; i++) {
		sp_tid_t tid = sp_tracker_slot(w, i);
		struct sp_task *t;

		if (!tid || !(t = sp_task_find(core, tid)))
			continue;
		if (sp_atomic_load(&t->critical) && sp_atomic_load(&t->blocked_on) == lock)
			return true;
	}
	return false;
}

uint64_t sp_core_handoff_wanted(struct sp_core *core, sp_tid_t taker, sp_lock_key_t lock,
				uint32_t taker_holds)
{
	struct sp_task *t;
	struct sp_lock *l;
	uint64_t kind;
	bool yes = false;

	if (!core || !taker || !lock || taker_holds || !core->cfg.handoff_wait_ns)
		return 0;
	sp_rcu_read_lock();
	t = sp_task_find(core, taker);
	l = sp_lock_find(core, lock);
	if (l && !(t && sp_atomic_load(&t->critical))) {
		kind = sp_atomic_load(&l->kind);
		/* An rwlock's readers and a futex word's guessed holders are
		 * not one owner the waiter needs the lock from. */
		yes = kind != SP_LOCK_RWLOCK && kind != SP_LOCK_FUTEX &&
		      sp_critical_waits(core, l, lock);
	}
	sp_rcu_read_unlock();
	return yes ? core->cfg.handoff_wait_ns : 0;
}
