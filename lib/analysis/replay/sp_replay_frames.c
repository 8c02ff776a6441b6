// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A critical frame loop: the period its sleeps end on, and the points of
 * its frames (CPU time since the frame began) where it takes a lock, the
 * uncontended ones included, from the frames where it waited.
 */
#include <stdlib.h>
#include <string.h>

#include "sp_replay_internal.h"

/* The period of @t's sleeps if they end on a grid, else 0. */
uint64_t sp_rp_period_of(const struct sp_rp_th *t, size_t *grid, bool *keep)
{
	uint64_t *iv, prev = 0, p = 0;
	size_t n = 0, ok = 0, ns = 0;

	iv = malloc((t->n + 1) * sizeof(*iv));
	if (!iv)
		return 0;
	for (size_t i = 0; i < t->n; i++) {
		if (t->it[i].type != IT_SLEEP)
			continue;
		if (ns++)
			iv[n++] = t->it[i].end - prev;
		prev = t->it[i].end;
	}
	if (n >= 8) {
		uint64_t *s = malloc(n * sizeof(*s));

		if (s) {
			memcpy(s, iv, n * sizeof(*s));
			qsort(s, n, sizeof(*s), sp_rp_cmp_u64);
			p = s[n / 2];
			free(s);
		}
		for (size_t i = 0; p && i < n; i++) {
			uint64_t m = (iv[i] + p / 2) / p, d = iv[i] > m * p ? iv[i] - m * p : m * p - iv[i];

			ok += m >= 1 && d * 10 <= p;
		}
		if (ok * 10 < n * 8)
			p = 0;
	}
	/* The simulated timer counts periods from the thread's start. The
	 * frames start at the first sleep whose next interval is on the grid
	 * (*grid: its item); the sleeps before it (start-up: a barrier, a
	 * first nap) are dropped and the start moved to a period before that
	 * sleep's end, which needs them to hold no lock wait or wake. When
	 * they do (a frame loop blocked from its first frames), they are
	 * kept as they are (*keep) and the frames start at the thread's
	 * start. */
	*grid = 0;
	*keep = false;
	for (size_t i = 0, k = 0; p && i < t->n; i++) {
		uint64_t m, d;

		if (t->it[i].type == IT_WAIT || t->it[i].type == IT_WAKE) {
			*keep = true;
			continue;
		}
		if (t->it[i].type != IT_SLEEP)
			continue;
		if (k >= n) {
			p = 0;
			break;
		}
		m = (iv[k] + p / 2) / p;
		d = iv[k] > m * p ? iv[k] - m * p : m * p - iv[k];
		k++;
		if (m >= 1 && d * 10 <= p) {
			*grid = i;
			break;
		}
	}
	free(iv);
	return p;
}

static int cmp_point(const void *a, const void *b)
{
	const struct sp_rp_point *x = a, *y = b;

	if (x->lock != y->lock)
		return x->lock < y->lock ? -1 : 1;
	return (x->off > y->off) - (x->off < y->off);
}

#define PT_MAX_STEPS 12 /* the most acquisitions of one lock a frame, filled in */

/* Whether offset @x is grid point @at of step @d: at most 30 % of a step
 * later (a point drifts later in a frame that waited before it: the CPU of
 * the wait and its retry) or 10 % earlier. */
static bool on_step(uint64_t x, uint64_t at, uint64_t d)
{
	return x >= at ? (x - at) * 100 <= d * 30 : (at - x) * 100 <= d * 10;
}

/*
 * The points of one lock (@c[0..n), sorted) as a frame loop that asks at
 * evenly spaced points of its CPU time: the first point plus k steps. A
 * point shows only in the frames where it was contended, and under `none`
 * the later points of a frame seldom are (the first wait gave the starved
 * holder the time to finish). The longest step that puts every point on the grid (on_step),
 * no shorter than 80 % of the points' own smallest spacing and fewer than
 * PT_MAX_STEPS steps from the first to the last, gives the points that
 * did not show between them (nothing past the last one seen). Adds them
 * to @c (room for PT_MAX_STEPS more); returns the new count.
 */
static size_t fill_steps(struct sp_rp_point *c, size_t n)
{
	uint64_t span, gap = UINT64_MAX;

	if (n < 3)
		return n;
	span = c[n - 1].off - c[0].off;
	for (size_t i = 1; i < n; i++)
		gap = c[i].off - c[i - 1].off < gap ? c[i].off - c[i - 1].off : gap;
	for (uint64_t k = n - 1; k < PT_MAX_STEPS; k++) {
		uint64_t d = span / k;
		bool fits = d > 0;
		size_t m = n;

		/* No grid finer than the points seen: with steps of a third of
		 * their spacing any three points fit one, and a frame would ask
		 * more often than the program does. */
		if (d * 10 < gap * 8)
			break;
		for (size_t i = 1; fits && i + 1 < n; i++) {
			uint64_t x = c[i].off - c[0].off, q = (x + d / 2) / d;

			fits = q >= 1 && q < k && on_step(x, q * d, d);
		}
		if (!fits)
			continue;
		if (k + 1 == n)
			return n;
		for (uint64_t q = 1; q < k; q++) {
			uint64_t at = c[0].off + q * d;
			bool have = false;

			for (size_t i = 1; i + 1 < n && !have; i++)
				have = on_step(c[i].off - c[0].off, q * d, d);
			if (!have)
				c[m++] = (struct sp_rp_point){ .lock = c[0].lock, .off = at,
								.tol = c[0].tol };
		}
		return m;
	}
	return n;
}

/*
 * A frame's CPU offsets are taken in a median frame's CPU: an offset times
 * the median frame's CPU over its own frame's. A frame that waited does
 * more CPU than one that did not (the futex_wake of its unlock for the
 * queued readers, the wait's own path), so its later points drift, even
 * past the end of the frames that did not wait. Scaled, a point is as far
 * into a frame that waited as into one that did not.
 */
uint64_t sp_rp_frame_norm(uint64_t off, uint64_t frame, uint64_t median)
{
	return frame && median ? (uint64_t)((unsigned __int128)off * median / frame) : off;
}

uint64_t sp_rp_frame_denorm(uint64_t noff, uint64_t frame, uint64_t median)
{
	return frame && median ? (uint64_t)((unsigned __int128)noff * frame / median) : noff;
}

/* @ft[i]: the CPU of the frame item @i (from @grid on) is in, a frame
 * being the items up to and with a sleep. */
void sp_rp_frame_totals(const struct sp_rp_th *t, size_t grid, uint64_t *ft)
{
	size_t from = grid;
	uint64_t cpu = 0;

	for (size_t i = grid; i <= t->n; i++) {
		if (i < t->n && t->it[i].type == IT_CPU)
			cpu += t->it[i].ns;
		if (i == t->n || t->it[i].type == IT_SLEEP) {
			for (size_t j = from; j <= i && j < t->n; j++)
				ft[j] = cpu;
			from = i + 1;
			cpu = 0;
		}
	}
}

/* The median CPU of @t's frames that ended in a sleep and ran (@ft, from
 * sp_rp_frame_totals); 0 with fewer than three. */
uint64_t sp_rp_frame_median(const struct sp_rp_th *t, size_t grid, const uint64_t *ft)
{
	uint64_t *fr = calloc(t->n + 1, sizeof(*fr)), m = 0;
	size_t frames = 0;

	if (!fr)
		return 0;
	for (size_t i = grid; i < t->n; i++)
		if (t->it[i].type == IT_SLEEP && ft[i])
			fr[frames++] = ft[i];
	if (frames >= 3) {
		qsort(fr, frames, sizeof(*fr), sp_rp_cmp_u64);
		m = fr[frames / 2];
	}
	free(fr);
	return m;
}

/* A trace shows a thread's contended acquisitions only. A frame loop
 * (period) that waited for a lock at the same point of its frames (the
 * CPU time since the frame started, scaled by sp_rp_frame_norm @ft and @fcpu,
 * within 10 % of the frame's CPU) in at least two frames is taken to ask
 * for it there in every frame: the frames where it found the lock free
 * left no trace; and at the points between that the spacing of those says
 * (fill_steps). Two frames, not a share of them: under `none` the later
 * points of a frame seldom wait. Returns the points (sorted by lock,
 * offset) and their count. */
size_t sp_rp_frame_points(const struct sp_rp_th *t, size_t grid, const uint64_t *ft, uint64_t fcpu,
			  struct sp_rp_point **out)
{
	struct sp_rp_point *v, *c;
	size_t n = 0, nc = 0, frames = 0;
	uint64_t off = 0;

	*out = NULL;
	v = calloc(t->n + 1, sizeof(*v));
	/* A lock's points: one per two waits at least, and when fill_steps
	 * adds to them, fewer than PT_MAX_STEPS in all, which needs six waits
	 * of that lock: never more than two per wait. */
	c = calloc(2 * (t->n + 1) + PT_MAX_STEPS, sizeof(*c));
	if (!v || !c || !fcpu)
		goto out;
	for (size_t i = grid; i < t->n; i++) {
		const struct sp_rp_item *it = &t->it[i];

		if (it->type == IT_CPU) {
			off += it->ns;
		} else if (it->type == IT_WAIT) {
			v[n++] = (struct sp_rp_point){ .lock = it->lock,
						       .off = sp_rp_frame_norm(off, ft[i], fcpu),
						       .frame = frames };
		} else if (it->type == IT_SLEEP) {
			frames += off != 0;
			off = 0;
		}
	}
	if (frames < 3 || n < 2)
		goto out;
	qsort(v, n, sizeof(*v), cmp_point);
	for (size_t i = 0, j, first = 0; i < n; i = j) {
		uint64_t sum = 0;
		size_t nfr = 0;

		/* A cluster: offsets each within a tenth of the frame's CPU of
		 * the one before, and within a quarter of it of the first (a
		 * point drifts later in a frame that waited before it) */
		for (j = i; j < n && v[j].lock == v[i].lock &&
			    (j == i || v[j].off - v[j - 1].off <= fcpu / 10) &&
			    v[j].off - v[i].off <= fcpu / 4;
		     j++) {
			bool again = false; /* a retry in a frame counted already */

			for (size_t k = i; k < j && !again; k++)
				again = v[k].frame == v[j].frame;
			nfr += !again;
			sum += v[j].off;
		}
		if (nfr >= 2) {
			uint64_t mid = sum / (j - i), lo = mid - v[i].off, hi = v[j - 1].off - mid;

			/* a frame's wait is this point if it is as near as the
			 * cluster's own are */
			c[nc++] = (struct sp_rp_point){ .lock = v[i].lock, .off = mid,
						  .tol = fcpu / 10 > (lo > hi ? lo : hi)
							 ? fcpu / 10 : (lo > hi ? lo : hi) };
		}
		if (j == n || v[j].lock != v[i].lock) { /* the lock's last cluster */
			nc = first + fill_steps(c + first, nc - first);
			first = nc;
		}
	}
	if (nc) {
		qsort(c, nc, sizeof(*c), cmp_point);
		*out = c;
		c = NULL;
	}
out:
	free(v);
	free(c);
	return *out ? nc : 0;
}

/* Whether the frame around item @i has a wait of its own for point @pt
 * (for its lock, within the point's reach of its offset: then the point is
 * that wait, not an inferred request). @foff: each item's CPU offset in
 * its frame. Per point, not per lock: a frame that waited at its first
 * point still asks at the others. */
bool sp_rp_seen_pt(const struct sp_rp_th *t, const uint64_t *foff, size_t i,
		   const struct sp_rp_point *pt)
{
	for (size_t j = i; j > 0 && t->it[j - 1].type != IT_SLEEP; j--) {
		const struct sp_rp_item *x = &t->it[j - 1];

		if (x->type == IT_WAIT && x->lock == pt->lock &&
		    (foff[j - 1] > pt->off ? foff[j - 1] - pt->off : pt->off - foff[j - 1]) <= pt->tol)
			return true;
	}
	for (size_t j = i; j < t->n && t->it[j].type != IT_SLEEP; j++) {
		const struct sp_rp_item *x = &t->it[j];

		if (x->type == IT_WAIT && x->lock == pt->lock &&
		    (foff[j] > pt->off ? foff[j] - pt->off : pt->off - foff[j]) <= pt->tol)
			return true;
	}
	return false;
}
