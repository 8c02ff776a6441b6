/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * superpass portable core: blocker graph, bounded reader tracker,
 * fast-track policy and statistics.
 *
 * The core is event driven. A host (userspace runtime, kernel module,
 * simulator) reports lock events; the core keeps the blocker graph, decides
 * who gets a fast track and calls the host's actuator. The core never talks
 * to the OS: time comes from host->now_ns, actions go out through
 * host->fast_track / host->restore.
 *
 * Every function returns 0 (or a count) on success and a negative errno
 * value on failure. Every event function is safe to call from many threads
 * at once and never sleeps; none allocates after sp_core_create().
 *
 * This header is shared with the kernel build, which supplies its own
 * <stdint.h>/<stddef.h>/<stdbool.h> (lib/os/kernel/include).
 */
#ifndef SUPERPASS_CORE_H
#define SUPERPASS_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <superpass/hist.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A thread id (Linux tid). 0 is never a valid task. */
typedef uint64_t sp_tid_t;
/* A lock's identity, normally its address. 0 is never a valid lock. */
typedef uint64_t sp_lock_key_t;

/* How a lock is held or wanted. */
enum sp_hold {
	SP_HOLD_EXCL = 0,   /* mutex, or rwlock write side */
	SP_HOLD_SHARED = 1, /* rwlock read side */
};

enum sp_lock_kind {
	SP_LOCK_UNKNOWN = 0,
	SP_LOCK_MUTEX = 1,
	SP_LOCK_RWLOCK = 2,
};

/* Hard limits; sp_config values above them are rejected with -EINVAL. */
#define SP_MAX_READERS_PER_LOCK 64u
#define SP_MAX_WAITERS_PER_LOCK 64u
#define SP_MAX_DEPTH 16u

struct sp_config {
	uint32_t max_tasks;         /* task table capacity (default 1024) */
	uint32_t max_locks;         /* lock table capacity (default 4096) */
	uint32_t max_grants;        /* concurrent fast-track grants (default 256) */
	uint32_t readers_per_lock;  /* K tracked readers per lock (default 4, 1..64) */
	uint32_t waiters_per_lock;  /* tracked waiters per lock (default 8, 1..64) */
	uint32_t max_depth;         /* chain walk depth bound (default 8, 1..16) */
	uint64_t budget_ns;         /* per-grant time budget (default 20 ms; 0 = none) */
	uint64_t throttle_window_ns;/* throttle window (default 100 ms; 0 = no throttle) */
	uint32_t throttle_permille; /* max boosted share of a window (default 500, 1..1000) */
};

/* What the host does for the core. fast_track and restore are called with
 * no core lock held, one call at a time per task and in order (a restore
 * never overtakes the fast track it undoes). They may run in a kernel probe
 * with preemption off: there they must queue the work, not sleep. They may
 * query the core or report events (a target that runs at once on its new
 * priority and releases its lock is fine), except sp_task_exit of the task
 * being actuated, which waits (a bounded time) for that very call. */
struct sp_host_ops {
	uint64_t (*now_ns)(void *ctx);                  /* monotonic clock, required */
	int (*fast_track)(void *ctx, sp_tid_t tid);     /* required */
	int (*restore)(void *ctx, sp_tid_t tid);        /* required */
	/* Optional: a cycle was found walking from @waiter at @lock. */
	void (*on_deadlock)(void *ctx, sp_tid_t waiter, sp_lock_key_t lock);
};

struct sp_core;

/* Counters. "now" values are gauges, the rest only grow. */
struct sp_stats {
	uint64_t acquires;          /* acquire events (both modes) */
	uint64_t releases;          /* release events (both modes) */
	uint64_t blocks;            /* block events, every task */
	uint64_t unblocks;          /* unblock events, every task */
	uint64_t blockings;         /* blockings of critical tasks (histogrammed) */
	uint64_t grants;            /* grants created */
	uint64_t grant_dups;        /* grant requests already covered by a grant */
	uint64_t grants_refused;    /* refused: target throttled or exiting, or this
				       wait spent a grant's budget on it less than
				       a budget ago */
	uint64_t fast_tracks;       /* actuator fast_track calls (ref 0 -> 1) */
	uint64_t restores;          /* actuator restore calls (ref 1 -> 0) */
	uint64_t actuator_errors;   /* actuator calls that returned < 0 */
	uint64_t ends_release;      /* grants ended: target released the lock */
	uint64_t ends_unblock;      /* grants ended: waiter stopped waiting */
	uint64_t ends_exit;         /* grants ended: task exit / lock destroyed */
	uint64_t expiries;          /* grants ended: budget used up */
	uint64_t throttles;         /* targets throttled (all their grants ended) */
	uint64_t ends_throttle;     /* grants ended by a throttle */
	uint64_t deadlocks;         /* cycles seen by two walks in a row (events can
				       arrive late: a suspicion, not a proof) */
	uint64_t depth_limited;     /* walks cut by max_depth */
	uint64_t task_overflows;    /* task table full */
	uint64_t lock_overflows;    /* lock table full */
	uint64_t grant_overflows;   /* grant table full */
	uint64_t reader_overflows;  /* readers beyond K (untracked) */
	uint64_t waiter_overflows;  /* waiters beyond the waiter slots */
	uint64_t stale_events;      /* release/unblock not matching the graph */
	uint64_t tasks_now;         /* live task entries */
	uint64_t locks_now;         /* live lock entries */
	uint64_t grants_now;        /* active grants */
	uint64_t boosted_now;       /* tasks currently fast-tracked */
};

void sp_config_default(struct sp_config *cfg);
/* 0 if @cfg is usable, else -EINVAL (and nothing else is touched). */
int sp_config_check(const struct sp_config *cfg);

/* Allocates every table (the only allocation). -EINVAL on a bad config or
 * missing ops, -ENOMEM. */
int sp_core_create(const struct sp_config *cfg, const struct sp_host_ops *ops,
		   void *ctx, struct sp_core **out);
/* Restores every boosted task, then frees. No event may run concurrently. */
void sp_core_destroy(struct sp_core *core);
const struct sp_config *sp_core_config(const struct sp_core *core);

/* ---- tasks ---- */
/* Creates the task entry if needed; -EINVAL for tid 0, -ENOSPC if full. */
int sp_task_register(struct sp_core *core, sp_tid_t tid);
int sp_task_set_critical(struct sp_core *core, sp_tid_t tid, bool critical);
/* 1 critical, 0 not, -ENOENT unknown. */
int sp_task_is_critical(struct sp_core *core, sp_tid_t tid);
/* The task is gone: its grants end, the locks it held are released, and
 * it is restored before this returns (its tid may be reused at once). */
int sp_task_exit(struct sp_core *core, sp_tid_t tid);
/* 1 if the policy currently wants @tid fast-tracked, 0 if not, -ENOENT. A
 * host that queues actuator work can apply this state when the work runs. */
int sp_task_boosted(struct sp_core *core, sp_tid_t tid);

/* ---- lock events (unknown tasks and locks are created on first sight) ---- */
int sp_lock_declare(struct sp_core *core, sp_lock_key_t lock, enum sp_lock_kind kind);
int sp_lock_acquired(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock,
		     enum sp_hold hold);
int sp_lock_released(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock,
		     enum sp_hold hold);
/* @tid started waiting for @lock. Reporting the same wait again is cheap:
 * the core keeps the start time and walks the graph again, picking up an
 * owner that changed (or that took the lock in the very instant the wait
 * began, which the barrier-free acquire path can miss). sp_core_tick does
 * the same for critical tasks' long waits. */
int sp_lock_blocked(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock,
		    enum sp_hold hold);
/* @tid stopped waiting for @lock: it got it (@acquired, and the host also
 * reports sp_lock_acquired) or gave up (timeout, signal, error). */
int sp_lock_unblocked(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock,
		      bool acquired);
/* The lock no longer exists: its grants end and its entry is freed. */
int sp_lock_destroyed(struct sp_core *core, sp_lock_key_t lock);
/* The host read @owner from the lock itself (glibc's __owner, a kernel
 * mutex's owner word). Records it if the core's owner of @lock still is
 * @expected (so a stale read can be taken back with expected = owner,
 * owner = 0), without counting an acquire. 0 if recorded, -EAGAIN if the
 * core's owner was not @expected, -ENOSPC if the lock table is full. */
int sp_lock_owner_hint(struct sp_core *core, sp_lock_key_t lock, sp_tid_t expected,
		       sp_tid_t owner);
/* The task currently recorded as exclusive owner of @lock (0 if none). */
int sp_lock_owner(struct sp_core *core, sp_lock_key_t lock, sp_tid_t *owner);
/* Copies up to @cap tracked readers; returns how many were copied and puts
 * the number of untracked (overflowed) readers in *@untracked if non-NULL. */
int sp_lock_readers(struct sp_core *core, sp_lock_key_t lock, sp_tid_t *out,
		    uint32_t cap, uint32_t *untracked);

/* ---- graph queries ---- */
struct sp_walk_result {
	uint32_t nr;           /* blockers found (<= cap) */
	uint32_t missed;       /* blockers beyond cap */
	bool deadlock;         /* a cycle was met */
	bool depth_limited;    /* max_depth cut the walk */
};
/* Every task that blocks @tid, directly or through chains, without
 * duplicates. -ENOENT if @tid is unknown, 0 with nr == 0 if not blocked. */
int sp_graph_blockers(struct sp_core *core, sp_tid_t tid, sp_tid_t *out,
		      uint32_t cap, struct sp_walk_result *res);

/* ---- time ---- */
/* Enforces budgets and throttles at host->now_ns(), and walks again from
 * every critical task that has waited over 1 ms (a throttle or budget
 * cool-down may have ended, an owner may have changed unseen). Never
 * sleeps. Returns the grants it ended. */
int sp_core_tick(struct sp_core *core);
/* true while ticks have work: grants active or critical tasks waiting.
 * Hosts tick every millisecond or so while this holds. */
bool sp_core_needs_tick(struct sp_core *core);
/* Makes table slots of exited tasks and destroyed locks reusable after an
 * RCU grace period. Sleeps: call from a context that may block (a host
 * thread or kthread), never from an event path or inside a read-side
 * section. Returns the slots this call reclaimed; call it from one thread
 * (a concurrent call may return 0 while the other waits). */
int sp_core_reclaim(struct sp_core *core);

/* ---- statistics ---- */
void sp_core_stats(struct sp_core *core, struct sp_stats *out);
/* Blocking durations (ns) of critical tasks, from block to unblock. */
void sp_core_blocking_hist(struct sp_core *core, struct sp_hist *out);

#ifdef __cplusplus
}
#endif

#endif /* SUPERPASS_CORE_H */
