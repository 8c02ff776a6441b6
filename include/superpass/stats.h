/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The core's statistics, listed once.
 *
 * SP_STATS_FIELDS(X) calls X(name, kind, help) for every field of struct
 * sp_stats, in order. The struct, the core's counters, the runtime's JSON,
 * the kernel module's /proc/superpass/stats and the bench all expand this
 * list, so a field added here shows up in every output (and one that is
 * missing from an output cannot happen by omission).
 *
 * kind: SP_STAT_COUNT only grows; SP_STAT_GAUGE is a value "now".
 */
#ifndef SUPERPASS_STATS_H
#define SUPERPASS_STATS_H

#include <stdint.h>

#define SP_STAT_COUNT 0
#define SP_STAT_GAUGE 1

#define SP_STATS_FIELDS(X)                                                              \
	X(acquires, SP_STAT_COUNT, "acquire events (both modes)")                       \
	X(releases, SP_STAT_COUNT, "release events (both modes)")                       \
	X(blocks, SP_STAT_COUNT, "block events, every task")                            \
	X(unblocks, SP_STAT_COUNT, "unblock events, every task")                        \
	X(blockings, SP_STAT_COUNT, "blockings of critical tasks (histogrammed)")       \
	X(owner_updates, SP_STAT_COUNT,                                                 \
	  "owners taken from the lock word a block event carried")                      \
	X(grants, SP_STAT_COUNT, "grants created")                                      \
	X(grant_dups, SP_STAT_COUNT, "grant requests already covered by a grant")       \
	X(grants_refused, SP_STAT_COUNT,                                                \
	  "refused: target throttled or exiting, or its budget for this wait spent")    \
	X(fast_tracks, SP_STAT_COUNT, "actuator fast_track calls (ref 0 -> 1)")         \
	X(restores, SP_STAT_COUNT, "actuator restore calls (ref 1 -> 0)")               \
	X(actuator_errors, SP_STAT_COUNT, "actuator calls that returned < 0")           \
	X(ends_release, SP_STAT_COUNT, "grants ended: target released the lock")        \
	X(ends_unblock, SP_STAT_COUNT, "grants ended: waiter stopped waiting")          \
	X(ends_exit, SP_STAT_COUNT, "grants ended: task exit / lock destroyed")         \
	X(expiries, SP_STAT_COUNT, "grants ended: budget used up")                      \
	X(throttles, SP_STAT_COUNT, "targets throttled (all their grants ended)")       \
	X(ends_throttle, SP_STAT_COUNT, "grants ended by a throttle")                   \
	X(deadlocks, SP_STAT_COUNT,                                                     \
	  "cycles of waits that held in one consistent view (through lock words: "      \
	  "for a second), once per wait")                                               \
	X(depth_limited, SP_STAT_COUNT, "walks cut by max_depth or 256 blockers")       \
	X(task_overflows, SP_STAT_COUNT, "task table full")                             \
	X(lock_overflows, SP_STAT_COUNT, "lock table full")                             \
	X(grant_overflows, SP_STAT_COUNT, "grant table full")                           \
	X(reader_overflows, SP_STAT_COUNT, "readers beyond K (untracked)")              \
	X(waiter_overflows, SP_STAT_COUNT, "waiters beyond the waiter slots")           \
	X(stale_events, SP_STAT_COUNT, "release/unblock not matching the graph")        \
	X(bad_events, SP_STAT_COUNT, "events rejected as malformed (-EINVAL)")          \
	X(tasks_now, SP_STAT_GAUGE, "live task entries")                                \
	X(locks_now, SP_STAT_GAUGE, "live lock entries")                                \
	X(grants_now, SP_STAT_GAUGE, "active grants")                                   \
	X(boosted_now, SP_STAT_GAUGE, "tasks currently fast-tracked")

struct sp_stats {
#define SP_STATS_MEMBER(name, kind, help) uint64_t name;
	SP_STATS_FIELDS(SP_STATS_MEMBER)
#undef SP_STATS_MEMBER
};

#endif /* SUPERPASS_STATS_H */
