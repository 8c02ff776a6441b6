// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Simulated locks (include/superpass/sim.h lists their semantics).
 *
 * Two ways a wait ends: a futex wake (glibc mutex), after which the waiter
 * tries again when it runs and may find the lock taken by a thread that
 * ran first; or a handoff (PI futex, kernel mutex, rwsem, rwlock phase
 * change), where the lock is the waiter's before it runs.
 */
#include <string.h>

#include "sp_sim_engine.h"

static bool sp_is_rw(const struct sp_sim_lock *l)
{
	return l->kind == SP_SIM_URWLOCK || l->kind == SP_SIM_URWLOCK_W || l->kind == SP_SIM_RWSEM;
}

static void sp_wq_del(struct sp_sim *s, struct sp_sim_lock *l, struct sp_sim_thread *t)
{
	for (int i = 0; i < l->nwq; i++) {
		if (l->wq[i] == t->idx) {
			memmove(&l->wq[i], &l->wq[i + 1], sizeof(int) * (size_t)(l->nwq - i - 1));
			l->nwq--;
			break;
		}
	}
	if (t->wait_hold == SP_SIM_EXCL && sp_is_rw(l))
		l->wwaiting--;
	t->in_wq = false;
}

/* The lock is @t's in @hold: the records, the trace and the policy. */
static void sp_take(struct sp_sim *s, struct sp_sim_thread *t, int li, uint8_t hold)
{
	struct sp_sim_lock *l = &s->lk[li];
	bool waited = t->wait_lock == li;

	if (hold == SP_SIM_SHARED)
		l->readers[l->nreaders++] = t->idx;
	else
		l->owner = t->idx;
	if (t->nheld < SP_MAX_HELD) {
		t->held[t->nheld].lock = li;
		t->held[t->nheld].hold = hold;
		t->nheld++;
	} else {
		s->err = true;
	}
	sp_sim_trace_event(s, SP_SIM_TR_ACQUIRE, t->cpu, t->idx, li, hold);
	sp_sim_pol_acquired(s, t, li, hold, waited);
}

bool sp_sim_lock_try(struct sp_sim *s, struct sp_sim_thread *t, int li, uint8_t hold)
{
	struct sp_sim_lock *l = &s->lk[li];
	bool ok;

	switch (l->kind) {
	case SP_SIM_UMUTEX:
		ok = l->owner < 0 && (!l->pi || !l->nwq);
		break;
	case SP_SIM_KMUTEX:
		/* linux: the unlock leaves the mutex free and wakes the head
		 * waiter, and whoever runs first takes it (optimistic spinning
		 * and the slow path's trylock), unless a woken head waiter that
		 * lost it once set MUTEX_FLAG_HANDOFF */
		ok = l->owner < 0 && (s->linux_model ? !l->handoff : !l->nwq);
		break;
	case SP_SIM_URWLOCK:
		ok = l->owner < 0 && (hold == SP_SIM_SHARED || !l->nreaders);
		break;
	case SP_SIM_URWLOCK_W:
		ok = l->owner < 0 && (hold == SP_SIM_SHARED ? !l->wwaiting : !l->nreaders);
		break;
	case SP_SIM_RWSEM:
		/* linux: a writer may take a free rwsem past its waiters
		 * (rwsem_try_write_lock_unqueued, optimistic spinning) unless
		 * RWSEM_FLAG_HANDOFF is set; a reader queues behind any waiter */
		if (s->linux_model && hold == SP_SIM_EXCL)
			ok = l->owner < 0 && !l->nreaders && !l->handoff;
		else
			ok = l->owner < 0 && !l->nwq && (hold == SP_SIM_SHARED || !l->nreaders);
		break;
	default:
		ok = false;
	}
	if (ok)
		sp_take(s, t, li, hold);
	return ok;
}

/* The critical thread's blocking ends when it returns from the lock call. */
void sp_sim_lock_finish(struct sp_sim *s, struct sp_sim_thread *t)
{
	if (t->measuring) {
		uint64_t dur = s->now - t->req_t, worst = 0;

		for (int i = 0; i < t->nsnap; i++) {
			uint64_t w = sp_sim_wait_now(s, &s->th[t->snap[i]]) - t->snap_w0[i];

			worst = w > worst ? w : worst;
		}
		sp_hist_record(&s->r->hist, dur);
		s->r->blockings++;
		s->r->blocked_ns += dur;
		s->r->holder_wait_ns += worst < dur ? worst : dur;
		t->measuring = false;
		s->ncrit_waiting--;
	}
	if (t->wait_lock >= 0)
		t->blocked_ns += s->now - t->block_since;
	t->wait_lock = -1;
	t->granted = false;
}

/* linux model: a kernel lock's release wakes the head waiter to retry
 * unless the handoff is asked for (a kernel mutex; an rwsem with a writer
 * at the head). */
static bool sp_kernel_retry(const struct sp_sim *s, const struct sp_sim_lock *l)
{
	return s->linux_model && (l->kind == SP_SIM_KMUTEX || l->kind == SP_SIM_RWSEM);
}

/* Who holds @li now, and who holds what they wait for (a chain). */
static void sp_snapshot(struct sp_sim *s, struct sp_sim_thread *t, int li)
{
	int depth = 0;

	t->nsnap = 0;
	while (li >= 0 && depth++ < 8) {
		struct sp_sim_lock *l = &s->lk[li];
		int next = -1;

		if (l->owner >= 0 && t->nsnap < SP_MAX_SNAP) {
			t->snap[t->nsnap++] = l->owner;
			next = s->th[l->owner].wait_lock;
		}
		for (int i = 0; i < l->nreaders && t->nsnap < SP_MAX_SNAP; i++)
			t->snap[t->nsnap++] = l->readers[i];
		li = next;
	}
	for (int i = 0; i < t->nsnap; i++)
		t->snap_w0[i] = sp_sim_wait_now(s, &s->th[t->snap[i]]);
}

void sp_sim_lock_block(struct sp_sim *s, struct sp_sim_thread *t, int li, uint8_t hold)
{
	struct sp_sim_lock *l = &s->lk[li];
	bool first = t->wait_lock != li;

	if (first) {
		t->wait_lock = li;
		t->wait_hold = hold;
		t->block_since = s->now;
		if (t->critical) {
			t->measuring = true;
			t->req_t = s->now;
			s->ncrit_waiting++;
			sp_snapshot(s, t, li);
		}
	}
	/* glibc's writer-preferring rwlock: a reader that finds a writer
	 * waiting in a read phase waits on __readers with RWAITING, not
	 * registered as a reader, so the writer's unlock does not hand it the
	 * read phase; one that finds the writer holding registers and is
	 * handed it (linux model; the classic one hands every queued reader) */
	t->rwaiting = s->linux_model && l->kind == SP_SIM_URWLOCK_W && hold == SP_SIM_SHARED &&
		      l->owner < 0;
	if (!first && sp_kernel_retry(s, l)) {
		/* A woken head waiter that lost the lock: the kernel never took
		 * it off the queue, and it asks for the handoff (a mutex at
		 * once, __mutex_trylock_or_handoff; an rwsem writer after
		 * RWSEM_WAIT_TIMEOUT, one 4 ms tick, or if real-time) */
		memmove(&l->wq[1], &l->wq[0], sizeof(int) * (size_t)l->nwq);
		l->wq[0] = t->idx;
		l->nwq++;
		if (l->kind == SP_SIM_KMUTEX || t->eff > 0 ||
		    s->now - t->block_since >= SP_TICK_NSEC)
			l->handoff = true;
	} else {
		l->wq[l->nwq++] = t->idx;
	}
	t->in_wq = true;
	if (hold == SP_SIM_EXCL && sp_is_rw(l))
		l->wwaiting++;
	sp_sim_sched_set_state(s, t, SP_TS_BLOCKED);
	sp_sim_trace_event(s, SP_SIM_TR_BLOCK, t->cpu, t->idx, li, hold);
	if (s->proxy && l->kind == SP_SIM_KMUTEX && t->on_rq) {
		/* A donor stays queued: picking it runs its owner. */
		t->donor = true;
		s->cpus[t->cpu].resched = true;
		sp_sim_sched_sync_wait(s, t);
	} else {
		sp_sim_sched_dequeue(s, t);
	}
	sp_sim_pol_blocked(s, t, li, hold);
}

/* A futex wake: @t runs again and retries. */
static void sp_wake_retry(struct sp_sim *s, struct sp_sim_lock *l, struct sp_sim_thread *t)
{
	sp_wq_del(s, l, t);
	sp_sim_sched_wake(s, t);
}

static void sp_handoff(struct sp_sim *s, struct sp_sim_lock *l, struct sp_sim_thread *t)
{
	sp_wq_del(s, l, t);
	sp_take(s, t, (int)(l - s->lk), t->wait_hold);
	t->granted = true;
	sp_sim_sched_wake(s, t);
}

/* A futex waiter's place in futex_wake()'s order: the policy it queued
 * with (its normal_prio, not an inherited one). A critical waiter raised
 * by its wait (sp_waiter_plan) raised itself with sched_setattr before it
 * slept, so it queued real-time and is woken before fair waiters. */
static int sp_futex_prio(const struct sp_sim *s, const struct sp_sim_thread *t)
{
	if (t->policy != SP_SIM_OTHER)
		return t->rtprio;
	return t->wt_raised ? s->fifo_prio : 0;
}

/* futex_wake() order: RT waiters by priority, then arrival. */
static struct sp_sim_thread *sp_top_waiter(struct sp_sim *s, struct sp_sim_lock *l,
					   bool want_writer, bool by_eff)
{
	struct sp_sim_thread *best = NULL;

	for (int i = 0; i < l->nwq; i++) {
		struct sp_sim_thread *t = &s->th[l->wq[i]];
		int p = by_eff ? t->eff : sp_futex_prio(s, t);
		int bp;

		if (want_writer && t->wait_hold != SP_SIM_EXCL)
			continue;
		if (!best) {
			best = t;
			continue;
		}
		bp = by_eff ? best->eff : sp_futex_prio(s, best);
		if (p > bp)
			best = t;
	}
	return best;
}

/* A free glibc mutex's unlock by @waker, which took it and gives it back
 * at once (sp_sim_handoff.c): glibc wakes one waiter, as at a release. */
void sp_sim_lock_wake_one(struct sp_sim *s, struct sp_sim_thread *waker, int li)
{
	struct sp_sim_lock *l = &s->lk[li];

	if (!l->nwq || l->owner >= 0)
		return;
	s->waker = waker->idx;
	sp_wake_retry(s, l, sp_top_waiter(s, l, false, false));
	s->waker = -1;
}

static void sp_grant_readers(struct sp_sim *s, struct sp_sim_lock *l)
{
	for (int i = 0; i < l->nwq;) {
		struct sp_sim_thread *t = &s->th[l->wq[i]];

		if (t->wait_hold == SP_SIM_SHARED && t->rwaiting)
			sp_wake_retry(s, l, t); /* removes entry i; it retries when it runs */
		else if (t->wait_hold == SP_SIM_SHARED)
			sp_handoff(s, l, t); /* removes entry i */
		else
			i++;
	}
}

/* glibc: the last reader out with a writer waiting resets RWAITING and
 * wakes the readers waiting on __readers; they retry, find the writer's
 * phase, register and wait again (a wake the writer does not get). */
static void sp_wake_rwaiting(struct sp_sim *s, struct sp_sim_lock *l)
{
	for (int i = 0; i < l->nwq;) {
		struct sp_sim_thread *t = &s->th[l->wq[i]];

		if (t->wait_hold == SP_SIM_SHARED && t->rwaiting)
			sp_wake_retry(s, l, t);
		else
			i++;
	}
}

bool sp_sim_lock_release(struct sp_sim *s, struct sp_sim_thread *t, int li)
{
	struct sp_sim_lock *l = &s->lk[li];
	uint8_t hold = 0;
	int i;

	for (i = 0; i < t->nheld && t->held[i].lock != li; i++)
		;
	if (i == t->nheld)
		return false; /* not held: rt-app's unlock of an unlocked mutex does nothing */
	hold = t->held[i].hold;
	t->held[i] = t->held[--t->nheld];
	if (hold == SP_SIM_SHARED) {
		for (int j = 0; j < l->nreaders; j++) {
			if (l->readers[j] == t->idx) {
				l->readers[j] = l->readers[--l->nreaders];
				break;
			}
		}
	} else {
		l->owner = -1;
	}
	sp_sim_trace_event(s, SP_SIM_TR_RELEASE, t->cpu, t->idx, li, hold);
	sp_sim_pol_released(s, t, li, hold);
	{
		struct sp_sim_cpu *c = sp_sim_sched_cpu_of_curr(s, t);

		if (c && c->donor != t)
			c->resched = true; /* a proxy's donor may run itself now */
	}
	if (!l->nwq)
		l->handoff = false; /* whoever asked for it left the queue */
	if (l->owner >= 0 || l->nreaders || !l->nwq) {
		sp_sim_pol_lock_changed(s);
		return false;
	}
	s->waker = t->idx; /* the wakes below are @t's (select_task_rq_fair()) */
	switch (l->kind) {
	case SP_SIM_UMUTEX:
		if (l->pi) {
			sp_handoff(s, l, sp_top_waiter(s, l, false, true));
			sp_sim_pol_pi_update(s, t->idx, 0);
		} else {
			sp_wake_retry(s, l, sp_top_waiter(s, l, false, false));
		}
		break;
	case SP_SIM_KMUTEX:
		if (s->linux_model && !l->handoff)
			sp_wake_retry(s, l, &s->th[l->wq[0]]);
		else
			sp_handoff(s, l, &s->th[l->wq[0]]);
		l->handoff = false;
		break;
	case SP_SIM_URWLOCK:
		if (l->nwq > l->wwaiting)
			sp_grant_readers(s, l);
		else
			sp_handoff(s, l, sp_top_waiter(s, l, true, false));
		break;
	case SP_SIM_URWLOCK_W:
		if (l->wwaiting) {
			if (hold == SP_SIM_SHARED)
				sp_wake_rwaiting(s, l);
			sp_handoff(s, l, sp_top_waiter(s, l, true, false));
		} else {
			sp_grant_readers(s, l);
		}
		break;
	case SP_SIM_RWSEM:
		if (s->th[l->wq[0]].wait_hold != SP_SIM_EXCL)
			sp_grant_readers(s, l);
		else if (s->linux_model && !l->handoff)
			sp_wake_retry(s, l, &s->th[l->wq[0]]);
		else
			sp_handoff(s, l, &s->th[l->wq[0]]);
		l->handoff = false;
		break;
	}
	s->waker = -1;
	sp_sim_pol_lock_changed(s);
	return true;
}
