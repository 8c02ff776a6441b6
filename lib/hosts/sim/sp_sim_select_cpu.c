// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Wakeup placement: the CPU a waking or pushed thread is queued on
 * (select_task_rq_rt()/select_task_rq_fair()).
 */
#include "sp_sim_sched.h"

/* The priority a CPU's work has now: -1 idle, 0 fair, else RT. */
int sp_sim_cpu_prio(struct sp_sim *s, struct sp_sim_cpu *c)
{
	/* A raised critical waiter is still running on its CPU while it
	 * fast-tracks its holders (sp_waiter_push_holder): it sleeps after. */
	int p = s->in_waiter_cpu == c->id ? s->fifo_prio : -1;

	for (int i = 0; i < c->nrq; i++) {
		struct sp_sim_thread *t = &s->th[c->rq[i]];

		if (t->state == SP_TS_RUNNABLE || t->donor)
			p = t->eff > p ? t->eff : p;
	}
	return p;
}

/* linux model: is @t, asleep in debt (DELAY_DEQUEUE), still on its queue?
 * It leaves when that queue picks it: when it is eligible and its deadline
 * the earliest, taken here as within one base slice of the queue's average
 * (a nice-0 competitor's); not as soon as its debt is paid. Its deadline
 * is a slice past its vruntime, 68 base slices for a nice-19 thread, so
 * such a sleeper stays queued on its CPU long after it slept.
 * Woken while queued it stays there (ttwu_runnable(): no CPU is chosen). */
static bool sp_still_queued(struct sp_sim *s, struct sp_sim_thread *t)
{
	int64_t W, V = sp_sim_avg_v(&s->cpus[t->delay_cpu], s, t, &W);

	return V < t->v || t->v + t->rel_deadline > V + (int64_t)s->slice;
}

/* record_wakee(): @cur woke @t. A thread that keeps waking other threads
 * (a writer waking many readers) gathers flips. */
static void sp_record_wakee(struct sp_sim *s, struct sp_sim_thread *cur,
			    const struct sp_sim_thread *t)
{
	if (s->now > cur->flip_decay_t + SP_FLIP_DECAY_NS) {
		cur->wakee_flips >>= 1;
		cur->flip_decay_t = s->now;
	}
	if (cur->last_wakee != t->idx) {
		cur->last_wakee = t->idx;
		cur->wakee_flips++;
	}
}

/* wake_wide(): a waker of many and a wakee that wakes others too
 * (M:N) are woken where the wakee was, without wake_affine(): the
 * lesser of the two flip counts at least the LLC's CPUs (all of the
 * simulated ones) and the greater at least that many times it: readers
 * woken by a writer's unlock stay on their own CPUs. */
static bool sp_wake_wide(const struct sp_sim *s, const struct sp_sim_thread *cur,
			 const struct sp_sim_thread *t)
{
	uint32_t master = cur->wakee_flips, slave = t->wakee_flips, f = s->ncpus;

	if (master < slave) {
		uint32_t x = master;

		master = slave;
		slave = x;
	}
	return !(slave < f || master < slave * f);
}

/* linux model, a wakeup from a thread running on @this (an unlock's
 * FUTEX_WAKE, never WF_SYNC): wake_affine(). wake_affine_idle(): @this if
 * it is idle and @prev is not, @prev if idle; else wake_affine_weight():
 * @this if its load with the wakee's, times 100, is below @prev's without
 * it, times 108 (WA_BIAS: half the MC domain's imbalance_pct over 100).
 * The wakee's load is the one it slept with, as the kernel reads it, not
 * its load decayed through its wait: a lighter wakee would be pulled to
 * the waker's CPU too often. */
static int sp_wake_affine(struct sp_sim *s, const struct sp_sim_thread *t, int this, int prev)
{
	/* task_h_load(): @t's load as of its sleep */
	uint64_t tl = sp_sim_pelt_weighted(t, t->pelt_sleep);
	int64_t lt, lp;

	if (!s->cpus[this].nrq)
		return s->cpus[prev].nrq ? this : prev;
	if (!s->cpus[prev].nrq)
		return prev;
	/* @t, runnable already and on no queue, is in neither sp_sim_cpu_load():
	 * @prev's is the kernel's cpu_load(), which still holds @t's blocked
	 * load, decayed, less @t's load as of its sleep, as
	 * wake_affine_weight() takes it */
	lt = (int64_t)(sp_sim_cpu_load(s, &s->cpus[this], NULL) + tl);
	lp = (int64_t)(sp_sim_cpu_load(s, &s->cpus[prev], NULL) + sp_sim_pelt_load(s, t)) - (int64_t)tl;
	return lt * 100 < lp * 108 ? this : prev;
}

/* find_lowest_rq(): the first CPU @t may run on, other than @skip, whose
 * work has the lowest priority (*prio); -1 if there is none. */
int sp_sim_lowest_cpu(struct sp_sim *s, const struct sp_sim_thread *t, int skip, int *prio)
{
	int best = -1, bp = 1000;

	for (uint32_t i = 0; i < s->ncpus; i++) {
		int p;

		if ((int)i == skip || !sp_sim_allowed(t, (int)i))
			continue;
		p = sp_sim_cpu_prio(s, &s->cpus[i]);
		if (p < bp) {
			bp = p;
			best = (int)i;
		}
	}
	*prio = bp;
	return best;
}

struct sp_sim_cpu *sp_sim_select_cpu(struct sp_sim *s, struct sp_sim_thread *t)
{
	int prev = t->cpu >= 0 && sp_sim_allowed(t, t->cpu) ? t->cpu : -1, target;

	if (t->eff > 0) {
		int best, bp;

		if (prev >= 0 && sp_sim_cpu_prio(s, &s->cpus[prev]) < t->eff)
			return &s->cpus[prev];
		best = sp_sim_lowest_cpu(s, t, -1, &bp);
		if (best >= 0 && bp < t->eff)
			return &s->cpus[best];
		return &s->cpus[prev >= 0 ? prev : best >= 0 ? best : 0];
	}
	if (s->linux_model && t->delayed && sp_still_queued(s, t))
		return &s->cpus[t->delay_cpu];
	target = prev;
	if (s->linux_model && prev >= 0) {
		/* current: the unlocking thread, or for a timer's wake whatever
		 * runs where the sleeper armed it, its previous CPU */
		struct sp_sim_thread *cur = s->waker >= 0 ? &s->th[s->waker] : s->cpus[prev].curr;
		struct sp_sim_cpu *wc = cur ? sp_sim_sched_cpu_of_curr(s, cur) : NULL;

		if (cur && cur != t) {
			sp_record_wakee(s, cur, t);
			if (wc && wc->id != prev && sp_sim_allowed(t, wc->id) &&
			    !sp_wake_wide(s, cur, t))
				target = sp_wake_affine(s, t, wc->id, prev);
		}
	}
	/* select_idle_sibling(): the target if idle, else its previous CPU
	 * if idle, else any idle one, else the target */
	if (target >= 0 && s->cpus[target].nrq == 0)
		return &s->cpus[target];
	if (prev >= 0 && s->cpus[prev].nrq == 0)
		return &s->cpus[prev];
	for (uint32_t i = 0; i < s->ncpus; i++)
		if (sp_sim_allowed(t, (int)i) && s->cpus[i].nrq == 0)
			return &s->cpus[i];
	if (target >= 0)
		return &s->cpus[target];
	{
		int best = -1;

		for (uint32_t i = 0; i < s->ncpus; i++)
			if (sp_sim_allowed(t, (int)i) && (best < 0 || s->cpus[i].nrq < s->cpus[best].nrq))
				best = (int)i;
		return &s->cpus[best >= 0 ? best : 0];
	}
}
