/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Marking threads critical: in the core and in sp_critical_map together,
 * for /proc/superpass/critical and for the fork and exit probes.
 */
#ifndef SP_KMOD_MARK_H
#define SP_KMOD_MARK_H

#include <linux/sched.h>
#include <linux/types.h>

/* Marks or unmarks one global tid. Task context; does not sleep (the fork
 * probe calls it with preemption disabled). 0 or a negative errno. */
int sp_mark_tid(pid_t tid, bool on);
/* sp_mark_tid() for each of @tids, up to the first error. */
int sp_mark_tids(const pid_t *tids, unsigned int n, bool on);
/* Under rcu_read_lock: sets or clears @leader's process bit, then puts up
 * to @max of its threads' tids in @tids for sp_mark_tid(); returns how
 * many. A thread created meanwhile is in the list or seen by the fork
 * probe (sp_mark_new_thread). */
unsigned int sp_mark_threads_of(struct task_struct *leader, bool on, pid_t *tids,
				unsigned int max);
/* Fork probe: marks @child if it is a new thread of a marked process.
 * 1 marked, 0 not, or the negative errno of a mark that failed. */
int sp_mark_new_thread(struct task_struct *child);
/* Exit probe: drops @p's mark, and its process bit if it is the last
 * thread (the numbers may come back as someone else). */
void sp_mark_task_exit(struct task_struct *p);

#endif /* SP_KMOD_MARK_H */
