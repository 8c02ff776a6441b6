/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The worker kthread that serves the kernel host (sp_kmod_host.c), as
 * lib/hosts/runtime's worker does for the userspace host: it drains the
 * actuation queue (sp_kmod_act.c applies), ticks the core while
 * sp_core_needs_tick(), has the detector re-report waits whose lock word
 * changed unseen, arms the reader hooks while an rwsem is watched, forgets
 * idle locks and reclaims now and then.
 */
#ifndef SP_KMOD_WORKER_H
#define SP_KMOD_WORKER_H

#include <linux/types.h>

struct sp_worker_stats {
	u64 ticks;             /* sp_core_tick calls */
	u64 wakeups;           /* loop iterations */
	u64 reclaimed;         /* table slots sp_core_reclaim made reusable */
};

void sp_worker_init(void);
int sp_worker_start(void);
/* Stops the thread; the core's callbacks only queue from then on. */
void sp_worker_stop(void);
void sp_worker_get_stats(struct sp_worker_stats *out);
/* Arms or disarms the reader hooks as wanted now (reader tracking on, and
 * a thread marked or an rwsem watched); sleeps: the thread, or a writer
 * of /proc/superpass that just marked a thread. */
void sp_worker_readers_sync(void);

#endif /* SP_KMOD_WORKER_H */
