// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The policies that act on locks: `pi` (PI futex inheritance), `ux-writer`
 * (OEM UX boosting of owners and writers) and `superpass` (the real core).
 *
 * superpass is the third host of lib/core: the simulator reports every
 * lock event to the core as it happens, the core's clock is the simulated
 * one, and its actuator is the recording host's queued model
 * (include/superpass/rec_host.h): fast_track/restore queue the tid, and
 * the worker (sp_rec_host_run, called right after each core call) applies
 * sp_task_fast_tracked(): a boosted thread runs in the RT class at fifo_prio,
 * boost_latency_ns later (what the real worker takes to wake and call
 * sched_setattr), a restored one at once (a releasing thread lowers
 * itself, as the runtime's does). The core is ticked every
 * tick_ns while sp_core_needs_tick(), as the runtime's watchdog does.
 * In the linux model the worker is a thread too ("The worker" below).
 */
#include <errno.h>
#include <stdlib.h>

#include "sp_sim_engine.h"
#include "sp_sim_sched.h"

#define SP_UX_DEPTH 5
/* The runtime's worker (linux model): its CPU time per wake after a kick
 * (a fast track to reconcile) and for a tick with nothing to do, as
 * superpass-wk's runs take in `superpass record` traces. */
#define SP_WK_KICK_NS 50000ull
#define SP_WK_TICK_NS 5000ull
#define SP_CORE_T0 1000000000ull /* the core's clock at simulated time 0 */
/* sp_waiter_boost: from a critical thread's wait to its holder running in
 * SCHED_FIFO (the waiter applies the fast track before it sleeps), as the
 * runtime's traces show it. */
#define SP_WAITER_BOOST_NS 20000ull

static sp_tid_t sp_tid(const struct sp_sim_thread *t)
{
	return (sp_tid_t)t->idx + 1;
}

static sp_lock_key_t sp_key(int l)
{
	return ((sp_lock_key_t)l + 1) << 6;
}

static void sp_host_sync(struct sp_sim *s)
{
	s->host->now = SP_CORE_T0 + s->now;
}

/* The worker. Only sp_rec_notify() fills the host's queue (and sets its
 * rescan) and it counts every call in notifies, and a run leaves the queue
 * empty: with no notify since the last run there is nothing to do. */
static void sp_host_after(struct sp_sim *s)
{
	if (s->host->notifies != s->host_notifies) {
		sp_rec_host_run(s->host);
		s->host_notifies = s->host->notifies;
	}
	if (!s->tick_armed && sp_core_needs_tick(s->host->core)) {
		s->tick_armed = true;
		sp_sim_push(s, s->now + s->tick_ns, SP_SIM_EV_TICK, 0, 0);
	}
}

/* Kicks the simulated worker for @t's change: the kick reaches it when
 * what is left of the boost latency is its own run (sp_sim_pol_wk_kick). */
static void sp_kick_worker(struct sp_sim *s, struct sp_sim_thread *t)
{
	uint64_t lat = s->o->boost_latency_ns;

	sp_sim_push(s, s->now + (lat > SP_WK_KICK_NS ? lat - SP_WK_KICK_NS : 0), SP_SIM_EV_WK_KICK,
		    t->idx, t->boost_gen);
}

/*
 * The raised waiter fast-tracks a holder queued on its own CPU: that CPU
 * then has two real-time tasks (the waiter, still running, and the
 * holder, which cannot preempt an equal priority), so the kernel's RT
 * class pushes the holder at once to the CPU running the lowest priority
 * (switched_to_rt(), rt_queue_push_tasks() on an overloaded rt_rq), where
 * it runs its section and, lowered, stays. Boosted where it was queued,
 * after the waiter slept, it would stay beside the critical thread, away
 * from the CPU with the most hogs, and get more CPU than the kernel gives
 * it (docs/simulator.md, "Validation", has the trace that shows both).
 * Returns true if it pushed and boosted @t.
 */
static bool sp_waiter_push_holder(struct sp_sim *s, struct sp_sim_thread *t)
{
	int here = s->in_waiter_cpu, best, bp;

	if (!s->linux_model || here < 0 || t->cpu != here || t->state != SP_TS_RUNNABLE ||
	    s->cpus[here].curr == t)
		return false;
	best = sp_sim_lowest_cpu(s, t, here, &bp);
	if (best < 0 || bp >= s->fifo_prio)
		return false;
	sp_sim_migrate(s, t, &s->cpus[best]);
	t->rt_pushed_at = s->now + 1;
	t->sp_boost = true;
	sp_sim_sched_set_eff(s, t);
	return true;
}

static void sp_on_change(struct sp_rec_host *h, sp_tid_t tid, bool boosted)
{
	struct sp_sim *s = h->user;
	struct sp_sim_thread *t;

	if (!s || tid < 1 || tid > s->nth)
		return;
	t = &s->th[tid - 1];
	t->boost_gen++; /* a boost still on its way is void */
	t->boost_due = false;
	if (boosted && s->in_waiter) {
		/* The critical waiter applies it itself on its way out of the
		 * core, before it sleeps (the runtime's sp_waiter.c): its own
		 * sched_setattr, SP_WAITER_BOOST_NS later. The worker is still
		 * kicked: it lowers the waiter, which raised itself above a
		 * holder on its own CPU, so it runs once per fast track. */
		if (s->wk && s->o->boost_latency_ns)
			sp_kick_worker(s, t);
		if (!sp_waiter_push_holder(s, t))
			sp_sim_push(s, s->now + SP_WAITER_BOOST_NS, SP_SIM_EV_BOOST, t->idx,
				    t->boost_gen);
		return;
	}
	if (boosted && s->o->boost_latency_ns && s->wk) {
		sp_kick_worker(s, t);
		return;
	}
	if (boosted && s->o->boost_latency_ns) {
		/* The runtime's worker has yet to wake and call sched_setattr:
		 * the fast track acts boost_latency_ns later, if the core still
		 * wants it then. */
		sp_sim_push(s, s->now + s->o->boost_latency_ns, SP_SIM_EV_BOOST, t->idx, t->boost_gen);
		return;
	}
	t->sp_boost = boosted;
	sp_sim_sched_set_eff(s, t);
}

void sp_sim_pol_boost_due(struct sp_sim *s, struct sp_sim_thread *t, uint32_t gen)
{
	if (!s->host || gen != t->boost_gen || !sp_rec_host_is_boosted(s->host, sp_tid(t)))
		return;
	t->sp_boost = true;
	sp_sim_sched_set_eff(s, t);
}

/*
 * The worker (linux model): the runtime's superpass-wk, an RT thread one
 * above the fast tracks, woken by a kick (a fast track to apply) and by
 * the core's tick. It runs SP_WK_KICK_NS (a kick's) or SP_WK_TICK_NS of
 * CPU on the CPU the RT class puts it on (its last one: nothing preempts
 * it), and applies the due fast tracks at the end of the run, then
 * sleeps. Kicks and ticks that come during a run are served by it.
 *
 * Where it runs is why: on 2 CPUs, the critical thread blocks on its CPU,
 * the worker occupies the other one, so the boosted holder runs on the
 * critical thread's CPU (a holder queued on the worker's CPU cannot run
 * under it, and the RT class pushes it to the CPU running only fair work)
 * and its release wakes the critical thread there, where the holder's
 * restore makes the CPU pick again at once: the runtime's critical wakes
 * come on the waker's CPU. Without the worker the holder is boosted where
 * it is queued, and may wake the critical thread on the other CPU behind a
 * fair hog until the next scheduler tick. Its tick wakes make its CPU pick
 * again each tick_ns too, as the runtime's do.
 */
static void sp_wk_wake(struct sp_sim *s)
{
	struct sp_sim_thread *wk = s->wk;

	if (wk->state != SP_TS_SLEEP)
		return;
	if (wk->cpu < 0) {
		/* Created by the first critical wait, on the idlest CPU
		 * (fork balancing): one the waiting critical thread is not on. */
		int crit = -1;

		for (uint32_t i = 0; i < s->nth && crit < 0; i++)
			if (s->th[i].critical && s->th[i].wait_lock >= 0)
				crit = s->th[i].cpu;
		wk->cpu = s->ncpus > 1 && crit >= 0 ? (crit + 1) % (int)s->ncpus : 0;
	}
	sp_sim_sched_wake(s, wk);
}

void sp_sim_pol_wk_kick(struct sp_sim *s, struct sp_sim_thread *t, uint32_t gen)
{
	if (!s->wk || gen != t->boost_gen)
		return;
	t->boost_due = true;
	s->wk_kicked = true;
	sp_wk_wake(s);
}

void sp_sim_pol_wk_step(struct sp_sim *s)
{
	struct sp_sim_thread *wk = s->wk;

	if (s->wk_busy) {
		if (wk->op_started == SP_OP_RUN && wk->op_left)
			return;
		/* The run is over: sched_setattr for every due fast track. */
		s->wk_busy = false;
		wk->op_started = 0;
		s->wk_kicked = s->wk_tick = false;
		for (uint32_t i = 0; i < s->nth; i++) {
			struct sp_sim_thread *t = &s->th[i];

			if (t->boost_due) {
				t->boost_due = false;
				sp_sim_pol_boost_due(s, t, t->boost_gen);
			}
		}
	}
	if (s->wk_kicked || s->wk_tick) {
		wk->op_started = SP_OP_RUN;
		wk->op_left = s->wk_kicked ? SP_WK_KICK_NS : SP_WK_TICK_NS;
		s->wk_busy = true;
		return;
	}
	wk->state = SP_TS_SLEEP;
	sp_sim_sched_dequeue(s, wk);
}

static void sp_wk_init(struct sp_sim *s)
{
	struct sp_sim_thread *wk = &s->th[s->nth];

	wk->idx = (int)s->nth;
	wk->cpu = -1;
	wk->state = SP_TS_SLEEP;
	wk->policy = SP_SIM_FIFO;
	wk->rtprio = s->fifo_prio < 99 ? s->fifo_prio + 1 : 99;
	wk->eff = wk->rtprio;
	wk->weight = SP_NICE_0;
	wk->wait_lock = -1;
	s->wk = wk;
}

int sp_sim_pol_init(struct sp_sim *s)
{
	struct sp_config cfg;
	int rc;

	if (s->pol != SP_SIM_POL_SUPERPASS)
		return 0;
	sp_config_default(&cfg);
	if (s->o->k)
		cfg.readers_per_lock = s->o->k;
	if (s->o->budget_ns == UINT64_MAX)
		cfg.budget_ns = 0;
	else if (s->o->budget_ns)
		cfg.budget_ns = s->o->budget_ns;
	if (cfg.max_tasks < s->nth + 16)
		cfg.max_tasks = s->nth + 16;
	/* The lock table sized to the workload (it declares every lock it
	 * uses, once): the default's 8192 slots and their trackers cost more
	 * to create than a short run costs to simulate. Nothing observable
	 * walks that table in slot order (only an exit does, and its
	 * per-lock removals commute), so the results are the same. The task
	 * table keeps its size: the tick walks it in slot order. */
	cfg.max_locks = s->w->nlocks + 16;
	s->host = calloc(1, sizeof(*s->host));
	if (!s->host)
		return -ENOMEM;
	rc = sp_rec_host_create(s->host, SP_REC_QUEUED, s->nth + 2, &cfg);
	if (rc < 0) {
		free(s->host);
		s->host = NULL;
		return rc;
	}
	s->host->user = s;
	s->host->on_change = sp_on_change;
	if (s->linux_model)
		sp_wk_init(s);
	sp_host_sync(s);
	for (uint32_t i = 0; i < s->w->nlocks; i++)
		sp_lock_declare(s->host->core, sp_key((int)i),
				s->lk[i].kind == SP_SIM_UMUTEX || s->lk[i].kind == SP_SIM_KMUTEX
					? SP_LOCK_MUTEX : SP_LOCK_RWLOCK);
	for (uint32_t i = 0; i < s->nth; i++) {
		sp_task_register(s->host->core, sp_tid(&s->th[i]));
		if (s->th[i].critical)
			sp_task_set_critical(s->host->core, sp_tid(&s->th[i]), true);
	}
	return 0;
}

void sp_sim_pol_fini(struct sp_sim *s)
{
	struct sp_rec_host *h = s->host;

	if (!h)
		return;
	sp_host_sync(s);
	sp_core_stats(h->core, &s->r->core);
	s->r->grants = s->r->core.grants;
	s->r->expiries = s->r->core.expiries;
	/* The destroy restores whatever is still boosted; the simulation is
	 * over, so the worker only records it. */
	h->user = NULL;
	sp_rec_host_destroy(h);
	s->r->fast_tracks = h->fast_tracks;
	s->r->restores = h->restores;
	s->r->boosted_at_end = h->fast_tracks - h->restores;
	free(h);
	s->host = NULL;
}

void sp_sim_pol_tick(struct sp_sim *s)
{
	s->tick_armed = false;
	if (!s->host)
		return;
	sp_host_sync(s);
	sp_core_tick(s->host->core);
	sp_host_after(s);
	if (s->wk) {
		s->wk_tick = true;
		sp_wk_wake(s);
	}
}

/* ---- pi: the owner of a PI futex inherits its waiters' best RT priority ---- */
void sp_sim_pol_pi_update(struct sp_sim *s, int owner, int depth)
{
	struct sp_sim_thread *o;
	int best = 0, old;

	if (owner < 0 || depth > 16)
		return;
	o = &s->th[owner];
	for (int i = 0; i < o->nheld; i++) {
		struct sp_sim_lock *l = &s->lk[o->held[i].lock];

		if (!l->pi)
			continue;
		for (int j = 0; j < l->nwq; j++) {
			int e = s->th[l->wq[j]].eff; /* rt_mutex: DEFAULT_PRIO for fair waiters */

			best = e > best ? e : best;
		}
	}
	if (best == o->pi_prio)
		return;
	old = o->eff;
	o->pi_prio = best;
	sp_sim_sched_set_eff(s, o); /* walks on to what o waits for */
	if (o->eff > old)
		s->r->pi_boosts++;
}

/* ---- ux-writer: boost the owner or writer, transitively, depth 5 ---- */
static void sp_ux_recompute(struct sp_sim *s)
{
	for (uint32_t i = 0; i < s->nth; i++)
		s->th[i].ux_new = false;
	for (uint32_t i = 0; i < s->nth; i++) {
		struct sp_sim_thread *c = &s->th[i];

		if (!c->critical || c->wait_lock < 0)
			continue;
		for (int d = 0; d < SP_UX_DEPTH && c->wait_lock >= 0; d++) {
			int o = s->lk[c->wait_lock].owner;

			if (o < 0)
				break;
			c = &s->th[o];
			c->ux_new = true;
		}
	}
	for (uint32_t i = 0; i < s->nth; i++) {
		struct sp_sim_thread *t = &s->th[i];

		if (t->ux_new == t->ux_boost)
			continue;
		t->ux_boost = t->ux_new;
		if (t->ux_boost) {
			s->r->grants++;
			s->r->fast_tracks++;
			s->nux++;
		} else {
			s->r->restores++;
			s->nux--;
		}
		sp_sim_sched_set_eff(s, t);
	}
}

void sp_sim_pol_lock_changed(struct sp_sim *s)
{
	if (s->pol == SP_SIM_POL_UX_WRITER && (s->ncrit_waiting || s->nux))
		sp_ux_recompute(s);
}

/* ---- events ---- */
static void sp_waiter_lower(struct sp_sim *s, struct sp_sim_thread *t)
{
	t->wt_raised = false;
	t->wt_gen++;
	sp_sim_sched_set_eff(s, t);
}

/*
 * sp_waiter_boost: the runtime's critical waiter (sp_waiter.c) does what
 * the core's plan says with its primitives, here the simulated ones: raise
 * itself to the fast tracks' priority before its holders are fast-tracked
 * (none of them preempts it before it sleeps, and it is woken at that
 * priority), unless the plan's raise_max threads are raised already; if
 * not raised, wait with the plan's fair slice (unless its own is
 * shorter), until the wait ends.
 */
static void sp_waiter_plan(struct sp_sim *s, struct sp_sim_thread *t, int l)
{
	struct sp_wait_plan p;
	uint32_t raised = 0;

	if (sp_core_wait_plan(s->host->core, sp_tid(t), SP_WAIT_CAN_RAISE | SP_WAIT_CAN_SLICE,
			      &p) != 1)
		return;
	for (uint32_t i = 0; p.raise && i < s->nth; i++)
		raised += s->th[i].wt_raised;
	if (p.raise && raised < p.raise_max) {
		t->wt_raised = true;
		t->wt_lock = l;
		t->wt_gen++;
		t->wt_hold_ns = p.raise_hold_ns;
		sp_sim_sched_set_eff(s, t);
	} else if (p.slice_ns && !t->slice_ns && p.slice_ns < s->slice) {
		t->slice_ns = p.slice_ns;
	}
}

/* The worker's bound on a kept raise. */
void sp_sim_pol_waiter_bound(struct sp_sim *s, struct sp_sim_thread *t, uint32_t gen)
{
	if (t->wt_raised && gen == t->wt_gen)
		sp_waiter_lower(s, t);
}

void sp_sim_pol_acquired(struct sp_sim *s, struct sp_sim_thread *t, int l, uint8_t hold,
			 bool waited)
{
	sp_sim_pol_anchor_acquired(s, t, waited);
	if (s->lk[l].pi)
		sp_sim_pol_pi_update(s, t->idx, 0);
	if (!s->host)
		return;
	t->ho_yielded = false; /* the lock call is over */
	if (waited && t->slice_ns)
		t->slice_ns = 0; /* the wait's slice, its own again */
	if (waited && t->wt_raised && t->wt_lock == l) {
		if (t->wt_hold_ns)
			sp_sim_push(s, s->now + t->wt_hold_ns, SP_SIM_EV_WT_LOWER, t->idx, t->wt_gen);
		else
			sp_waiter_lower(s, t);
	}
	if (waited && t->critical)
		sp_sim_handoff_wait_ended(s, l);
	sp_host_sync(s);
	if (waited)
		sp_lock_unblocked(s->host->core, sp_tid(t), sp_key(l), true);
	else
		sp_lock_acquired(s->host->core, sp_tid(t), sp_key(l),
				 hold == SP_SIM_SHARED ? SP_HOLD_SHARED : SP_HOLD_EXCL);
	sp_host_after(s);
}

void sp_sim_pol_released(struct sp_sim *s, struct sp_sim_thread *t, int l, uint8_t hold)
{
	sp_sim_pol_anchor_released(s, t, s->lk[l].nwq > 0);
	if (!s->host)
		return;
	if (t->wt_raised && t->wt_lock == l)
		sp_waiter_lower(s, t);
	sp_host_sync(s);
	sp_lock_released(s->host->core, sp_tid(t), sp_key(l),
			 hold == SP_SIM_SHARED ? SP_HOLD_SHARED : SP_HOLD_EXCL);
	sp_host_after(s);
}

void sp_sim_pol_blocked(struct sp_sim *s, struct sp_sim_thread *t, int l, uint8_t hold)
{
	struct sp_sim_lock *k = &s->lk[l];

	if (k->pi)
		sp_sim_pol_pi_update(s, k->owner, 0);
	sp_sim_pol_lock_changed(s);
	if (!s->host)
		return;
	sp_host_sync(s);
	s->in_waiter = s->waiter_boost && t->critical && t->policy == SP_SIM_OTHER;
	if (s->in_waiter && !t->wt_raised && !t->slice_ns)
		sp_waiter_plan(s, t, l);
	s->in_waiter_cpu = s->in_waiter && t->wt_raised ? t->cpu : -1;
	sp_lock_blocked_owner(s->host->core, sp_tid(t), sp_key(l),
			      hold == SP_SIM_SHARED ? SP_HOLD_SHARED : SP_HOLD_EXCL, true,
			      k->owner >= 0 ? sp_tid(&s->th[k->owner]) : 0);
	sp_host_after(s);
	s->in_waiter = false;
	s->in_waiter_cpu = -1;
}

void sp_sim_pol_exit(struct sp_sim *s, struct sp_sim_thread *t)
{
	if (!s->host || t->nheld)
		return;
	sp_host_sync(s);
	sp_task_exit(s->host->core, sp_tid(t));
	sp_host_after(s);
}
