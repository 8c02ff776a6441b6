// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The policies a user would pick instead of superpass, as the simulator
 * models them. Both keep a running thread on its CPU past a preemption;
 * neither moves a waiting holder up the queue.
 *
 * rseq-slice: Linux 7.0's rseq time-slice extension. A thread that asked
 * for it on entering a critical section (here: every thread, for every
 * section, the most it could get) and is interrupted with a reschedule
 * pending may run on for the configured extension (the kernel's
 * rseq_slice_ext_nsec: default 5 us, at most 50 us), once per section;
 * leaving the section it yields (rseq_slice_yield), and the kernel's timer
 * ends an extension that runs out. Only a holder that is running gains:
 * a preempted holder waits as before.
 *
 * lavd: scx_lavd's futex rule. A thread that took a lock after waiting for
 * it (it returned from a futex wait) is treated as a lock holder, and not
 * preempted, until it releases that lock to a waiter (its futex wake) or a
 * slice passes. Left out: the rest of scx_lavd (its own deadlines, latency
 * criticality, core compaction): the fair class stays the simulator's
 * EEVDF, so this row is EEVDF plus lavd's lock-holder rule.
 */
#include "sp_sim_engine.h"

static uint64_t sp_rseq_slice(const struct sp_sim *s)
{
	return s->o->rseq_slice_ns ? s->o->rseq_slice_ns : SP_SIM_DEFAULT_RSEQ_SLICE_NS;
}

/* A deferred reschedule comes due: at the extension's end, or when the
 * thread gives the CPU back itself. */
static void sp_defer_end(struct sp_sim_cpu *c)
{
	c->deferred = false;
	c->defer_gen++;
	c->resched = true;
}

static bool sp_defer(struct sp_sim *s, struct sp_sim_cpu *c, struct sp_sim_thread *t,
		     uint64_t until)
{
	if (!c->deferred) {
		c->deferred = true;
		c->defer_th = t->idx;
		c->defer_gen++;
		sp_sim_push(s, until, SP_SIM_EV_DEFER_END, c->id, c->defer_gen);
		s->r->deferrals++;
	}
	c->resched = false;
	/* a preemption point of the program (a replay's recorded preemption)
	 * not taken: the program goes on at once, as if picked again */
	if (t->needs_step) {
		t->needs_step = false;
		sp_sim_run_program(s, t);
	}
	if (!c->resched)
		sp_sim_sched_next_local(s, c);
	return true;
}

/* Called for each CPU about to pick again (sp_resched_all): true if the
 * policy keeps its running thread on it for now. */
bool sp_sim_pol_defer_resched(struct sp_sim *s, struct sp_sim_cpu *c)
{
	struct sp_sim_thread *t = c->curr;
	bool yielded = c->no_defer;

	c->no_defer = false;
	if (s->pol != SP_SIM_POL_RSEQ_SLICE && s->pol != SP_SIM_POL_LAVD)
		return false;
	/* only a preemption of a thread running on its own behalf: a thread
	 * that blocked, slept or yielded gives its CPU up */
	if (yielded || !t || t != c->donor || t->state != SP_TS_RUNNABLE)
		return false;
	if (c->deferred && c->defer_th != t->idx) {
		c->deferred = false; /* its thread left the CPU meanwhile */
		c->defer_gen++;
	}
	if (c->deferred)
		return sp_defer(s, c, t, 0);
	if (s->pol == SP_SIM_POL_RSEQ_SLICE && t->nheld && !t->rseq_used) {
		t->rseq_used = true;
		return sp_defer(s, c, t, s->now + sp_rseq_slice(s));
	}
	if (s->pol == SP_SIM_POL_LAVD && t->lavd_until > s->now)
		return sp_defer(s, c, t, t->lavd_until);
	return false;
}

void sp_sim_pol_defer_due(struct sp_sim *s, int cpu, uint32_t gen)
{
	struct sp_sim_cpu *c = &s->cpus[cpu];

	if (gen != c->defer_gen)
		return;
	if (c->curr && c->curr->idx == c->defer_th)
		sp_defer_end(c);
	else
		c->deferred = false;
}

void sp_sim_pol_anchor_acquired(struct sp_sim *s, struct sp_sim_thread *t, bool waited)
{
	if (s->pol == SP_SIM_POL_LAVD && waited)
		t->lavd_until = s->now + s->slice;
}

/* @woke: the release woke a waiter (a futex wake). */
void sp_sim_pol_anchor_released(struct sp_sim *s, struct sp_sim_thread *t, bool woke)
{
	struct sp_sim_cpu *c = sp_sim_sched_cpu_of_curr(s, t);
	bool give_back = false;

	if (s->pol == SP_SIM_POL_RSEQ_SLICE && !t->nheld) {
		/* out of the section: the next one may ask again; one that ran
		 * on an extension yields the CPU (rseq_slice_yield) */
		give_back = true;
		t->rseq_used = false;
	} else if (s->pol == SP_SIM_POL_LAVD && woke && t->lavd_until) {
		t->lavd_until = 0;
		give_back = true;
	}
	if (give_back && c && c->deferred && c->defer_th == t->idx)
		sp_defer_end(c);
}
