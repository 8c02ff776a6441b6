/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The analysis' state, shared by its files, which call downwards only:
 * sp_trace_analysis.c (create, finish, the getters) and sp_trace_feed.c
 * (one event) call sp_trace_episode.c (a wait's segments into episodes),
 * which calls sp_trace_blame.c (who held the lock, its split and chain);
 * all of them read and write sp_trace_threads.c (the thread table) and
 * sp_trace_timeline.c (state timelines and their pruning).
 */
#ifndef SP_TRACE_ANALYSIS_H
#define SP_TRACE_ANALYSIS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <superpass/trace.h>

#include "sp_vec.h"
#include "sp_trace_parse.h" /* SP_TRACE_HIDDEN */

#define SP_TRACE_NO_ID UINT32_MAX
#define SP_TRACE_UNKNOWN_ID (UINT32_MAX - 1)

/* A growable array: T *v; size_t n, cap. */
#define SP_TRACE_VEC(T) struct { T *v; size_t n, cap; }

/* Room for one more element of a full SP_TRACE_VEC. */
#define SP_TRACE_VEC_GROW(vec) sp_grow((void **)&(vec).v, &(vec).cap, sizeof(*(vec).v), (vec).cap + 1, 8)

#define SP_TRACE_VEC_PUSH(vec, val)                                                      \
	((vec).n < (vec).cap || !SP_TRACE_VEC_GROW(vec) ? ((vec).v[(vec).n++] = (val), 0)  \
							 : -ENOMEM)

struct sp_trace_st_ent {
	uint64_t ts;
	uint32_t state;
};

struct sp_trace_cpu_ent {
	uint64_t ts;
	uint32_t id;   /* thread id, SP_TRACE_NO_ID idle, SP_TRACE_UNKNOWN_ID unknown */
	int32_t prio;
};

struct sp_trace_wait_rec {
	uint64_t start, end;
	uint32_t waker;    /* thread id or SP_TRACE_NO_ID */
};

/* A futex wake on the word a selected thread waits on: @id released it. */
struct sp_trace_rel {
	uint64_t ts;
	uint32_t id;
};
#define SP_TRACE_MAX_RELS 32

struct sp_trace_open_wait {
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
	/* SP_TRACE_MAX_RELS of them, for a selected thread's futex wait only (the only
	 * waits note_release looks at): allocated when the thread is found to
	 * be selected, so that the hundred thousand threads of a long trace
	 * are not 1 KB each */
	struct sp_trace_rel *rels;
};

struct sp_trace_thr {
	struct sp_trace_thread pub;
	uint32_t id;
	uint32_t state;
	bool exited;
	bool dead;         /* switched out for the last time */
	bool retired;      /* dead or replaced by a new thread of its tid: on a->retired */
	int crit;          /* -1 not yet decided for this comm */
	int32_t result;    /* index into results, -1 none */
	SP_TRACE_VEC(struct sp_trace_st_ent) hist;
	SP_TRACE_VEC(struct sp_trace_wait_rec) waits;
	struct sp_trace_open_wait fx, kl;
	/* the episode being built */
	bool ep_open;
	struct sp_trace_episode ep;
	SP_TRACE_VEC(struct sp_trace_segment) segs;
};

struct sp_trace_map_ent {
	int32_t tid;
	uint32_t id; /* SP_TRACE_NO_ID: an empty slot */
};

struct sp_trace_res {
	struct sp_trace_result pub;
	SP_TRACE_VEC(struct sp_trace_blocker) blockers;
	SP_TRACE_VEC(struct sp_trace_lock_stat) locks;
};

struct sp_trace_analysis {
	struct sp_trace_opts o;
	char **comms;      /* copied patterns */
	int32_t *tids;
	bool select_all;
	SP_TRACE_VEC(struct sp_trace_thr *) thr;
	/* tid -> current thread: open addressing, the tid beside the id so that
	 * a probe reads no thread */
	struct sp_trace_map_ent *map;
	size_t map_cap, map_used;
	SP_TRACE_VEC(SP_TRACE_VEC(struct sp_trace_cpu_ent)) cpus;
	SP_TRACE_VEC(struct sp_trace_res *) res;
	/* Threads that are selected and may still hold an open wait or
	 * episode (what sp_trace_horizon() and note_release() look at): a retired one
	 * with nothing open is dropped (prune_crit), else a trace with a new
	 * thread per tid reuse makes both walk every selected thread ever. */
	SP_TRACE_VEC(uint32_t) crit_ids;
	SP_TRACE_VEC(uint32_t) retired;  /* threads with no events to come whose history is kept */
	uint64_t retire_events; /* a->c.events when the retired were last looked at */
	SP_TRACE_VEC(struct sp_trace_episode) eps;
	uint64_t now, horizon;
	uint64_t horizon_events;
	struct sp_trace_counts c;
	bool finished;
};

/* strcmp(a, b) == 0 for two comms, each an array of SP_TRACE_COMM_LEN
 * bytes with a NUL within it: eight bytes at a time, inline, as this runs
 * up to three times an event. Equal up to the first byte that differs,
 * and a NUL before it: equal. */
static inline bool sp_trace_comm_is(const char *a, const char *b)
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

/* sp_trace_threads.c: the table of threads by tid. */
SP_TRACE_HIDDEN struct sp_trace_thr *sp_trace_thr_lookup(struct sp_trace_analysis *a, int32_t tid);
SP_TRACE_HIDDEN struct sp_trace_thr *sp_trace_thr_new(struct sp_trace_analysis *a, int32_t tid,
						      const char *comm);
SP_TRACE_HIDDEN void sp_trace_thr_retire(struct sp_trace_analysis *a, struct sp_trace_thr *t);
/* The current thread of @tid, created if new; NULL for the idle task. */
SP_TRACE_HIDDEN struct sp_trace_thr *sp_trace_thr_get(struct sp_trace_analysis *a, int32_t tid,
						      const char *comm);
SP_TRACE_HIDDEN bool sp_trace_thr_is_critical(struct sp_trace_analysis *a, struct sp_trace_thr *t);

/* sp_trace_timeline.c: the threads' and CPUs' timelines, kept back to the
 * horizon. */
SP_TRACE_HIDDEN uint64_t sp_trace_horizon(struct sp_trace_analysis *a);
SP_TRACE_HIDDEN void sp_trace_set_state(struct sp_trace_analysis *a, struct sp_trace_thr *t,
					uint64_t ts, uint32_t st);
SP_TRACE_HIDDEN void sp_trace_cpu_set(struct sp_trace_analysis *a, int32_t cpu, uint64_t ts,
				      uint32_t id, int32_t prio);
SP_TRACE_HIDDEN void sp_trace_add_wait_rec(struct sp_trace_analysis *a, struct sp_trace_thr *t,
					   uint64_t s, uint64_t e, uint32_t waker);
SP_TRACE_HIDDEN void sp_trace_release_retired(struct sp_trace_analysis *a);

/* sp_trace_blame.c: @t's time in each state over [s, e) (and, with @b, who
 * ran while it was runnable); the chain behind a blocker. */
SP_TRACE_HIDDEN void sp_trace_blame_split(struct sp_trace_analysis *a, struct sp_trace_thr *t,
					  uint64_t s, uint64_t e, struct sp_trace_split *out,
					  struct sp_trace_blocker *b);
SP_TRACE_HIDDEN uint32_t sp_trace_blame_chain(struct sp_trace_analysis *a, uint32_t waiter,
					      uint32_t b, uint64_t s, uint64_t e,
					      struct sp_trace_segment *sg, uint32_t max);

/* sp_trace_episode.c: a wait's end, its segments, episodes into results. */
SP_TRACE_HIDDEN void sp_trace_flush_episode(struct sp_trace_analysis *a, struct sp_trace_thr *t);
/* A wait of @t ended at @ts. */
SP_TRACE_HIDDEN void sp_trace_end_wait(struct sp_trace_analysis *a, struct sp_trace_thr *t,
				       struct sp_trace_open_wait *w, uint64_t ts, bool timed_out);

#endif /* SP_TRACE_ANALYSIS_H */
