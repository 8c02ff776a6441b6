// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The fair class after EEVDF: nice weights, a run queue's weighted
 * average vruntime, lag kept across a dequeue and placement at enqueue.
 */
#include "sp_sim_sched.h"

/* kernel/sched/core.c sched_prio_to_weight[] */
static const uint32_t sp_nice_weight[40] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
	9548,  7620,  6100,  4904,  3906,  3121,  2501,  1991,  1586,  1277,
	1024,  820,   655,   526,   423,   335,   272,   215,   172,   137,
	110,   87,    70,    56,    45,    36,    29,    23,    18,    15,
};

uint32_t sp_sim_sched_weight(int nice)
{
	if (nice < -20)
		nice = -20;
	if (nice > 19)
		nice = 19;
	return sp_nice_weight[nice + 20];
}

/* @c's fair entities but @skip. */
struct sp_sim_vsum sp_sim_vsum_queue(struct sp_sim *s, struct sp_sim_cpu *c,
				     const struct sp_sim_thread *skip)
{
	struct sp_sim_vsum a = { 0 };

	for (int i = 0; i < c->nrq; i++) {
		struct sp_sim_thread *t = &s->th[c->rq[i]];

		if (t != skip && sp_sim_fair_on(t))
			sp_sim_vsum_add(&a, t);
	}
	return a;
}

/* The weighted average vruntime of @c's fair entities, except @skip,
 * floor(sum(v * w) / W). *W gets their total weight. Taken from the first
 * entity's v, b: min + floor(sum((v - min) * w) / W) is
 * b + floor(sum((v - b) * w) / W), exactly, in one pass. */
int64_t sp_sim_avg_v(struct sp_sim_cpu *c, struct sp_sim *s, const struct sp_sim_thread *skip,
		     int64_t *W)
{
	struct sp_sim_vsum a = sp_sim_vsum_queue(s, c, skip);
	int64_t q;

	*W = a.w;
	if (!a.any)
		return c->last_v;
	if (a.num >= INT64_MIN && a.num <= INT64_MAX) {
		int64_t n = (int64_t)a.num;

		q = n / a.w - (n % a.w < 0);
	} else {
		q = (int64_t)(a.num / a.w - (a.num % a.w < 0));
	}
	c->last_v = a.base + q;
	return c->last_v;
}

static int64_t sp_clamp_lag(const struct sp_sim *s, const struct sp_sim_thread *t, int64_t lag)
{
	uint64_t span = 2 * s->slice > SP_TICK_NSEC ? 2 * s->slice : SP_TICK_NSEC;
	int64_t limit = (int64_t)(span * SP_NICE_0 / t->weight);

	return lag > limit ? limit : lag < -limit ? -limit : lag;
}

/* update_entity_lag(): what @t is owed when it leaves the fair queue. */
void sp_sim_save_lag(struct sp_sim *s, struct sp_sim_cpu *c, struct sp_sim_thread *t)
{
	int64_t W;
	int64_t V = sp_sim_avg_v(c, s, NULL, &W);

	t->vlag = sp_clamp_lag(s, t, V - t->v);
}

/* place_entity(): vruntime from the queue's average and the kept lag. */
void sp_sim_place(struct sp_sim *s, struct sp_sim_cpu *c, struct sp_sim_thread *t)
{
	int64_t W, V = sp_sim_avg_v(c, s, t, &W), lag = t->fresh ? 0 : t->vlag;

	if (lag && W) {
		int64_t x;

		/* in 64 bits when the product fits (the same quotient) */
		if (!__builtin_mul_overflow(lag, W + t->weight, &x))
			lag = x / W;
		else
			lag = (int64_t)((__int128)lag * (W + t->weight) / W);
	}
	t->v = V - lag;
	t->vrem = 0;
	if (t->keep_deadline && !t->fresh)
		t->deadline = t->v + t->rel_deadline;
	else
		t->deadline = t->v + (t->fresh ? sp_sim_vslice(s, t) / 2 : sp_sim_vslice(s, t));
	t->keep_deadline = false;
	t->fresh = false;
}

/* linux model: dequeue_entity() keeps a fair entity's deadline relative to
 * its vruntime when it leaves its queue for anything but a sleep
 * (PLACE_REL_DEADLINE, 6.12+: a migration, sched_setattr into the RT class
 * and back), and place_entity() restores it instead of starting a new
 * slice. It matters most for a nice 19 thread, whose slice is 68 times a
 * nice 0 one in virtual time (102 ms for the 1.5 ms base slice): a
 * fast-tracked holder came back from each fast track with a whole new
 * one, behind every hog on its CPU. */
void sp_sim_keep_deadline(struct sp_sim *s, struct sp_sim_thread *t)
{
	t->keep_deadline = s->linux_model;
	t->rel_deadline = t->deadline - t->v;
	/* dequeue_entity()'s update_curr() renews a deadline the entity has
	 * run past (update_deadline()) before it is made relative, whatever
	 * the dequeue is for: a slice not yet seen used is a new one */
	if (t->rel_deadline <= 0)
		t->rel_deadline = sp_sim_vslice(s, t);
}
