// SPDX-License-Identifier: GPL-2.0-only
/*
 * Actuator: the core's fast_track/restore callbacks and the kthread that
 * carries them out.
 *
 * The callbacks run inside the core's raw spinlocks, often from a lock
 * tracepoint with interrupts off and an rwsem's wait_lock held. They only
 * flip a bit, push the tid on a fixed ring and queue an irq_work. The
 * irq_work (hard irq, after the caller re-enables interrupts) wakes the
 * kthread: wake_up_process() takes pi_lock and a runqueue lock, which we do
 * not want to nest inside a sleeping lock's wait_lock, and irq_work_queue()
 * is safe in any context. If the ring is full we set "rescan" instead of
 * losing the tid: the kthread then reconciles every task.
 *
 * The kthread never trusts the order of queued requests: for each tid it asks
 * the core (sp_task_boosted) what it wants now and makes the task match, so
 * a boost and its restore queued back to back cancel out. It runs at
 * SCHED_FIFO fifo_prio + 1 so that it can preempt the tasks it boosted.
 */
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/hrtimer.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/timekeeping.h>
#include <uapi/linux/sched/types.h>

#include "sp_kmod.h"

#define SP_RING_SIZE 512u       /* power of two */
#define SP_MAX_BOOSTS 256u      /* tasks boosted at once */
#define SP_TICK_NS (1 * NSEC_PER_MSEC)
#define SP_RECLAIM_NS (1000 * NSEC_PER_MSEC)
#define SP_REFRESH_NS (10 * NSEC_PER_MSEC)
#define SP_WATCH_IDLE_NS (5000 * NSEC_PER_MSEC)  /* then a lock is forgotten */

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
	raw_spinlock_t lock;         /* ring and flags; a leaf lock */
	pid_t ring[SP_RING_SIZE];
	u32 head, tail;
	bool rescan;
	bool dying;                  /* module exit: callbacks do nothing */
	struct irq_work iw;
	struct task_struct *thread;
	struct sp_boost *boosts;     /* kthread only */
	unsigned int nr_active;      /* kthread only */
	unsigned int logged;
	unsigned long *queued;       /* tid is in the ring (or a rescan is due) */
	struct sp_act_stats st;      /* written by the kthread, read racy */
	atomic64_t ring_overflows;
} sp_act;

static u64 sp_act_now(void *ctx)
{
	/* NMI-safe and lock-free: fine inside any probe. */
	return ktime_get_mono_fast_ns();
}

static void sp_act_queue(pid_t tid)
{
	unsigned long flags;
	bool kick = false;

	/* Already queued: the kthread reconciles with the core's state at the
	 * time it gets there, so one entry per tid is enough. This keeps the
	 * ring from filling when readers come and go at page-fault rate. */
	if (test_and_set_bit(tid, sp_act.queued))
		return;
	raw_spin_lock_irqsave(&sp_act.lock, flags);
	if (!sp_act.dying) {
		if (sp_act.head - sp_act.tail < SP_RING_SIZE) {
			sp_act.ring[sp_act.head++ % SP_RING_SIZE] = tid;
		} else {
			sp_act.rescan = true;
			atomic64_inc(&sp_act.ring_overflows);
		}
		kick = true;
	}
	raw_spin_unlock_irqrestore(&sp_act.lock, flags);
	if (kick)
		irq_work_queue(&sp_act.iw);
}

static int sp_act_fast_track(void *ctx, sp_tid_t tid)
{
	if (!sp_tid_ok((pid_t)tid))
		return -EINVAL;
	set_bit(tid, sp_boosted_map);
	sp_act_queue((pid_t)tid);
	return 0;
}

static int sp_act_restore(void *ctx, sp_tid_t tid)
{
	if (!sp_tid_ok((pid_t)tid))
		return -EINVAL;
	clear_bit(tid, sp_boosted_map);
	sp_act_queue((pid_t)tid);
	return 0;
}

const struct sp_host_ops sp_act_ops = {
	.now_ns = sp_act_now,
	.fast_track = sp_act_fast_track,
	.restore = sp_act_restore,
};

void sp_act_kick(void)
{
	if (!READ_ONCE(sp_act.dying))
		irq_work_queue(&sp_act.iw);
}

static void sp_act_irq_work(struct irq_work *iw)
{
	struct task_struct *t = READ_ONCE(sp_act.thread);

	if (t)
		wake_up_process(t);
}

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
	sp_act.nr_active--;
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
	sp_act.nr_active++;
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

/* Make @tid's scheduling match what the core wants now. */
static void sp_act_reconcile(pid_t tid)
{
	struct sp_boost *b = sp_boost_find(tid);
	struct task_struct *t = sp_task_get_by_tid(tid);
	bool want = t && sp_core && sp_task_boosted(sp_core, tid) == 1;

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

static void sp_act_rescan(void)
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

/* Drains the ring; returns true if anything was there. */
static bool sp_act_drain(void)
{
	bool any = false, rescan;
	unsigned long flags;
	pid_t tid;

	for (;;) {
		raw_spin_lock_irqsave(&sp_act.lock, flags);
		rescan = sp_act.rescan;
		sp_act.rescan = false;
		if (rescan) {
			/* The rescan covers whatever the ring holds. */
			sp_act.tail = sp_act.head;
			tid = 0;
		} else if (sp_act.tail != sp_act.head) {
			tid = sp_act.ring[sp_act.tail++ % SP_RING_SIZE];
		} else {
			tid = 0;
		}
		raw_spin_unlock_irqrestore(&sp_act.lock, flags);
		if (rescan) {
			bitmap_zero(sp_act.queued, SP_TID_LIMIT);
			sp_act_rescan();
		} else if (tid) {
			/* Clear first: a change after this point queues it again. */
			clear_bit(tid, sp_act.queued);
			smp_mb__after_atomic();
			sp_act_reconcile(tid);
		}
		else
			return any;
		any = true;
	}
}

static bool sp_act_pending(void)
{
	return READ_ONCE(sp_act.head) != READ_ONCE(sp_act.tail) || READ_ONCE(sp_act.rescan);
}

static void sp_act_set_own_prio(unsigned int prio)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = prio,
	};

	if (sched_setattr_nocheck(current, &attr))
		pr_warn("superpass: cannot make the actuator thread SCHED_FIFO %u\n", prio);
}

static int sp_act_thread(void *unused)
{
	u64 last_tick = 0, last_refresh = 0, last_reclaim = ktime_get_ns();
	unsigned int waiting;
	unsigned int my_prio = 0;

	while (!kthread_should_stop()) {
		unsigned int want_prio = READ_ONCE(sp_fifo_prio) + 1;
		ktime_t timeout;
		u64 now;

		if (want_prio != my_prio) {
			sp_act_set_own_prio(want_prio);
			my_prio = want_prio;
		}
		/* Budgets and throttles only matter while something is boosted
		 * or waiting; otherwise sleep until queued work or the next
		 * reclaim. */
		waiting = sp_detect_nr_waiting();
		timeout = ns_to_ktime(sp_act.nr_active || waiting ? SP_TICK_NS : SP_RECLAIM_NS);
		set_current_state(TASK_INTERRUPTIBLE);
		if (!sp_act_pending() && !kthread_should_stop())
			schedule_hrtimeout_range(&timeout, 100 * NSEC_PER_USEC, HRTIMER_MODE_REL);
		__set_current_state(TASK_RUNNING);

		sp_act_drain();
		now = ktime_get_ns();
		if (sp_act.nr_active && now - last_tick >= SP_TICK_NS) {
			sp_core_tick(sp_core);  /* may queue restores: drained below */
			sp_act.st.ticks++;
			last_tick = now;
			sp_act_drain();
		}
		if (waiting && now - last_refresh >= SP_REFRESH_NS) {
			sp_detect_refresh(SP_REFRESH_NS);
			last_refresh = now;
			sp_act_drain();
		}
		if (sp_param_readers) {
			/* Hooks armed only while an rwsem is watched. */
			unsigned int watched = sp_detect_expire(SP_WATCH_IDLE_NS);

			sp_readers_arm(watched && READ_ONCE(sp_readers_on));
		}
		if (now - last_reclaim >= SP_RECLAIM_NS) {
			int n = sp_core_reclaim(sp_core);

			if (n > 0)
				sp_act.st.reclaimed += n;
			last_reclaim = now;
		}
	}
	return 0;
}


int sp_act_init(void)
{
	raw_spin_lock_init(&sp_act.lock);
	init_irq_work(&sp_act.iw, sp_act_irq_work);
	sp_act.boosts = kcalloc(SP_MAX_BOOSTS, sizeof(*sp_act.boosts), GFP_KERNEL);
	sp_act.queued = vzalloc(BITS_TO_LONGS(SP_TID_LIMIT) * sizeof(unsigned long));
	if (!sp_act.boosts || !sp_act.queued) {
		sp_act_free();
		return -ENOMEM;
	}
	return 0;
}

int sp_act_start(void)
{
	struct task_struct *t = kthread_create(sp_act_thread, NULL, "superpass");

	if (IS_ERR(t))
		return PTR_ERR(t);
	get_task_struct(t);
	WRITE_ONCE(sp_act.thread, t);
	wake_up_process(t);
	return 0;
}

void sp_act_stop(void)
{
	unsigned long flags;
	unsigned int i;

	/* No more queueing: the probes are gone, and the core's destroy
	 * path would otherwise queue restores nobody will run. */
	raw_spin_lock_irqsave(&sp_act.lock, flags);
	sp_act.dying = true;
	raw_spin_unlock_irqrestore(&sp_act.lock, flags);
	irq_work_sync(&sp_act.iw);
	if (sp_act.thread) {
		kthread_stop(sp_act.thread);
		put_task_struct(sp_act.thread);
		WRITE_ONCE(sp_act.thread, NULL);
	}
	/* The kthread is gone: we own the boost table now. */
	for (i = 0; i < SP_MAX_BOOSTS; i++)
		if (sp_act.boosts[i].tid)
			sp_boost_undo(&sp_act.boosts[i]);
}

void sp_act_free(void)
{
	kfree(sp_act.boosts);
	vfree(sp_act.queued);
	sp_act.boosts = NULL;
	sp_act.queued = NULL;
}

void sp_act_get_stats(struct sp_act_stats *out)
{
	*out = sp_act.st;
	out->ring_overflows = atomic64_read(&sp_act.ring_overflows);
	out->active = READ_ONCE(sp_act.nr_active);
}
