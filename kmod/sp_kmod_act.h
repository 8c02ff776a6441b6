/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Applying fast tracks: SCHED_FIFO through sched_setattr_nocheck(), and
 * back to exactly the attributes the task had. Only the worker thread
 * calls these (they sleep), one call at a time.
 */
#ifndef SP_KMOD_ACT_H
#define SP_KMOD_ACT_H

#include <linux/types.h>

struct sp_act_stats {
	u64 boosts;          /* sched_setattr to SCHED_FIFO done */
	u64 restores;        /* saved attributes put back */
	u64 skipped;         /* not boosted: RT/DL task, gone, or table full */
	u64 errors;          /* sched_setattr_nocheck failed */
	u64 rescans;         /* every boosted task reconciled (queue overflow) */
	u64 active;          /* tasks boosted right now */
};

int sp_act_init(void);
void sp_act_free(void);
/* Makes @tid's scheduling match what sp_task_fast_tracked() says now. */
void sp_act_reconcile(pid_t tid);
/* The same for every task we boosted and every task the core wants. */
void sp_act_rescan(void);
/* Puts back every boost still applied (module exit, the worker gone). */
void sp_act_restore_all(void);
unsigned int sp_act_active(void);
void sp_act_get_stats(struct sp_act_stats *out);

#endif /* SP_KMOD_ACT_H */
