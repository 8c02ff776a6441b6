// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel host of the core: clock, actuation queue, worker wakeups.
 *
 * The core calls fast_track/restore inside its raw spinlocks, often from a
 * lock tracepoint with interrupts off and an rwsem's wait_lock held. The
 * callbacks flip the tid's bit in sp_boosted_map (the probes' filter),
 * push the tid on the shared actuation queue (lib/core/sp_actq.h: a raw
 * spinlock taken with interrupts saved, no allocation) and queue an
 * irq_work. The irq_work (hard irq, after the caller re-enables
 * interrupts) wakes the thread: wake_up_process() takes pi_lock and a
 * runqueue lock, which must not nest inside a sleeping lock's wait_lock,
 * while irq_work_queue() is safe in any context.
 */
#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "sp_actq.h"
#include "sp_kmod_host.h"
#include "sp_kmod_state.h"

#define SP_QUEUE_SIZE 512u

static struct {
	struct sp_actq q;
	struct irq_work iw;
	struct task_struct *thread;  /* what the irq_work wakes */
	atomic_t kicked;             /* the loop must run again before sleeping */
	bool ticking;                /* the thread sleeps for a tick, not idle */
	bool dying;                  /* module exit: no more irq_work */
} sp_host;

static u64 sp_host_now(void *ctx)
{
	/* NMI-safe and lock-free: fine inside any probe. */
	return ktime_get_mono_fast_ns();
}

void sp_host_kick(void)
{
	atomic_set(&sp_host.kicked, 1);
	if (!READ_ONCE(sp_host.dying))
		irq_work_queue(&sp_host.iw);
}

void sp_host_kick_idle(void)
{
	/* Pairs with set_current_state() in the worker thread between its
	 * store of ticking and its second look at sp_core_needs_tick(): either
	 * it sees the wait the caller just reported, or we see it idle. */
	smp_mb();
	if (!READ_ONCE(sp_host.ticking))
		sp_host_kick();
}

static int sp_host_queue(sp_tid_t tid)
{
	if (sp_actq_push(&sp_host.q, tid))
		sp_host_kick();
	return 0;
}

static int sp_host_fast_track(void *ctx, sp_tid_t tid)
{
	if (!sp_tid_ok((pid_t)tid))
		return -EINVAL;
	set_bit(tid, sp_boosted_map);
	return sp_host_queue(tid);
}

static int sp_host_restore(void *ctx, sp_tid_t tid)
{
	if (!sp_tid_ok((pid_t)tid))
		return -EINVAL;
	clear_bit(tid, sp_boosted_map);
	return sp_host_queue(tid);
}

const struct sp_host_ops sp_kmod_host_ops = {
	.now_ns = sp_host_now,
	.fast_track = sp_host_fast_track,
	.restore = sp_host_restore,
};

static void sp_host_irq_work(struct irq_work *iw)
{
	struct task_struct *t = READ_ONCE(sp_host.thread);

	if (t)
		wake_up_process(t);
}

int sp_host_init(void)
{
	init_irq_work(&sp_host.iw, sp_host_irq_work);
	atomic_set(&sp_host.kicked, 0);
	sp_host.dying = false;
	return sp_actq_init(&sp_host.q, SP_QUEUE_SIZE);
}

void sp_host_free(void)
{
	sp_actq_fini(&sp_host.q);
}

void sp_host_set_thread(struct task_struct *t)
{
	WRITE_ONCE(sp_host.thread, t);
}

void sp_host_set_ticking(bool ticking)
{
	WRITE_ONCE(sp_host.ticking, ticking);
}

bool sp_host_kicked(void)
{
	return atomic_read(&sp_host.kicked);
}

void sp_host_take_kick(void)
{
	atomic_xchg(&sp_host.kicked, 0);
}

sp_tid_t sp_host_pop(void)
{
	return sp_actq_pop(&sp_host.q);
}

bool sp_host_take_rescan(void)
{
	return sp_actq_take_rescan(&sp_host.q);
}

void sp_host_stop_kicks(void)
{
	WRITE_ONCE(sp_host.dying, true);
	/* An irq_work queued before this may still be pending: it holds no
	 * reference to the thread of its own, so wait for it before the
	 * worker drops the thread's. */
	irq_work_sync(&sp_host.iw);
}

void sp_host_get_queue_stats(struct sp_host_queue_stats *out)
{
	/* Racy reads of the queue's own counters, like every statistic. */
	out->pushes = READ_ONCE(sp_host.q.pushes);
	out->dups = READ_ONCE(sp_host.q.dups);
	out->overflows = READ_ONCE(sp_host.q.overflows);
}
