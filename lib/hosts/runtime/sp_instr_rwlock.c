// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Instrumented pthread rwlock operations, shared by sp_rwlock_t and the
 * interposer. glibc records the writer's TID in __data.__cur_writer, which
 * a waiter reads when it blocks; readers are anonymous, so each thread
 * lists the read locks it holds, and the core hears about the readers of
 * watched rwlocks only (sp_instr_watch.c), keeping up to K per lock in its
 * bounded tracker.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "sp_instr_fast.h"

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

/* The lock is ours in @hold: list a read hold, tell the core what it needs. */
static inline void sp_rw_took(pthread_rwlock_t *rw, enum sp_hold hold)
{
	if (hold == SP_HOLD_SHARED) {
		sp_iw_read_acquired(rw);
		return;
	}
	sp_iw_took();
	if (__builtin_expect(sp_iw_self.n != 0 || sp_iw_active(), 0))
		sp_iw_note_acquire(rw, SP_HOLD_EXCL);
}

static int sp_rw_lock_slow(pthread_rwlock_t *rw, enum sp_hold hold, enum sp_wait_kind wk,
			   clockid_t clk, const struct timespec *abstime)
{
	struct sp_core *core;
	sp_tid_t self;
	int rc, slot;

	if (!(core = sp_rt_core()))
		return sp_rw_real(rw, hold, wk, clk, abstime);
	self = sp_rt_thread(core);
	if (sp_rw_writer(rw) == self) /* EDEADLK: glibc says so without blocking */
		return sp_rw_real(rw, hold, wk, clk, abstime);
	sp_instr_blocked(self, rw, hold, sp_rw_writer_of, true);
	slot = -1;
	if (hold == SP_HOLD_SHARED) {
		/* A reader is listed (queued) before it blocks in glibc, where
		 * it may be handed the lock asleep (sp_iw_read_pending says
		 * why), but only once it is registered there: a reader that
		 * waits behind a writer without registering (glibc's RWAITING,
		 * writer-preferring locks) holds nothing, in any phase, and
		 * listed it would take one of the K reader slots of the core
		 * from a reader in its section (K waiting readers would leave
		 * a holding one beyond K unboosted). After
		 * the block report: a scan that tells the core of us before
		 * our block is known makes our own walk meet us as a holder
		 * of the lock we wait for, a deadlock that is not one
		 * (sp_graph_walk.c). */
		rc = sp_glibc_read_wait_turn(rw, clk, wk == SP_WAIT_FOREVER ? NULL : abstime);
		if (rc != 0) {
			sp_instr_unblocked(self, rw, hold, false);
			return rc;
		}
		slot = sp_iw_read_pending(rw);
	}
	rc = sp_rw_real(rw, hold, wk, clk, abstime);
	if (slot >= 0)
		sp_instr_read_unblocked(self, rw, slot, rc == 0);
	else
		sp_instr_unblocked(self, rw, hold, rc == 0);
	return rc;
}

static inline int sp_rw_lock(pthread_rwlock_t *rw, enum sp_hold hold, enum sp_wait_kind wk,
			     clockid_t clk, const struct timespec *abstime)
{
	int rc;

	if (sp_rt_guarded())
		return sp_rw_real(rw, hold, wk, clk, abstime);
	sp_iw_ready();
	rc = hold == SP_HOLD_SHARED ? sp_real.rwlock_tryrdlock(rw) : sp_real.rwlock_trywrlock(rw);
	if (__builtin_expect(rc == 0, 1)) {
		sp_rw_took(rw, hold);
		return 0;
	}
	if (rc != EBUSY)
		return rc;
	return sp_rw_lock_slow(rw, hold, wk, clk, abstime);
}

int sp_instr_rwlock_rdlock_other(pthread_rwlock_t *rw)
{
	return sp_rw_lock(rw, SP_HOLD_SHARED, SP_WAIT_FOREVER, CLOCK_REALTIME, NULL);
}

int sp_instr_rwlock_read_listed(pthread_rwlock_t *rw)
{
	sp_iw_read_watched(rw);
	return 0;
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
	bool guarded = sp_rt_guarded();
	int rc;

	if (!guarded)
		sp_iw_ready();
	rc = hold == SP_HOLD_SHARED ? sp_real.rwlock_tryrdlock(rw) : sp_real.rwlock_trywrlock(rw);
	if (rc == 0 && !guarded)
		sp_rw_took(rw, hold);
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

/* @told: what sp_iw_release said (SP_IW_TOLD: the core was told of this
 * hold; SP_IW_QUIET with a critical wait in progress). */
int sp_instr_rwlock_unlock_told(pthread_rwlock_t *rw, int told)
{
	enum sp_hold hold = told > 0 ? SP_IW_TOLD_HOLD(told) : SP_HOLD_EXCL;
	struct sp_core *core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE);
	sp_tid_t self;
	int rc;

	if (!core)
		return sp_real.rwlock_unlock(rw);
	self = sp_rt_thread(core);
	/* An unlisted writer the core took from the word, fast-tracked while
	 * a critical thread waits: its grant ends with this release. */
	if (told == SP_IW_QUIET && sp_iw_active() && sp_rw_writer(rw) == self) {
		sp_rt_enter();
		told = sp_task_fast_tracked(core, self) == 1;
		sp_rt_leave();
	}
	rc = sp_real.rwlock_unlock(rw);
	/* After the unlock, as for mutexes (see sp_instr_mutex.c). */
	if (rc == 0 && told > 0)
		sp_instr_released(self, rw, hold);
	return rc;
}

int sp_instr_rwlock_unlock_other(pthread_rwlock_t *rw)
{
	int told;

	if (sp_rt_guarded())
		return sp_real.rwlock_unlock(rw);
	told = sp_iw_release(rw);
	if ((told == SP_IW_QUIET && !sp_iw_active()) || told == SP_IW_KEEP)
		return sp_real.rwlock_unlock(rw);
	return sp_instr_rwlock_unlock_told(rw, told);
}

int sp_instr_rwlock_unlock_popped(pthread_rwlock_t *rw, int slot)
{
	int told = SP_IW_QUIET;

	if (__atomic_load_n(&sp_iw_self.e[slot].claim, __ATOMIC_ACQUIRE) != 0)
		told = sp_iw_release_claimed(slot, rw, SP_HOLD_SHARED);
	if (told == SP_IW_QUIET && !sp_iw_active())
		return sp_real.rwlock_unlock(rw);
	return sp_instr_rwlock_unlock_told(rw, told);
}
