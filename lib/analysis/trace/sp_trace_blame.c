// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Blame over a stretch of a wait: the holder's time in each state, who
 * ran on the CPUs while it was runnable, and the chain of waits behind it.
 */
#include <string.h>

#include <superpass/trace.h>

#include "sp_trace_analysis.h"

/* First index whose ts > @t0, minus one (the entry in force at t0). */
#define SP_TRACE_FIND_AT(vec, t0, out)                                          \
	do {                                                                    \
		size_t lo_ = 0, hi_ = (vec).n;                                  \
		while (lo_ < hi_) {                                             \
			size_t mid_ = (lo_ + hi_) / 2;                          \
			if ((vec).v[mid_].ts <= (t0))                           \
				lo_ = mid_ + 1;                                 \
			else                                                    \
				hi_ = mid_;                                     \
		}                                                               \
		(out) = lo_; /* entries [0, out) are at or before t0 */         \
	} while (0)

static void add_preemptor(struct sp_trace_blocker *b, uint32_t id, uint64_t ns)
{
	uint32_t i;

	for (i = 0; i < b->nr_preemptors; i++)
		if (b->preemptors[i].thread_id == id)
			break;
	if (i == b->nr_preemptors) {
		if (i == SP_TRACE_MAX_PREEMPTORS) {
			/* replace the smallest if this one is larger */
			uint32_t m = 0;

			for (uint32_t j = 1; j < i; j++)
				if (b->preemptors[j].ns < b->preemptors[m].ns)
					m = j;
			if (b->preemptors[m].ns >= ns)
				return;
			b->preemptors[m] = (struct sp_trace_preemptor){ id, 0 };
			i = m;
		} else {
			b->preemptors[b->nr_preemptors++] = (struct sp_trace_preemptor){ id, 0 };
		}
	}
	b->preemptors[i].ns += ns;
}

/* Who ran on every CPU during [s, e), other than @self. */
static void preemptors(struct sp_trace_analysis *a, struct sp_trace_blocker *b, uint32_t self,
		       uint64_t s, uint64_t e)
{
	for (size_t c = 0; c < a->cpus.n; c++) {
		const struct sp_trace_cpu_ent *v = a->cpus.v[c].v;
		size_t n = a->cpus.v[c].n, i;

		SP_TRACE_FIND_AT(a->cpus.v[c], s, i);
		if (i)
			i--;
		for (; i < n && v[i].ts < e; i++) {
			uint64_t from = v[i].ts > s ? v[i].ts : s;
			uint64_t to = i + 1 < n && v[i + 1].ts < e ? v[i + 1].ts : e;

			if (v[i].ts > e || to <= from || v[i].id >= SP_TRACE_UNKNOWN_ID || v[i].id == self)
				continue;
			if (i + 1 == n && a->now < to)
				to = a->now > from ? a->now : from;
			add_preemptor(b, v[i].id, to - from);
		}
	}
}

/* @t's time in each state over [s, e); calls back for runnable stretches. */
void sp_trace_blame_split(struct sp_trace_analysis *a, struct sp_trace_thr *t, uint64_t s,
			  uint64_t e, struct sp_trace_split *out, struct sp_trace_blocker *b)
{
	size_t i, n = t->hist.n;
	uint64_t at = s;
	uint32_t st;

	memset(out, 0, sizeof(*out));
	if (e <= s)
		return;
	SP_TRACE_FIND_AT(t->hist, s, i);
	st = i ? t->hist.v[i - 1].state : SP_TST_UNKNOWN;
	for (; i < n && t->hist.v[i].ts < e; i++) {
		uint64_t to = t->hist.v[i].ts;

		if (to > at) {
			out->ns[st] += to - at;
			if (b && st == SP_TST_RUNNABLE)
				preemptors(a, b, t->id, at, to);
			at = to;
		}
		st = t->hist.v[i].state;
	}
	if (e > at) {
		out->ns[st] += e - at;
		if (b && st == SP_TST_RUNNABLE)
			preemptors(a, b, t->id, at, e);
	}
}


/* The chain behind @b over [s, e): the waker of its longest overlapping
 * wait, recursively; each member's split over the stretch the one before
 * it waited on it. */
uint32_t sp_trace_blame_chain(struct sp_trace_analysis *a, uint32_t waiter, uint32_t b,
			      uint64_t s, uint64_t e, struct sp_trace_segment *sg, uint32_t max)
{
	int32_t *out = sg->chain;
	uint32_t n = 0, seen[17];

	seen[0] = waiter;
	seen[1] = b;
	while (n < max && n < 15) {
		struct sp_trace_thr *t = a->thr.v[b];
		uint64_t best = 0, bs = 0, be = 0;
		uint32_t next = SP_TRACE_NO_ID;
		bool dup = false;

		for (size_t i = t->waits.n; i-- > 0;) {
			const struct sp_trace_wait_rec *w = &t->waits.v[i];
			uint64_t from = w->start > s ? w->start : s, to = w->end < e ? w->end : e;

			if (w->end <= s)
				break;
			if (to > from && w->waker != SP_TRACE_NO_ID && to - from > best) {
				best = to - from;
				next = w->waker;
				bs = from;
				be = to;
			}
		}
		if (next == SP_TRACE_NO_ID)
			break;
		for (uint32_t k = 0; k < n + 2; k++)
			dup |= seen[k] == next;
		if (dup)
			break;
		sp_trace_blame_split(a, a->thr.v[next], bs, be, &sg->chain_split[n], NULL);
		sg->chain_start_ns[n] = bs;
		sg->chain_end_ns[n] = be;
		out[n++] = a->thr.v[next]->pub.tid;
		seen[n + 1] = next;
		b = next;
		s = bs;
		e = be;
	}
	return n;
}
