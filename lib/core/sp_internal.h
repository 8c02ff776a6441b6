/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Internal state of the portable core, shared by its files.
 *
 * Concurrency model. Entries are found through sp_table (lock-free lookup
 * under RCU) and refer to each other only by key (tid, lock address), never
 * by pointer, so a retired entry is simply not found again. Graph fields
 * (owner, blocked_on, tracker slots) are single atomic words written by the
 * task the event is about. The boost state of a task (grant refcount,
 * actuator state, throttle accounting) is the one place that needs mutual
 * exclusion: it sits under that task's own sp_os_lock_t, taken for grants
 * and restores only, never on an uncontended acquire or release.
 *
 * Memory ordering. The core is written for the weakest model it runs on
 * (arm64, where plain and relaxed accesses may be reordered with each
 * other in every direction), never for x86's TSO, and every ordering it
 * needs is one of three patterns, each commented where it is used:
 *  - message passing: data written with relaxed stores, then published by
 *    a store-release that a reader's load-acquire (or successful cmpxchg)
 *    reads: table keys (sp_table.c), grant states (sp_grant.c), l->owner
 *    (sp_events.c), t->applying;
 *  - store buffering: "I publish X, then look at Y" against "I change Y,
 *    then look for X", with a full barrier on both sides: a grant's
 *    publish against a release or unblock (sp_grant_create), a block
 *    against a release (sp_lock_blocked_owner);
 *  - a lock: boost state under t->boost_lock, whose acquire and release
 *    order it, and the applying hand-off that rides on it (sp_task_apply).
 * A successful sp_atomic_cmpxchg or an sp_atomic_xchg is a full barrier;
 * a failed cmpxchg orders nothing (sp_os.h), so no argument below leans
 * on one. tests/core/test_litmus_grant.c races the grant protocol.
 */
#ifndef SP_INTERNAL_H
#define SP_INTERNAL_H

#include "sp_os.h"
#include "sp_table.h"
#include "sp_tracker.h"

#include <superpass/core.h>

struct sp_task {
	sp_atomic64_t critical;    /* 0 or 1 */
	sp_atomic64_t blocked_on;  /* lock key, 0 when running */
	sp_atomic64_t blocked_hold;/* enum sp_hold of that wait */
	sp_atomic64_t blocked_word;/* 1: that wait's report carried a lock word */
	sp_atomic64_t block_seq;   /* +1 at every block and unblock */
	sp_atomic64_t block_start; /* now_ns() at the last block */
	sp_atomic64_t refs;        /* active grants targeting this task */
	/* Event counts, folded into the core at exit. The locks a task holds
	 * are recorded on the locks (owner, reader slots), not here: a held
	 * count kept per task would cost two more locked instructions per
	 * acquire+release. */
	sp_atomic64_t acquires;
	sp_atomic64_t releases;
	/* 1 once a lock word named this task owner (sp_lock_set_owner) or it
	 * became a futex lock's candidate: such a task may be recorded on
	 * locks with no acquire counted, which its exit must clear all the
	 * same. */
	sp_atomic64_t word_owned;
	sp_atomic64_t gen;         /* +1 each time the slot gets a new task */
	sp_atomic64_t applying;    /* a thread is bringing the host in line */
	/* Deadlock suspicion (sp_deadlock.c): the cycle last seen from this
	 * task's wait, since when, and the wait (block_seq) last reported. */
	sp_atomic64_t dl_sig;
	sp_atomic64_t dl_since;
	sp_atomic64_t dl_told;
	sp_os_lock_t boost_lock;   /* protects the fields below */
	bool dead;                 /* exiting: refuse new grants */
	bool want_boost;           /* the policy wants it fast-tracked */
	bool boosted;              /* the host was told so, successfully */
	/* The last grant whose budget ran out, so that the same wait cannot
	 * re-grant it by reporting itself again. */
	sp_tid_t spent_waiter;
	uint64_t spent_seq;
	sp_lock_key_t spent_lock;
	uint64_t spent_until;      /* cool-down: one budget off per budget on */
	uint64_t boost_start;
	uint64_t window_start;
	uint64_t window_used;
	uint64_t throttled_until;
};

struct sp_lock {
	sp_atomic64_t kind;        /* enum sp_lock_kind */
	sp_atomic64_t owner;       /* exclusive holder, 0 if none */
	sp_atomic64_t word_owner;  /* owner as last taken from a lock word (see
				      sp_lock_set_owner), 0 once an acquire
				      event named the owner */
	struct sp_tracker readers; /* SP_LOCK_FUTEX: the candidates */
	struct sp_tracker waiters;
	sp_atomic64_t cand_next;   /* SP_LOCK_FUTEX: the candidate slot to replace next */
};

/* A grant's state word: a generation above two state bits. The generation
 * changes each time the slot is claimed, so a scanner that read a grant's
 * fields can end it only if the slot still holds that same grant. */
enum sp_grant_state {
	SP_GRANT_FREE = 0,
	SP_GRANT_CLAIMING = 1,     /* being filled: invisible to enders */
	SP_GRANT_ACTIVE = 2,
	SP_GRANT_ENDING = 3,       /* one ender won; others skip it */
};
#define SP_GRANT_STATE_MASK 3ull

static inline enum sp_grant_state sp_grant_state_of(uint64_t word)
{
	return (enum sp_grant_state)(word & SP_GRANT_STATE_MASK);
}

struct sp_grant {
	sp_atomic64_t state;       /* generation << 2 | enum sp_grant_state */
	sp_atomic64_t waiter;
	sp_atomic64_t waiter_seq;  /* waiter's block_seq when granted */
	sp_atomic64_t via;
	sp_atomic64_t via_seq;
	sp_atomic64_t target;
	sp_atomic64_t target_ref;  /* gen << 32 | slot: survives the tid's exit */
	sp_atomic64_t lock;
	sp_atomic64_t start;
};

/* One counter per sp_stats field (include/superpass/stats.h); the gauges
 * tasks_now, locks_now and grants_now are read off the tables instead, and
 * their slots stay unused. */
enum sp_counter {
#define SP_COUNTER_ENUM(name, kind, help) SP_C_##name,
	SP_STATS_FIELDS(SP_COUNTER_ENUM)
#undef SP_COUNTER_ENUM
	SP_C_NR
};

/* Why a grant ends; selects the counter. */
enum sp_end_reason {
	SP_END_RELEASE = SP_C_ends_release,
	SP_END_UNBLOCK = SP_C_ends_unblock,
	SP_END_EXIT = SP_C_ends_exit,
	SP_END_EXPIRY = SP_C_expiries,
	SP_END_THROTTLE = SP_C_ends_throttle,
};

struct sp_core {
	struct sp_config cfg;
	struct sp_host_ops ops;
	void *ctx;

	struct sp_table task_index;
	struct sp_task *tasks;
	struct sp_table lock_index;
	struct sp_lock *locks;
	sp_atomic64_t *tracker_slots;  /* (K + waiter slots) per lock slot */

	struct sp_grant *grants;
	sp_atomic64_t grants_active;
	/* One past the highest grant slot ever claimed. Claims are first-fit,
	 * so scans stay short while few grants are in use at once. */
	sp_atomic64_t grant_hwm;

	/* Critical tasks waiting now: the tick refreshes their waits. */
	sp_atomic64_t critical_blocked;

	sp_atomic64_t counters[SP_C_NR];
	sp_atomic64_t *hist_buckets;   /* SP_HIST_BUCKETS, blocking durations */
	sp_atomic64_t hist_count, hist_sum, hist_min, hist_max;
};

static inline void sp_count(struct sp_core *core, enum sp_counter c)
{
	sp_atomic_add(&core->counters[c], 1);
}

static inline uint64_t sp_now(struct sp_core *core)
{
	return core->ops.now_ns(core->ctx);
}

/* ---- lookups (call inside sp_rcu_read_lock) ---- */
struct sp_task *sp_task_find(struct sp_core *core, sp_tid_t tid);
struct sp_task *sp_task_get(struct sp_core *core, sp_tid_t tid);   /* find or insert */
struct sp_lock *sp_lock_find(struct sp_core *core, sp_lock_key_t key);
struct sp_lock *sp_lock_get(struct sp_core *core, sp_lock_key_t key);

/* ---- graph walk (sp_graph_walk.c) ---- */
/* Called for every blocker met: @target holds @lock, which @via waits for. */
typedef void (*sp_walk_visit_fn)(struct sp_core *core, void *arg, sp_tid_t via,
				 sp_tid_t target, sp_lock_key_t lock);
struct sp_walk {
	sp_tid_t origin;          /* the delayed task; meeting it is a cycle */
	sp_walk_visit_fn visit;
	void *arg;
	uint32_t nodes;           /* blockers visited, bounded per walk */
	bool deadlock;
	bool depth_limited;
	uint32_t guessed;         /* futex candidates on the current path */
	uint32_t depth;
	sp_lock_key_t path[SP_MAX_DEPTH];
};
/* Visits every task that blocks @via (which waits for @lock), then what
 * blocks those, up to max_depth. */
void sp_graph_walk(struct sp_core *core, struct sp_walk *w, sp_tid_t via, sp_lock_key_t lock);
bool sp_lock_held_by(struct sp_core *core, sp_lock_key_t key, sp_tid_t tid);

/* ---- deadlock suspicion (sp_deadlock.c) ---- */
/* A walk from @tid (= @t), waiting for @lock, met a cycle: count and
 * report it if it holds in a consistent view of trustworthy edges. */
void sp_deadlock_check(struct sp_core *core, sp_tid_t tid, struct sp_task *t,
		       sp_lock_key_t lock);

/* ---- policy (sp_policy.c) ---- */
/* @via started waiting for @lock: fast-track what blocks it on behalf of
 * every critical task it delays. */
void sp_policy_on_block(struct sp_core *core, sp_tid_t via, struct sp_task *t,
			sp_lock_key_t lock);
/* @holder just took @lock, which has tracked waiters: grant to it on
 * behalf of each of them but @except (0: none; a waiter that walks from
 * itself anyway). */
void sp_policy_on_acquire(struct sp_core *core, sp_tid_t holder, struct sp_lock *l,
			  sp_lock_key_t lock, sp_tid_t except);

/* ---- grants (sp_grant.c) ---- */
/* "@target holds @lock, which @via waits for, delaying critical @waiter";
 * the seqs are the waiters' block_seq at the time. 0, -EBUSY (refused:
 * throttled, exiting or budget spent for this wait), -ENOSPC. */
int sp_grant_create(struct sp_core *core, sp_tid_t waiter, uint64_t waiter_seq, sp_tid_t via,
		    uint64_t via_seq, sp_tid_t target, sp_lock_key_t lock);
/* End every active grant matching; 0 fields match anything. Returns the
 * number ended. */
struct sp_grant_match {
	sp_tid_t target;
	sp_lock_key_t lock;
	sp_tid_t waiter_or_via;   /* matches waiter or via */
	sp_tid_t any_role;        /* matches waiter, via or target */
};
uint32_t sp_grants_end_matching(struct sp_core *core, const struct sp_grant_match *m,
				enum sp_end_reason why);
/* Ends @g if its state word still is @word (ACTIVE). */
bool sp_grant_end(struct sp_core *core, struct sp_grant *g, uint64_t word,
		  enum sp_end_reason why);
bool sp_grant_valid(struct sp_core *core, struct sp_grant *g, enum sp_end_reason *why);
/* Slots to scan: grants live below this index. */
static inline uint32_t sp_grant_scan_limit(struct sp_core *core)
{
	return sp_atomic_load(&core->grants_active) ? (uint32_t)sp_atomic_load(&core->grant_hwm)
						    : 0;
}
/* The task a grant targets, or NULL if that task's slot moved on. */
struct sp_task *sp_grant_target(struct sp_core *core, struct sp_grant *g);
/* Throttle accounting, under t->boost_lock. */
void sp_throttle_roll(struct sp_core *core, struct sp_task *t, uint64_t now);
uint64_t sp_throttle_used(struct sp_task *t, uint64_t now);
/* Calls the host until its state for @t matches want_boost. Never called
 * with boost_lock held: an actuator call can reschedule (a FIFO target
 * preempts its granter), and nobody may wait on a lock meanwhile. */
void sp_task_apply(struct sp_core *core, struct sp_task *t, sp_tid_t tid);
/* Ends the fast track of @t now if it is boosted (exit path). */
void sp_task_force_restore(struct sp_core *core, struct sp_task *t, sp_tid_t tid);

/* Starts (or ends, @start = 0) the histogrammed, refreshed part of @t's
 * wait: keeps critical_blocked in step with block_start. */
void sp_task_set_block_start(struct sp_core *core, struct sp_task *t, uint64_t start);

/* ---- statistics (sp_stats.c) ---- */
void sp_stats_record_blocking(struct sp_core *core, uint64_t ns);
/* The boost invariant, checked at destruction (sp_core_destroy) from a
 * snapshot: fast_tracks == restores + boosted_now, and boosted_now == 0
 * once every grant ended. Reported (SP_REPORT), never asserted: a broken
 * count is a bug to hear about, not a reason to stop a program or a
 * module's unload. Returns how many reports it made. */
int sp_core_report_boosts(const struct sp_stats *st);

#endif /* SP_INTERNAL_H */
