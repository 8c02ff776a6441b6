// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Simulated CPUs: per-CPU run queues, accounting, the pick (the RT class
 * above the fair one), wakeups, preemption and priority changes. The fair
 * class's virtual time is sp_sim_eevdf.c, load tracking sp_sim_pelt.c,
 * wakeup placement sp_sim_select_cpu.c, moves between CPUs
 * sp_sim_balance.c, proxy execution sp_sim_proxy.c. What is approximated
 * is listed in include/superpass/sim.h.
 *
 * Every run queue holds all of its tasks, the running one included (and,
 * under proxy execution, blocked donors). Accounting is lazy: a CPU's
 * running task is charged up to `last` whenever something looks at it.
 */
#include <string.h>

#include "sp_sim_sched.h"

struct sp_sim_cpu *sp_sim_sched_cpu_of_curr(struct sp_sim *s, struct sp_sim_thread *t)
{
	if (t->cpu >= 0 && s->cpus[t->cpu].curr == t)
		return &s->cpus[t->cpu];
	return NULL;
}

void sp_sim_sched_sync_wait(struct sp_sim *s, struct sp_sim_thread *t)
{
	bool want = t->state == SP_TS_RUNNABLE && t->on_rq && s->cpus[t->cpu].curr != t;

	if (want == t->waiting)
		return;
	if (want)
		t->wait_since = s->now;
	else
		t->wait_ns += s->now - t->wait_since;
	t->waiting = want;
}

/* Charges the running task for the time since c->last. */
static void sp_account(struct sp_sim *s, struct sp_sim_cpu *c)
{
	uint64_t delta = s->now - c->last;
	struct sp_sim_thread *ex = c->curr, *d = c->donor;

	c->last = s->now;
	if (!delta || !ex || ex->state != SP_TS_RUNNABLE)
		return;
	ex->cpu_ns += delta;
	s->r->busy_ns += delta;
	if (ex->sys_left)
		ex->sys_left -= delta < ex->sys_left ? delta : ex->sys_left;
	else if (ex->op_started == SP_OP_RUN && ex->op_left)
		ex->op_left -= delta < ex->op_left ? delta : ex->op_left;
	if (!d)
		return;
	if (d->eff == 0) {
		uint64_t x = d->vrem + delta * SP_NICE_0;

		d->v += (int64_t)(x / d->weight);
		d->vrem = x % d->weight;
	} else if (d->rr) {
		d->rr_left -= delta < d->rr_left ? delta : d->rr_left;
	}
}

/* The kernel accounts the running task (update_curr()): a wakeup or a
 * dequeue on this CPU, a policy change, a yield, a pick. linux: its
 * update_deadline() is where a used slice is seen without HRTICK (else at
 * the next tick, sp_sim_sched_next_local): a new deadline and a pick. */
void sp_sim_sched_update_curr(struct sp_sim *s, struct sp_sim_cpu *c)
{
	struct sp_sim_thread *d;

	sp_account(s, c);
	d = c->donor;
	if (s->linux_model && d && c->curr && c->curr->state == SP_TS_RUNNABLE && d->eff == 0 &&
	    d->v >= d->deadline) {
		d->deadline = d->v + sp_sim_vslice(s, d);
		c->resched = true;
	}
}

/* linux model: is @d's used slice seen only at the next tick? A thread of
 * CPU work only (a hog), or one that takes no lock and is in an open-ended
 * stretch of CPU (a replayed hog: busy from its last sleep to its end). */
static bool sp_tick_slice(const struct sp_sim_thread *d)
{
	return d->tick_slice || (d->hog && d->op_started == SP_OP_RUNTIME);
}

void sp_sim_sched_next_local(struct sp_sim *s, struct sp_sim_cpu *c)
{
	struct sp_sim_thread *ex = c->curr, *d = c->donor;
	uint64_t t = SP_INF;

	c->next_local = SP_INF;
	if (!ex || ex->state != SP_TS_RUNNABLE || c->resched)
		return;
	if (ex->sys_left) {
		t = c->last + ex->sys_left;
	} else if (ex->op_started == SP_OP_RUN) {
		t = c->last + ex->op_left;
	} else if (ex->op_started == SP_OP_RUNTIME) {
		t = ex->op_left > c->last ? ex->op_left : c->last;
	}
	if (d && d->eff == 0) {
		int64_t need = d->deadline - d->v;
		uint64_t ns = 0;

		if (need > 0) {
			__int128 x = (__int128)need * d->weight - (__int128)d->vrem;

			ns = x <= 0 ? 0 : (uint64_t)((x + SP_NICE_0 - 1) / SP_NICE_0);
		}
		ns += c->last;
		/* linux: without HRTICK (off by default) the kernel sees a used
		 * slice when it next accounts the task (sp_sim_sched_update_curr):
		 * at a wakeup or dequeue on this CPU, else at the next scheduler
		 * tick, so a picked thread of CPU work only (a hog) runs on to
		 * that tick. A thread that enters the kernel (it sleeps, waits
		 * on and wakes futexes) is seen at its slice's end, at any
		 * phase of the tick: traces of this kernel show both
		 * (docs/simulator.md, "Validation"). Run to the tick, a
		 * nice-19 holder's turn would cost it up to 4 ms of its
		 * vruntime instead of its 1.4 ms slice, and its next turn
		 * would come about twice as late. */
		if (s->linux_model && sp_tick_slice(d))
			ns = (ns + SP_TICK_NSEC - 1) / SP_TICK_NSEC * SP_TICK_NSEC;
		if (ns < t)
			t = ns;
	} else if (d && d->rr) {
		if (c->last + d->rr_left < t)
			t = c->last + d->rr_left;
	}
	c->next_local = t;
}

static void sp_rq_add(struct sp_sim_cpu *c, struct sp_sim_thread *t)
{
	c->rq[c->nrq++] = t->idx;
}

static void sp_rq_del(struct sp_sim_cpu *c, struct sp_sim_thread *t)
{
	for (int i = 0; i < c->nrq; i++) {
		if (c->rq[i] == t->idx) {
			memmove(&c->rq[i], &c->rq[i + 1], sizeof(int) * (size_t)(c->nrq - i - 1));
			c->nrq--;
			return;
		}
	}
}

void sp_sim_sched_enqueue(struct sp_sim *s, struct sp_sim_thread *t, struct sp_sim_cpu *c)
{
	t->cpu = c->id;
	if (t->delayed && s->linux_model) {
		/* DELAY_DEQUEUE with DELAY_ZERO (6.12+): a sleeper with negative
		 * lag stayed on its queue; by now its queue's average has moved
		 * on. Once the debt is paid it was dequeued (or is requeued)
		 * with no lag; until then it comes back with what is left of
		 * it: a short sleep does not forgive what it overran. */
		int64_t W, V = sp_sim_avg_v(&s->cpus[t->delay_cpu], s, t, &W);
		int64_t lag = t->vlag + (V - t->delay_V);

		/* requeue_delayed_entity(): still in debt, it was never off its
		 * queue and keeps its vruntime and deadline (DELAY_ZERO places
		 * only one whose lag turned positive, with none) */
		t->vlag = lag >= 0 ? 0 : lag;
		if (lag >= 0)
			t->keep_deadline = false;
		t->delayed = false;
	}
	if (t->eff == 0)
		sp_sim_place(s, c, t);
	sp_rq_add(c, t);
	t->on_rq = true;
	sp_sim_sched_sync_wait(s, t);
}

void sp_sim_sched_dequeue(struct sp_sim *s, struct sp_sim_thread *t)
{
	struct sp_sim_cpu *c = &s->cpus[t->cpu];

	if (!t->on_rq)
		return;
	sp_sim_sched_update_curr(s, c);
	if (t->eff == 0) {
		sp_sim_save_lag(s, c, t);
		/* a migration keeps its deadline; a sleep starts a new slice
		 * unless DELAY_DEQUEUE still holds it (below) */
		if (t->state == SP_TS_RUNNABLE)
			sp_sim_keep_deadline(s, t);
		else
			t->keep_deadline = false;
		/* DELAY_DEQUEUE (6.12): a sleeper stays queued until its negative
		 * lag is spent. classic model: it wakes with none (approximated:
		 * dropped); linux: sp_sim_sched_enqueue settles it when it wakes. */
		t->delayed = false;
		if (t->state != SP_TS_RUNNABLE && t->vlag < 0 && s->linux_model) {
			int64_t W;

			t->delayed = true;
			sp_sim_keep_deadline(s, t);
			t->delay_cpu = c->id;
			t->delay_V = sp_sim_avg_v(c, s, t, &W);
		} else if (t->state != SP_TS_RUNNABLE && t->vlag < 0) {
			t->vlag = 0;
		}
	}
	sp_rq_del(c, t);
	t->on_rq = false;
	t->donor = false;
	if (c->curr == t || c->donor == t)
		c->resched = true;
	sp_sim_sched_sync_wait(s, t);
}

/* pick_next_task(): RT first (FIFO order within a priority), then the
 * eligible fair entity with the earliest virtual deadline (ties: the lower
 * index), or the earliest of all if none is eligible.
 *
 * Eligibility is sp_sim_vsum_eligible, with the sums taken once for all
 * candidates, in the same pass. Every candidate of the fair
 * pass is fair (an RT one would have won), so it is among the entities
 * summed. The earliest candidate is the answer if it is eligible (the
 * order is total); only otherwise does a second pass look at the rest. */
struct sp_sim_thread *sp_sim_pick(struct sp_sim *s, struct sp_sim_cpu *c)
{
	struct sp_sim_thread *best = NULL, *any = NULL;
	struct sp_sim_vsum sum = { 0 };

	for (int i = 0; i < c->nrq; i++) {
		struct sp_sim_thread *t = &s->th[c->rq[i]];

		if (sp_sim_fair_on(t))
			sp_sim_vsum_add(&sum, t);
		if (t->state != SP_TS_RUNNABLE && !t->donor)
			continue;
		if (t->eff > 0) {
			if (!best || t->eff > best->eff || (t->eff == best->eff && t->seq < best->seq))
				best = t;
		} else if (!any || t->deadline < any->deadline ||
			   (t->deadline == any->deadline && t->idx < any->idx)) {
			any = t;
		}
	}
	if (best || !any || sp_sim_vsum_eligible(&sum, any->v))
		return best ? best : any;
	for (int i = 0; i < c->nrq; i++) {
		struct sp_sim_thread *t = &s->th[c->rq[i]];

		if (t->state != SP_TS_RUNNABLE && !t->donor)
			continue;
		if (!sp_sim_vsum_eligible(&sum, t->v))
			continue;
		if (!best || t->deadline < best->deadline ||
		    (t->deadline == best->deadline && t->idx < best->idx))
			best = t;
	}
	return best ? best : any;
}

void sp_sim_migrate(struct sp_sim *s, struct sp_sim_thread *t, struct sp_sim_cpu *to)
{
	bool donor = t->donor;

	sp_sim_sched_dequeue(s, t);
	sp_sim_sched_enqueue(s, t, to);
	t->donor = donor;
	if (!to->curr || to->curr->state != SP_TS_RUNNABLE)
		to->resched = true;
	else
		to->resched = to->resched || sp_sim_pick(s, to) != to->donor;
}

void sp_sim_sched_schedule(struct sp_sim *s, struct sp_sim_cpu *c)
{
	struct sp_sim_thread *prev = c->curr, *pick = NULL, *ex = NULL;
	int guard = 4 * c->nrq + 16;

	sp_sim_sched_update_curr(s, c);
	c->resched = false;
	while (guard-- > 0) {
		if (sp_sim_pull(s, c, &pick))
			pick = sp_sim_pick(s, c);
		if (!pick || !pick->donor) {
			ex = pick;
			break;
		}
		ex = sp_sim_proxy(s, c, pick);
		if (ex)
			break;
	}
	if (pick && ex && ex != pick && (c->curr != ex || c->donor != pick)) {
		s->r->proxy_runs++;
		sp_sim_trace_event(s, SP_SIM_TR_PROXY, c->id, ex->idx, -1, pick->idx);
	}
	c->resched = false;
	c->curr = ex;
	c->donor = pick;
	c->last = s->now;
	if (prev != ex) {
		s->r->ctx_switches++;
		sp_sim_trace_event(s, SP_SIM_TR_SWITCH, c->id, ex ? ex->idx : -1, -1,
				   pick && pick != ex ? pick->idx : -1);
		if (prev)
			sp_sim_sched_sync_wait(s, prev);
	}
	if (ex) {
		sp_sim_sched_sync_wait(s, ex);
		if (pick->rr && !pick->rr_left)
			pick->rr_left = SP_RR_SLICE_NS;
		if (ex->needs_step) {
			ex->needs_step = false;
			sp_sim_run_program(s, ex);
		}
	}
	sp_sim_sched_next_local(s, c);
}

/* The running task reached its next local event: its work is done or its
 * slice is used. */
void sp_sim_sched_cpu_event(struct sp_sim *s, struct sp_sim_cpu *c)
{
	struct sp_sim_thread *ex = c->curr, *d = c->donor;

	/* (the end of a thread's op is no kernel event: only accounted) */
	sp_account(s, c);
	if (ex && ex->state == SP_TS_RUNNABLE && ex->needs_sys_done) {
		if (!ex->sys_left) {
			ex->needs_sys_done = false;
			sp_sim_run_program(s, ex);
		}
	} else if (ex && ex->state == SP_TS_RUNNABLE && ex->op_started) {
		if ((ex->op_started == SP_OP_RUN && !ex->op_left) ||
		    (ex->op_started == SP_OP_RUNTIME && s->now >= ex->op_left)) {
			ex->op_started = 0;
			ex->op++;
			sp_sim_run_program(s, ex);
		}
	}
	if (d && c->donor == d && (d->state == SP_TS_RUNNABLE || d->donor)) {
		/* linux: the slice end sp_sim_sched_next_local put on a tick */
		if (d->eff == 0 && d->v >= d->deadline &&
		    (!s->linux_model || !sp_tick_slice(d) || s->now % SP_TICK_NSEC == 0)) {
			d->deadline = d->v + sp_sim_vslice(s, d);
			c->resched = true;
		} else if (d->eff > 0 && d->rr && !d->rr_left) {
			d->rr_left = SP_RR_SLICE_NS;
			d->seq = ++s->seq;
			c->resched = true;
		}
	}
	sp_sim_sched_next_local(s, c);
}

/* RUN_TO_PARITY (Linux 6.6+, on by default; protect_slice() in 6.18's
 * pick_eevdf()): the running fair task keeps its CPU against a fair
 * wakeup while it is eligible and short of its deadline (all tasks here
 * have the one base slice, so the protection is its slice). Without it a
 * fair thread woken with the lag it kept would preempt a hog mid-slice.
 * Not within SP_PARITY_GRACE_NS of a preemption point of a program on this
 * CPU: a trace switched a thread out there for the one that woke then (the
 * slice end and the wakeup come in either order at one instant, and a
 * replay rounds the CPU time before the point). */
#define SP_PARITY_GRACE_NS 20000ull

static bool sp_protected(struct sp_sim *s, struct sp_sim_cpu *c)
{
	struct sp_sim_thread *d = c->donor;
	struct sp_sim_vsum sum;

	if (!d || d->eff != 0 || d->v >= d->deadline ||
	    (c->preempt_t && s->now + 1 - c->preempt_t <= SP_PARITY_GRACE_NS))
		return false;
	sum = sp_sim_vsum_queue(s, c, NULL);
	return sp_sim_vsum_eligible(&sum, d->v);
}

/* check_preempt_wakeup(): would @c now run something else? */
static void sp_check_preempt(struct sp_sim *s, struct sp_sim_cpu *c, struct sp_sim_thread *t)
{
	if (c->resched)
		return;
	if (!c->curr || c->curr->state != SP_TS_RUNNABLE || !c->donor) {
		c->resched = true;
		return;
	}
	if (t->eff > c->donor->eff) {
		c->resched = true;
		return;
	}
	if (t->eff == 0 && c->donor->eff == 0) {
		sp_sim_sched_update_curr(s, c);
		/* PREEMPT_SHORT (6.12+): a woken entity with a shorter slice
		 * than the running one's cancels its protection */
		if (sp_sim_pick(s, c) == t &&
		    !(s->linux_model && sp_sim_slice(s, t) >= sp_sim_slice(s, c->donor) &&
		      sp_protected(s, c)))
			c->resched = true;
		sp_sim_sched_next_local(s, c);
	}
}

void sp_sim_sched_wake(struct sp_sim *s, struct sp_sim_thread *t)
{
	struct sp_sim_cpu *c;

	sp_sim_sched_set_state(s, t, SP_TS_RUNNABLE);
	t->needs_step = true;
	t->seq = ++s->seq;
	if (t->on_rq) { /* a donor, still queued */
		t->donor = false;
		c = &s->cpus[t->cpu];
		sp_sim_trace_event(s, SP_SIM_TR_WAKE, -1, t->idx, -1, 0);
		sp_sim_sched_sync_wait(s, t);
		if (c->donor == t || c->curr == t)
			c->resched = true;
		else
			sp_check_preempt(s, c, t);
		return;
	}
	c = sp_sim_select_cpu(s, t);
	sp_sim_sched_update_curr(s, c);
	sp_sim_sched_enqueue(s, t, c);
	/* traced once queued: its rq is where the wakeup placed it */
	sp_sim_trace_event(s, SP_SIM_TR_WAKE, -1, t->idx, -1, 0);
	sp_check_preempt(s, c, t);
}

void sp_sim_sched_set_eff(struct sp_sim *s, struct sp_sim_thread *t)
{
	int base = t->policy != SP_SIM_OTHER ? t->rtprio : 0, eff = base;
	bool rr;
	struct sp_sim_cpu *c;

	if ((t->sp_boost || t->ux_boost || t->wt_raised) && s->fifo_prio > eff)
		eff = s->fifo_prio;
	if (t->pi_prio > eff)
		eff = t->pi_prio;
	rr = t->policy == SP_SIM_RR && eff == base;
	t->rr = rr;
	if (eff == t->eff)
		return;
	if (!t->on_rq) {
		if (t->eff == 0 && eff > 0) {
			t->vlag = 0;
			t->keep_deadline = false;
		}
		t->eff = eff;
		sp_sim_trace_event(s, SP_SIM_TR_PRIO, -1, t->idx, -1, eff);
		if (t->wait_lock >= 0 && s->lk[t->wait_lock].pi)
			sp_sim_pol_pi_update(s, s->lk[t->wait_lock].owner, 1);
		return;
	}
	c = &s->cpus[t->cpu];
	sp_sim_sched_update_curr(s, c);
	if (t->eff == 0 && eff > 0) {
		sp_sim_save_lag(s, c, t);
		sp_sim_keep_deadline(s, t);
		t->eff = eff;
	} else if (t->eff > 0 && eff == 0) {
		t->eff = eff;
		sp_sim_place(s, c, t);
	} else {
		t->eff = eff;
	}
	sp_sim_trace_event(s, SP_SIM_TR_PRIO, -1, t->idx, -1, eff);
	if (c->curr == t || c->donor == t) {
		c->resched = true;
	} else if (t->state == SP_TS_RUNNABLE) {
		sp_check_preempt(s, c, t);
		if (t->eff > 0)
			sp_sim_push_rt(s, t);
	}
	sp_sim_sched_next_local(s, c);
	if (t->wait_lock >= 0 && s->lk[t->wait_lock].pi)
		sp_sim_pol_pi_update(s, s->lk[t->wait_lock].owner, 1);
}

void sp_sim_sched_set_weight(struct sp_sim *s, struct sp_sim_thread *t)
{
	uint32_t w = sp_sim_sched_weight(t->nice);
	struct sp_sim_cpu *c;

	if (w == t->weight)
		return;
	if (t->on_rq && t->eff == 0) {
		c = &s->cpus[t->cpu];
		sp_sim_sched_update_curr(s, c);
		sp_sim_save_lag(s, c, t);
		t->weight = w;
		sp_sim_place(s, c, t);
		c->resched = true;
	} else {
		t->weight = w;
	}
}

/* yield_task_fair(): the deadline moves a slice on; RT: to the tail. */
void sp_sim_sched_yield(struct sp_sim *s, struct sp_sim_thread *t)
{
	struct sp_sim_cpu *c = &s->cpus[t->cpu];

	sp_sim_sched_update_curr(s, c);
	if (t->eff == 0)
		t->deadline += sp_sim_vslice(s, t);
	else
		t->seq = ++s->seq;
	/* its program goes on when it runs again (without this a yielder
	 * ran for ever without reaching its next op) */
	t->needs_step = true;
	c->resched = true;
	c->no_defer = true; /* given up, not taken: no policy keeps it running */
}

/* SP_OP_PREEMPT: @t, running in the fair class on its own behalf, has used
 * its slice here, as sp_sim_sched_cpu_event() finds at a slice's end: a new
 * deadline and a pick. True if the CPU is to pick again (the program waits
 * for it to run once more). An RT thread (boosted, PI, rt-ui) or a proxy
 * owner runs on: the preemption a trace recorded came from the fair class. */
bool sp_sim_sched_slice_end(struct sp_sim *s, struct sp_sim_thread *t)
{
	struct sp_sim_cpu *c = sp_sim_sched_cpu_of_curr(s, t);

	if (!c || c->donor != t || t->eff != 0)
		return false;
	sp_sim_sched_update_curr(s, c);
	t->deadline = t->v + sp_sim_vslice(s, t);
	c->preempt_t = s->now + 1;
	t->needs_step = true;
	c->resched = true;
	return true;
}
