// SPDX-License-Identifier: GPL-2.0-only
/*
 * The worker thread of the kernel host.
 *
 * One rule for every host (include/superpass/core.h): the thread applies
 * what sp_task_fast_tracked() says for each queued tid (it reconciles, it does
 * not replay calls) and ticks the core every millisecond while
 * sp_core_needs_tick(), that is while grants are active or a critical task
 * waits. Before each tick the detector re-reads the owner word of each
 * reported wait and reports the wait again if the word changed: a kernel
 * mutex changes hands without an event we see (unlock and handoff emit
 * nothing). Then the reader hooks are armed or disarmed, idle locks are
 * forgotten and, once a second, table slots are reclaimed (that sleeps).
 *
 * The hooks are armed while a thread is marked critical or an rwsem is
 * watched, and a write that marks a thread arms them before it returns
 * (sp_worker_readers_sync): arming is text patching, which is slow, and
 * left to the first contention it would stall the thread (no grant
 * applied or ended meanwhile) while the waiter an rwsem release woke went
 * unseen. The thread runs at SCHED_FIFO fifo_prio + 1 so that it can
 * preempt the tasks it boosted and take their boost away.
 */
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/timekeeping.h>
#include <uapi/linux/sched/types.h>

#include "sp_kmod_act.h"
#include "sp_kmod_detect_hooks.h"
#include "sp_kmod_detect_recheck.h"
#include "sp_kmod_futex.h"
#include "sp_kmod_host.h"
#include "sp_kmod_params.h"
#include "sp_kmod_readers.h"
#include "sp_kmod_state.h"
#include "sp_kmod_worker.h"

#define SP_TICK_NS (1 * NSEC_PER_MSEC)
#define SP_TICK_SLACK_NS (100 * NSEC_PER_USEC)
#define SP_IDLE_NS (1000 * NSEC_PER_MSEC)          /* sleep when nothing ticks */
#define SP_RECLAIM_NS (1000 * NSEC_PER_MSEC)
#define SP_EXPIRE_NS (100 * NSEC_PER_MSEC)         /* how often idle locks are looked for */
#define SP_WATCH_IDLE_NS (5000 * NSEC_PER_MSEC)    /* then a lock is forgotten */

static struct {
	struct task_struct *thread;
	struct mutex arm_mutex;      /* armed, and arming */
	bool armed;                  /* reader hooks armed */
	struct sp_worker_stats st;   /* written by the thread, read racy */
} sp_wk;

static void sp_wk_drain(void)
{
	sp_tid_t tid;

	while ((tid = sp_host_pop()) != 0)
		sp_act_reconcile((pid_t)tid);
	if (sp_host_take_rescan())
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
		sp_host_set_ticking(busy);
		set_current_state(TASK_INTERRUPTIBLE);
		/* A critical wait reported after our first look kicks us only
		 * if it saw ticking == false: see sp_host_kick_idle(). */
		if (!busy)
			busy = sp_core_needs_tick(sp_core);
		wait = busy ? SP_TICK_NS - min_t(u64, now - last_tick, SP_TICK_NS) : SP_IDLE_NS;
		timeout = ns_to_ktime(wait);
		if (wait && !sp_host_kicked() && !kthread_should_stop())
			schedule_hrtimeout_range(&timeout, SP_TICK_SLACK_NS, HRTIMER_MODE_REL);
		__set_current_state(TASK_RUNNING);
		sp_host_take_kick();
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
		sp_futex_sync();
		if (now - last_reclaim >= SP_RECLAIM_NS) {
			int n = sp_core_reclaim(sp_core);

			if (n > 0)
				sp_wk.st.reclaimed += n;
			last_reclaim = now;
		}
	}
	return 0;
}

void sp_worker_init(void)
{
	mutex_init(&sp_wk.arm_mutex);
	sp_wk.armed = false;
}

int sp_worker_start(void)
{
	struct task_struct *t = kthread_create(sp_wk_thread, NULL, "superpass");

	if (IS_ERR(t))
		return PTR_ERR(t);
	get_task_struct(t);
	sp_wk.thread = t;
	sp_host_set_thread(t);
	wake_up_process(t);
	return 0;
}

void sp_worker_stop(void)
{
	/* The probes and hooks are gone: after the thread, nothing but
	 * sp_core_destroy() calls the core, and its restores only queue. */
	if (sp_wk.thread)
		kthread_stop(sp_wk.thread);
	sp_host_stop_kicks();
	if (sp_wk.thread) {
		put_task_struct(sp_wk.thread);
		sp_host_set_thread(NULL);
		sp_wk.thread = NULL;
	}
}

void sp_worker_get_stats(struct sp_worker_stats *out)
{
	*out = sp_wk.st;
}
