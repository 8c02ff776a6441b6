/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel host of the core: its clock, its actuation queue, and the
 * wakeups of the worker thread that drains it (sp_kmod_worker.c). Every
 * call here is safe in any probe (no sleep, no allocation) unless it says
 * otherwise.
 */
#ifndef SP_KMOD_HOST_H
#define SP_KMOD_HOST_H

#include <linux/sched.h>
#include <linux/types.h>

#include <superpass/core.h>

/* now_ns, fast_track, restore. */
extern const struct sp_host_ops sp_kmod_host_ops;

struct sp_host_queue_stats {
	u64 pushes;      /* tids the core's callbacks queued */
	u64 dups;        /* ... that were queued already */
	u64 overflows;   /* queue full: a rescan reconciled instead */
};

/* Task context. */
int sp_host_init(void);
void sp_host_free(void);

/* The worker runs its loop once more, soon. */
void sp_host_kick(void);
/* A critical task began waiting: wakes a worker that sleeps without
 * ticking, so that the tick starts now. */
void sp_host_kick_idle(void);

/* ---- the worker's side ---- */
/* The thread the kicks wake, or NULL. */
void sp_host_set_thread(struct task_struct *t);
/* The worker sleeps for a tick (true) or until kicked. */
void sp_host_set_ticking(bool ticking);
bool sp_host_kicked(void);
/* Clears the kick; a full barrier, so a push after it kicks again. */
void sp_host_take_kick(void);
/* The next queued tid, or 0. */
sp_tid_t sp_host_pop(void);
/* Whether the queue overflowed since the last call (then every task must
 * be reconciled). */
bool sp_host_take_rescan(void);
/* Module exit, the thread stopped: no more kicks; waits for a pending
 * one (task context). */
void sp_host_stop_kicks(void);
void sp_host_get_queue_stats(struct sp_host_queue_stats *out);

#endif /* SP_KMOD_HOST_H */
