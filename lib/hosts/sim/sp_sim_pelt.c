// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Load tracking (linux model): each thread's PELT runnable share, and the
 * load of a CPU that wakeup placement and balancing compare.
 */
#include <math.h>

#include "sp_sim_sched.h"

/* linux model: @t's PELT runnable share now, 0..1024: it decays by y a
 * millisecond (y^32 = 1/2) and grows toward 1024 while @t is runnable,
 * continuously (PELT sums 1024 us periods), so that runs shorter than a
 * tick count too. */
static double sp_pelt(const struct sp_sim *s, const struct sp_sim_thread *t)
{
	double y;

	if (s->now <= t->pelt_t)
		return t->pelt;
	y = exp2(-(double)(s->now - t->pelt_t) / 32e6);
	return t->pelt * y + (t->state == SP_TS_RUNNABLE ? 1024.0 * (1.0 - y) : 0.0);
}

/* @t's state changes to @state: its PELT share is brought up to now under
 * the old one; leaving the runnable state, it is also what its next wakeup
 * reads (select_task_rq_fair() does not update a waking task's load). */
void sp_sim_sched_set_state(struct sp_sim *s, struct sp_sim_thread *t, int state)
{
	t->pelt = sp_pelt(s, t);
	t->pelt_t = s->now;
	if (t->state == SP_TS_RUNNABLE && state != SP_TS_RUNNABLE)
		t->pelt_sleep = t->pelt;
	t->state = state;
}

/* @t's weight times a runnable @share of 1024: a PELT load_avg */
uint64_t sp_sim_pelt_weighted(const struct sp_sim_thread *t, double share)
{
	return (uint64_t)((double)t->weight * share / 1024.0);
}

/* linux model: @t's PELT load now (load_avg, task_h_load() with no
 * groups) */
uint64_t sp_sim_pelt_load(const struct sp_sim *s, const struct sp_sim_thread *t)
{
	return sp_sim_pelt_weighted(t, sp_pelt(s, t));
}

/* linux model: the load of @c's sleeping and blocked fair threads. A
 * cfs_rq's load_avg keeps its blocked entities' PELT load, decaying, until
 * they wake elsewhere (remove_entity_load_avg): a frame thread weighs on
 * its CPU between its frames too. Counting only the runnable ones, the
 * balancer would see a heavy critical thread's CPU empty whenever the
 * thread waits or sleeps, and move hogs there. */
static uint64_t sp_blocked_load(struct sp_sim *s, const struct sp_sim_cpu *c)
{
	uint64_t l = 0;

	for (uint32_t i = 0; i < s->nth; i++) {
		const struct sp_sim_thread *t = &s->th[i];

		if (!t->on_rq && t->cpu == c->id && t->eff == 0 &&
		    (t->state == SP_TS_SLEEP || t->state == SP_TS_BLOCKED))
			l += sp_sim_pelt_load(s, t);
	}
	return l;
}

/* cpu_load(): the PELT-like load of @c's fair threads, the runnable ones'
 * and (linux model) the sleeping ones' it still carries; *nr gets the
 * runnable threads of any class. */
uint64_t sp_sim_cpu_load(struct sp_sim *s, const struct sp_sim_cpu *c, int *nr)
{
	uint64_t l = 0;
	int n = 0;

	for (int j = 0; j < c->nrq; j++) {
		const struct sp_sim_thread *t = &s->th[c->rq[j]];

		if (t->state == SP_TS_RUNNABLE) {
			n++;
			l += t->eff == 0 ? sp_sim_pelt_load(s, t) : 0;
		}
	}
	if (s->linux_model)
		l += sp_blocked_load(s, c);
	if (nr)
		*nr = n;
	return l;
}
