// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel host of the core and its worker thread.
 *
 * Host side. The core calls fast_track/restore inside its raw spinlocks,
 * often from a lock tracepoint with interrupts off and an rwsem's
 * wait_lock held. The callbacks flip the tid's bit in sp_boosted_map (the
 * probes' filter), push the tid on the shared actuation queue
 * (lib/core/sp_actq.h: a raw spinlock taken with interrupts saved, no
 * allocation) and queue an irq_work. The irq_work (hard irq, after the
 * caller re-enables interrupts) wakes the thread: wake_up_process() takes
 * pi_lock and a runqueue lock, which must not nest inside a sleeping lock's
 * wait_lock, while irq_work_queue() is safe in any context.
 *
 * Worker side, one rule for every host (include/superpass/core.h): the
 * thread applies what sp_task_boosted() says for each queued tid (it
 * reconciles, it does not replay calls) and ticks the core every
 * millisecond while sp_core_needs_tick(), that is while grants are active
 * or a critical task waits. The tick also re-reads the owner word of each
 * reported wait and reports the wait again if the word changed: a kernel
 * mutex changes hands without an event we see (unlock and handoff emit
 * nothing). Then the reader hooks are armed or disarmed, idle locks are
 * forgotten and, once a second, table slots are reclaimed (that sleeps).
 * The hooks are armed while a thread is marked critical or an rwsem is
 * watched, and a write that marks a thread arms them before it returns
 * (sp_worker_readers_sync): arming is text patching, which under QEMU's
 * TCG took as long as a run's longest blocking (360-500 ms) when it was
 * left to the first contention, during which the thread could neither
 * apply nor end a grant, and the waiter an rwsem release woke went
 * unseen until it had run.
 * The thread runs at SCHED_FIFO fifo_prio + 1 so that it can preempt the
 * tasks it boosted and take their boost away.
 */
#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/timekeeping.h>
#include <uapi/linux/sched/types.h>

#include "sp_actq.h"
#include "sp_kmod.h"
#include "sp_kmod_act.h"
#include "sp_kmod_detect.h"
#include "sp_kmod_readers.h"
#include "sp_kmod_worker.h"

#define SP_QUEUE_SIZE 512u
#define SP_TICK_NS (1 * NSEC_PER_MSEC)
#define SP_TICK_SLACK_NS (100 * NSEC_PER_USEC)
#define SP_IDLE_NS (1000 * NSEC_PER_MSEC)          /* sleep when nothing ticks */
#define SP_RECLAIM_NS (1000 * NSEC_PER_MSEC)
#define SP_EXPIRE_NS (100 * NSEC_PER_MSEC)         /* how often idle locks are looked for */
#define SP_WATCH_IDLE_NS (5000 * NSEC_PER_MSEC)    /* then a lock is forgotten */

static struct {
	struct sp_actq q;
	struct irq_work iw;
	struct task_struct *thread;
	atomic_t kicked;             /* the loop must run again before sleeping */
	bool ticking;                /* the thread sleeps for a tick, not idle */
	bool dying;                  /* module exit: no more irq_work */
	struct mutex arm_mutex;      /* armed, and arming */
	bool armed;                  /* reader hooks armed */
	struct sp_worker_stats st;   /* written by the thread, read racy */
} sp_wk;

/* ---- host side: any context ---- */

static u64 sp_wk_now(void *ctx)
{
	/* NMI-safe and lock-free: fine inside any probe. */
	return ktime_get_mono_fast_ns();
}

void sp_worker_kick(void)
{
	atomic_set(&sp_wk.kicked, 1);
	if (!READ_ONCE(sp_wk.dying))
		irq_work_queue(&sp_wk.iw);
}

void sp_worker_kick_idle(void)
{
	/* Pairs with set_current_state() in the thread between its store of
	 * ticking and its second look at sp_core_needs_tick(): either it sees
	 * the wait the caller just reported, or we see it idle. */
	smp_mb();
	if (!READ_ONCE(sp_wk.ticking))
		sp_worker_kick();
}

static int sp_wk_queue(sp_tid_t tid)
{
	if (sp_actq_push(&sp_wk.q, tid))
		sp_worker_kick();
	return 0;
}

static int sp_wk_fast_track(void *ctx, sp_tid_t tid)
{
	if (!sp_tid_ok((pid_t)tid))
		return -EINVAL;
	set_bit(tid, sp_boosted_map);
	return sp_wk_queue(tid);
}

static int sp_wk_restore(void *ctx, sp_tid_t tid)
{
	if (!sp_tid_ok((pid_t)tid))
		return -EINVAL;
	clear_bit(tid, sp_boosted_map);
	return sp_wk_queue(tid);
}

const struct sp_host_ops sp_worker_host_ops = {
	.now_ns = sp_wk_now,
	.fast_track = sp_wk_fast_track,
	.restore = sp_wk_restore,
};

static void sp_wk_irq_work(struct irq_work *iw)
{
	struct task_struct *t = READ_ONCE(sp_wk.thread);

	if (t)
		wake_up_process(t);
}

/* ---- worker side: the thread ---- */

static void sp_wk_drain(void)
{
	sp_tid_t tid;

	while ((tid = sp_actq_pop(&sp_wk.q)) != 0)
		sp_act_reconcile((pid_t)tid);
	if (sp_actq_take_rescan(&sp_wk.q))
		sp_act_rescan();
}

static void sp_wk_set_own_prio(unsigned int prio)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = prio,
	};

	if (sched_setattr_nocheck(current, &attr))
		pr_warn("superpass: cannot make the worker thread SCHED_FIFO %u\n", prio);
}

/*
 * Hooks armed while some rwsem is watched and reader tracking is on. The
 * detector takes reader events (and the acquires whose release only the
 * hooks report) only between "live" after arming and "idle" before
 * disarming, so that no acquire is recorded whose release could be missed.
 */
void sp_worker_readers_sync(void)
{
	bool on = READ_ONCE(sp_readers_on);
	bool want = on && (sp_detect_nr_rwsems() || atomic_read(&sp_nr_critical));

	mutex_lock(&sp_wk.arm_mutex);
	if (want && !sp_wk.armed) {
		/* Not armed: the module is going away (sp_readers_exit). */
		if (sp_readers_arm(true)) {
			sp_detect_hooks_live();
			sp_wk.armed = true;
		}
	} else if (!want && sp_wk.armed && sp_detect_hooks_idle(!on)) {
		sp_readers_arm(false);
		sp_wk.armed = false;
	}
	mutex_unlock(&sp_wk.arm_mutex);
}

static int sp_wk_thread(void *unused)
{
	u64 last_tick = 0, last_expire = 0, last_reclaim = ktime_get_ns();
	unsigned int my_prio = 0;

	while (!kthread_should_stop()) {
		unsigned int want_prio = READ_ONCE(sp_fifo_prio) + 1;
		u64 now = ktime_get_ns(), wait;
		ktime_t timeout;
		bool busy;

		if (want_prio != my_prio) {
			sp_wk_set_own_prio(want_prio);
			my_prio = want_prio;
		}
		busy = sp_core_needs_tick(sp_core);
		WRITE_ONCE(sp_wk.ticking, busy);
		set_current_state(TASK_INTERRUPTIBLE);
		/* A critical wait reported after our first look kicks us only
		 * if it saw ticking == false: see sp_worker_kick_idle(). */
		if (!busy)
			busy = sp_core_needs_tick(sp_core);
		wait = busy ? SP_TICK_NS - min_t(u64, now - last_tick, SP_TICK_NS) : SP_IDLE_NS;
		timeout = ns_to_ktime(wait);
		if (wait && !atomic_read(&sp_wk.kicked) && !kthread_should_stop())
			schedule_hrtimeout_range(&timeout, SP_TICK_SLACK_NS, HRTIMER_MODE_REL);
		__set_current_state(TASK_RUNNING);
		/* Full barrier: a push after this kicks again. */
		atomic_xchg(&sp_wk.kicked, 0);
		sp_wk.st.wakeups++;

		sp_wk_drain();
		now = ktime_get_ns();
		if (now - last_tick >= SP_TICK_NS && sp_core_needs_tick(sp_core)) {
			/* Owners first, so that the tick's walks see them. */
			sp_detect_find_hidden_readers();
			sp_detect_recheck_owners();
			sp_core_tick(sp_core);
			sp_wk.st.ticks++;
			last_tick = now;
			sp_wk_drain();  /* what the tick ended */
		}
		if (now - last_expire >= SP_EXPIRE_NS) {
			sp_detect_expire(SP_WATCH_IDLE_NS);
			last_expire = now;
		}
		if (sp_param_readers)
			sp_worker_readers_sync();
		if (now - last_reclaim >= SP_RECLAIM_NS) {
			int n = sp_core_reclaim(sp_core);

			if (n > 0)
				sp_wk.st.reclaimed += n;
			last_reclaim = now;
		}
	}
	return 0;
}

int sp_worker_init(void)
{
	init_irq_work(&sp_wk.iw, sp_wk_irq_work);
	mutex_init(&sp_wk.arm_mutex);
	atomic_set(&sp_wk.kicked, 0);
	sp_wk.dying = false;
	sp_wk.armed = false;
	return sp_actq_init(&sp_wk.q, SP_QUEUE_SIZE);
}

int sp_worker_start(void)
{
	struct task_struct *t = kthread_create(sp_wk_thread, NULL, "superpass");

	if (IS_ERR(t))
		return PTR_ERR(t);
	get_task_struct(t);
	WRITE_ONCE(sp_wk.thread, t);
	wake_up_process(t);
	return 0;
}

void sp_worker_stop(void)
{
	/* The probes and hooks are gone: after the thread, nothing but
	 * sp_core_destroy() calls the core, and its restores only queue. */
	if (sp_wk.thread)
		kthread_stop(sp_wk.thread);
	WRITE_ONCE(sp_wk.dying, true);
	/* An irq_work queued before this may still be pending: it holds no
	 * reference of its own, so wait for it before the thread's goes. */
	irq_work_sync(&sp_wk.iw);
	if (sp_wk.thread) {
		put_task_struct(sp_wk.thread);
		WRITE_ONCE(sp_wk.thread, NULL);
	}
}

void sp_worker_free(void)
{
	sp_actq_fini(&sp_wk.q);
}

void sp_worker_get_stats(struct sp_worker_stats *out)
{
	*out = sp_wk.st;
	/* Racy reads of the queue's own counters, like the rest. */
	out->queue_pushes = READ_ONCE(sp_wk.q.pushes);
	out->queue_dups = READ_ONCE(sp_wk.q.dups);
	out->queue_overflows = READ_ONCE(sp_wk.q.overflows);
}
