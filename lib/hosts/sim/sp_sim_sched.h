/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the scheduler's files (sp_sim_sched.c, sp_sim_eevdf.c,
 * sp_sim_pelt.c, sp_sim_select_cpu.c, sp_sim_balance.c, sp_sim_proxy.c)
 * share; the rest of the engine uses sp_sim_engine.h's sp_sim_sched_*. */
#ifndef SP_SIM_SCHED_H
#define SP_SIM_SCHED_H

#include "sp_sim_engine.h"

#pragma GCC visibility push(hidden)

static inline bool sp_sim_allowed(const struct sp_sim_thread *t, int cpu)
{
	return !t->affinity || (t->affinity >> cpu) & 1u;
}

/* @t's fair slice: its own (sched_runtime), else the base one. */
static inline uint64_t sp_sim_slice(const struct sp_sim *s, const struct sp_sim_thread *t)
{
	return t->slice_ns ? t->slice_ns : s->slice;
}

static inline int64_t sp_sim_vslice(const struct sp_sim *s, const struct sp_sim_thread *t)
{
	return (int64_t)(sp_sim_slice(s, t) * SP_NICE_0 / t->weight);
}

/* A fair entity counted in the run queue's average (donors too). */
static inline bool sp_sim_fair_on(const struct sp_sim_thread *t)
{
	return t->eff == 0;
}

/*
 * sum((v - base) * w) and W over a queue's fair entities, base the first
 * one's v (rather than the smallest: that adds the same (v0 - min) * W to
 * both sides of every comparison below, so the answers are the same,
 * exact in 128 bits).
 */
struct sp_sim_vsum {
	int64_t base, w;
	__int128 num;
	bool any;
};

static inline void sp_sim_vsum_add(struct sp_sim_vsum *a, const struct sp_sim_thread *t)
{
	if (!a->any)
		a->base = t->v;
	a->any = true;
	a->num += (__int128)(t->v - a->base) * t->weight;
	a->w += t->weight;
}

/* entity_eligible() without the division: v at most the weighted average
 * (true for an empty sum). */
static inline bool sp_sim_vsum_eligible(const struct sp_sim_vsum *a, int64_t v)
{
	return !a->any || (__int128)(v - a->base) * a->w <= a->num;
}

/* sp_sim_eevdf.c */
struct sp_sim_vsum sp_sim_vsum_queue(struct sp_sim *s, struct sp_sim_cpu *c,
				     const struct sp_sim_thread *skip);
int64_t sp_sim_avg_v(struct sp_sim_cpu *c, struct sp_sim *s, const struct sp_sim_thread *skip,
		     int64_t *W);
void sp_sim_save_lag(struct sp_sim *s, struct sp_sim_cpu *c, struct sp_sim_thread *t);
void sp_sim_place(struct sp_sim *s, struct sp_sim_cpu *c, struct sp_sim_thread *t);
void sp_sim_keep_deadline(struct sp_sim *s, struct sp_sim_thread *t);

/* sp_sim_pelt.c */
uint64_t sp_sim_pelt_weighted(const struct sp_sim_thread *t, double share);
uint64_t sp_sim_pelt_load(const struct sp_sim *s, const struct sp_sim_thread *t);
uint64_t sp_sim_cpu_load(struct sp_sim *s, const struct sp_sim_cpu *c, int *nr);

/* sp_sim_select_cpu.c */
int sp_sim_cpu_prio(struct sp_sim *s, struct sp_sim_cpu *c);
int sp_sim_lowest_cpu(struct sp_sim *s, const struct sp_sim_thread *t, int skip, int *prio);
struct sp_sim_cpu *sp_sim_select_cpu(struct sp_sim *s, struct sp_sim_thread *t);

/* sp_sim_sched.c */
struct sp_sim_thread *sp_sim_pick(struct sp_sim *s, struct sp_sim_cpu *c);
void sp_sim_migrate(struct sp_sim *s, struct sp_sim_thread *t, struct sp_sim_cpu *to);

/* sp_sim_balance.c */
bool sp_sim_pull(struct sp_sim *s, struct sp_sim_cpu *c, struct sp_sim_thread **pickp);
void sp_sim_push_rt(struct sp_sim *s, struct sp_sim_thread *t);

/* sp_sim_proxy.c */
struct sp_sim_thread *sp_sim_proxy(struct sp_sim *s, struct sp_sim_cpu *c, struct sp_sim_thread *d);

#pragma GCC visibility pop

#endif /* SP_SIM_SCHED_H */
