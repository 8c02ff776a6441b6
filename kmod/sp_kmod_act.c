// SPDX-License-Identifier: GPL-2.0-only
/*
 * Actuator: carries out what the core wants for one tid.
 *
 * The core's fast_track/restore callbacks only queue the tid
 * (sp_kmod_host.c); the worker thread then calls sp_act_reconcile(),
 * which never trusts the order of those calls: it asks the core
 * (sp_task_fast_tracked) what it wants now and makes the task match, so a
 * boost and its restore queued back to back cost nothing.
 *
 * A fast track is SCHED_FIFO at fifo_prio with SCHED_FLAG_RESET_ON_FORK;
 * what the task had before is saved and put back exactly. Everything here
 * runs on the worker thread (sched_setattr_nocheck may sleep and must not
 * run in interrupt context), so the boost table needs no lock.
 */
#include <linux/pid.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <uapi/linux/sched/types.h>

#include "sp_kmod_act.h"
#include "sp_kmod_params.h"
#include "sp_kmod_state.h"

#define SP_MAX_BOOSTS 256u      /* tasks boosted at once */

/* What we changed, to put back exactly. */
struct sp_boost {
	pid_t tid;                   /* 0: free slot */
	struct task_struct *task;    /* referenced while boosted */
	unsigned int policy;
	int nice;
	unsigned int rt_priority;
	bool reset_on_fork;
	unsigned int prio;           /* the FIFO priority we set */
};

static struct {
	struct sp_boost *boosts;
	unsigned int nr_active;
	unsigned int logged;
	struct sp_act_stats st;      /* written by the worker, read racy */
} sp_act;

static struct sp_boost *sp_boost_find(pid_t tid)
{
	unsigned int i;

	for (i = 0; i < SP_MAX_BOOSTS; i++)
		if (sp_act.boosts[i].tid == tid)
			return &sp_act.boosts[i];
	return NULL;
}

static struct task_struct *sp_task_get_by_tid(pid_t tid)
{
	struct task_struct *t;

	rcu_read_lock();
	t = pid_task(find_pid_ns(tid, &init_pid_ns), PIDTYPE_PID);
	if (t)
		get_task_struct(t);
	rcu_read_unlock();
	return t;
}

static void sp_boost_drop(struct sp_boost *b)
{
	put_task_struct(b->task);
	memset(b, 0, sizeof(*b));
	WRITE_ONCE(sp_act.nr_active, sp_act.nr_active - 1);
}

static void sp_boost_apply(pid_t tid, struct task_struct *t)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		/* Children of a fast-tracked thread must not inherit FIFO. */
		.sched_flags = SCHED_FLAG_RESET_ON_FORK,
	};
	struct sp_boost *b;
	unsigned int policy = READ_ONCE(t->policy);
	int ret;

	/* RT and deadline tasks already run ahead of every fair task; never
	 * lower them, and leave exiting tasks alone. */
	if ((policy != SCHED_NORMAL && policy != SCHED_BATCH && policy != SCHED_IDLE) ||
	    (t->flags & PF_EXITING)) {
		sp_act.st.skipped++;
		return;
	}
	b = sp_boost_find(0);
	if (!b) {
		sp_act.st.skipped++;
		return;
	}
	attr.sched_priority = READ_ONCE(sp_fifo_prio);
	b->policy = policy;
	b->nice = task_nice(t);
	b->rt_priority = t->rt_priority;
	b->reset_on_fork = t->sched_reset_on_fork;
	b->prio = attr.sched_priority;
	ret = sched_setattr_nocheck(t, &attr);
	if (ret) {
		sp_act.st.errors++;
		memset(b, 0, sizeof(*b));
		return;
	}
	get_task_struct(t);
	b->task = t;
	b->tid = tid;
	WRITE_ONCE(sp_act.nr_active, sp_act.nr_active + 1);
	sp_act.st.boosts++;
	if (sp_act.logged < sp_param_log_boosts) {
		sp_act.logged++;
		pr_info("superpass: fast-track tid %d (%s)\n", tid, t->comm);
	}
}

static void sp_boost_undo(struct sp_boost *b)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = b->policy,
		.sched_nice = b->nice,
		.sched_priority = b->rt_priority,
		.sched_flags = b->reset_on_fork ? SCHED_FLAG_RESET_ON_FORK : 0,
	};
	struct task_struct *t = b->task;

	/* Someone (the task itself, an admin) changed the policy while it was
	 * boosted: their choice wins, ours is dropped. */
	if (READ_ONCE(t->policy) == SCHED_FIFO && t->rt_priority == b->prio &&
	    !(t->flags & PF_EXITING)) {
		if (sched_setattr_nocheck(t, &attr))
			sp_act.st.errors++;
		else
			sp_act.st.restores++;
	}
	sp_boost_drop(b);
}

void sp_act_reconcile(pid_t tid)
{
	struct sp_boost *b = sp_boost_find(tid);
	struct task_struct *t = sp_task_get_by_tid(tid);
	bool want = t && sp_core && sp_task_fast_tracked(sp_core, tid) == 1;

	if (b && b->task != t) {
		/* The boosted task died and its tid moved on: nothing to undo. */
		sp_boost_drop(b);
		b = NULL;
	}
	if (want && !b)
		sp_boost_apply(tid, t);
	else if (!want && b)
		sp_boost_undo(b);
	if (t)
		put_task_struct(t);
}

void sp_act_rescan(void)
{
	unsigned int i;
	unsigned long tid;

	sp_act.st.rescans++;
	for (i = 0; i < SP_MAX_BOOSTS; i++)
		if (sp_act.boosts[i].tid)
			sp_act_reconcile(sp_act.boosts[i].tid);
	for_each_set_bit(tid, sp_boosted_map, SP_TID_LIMIT) {
		sp_act_reconcile(tid);
		cond_resched();
	}
}

void sp_act_restore_all(void)
{
	unsigned int i;

	for (i = 0; i < SP_MAX_BOOSTS; i++)
		if (sp_act.boosts[i].tid)
			sp_boost_undo(&sp_act.boosts[i]);
}

int sp_act_init(void)
{
	sp_act.boosts = kcalloc(SP_MAX_BOOSTS, sizeof(*sp_act.boosts), GFP_KERNEL);
	return sp_act.boosts ? 0 : -ENOMEM;
}

void sp_act_free(void)
{
	kfree(sp_act.boosts);
	sp_act.boosts = NULL;
}

unsigned int sp_act_active(void)
{
	return READ_ONCE(sp_act.nr_active);
}

void sp_act_get_stats(struct sp_act_stats *out)
{
	*out = sp_act.st;
	out->active = READ_ONCE(sp_act.nr_active);
}
