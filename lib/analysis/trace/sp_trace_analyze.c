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
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <superpass/trace.h>

#define NO_ID UINT32_MAX
#define UNKNOWN_ID (UINT32_MAX - 1)

/* A growable array: T *v; size_t n, cap. */
#define VEC(T) struct { T *v; size_t n, cap; }

static int vec_grow(void **v, size_t *cap, size_t elem, size_t need)
{
	size_t nc = *cap ? *cap : 8;
	void *nv;

	while (nc < need)
		nc *= 2;
	nv = realloc(*v, nc * elem);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = nc;
	return 0;
}

#define VEC_PUSH(vec, val)                                                                   \
	((vec).n < (vec).cap ||                                                              \
			 !vec_grow((void **)&(vec).v, &(vec).cap, sizeof(*(vec).v), (vec).n + 1) \
		 ? ((vec).v[(vec).n++] = (val), 0)                                           \
		 : -ENOMEM)

struct st_ent {
	uint64_t ts;
	uint32_t state;
};

struct cpu_ent {
	uint64_t ts;
	uint32_t id;   /* thread id, NO_ID idle, UNKNOWN_ID unknown */
	int32_t prio;
};

struct wait_rec {
	uint64_t start, end;
	uint32_t waker;    /* thread id or NO_ID */
};

/* A futex wake on the word a selected thread waits on: @id released it. */
struct rel {
	uint64_t ts;
	uint32_t id;
};
#define MAX_RELS 32

struct open_wait {
	bool open;
	bool is_wait;      /* a futex op that waits */
	bool nested;       /* a kernel lock wait inside a futex wait */
	bool lost;         /* events were lost meanwhile */
	bool irq_wake;
	uint32_t kind;
	uint64_t start, lock;
	uint32_t op;
	uint32_t waker;
	bool waker_from_waking;
	uint32_t nr_rels;   /* releases of the word seen during the wait */
	/* MAX_RELS of them, for a selected thread's futex wait only (the only
	 * waits note_release looks at): allocated when the thread is found to
	 * be selected, so that the hundred thousand threads of a long trace
	 * are not 1 KB each */
	struct rel *rels;
};

struct thr {
	struct sp_trace_thread pub;
	uint32_t id;
	uint32_t state;
	bool exited;
	bool dead;         /* switched out for the last time */
	bool retired;      /* dead or replaced by a new thread of its tid: on a->retired */
	int crit;          /* -1 not yet decided for this comm */
	int32_t result;    /* index into results, -1 none */
	VEC(struct st_ent) hist;
	VEC(struct wait_rec) waits;
	struct open_wait fx, kl;
	/* the episode being built */
	bool ep_open;
	struct sp_trace_episode ep;
	VEC(struct sp_trace_segment) segs;
};

struct map_ent {
	int32_t tid;
	uint32_t id; /* NO_ID: an empty slot */
};

struct res {
	struct sp_trace_result pub;
	VEC(struct sp_trace_blocker) blockers;
	VEC(struct sp_trace_lock_stat) locks;
};

struct sp_trace_analysis {
	struct sp_trace_opts o;
	char **comms;      /* copied patterns */
	int32_t *tids;
	bool select_all;
	VEC(struct thr *) thr;
	/* tid -> current thread: open addressing, the tid beside the id so that
	 * a probe reads no thread */
	struct map_ent *map;
	size_t map_cap, map_used;
	VEC(VEC(struct cpu_ent)) cpus;
	VEC(struct res *) res;
	/* Threads that are selected and may still hold an open wait or
	 * episode (what horizon() and note_release() look at): a retired one
	 * with nothing open is dropped (prune_crit), else a trace with a new
	 * thread per tid reuse makes both walk every selected thread ever. */
	VEC(uint32_t) crit_ids;
	VEC(uint32_t) retired;  /* threads with no events to come whose history is kept */
	uint64_t retire_events; /* a->c.events when the retired were last looked at */
	VEC(struct sp_trace_episode) eps;
	uint64_t now, horizon;
	uint64_t horizon_events;
	struct sp_trace_counts c;
	bool finished;
};

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
		struct thr *t = a->thr.v[i];

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

/* ---- threads ---- */
static size_t slot_of(const struct sp_trace_analysis *a, int32_t tid)
{
	return ((uint32_t)tid * 2654435761u) & (a->map_cap - 1);
}

static struct thr *lookup(struct sp_trace_analysis *a, int32_t tid)
{
	for (size_t s = slot_of(a, tid);; s = (s + 1) & (a->map_cap - 1)) {
		const struct map_ent *m = &a->map[s];

		if (m->id == NO_ID)
			return NULL;
		if (m->tid == tid)
			return a->thr.v[m->id];
	}
}

static int map_set(struct sp_trace_analysis *a, int32_t tid, uint32_t id)
{
	size_t s;

	if ((a->map_used + 1) * 2 > a->map_cap) {
		struct map_ent *old = a->map;
		size_t oc = a->map_cap;

		a->map = malloc(oc * 2 * sizeof(*a->map));
		if (!a->map) {
			a->map = old;
			return -ENOMEM;
		}
		a->map_cap = oc * 2;
		memset(a->map, 0xff, a->map_cap * sizeof(*a->map));
		for (size_t i = 0; i < oc; i++)
			if (old[i].id != NO_ID) {
				for (s = slot_of(a, old[i].tid); a->map[s].id != NO_ID;
				     s = (s + 1) & (a->map_cap - 1))
					;
				a->map[s] = old[i];
			}
		free(old);
	}
	for (s = slot_of(a, tid);; s = (s + 1) & (a->map_cap - 1)) {
		if (a->map[s].id == NO_ID) {
			a->map[s] = (struct map_ent){ tid, id };
			a->map_used++;
			return 0;
		}
		if (a->map[s].tid == tid) {
			a->map[s].id = id;
			return 0;
		}
	}
}

/* @t will see no event of its own again (it died, or its tid now names a
 * new thread): its history is kept only while a wait still open may look
 * at it, then released (release_retired). Memory then grows with the
 * threads alive, not with every thread the trace ever had. */
static void retire(struct sp_trace_analysis *a, struct thr *t)
{
	if (t->retired)
		return;
	t->retired = true;
	(void)VEC_PUSH(a->retired, t->id); /* out of memory: kept whole, nothing lost */
	/* What it has open now stays open (no event of its own can close it:
	 * finish does); with nothing open, horizon() and note_release() have
	 * nothing to find in it ever again. */
	if (t->pub.critical && !t->fx.open && !t->kl.open && !t->ep_open) {
		for (size_t i = 0; i < a->crit_ids.n; i++)
			if (a->crit_ids.v[i] == t->id) {
				a->crit_ids.v[i] = a->crit_ids.v[--a->crit_ids.n];
				break;
			}
		free(t->fx.rels);
		t->fx.rels = NULL;
	}
}

static struct thr *new_thread(struct sp_trace_analysis *a, int32_t tid, const char *comm)
{
	struct thr *t = calloc(1, sizeof(*t)), *old = lookup(a, tid);

	if (!t)
		return NULL;
	if (old) {
		old->pub.reused = true;
		a->c.pid_reuse++;
		retire(a, old);
	}
	t->id = (uint32_t)a->thr.n;
	t->pub.tid = tid;
	t->pub.prio = -1;
	t->crit = -1;
	t->result = -1;
	if (comm)
		snprintf(t->pub.comm, sizeof(t->pub.comm), "%s", comm);
	if (VEC_PUSH(a->thr, t) || map_set(a, tid, t->id)) {
		if (a->thr.n && a->thr.v[a->thr.n - 1] == t)
			a->thr.n--;
		free(t);
		return NULL;
	}
	return t;
}

/* strcmp(a, b) == 0 for two comms, each an array of SP_TRACE_COMM_LEN
 * bytes with a NUL within it: eight bytes at a time, inline, as this runs
 * up to three times an event (a strcmp call was a tenth of the analysis).
 * Equal up to the first byte that differs, and a NUL before it: equal. */
static inline bool comm_is(const char *a, const char *b)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (size_t i = 0; i < SP_TRACE_COMM_LEN; i += 8) {
		uint64_t x, y, zero, diff;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		/* the lowest set bit of zero is x's first NUL byte */
		zero = (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
		diff = x ^ y;
		if (diff)
			return zero && __builtin_ctzll(zero) < __builtin_ctzll(diff);
		if (zero)
			return true;
	}
	return true;
#else
	return !strncmp(a, b, SP_TRACE_COMM_LEN);
#endif
}

/* The current thread of @tid, created if new; NULL for the idle task. */
static struct thr *get(struct sp_trace_analysis *a, int32_t tid, const char *comm)
{
	struct thr *t;

	if (tid <= 0)
		return NULL;
	t = lookup(a, tid);
	if (!t || t->dead) /* a dead thread's tid seen again: reused */
		t = new_thread(a, tid, comm);
	else if (comm && comm[0] && !comm_is(t->pub.comm, comm) && strcmp(comm, "<...>")) {
		snprintf(t->pub.comm, sizeof(t->pub.comm), "%s", comm);
		t->crit = -1;
	}
	return t;
}

static bool is_critical(struct sp_trace_analysis *a, struct thr *t)
{
	if (t->crit < 0) {
		bool c = a->select_all;

		for (size_t i = 0; !c && i < a->o.nr_critical_tids; i++)
			c = a->tids[i] == t->pub.tid;
		for (size_t i = 0; !c && a->comms[i]; i++)
			c = !fnmatch(a->comms[i], t->pub.comm, 0);
		t->crit = c;
		if (c && !t->pub.critical && (t->fx.rels = calloc(MAX_RELS, sizeof(struct rel)))) {
			if (!VEC_PUSH(a->crit_ids, t->id)) {
				t->pub.critical = true;
			} else {
				free(t->fx.rels);
				t->fx.rels = NULL;
			}
		}
	}
	return t->crit > 0;
}

/* ---- history and its pruning ---- */
static uint64_t horizon(struct sp_trace_analysis *a)
{
	uint64_t h = a->now;

	/* Monotonic over time, so a value computed a little earlier is safe. */
	if (a->c.events - a->horizon_events < 1024 && a->horizon)
		return a->horizon;
	for (size_t i = 0; i < a->crit_ids.n; i++) {
		struct thr *t = a->thr.v[a->crit_ids.v[i]];

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
#define PRUNE_TIMELINE(vec, h)                                                   \
	do {                                                                     \
		size_t keep_ = 0;                                                \
		while (keep_ + 1 < (vec).n && (vec).v[keep_ + 1].ts <= (h))      \
			keep_++;                                                 \
		if (keep_) {                                                     \
			memmove((vec).v, (vec).v + keep_,                        \
				((vec).n - keep_) * sizeof(*(vec).v));           \
			(vec).n -= keep_;                                        \
		}                                                                \
	} while (0)

static void set_state(struct sp_trace_analysis *a, struct thr *t, uint64_t ts, uint32_t st)
{
	struct st_ent e = { ts, st };

	if (t->state == st && t->hist.n)
		return;
	t->state = st;
	if (t->hist.n && t->hist.v[t->hist.n - 1].ts == ts) {
		t->hist.v[t->hist.n - 1].state = st;
		return;
	}
	if (t->hist.n == t->hist.cap && t->hist.n)
		PRUNE_TIMELINE(t->hist, horizon(a));
	VEC_PUSH(t->hist, e);
}

static void cpu_set(struct sp_trace_analysis *a, int32_t cpu, uint64_t ts, uint32_t id, int32_t prio)
{
	struct cpu_ent e = { ts, id, prio };

	if (cpu < 0 || cpu > 4096)
		return;
	while (a->cpus.n <= (size_t)cpu) {
		struct { struct cpu_ent *v; size_t n, cap; } z = { 0 };

		if (a->cpus.n == a->cpus.cap &&
		    vec_grow((void **)&a->cpus.v, &a->cpus.cap, sizeof(*a->cpus.v), a->cpus.n + 1))
			return;
		memcpy(&a->cpus.v[a->cpus.n++], &z, sizeof(z));
	}
	if (a->cpus.v[cpu].n == a->cpus.v[cpu].cap && a->cpus.v[cpu].n)
		PRUNE_TIMELINE(a->cpus.v[cpu], horizon(a));
	VEC_PUSH(a->cpus.v[cpu], e);
}

static void add_wait_rec(struct sp_trace_analysis *a, struct thr *t, uint64_t s, uint64_t e,
			 uint32_t waker)
{
	struct wait_rec w = { s, e, waker };

	if (t->waits.n == t->waits.cap && t->waits.n) {
		uint64_t h = horizon(a);
		size_t k = 0;

		while (k < t->waits.n && t->waits.v[k].end < h)
			k++;
		memmove(t->waits.v, t->waits.v + k, (t->waits.n - k) * sizeof(*t->waits.v));
		t->waits.n -= k;
	}
	VEC_PUSH(t->waits, w);
}

/* Every question the analysis asks of a thread's history is about a time
 * at or after the horizon (open waits start there; see horizon()). A
 * retired thread whose last state began at or before it and whose waits
 * all ended before it answers every such question with its last state
 * alone: keep that entry, free the rest (what PRUNE_TIMELINE and
 * add_wait_rec would keep, had the thread grown again). */
static void release_retired(struct sp_trace_analysis *a)
{
	uint64_t h;

	if (a->c.events - a->retire_events < 4096 || !a->retired.n)
		return;
	a->retire_events = a->c.events;
	h = horizon(a);
	for (size_t i = 0; i < a->retired.n;) {
		struct thr *t = a->thr.v[a->retired.v[i]];

		if ((t->hist.n && t->hist.v[t->hist.n - 1].ts > h) ||
		    (t->waits.n && t->waits.v[t->waits.n - 1].end >= h) || t->ep_open) {
			i++;
			continue;
		}
		if (t->hist.n) {
			struct st_ent last = t->hist.v[t->hist.n - 1];
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

/* First index whose ts > @t0, minus one (the entry in force at t0). */
#define FIND_AT(vec, t0, out)                                          \
	do {                                                           \
		size_t lo_ = 0, hi_ = (vec).n;                         \
		while (lo_ < hi_) {                                    \
			size_t mid_ = (lo_ + hi_) / 2;                 \
			if ((vec).v[mid_].ts <= (t0))                  \
				lo_ = mid_ + 1;                        \
			else                                           \
				hi_ = mid_;                            \
		}                                                      \
		(out) = lo_; /* entries [0, out) are at or before t0 */ \
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
		const struct cpu_ent *v = a->cpus.v[c].v;
		size_t n = a->cpus.v[c].n, i;

		FIND_AT(a->cpus.v[c], s, i);
		if (i)
			i--;
		for (; i < n && v[i].ts < e; i++) {
			uint64_t from = v[i].ts > s ? v[i].ts : s;
			uint64_t to = i + 1 < n && v[i + 1].ts < e ? v[i + 1].ts : e;

			if (v[i].ts > e || to <= from || v[i].id >= UNKNOWN_ID || v[i].id == self)
				continue;
			if (i + 1 == n && a->now < to)
				to = a->now > from ? a->now : from;
			add_preemptor(b, v[i].id, to - from);
		}
	}
}

/* @t's time in each state over [s, e); calls back for runnable stretches. */
static void split(struct sp_trace_analysis *a, struct thr *t, uint64_t s, uint64_t e,
		  struct sp_trace_split *out, struct sp_trace_blocker *b)
{
	size_t i, n = t->hist.n;
	uint64_t at = s;
	uint32_t st;

	memset(out, 0, sizeof(*out));
	if (e <= s)
		return;
	FIND_AT(t->hist, s, i);
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

static void split(struct sp_trace_analysis *a, struct thr *t, uint64_t s, uint64_t e,
		  struct sp_trace_split *out, struct sp_trace_blocker *b);

/* The chain behind @b over [s, e): the waker of its longest overlapping
 * wait, recursively; each member's split over the stretch the one before
 * it waited on it. */
static uint32_t chain(struct sp_trace_analysis *a, uint32_t waiter, uint32_t b, uint64_t s,
		      uint64_t e, struct sp_trace_segment *sg, uint32_t max)
{
	int32_t *out = sg->chain;
	uint32_t n = 0, seen[17];

	seen[0] = waiter;
	seen[1] = b;
	while (n < max && n < 15) {
		struct thr *t = a->thr.v[b];
		uint64_t best = 0, bs = 0, be = 0;
		uint32_t next = NO_ID;
		bool dup = false;

		for (size_t i = t->waits.n; i-- > 0;) {
			const struct wait_rec *w = &t->waits.v[i];
			uint64_t from = w->start > s ? w->start : s, to = w->end < e ? w->end : e;

			if (w->end <= s)
				break;
			if (to > from && w->waker != NO_ID && to - from > best) {
				best = to - from;
				next = w->waker;
				bs = from;
				be = to;
			}
		}
		if (next == NO_ID)
			break;
		for (uint32_t k = 0; k < n + 2; k++)
			dup |= seen[k] == next;
		if (dup)
			break;
		split(a, a->thr.v[next], bs, be, &sg->chain_split[n], NULL);
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

/* ---- results ---- */
static struct res *result_of(struct sp_trace_analysis *a, struct thr *t)
{
	struct res *r;

	if (t->result >= 0)
		return a->res.v[t->result];
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->pub.thread_id = t->id;
	sp_hist_init(&r->pub.hist);
	if (VEC_PUSH(a->res, r)) {
		free(r);
		return NULL;
	}
	t->result = (int32_t)(a->res.n - 1);
	return r;
}

static struct sp_trace_blocker *blocker_of(struct res *r, uint32_t id)
{
	struct sp_trace_blocker z = { .thread_id = id };

	for (size_t i = 0; i < r->blockers.n; i++)
		if (r->blockers.v[i].thread_id == id)
			return &r->blockers.v[i];
	if (VEC_PUSH(r->blockers, z))
		return NULL;
	return &r->blockers.v[r->blockers.n - 1];
}

static void flush_episode(struct sp_trace_analysis *a, struct thr *t)
{
	struct sp_trace_episode ep;
	uint64_t dur;
	struct res *r;
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

		if (VEC_PUSH(r->locks, z))
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

		if (sg->blocker_id == NO_ID)
			continue;
		for (uint32_t k = 0; k < s; k++)
			first &= ep.segments[k].blocker_id != sg->blocker_id;
		b = blocker_of(r, sg->blocker_id);
		if (!b)
			continue;
		b->episodes += first;
	}
	if (VEC_PUSH(a->eps, ep))
		free(ep.segments);
}

static uint32_t kind_of(uint32_t f)
{
	if (f & (SP_TRACE_LCB_MUTEX | SP_TRACE_LCB_RT))
		return SP_TWK_MUTEX;
	if (f & SP_TRACE_LCB_SPIN)
		return SP_TWK_SPIN;
	if (f & SP_TRACE_LCB_READ)
		return SP_TWK_RWSEM_READ;
	if (f & SP_TRACE_LCB_WRITE)
		return SP_TWK_RWSEM_WRITE;
	return SP_TWK_OTHER;
}

/* One stretch [s, e) of a wait of @t, with @who (NO_ID: none) holding the lock. */
static void add_segment(struct sp_trace_analysis *a, struct thr *t, struct res *r, uint64_t s,
			uint64_t e, uint32_t who)
{
	struct sp_trace_segment sg;

	memset(&sg, 0, sizeof(sg));
	sg.start_ns = s;
	sg.end_ns = e;
	sg.blocker_id = who;
	sg.blocker_tid = who == NO_ID ? 0 : a->thr.v[who]->pub.tid;
	if (who != NO_ID) {
		struct sp_trace_blocker *b = blocker_of(r, who);
		struct sp_trace_split sp;

		split(a, a->thr.v[who], s, e, &sp, b);
		sg.split = sp;
		if (b) {
			b->blocking_ns += e - s;
			for (int k = 0; k < SP_TST_NR; k++)
				b->split.ns[k] += sp.ns[k];
		}
		r->pub.attributed_ns += e - s;
		r->pub.runnable_ns += sp.ns[SP_TST_RUNNABLE];
		sg.chain_len = chain(a, t->id, who, s, e, &sg, a->o.max_chain);
	}
	if (VEC_PUSH(t->segs, sg))
		t->ep.lost = true; /* out of memory: the episode lacks a segment */
}

/* A wait of @t ended at @ts. */
static void end_wait(struct sp_trace_analysis *a, struct thr *t, struct open_wait *w, uint64_t ts,
		     bool timed_out)
{
	struct res *r;

	w->open = false;
	if (!w->is_wait)
		return;
	a->c.waits++;
	if (w->waker == NO_ID && !timed_out)
		a->c.no_blocker++;
	if (w->irq_wake && w->waker == NO_ID)
		a->c.irq_wakers++;
	add_wait_rec(a, t, w->start, ts, timed_out ? NO_ID : w->waker);
	if (w->nested || !is_critical(a, t))
		return;
	if (timed_out) {
		a->c.timeouts++;
		flush_episode(a, t);
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

		split(a, t, t->ep.end_ns, w->start, &gap, NULL);
		if (t->ep.lock != w->lock || t->ep.kind != w->kind ||
		    gap.ns[SP_TST_RUNNING] + gap.ns[SP_TST_SLEEPING] > a->o.merge_ns)
			flush_episode(a, t);
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


static bool futex_waits(uint32_t op)
{
	switch (op & 0x7f) {
	case 0:  /* FUTEX_WAIT */
	case 6:  /* FUTEX_LOCK_PI */
	case 9:  /* FUTEX_WAIT_BITSET */
	case 11: /* FUTEX_WAIT_REQUEUE_PI */
	case 13: /* FUTEX_LOCK_PI2 */
		return true;
	default:
		return false;
	}
}

static bool futex_wakes(uint32_t op)
{
	switch (op & 0x7f) {
	case 1:  /* FUTEX_WAKE */
	case 4:  /* FUTEX_CMP_REQUEUE */
	case 5:  /* FUTEX_WAKE_OP */
	case 7:  /* FUTEX_UNLOCK_PI */
	case 10: /* FUTEX_WAKE_BITSET */
		return true;
	default:
		return false;
	}
}

/* @rel released the futex word @uaddr: a stretch of every selected
 * thread's wait on it ends with @rel as its holder. */
static void note_release(struct sp_trace_analysis *a, struct thr *rel, uint64_t uaddr, uint64_t ts)
{
	for (size_t i = 0; i < a->crit_ids.n; i++) {
		struct open_wait *w = &a->thr.v[a->crit_ids.v[i]]->fx;

		if (!w->open || !w->is_wait || w->lock != uaddr || a->crit_ids.v[i] == rel->id)
			continue;
		if (w->nr_rels && w->rels[w->nr_rels - 1].id == rel->id) {
			w->rels[w->nr_rels - 1].ts = ts;
		} else if (w->nr_rels < MAX_RELS) {
			w->rels[w->nr_rels++] = (struct rel){ ts, rel->id };
		} else {
			w->rels[MAX_RELS - 1] = (struct rel){ ts, rel->id };
		}
	}
}

/* A wait opens: every field but the releases (rels[] counts from
 * nr_rels = 0; zeroing its 32 slots on every futex call was a quarter of
 * the analysis' time). */
static void open_wait_init(struct open_wait *w, bool is_wait, uint32_t kind, uint64_t ts,
			   uint64_t lock)
{
	w->open = true;
	w->is_wait = is_wait;
	w->nested = false;
	w->lost = false;
	w->irq_wake = false;
	w->kind = kind;
	w->start = ts;
	w->lock = lock;
	w->op = 0;
	w->waker = NO_ID;
	w->waker_from_waking = false;
	w->nr_rels = 0;
}

static void note_waker(struct open_wait *w, uint32_t waker, bool waking, bool irq)
{
	if (!w->open || !w->is_wait)
		return;
	if (!waking && w->waker_from_waking)
		return; /* sched_waking is exact; sched_wakeup may run on the target CPU */
	w->waker = waker;
	w->irq_wake = irq;
	w->waker_from_waking = waking;
}

int sp_trace_analysis_feed(void *analysis, const struct sp_trace_event *ev)
{
	struct sp_trace_analysis *a = analysis;
	struct thr *cur = NULL, *t;
	bool irq = ev->flags & SP_TRACE_EVF_IRQ;

	if (a->finished)
		return 0;
	if (!a->c.events)
		a->c.first_ns = ev->ts_ns;
	a->c.events++;
	a->now = ev->ts_ns;
	a->c.last_ns = ev->ts_ns;
	release_retired(a);

	if (ev->type == SP_TR_LOST) {
		/* Every timeline is unknown until seen again; open waits carry on
		 * marked (an exit that was lost shows up as an unmatched enter). */
		for (size_t i = 0; i < a->thr.n; i++) {
			t = a->thr.v[i];
			if (t->state != SP_TST_UNKNOWN && !t->exited)
				set_state(a, t, ev->ts_ns, SP_TST_UNKNOWN);
			t->fx.lost |= t->fx.open;
			t->kl.lost |= t->kl.open;
		}
		for (size_t c = 0; c < a->cpus.n; c++)
			cpu_set(a, (int32_t)c, ev->ts_ns, UNKNOWN_ID, -1);
		return 0;
	}
	/* The task an event ran in is running (interrupt context included: it
	 * was interrupted while on the CPU). */
	if (ev->pid > 0) {
		cur = get(a, ev->pid, ev->comm[0] && ev->comm[0] != '<' ? ev->comm : NULL);
		if (cur && cur->state != SP_TST_RUNNING)
			set_state(a, cur, ev->ts_ns, SP_TST_RUNNING);
	}

	switch (ev->type) {
	case SP_TR_SWITCH: {
		/* prev is the task the event ran in, almost always: when its
		 * tid and comm are the ones cur was just looked up by, get()
		 * would find cur and change nothing (cur is not dead, its
		 * comm is that one) */
		struct thr *p = cur && ev->u.sw.prev_pid == ev->pid && ev->comm[0] &&
						ev->comm[0] != '<' &&
						comm_is(ev->comm, ev->u.sw.prev_comm)
					? cur
					: get(a, ev->u.sw.prev_pid, ev->u.sw.prev_comm);
		struct thr *n = get(a, ev->u.sw.next_pid, ev->u.sw.next_comm);

		if (p) {
			uint32_t st;

			p->pub.prio = ev->u.sw.prev_prio;
			switch (ev->u.sw.prev_state) {
			case SP_TRS_RUNNABLE:
				st = SP_TST_RUNNABLE;
				break;
			case SP_TRS_DEAD:
				st = SP_TST_UNKNOWN;
				p->exited = true;
				p->dead = true;
				retire(a, p);
				break;
			default:
				st = (p->fx.open && p->fx.is_wait) || p->kl.open ? SP_TST_BLOCKED
										 : SP_TST_SLEEPING;
			}
			set_state(a, p, ev->ts_ns, st);
		}
		if (n) {
			n->pub.prio = ev->u.sw.next_prio;
			set_state(a, n, ev->ts_ns, SP_TST_RUNNING);
		}
		cpu_set(a, ev->cpu, ev->ts_ns, n ? n->id : NO_ID, ev->u.sw.next_prio);
		break;
	}
	case SP_TR_WAKING:
	case SP_TR_WAKEUP:
	case SP_TR_WAKEUP_NEW: {
		uint32_t waker = NO_ID;

		if (ev->type == SP_TR_WAKEUP_NEW) {
			t = lookup(a, ev->u.wake.pid);
			if (!t || t->exited)
				t = new_thread(a, ev->u.wake.pid, ev->u.wake.comm);
		} else {
			t = get(a, ev->u.wake.pid, ev->u.wake.comm);
		}
		if (!t)
			break;
		if (ev->u.wake.prio >= 0)
			t->pub.prio = ev->u.wake.prio;
		if (t->state != SP_TST_RUNNING)
			set_state(a, t, ev->ts_ns, SP_TST_RUNNABLE);
		if (cur && cur != t && !irq)
			waker = cur->id;
		note_waker(&t->fx, waker, ev->type == SP_TR_WAKING, irq);
		note_waker(&t->kl, waker, ev->type == SP_TR_WAKING, irq);
		break;
	}
	case SP_TR_FORK: {
		t = lookup(a, ev->u.fork.child_pid);
		if (!t || t->exited || t->hist.n)
			t = new_thread(a, ev->u.fork.child_pid, ev->u.fork.child_comm);
		else
			snprintf(t->pub.comm, sizeof(t->pub.comm), "%s", ev->u.fork.child_comm);
		break;
	}
	case SP_TR_EXIT:
		t = get(a, ev->u.exit.pid, NULL);
		if (t) {
			t->exited = true;
			if (t->fx.open)
				t->fx.open = false;
			if (t->kl.open)
				t->kl.open = false;
			flush_episode(a, t);
		}
		break;
	case SP_TR_RENAME:
		t = get(a, ev->u.rename.pid, NULL);
		if (t) {
			snprintf(t->pub.comm, sizeof(t->pub.comm), "%s", ev->u.rename.newcomm);
			t->crit = -1;
		}
		break;
	case SP_TR_FUTEX_ENTER:
		if (!cur)
			break;
		if (cur->fx.open) {
			a->c.dropped_lost += cur->fx.is_wait;
			cur->fx.open = false;
		}
		open_wait_init(&cur->fx, futex_waits(ev->u.futex.op), SP_TWK_FUTEX, ev->ts_ns,
			       ev->u.futex.uaddr);
		cur->fx.op = ev->u.futex.op;
		if (cur->fx.is_wait)
			is_critical(a, cur);
		else if (futex_wakes(ev->u.futex.op))
			note_release(a, cur, ev->u.futex.uaddr, ev->ts_ns);
		break;
	case SP_TR_FUTEX_EXIT:
		if (!cur)
			break;
		if (!cur->fx.open) {
			a->c.unmatched_exits++;
			break;
		}
		end_wait(a, cur, &cur->fx, ev->ts_ns, ev->u.futex.ret == -110 /* ETIMEDOUT */);
		break;
	case SP_TR_LOCK_BEGIN: {
		uint32_t kind = kind_of(ev->u.lock.flags);

		if (!cur || (kind == SP_TWK_SPIN && !a->o.spin))
			break;
		if (cur->kl.open && cur->kl.lock == ev->u.lock.addr) {
			cur->kl.kind = kind; /* a mutex that spun first, now sleeps */
			break;
		}
		if (cur->kl.open) {
			a->c.dropped_lost++;
			cur->kl.open = false;
		}
		open_wait_init(&cur->kl, true, kind, ev->ts_ns, ev->u.lock.addr);
		cur->kl.nested = cur->fx.open && cur->fx.is_wait;
		is_critical(a, cur);
		break;
	}
	case SP_TR_LOCK_END:
		if (!cur)
			break;
		if (!cur->kl.open || cur->kl.lock != ev->u.lock.addr) {
			if (!cur->kl.open && a->o.spin)
				a->c.unmatched_exits++;
			break;
		}
		end_wait(a, cur, &cur->kl, ev->ts_ns, false);
		break;
	default:
		break;
	}
	return 0;
}

/* qsort, which may not be given a NULL array even when empty */
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
	const struct res *a = *(struct res *const *)x, *b = *(struct res *const *)y;

	return a->pub.blocking_ns < b->pub.blocking_ns ? 1
	       : a->pub.blocking_ns > b->pub.blocking_ns ? -1
	       : a->pub.thread_id < b->pub.thread_id ? -1 : 1;
}

int sp_trace_analysis_finish(struct sp_trace_analysis *a)
{
	if (a->finished)
		return 0;
	for (size_t i = 0; i < a->thr.n; i++) {
		struct thr *t = a->thr.v[i];

		if (t->fx.open && t->fx.is_wait)
			a->c.open_at_end++;
		if (t->kl.open)
			a->c.open_at_end++;
		flush_episode(a, t);
	}
	for (size_t i = 0; i < a->res.n; i++) {
		struct res *r = a->res.v[i];

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
