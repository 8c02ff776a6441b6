// SPDX-License-Identifier: GPL-2.0-only
/*
 * Marking threads critical, and processes as a whole (their later threads
 * too): the core's critical flag, sp_critical_map and sp_marked_procs
 * change only here.
 *
 * A write marks whole or not at all. Under sp_mark_lock it sets the
 * process bit, collects the threads, registers each in the core's task
 * table and only then marks them; when the table is full, the entries it
 * created are removed again, the bit is cleared and nothing is marked.
 * Holding the lock from the bit to the last mark keeps the fork probe out:
 * a thread created meanwhile is marked by the probe once the lock is free,
 * and its own re-check of the bit undoes that mark if the write failed.
 * The exit probe takes the lock too: a thread is marked only if it was not
 * exiting (PF_EXITING is set before sched_process_exit) when the writer
 * held the lock, so no mark outlives its thread's exit probe.
 */
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "sp_kmod_mark.h"
#include "sp_kmod_params.h"
#include "sp_kmod_state.h"

/* Serialises (un)marking from a write and from the fork and exit probes,
 * so that the core's critical flag and sp_critical_map agree. Every caller
 * is in task context; the probes have preemption disabled. */
static DEFINE_SPINLOCK(sp_mark_lock);

/* What one write did to a tid, so that a failure can take it back. */
#define SP_MARK_DID_SET 0x1      /* the tid was not marked; this write marked it */
#define SP_MARK_DID_CREATE 0x2   /* the core had no entry; this write made it */

struct sp_mark_batch {
	unsigned int n;
	pid_t tid[SP_MARK_MAX];
	u8 did[SP_MARK_MAX];
};

/* Why a mark was refused, for the log line written after the locks. */
struct sp_mark_why {
	unsigned int threads;         /* 0: more than SP_MARK_MAX, counted late */
	char comm[TASK_COMM_LEN];
};

static void sp_mark_bit_locked(pid_t tid, bool on)
{
	if (on && !test_and_set_bit(tid, sp_critical_map))
		atomic_inc(&sp_nr_critical);
	else if (!on && test_and_clear_bit(tid, sp_critical_map))
		atomic_dec(&sp_nr_critical);
}

int sp_mark_tid(pid_t tid, bool on)
{
	int ret = 0;

	spin_lock(&sp_mark_lock);
	/* Unmarking needs no entry: a tid the core does not know is not
	 * critical there. */
	if (on)
		ret = sp_task_register(sp_core, tid);
	if (!ret)
		ret = sp_task_set_critical(sp_core, tid, on);
	if (!ret)
		sp_mark_bit_locked(tid, on);
	spin_unlock(&sp_mark_lock);
	return ret;
}

/* Takes back what a failed write did to the tids of @b. */
static void sp_mark_undo_locked(const struct sp_mark_batch *b)
{
	unsigned int i;

	for (i = 0; i < b->n; i++) {
		if (b->did[i] & SP_MARK_DID_SET) {
			sp_task_set_critical(sp_core, b->tid[i], false);
			sp_mark_bit_locked(b->tid[i], false);
		}
		/* A live thread whose entry only this write wanted; should the
		 * detector have started using it meanwhile, it reports the wait
		 * again (the core reconciles from the lock word). */
		if (b->did[i] & SP_MARK_DID_CREATE)
			sp_task_exit(sp_core, b->tid[i]);
	}
}

/* Every tid of @b in the core's table first, then each marked: all or
 * nothing. */
static int sp_mark_commit_locked(struct sp_mark_batch *b)
{
	unsigned int i;
	int ret;

	memset(b->did, 0, sizeof(b->did));
	for (i = 0; i < b->n; i++) {
		bool known = sp_task_is_critical(sp_core, b->tid[i]) >= 0;

		ret = sp_task_register(sp_core, b->tid[i]);
		if (ret)
			goto undo;
		if (!known)
			b->did[i] |= SP_MARK_DID_CREATE;
	}
	for (i = 0; i < b->n; i++) {
		bool was = test_bit(b->tid[i], sp_critical_map);

		/* Cannot fail on a registered entry (exits wait for our lock);
		 * checked all the same. */
		ret = sp_task_set_critical(sp_core, b->tid[i], true);
		if (ret)
			goto undo;
		if (!was) {
			sp_mark_bit_locked(b->tid[i], true);
			b->did[i] |= SP_MARK_DID_SET;
		}
	}
	return 0;
undo:
	sp_mark_undo_locked(b);
	return ret;
}

static bool sp_mark_exiting(struct task_struct *t)
{
	return READ_ONCE(t->flags) & PF_EXITING;
}

/* Under rcu_read_lock: collects and marks @t's live threads (or @t alone
 * if it is not a process) under sp_mark_lock. */
static int sp_mark_collect_commit(struct task_struct *t, struct sp_mark_batch *b,
			     struct sp_mark_why *why)
{
	bool whole = thread_group_leader(t), had_bit = false;
	struct task_struct *th;
	int ret = 0;

	b->n = 0;
	spin_lock(&sp_mark_lock);
	if (whole) {
		had_bit = test_and_set_bit(t->pid, sp_marked_procs);
		/* Pairs with the smp_mb() in sp_mark_new_thread(): a thread
		 * this walk misses sees the bit in the fork probe. */
		smp_mb__after_atomic();
		for_each_thread(t, th) {
			if (sp_mark_exiting(th) || !sp_tid_ok(th->pid))
				continue;
			if (b->n == SP_MARK_MAX) {
				/* More threads than the count before the lock. */
				why->threads = 0;
				ret = -E2BIG;
				break;
			}
			b->tid[b->n++] = th->pid;
		}
	} else if (!sp_mark_exiting(t)) {
		b->tid[b->n++] = t->pid;
	}
	if (!ret && !b->n)
		ret = -ESRCH;  /* every thread is exiting */
	if (!ret)
		ret = sp_mark_commit_locked(b);
	if (ret && whole && !had_bit)
		clear_bit(t->pid, sp_marked_procs);
	spin_unlock(&sp_mark_lock);
	if (ret == -ENOSPC)
		why->threads = b->n;
	return ret;
}

static int sp_mark_on(pid_t nr, struct sp_mark_batch *b)
{
	struct sp_mark_why why = { 0 };
	struct task_struct *t;
	int ret;

	rcu_read_lock();
	t = pid_task(find_vpid(nr), PIDTYPE_PID);
	if (!t || !sp_tid_ok(t->pid)) {
		rcu_read_unlock();
		pr_warn("superpass: critical: no such thread %d\n", nr);
		return -ESRCH;
	}
	get_task_comm(why.comm, t);
	if (!sp_param_allow_kthreads && ((t->flags & PF_KTHREAD) || is_global_init(t))) {
		bool kthread = t->flags & PF_KTHREAD;

		rcu_read_unlock();
		pr_warn("superpass: critical: %d (%s) is %s: not marked (load superpass.ko with allow_kthreads=1 to allow it)\n",
			nr, why.comm, kthread ? "a kernel thread" : "init, pid 1");
		return -EINVAL;
	}
	why.threads = thread_group_leader(t) ? get_nr_threads(t) : 1;
	if (why.threads > SP_MARK_MAX)
		ret = -E2BIG;  /* refused before anything is touched */
	else
		ret = sp_mark_collect_commit(t, b, &why);
	rcu_read_unlock();

	switch (ret) {
	case 0:
		break;
	case -ESRCH:
		pr_warn("superpass: critical: %d (%s) is exiting: not marked\n", nr, why.comm);
		break;
	case -E2BIG:
		if (why.threads)
			pr_warn("superpass: critical: process %d (%s) has %u threads, more than the %u one write marks: nothing marked\n",
				nr, why.comm, why.threads, SP_MARK_MAX);
		else
			pr_warn("superpass: critical: process %d (%s) has more than the %u threads one write marks: nothing marked\n",
				nr, why.comm, SP_MARK_MAX);
		break;
	case -ENOSPC:
		pr_warn("superpass: critical: the task table (max_tasks=%u) cannot take the %u thread(s) of %d (%s): nothing marked (load superpass.ko with a larger max_tasks)\n",
			sp_param_max_tasks, why.threads, nr, why.comm);
		break;
	default:
		pr_warn("superpass: critical: cannot mark %d (%s): error %d, nothing marked\n",
			nr, why.comm, ret);
	}
	return ret;
}

/* Never refused: a process that grew past SP_MARK_MAX threads after it
 * was marked (the fork probe marks them) must still be unmarked. */
static int sp_mark_off(pid_t nr)
{
	struct task_struct *t, *th;

	rcu_read_lock();
	t = pid_task(find_vpid(nr), PIDTYPE_PID);
	if (!t || !sp_tid_ok(t->pid)) {
		rcu_read_unlock();
		pr_warn("superpass: critical: no such thread %d\n", nr);
		return -ESRCH;
	}
	if (thread_group_leader(t)) {
		/* The bit first, then the threads: see sp_mark_new_thread(). */
		clear_bit(t->pid, sp_marked_procs);
		smp_mb__after_atomic();
		for_each_thread(t, th)
			if (sp_tid_ok(th->pid))
				sp_mark_tid(th->pid, false);
	} else {
		sp_mark_tid(t->pid, false);
	}
	rcu_read_unlock();
	return 0;
}

int sp_mark_request(pid_t nr, bool on)
{
	struct sp_mark_batch *b;
	int ret;

	if (!on)
		return sp_mark_off(nr);
	b = kmalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	ret = sp_mark_on(nr, b);
	kfree(b);
	return ret;
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
	/* The child is in the thread list; a marking walk that sets the bit
	 * after this sees it there (pairs with its smp_mb__after_atomic()). */
	smp_mb();
	if (!test_bit(tgid, sp_marked_procs))
		return 0;
	ret = sp_mark_tid(tid, true);
	if (ret)
		return ret < 0 ? ret : -EINVAL;
	/* Pairs with smp_mb__after_atomic() in sp_mark_off() and with the
	 * failed write's clear under the lock: if the bit is still set, an
	 * unmarking walk comes after our mark and unmarks this thread; if
	 * not, we undo it ourselves. */
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

	/* Under the lock: a write that holds it either saw PF_EXITING or
	 * marked before this clears. */
	spin_lock(&sp_mark_lock);
	if (test_bit(tid, sp_critical_map))
		sp_mark_bit_locked(tid, false);
	/* The last thread of a marked process (do_exit counts signal->live
	 * down before this tracepoint; the fork probe clears a reused
	 * leader's bit as well). */
	if (sp_tid_ok(p->tgid) && test_bit(p->tgid, sp_marked_procs) &&
	    !atomic_read(&p->signal->live))
		clear_bit(p->tgid, sp_marked_procs);
	spin_unlock(&sp_mark_lock);
}
