// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The hand-off of a mutex to a critical waiter (superpass, linux model):
 * the runtime's primitive (lib/hosts/runtime/sp_handoff.c) on simulated
 * threads, the decision the core's (sp_core_handoff_wanted; the rule and
 * why: lib/core/sp_wait_policy.c).
 *
 * A thread whose lock call finds a glibc mutex free asks the core first.
 * If a critical task waits for it (the core's record), and the taker is
 * not critical and holds nothing, the taker gives it back at once: it
 * never holds it (the core hears no acquire, as in the runtime, where the
 * yield comes before the lock call reports anything), its unlock wakes
 * one waiter as glibc's does, and it sleeps until a critical wait on that
 * mutex ends or the core's bound passes. Then it runs the same lock call
 * again, without a second yield. Only the linux model has it: the classic
 * one is the textbook scheduler, with no runtime mechanism but the fast
 * track.
 */
#include "sp_sim_engine.h"

static sp_lock_key_t sp_ho_key(int l)
{
	return ((sp_lock_key_t)l + 1) << 6; /* sp_sim_policy.c's sp_key */
}

bool sp_sim_handoff_yield(struct sp_sim *s, struct sp_sim_thread *t, int l)
{
	struct sp_sim_lock *k = &s->lk[l];
	uint64_t bound;

	if (!s->host || !s->linux_model)
		return false;
	if (t->ho_lock) {
		/* Back from a sleep the critical wait did not end: the bound. */
		t->ho_lock = 0;
		s->r->handoff_timeouts++;
	}
	/* The runtime's primitive: a glibc mutex (not PI) it would take now,
	 * once per lock call. */
	if (t->ho_yielded || k->kind != SP_SIM_UMUTEX || k->pi || k->owner >= 0)
		return false;
	bound = sp_core_handoff_wanted(s->host->core, (sp_tid_t)t->idx + 1, sp_ho_key(l),
				       (uint32_t)t->nheld);
	if (!bound)
		return false;
	t->ho_yielded = true;
	t->ho_lock = l + 1;
	s->r->handoffs++;
	sp_sim_lock_wake_one(s, t, l);
	/* Asleep on the wait's end (sp_sim_handoff_wait_ended), or the bound
	 * (the engine's wake event of this sleep's generation). */
	sp_sim_sched_set_state(s, t, SP_TS_SLEEP);
	sp_sim_sched_dequeue(s, t);
	t->gen++;
	sp_sim_push(s, s->now + bound, SP_SIM_EV_WAKE, t->idx, t->gen);
	return true;
}

/* A critical task's wait for @l ended: its yielders run again. */
void sp_sim_handoff_wait_ended(struct sp_sim *s, int l)
{
	for (uint32_t i = 0; i < s->nth; i++) {
		struct sp_sim_thread *y = &s->th[i];

		if (y->ho_lock != l + 1)
			continue;
		y->ho_lock = 0;
		if (y->state == SP_TS_SLEEP)
			sp_sim_sched_wake(s, y);
	}
}
