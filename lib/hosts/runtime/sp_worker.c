// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The worker thread ("superpass-wk"), the runtime's half of the host
 * contract in core.h:
 *
 *  - The core's fast_track/restore callbacks (sp_wk_fast_track and
 *    sp_wk_restore) push the tid on the actuation queue shared by every
 *    host (lib/core/sp_actq.h) and kick the worker (see "When to kick").
 *    The worker pops each tid and reconciles it: the thread
 *    gets the attributes sp_task_fast_tracked() says now (sp_act_reconcile). If
 *    the queue overflowed, it reconciles every thread it knows.
 *  - While sp_core_needs_tick() it calls sp_core_tick() every tick_ns, so
 *    budgets and throttles end a boost even when the blocked critical
 *    thread cannot run, and long critical waits are walked again.
 *  - Now and then it calls sp_core_reclaim(), which sleeps in an RCU grace
 *    period and so must run on a thread of ours, never on an event path.
 *
 * Otherwise it sleeps in a futex wait on one word (sp_wk.fword) with an
 * absolute CLOCK_MONOTONIC deadline (a wall-clock step must not stall or
 * rush a tick) and costs nothing. A kick is a store, an increment and, only
 * if the worker sleeps, one FUTEX_WAKE: no mutex on either side (see
 * sp_wk_kick).
 *
 * Lifecycle: the thread exists only while there is work. It is created by
 * the first kick (a critical thread's wait, a queued fast track or
 * restore), never by a process that merely has the library loaded: a
 * second thread would make unshare(CLONE_NEWUSER) fail and makes glibc's
 * set*id broadcast reach a thread whose credentials the program does not
 * manage. It exits after SP_WK_IDLE_NS without grants, critical waits or
 * queued work. sp_wk_stop() ends it at once (shutdown, and the
 * interposer's credential wrappers, sp_preload_creds.c), and
 * sp_wk_block()/sp_wk_unblock() keep kicks from creating it meanwhile.
 *
 * In SCHED_FIFO mode it runs at fifo_prio + 1: it must preempt the threads
 * it boosted, which could otherwise fill every CPU and starve the very
 * thread that has to take their boost away.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>

#include "sp_actq.h"
#include "sp_rt.h"
#include "sp_sched_attr.h"

#define SP_WK_RECLAIM_NS 1000000000ull /* sp_core_reclaim at most once a second */
#define SP_WK_QUEUE_CAP 1024u          /* as many as the actuator's table */
/*
 * Idle time before the worker exits. Long against the gaps between a
 * frame loop's critical waits (8.3 ms at 120 Hz, 16.7 ms at 60 Hz), so a
 * program that blocks every few frames keeps its worker and never pays the
 * thread creation on a critical wait; short enough
 * that a burst of contention at start-up leaves no SCHED_FIFO thread
 * behind in a program that then runs for hours.
 */
#define SP_WK_IDLE_NS 250000000ull

static struct {
	pthread_mutex_t lock;  /* PTHREAD_PRIO_INHERIT: kickers may be nice 19 */
	uint32_t fword;        /* atomic: the futex word, bumped by every kick */
	int waiting;           /* atomic: the worker is in (or going into) its futex wait */
	pthread_t thread;
	int running;           /* a worker thread serves kicks */
	int joinable;          /* @thread still has to be joined */
	int blocked;           /* sp_wk_block depth: kicks create no thread */
	int ready;             /* sp_wk_start ran: a core may kick */
	int stop;
	int kicked;            /* atomic: work was queued since the worker last looked */
	int idle;              /* asleep without a tick due (see sp_wk_wait_started) */
	uint32_t tick_ns;
	int fifo_prio;
	struct sp_actq q;
	bool q_ready;
	uint64_t ticks, wakeups, reconciles, rescans;
} sp_wk;

uint64_t sp_rt_now_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sp_wk_sync_init(void)
{
	pthread_mutexattr_t ma;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&sp_wk.lock, &ma);
	pthread_mutexattr_destroy(&ma);
}

__attribute__((constructor)) static void sp_wk_ctor(void)
{
	sp_wk_sync_init();
}

static int sp_wk_spawn_locked(void);

static void sp_wk_futex_wake(void)
{
	sp_os_futex_wake(&sp_wk.fword, 1);
}

/* Wakes the worker's futex wait, if it waits: the word first, so a worker
 * about to wait sees it changed (EAGAIN) or is seen waiting. */
static void sp_wk_poke(void)
{
	__atomic_add_fetch(&sp_wk.fword, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&sp_wk.waiting, __ATOMIC_SEQ_CST))
		sp_wk_futex_wake();
}

/*
 * A kick takes no lock while a worker runs: a store of kicked, then the
 * poke. A mutex and condition variable would cost the worker two more
 * futex calls on the boost path, and a worker woken under the kicker's
 * lock would preempt the kicker, block on the lock and, through priority
 * inheritance, leave the kicker behind other threads at the unlock.
 *
 * No worker exits unseen: the worker stores running = 0 and then reads
 * kicked; the kicker stores kicked and then reads running (both
 * sequentially consistent). Either the worker sees the kick and stays, or
 * the kicker sees no worker and creates one under the lock.
 */
static void sp_wk_kick(void)
{
	__atomic_store_n(&sp_wk.kicked, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&sp_wk.running, __ATOMIC_SEQ_CST)) {
		sp_wk_poke();
		return;
	}
	sp_rt_lock(&sp_wk.lock);
	if (!__atomic_load_n(&sp_wk.running, __ATOMIC_SEQ_CST))
		sp_wk_spawn_locked(); /* on failure the next kick tries again */
	sp_rt_unlock(&sp_wk.lock);
	sp_wk_poke(); /* a worker that stayed after all */
}

void sp_wk_kick_queued(void)
{
	sp_rt_self_state.on_leave &= ~SP_LEAVE_KICK;
	sp_wk_kick();
}

/*
 * When to kick. A fast track is awaited by a critical thread: kick at once,
 * even from inside the core (the thread that asks may be the nice 19
 * reader being fast-tracked, from its own acquire report, and would not
 * leave the core for a long time). Nobody waits for the restore of another
 * thread: it is kicked on leaving the core, once per event. A thread's own
 * restore is not the worker's at all (see sp_wk_restore).
 */
void sp_wk_queue(sp_tid_t tid)
{
	sp_actq_push(&sp_wk.q, tid);
	sp_wk_kick_queued();
}

int sp_wk_fifo_prio(void)
{
	return sp_wk.fifo_prio;
}

/* A worker may be there to lower a raised thread at its bound
 * (sp_waiter.c): none while blocked (sp_wk_block), when kicks create none. */
bool sp_wk_can_bound(void)
{
	return __atomic_load_n(&sp_wk.ready, __ATOMIC_SEQ_CST) &&
	       !__atomic_load_n(&sp_wk.blocked, __ATOMIC_SEQ_CST);
}

/* The bound is new. A worker that ticks wakes within tick_ns and asks
 * sp_wk_bound_raised (before every sleep); one asleep without a tick due,
 * or gone, is kicked. The fence pairs with the one in sp_wk_sleep, as in
 * sp_wk_wait_started: either the worker, after setting idle, sees the
 * bound (sp_wk_raise_pending), or we see idle and kick. */
void sp_wk_poke_bound(void)
{
	sp_smp_mb();
	if (__atomic_load_n(&sp_wk.idle, __ATOMIC_RELAXED) ||
	    !__atomic_load_n(&sp_wk.running, __ATOMIC_RELAXED))
		sp_wk_kick_queued();
}

int sp_wk_fast_track(void *ctx, sp_tid_t tid)
{
	struct sp_rt_thread *self = &sp_rt_self_state;

	(void)ctx;
	if (self->direct_on && tid != self->tid) {
		/*
		 * A critical waiter's fast tracks wait for its own raise or
		 * slice (sp_wk_direct_end), even those the worker applies:
		 * queued now, a worker ticking for another wait could boost a
		 * holder on our CPU before we are raised, the preemption the
		 * raise is there to prevent. Without rseq (as under qemu-user)
		 * every fast track goes this way.
		 */
		int there = sp_where_cpu(tid), here = sp_where_self();

		if (self->direct_n < SP_RT_DIRECT_MAX) {
			if (there < 0 || here < 0 || (there == here && !self->direct_raise))
				self->direct_worker |= 1u << self->direct_n;
			else if (there == here)
				self->direct_same |= 1u << self->direct_n;
			self->direct[self->direct_n++] = tid;
			return 0;
		}
		sp_actq_push(&sp_wk.q, tid);
		self->on_leave |= SP_LEAVE_KICK;
		return 0;
	}
	/* Kicks even if @tid was queued already: by a restore, maybe, whose
	 * kick is still waiting for its thread to leave the core. */
	sp_actq_push(&sp_wk.q, tid);
	sp_wk_kick_queued();
	return 0;
}

/*
 * A thread whose own fast track ends (it released the lock) lowers itself,
 * on its way out of the core, before it returns to the application: left
 * to the worker, the restore lands later, by when a holder with a backlog
 * is already in its next lock call at the fast track's priority: a reader
 * that then blocks behind the critical writer is lowered while it sleeps
 * and handed the read lock by glibc at the writer's release, a holder the
 * core cannot see until it runs.
 */
int sp_wk_restore(void *ctx, sp_tid_t tid)
{
	(void)ctx;
	if (tid == sp_rt_self_state.tid && sp_rt_guarded()) {
		sp_rt_self_state.on_leave |= SP_LEAVE_RECONCILE;
		return 0;
	}
	if (sp_actq_push(&sp_wk.q, tid)) {
		if (sp_rt_guarded())
			sp_rt_self_state.on_leave |= SP_LEAVE_KICK;
		else
			sp_wk_kick_queued();
	}
	return 0;
}

void sp_wk_leave_slow(void)
{
	struct sp_rt_thread *self = &sp_rt_self_state;

	if (self->on_leave & SP_LEAVE_RECONCILE) {
		self->on_leave &= ~SP_LEAVE_RECONCILE;
		sp_act_reconcile(__atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE), self->tid);
	}
	if (self->on_leave & SP_LEAVE_KICK)
		sp_wk_kick_queued();
}

/*
 * A critical thread has just reported its wait: the core now needs ticks,
 * and a worker that went to sleep without one due must learn it. The
 * fence pairs with the one in sp_wk_sleep (as sp_wk_poke_bound's does): either the worker, after
 * setting idle, sees the wait the core recorded (sp_core_needs_tick), or
 * this thread, after the core recorded it, sees idle and kicks.
 */
void sp_wk_wait_started(void)
{
	sp_smp_mb();
	/* No worker yet (or it went idle and exited): the kick creates it. */
	if (__atomic_load_n(&sp_wk.idle, __ATOMIC_RELAXED) ||
	    !__atomic_load_n(&sp_wk.running, __ATOMIC_RELAXED))
		sp_rt_self_state.on_leave |= SP_LEAVE_KICK;
}

/* Returns whether there was anything to do. */
static bool sp_wk_drain(struct sp_core *core)
{
	bool worked = false;
	sp_tid_t tid;

	while ((tid = sp_actq_pop(&sp_wk.q)) != 0) {
		sp_act_reconcile(core, tid);
		__atomic_add_fetch(&sp_wk.reconciles, 1, __ATOMIC_RELAXED);
		worked = true;
	}
	if (sp_actq_take_rescan(&sp_wk.q)) {
		sp_act_reconcile_all(core);
		__atomic_add_fetch(&sp_wk.rescans, 1, __ATOMIC_RELAXED);
		worked = true;
	}
	return worked;
}

/*
 * Sleeps until kicked or @deadline (CLOCK_MONOTONIC ns); false: the worker
 * ends (stopped, or @idle_exit and nothing came). An idle exit is decided
 * under the lock every kick takes: a kick before it wakes us, a kick after
 * it sees running == 0 and creates a new worker.
 */
static bool sp_wk_sleep(struct sp_core *core, uint64_t deadline, bool busy, bool idle_exit)
{
	struct timespec ts = { .tv_sec = (time_t)(deadline / 1000000000ull),
			       .tv_nsec = (long)(deadline % 1000000000ull) };
	uint32_t w;
	bool stop;

	if (!busy) {
		__atomic_store_n(&sp_wk.idle, 1, __ATOMIC_RELAXED);
		/* Pairs with the fences in sp_wk_wait_started and
		 * sp_wk_poke_bound. */
		sp_smp_mb();
		if (sp_core_needs_tick(core) || sp_wk_raise_pending())
			__atomic_store_n(&sp_wk.kicked, 1, __ATOMIC_SEQ_CST); /* tick now */
	}
	if (idle_exit) {
		sp_rt_lock(&sp_wk.lock);
		__atomic_store_n(&sp_wk.running, 0, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&sp_wk.kicked, __ATOMIC_SEQ_CST) &&
		    !__atomic_load_n(&sp_wk.stop, __ATOMIC_SEQ_CST)) {
			/* Still joinable: whoever creates the next one, or stops,
			 * joins it, so it is gone before a set*id call. */
			__atomic_store_n(&sp_wk.idle, 0, __ATOMIC_RELAXED);
			sp_rt_unlock(&sp_wk.lock);
			return false;
		}
		/* A kick came (it may not have seen running = 0 yet): stay. */
		__atomic_store_n(&sp_wk.running, 1, __ATOMIC_SEQ_CST);
		sp_rt_unlock(&sp_wk.lock);
	}
	w = __atomic_load_n(&sp_wk.fword, __ATOMIC_SEQ_CST);
	if (!__atomic_exchange_n(&sp_wk.kicked, 0, __ATOMIC_SEQ_CST) &&
	    !__atomic_load_n(&sp_wk.stop, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&sp_wk.waiting, 1, __ATOMIC_SEQ_CST);
		/* A kick between the exchange and here bumped the word (the
		 * wait returns at once) or sees waiting and wakes us. */
		if (!__atomic_load_n(&sp_wk.kicked, __ATOMIC_SEQ_CST))
			sp_os_futex(&sp_wk.fword, FUTEX_WAIT_BITSET_PRIVATE, w, &ts,
				    FUTEX_BITSET_MATCH_ANY);
		__atomic_store_n(&sp_wk.waiting, 0, __ATOMIC_SEQ_CST);
		__atomic_store_n(&sp_wk.kicked, 0, __ATOMIC_SEQ_CST);
	}
	__atomic_store_n(&sp_wk.idle, 0, __ATOMIC_RELAXED);
	stop = __atomic_load_n(&sp_wk.stop, __ATOMIC_SEQ_CST);
	if (stop) {
		sp_rt_lock(&sp_wk.lock);
		__atomic_store_n(&sp_wk.running, 0, __ATOMIC_SEQ_CST);
		sp_rt_unlock(&sp_wk.lock);
	}
	__atomic_add_fetch(&sp_wk.wakeups, 1, __ATOMIC_RELAXED);
	return !stop;
}

static void *sp_wk_main(void *arg)
{
	uint64_t next_tick = 0, last_reclaim = sp_rt_now_ns(NULL), idle_since = last_reclaim;

	(void)arg;
	/* Inside the runtime for good: the kicks our ticks queue are for
	 * ourselves (we drain anyway), and liburcu's locks stay glibc's. */
	sp_rt_enter();
	pthread_setname_np(pthread_self(), "superpass-wk");
	if (sp_act_mode_now() == SP_ACT_FIFO) {
		struct sp_sched_attr a;

		if (sp_sched_getattr(0, &a) == 0) {
			a.sched_policy = SCHED_FIFO;
			a.sched_priority = (uint32_t)sp_wk.fifo_prio + 1;
			a.sched_flags = SP_SCHED_FLAG_RESET_ON_FORK;
			sp_sched_setattr(0, &a);
		}
	} else {
		/* Created by whichever thread kicked first, maybe a nice 19
		 * one: take the main thread's nice, as a worker made at start-up
		 * would have (raising it may be refused: then we keep ours). */
		errno = 0;
		int nice = getpriority(PRIO_PROCESS, (id_t)getpid());

		if (errno == 0)
			setpriority(PRIO_PROCESS, 0, nice);
	}
	for (;;) {
		struct sp_core *core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE);
		uint64_t now, deadline, bound;
		bool busy, idle_exit, worked;

		worked = sp_wk_drain(core);
		now = sp_rt_now_ns(NULL);
		bound = sp_wk_bound_raised(now);
		busy = sp_core_needs_tick(core) || bound;
		if (busy && now >= next_tick) {
			sp_core_tick(core);
			__atomic_add_fetch(&sp_wk.ticks, 1, __ATOMIC_RELAXED);
			next_tick = now + sp_wk.tick_ns;
			sp_wk_drain(core); /* what the tick ended */
		}
		if (busy || worked)
			idle_since = now;
		idle_exit = !busy && now - idle_since >= SP_WK_IDLE_NS;
		if (now - last_reclaim >= SP_WK_RECLAIM_NS || idle_exit) {
			/* Before an idle exit too: nobody else reclaims. */
			if (core)
				sp_core_reclaim(core);
			last_reclaim = now;
		}
		sp_rt_self_state.on_leave = 0; /* our own kicks: we drain anyway */
		deadline = idle_since + SP_WK_IDLE_NS;
		if (last_reclaim + SP_WK_RECLAIM_NS < deadline)
			deadline = last_reclaim + SP_WK_RECLAIM_NS;
		if (busy)
			deadline = next_tick;
		if (bound && bound < deadline)
			deadline = bound;
		if (!sp_wk_sleep(core, deadline, busy, idle_exit))
			break;
	}
	sp_rt_leave();
	return NULL;
}

/*
 * pthread_create for the worker. In SCHED_FIFO mode the thread is created
 * in SCHED_FIFO (glibc applies an explicit policy before the new thread
 * runs its first instruction), not left to raise itself in sp_wk_main: it
 * would start with its creator's policy, maybe nice 19, and wait behind
 * the CPU hogs before it could, on the first critical wait after every
 * idle exit. Without the
 * privilege (EPERM) it is created as before and sp_wk_main does what it can.
 */
static int sp_wk_create(void)
{
	pthread_attr_t attr;
	struct sched_param sp = { .sched_priority = sp_wk.fifo_prio + 1 };
	int rc;

	if (sp_act_mode_now() != SP_ACT_FIFO)
		return -pthread_create(&sp_wk.thread, NULL, sp_wk_main, NULL);
	if (pthread_attr_init(&attr) != 0)
		return -pthread_create(&sp_wk.thread, NULL, sp_wk_main, NULL);
	rc = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	if (rc == 0)
		rc = pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	if (rc == 0)
		rc = pthread_attr_setschedparam(&attr, &sp);
	if (rc == 0)
		rc = pthread_create(&sp_wk.thread, &attr, sp_wk_main, NULL);
	pthread_attr_destroy(&attr);
	if (rc != 0) /* EPERM: the mode was decided earlier, the privilege went */
		rc = pthread_create(&sp_wk.thread, NULL, sp_wk_main, NULL);
	return -rc;
}

/* Creates the worker thread. sp_wk.lock held, no worker running. */
static int sp_wk_spawn_locked(void)
{
	sigset_t all, old;
	int rc;

	if (!sp_wk.ready || sp_wk.blocked || __atomic_load_n(&sp_wk.stop, __ATOMIC_RELAXED))
		return -EAGAIN;
	if (sp_wk.joinable) {
		/* The last one exited idle: it only has its thread exit left,
		 * which takes none of our locks. */
		pthread_join(sp_wk.thread, NULL);
		sp_wk.joinable = 0;
	}
	/* No signal of the application may land on our thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = sp_wk_create();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0) {
		sp_wk.joinable = 1;
		__atomic_store_n(&sp_wk.running, 1, __ATOMIC_RELAXED);
	}
	return rc;
}

/* Prepares the queue; the thread itself comes with the first kick. */
int sp_wk_start(const struct sp_runtime_config *cfg)
{
	int rc = 0;

	sp_rt_lock(&sp_wk.lock);
	if (sp_wk.ready)
		goto out;
	/* Allocated once and kept: the core may notify until it is destroyed,
	 * after the worker stopped. What an earlier runtime left is dropped
	 * (its shutdown restored everything). */
	if (!sp_wk.q_ready) {
		rc = sp_actq_init(&sp_wk.q, SP_WK_QUEUE_CAP);
		if (rc)
			goto out;
		sp_wk.q_ready = true;
	}
	while (sp_actq_pop(&sp_wk.q))
		;
	sp_actq_take_rescan(&sp_wk.q);
	sp_wk.tick_ns = cfg->tick_ns ? cfg->tick_ns : 1000000u;
	sp_wk.fifo_prio = cfg->fifo_prio;
	__atomic_store_n(&sp_wk.stop, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&sp_wk.kicked, 0, __ATOMIC_RELAXED);
	sp_wk.ticks = sp_wk.wakeups = sp_wk.reconciles = sp_wk.rescans = 0;
	sp_wk.ready = 1;
out:
	sp_rt_unlock(&sp_wk.lock);
	return rc;
}

/* Serialises sp_wk_end: a second caller (two threads changing
 * credentials at once) must also wait until the thread is gone, not only
 * until the first caller took it to join. */
static pthread_mutex_t sp_wk_end_lock = PTHREAD_MUTEX_INITIALIZER;

/* Ends the worker thread (if any) and waits until it is gone. With
 * @forever (shutdown) no kick creates one again until sp_wk_start. */
static void sp_wk_end(bool forever)
{
	pthread_t t;
	int join;

	sp_rt_lock(&sp_wk_end_lock);
	sp_rt_lock(&sp_wk.lock);
	if (forever)
		sp_wk.ready = 0;
	join = sp_wk.joinable;
	sp_wk.joinable = 0;
	t = sp_wk.thread;
	if (__atomic_load_n(&sp_wk.running, __ATOMIC_RELAXED)) {
		__atomic_store_n(&sp_wk.stop, 1, __ATOMIC_SEQ_CST);
		sp_wk_poke();
	}
	sp_rt_unlock(&sp_wk.lock);
	if (join)
		pthread_join(t, NULL);
	sp_rt_lock(&sp_wk.lock);
	__atomic_store_n(&sp_wk.stop, 0, __ATOMIC_SEQ_CST);
	sp_rt_unlock(&sp_wk.lock);
	sp_rt_unlock(&sp_wk_end_lock);
	/* Nobody is left to keep the bound of a raise held past its wait
	 * (sp_waiter.c): it ends now. A raised thread still waiting lowers
	 * itself when its wait ends (no worker to bound it then). */
	sp_wk_bound_raised(UINT64_MAX);
}

void sp_wk_stop(void)
{
	sp_wk_end(true);
}

/*
 * Around a credential change (the interposer's set*id, setgroups, capset
 * and unshare wrappers): the worker goes, and no kick creates a new one
 * until sp_wk_unblock(), which creates it again at once if there is work.
 * A worker created later is a clone of a thread that already has the new
 * credentials, so glibc's set*id broadcast always finds every thread able
 * to make the same change, and a worker never keeps privileges the
 * program gave up.
 */
void sp_wk_block(void)
{
	sp_rt_lock(&sp_wk.lock);
	sp_wk.blocked++;
	sp_rt_unlock(&sp_wk.lock);
	sp_wk_end(false);
}

void sp_wk_unblock(void)
{
	struct sp_core *core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE);

	sp_rt_lock(&sp_wk.lock);
	sp_wk.blocked--;
	if (sp_wk.ready && !sp_wk.blocked && !sp_wk.running &&
	    (__atomic_load_n(&sp_wk.kicked, __ATOMIC_SEQ_CST) || sp_core_needs_tick(core))) {
		__atomic_store_n(&sp_wk.kicked, 1, __ATOMIC_SEQ_CST);
		sp_wk_spawn_locked();
	}
	sp_rt_unlock(&sp_wk.lock);
}

int sp_wk_running(void)
{
	return __atomic_load_n(&sp_wk.running, __ATOMIC_RELAXED);
}

/* The worker thread does not exist in a forked child, and the queue holds
 * the parent's tids. */
void sp_wk_atfork_child(void)
{
	sp_wk_sync_init();
	pthread_mutex_init(&sp_wk_end_lock, NULL);
	if (sp_wk.q_ready)
		sp_actq_atfork_child(&sp_wk.q);
	sp_wk.running = 0;
	sp_wk.joinable = 0;
	sp_wk.blocked = 0;
	sp_wk.stop = 0;
	sp_wk.kicked = 0;
	sp_wk.waiting = 0;
	sp_wk.idle = 0;
	sp_wk_waiter_atfork_child();
}

void sp_wk_stats(struct sp_runtime_stats *out)
{
	out->ticks = __atomic_load_n(&sp_wk.ticks, __ATOMIC_RELAXED);
	out->wk_wakeups = __atomic_load_n(&sp_wk.wakeups, __ATOMIC_RELAXED);
	out->wk_reconciles = __atomic_load_n(&sp_wk.reconciles, __ATOMIC_RELAXED);
	out->wk_rescans = __atomic_load_n(&sp_wk.rescans, __ATOMIC_RELAXED);
}
