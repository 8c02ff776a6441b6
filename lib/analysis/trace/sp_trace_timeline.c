// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The threads' state timelines, the CPUs' who-ran-when and the threads'
 * finished waits, kept back to the horizon: the oldest time an open wait
 * of a selected thread may still ask about.
 */
#include <stdlib.h>
#include <string.h>

#include <superpass/trace.h>

#include "sp_trace_analysis.h"

uint64_t sp_trace_horizon(struct sp_trace_analysis *a)
{
	uint64_t h = a->now;

	/* Monotonic over time, so a value computed a little earlier is safe. */
	if (a->c.events - a->horizon_events < 1024 && a->horizon)
		return a->horizon;
	for (size_t i = 0; i < a->crit_ids.n; i++) {
		struct sp_trace_thr *t = a->thr.v[a->crit_ids.v[i]];

		if (t->fx.open && t->fx.start < h)
			h = t->fx.start;
		if (t->kl.open && t->kl.start < h)
			h = t->kl.start;
		/* the next wait's merge looks at the thread since the episode's end */
		if (t->ep_open && t->ep.end_ns < h)
			h = t->ep.end_ns;
	}
	if (a->now > a->o.window_ns && h < a->now - a->o.window_ns)
		h = a->now - a->o.window_ns;
	if (h < a->horizon)
		h = a->horizon;
	a->horizon = h;
	a->horizon_events = a->c.events;
	return h;
}

/* Drops entries before the last one at or before @h. */
#define SP_TRACE_PRUNE_TIMELINE(vec, h)                                         \
	do {                                                                    \
		size_t keep_ = 0;                                               \
		while (keep_ + 1 < (vec).n && (vec).v[keep_ + 1].ts <= (h))     \
			keep_++;                                                \
		if (keep_) {                                                    \
			memmove((vec).v, (vec).v + keep_,                       \
				((vec).n - keep_) * sizeof(*(vec).v));          \
			(vec).n -= keep_;                                       \
		}                                                               \
	} while (0)

void sp_trace_set_state(struct sp_trace_analysis *a, struct sp_trace_thr *t, uint64_t ts,
			uint32_t st)
{
	struct sp_trace_st_ent e = { ts, st };

	if (t->state == st && t->hist.n)
		return;
	t->state = st;
	if (t->hist.n && t->hist.v[t->hist.n - 1].ts == ts) {
		t->hist.v[t->hist.n - 1].state = st;
		return;
	}
	if (t->hist.n == t->hist.cap && t->hist.n)
		SP_TRACE_PRUNE_TIMELINE(t->hist, sp_trace_horizon(a));
	SP_TRACE_VEC_PUSH(t->hist, e);
}

void sp_trace_cpu_set(struct sp_trace_analysis *a, int32_t cpu, uint64_t ts, uint32_t id,
		      int32_t prio)
{
	struct sp_trace_cpu_ent e = { ts, id, prio };

	if (cpu < 0 || cpu > 4096)
		return;
	while (a->cpus.n <= (size_t)cpu) {
		struct { struct sp_trace_cpu_ent *v; size_t n, cap; } z = { 0 };

		if (a->cpus.n == a->cpus.cap && SP_TRACE_VEC_GROW(a->cpus))
			return;
		memcpy(&a->cpus.v[a->cpus.n++], &z, sizeof(z));
	}
	if (a->cpus.v[cpu].n == a->cpus.v[cpu].cap && a->cpus.v[cpu].n)
		SP_TRACE_PRUNE_TIMELINE(a->cpus.v[cpu], sp_trace_horizon(a));
	SP_TRACE_VEC_PUSH(a->cpus.v[cpu], e);
}

void sp_trace_add_wait_rec(struct sp_trace_analysis *a, struct sp_trace_thr *t, uint64_t s,
			   uint64_t e, uint32_t waker)
{
	struct sp_trace_wait_rec w = { s, e, waker };

	if (t->waits.n == t->waits.cap && t->waits.n) {
		uint64_t h = sp_trace_horizon(a);
		size_t k = 0;

		while (k < t->waits.n && t->waits.v[k].end < h)
			k++;
		memmove(t->waits.v, t->waits.v + k, (t->waits.n - k) * sizeof(*t->waits.v));
		t->waits.n -= k;
	}
	SP_TRACE_VEC_PUSH(t->waits, w);
}

/* Every question the analysis asks of a thread's history is about a time
 * at or after the horizon (open waits start there; see sp_trace_horizon()). A
 * retired thread whose last state began at or before it and whose waits
 * all ended before it answers every such question with its last state
 * alone: keep that entry, free the rest (what SP_TRACE_PRUNE_TIMELINE and
 * add_wait_rec would keep, had the thread grown again). */
void sp_trace_release_retired(struct sp_trace_analysis *a)
{
	uint64_t h;

	if (a->c.events - a->retire_events < 4096 || !a->retired.n)
		return;
	a->retire_events = a->c.events;
	h = sp_trace_horizon(a);
	for (size_t i = 0; i < a->retired.n;) {
		struct sp_trace_thr *t = a->thr.v[a->retired.v[i]];

		if ((t->hist.n && t->hist.v[t->hist.n - 1].ts > h) ||
		    (t->waits.n && t->waits.v[t->waits.n - 1].end >= h) || t->ep_open) {
			i++;
			continue;
		}
		if (t->hist.n) {
			struct sp_trace_st_ent last = t->hist.v[t->hist.n - 1];
			void *v = realloc(t->hist.v, sizeof(last));

			if (v) {
				t->hist.v = v;
				t->hist.cap = 1;
			}
			t->hist.v[0] = last;
			t->hist.n = 1;
		}
		free(t->waits.v);
		t->waits.v = NULL;
		t->waits.n = t->waits.cap = 0;
		free(t->segs.v);
		t->segs.v = NULL;
		t->segs.n = t->segs.cap = 0;
		a->retired.v[i] = a->retired.v[--a->retired.n];
	}
}
