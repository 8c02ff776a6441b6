// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Blocking episodes from a stream of scheduler events.
 *
 * Per thread: its state timeline (running, runnable, sleeping, blocked),
 * its completed lock waits (start, end, waker) and its open ones. Per CPU:
 * who ran when. A wait of a selected thread ends as a segment: its blocker
 * is the thread whose sched_waking reached it during the wait; the
 * blocker's timeline over the segment gives its split, its own waits that
 * overlap the segment give the next link of the chain, and the CPUs'
 * timelines over its runnable intervals give who ran instead. Segments of
 * one acquisition (a futex wait that returned and waited again on the same
 * word within merge_ns) make one episode.
 *
 * Memory: timelines are kept only back to the oldest open wait of a
 * selected thread, and never longer than window_ns behind the newest
 * event; the rest is dropped as it grows.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <superpass/trace.h>

#include "sp_trace_analysis.h"

void sp_trace_opts_default(struct sp_trace_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->merge_ns = 50000;
	o->window_ns = 10000000000ull;
	o->max_chain = 8;
}

const char *sp_trace_wait_kind_name(unsigned int kind)
{
	static const char *const n[SP_TWK_NR] = { "futex", "mutex", "rwsem-read", "rwsem-write",
						  "spinlock", "kernel-lock" };

	return kind < SP_TWK_NR ? n[kind] : NULL;
}

int sp_trace_analysis_create(const struct sp_trace_opts *o, struct sp_trace_analysis **out)
{
	struct sp_trace_analysis *a = calloc(1, sizeof(*a));
	size_t nc = 0;

	if (!a)
		return -ENOMEM;
	if (o)
		a->o = *o;
	else
		sp_trace_opts_default(&a->o);
	if (!a->o.max_chain || a->o.max_chain > 16)
		a->o.max_chain = 8;
	if (!a->o.window_ns)
		a->o.window_ns = 10000000000ull;
	while (o && o->critical_comms && o->critical_comms[nc])
		nc++;
	a->comms = calloc(nc + 1, sizeof(char *));
	a->tids = calloc(a->o.nr_critical_tids + 1, sizeof(int32_t));
	a->map_cap = 1024;
	a->map = malloc(a->map_cap * sizeof(*a->map));
	if (!a->comms || !a->tids || !a->map) {
		sp_trace_analysis_destroy(a);
		return -ENOMEM;
	}
	memset(a->map, 0xff, a->map_cap * sizeof(*a->map));
	for (size_t i = 0; i < nc; i++)
		if (!(a->comms[i] = strdup(o->critical_comms[i]))) {
			sp_trace_analysis_destroy(a);
			return -ENOMEM;
		}
	a->o.critical_comms = (const char *const *)a->comms;
	if (a->o.nr_critical_tids)
		memcpy(a->tids, o->critical_tids, a->o.nr_critical_tids * sizeof(int32_t));
	a->o.critical_tids = a->tids;
	a->select_all = !nc && !a->o.nr_critical_tids;
	*out = a;
	return 0;
}

void sp_trace_analysis_destroy(struct sp_trace_analysis *a)
{
	if (!a)
		return;
	for (size_t i = 0; a->comms && a->comms[i]; i++)
		free(a->comms[i]);
	free(a->comms);
	free(a->tids);
	free(a->map);
	for (size_t i = 0; i < a->thr.n; i++) {
		struct sp_trace_thr *t = a->thr.v[i];

		free(t->hist.v);
		free(t->waits.v);
		free(t->segs.v);
		free(t->fx.rels);
		free(t);
	}
	free(a->thr.v);
	for (size_t i = 0; i < a->cpus.n; i++)
		free(a->cpus.v[i].v);
	free(a->cpus.v);
	for (size_t i = 0; i < a->res.n; i++) {
		free(a->res.v[i]->blockers.v);
		free(a->res.v[i]->locks.v);
		free(a->res.v[i]);
	}
	free(a->res.v);
	free(a->crit_ids.v);
	free(a->retired.v);
	for (size_t i = 0; i < a->eps.n; i++)
		free(a->eps.v[i].segments);
	free(a->eps.v);
	free(a);
}

static void sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (v && n > 1)
		qsort(v, n, size, cmp);
}

static int cmp_blocker(const void *x, const void *y)
{
	const struct sp_trace_blocker *a = x, *b = y;

	return a->blocking_ns < b->blocking_ns ? 1 : a->blocking_ns > b->blocking_ns ? -1
			: a->thread_id < b->thread_id ? -1 : a->thread_id > b->thread_id;
}

static int cmp_lock(const void *x, const void *y)
{
	const struct sp_trace_lock_stat *a = x, *b = y;

	return a->total_ns < b->total_ns ? 1 : a->total_ns > b->total_ns ? -1
			: a->lock < b->lock ? -1 : a->lock > b->lock;
}

static int cmp_pre(const void *x, const void *y)
{
	const struct sp_trace_preemptor *a = x, *b = y;

	return a->ns < b->ns ? 1 : a->ns > b->ns ? -1 : a->thread_id < b->thread_id ? -1 : 1;
}

static int cmp_res(const void *x, const void *y)
{
	const struct sp_trace_res *a = *(struct sp_trace_res *const *)x;
	const struct sp_trace_res *b = *(struct sp_trace_res *const *)y;

	return a->pub.blocking_ns < b->pub.blocking_ns ? 1
	       : a->pub.blocking_ns > b->pub.blocking_ns ? -1
	       : a->pub.thread_id < b->pub.thread_id ? -1 : 1;
}

int sp_trace_analysis_finish(struct sp_trace_analysis *a)
{
	if (a->finished)
		return 0;
	for (size_t i = 0; i < a->thr.n; i++) {
		struct sp_trace_thr *t = a->thr.v[i];

		if (t->fx.open && t->fx.is_wait)
			a->c.open_at_end++;
		if (t->kl.open)
			a->c.open_at_end++;
		sp_trace_flush_episode(a, t);
	}
	for (size_t i = 0; i < a->res.n; i++) {
		struct sp_trace_res *r = a->res.v[i];

		sort(r->blockers.v, r->blockers.n, sizeof(*r->blockers.v), cmp_blocker);
		sort(r->locks.v, r->locks.n, sizeof(*r->locks.v), cmp_lock);
		for (size_t k = 0; k < r->blockers.n; k++)
			sort(r->blockers.v[k].preemptors, r->blockers.v[k].nr_preemptors,
			      sizeof(struct sp_trace_preemptor), cmp_pre);
		r->pub.nr_blockers = (uint32_t)r->blockers.n;
		r->pub.blockers = r->blockers.v;
		r->pub.nr_locks = (uint32_t)r->locks.n;
		r->pub.locks = r->locks.v;
	}
	/* thread_id -> result index stays in t->result; reorder a copy */
	sort(a->res.v, a->res.n, sizeof(*a->res.v), cmp_res);
	for (size_t i = 0; i < a->res.n; i++)
		a->thr.v[a->res.v[i]->pub.thread_id]->result = (int32_t)i;
	a->finished = true;
	return 0;
}

size_t sp_trace_nr_results(const struct sp_trace_analysis *a)
{
	return a->finished ? a->res.n : 0;
}

const struct sp_trace_result *sp_trace_result_get(const struct sp_trace_analysis *a, size_t i)
{
	return a->finished && i < a->res.n ? &a->res.v[i]->pub : NULL;
}

size_t sp_trace_nr_threads(const struct sp_trace_analysis *a)
{
	return a->thr.n;
}

const struct sp_trace_thread *sp_trace_thread_get(const struct sp_trace_analysis *a, uint32_t id)
{
	return id < a->thr.n ? &a->thr.v[id]->pub : NULL;
}

size_t sp_trace_nr_episodes(const struct sp_trace_analysis *a)
{
	return a->eps.n;
}

const struct sp_trace_episode *sp_trace_episode_get(const struct sp_trace_analysis *a, size_t i)
{
	return i < a->eps.n ? &a->eps.v[i] : NULL;
}

void sp_trace_analysis_counts(const struct sp_trace_analysis *a, struct sp_trace_counts *out)
{
	*out = a->c;
}
