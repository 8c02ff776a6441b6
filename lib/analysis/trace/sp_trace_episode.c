// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A wait of a selected thread ends: its stretches, one holder each, into
 * segments; segments of one acquisition into an episode; episodes into
 * the thread's result.
 */
#include <stdlib.h>
#include <string.h>

#include <superpass/trace.h>

#include "sp_trace_analysis.h"

static struct sp_trace_res *result_of(struct sp_trace_analysis *a, struct sp_trace_thr *t)
{
	struct sp_trace_res *r;

	if (t->result >= 0)
		return a->res.v[t->result];
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->pub.thread_id = t->id;
	sp_hist_init(&r->pub.hist);
	if (SP_TRACE_VEC_PUSH(a->res, r)) {
		free(r);
		return NULL;
	}
	t->result = (int32_t)(a->res.n - 1);
	return r;
}

static struct sp_trace_blocker *blocker_of(struct sp_trace_res *r, uint32_t id)
{
	struct sp_trace_blocker z = { .thread_id = id };

	for (size_t i = 0; i < r->blockers.n; i++)
		if (r->blockers.v[i].thread_id == id)
			return &r->blockers.v[i];
	if (SP_TRACE_VEC_PUSH(r->blockers, z))
		return NULL;
	return &r->blockers.v[r->blockers.n - 1];
}

void sp_trace_flush_episode(struct sp_trace_analysis *a, struct sp_trace_thr *t)
{
	struct sp_trace_episode ep;
	uint64_t dur;
	struct sp_trace_res *r;
	size_t i;

	if (!t->ep_open)
		return;
	t->ep_open = false;
	ep = t->ep;
	dur = ep.end_ns - ep.start_ns;
	if (dur < a->o.min_ns || !t->segs.n) {
		t->segs.n = 0;
		return;
	}
	r = result_of(a, t);
	if (!r) {
		t->segs.n = 0;
		return;
	}
	ep.nr_segments = (uint32_t)t->segs.n;
	ep.segments = malloc(t->segs.n * sizeof(*ep.segments));
	if (!ep.segments) {
		t->segs.n = 0;
		return;
	}
	memcpy(ep.segments, t->segs.v, t->segs.n * sizeof(*ep.segments));
	t->segs.n = 0;
	r->pub.blockings++;
	r->pub.blocking_ns += dur;
	sp_hist_record(&r->pub.hist, dur);
	for (i = 0; i < r->locks.n; i++)
		if (r->locks.v[i].lock == ep.lock && r->locks.v[i].kind == ep.kind)
			break;
	if (i == r->locks.n) {
		struct sp_trace_lock_stat z = { .lock = ep.lock, .kind = ep.kind };

		if (SP_TRACE_VEC_PUSH(r->locks, z))
			i = SIZE_MAX;
	}
	if (i != SIZE_MAX) {
		r->locks.v[i].episodes++;
		r->locks.v[i].total_ns += dur;
		if (dur > r->locks.v[i].max_ns)
			r->locks.v[i].max_ns = dur;
	}
	/* per blocker: an episode counts once per blocker */
	for (uint32_t s = 0; s < ep.nr_segments; s++) {
		const struct sp_trace_segment *sg = &ep.segments[s];
		struct sp_trace_blocker *b;
		bool first = true;

		if (sg->blocker_id == SP_TRACE_NO_ID)
			continue;
		for (uint32_t k = 0; k < s; k++)
			first &= ep.segments[k].blocker_id != sg->blocker_id;
		b = blocker_of(r, sg->blocker_id);
		if (!b)
			continue;
		b->episodes += first;
	}
	if (SP_TRACE_VEC_PUSH(a->eps, ep))
		free(ep.segments);
}

/* One stretch [s, e) of a wait of @t, with @who (SP_TRACE_NO_ID: none) holding the lock. */
static void add_segment(struct sp_trace_analysis *a, struct sp_trace_thr *t, struct sp_trace_res *r,
			uint64_t s, uint64_t e, uint32_t who)
{
	struct sp_trace_segment sg;

	memset(&sg, 0, sizeof(sg));
	sg.start_ns = s;
	sg.end_ns = e;
	sg.blocker_id = who;
	sg.blocker_tid = who == SP_TRACE_NO_ID ? 0 : a->thr.v[who]->pub.tid;
	if (who != SP_TRACE_NO_ID) {
		struct sp_trace_blocker *b = blocker_of(r, who);
		struct sp_trace_split sp;

		sp_trace_blame_split(a, a->thr.v[who], s, e, &sp, b);
		sg.split = sp;
		if (b) {
			b->blocking_ns += e - s;
			for (int k = 0; k < SP_TST_NR; k++)
				b->split.ns[k] += sp.ns[k];
		}
		r->pub.attributed_ns += e - s;
		r->pub.runnable_ns += sp.ns[SP_TST_RUNNABLE];
		sg.chain_len = sp_trace_blame_chain(a, t->id, who, s, e, &sg, a->o.max_chain);
	}
	if (SP_TRACE_VEC_PUSH(t->segs, sg))
		t->ep.lost = true; /* out of memory: the episode lacks a segment */
}

void sp_trace_end_wait(struct sp_trace_analysis *a, struct sp_trace_thr *t,
		       struct sp_trace_open_wait *w, uint64_t ts, bool timed_out)
{
	struct sp_trace_res *r;

	w->open = false;
	if (!w->is_wait)
		return;
	a->c.waits++;
	if (w->waker == SP_TRACE_NO_ID && !timed_out)
		a->c.no_blocker++;
	if (w->irq_wake && w->waker == SP_TRACE_NO_ID)
		a->c.irq_wakers++;
	sp_trace_add_wait_rec(a, t, w->start, ts, timed_out ? SP_TRACE_NO_ID : w->waker);
	if (w->nested || !sp_trace_thr_is_critical(a, t))
		return;
	if (timed_out) {
		a->c.timeouts++;
		sp_trace_flush_episode(a, t);
		return;
	}
	r = result_of(a, t);
	if (!r)
		return;
	/* Another wait on the same word is the same acquisition when the
	 * thread ran no more than merge_ns since the last one: the retry of
	 * a lock that was taken again before it got there. Time it spent
	 * runnable in between (woken, waiting for a CPU) does not part them. */
	if (t->ep_open) {
		struct sp_trace_split gap;

		sp_trace_blame_split(a, t, t->ep.end_ns, w->start, &gap, NULL);
		if (t->ep.lock != w->lock || t->ep.kind != w->kind ||
		    gap.ns[SP_TST_RUNNING] + gap.ns[SP_TST_SLEEPING] > a->o.merge_ns)
			sp_trace_flush_episode(a, t);
	}
	if (!t->ep_open) {
		memset(&t->ep, 0, sizeof(t->ep));
		t->ep_open = true;
		t->ep.waiter_id = t->id;
		t->ep.kind = w->kind;
		t->ep.lock = w->lock;
		t->ep.start_ns = w->start;
	}
	t->ep.end_ns = ts;
	t->ep.lost |= w->lost;
	/* The wait in stretches with one holder each: up to each release of
	 * the word, the thread that released it; after the last, the waker.
	 * Neighbouring stretches of one holder are one. */
	{
		uint64_t from = w->start;
		uint32_t who = w->nr_rels ? w->rels[0].id : w->waker;

		for (uint32_t k = 1; k <= w->nr_rels; k++) {
			uint32_t next = k < w->nr_rels ? w->rels[k].id : w->waker;
			uint64_t at = w->rels[k - 1].ts;

			if (next == who)
				continue;
			add_segment(a, t, r, from, at > from ? at : from, who);
			from = at > from ? at : from;
			who = next;
		}
		add_segment(a, t, r, from, ts > from ? ts : from, who);
	}
}
