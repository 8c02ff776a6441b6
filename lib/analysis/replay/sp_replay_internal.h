/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the files of lib/analysis/replay share (not installed): a trace read into
 * items per thread (sp_replay_feed.c), the wakes kept as dependencies, and
 * the steps from items to a workload: what each wait and wake is
 * (sp_replay_waits.c), where the critical sections lie (sp_replay_holds.c),
 * a frame loop's lock points (sp_replay_frames.c), each thread's program
 * (sp_replay_prog.c) and the workload's JSON (sp_replay_workload.c);
 * sp_replay.c runs them (include/superpass/replay.h has the model).
 */
#ifndef SP_REPLAY_INTERNAL_H
#define SP_REPLAY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <superpass/replay.h>

struct json_object;

enum { IT_CPU, IT_WAIT, IT_WAKE, IT_SLEEP };

struct sp_rp_item {
	uint8_t type;
	uint8_t hold;         /* enum sp_sim_hold */
	bool preempt;         /* CPU: the thread was preempted where it ends */
	int32_t lock;         /* the real lock (WAIT, WAKE) */
	uint32_t tok;         /* the wake that ended the wait (WAIT, WAKE), 1-based */
	uint64_t ns;          /* CPU or wall length */
	uint64_t end;         /* wall time the item ended */
};

/* One wake of a waiter: the dependency the replay keeps. */
struct sp_rp_tok {
	int32_t waiter, waker;   /* thread indexes */
	int32_t lock;
	uint8_t hold;
	bool used;               /* the last wake of an acquisition */
	bool sleep;              /* its waker is not replayed: the wait is a sleep */
	uint64_t req;            /* when the waiter asked (trace time) */
	uint64_t woke;           /* when the waker woke it */
	uint32_t readers;        /* read sections inferred at this (writer's) wait */
};

enum { W_NONE, W_FUTEX, W_KLOCK };

struct sp_rp_th {
	int32_t tid;
	char comm[SP_TRACE_COMM_LEN];
	int32_t prio;
	bool in_set, critical, running, exited;
	uint64_t first_ts, last_ts, run_since, cpu_acc, cpu_total;
	int wait;             /* W_* */
	uint64_t wait_addr, wait_start;
	uint32_t wait_val;    /* a futex wait's expected value */
	uint8_t wait_hold, wait_kind;
	bool wait_slept;
	bool wait_spin;       /* a kernel mutex's wait, still in its optimistic spin */
	uint64_t on_since;    /* it came on its CPU (running) */
	uint64_t wait_left;   /* its last lock wait ended */
	uint32_t wait_tok;
	int32_t idx;
	int32_t waker;        /* -1 none yet, 0 irq/timer */
	bool sleeping, woken;
	uint64_t sleep_start, wake_ts;
	struct sp_rp_item *it;
	size_t n, cap;
	struct sp_rp_th *hnext;
};

struct sp_rp_lk {
	uint64_t addr;
	uint8_t kind;         /* enum sp_sim_lock_kind */
	bool used;            /* a replayed thread takes it */
};

#define HBITS 12

struct sp_replay {
	struct sp_replay_opts o;
	struct sp_rp_th **th;
	size_t nth, capth;
	struct sp_rp_th *hash[1u << HBITS];
	struct sp_rp_lk *lk;
	size_t nlk, caplk;
	struct sp_rp_tok *tk;
	size_t ntk, captk;
	uint64_t merge_ns;
	bool have_root, root_superpass;
	uint64_t first, last;
	/* the longest step forward between two events, and the event after
	 * it (1-based): where a trace too long to replay jumped */
	uint64_t gap_ns, gap_from, gap_event;
	struct sp_replay_counts c;
	struct sp_hist hist;
	uint64_t frames, janky;
	/* the critical threads' lock waits replayed, on kernel locks and on
	 * futexes: who applies their fast tracks (sp_waiter_boost) */
	uint64_t crit_kwaits, crit_fwaits;
	int32_t cur[64];      /* the thread each CPU runs, as far as seen */
	struct json_object *tasks; /* the workload's tasks, as they are built */
	char *json;           /* the workload's text, once finished */
	struct sp_sim_workload *w;
	int nomem;
};

/* The simulator's reader keeps a duration or delay in microseconds in an
 * int, as rt-app does. */
#define SP_RP_US_MAX 2147483647ull

/* An output op before JSON: run/sleep in ns, lock/unlock, timer. */
enum { OP_RUN, OP_SLEEP, OP_TIMER, OP_LOCK, OP_UNLOCK, OP_RUNTIME, OP_PREEMPT };
struct sp_rp_op {
	uint8_t type, hold;
	int32_t lock;
	uint64_t ns;
};

struct sp_rp_prog {
	struct sp_rp_op *op;
	size_t n, cap;
	int nomem;
};

/* A lock or unlock of a real lock placed in a thread's items: before item
 * @at, or @off ns into it when it is CPU time. */
struct sp_rp_ins {
	size_t at;
	uint64_t off;
	uint32_t seq;  /* order at one position: releases first, then the lock
			  released last is taken first (nesting) */
	uint8_t type;  /* OP_LOCK, OP_UNLOCK */
	uint8_t hold;
	int32_t lock;
};

/* What the wait at item @i becomes: the first wait of an acquisition (a
 * lock), a retry merged into it (nothing), or a sleep (its waker is not
 * replayed). */
enum { WAIT_NONE, WAIT_LOCK, WAIT_SLEEP };

/* A lock a periodic critical thread takes at the same point of its frames:
 * the CPU time from the frame's start at which it asks for it, and how far
 * from it a wait of a frame still is that point. */
struct sp_rp_point {
	int32_t lock;
	uint64_t off, tol;
	size_t frame;         /* (while collecting) the frame of the wait */
};

static inline int sp_rp_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* sp_replay_feed.c: the end of the trace closes what @t had open. */
void sp_rp_close_thread(struct sp_replay *r, struct sp_rp_th *t);

/* sp_replay_waits.c */
void sp_rp_mark_tokens(struct sp_replay *r, const struct sp_rp_th *t);
int sp_rp_phase_wakes(struct sp_replay *r, struct sp_rp_th *t);
void sp_rp_rwsem_wakes(struct sp_replay *r, struct sp_rp_th *t);
size_t sp_rp_release_end(const struct sp_rp_th *t, size_t i, int32_t lock);
int sp_rp_wait_op(const struct sp_replay *r, const struct sp_rp_th *t, size_t i);
uint8_t sp_rp_side_of(const struct sp_replay *r, const struct sp_rp_th *t, int32_t lock);
bool sp_rp_cs_boundary(const struct sp_replay *r, const struct sp_rp_item *x, int32_t lock);
bool sp_rp_cs_end(const struct sp_replay *r, const struct sp_rp_th *t, const int8_t *wop, size_t j,
		  int32_t lock);

/* sp_replay_holds.c */
ssize_t sp_rp_place_holds(struct sp_replay *r, const struct sp_rp_th *t, const int8_t *wop,
			  struct sp_rp_ins **out);

/* sp_replay_frames.c */
uint64_t sp_rp_period_of(const struct sp_rp_th *t, size_t *grid, bool *keep);
uint64_t sp_rp_frame_norm(uint64_t off, uint64_t frame, uint64_t median);
uint64_t sp_rp_frame_denorm(uint64_t noff, uint64_t frame, uint64_t median);
void sp_rp_frame_totals(const struct sp_rp_th *t, size_t grid, uint64_t *ft);
uint64_t sp_rp_frame_median(const struct sp_rp_th *t, size_t grid, const uint64_t *ft);
size_t sp_rp_frame_points(const struct sp_rp_th *t, size_t grid, const uint64_t *ft, uint64_t fcpu,
			  struct sp_rp_point **out);
bool sp_rp_seen_pt(const struct sp_rp_th *t, const uint64_t *foff, size_t i,
		   const struct sp_rp_point *pt);

/* sp_replay_prog.c */
void sp_rp_build_prog(struct sp_replay *r, struct sp_rp_th *t, struct sp_rp_prog *p,
		      uint64_t *delay, uint64_t period, size_t grid, bool keep);
bool sp_rp_sleep_loop(const struct sp_rp_th *t);
bool sp_rp_starved(const struct sp_replay *r, const struct sp_rp_th *t);
bool sp_rp_is_critical(const struct sp_replay *r, const struct sp_rp_th *t);

/* sp_replay_workload.c */
void sp_rp_workload_task(struct sp_replay *r, const struct sp_rp_th *t, const struct sp_rp_prog *p,
			 uint64_t delay, bool loop);
int sp_rp_workload_text(struct sp_replay *r);

#endif
