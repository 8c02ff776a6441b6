/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel host of the core (its clock and its actuation queue) and the
 * worker kthread that serves it, as lib/hosts/runtime's worker does for the
 * userspace host: it drains the queue (sp_kmod_act.c applies), ticks the
 * core every millisecond while sp_core_needs_tick(), re-reports waits
 * whose lock word changed unseen, arms the reader hooks while an rwsem is
 * watched, forgets idle locks and reclaims now and then.
 */
#ifndef SP_KMOD_WORKER_H
#define SP_KMOD_WORKER_H

#include <linux/types.h>

#include <superpass/core.h>

/* now_ns, fast_track, restore: safe in any probe (no sleep, no alloc). */
extern const struct sp_host_ops sp_worker_host_ops;

struct sp_worker_stats {
	u64 ticks;             /* sp_core_tick calls */
	u64 wakeups;           /* loop iterations */
	u64 reclaimed;         /* table slots sp_core_reclaim made reusable */
	u64 queue_pushes;      /* tids the core's callbacks queued */
	u64 queue_dups;        /* ... that were queued already */
	u64 queue_overflows;   /* queue full: a rescan reconciled instead */
};

int sp_worker_init(void);
int sp_worker_start(void);
/* Stops the thread; the core's callbacks only queue from then on. */
void sp_worker_stop(void);
void sp_worker_free(void);
/* Any context: the worker runs its loop once more, soon. */
void sp_worker_kick(void);
/* Any context: a critical task began waiting; wakes a worker that sleeps
 * without ticking, so that the 1 ms tick starts now. */
void sp_worker_kick_idle(void);
void sp_worker_get_stats(struct sp_worker_stats *out);
/* Arms or disarms the reader hooks as wanted now (reader tracking on, and
 * a thread marked or an rwsem watched); sleeps: the thread, or a writer
 * of /proc/superpass that just marked a thread. */
void sp_worker_readers_sync(void);

#endif /* SP_KMOD_WORKER_H */
