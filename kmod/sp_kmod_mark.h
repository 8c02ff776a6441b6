/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Marking threads critical: in the core and in sp_critical_map together,
 * for /proc/superpass/critical and for the fork and exit probes.
 */
#ifndef SP_KMOD_MARK_H
#define SP_KMOD_MARK_H

#include <linux/sched.h>
#include <linux/types.h>

/* Threads one write may mark: a process with more is refused whole. */
#define SP_MARK_MAX 256u

/*
 * A write to /proc/superpass/critical: marks (@on) thread @nr of the
 * caller's pid namespace or, if it is a process, every thread it has and
 * creates later; whole or not at all. Unmarking a process unmarks all its
 * threads, however many. Task context, may sleep (allocates); logs why it
 * refused. 0, or -ESRCH (no such thread, or it is exiting), -EINVAL (a
 * kernel thread or init without allow_kthreads=1), -E2BIG (more than
 * SP_MARK_MAX threads), -ENOSPC (the core's task table is full), -ENOMEM.
 */
int sp_mark_request(pid_t nr, bool on);
/* Marks or unmarks one global tid. Task context; does not sleep (the fork
 * probe calls it with preemption disabled). 0 or a negative errno. */
int sp_mark_tid(pid_t tid, bool on);
/* Fork probe: marks @child if it is a new thread of a marked process.
 * 1 marked, 0 not, or the negative errno of a mark that failed. */
int sp_mark_new_thread(struct task_struct *child);
/* Exit probe: drops @p's mark, and its process bit if it is the last
 * thread (the numbers may come back as someone else). */
void sp_mark_task_exit(struct task_struct *p);

#endif /* SP_KMOD_MARK_H */
