/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The uncontended lock paths, inline in sp_mutex_t / sp_rwlock_t and in the
 * interposer's wrappers: a call level less is a measurable share of a
 * lock+unlock that costs glibc about 7 ns (`superpass bench micro`). What
 * happens past the trylock is out of line (sp_instr_mutex.c,
 * sp_instr_rwlock.c); sp_instr_watch.h says what is reported when.
 */
#ifndef SP_INSTR_FAST_H
#define SP_INSTR_FAST_H

#include <errno.h>

#include "sp_instr_watch.h"

#pragma GCC visibility push(hidden)

/* The trylock returned @rc (not 0): the rest of a blocking lock. */
int sp_instr_mutex_lock_tried(pthread_mutex_t *m, int rc);
int sp_instr_rwlock_rdlock_tried(pthread_rwlock_t *rw, int rc);

/*
 * @skip (a constant: NULL, or the interposer's test for liburcu's own
 * mutexes, which must never reach the runtime: sp_preload.c) is asked
 * only where the runtime would be entered, so that the uncontended path
 * does not pay for it. A skipped lock gets what a plain lock would: the
 * trylock, then the real lock if it was busy.
 */
typedef bool (*sp_instr_skip_fn)(const void *lock);

static inline int sp_instr_mutex_lock_fast(pthread_mutex_t *m, sp_instr_skip_fn skip)
{
	int rc;

	if (__builtin_expect(sp_rt_guarded(), 0))
		return sp_real.mutex_lock(m);
	if (__builtin_expect(sp_iw_self.gen != __atomic_load_n(&sp_rt_gen, __ATOMIC_RELAXED), 0)) {
		if (skip && skip(m))
			return sp_real.mutex_lock(m);
		sp_iw_register();
	}
	rc = sp_real.mutex_trylock(m);
	if (__builtin_expect(rc != 0, 0)) {
		if (skip && skip(m))
			return rc == EBUSY ? sp_real.mutex_lock(m) : rc;
		return sp_instr_mutex_lock_tried(m, rc);
	}
	if (__builtin_expect(sp_iw_self.n != 0 || sp_iw_active(), 0) && !(skip && skip(m)))
		sp_iw_note_acquire(m, SP_HOLD_EXCL);
	return 0;
}

static inline int sp_instr_mutex_unlock_fast(pthread_mutex_t *m, sp_instr_skip_fn skip)
{
	if (__builtin_expect((sp_iw_self.n | (uint32_t)sp_iw_active()) == 0, 1) ||
	    sp_rt_guarded() || (skip && skip(m)))
		return sp_real.mutex_unlock(m);
	return sp_instr_mutex_unlock_slow(m);
}

static inline int sp_instr_rwlock_rdlock_fast(pthread_rwlock_t *rw)
{
	int rc;

	if (__builtin_expect(sp_rt_guarded(), 0))
		return sp_real.rwlock_rdlock(rw);
	sp_iw_ready();
	rc = sp_real.rwlock_tryrdlock(rw);
	if (__builtin_expect(rc != 0, 0))
		return sp_instr_rwlock_rdlock_tried(rw, rc);
	sp_iw_read_acquired(rw);
	return 0;
}

/* The only rwlock unlock (sp_rwlock_unlock and the interposer's): the
 * real unlock is a tail call unless the core must hear of the release. */
static inline int sp_instr_rwlock_unlock_fast(pthread_rwlock_t *rw)
{
	int told;

	if (__builtin_expect(sp_rt_guarded(), 0))
		return sp_real.rwlock_unlock(rw);
	told = sp_iw_release(rw);
	if (__builtin_expect(told == SP_IW_QUIET && !sp_iw_active(), 1) || told == SP_IW_KEEP)
		return sp_real.rwlock_unlock(rw);
	return sp_instr_rwlock_unlock_told(rw, told);
}

#pragma GCC visibility pop

#endif /* SP_INSTR_FAST_H */
