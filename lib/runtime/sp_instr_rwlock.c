// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Instrumented pthread rwlock operations, shared by sp_rwlock_t and the
 * interposer. glibc records the writer's TID in __data.__cur_writer; readers
 * are anonymous, so every read acquire/release is reported and the core's
 * bounded tracker keeps up to K of them per lock.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "sp_rt.h"

static inline sp_tid_t sp_rw_writer(const pthread_rwlock_t *rw)
{
	return (sp_tid_t)(unsigned int)__atomic_load_n(&rw->__data.__cur_writer,
						       __ATOMIC_RELAXED);
}

static sp_tid_t sp_rw_writer_of(const void *lock)
{
	return sp_rw_writer(lock);
}

static int sp_rw_real(pthread_rwlock_t *rw, enum sp_hold hold, enum sp_wait_kind wk,
		      clockid_t clk, const struct timespec *abstime)
{
	if (hold == SP_HOLD_SHARED) {
		if (wk == SP_WAIT_TIMED)
			return sp_real.rwlock_timedrdlock(rw, abstime);
		if (wk == SP_WAIT_CLOCK)
			return sp_real.rwlock_clockrdlock(rw, clk, abstime);
		return sp_real.rwlock_rdlock(rw);
	}
	if (wk == SP_WAIT_TIMED)
		return sp_real.rwlock_timedwrlock(rw, abstime);
	if (wk == SP_WAIT_CLOCK)
		return sp_real.rwlock_clockwrlock(rw, clk, abstime);
	return sp_real.rwlock_wrlock(rw);
}

static int sp_rw_lock(pthread_rwlock_t *rw, enum sp_hold hold, enum sp_wait_kind wk,
		      clockid_t clk, const struct timespec *abstime)
{
	struct sp_core *core;
	sp_tid_t self;
	int rc;

	if (sp_rt_guarded() || !(core = sp_rt_core()))
		return sp_rw_real(rw, hold, wk, clk, abstime);
	self = sp_rt_thread(core);
	if (sp_rw_writer(rw) == self) /* EDEADLK: glibc says so without blocking */
		return sp_rw_real(rw, hold, wk, clk, abstime);
	rc = hold == SP_HOLD_SHARED ? sp_real.rwlock_tryrdlock(rw) : sp_real.rwlock_trywrlock(rw);
	if (rc == 0) {
		sp_instr_acquired(self, rw, hold);
		return 0;
	}
	if (rc != EBUSY)
		return rc;
	sp_instr_blocked(self, rw, hold, sp_rw_writer_of);
	rc = sp_rw_real(rw, hold, wk, clk, abstime);
	sp_instr_unblocked(self, rw, hold, rc == 0);
	return rc;
}

int sp_instr_rwlock_rdlock(pthread_rwlock_t *rw, enum sp_wait_kind wk, clockid_t clk,
			   const struct timespec *abstime)
{
	return sp_rw_lock(rw, SP_HOLD_SHARED, wk, clk, abstime);
}

int sp_instr_rwlock_wrlock(pthread_rwlock_t *rw, enum sp_wait_kind wk, clockid_t clk,
			   const struct timespec *abstime)
{
	return sp_rw_lock(rw, SP_HOLD_EXCL, wk, clk, abstime);
}

static int sp_rw_try(pthread_rwlock_t *rw, enum sp_hold hold)
{
	struct sp_core *core;
	int rc;

	rc = hold == SP_HOLD_SHARED ? sp_real.rwlock_tryrdlock(rw) : sp_real.rwlock_trywrlock(rw);
	if (rc == 0 && !sp_rt_guarded() && (core = sp_rt_core()))
		sp_instr_acquired(sp_rt_thread(core), rw, hold);
	return rc;
}

int sp_instr_rwlock_tryrdlock(pthread_rwlock_t *rw)
{
	return sp_rw_try(rw, SP_HOLD_SHARED);
}

int sp_instr_rwlock_trywrlock(pthread_rwlock_t *rw)
{
	return sp_rw_try(rw, SP_HOLD_EXCL);
}

int sp_instr_rwlock_unlock(pthread_rwlock_t *rw)
{
	enum sp_hold hold;
	struct sp_core *core;
	sp_tid_t self;
	int rc;

	if (sp_rt_guarded() || !(core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE)))
		return sp_real.rwlock_unlock(rw);
	self = sp_rt_thread(core);
	hold = sp_rw_writer(rw) == self ? SP_HOLD_EXCL : SP_HOLD_SHARED;
	rc = sp_real.rwlock_unlock(rw);
	/* After the unlock, as for mutexes (see sp_instr_mutex.c). */
	if (rc == 0)
		sp_instr_released(self, rw, hold);
	return rc;
}
