// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Instrumented pthread mutex operations, shared by sp_mutex_t and the
 * interposer. The pthread call does the locking, so semantics and error
 * codes are glibc's; we only report what happened:
 *   - uncontended: trylock succeeds -> one acquire event;
 *   - contended: block event, the real (blocking or timed) lock, unblock;
 *   - unlock: the release event comes after glibc's unlock. Ending a fast
 *     track lowers the caller's priority, and the kernel may preempt it on
 *     the spot: doing that while the lock is still held would strand the
 *     lock with a low-priority owner (measured: hundreds of ms). The core
 *     clears the owner only if it is still the caller, so a new owner that
 *     reported first is kept.
 * Recursive re-locks and errorcheck self-deadlocks produce no event: glibc's
 * owner field (sp_rt_mutex_owner in sp_rt.h) tells us the caller already
 * owns the mutex.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "sp_rt.h"

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

int sp_instr_mutex_lock(pthread_mutex_t *m, enum sp_wait_kind wk, clockid_t clk,
			const struct timespec *abstime)
{
	struct sp_core *core;
	sp_tid_t self, owner;
	int rc;

	if (sp_rt_guarded() || !(core = sp_rt_core()))
		return sp_mx_real_wait(m, wk, clk, abstime);
	self = sp_rt_thread(core);
	owner = sp_mx_owner(m);
	if (owner == self) /* recursive re-lock, or EDEADLK: glibc decides */
		return sp_mx_real_wait(m, wk, clk, abstime);
	rc = sp_real.mutex_trylock(m);
	if (rc == 0 || rc == EOWNERDEAD) {
		sp_instr_acquired(self, m, SP_HOLD_EXCL);
		return rc;
	}
	if (rc != EBUSY)
		return rc;
	sp_instr_blocked(self, m, SP_HOLD_EXCL, sp_mx_owner_of);
	rc = sp_mx_real_wait(m, wk, clk, abstime);
	sp_instr_unblocked(self, m, SP_HOLD_EXCL, rc == 0 || rc == EOWNERDEAD);
	return rc;
}

int sp_instr_mutex_trylock(pthread_mutex_t *m)
{
	struct sp_core *core;
	sp_tid_t self;
	int rc;

	if (sp_rt_guarded() || !(core = sp_rt_core()))
		return sp_real.mutex_trylock(m);
	self = sp_rt_thread(core);
	if (sp_mx_owner(m) == self)
		return sp_real.mutex_trylock(m);
	rc = sp_real.mutex_trylock(m);
	if (rc == 0 || rc == EOWNERDEAD)
		sp_instr_acquired(self, m, SP_HOLD_EXCL);
	return rc;
}

int sp_instr_mutex_unlock(pthread_mutex_t *m)
{
	struct sp_core *core;
	sp_tid_t self;
	bool last;
	int rc;

	if (sp_rt_guarded() || !(core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE)))
		return sp_real.mutex_unlock(m);
	self = sp_rt_thread(core);
	last = sp_mx_owner(m) == self &&
	       !(sp_mx_type(m) == PTHREAD_MUTEX_RECURSIVE && m->__data.__count > 1);
	rc = sp_real.mutex_unlock(m);
	if (rc == 0 && last)
		sp_instr_released(self, m, SP_HOLD_EXCL);
	return rc;
}
