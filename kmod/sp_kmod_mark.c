// SPDX-License-Identifier: GPL-2.0-only
/*
 * Marking threads critical, and processes as a whole (their later threads
 * too): the core's critical flag, sp_critical_map and sp_marked_procs
 * change only here.
 */
#include <linux/sched/signal.h>
#include <linux/spinlock.h>

#include "sp_kmod_mark.h"
#include "sp_kmod_state.h"

/* Serialises (un)marking a tid from a write and from the fork probe, so
 * that the core's critical flag and sp_critical_map agree. Both callers
 * are in task context; the probe has preemption disabled. */
static DEFINE_SPINLOCK(sp_mark_lock);

int sp_mark_tid(pid_t tid, bool on)
{
	int ret;

	spin_lock(&sp_mark_lock);
	ret = sp_task_register(sp_core, tid);
	if (ret < 0 && ret != -EEXIST)
		goto out;
	ret = sp_task_set_critical(sp_core, tid, on);
	if (ret)
		goto out;
	if (on && !test_and_set_bit(tid, sp_critical_map))
		atomic_inc(&sp_nr_critical);
	else if (!on && test_and_clear_bit(tid, sp_critical_map))
		atomic_dec(&sp_nr_critical);
out:
	spin_unlock(&sp_mark_lock);
	return ret;
}

int sp_mark_tids(const pid_t *tids, unsigned int n, bool on)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = sp_mark_tid(tids[i], on);
		if (ret)
			return ret;
	}
	return 0;
}

unsigned int sp_mark_threads_of(struct task_struct *leader, bool on, pid_t *tids,
				unsigned int max)
{
	struct task_struct *th;
	unsigned int n = 0;

	/* The process bit first, then the thread list: the fork probe runs
	 * after a new thread joined the list and reads the bit. This barrier
	 * pairs with the smp_mb() in sp_mark_new_thread(). */
	if (on)
		set_bit(leader->pid, sp_marked_procs);
	else
		clear_bit(leader->pid, sp_marked_procs);
	smp_mb__after_atomic();
	for_each_thread(leader, th)
		if (n < max)
			tids[n++] = th->pid;
	return n;
}

/*
 * Runs in the parent after copy_process() put the child in its thread
 * group's list, preemption disabled (the probe rules). Only threads of a
 * process marked as a whole are marked; a child process (its own thread
 * group) never inherits the mark, and its pid, if a marked process of that
 * number is gone, drops the stale process bit.
 */
int sp_mark_new_thread(struct task_struct *child)
{
	pid_t tid = child->pid, tgid = child->tgid;
	int ret;

	if (!sp_tid_ok(tid) || !sp_tid_ok(tgid))
		return 0;
	if (tid == tgid) {
		if (test_bit(tid, sp_marked_procs))
			clear_bit(tid, sp_marked_procs);
		return 0;
	}
	if (!test_bit(tgid, sp_marked_procs))
		return 0;
	ret = sp_mark_tid(tid, true);
	if (ret)
		return ret < 0 ? ret : -EINVAL;
	/* Pairs with smp_mb__after_atomic() in sp_mark_threads_of(): if the
	 * bit is still set, an unmarking walk comes after our mark and
	 * unmarks this thread; if not, we undo it ourselves. */
	smp_mb();
	if (!test_bit(tgid, sp_marked_procs)) {
		sp_mark_tid(tid, false);
		return 0;
	}
	return 1;
}

void sp_mark_task_exit(struct task_struct *p)
{
	pid_t tid = p->pid;

	if (test_bit(tid, sp_critical_map) && test_and_clear_bit(tid, sp_critical_map))
		atomic_dec(&sp_nr_critical);
	/* The last thread of a marked process (do_exit counts signal->live
	 * down before this tracepoint; the fork probe clears a reused
	 * leader's bit as well). */
	if (sp_tid_ok(p->tgid) && test_bit(p->tgid, sp_marked_procs) &&
	    !atomic_read(&p->signal->live))
		clear_bit(p->tgid, sp_marked_procs);
}
