/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * superpass portable core: blocker graph, bounded reader tracker,
 * fast-track policy and statistics.
 *
 * The core is event driven and has three hosts: the userspace runtime
 * (lib/hosts/runtime, with its LD_PRELOAD interposer in lib/hosts/preload), the kernel
 * module (kmod/) and the offline host (lib/hosts/sim). Every host keeps the same
 * contract with it:
 *
 *  - Events. Each thing the host sees (a lock taken, released, waited for,
 *    a wait over, a lock destroyed, a task gone or made critical) is one
 *    call: sp_core_event() with a struct sp_event, or the named function of
 *    that event type (the same code; the named ones skip the dispatch on
 *    the uncontended path). A block event carries the owner the host read
 *    from the lock word, if it could; the core reconciles it with its own
 *    record (sp_lock_set_owner in sp_events.c), the host never does. The
 *    same record is what a trace of core events stores.
 *  - Actuation. host->fast_track / host->restore only tell the host that
 *    the policy's wish for a task changed. The host queues the tid and,
 *    when its worker runs, applies what sp_task_fast_tracked() says then (a
 *    wish that flipped twice meanwhile costs nothing). lib/core/sp_actq.h
 *    is the queue every host shares; the offline host's recording actuator
 *    is include/superpass/rec_host.h.
 *  - Time. The host's worker calls sp_core_tick() about every millisecond
 *    while sp_core_needs_tick() holds, and sp_core_reclaim() now and then
 *    from a context that may sleep. host->now_ns is the only clock.
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
#include <superpass/stats.h>

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
	/* A futex word that names no owner (GLib's GMutex, Rust's std locks,
	 * a hand-written 0/1/2 lock): only its waits and wakes are seen, so
	 * its holder is guessed. Its candidates are the last K tasks
	 * (readers_per_lock) seen waking it (SP_EV_RELEASED: the wake that
	 * follows an unlock) or returning from a wait on it (SP_EV_UNBLOCKED
	 * with SP_EVF_ACQUIRED, or SP_EV_ACQUIRED), the newest replacing the
	 * oldest. A waiter's grants go to the candidates that do not wait for
	 * the same word; a wake ends every grant on it (the word is free). A
	 * cycle through a guess is never reported as a deadlock. Declare it
	 * with sp_lock_declare before its first event. */
	SP_LOCK_FUTEX = 3,
};

/* Hard limits; sp_config values above them are rejected with -EINVAL. */
#define SP_MAX_READERS_PER_LOCK 64u
#define SP_MAX_WAITERS_PER_LOCK 64u
#define SP_MAX_DEPTH 16u
#define SP_MAX_WAIT_RAISED 16u /* wait_raise_max */
/* The longest a wait mechanism's bound may be (handoff_wait_ns,
 * wait_raise_hold_ns): one second. */
#define SP_MAX_WAIT_BOUND_NS 1000000000ull
/* The shortest fair slice Linux takes (sched_setattr's sched_runtime for a
 * fair thread, 6.12+: clamped to 0.1..100 ms). */
#define SP_MIN_WAIT_SLICE_NS 100000ull

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
	/* The critical waiter's own mechanisms (sp_core_wait_plan,
	 * sp_core_handoff_wanted below); a host without the primitive has
	 * none of them. */
	uint64_t handoff_wait_ns;   /* a taker yields a mutex a critical task waits for
				       and waits at most this long (default 4 ms; 0 = no
				       hand-off; at most SP_MAX_WAIT_BOUND_NS) */
	uint64_t wait_raise_hold_ns;/* a raised waiter whose wait took the lock stays
				       raised until it releases it, at most this long
				       (default 4 ms; 0 = lowered when the wait ends) */
	uint32_t wait_raise_max;    /* critical waiters raised at once (default 4,
				       0..SP_MAX_WAIT_RAISED; 0 = never raised) */
	uint64_t wait_slice_ns;     /* the fair slice of a critical waiter not raised
				       (default 100 us; 0 = its own; else
				       SP_MIN_WAIT_SLICE_NS..100 ms) */
};

/* What the host does for the core. fast_track and restore say that the
 * policy now wants @tid fast-tracked, or no longer does; they are called
 * with no core lock held, one call at a time per task and in order, and
 * may run in a kernel probe with preemption off. A host queues the tid and
 * returns (see the contract above); a negative return counts as an
 * actuator error and, for fast_track, drops the wish. */
struct sp_host_ops {
	uint64_t (*now_ns)(void *ctx);                  /* monotonic clock, required */
	int (*fast_track)(void *ctx, sp_tid_t tid);     /* required */
	int (*restore)(void *ctx, sp_tid_t tid);        /* required */
	/* Optional: a cycle was found walking from @waiter at @lock. */
	void (*on_deadlock)(void *ctx, sp_tid_t waiter, sp_lock_key_t lock);
};

struct sp_core;


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
int sp_task_fast_tracked(struct sp_core *core, sp_tid_t tid);

/* ---- events (unknown tasks and locks are created on first sight) ---- */
enum sp_event_type {
	SP_EV_ACQUIRED = 1,  /* tid took lock in hold */
	SP_EV_RELEASED = 2,  /* tid let go of lock in hold */
	SP_EV_BLOCKED = 3,   /* tid waits for lock in hold; owner: see SP_EVF_OWNER */
	SP_EV_UNBLOCKED = 4, /* tid stopped waiting; SP_EVF_ACQUIRED: it got the lock */
	SP_EV_DESTROYED = 5, /* lock no longer exists */
	SP_EV_DECLARED = 6,  /* lock is of kind (before or instead of other events) */
	SP_EV_EXIT = 7,      /* task tid is gone */
	SP_EV_CRITICAL = 8,  /* task tid becomes critical (SP_EVF_ON) or not */
	SP_EV_NR
};
#define SP_EVF_OWNER 0x1u    /* BLOCKED: owner was read from the lock word (0: free) */
#define SP_EVF_ACQUIRED 0x2u /* UNBLOCKED: the wait ended with the lock taken */
#define SP_EVF_ON 0x4u       /* CRITICAL: on */
#define SP_EVF_ALL 0x7u

/* One event as a host saw it. Fields an event type does not use are 0. */
struct sp_event {
	uint16_t type;       /* enum sp_event_type */
	uint8_t hold;        /* enum sp_hold: ACQUIRED, RELEASED, BLOCKED */
	uint8_t kind;        /* enum sp_lock_kind: DECLARED, or BLOCKED's hint */
	uint32_t flags;      /* SP_EVF_* */
	sp_tid_t tid;
	sp_lock_key_t lock;
	sp_tid_t owner;      /* BLOCKED with SP_EVF_OWNER: the lock word's owner */
};

/* Feeds one event to the core. What the named function of that type
 * returns; -EINVAL (counted in bad_events) for an unknown type, a flag the
 * type does not take, a zero tid or lock where one is needed, or a bad
 * hold or kind. */
int sp_core_event(struct sp_core *core, const struct sp_event *ev);
/* "acquired", "blocked", ...; NULL for an unknown type. */
const char *sp_event_name(unsigned int type);

int sp_lock_declare(struct sp_core *core, sp_lock_key_t lock, enum sp_lock_kind kind);
int sp_lock_acquired(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock,
		     enum sp_hold hold);
int sp_lock_released(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock,
		     enum sp_hold hold);
/* @tid started waiting for @lock. @owner is the exclusive owner the host
 * read from the lock word (only with @owner_known; 0 then means the word
 * said "free"). The core takes it when its own record is empty or was
 * itself taken from a lock word, so an acquire it never heard of (a
 * trylock preempted before its report, a lock taken on a path the host
 * does not see) still has a holder to fast-track; an owner the core heard
 * acquire the lock wins over a word that may be stale.
 * Reporting the same wait again is cheap: the core keeps the start time
 * and walks the graph again, picking up an owner that changed. A host that
 * can re-read the lock word reports the wait again when the word changes;
 * sp_core_tick refreshes critical tasks' long waits in any case. */
int sp_lock_blocked_owner(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock,
			  enum sp_hold hold, bool owner_known, sp_tid_t owner);
/* The same without an owner read. */
int sp_lock_blocked(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock,
		    enum sp_hold hold);
/* @tid stopped waiting for @lock: it got it (@acquired: the core records
 * the acquire too, in the hold the wait was reported with; the host does
 * not report it again) or gave up (timeout, signal, error). If the wait
 * was reported with a lock word, the acquire counts as taken from a word:
 * a later word may replace it (a host that reads words may never see the
 * release). */
int sp_lock_unblocked(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock,
		      bool acquired);
/* The lock no longer exists: its grants end and its entry is freed. */
int sp_lock_destroyed(struct sp_core *core, sp_lock_key_t lock);
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

/* ---- the critical waiter's own mechanisms ----
 * Besides fast-tracking holders (the actuator above), a host may offer
 * primitives that act on the waiting critical thread itself or on a thread
 * that just took its lock. What to do with them is decided here, from the
 * graph and sp_config, so every host that has a primitive runs the same
 * rule; the host only carries it out:
 *
 *  primitive                        runtime  simulator  kernel module
 *  raise self to the fast tracks'   yes      yes        no (the waiter
 *    priority, lower self                               sleeps in the kernel)
 *  set the wait's fair slice        yes      yes        no
 *  yield a lock it has just taken   yes      yes        not needed: a kernel
 *    and sleep until a wait ends                        mutex hands itself to
 *                                                       a waiter that slept
 *                                                       (MUTEX_FLAG_HANDOFF)
 *
 * The module's waiters block inside the kernel, where superpass runs only
 * as a probe: it cannot change the waiter's attributes on its way to sleep
 * and need not hand a mutex over. */
#define SP_WAIT_CAN_RAISE 0x1u /* the waiter can raise itself (SCHED_FIFO actuation,
				  a waiter in a fair policy) */
#define SP_WAIT_CAN_SLICE 0x2u /* the waiter can shorten its fair slice */

/* What a critical waiter does with itself for one wait. */
struct sp_wait_plan {
	bool raise;              /* raise itself to the fast tracks' priority for the
				    wait, before its holders are fast-tracked */
	uint32_t raise_max;      /* ... unless this many threads are raised already */
	uint64_t raise_hold_ns;  /* the wait took the lock: stay raised until its
				    release, at most this long (0: lower at the wait's
				    end; also where nothing bounds it) */
	uint64_t slice_ns;       /* not raised: wait with this fair slice (0: none) */
};
/* @tid starts waiting; @can: the SP_WAIT_CAN_* primitives it has now.
 * Fills *@out and returns 1 if it should do something (a critical task), 0
 * (*@out all zero) if not, -EINVAL. Lock-free; never sleeps. */
int sp_core_wait_plan(struct sp_core *core, sp_tid_t tid, uint32_t can,
		      struct sp_wait_plan *out);
/* @taker has just taken the mutex @lock in a lock call (never a trylock:
 * that must not fail on a lock that was free), holding @taker_holds other
 * locks the host knows of. Returns how long (ns, > 0) it should give the
 * lock back and sleep, until the wait of the critical task blocked on
 * @lock ends or that long passed, before waiting for @lock like anybody
 * else without asking again; 0: keep it. Only a taker that is not
 * critical and holds nothing (it may be a holder somebody needs next), and
 * only for a lock whose owner is known (not an rwlock, not a futex word).
 * Lock-free; never sleeps. */
uint64_t sp_core_handoff_wanted(struct sp_core *core, sp_tid_t taker, sp_lock_key_t lock,
				uint32_t taker_holds);

/* ---- statistics ---- */
void sp_core_stats(struct sp_core *core, struct sp_stats *out);
/* Blocking durations (ns) of critical tasks, from block to unblock. */
void sp_core_blocking_hist(struct sp_core *core, struct sp_hist *out);

#ifdef __cplusplus
}
#endif

#endif /* SUPERPASS_CORE_H */
