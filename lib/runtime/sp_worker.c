// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The watchdog thread drives the core's clock: while a fast track is active
 * it calls sp_core_tick() every tick_ns so that budgets and throttles end a
 * boost even when the blocked critical thread cannot run; it also calls
 * sp_core_reclaim() now and then (that one sleeps, so it must live on a
 * thread of ours, never on an event path). When nothing is boosted it waits
 * on a condition variable and costs nothing.
 *
 * In SCHED_FIFO mode the watchdog itself runs at fifo_prio + 1: boosted
 * threads could otherwise fill every CPU and starve the very thread that
 * must take their boost away.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "sp_rt.h"
#include "sp_sched_attr.h"

#define SP_WD_IDLE_RECLAIM_NS 1000000000ull /* reclaim at least every second */
#define SP_WD_BUSY_RECLAIM_TICKS 200u

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	int running;
	int stop;
	int kicked;
	uint32_t tick_ns;
	int fifo_prio;
	uint64_t ticks;
} sp_wd = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

uint64_t sp_rt_now_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sp_wd_sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

static void sp_wd_tick(int reclaim)
{
	struct sp_core *core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE);

	if (!core)
		return;
	sp_rt_enter();
	sp_act_apply_deferred(core);
	sp_core_tick(core);
	if (reclaim)
		sp_core_reclaim(core);
	sp_rt_leave();
}

/* Ticks have work while threads are fast-tracked, grants are active or a
 * critical thread waits (the core then refreshes long waits, re-granting
 * after a throttle or budget cool-down). */
static bool sp_wd_busy(void)
{
	return sp_act_active() != 0 ||
	       sp_core_needs_tick(__atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE));
}

static void *sp_wd_main(void *arg)
{
	uint64_t last_reclaim = sp_rt_now_ns(NULL);
	uint32_t busy = 0;

	(void)arg;
	/* Our own pthread calls never go through the interposer's slow path. */
	sp_rt_enter();
	pthread_setname_np(pthread_self(), "superpass-wd");
	if (sp_act_mode_now() == SP_ACT_FIFO) {
		struct sp_sched_attr a;

		if (sp_sched_getattr(0, &a) == 0) {
			a.sched_policy = SCHED_FIFO;
			a.sched_priority = (uint32_t)sp_wd.fifo_prio + 1;
			a.sched_flags = SP_SCHED_FLAG_RESET_ON_FORK;
			sp_sched_setattr(0, &a);
		}
	}
	for (;;) {
		int stop, reclaim;
		uint64_t now;

		pthread_mutex_lock(&sp_wd.lock);
		while (!sp_wd.stop && !sp_wd.kicked && !sp_wd_busy()) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 200000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			if (pthread_cond_timedwait(&sp_wd.cond, &sp_wd.lock, &ts) == ETIMEDOUT)
				break;
		}
		stop = sp_wd.stop;
		sp_wd.kicked = 0;
		pthread_mutex_unlock(&sp_wd.lock);
		if (stop)
			break;
		now = sp_rt_now_ns(NULL);
		if (!sp_wd_busy()) {
			/* idle: only reclaim, rarely */
			if (now - last_reclaim >= SP_WD_IDLE_RECLAIM_NS) {
				sp_wd_tick(1);
				last_reclaim = now;
			}
			continue;
		}
		sp_wd_sleep_ns(sp_wd.tick_ns);
		reclaim = ++busy % SP_WD_BUSY_RECLAIM_TICKS == 0;
		sp_wd_tick(reclaim);
		if (reclaim)
			last_reclaim = now;
		__atomic_add_fetch(&sp_wd.ticks, 1, __ATOMIC_RELAXED);
	}
	sp_rt_leave();
	return NULL;
}

int sp_wd_start(const struct sp_runtime_config *cfg)
{
	sigset_t all, old;
	int rc;

	pthread_mutex_lock(&sp_wd.lock);
	if (sp_wd.running) {
		pthread_mutex_unlock(&sp_wd.lock);
		return 0;
	}
	sp_wd.tick_ns = cfg->tick_ns ? cfg->tick_ns : 1000000u;
	sp_wd.fifo_prio = cfg->fifo_prio;
	sp_wd.stop = 0;
	sp_wd.kicked = 0;
	/* No signal of the application may land on our thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&sp_wd.thread, NULL, sp_wd_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0)
		sp_wd.running = 1;
	pthread_mutex_unlock(&sp_wd.lock);
	return -rc;
}

void sp_wd_stop(void)
{
	pthread_t t;

	pthread_mutex_lock(&sp_wd.lock);
	if (!sp_wd.running) {
		pthread_mutex_unlock(&sp_wd.lock);
		return;
	}
	sp_wd.stop = 1;
	t = sp_wd.thread;
	pthread_cond_signal(&sp_wd.cond);
	pthread_mutex_unlock(&sp_wd.lock);
	pthread_join(t, NULL);
	pthread_mutex_lock(&sp_wd.lock);
	sp_wd.running = 0;
	pthread_mutex_unlock(&sp_wd.lock);
}

/* Called by the actuator and when a critical thread starts waiting:
 * never blocks for long. */
void sp_wd_kick(void)
{
	pthread_mutex_lock(&sp_wd.lock);
	sp_wd.kicked = 1;
	pthread_cond_signal(&sp_wd.cond);
	pthread_mutex_unlock(&sp_wd.lock);
}

/* The watchdog thread does not exist in a forked child. */
void sp_wd_atfork_child(void)
{
	pthread_mutex_init(&sp_wd.lock, NULL);
	pthread_cond_init(&sp_wd.cond, NULL);
	sp_wd.running = 0;
	sp_wd.stop = 0;
}

uint64_t sp_wd_ticks(void)
{
	return __atomic_load_n(&sp_wd.ticks, __ATOMIC_RELAXED);
}
