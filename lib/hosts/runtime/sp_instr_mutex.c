// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Instrumented pthread mutex operations, shared by sp_mutex_t and the
 * interposer. glibc's calls (or its own algorithm, on its own words,
 * sp_glibc_locks.h) do the locking, so semantics and error codes are
 * glibc's; we only report what the core needs
 * (sp_instr_watch.c says when):
 *   - uncontended: the trylock succeeds and nothing is reported, unless a
 *     critical thread waits somewhere (then one acquire event, and the
 *     lock goes in our list so its release is reported);
 *   - contended: block event (with the owner from the lock word), the
 *     real (blocking or timed) lock, unblock (which records the acquire);
 *     a default mutex's untimed wait is glibc's own loop run here, which
 *     reports the owner again after every wake that lost the lock
 *     (sp_glibc_mutex_lock_wait: a holder that took it back unseen);
 *   - unlock: a release event only for a hold the core was told about (or
 *     while a critical thread waits, if we are fast-tracked), after glibc's
 *     unlock. Ending a fast track lowers the caller's priority, and the
 *     kernel may preempt it on the spot: doing that while the lock is still
 *     held would strand the lock with a low-priority owner. The core
 *     clears the owner only if it is still the
 *     caller, so a new owner that reported first is kept.
 * Recursive re-locks and errorcheck self-deadlocks produce no event: our
 * list, or glibc's owner field (sp_rt_mutex_owner in sp_rt.h), tells us
 * the caller already owns the mutex.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "sp_handoff.h"
#include "sp_instr_fast.h"

#define SP_MUTEX_KIND_MASK 3 /* PTHREAD_MUTEX_KIND_MASK_NP */

static inline sp_tid_t sp_mx_owner(const pthread_mutex_t *m)
{
	return sp_rt_mutex_owner(m);
}

static sp_tid_t sp_mx_owner_of(const void *lock)
{
	return sp_rt_mutex_owner(lock);
}

static inline int sp_mx_type(const pthread_mutex_t *m)
{
	return __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) & SP_MUTEX_KIND_MASK;
}

static int sp_mx_real_wait(pthread_mutex_t *m, enum sp_wait_kind wk, clockid_t clk,
			   const struct timespec *abstime)
{
	switch (wk) {
	case SP_WAIT_TIMED:
		return sp_real.mutex_timedlock(m, abstime);
	case SP_WAIT_CLOCK:
		return sp_real.mutex_clocklock(m, clk, abstime);
	case SP_WAIT_FOREVER:
	default:
		return sp_real.mutex_lock(m);
	}
}

struct sp_mx_waiting {
	sp_tid_t self;
	pthread_mutex_t *m;
};

/* Every wake that did not get the lock: even the owner the block named
 * may be new to the core, which heard it release the lock in between
 * (and forgot it) but not take it back. */
static void sp_mx_retaken(void *ctx, int owner)
{
	struct sp_mx_waiting *w = ctx;

	if ((sp_tid_t)owner != w->self)
		sp_instr_blocked_again(w->self, w->m, SP_HOLD_EXCL, (sp_tid_t)owner);
}

/* The wait of a lock call whose block was reported: a default mutex's
 * untimed one is glibc's loop with a report for every new holder it
 * finds (sp_glibc_mutex_lock_wait), every other one glibc's own call. */
static int sp_mx_wait(pthread_mutex_t *m, enum sp_wait_kind wk, clockid_t clk,
		      const struct timespec *abstime, sp_tid_t self)
{
	struct sp_mx_waiting w = { .self = self, .m = m };

	if (wk != SP_WAIT_FOREVER || !sp_glibc_mutex_plain(m))
		return sp_mx_real_wait(m, wk, clk, abstime);
	sp_glibc_mutex_lock_wait(m, (int)self, sp_mx_retaken, &w);
	return 0;
}

/* A trylock succeeded: anything to tell? */
static inline void sp_mx_took(pthread_mutex_t *m)
{
	sp_iw_took();
	if (sp_iw_self.n != 0 || sp_iw_active())
		sp_iw_note_acquire(m, SP_HOLD_EXCL);
}

/* @may_yield: the lock, once had, may go to a critical waiter first
 * (sp_handoff.h); false once this call yielded. */
static int sp_mx_lock_slow(pthread_mutex_t *m, enum sp_wait_kind wk, clockid_t clk,
			   const struct timespec *abstime, bool may_yield)
{
	struct sp_core *core;
	sp_tid_t self;
	int rc;

	if (!(core = sp_rt_core()))
		return sp_mx_real_wait(m, wk, clk, abstime);
	self = sp_rt_thread(core);
	if (sp_mx_owner(m) == self) /* EDEADLK, or a normal mutex's self-deadlock: glibc's */
		return sp_mx_real_wait(m, wk, clk, abstime);
	sp_instr_blocked(self, m, SP_HOLD_EXCL, sp_mx_owner_of, false);
	rc = sp_mx_wait(m, wk, clk, abstime, self);
	if (rc == 0 && may_yield && sp_ho_yield(m))
		rc = sp_mx_wait(m, wk, clk, abstime, self); /* still the same wait */
	sp_instr_unblocked(self, m, SP_HOLD_EXCL, rc == 0 || rc == EOWNERDEAD);
	return rc;
}

/* The trylock returned @rc (not 0): the rest of a blocking lock. */
static int sp_instr_mutex_lock_tried(pthread_mutex_t *m, int rc)
{
	if (rc == EOWNERDEAD) {
		sp_mx_took(m);
		return rc;
	}
	if (rc != EBUSY)
		return rc;
	return sp_mx_lock_slow(m, SP_WAIT_FOREVER, CLOCK_REALTIME, NULL, true);
}

int sp_instr_mutex_busy(pthread_mutex_t *m, sp_instr_skip_fn skip)
{
	if (sp_rt_guarded() || (skip && skip(m)))
		return sp_real.mutex_lock(m);
	return sp_instr_mutex_lock_tried(m, EBUSY);
}

int sp_instr_mutex_took(pthread_mutex_t *m, sp_instr_skip_fn skip)
{
	sp_iw_took(); /* the inline path's is not enough for sp_instr_mutex_lock_other's */
	if (sp_rt_guarded() || (skip && skip(m)))
		return 0;
	if (sp_ho_yield(m))
		return sp_mx_lock_slow(m, SP_WAIT_FOREVER, CLOCK_REALTIME, NULL, false);
	sp_iw_note_acquire(m, SP_HOLD_EXCL);
	return 0;
}

int sp_instr_mutex_lock_other(pthread_mutex_t *m, sp_instr_skip_fn skip)
{
	int rc;

	if (sp_rt_guarded())
		return sp_real.mutex_lock(m);
	/* Not registered yet (reg 0; the runtime may not exist either, and is
	 * created as a read lock would create it): then the next lock of a
	 * default mutex is the inline one. */
	if (sp_iw_self.gen != __atomic_load_n(&sp_rt_gen, __ATOMIC_RELAXED) || sp_iw_self.reg == 0) {
		if (skip && skip(m))
			return sp_real.mutex_lock(m);
		sp_iw_register();
	}
	rc = sp_real.mutex_trylock(m);
	if (rc != 0) {
		if (skip && skip(m))
			return rc == EBUSY ? sp_real.mutex_lock(m) : rc;
		return sp_instr_mutex_lock_tried(m, rc);
	}
	return sp_instr_mutex_took(m, skip);
}

int sp_instr_mutex_lock(pthread_mutex_t *m, enum sp_wait_kind wk, clockid_t clk,
			const struct timespec *abstime)
{
	int rc;

	if (sp_rt_guarded())
		return sp_mx_real_wait(m, wk, clk, abstime);
	sp_iw_ready();
	rc = sp_real.mutex_trylock(m);
	if (__builtin_expect(rc == 0, 1) && sp_ho_yield(m))
		return sp_mx_lock_slow(m, wk, clk, abstime, false);
	if (__builtin_expect(rc == 0, 1) || rc == EOWNERDEAD) {
		sp_mx_took(m);
		return rc;
	}
	if (rc != EBUSY)
		return rc;
	return sp_mx_lock_slow(m, wk, clk, abstime, true);
}

int sp_instr_mutex_trylock(pthread_mutex_t *m)
{
	int rc;

	if (sp_rt_guarded())
		return sp_real.mutex_trylock(m);
	sp_iw_ready();
	rc = sp_real.mutex_trylock(m);
	if (rc == 0 || rc == EOWNERDEAD)
		sp_mx_took(m);
	return rc;
}

int sp_instr_mutex_unlock_slow(pthread_mutex_t *m)
{
	struct sp_core *core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE);
	sp_tid_t self;
	int told, rc;

	told = sp_iw_release(m);
	if (told == SP_IW_KEEP || !core) /* a recursive hold remains */
		return sp_real.mutex_unlock(m);
	self = sp_rt_thread(core);
	/* Not told, but a critical thread waits: if we are fast-tracked, the
	 * owner the core took from the word may be us, and our grant ends
	 * with this release. */
	if (told == SP_IW_QUIET && sp_iw_active() && sp_mx_owner(m) == self &&
	    !(sp_mx_type(m) == PTHREAD_MUTEX_RECURSIVE && m->__data.__count > 1)) {
		sp_rt_enter();
		told = sp_task_fast_tracked(core, self) == 1;
		sp_rt_leave();
	}
	rc = sp_real.mutex_unlock(m);
	if (rc == 0 && told > 0)
		sp_instr_released(self, m, SP_HOLD_EXCL);
	return rc;
}

/* pthread_cond_*wait drops and retakes the mutex inside glibc: a hold the
 * core was told about ends and starts again around it. */
int sp_instr_mutex_cond_enter(pthread_mutex_t *m)
{
	struct sp_core *core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE);
	int i;

	if (sp_rt_guarded() || !core || (i = sp_iw_find(m)) < 0 ||
	    !__atomic_load_n(&sp_iw_self.e[i].claim, __ATOMIC_RELAXED))
		return 0;
	/* The whole recursive hold goes (glibc drops it whole). */
	sp_iw_self.extra[i] = 0;
	if (sp_iw_release(m) <= 0)
		return 0;
	sp_instr_released(sp_rt_thread(core), m, SP_HOLD_EXCL);
	return 1;
}

void sp_instr_mutex_cond_leave(pthread_mutex_t *m, int told)
{
	struct sp_core *core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE);

	if (!told || !core)
		return;
	if (sp_iw_list_reported(m, SP_HOLD_EXCL))
		sp_instr_acquired(sp_rt_thread(core), m, SP_HOLD_EXCL);
}
