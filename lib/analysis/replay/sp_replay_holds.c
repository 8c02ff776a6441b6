// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Where each thread's critical sections lie. A trace shows a lock only
 * where it was contended; the sections it does not show (uncontended
 * acquisitions, a holder's sections back to back, the readers a writer
 * waited for) are placed from the ones it shows whole (sp_rp_place_holds).
 */
#include <stdlib.h>

#include "sp_replay_internal.h"
#include "sp_vec.h"

static int cmp_ins(const void *a, const void *b)
{
	const struct sp_rp_ins *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The CPU time @t ran from after item @from to before item @to. */
static uint64_t cpu_between(const struct sp_rp_th *t, size_t from, size_t to)
{
	uint64_t ns = 0;

	for (size_t j = from + 1; j < to; j++)
		if (t->it[j].type == IT_CPU)
			ns += t->it[j].ns;
	return ns;
}

/* A glibc reader's sections, which a trace shows whole only when the
 * reader waited for the lock and then was the last one out with a writer
 * waiting: seldom. Each burst of CPU between two sleeps that shows one
 * side of a read section (a wait for the read side that got it, or a wake
 * of the writer: the release) bounds that section: from the wait, or the
 * burst's start, to the wake, or the burst's end. Their lower quartile if
 * at least 3; *whole when most of them span their burst (less than 10 %
 * of its CPU before the wait and after the wake), as a reader that takes
 * the lock once each time it wakes and lets it go before it sleeps. */
static uint64_t read_len(const struct sp_rp_th *t, const int8_t *wop, int32_t lock, bool *whole)
{
	uint64_t *v = calloc(t->n + 1, sizeof(*v)), med = 0;
	size_t n = 0, nwhole = 0;

	*whole = false;
	if (!v)
		return 0;
	for (size_t i = 0, j; i < t->n; i = j + 1) {
		uint64_t cpu = 0, before = 0, upto = 0;
		bool acq = false, rel = false, other = false;

		for (j = i; j < t->n && t->it[j].type != IT_SLEEP; j++) {
			const struct sp_rp_item *x = &t->it[j];

			if (x->type == IT_CPU) {
				cpu += x->ns;
			} else if (x->type == IT_WAIT && x->lock == lock && wop[j] == WAIT_LOCK && !acq &&
				   !rel) {
				acq = true;
				before = cpu;
			} else if (x->type == IT_WAKE && x->lock == lock && x->hold == SP_SIM_SHARED) {
				rel = true;
				upto = cpu;
			} else if (x->type == IT_WAIT || x->type == IT_WAKE) {
				other |= x->lock != lock || x->type == IT_WAKE;
			}
		}
		if (other || (!acq && !rel))
			continue;
		if (!rel)
			upto = cpu;
		if (upto <= before)
			continue;
		v[n++] = upto - before;
		nwhole += before * 10 <= upto - before && (cpu - upto) * 10 <= upto - before;
	}
	if (n >= 3) {
		qsort(v, n, sizeof(*v), sp_rp_cmp_u64);
		med = v[n / 4];
		*whole = nwhole * 2 >= n;
	}
	free(v);
	return med;
}

/* The length (CPU time) of @t's critical sections of @lock the trace
 * shows whole: acquired by a wait, released with a wake before the next
 * boundary. Their median, 0 if fewer than 3; *whole: whether they span
 * their burst of CPU (from the wait to a sleep right after the release),
 * as a thread that does nothing else between its sleeps. */
static uint64_t cs_len(const struct sp_replay *r, const struct sp_rp_th *t, const int8_t *wop,
		       int32_t lock, bool *whole)
{
	uint64_t *v = NULL, med = 0;
	size_t n = 0, nwhole = 0;

	*whole = false;
	for (size_t i = 0; i < t->n; i++) {
		if (t->it[i].type != IT_WAIT || t->it[i].lock != lock || wop[i] != WAIT_LOCK)
			continue;
		for (size_t j = i + 1; j < t->n; j++) {
			const struct sp_rp_item *x = &t->it[j];

			if (sp_rp_cs_end(r, t, wop, j, lock))
				break;
			if (x->type == IT_WAKE && x->lock == lock) {
				size_t e = sp_rp_release_end(t, j, lock), k;
				uint64_t after = 0;

				if (!v && !(v = calloc(t->n, sizeof(*v))))
					return 0;
				v[n++] = cpu_between(t, i, j);
				for (k = e + 1; k < t->n && t->it[k].type == IT_CPU; k++)
					after += t->it[k].ns;
				nwhole += (k == t->n || t->it[k].type == IT_SLEEP) &&
					  after * 10 <= v[n - 1];
				break;
			}
		}
	}
	if (n < 3 && r->lk[lock].kind == SP_SIM_URWLOCK_W &&
	    sp_rp_side_of(r, t, lock) == SP_SIM_SHARED) {
		free(v);
		return read_len(t, wop, lock, whole);
	}
	if (n >= 3) {
		qsort(v, n, sizeof(*v), sp_rp_cmp_u64);
		med = v[n / 4];
		*whole = nwhole * 2 >= n;
		if (r->lk[lock].kind == SP_SIM_KMUTEX || r->lk[lock].kind == SP_SIM_RWSEM) {
			uint64_t sum = 0, acc = 0;

			for (size_t q = 0; q < n; q++)
				sum += v[q];
			for (size_t q = 0; q < n; q++) {
				acc += v[q];
				if (2 * acc >= sum) {
					med = v[q];
					break;
				}
			}
		}
	}
	free(v);
	return med;
}

/* The position @ns of CPU time before item @to (not before item @from):
 * *at, *off. */
static void back_cpu(const struct sp_rp_th *t, size_t from, size_t to, uint64_t ns, size_t *at,
		     uint64_t *off)
{
	for (size_t j = to; j > from + 1; j--) {
		const struct sp_rp_item *x = &t->it[j - 1];

		if (x->type != IT_CPU)
			continue;
		if (x->ns >= ns) {
			*at = j - 1;
			*off = x->ns - ns;
			return;
		}
		ns -= x->ns;
	}
	*at = from + 1;
	*off = 0;
}

/* The position @ns of CPU time after item @from (not past item @to). */
static void fwd_cpu(const struct sp_rp_th *t, size_t from, size_t to, uint64_t ns, size_t *at,
		    uint64_t *off)
{
	for (size_t j = from + 1; j < to; j++) {
		const struct sp_rp_item *x = &t->it[j];

		if (x->type != IT_CPU)
			continue;
		if (x->ns > ns) {
			*at = j;
			*off = ns;
			return;
		}
		ns -= x->ns;
	}
	*at = to;
	*off = 0;
}

struct sp_rp_locklen {
	int32_t lock;
	uint64_t len;
	bool whole;
};

static uint64_t len_of(const struct sp_rp_locklen *ll, size_t n, int32_t lock)
{
	for (size_t k = 0; k < n; k++)
		if (ll[k].lock == lock)
			return ll[k].len;
	return 0;
}

static bool ins_before(const struct sp_rp_ins *x, size_t at, uint64_t off)
{
	return x->at < at || (x->at == at && x->off < off);
}

/* Room in *@vp (*@capp placements) for @more past the first @n; -1 on no
 * memory, *@vp unchanged. */
static int ins_room(struct sp_rp_ins **vp, size_t n, size_t *capp, size_t more)
{
	return sp_grow((void **)vp, capp, sizeof(**vp), n + more, 16) ? -1 : 0;
}

/* The first of @t's items that ends after @ts (t->n if none). */
static size_t item_at(const struct sp_rp_th *t, uint64_t ts)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->it[mid].end > ts)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The readers a trace does not show. A glibc rwlock's writer that waits
 * is woken by the last reader out only; the other readers that held the
 * lock when it asked leave no event (an uncontended rdlock and its unlock
 * make no syscall). Assumed here: a known reader of the lock (one that
 * elsewhere waited for it as a reader or woke a writer) that, when the
 * writer asked, was inside a burst of CPU (it had run since its last
 * sleep or wait, and was not asleep) held the read side from the start of
 * that burst until the writer was woken, or until its burst ended if that
 * came first. @v (sorted) gets those sections where @t does not hold the
 * lock already; 0, or -1 on no memory. */
static int infer_readers(struct sp_replay *r, const struct sp_rp_th *t, const int8_t *wop,
			 struct sp_rp_ins **vp, size_t *np, size_t *capp, uint32_t *seq)
{
	/* @t's side of each lock, once (sp_rp_side_of walks all its items) */
	uint8_t *side = calloc(r->nlk + 1, 1);

	if (!side)
		return -1;
	for (size_t l = 0; l < r->nlk; l++)
		side[l] = r->lk[l].kind == SP_SIM_URWLOCK_W || r->lk[l].kind == SP_SIM_RWSEM
			  ? 1 + sp_rp_side_of(r, t, (int32_t)l) : 0;
	for (size_t x = 0; x < r->ntk; x++) {
		struct sp_rp_tok *tk = &r->tk[x];
		int32_t l = tk->lock;
		size_t i, b, e, j, at;
		bool ran = false;
		int depth = 0;

		if (!tk->used || (r->lk[l].kind != SP_SIM_URWLOCK_W && r->lk[l].kind != SP_SIM_RWSEM) ||
		    tk->hold != SP_SIM_EXCL ||
		    tk->waiter == t->idx || tk->waker == t->idx || side[l] != 1 + SP_SIM_SHARED)
			continue;
		i = item_at(t, tk->req);
		if (i >= t->n || t->it[i].type == IT_WAIT ||
		    (t->it[i].type == IT_SLEEP && t->it[i].end - t->it[i].ns <= tk->req))
			continue; /* waiting, asleep or gone when the writer asked */
		for (b = i; b > 0 && !sp_rp_cs_boundary(r, &t->it[b - 1], l); b--)
			ran |= t->it[b - 1].type == IT_CPU && t->it[b - 1].ns;
		ran |= t->it[i].type == IT_CPU && t->it[i].end - t->it[i].ns < tk->req;
		if (!ran)
			continue; /* woken, not yet run: it would have queued */
		for (e = i; e < t->n && !sp_rp_cs_boundary(r, &t->it[e], l); e++)
			;
		for (j = i; j < e && t->it[j].end <= tk->woke; j++)
			;
		at = j < e && t->it[j].type == IT_CPU && t->it[j].end - t->it[j].ns < tk->woke ? j + 1
											       : j;
		if (at <= b)
			continue;
		/* Not where @t holds the lock already (nested read holds of a
		 * writer-preferring rwlock deadlock behind a waiting writer):
		 * its acquisitions by a wait and the placed ones, against the
		 * placed releases. */
		for (size_t k = 0; k < b; k++)
			depth += t->it[k].type == IT_WAIT && t->it[k].lock == l && wop[k] == WAIT_LOCK;
		for (size_t k = 0; k < *np; k++) {
			const struct sp_rp_ins *y = &(*vp)[k];

			if (y->lock != l)
				continue;
			if (ins_before(y, b, 0))
				depth += y->type == OP_LOCK ? 1 : y->type == OP_UNLOCK ? -1 : 0;
			else if (ins_before(y, at, 1))
				depth = 1000; /* one inside */
		}
		if (depth > 0)
			continue;
		if (ins_room(vp, *np, capp, 2)) {
			free(side);
			return -1;
		}
		(*vp)[(*np)++] = (struct sp_rp_ins){ .at = b, .seq = UINT32_MAX / 2 + 1,
						     .type = OP_LOCK, .hold = SP_SIM_SHARED, .lock = l };
		(*vp)[(*np)++] = (struct sp_rp_ins){ .at = at, .seq = (*seq)++ & 0xffff,
						     .type = OP_UNLOCK, .hold = SP_SIM_SHARED, .lock = l };
		qsort(*vp, *np, sizeof(**vp), cmp_ins);
		r->c.readers++;
		if (++tk->readers > r->c.readers_max)
			r->c.readers_max = tk->readers;
	}
	free(side);
	return 0;
}

/* A mutex holder's release the trace shows (its unlock woke a waiter)
 * after CPU of its own since its last boundary (a sleep, a wait): a thread
 * behind its schedule runs its sections back to back (unlock, lock again
 * at once, uncontended, so the trace shows nothing), and the CPU before
 * the section that ends in the release, from the boundary's item @from to
 * the inferred lock at (@at, @off), is its earlier sections, of its
 * section length @len each. Replayed as CPU outside the lock, the holder
 * would hand the lock on late. Only a run of CPU with nothing else in it,
 * at least 3/4 of a section. The same for the kernel's locks (a kernel
 * mutex, either side of an rwsem), whose holders also run sections back
 * to back; not glibc rwlocks, whose readers' bursts infer_readers places.
 * The placements grow *@vp (one pair per section). Returns 0, or -1 on no
 * memory. */
static int back_to_back(struct sp_replay *r, const struct sp_rp_th *t, int32_t lock, uint8_t hold,
			uint64_t len, size_t from, size_t at, uint64_t off, struct sp_rp_ins **vp,
			size_t *np, size_t *capp, uint32_t *seq)
{
	uint8_t kind = r->lk[lock].kind;
	uint64_t cpu = off, m;

	if (t->critical || at < from ||
	    (kind != SP_SIM_UMUTEX && kind != SP_SIM_KMUTEX && kind != SP_SIM_RWSEM))
		return 0;
	for (size_t k = from; k < at; k++) {
		if (t->it[k].type != IT_CPU)
			return 0;
		cpu += t->it[k].ns;
	}
	if (t->it[at].type != IT_CPU || cpu * 4 < len * 3)
		return 0;
	m = (cpu + len / 2) / len; /* >= 1: cpu is at least 3/4 of len */
	if (ins_room(vp, *np, capp, 2 * m + 2))
		return -1;
	for (uint64_t k = 0; k < m; k++) {
		size_t a0 = from, a1 = at;
		uint64_t o0 = 0, o1 = off;

		if (k)
			fwd_cpu(t, from - 1, at + 1, cpu * k / m, &a0, &o0);
		if (k + 1 < m)
			fwd_cpu(t, from - 1, at + 1, cpu * (k + 1) / m, &a1, &o1);
		(*vp)[(*np)++] = (struct sp_rp_ins){ .at = a0, .off = o0, .seq = UINT32_MAX / 2 + 1,
					       .type = OP_LOCK, .hold = hold, .lock = lock };
		(*vp)[(*np)++] = (struct sp_rp_ins){ .at = a1, .off = o1, .seq = (*seq)++ & 0xffff,
					       .type = OP_UNLOCK, .hold = hold, .lock = lock };
		r->c.inferred++;
	}
	return 0;
}

/* The same inside a section acquired by a wait and released by a wake
 * (from item @i to item @rel): more than 1.5 sections' CPU between them
 * is sections back to back, the holder letting the lock go and taking it
 * again uncontended between them. Held as one, a fast-tracked holder
 * would run several sections before the critical waiter got the lock.
 * Only a run of CPU with nothing else in it. The extra placements grow
 * *@vp. */
static int split_held(struct sp_replay *r, const struct sp_rp_th *t, int32_t lock, uint8_t hold,
		      uint64_t len, size_t i, size_t rel, struct sp_rp_ins **vp, size_t *np,
		      size_t *capp, uint32_t *seq)
{
	uint8_t kind = r->lk[lock].kind;
	uint64_t cpu = 0, m;

	/* glibc mutexes only: a kernel lock's sections vary more, and its
	 * length is the CPU-weighted one (cs_len), which splitting would
	 * undercut */
	if (t->critical || !len || kind != SP_SIM_UMUTEX)
		return 0;
	for (size_t k = i + 1; k < rel; k++) {
		if (t->it[k].type != IT_CPU)
			return 0;
		cpu += t->it[k].ns;
	}
	if (cpu * 2 <= len * 3)
		return 0;
	m = (cpu + len / 2) / len; /* >= 2 */
	if (ins_room(vp, *np, capp, 2 * m + 2))
		return -1;
	for (uint64_t k = 1; k < m; k++) {
		size_t a;
		uint64_t o;

		/* the unlock sorts before the lock at the same point (seq) */
		fwd_cpu(t, i, rel, cpu * k / m, &a, &o);
		(*vp)[(*np)++] = (struct sp_rp_ins){ .at = a, .off = o, .seq = (*seq)++ & 0xffff,
					       .type = OP_UNLOCK, .hold = hold, .lock = lock };
		(*vp)[(*np)++] = (struct sp_rp_ins){ .at = a, .off = o, .seq = UINT32_MAX / 2 + 1,
					       .type = OP_LOCK, .hold = hold, .lock = lock };
		r->c.inferred++;
	}
	return 0;
}

/* @t's critical sections of the real locks, as lock/unlock placements. A
 * trace shows a critical section only where it was contended; its length
 * (cs_len) comes from the ones it shows whole:
 *  - acquired by a wait (the wait's first request is the lock): held up to
 *    its next visible release (a wake of that lock) if one comes before
 *    the next boundary, else for the thread's critical-section length (or
 *    to the boundary when it has none);
 *  - released with a wake but not acquired by a wait (an uncontended
 *    acquisition leaves no trace): taken that long before the release, not
 *    before @t's last boundary (its last sleep, its last wait for that lock,
 *    its previous release of it);
 *  - a thread whose whole critical sections are whole bursts of CPU
 *    between sleeps (a background thread that wakes, takes the lock, works
 *    and sleeps) is taken to hold the lock in every burst at least 3/4 that
 *    long: the ones nobody waited for left no trace.
 * Waits for other locks inside stay inside (a chain: A held while waiting
 * for B). Returns the count (in *out), or -1 on no memory. */
ssize_t sp_rp_place_holds(struct sp_replay *r, const struct sp_rp_th *t, const int8_t *wop,
			  struct sp_rp_ins **out)
{
	struct sp_rp_ins *v;
	struct sp_rp_locklen ll[16];
	size_t n = 0, nll = 0, cap = 8 * t->n + 16;
	uint32_t seq = 0;

	v = calloc(cap, sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < t->n && nll < 16; i++) {
		size_t k;

		if (t->it[i].type != IT_WAIT && t->it[i].type != IT_WAKE)
			continue;
		for (k = 0; k < nll && ll[k].lock != t->it[i].lock; k++)
			;
		if (k == nll) {
			ll[nll].lock = t->it[i].lock;
			/* A critical thread's mutex sections are let go at once
			 * (its own are short, and what it shows whole are waits);
			 * as an rwlock's writer it shows its sections whole, from
			 * its wait to its wake of the readers that queued. */
			ll[nll].len = t->critical && r->lk[t->it[i].lock].kind == SP_SIM_UMUTEX
				      ? 0 : cs_len(r, t, wop, t->it[i].lock, &ll[nll].whole);
			if (t->critical)
				ll[nll].whole = false;
			nll++;
		}
	}
	for (size_t i = 0; i < t->n && n + 2 <= cap; i++) {
		const struct sp_rp_item *it = &t->it[i];
		size_t j, e, at;
		uint64_t off, len;
		uint8_t hold;

		if (it->type == IT_WAIT && wop[i] == WAIT_LOCK) {
			/* Held up to a release before the next boundary, else for
			 * the thread's section length. */
			size_t rel = t->n, bnd = t->n;
			uint8_t kind = r->lk[it->lock].kind;

			/* A kernel lock's holder whose request waited after a run
			 * of CPU since its release (or sleep) ran sections back to
			 * back in it, as before a release it shows; replayed as
			 * CPU outside the lock, the critical thread would find the
			 * lock free where the trace has it wait. The sections the
			 * trace shows whole are its length. */
			if ((kind == SP_SIM_KMUTEX || kind == SP_SIM_RWSEM) && i &&
			    t->it[i - 1].type == IT_CPU && (len = len_of(ll, nll, it->lock))) {
				for (j = i; j > 0; j--) {
					const struct sp_rp_item *b = &t->it[j - 1];

					if (sp_rp_cs_boundary(r, b, it->lock) ||
					    (b->type == IT_WAKE && b->lock == it->lock))
						break;
				}
				if ((!j || t->it[j - 1].type == IT_SLEEP || t->it[j - 1].type == IT_WAKE) &&
				    back_to_back(r, t, it->lock, it->hold, len, j, i - 1,
						 t->it[i - 1].ns, &v, &n, &cap, &seq)) {
					free(v);
					return -1;
				}
			}

			for (j = i + 1; j < t->n; j++) {
				const struct sp_rp_item *x = &t->it[j];

				if (sp_rp_cs_end(r, t, wop, j, it->lock)) {
					bnd = j;
					break;
				}
				if (x->type == IT_WAKE && x->lock == it->lock) {
					rel = sp_rp_release_end(t, j, it->lock);
					break;
				}
			}
			if (rel < t->n) {
				at = rel + 1;
				off = 0;
				if (split_held(r, t, it->lock, it->hold, len_of(ll, nll, it->lock), i,
					       rel, &v, &n, &cap, &seq)) {
					free(v);
					return -1;
				}
			} else if ((len = len_of(ll, nll, it->lock)) || !t->critical) {
				fwd_cpu(t, i, bnd, len ? len : UINT64_MAX, &at, &off);
			} else { /* a critical thread's unknown section: let go at once */
				at = i + 1;
				off = 0;
			}
			v[n++] = (struct sp_rp_ins){ .at = at, .off = off, .seq = seq++ & 0xffff,
					       .type = OP_UNLOCK, .hold = it->hold, .lock = it->lock };
			continue;
		}
		if (it->type != IT_WAKE)
			continue;
		e = sp_rp_release_end(t, i, it->lock);
		/* Acquired by a wait since the last boundary: its unlock is
		 * placed already. */
		for (j = i; j > 0; j--) {
			const struct sp_rp_item *b = &t->it[j - 1];

			if (sp_rp_cs_boundary(r, b, it->lock) ||
			    (b->type == IT_WAKE && b->lock == it->lock))
				break;
		}
		if (j > 0 && t->it[j - 1].type == IT_WAIT && t->it[j - 1].lock == it->lock &&
		    wop[j - 1] != WAIT_SLEEP) {
			i = e;
			continue;
		}
		hold = it->hold;
		len = len_of(ll, nll, it->lock);
		if (len)
			back_cpu(t, j ? j - 1 : 0, i, len, &at, &off);
		else {
			at = j;
			off = 0;
		}
		if (!j && !len)
			at = 0;
		if (len && back_to_back(r, t, it->lock, hold, len, j, at, off, &v, &n, &cap, &seq)) {
			free(v);
			return -1;
		}
		v[n++] = (struct sp_rp_ins){ .at = at, .off = off,
				       .seq = UINT32_MAX / 2 + 1 + (uint32_t)(t->n - e),
				       .type = OP_LOCK, .hold = hold, .lock = it->lock };
		v[n++] = (struct sp_rp_ins){ .at = e + 1, .seq = seq++ & 0xffff, .type = OP_UNLOCK,
				       .hold = hold, .lock = it->lock };
		i = e;
	}
	/* Bursts of a thread whose sections are whole bursts. */
	for (size_t k = 0; k < nll; k++) {
		if (!ll[k].whole || !ll[k].len)
			continue;
		for (size_t i = 0, j; i < t->n; i = j + 1) {
			uint64_t cpu = 0;
			bool other = false;
			uint8_t hold;

			for (j = i; j < t->n && t->it[j].type != IT_SLEEP; j++) {
				if (t->it[j].type == IT_CPU)
					cpu += t->it[j].ns;
				else
					other = true; /* a wait or a wake: placed above */
			}
			if (other || cpu * 4 < ll[k].len * 3 || n + 2 > cap)
				continue;
			hold = sp_rp_side_of(r, t, ll[k].lock);
			v[n++] = (struct sp_rp_ins){ .at = i, .seq = UINT32_MAX / 2 + 1,
						     .type = OP_LOCK, .hold = hold, .lock = ll[k].lock };
			v[n++] = (struct sp_rp_ins){ .at = j, .seq = seq++ & 0xffff,
						     .type = OP_UNLOCK, .hold = hold, .lock = ll[k].lock };
			r->c.inferred++;
		}
	}
	qsort(v, n, sizeof(*v), cmp_ins);
	if (infer_readers(r, t, wop, &v, &n, &cap, &seq) < 0) {
		free(v);
		return -1;
	}
	*out = v;
	return (ssize_t)n;
}
