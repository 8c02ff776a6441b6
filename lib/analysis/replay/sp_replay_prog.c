// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Each replayed thread's program: its CPU time, sleeps or frames, the
 * critical sections placed for it, the uncontended requests of a frame
 * loop; and whether it is critical, starved (looped) or a loop of its own.
 */
#include <fnmatch.h>
#include <stdlib.h>

#include "sp_vec.h"
#include "sp_replay_internal.h"

static void op_add(struct sp_rp_prog *p, uint8_t type, int32_t lock, uint8_t hold, uint64_t ns)
{
	if (type == OP_RUN && p->n && p->op[p->n - 1].type == OP_RUN) {
		p->op[p->n - 1].ns += ns;
		return;
	}
	if (p->n == p->cap && sp_grow((void **)&p->op, &p->cap, sizeof(*p->op), p->cap + 1, 64)) {
		p->nomem = 1;
		return;
	}
	p->op[p->n++] = (struct sp_rp_op){ .type = type, .lock = lock, .hold = hold, .ns = ns };
}

#define MAXHELD 14 /* tokens a thread holds at once (the simulator allows 16 locks) */

/* Whether the program so far holds @lock. */
static bool holding(const struct sp_rp_prog *p, int32_t lock)
{
	int depth = 0;

	for (size_t i = p->n; i > 0; i--) {
		const struct sp_rp_op *o = &p->op[i - 1];

		if (o->lock != lock)
			continue;
		if (o->type == OP_UNLOCK)
			depth--;
		else if (o->type == OP_LOCK && ++depth > 0)
			return true;
		if (o->type == OP_LOCK && depth == 0)
			return false;
	}
	return false;
}

/* Places lock/unlock @k of @ins in the program (a lock over the
 * simulator's limit is dropped with its unlock, and counted). */
static void put_ins(struct sp_replay *r, struct sp_rp_prog *p, struct sp_rp_ins *ins, size_t nins,
		    size_t k, size_t *nheld)
{
	if (ins[k].type == OP_LOCK) {
		if (*nheld >= MAXHELD) {
			r->c.dropped++;
			for (size_t m = k + 1; m < nins; m++)
				if (ins[m].type == OP_UNLOCK && ins[m].lock == ins[k].lock) {
					ins[m].type = 0xff;
					break;
				}
			return;
		}
		(*nheld)++;
		r->lk[ins[k].lock].used = true;
		op_add(p, OP_LOCK, ins[k].lock, ins[k].hold, 0);
	} else if (ins[k].type == OP_UNLOCK) {
		(*nheld)--;
		op_add(p, OP_UNLOCK, ins[k].lock, ins[k].hold, 0);
	}
}

/* @t's program: its CPU time, sleeps (or frames) and its critical sections
 * of the real locks (sp_rp_place_holds). A waiter's wait ends when the thread
 * holding the lock in the replay lets it go: when that thread, replayed,
 * reaches the point where it woke the waiter in the trace. */
void sp_rp_build_prog(struct sp_replay *r, struct sp_rp_th *t, struct sp_rp_prog *p,
		      uint64_t *delay, uint64_t period, size_t grid, bool keep)
{
	struct sp_rp_ins *ins = NULL;
	int8_t *wop;
	ssize_t nins;
	size_t k = 0, nheld = 0, npts = 0;
	uint64_t first_sleep_end = 0, last_sleep_end = 0, sleeps = 0, foff = 0;
	struct sp_rp_point *pts = NULL;
	uint64_t *pfoff = NULL; /* a frame loop's items' CPU offsets in their frames */
	uint64_t *ftot = NULL, fcpu = 0; /* their frames' CPU, the median frame's */
	bool locks = false;

	wop = calloc(t->n + 1, 1);
	if (!wop) {
		p->nomem = 1;
		return;
	}
	for (size_t i = 0; i < t->n; i++) {
		if (t->it[i].type == IT_WAIT)
			wop[i] = (int8_t)sp_rp_wait_op(r, t, i);
		locks |= t->it[i].type == IT_WAIT || t->it[i].type == IT_WAKE;
	}
	/* A thread that never waited nor woke a waiter, was asleep for less
	 * than 1 % of its life and ran for at least 10 % of it (a CPU hog)
	 * wanted the CPU all along: what it got is not its demand. From its
	 * last sleep on it is busy until it ended (rt-app runtime), whatever
	 * share the replayed scheduler gives it. */
	{
		uint64_t off = 0, life = (t->exited ? t->last_ts : r->last) - t->first_ts;
		size_t last_sleep = 0;
		bool hog = !locks && life > 10 * 1000000ull;

		for (size_t i = 0; hog && i < t->n; i++) {
			if (t->it[i].type == IT_SLEEP) {
				off += t->it[i].ns;
				last_sleep = i + 1;
			}
		}
		/* ... and was seen running (a filtered trace may just have lost
		 * sight of a thread). */
		if (hog && off * 100 < life && t->cpu_total * 10 >= life) {
			uint64_t from = last_sleep ? t->it[last_sleep - 1].end : t->first_ts;
			uint64_t end = t->exited ? t->last_ts : r->last;

			for (size_t i = 0; i < last_sleep; i++) {
				if (t->it[i].type == IT_CPU)
					op_add(p, OP_RUN, -1, 0, t->it[i].ns);
				else if (t->it[i].type == IT_SLEEP)
					op_add(p, OP_SLEEP, -1, 0, t->it[i].ns);
			}
			if (end > from)
				op_add(p, OP_RUNTIME, -1, 0, end - from);
			r->c.hogs++;
			free(wop);
			*delay = t->first_ts > r->first ? t->first_ts - r->first : 0;
			return;
		}
	}
	nins = sp_rp_place_holds(r, t, wop, &ins);
	if (nins < 0) {
		free(wop);
		p->nomem = 1;
		return;
	}
	if (period) {
		pfoff = calloc(t->n + 1, sizeof(*pfoff));
		ftot = calloc(t->n + 1, sizeof(*ftot));
		if (!pfoff || !ftot) {
			free(ins);
			free(wop);
			free(pfoff);
			free(ftot);
			p->nomem = 1;
			return;
		}
		sp_rp_frame_totals(t, grid, ftot);
		fcpu = sp_rp_frame_median(t, grid, ftot);
		npts = sp_rp_frame_points(t, grid, ftot, fcpu, &pts);
		for (size_t i = grid; i < t->n; i++) {
			pfoff[i] = sp_rp_frame_norm(foff, ftot[i], fcpu);
			foff = t->it[i].type == IT_SLEEP ? 0
				: foff + (t->it[i].type == IT_CPU ? t->it[i].ns : 0);
		}
		foff = 0;
	}
	for (size_t i = 0; i <= t->n; i++) {
		const struct sp_rp_item *it = i < t->n ? &t->it[i] : NULL;

		for (; k < (size_t)nins && ins[k].at == i && !ins[k].off; k++)
			put_ins(r, p, ins, (size_t)nins, k, &nheld);
		if (!it)
			break;
		switch (it->type) {
		case IT_CPU: {
			uint64_t done = 0;
			size_t m = 0;

			/* Split at the placements inside this stretch of CPU and at
			 * the frame's points where it left no wait of its own
			 * (asked, found the lock free), in order. */
			for (;;) {
				uint64_t a = UINT64_MAX, b = UINT64_MAX;

				if (k < (size_t)nins && ins[k].at == i)
					b = ins[k].off;
				for (; period && i >= grid && m < npts; m++) {
					uint64_t lo = sp_rp_frame_norm(foff, ftot[i], fcpu);
					uint64_t hi = sp_rp_frame_norm(foff + it->ns, ftot[i], fcpu);
					uint64_t at;

					if (pts[m].off <= lo || pts[m].off > hi)
						continue;
					at = sp_rp_frame_denorm(pts[m].off, ftot[i], fcpu);
					at = at > foff ? at - foff : 0;
					at = at < it->ns ? at : it->ns;
					/* A placement before the point goes first: whether
					 * the lock is held at the point is known after it
					 * (an unlock just before it frees the lock, and the
					 * point is not dropped as held). */
					if (at >= b || (!sp_rp_seen_pt(t, pfoff, i, &pts[m]) &&
							 !holding(p, pts[m].lock))) {
						a = at;
						break;
					}
				}
				if (a == UINT64_MAX && b == UINT64_MAX)
					break;
				if (b <= a) {
					if (b > done)
						op_add(p, OP_RUN, -1, 0, b - done);
					done = b > done ? b : done;
					put_ins(r, p, ins, (size_t)nins, k++, &nheld);
					continue;
				}
				if (a > done)
					op_add(p, OP_RUN, -1, 0, a - done);
				done = a > done ? a : done;
				r->lk[pts[m].lock].used = true;
				op_add(p, OP_LOCK, pts[m].lock, SP_SIM_EXCL, 0);
				op_add(p, OP_UNLOCK, pts[m].lock, SP_SIM_EXCL, 0);
				r->c.inferred++;
				m++;
			}
			if (it->ns > done)
				op_add(p, OP_RUN, -1, 0, it->ns - done);
			if (it->preempt && !(p->n && p->op[p->n - 1].type == OP_PREEMPT))
				op_add(p, OP_PREEMPT, -1, 0, 0);
			foff += it->ns;
			break;
		}
		case IT_WAIT:
			if (wop[i] == WAIT_LOCK) {
				if (nheld >= MAXHELD) {
					r->c.dropped++;
					for (size_t m = k; m < (size_t)nins; m++)
						if (ins[m].type == OP_UNLOCK && ins[m].lock == it->lock) {
							ins[m].type = 0xff;
							break;
						}
					break;
				}
				nheld++;
				r->lk[it->lock].used = true;
				op_add(p, OP_LOCK, it->lock, it->hold, 0);
			} else if (wop[i] == WAIT_SLEEP) {
				op_add(p, OP_SLEEP, -1, 0, it->ns);
				r->c.sleeps++;
			}
			break;
		case IT_WAKE:
			break;
		case IT_SLEEP:
			if (period && i < grid) { /* start-up, before the frames */
				if (keep) {
					op_add(p, OP_SLEEP, -1, 0, it->ns);
					r->c.sleeps++;
				}
				break;
			}
			if (period) {
				/* As the simulator counts them: the
				 * periods the work spanned are janky, the periods to
				 * the sleep's end are frames (with the start-up kept,
				 * from the thread's start, as the simulated timer). */
				if (sleeps || keep) {
					uint64_t from = sleeps ? last_sleep_end : t->first_ts;
					uint64_t work = it->end - it->ns - from;

					r->janky += work / period;
					r->frames += (it->end - from + period / 2) / period;
				}
				if (!sleeps)
					first_sleep_end = it->end;
				last_sleep_end = it->end;
				op_add(p, OP_TIMER, -1, 0, period);
				r->c.timers++;
				foff = 0;
			} else {
				op_add(p, OP_SLEEP, -1, 0, it->ns);
				r->c.sleeps++;
			}
			sleeps++;
			break;
		}
	}
	free(ins);
	free(wop);
	free(pts);
	free(pfoff);
	free(ftot);
	*delay = t->first_ts > r->first ? t->first_ts - r->first : 0;
	if (period && sleeps) {
		/* The schedule starts a period before the first deadline (see
		 * sp_rp_period_of). */
		uint64_t origin = first_sleep_end - period;

		if (origin > t->first_ts && !keep)
			*delay = origin - r->first;
		if (!keep)
			r->frames++; /* the first */
	}
}

/* A critical thread that is not a frame loop but a loop all the same:
 * it slept between its lock waits (an operation, a relative sleep, the
 * next, on no grid) until the trace's end or its exit. Its program is the
 * operations the trace saw it do; it loops on to the end of the replay as
 * a frame loop does, since a policy that makes its waits shorter would see
 * it do more of them in that time, not stop once the traced ones are done
 * (replayed once, they could end before the holders reach their first
 * section). */
bool sp_rp_sleep_loop(const struct sp_rp_th *t)
{
	unsigned sleeps = 0, waits = 0;

	if (!t->critical || t->last_ts - t->first_ts < 100 * 1000000ull)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		sleeps += t->it[i].type == IT_SLEEP;
		waits += t->it[i].type == IT_WAIT;
	}
	return sleeps >= 2 && waits >= 1;
}

/*
 * A thread that takes locks and waited for a CPU (its life less its CPU
 * time, its sleeps and its lock waits: runnable, not running) more than
 * ten times as long as it ran, and for a tenth of its life at least, was
 * starved: its work was bounded by the CPU it got, not by what it had to
 * do (a nice-19 background holder behind CPU hogs, behind its schedule).
 * The trace shows only the work it got through; a policy that gives it
 * more CPU would see it go on working, not stop early. Its program loops
 * until the replay ends: the work it would have done next is taken to be
 * more of what it did. A thread that got the CPU it asked for (a fixed
 * amount of work, then its exit) keeps one pass.
 */
bool sp_rp_starved(const struct sp_replay *r, const struct sp_rp_th *t)
{
	uint64_t life = (t->exited ? t->last_ts : r->last) - t->first_ts, off = t->cpu_total;
	uint64_t runnable;
	bool locks = false;

	if (t->critical || life < 10 * 1000000ull)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		if (t->it[i].type == IT_SLEEP || t->it[i].type == IT_WAIT)
			off += t->it[i].ns;
		locks |= t->it[i].type == IT_WAIT || t->it[i].type == IT_WAKE;
	}
	runnable = life > off ? life - off : 0;
	return locks && runnable > 10 * t->cpu_total && runnable * 10 > life;
}

bool sp_rp_is_critical(const struct sp_replay *r, const struct sp_rp_th *t)
{
	bool sel = r->o.critical_comms || r->o.nr_critical_tids;

	if (!sel) {
		for (size_t i = 0; i < t->n; i++)
			if (t->it[i].type == IT_WAIT)
				return true;
		return false;
	}
	for (size_t i = 0; i < r->o.nr_critical_tids; i++)
		if (r->o.critical_tids[i] == t->tid)
			return true;
	for (size_t i = 0; r->o.critical_comms && r->o.critical_comms[i]; i++)
		if (!fnmatch(r->o.critical_comms[i], t->comm, 0))
			return true;
	return false;
}
