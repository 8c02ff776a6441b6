// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sp_mutex_t / sp_rwlock_t: the public instrumented locks. The opaque
 * storage holds the pthread lock itself at offset 0 (so the zero
 * initialisers match PTHREAD_*_INITIALIZER); the lock's address is its key
 * in the core.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>

#include "sp_instr_fast.h"

_Static_assert(sizeof(pthread_mutex_t) <= SP_LOCK_STORAGE, "sp_mutex_t too small");
_Static_assert(sizeof(pthread_rwlock_t) <= SP_LOCK_STORAGE, "sp_rwlock_t too small");
_Static_assert(_Alignof(pthread_mutex_t) <= _Alignof(sp_mutex_t), "sp_mutex_t alignment");
_Static_assert(_Alignof(pthread_rwlock_t) <= _Alignof(sp_rwlock_t), "sp_rwlock_t alignment");

static inline pthread_mutex_t *sp_pm(sp_mutex_t *m)
{
	return (pthread_mutex_t *)(void *)m->opaque.bytes;
}

static inline pthread_rwlock_t *sp_prw(sp_rwlock_t *rw)
{
	return (pthread_rwlock_t *)(void *)rw->opaque.bytes;
}

int sp_mutex_init(sp_mutex_t *m, int flags)
{
	pthread_mutexattr_t a;
	int type, rc;
	struct sp_core *core;

	switch (flags & 0xff) {
	case SP_MUTEX_NORMAL: type = PTHREAD_MUTEX_DEFAULT; break;
	case SP_MUTEX_RECURSIVE: type = PTHREAD_MUTEX_RECURSIVE; break;
	case SP_MUTEX_ERRORCHECK: type = PTHREAD_MUTEX_ERRORCHECK; break;
	default: return EINVAL;
	}
	if (flags & ~(0xff | SP_MUTEX_ROBUST | SP_MUTEX_PRIO_INHERIT))
		return EINVAL;
	rc = pthread_mutexattr_init(&a);
	if (rc)
		return rc;
	rc = pthread_mutexattr_settype(&a, type);
	if (!rc && (flags & SP_MUTEX_ROBUST))
		rc = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	if (!rc && (flags & SP_MUTEX_PRIO_INHERIT))
		rc = pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	if (!rc)
		rc = pthread_mutex_init(sp_pm(m), &a);
	pthread_mutexattr_destroy(&a);
	if (!rc && (core = sp_rt_core())) {
		sp_rt_enter();
		sp_lock_declare(core, (sp_lock_key_t)(uintptr_t)m, SP_LOCK_MUTEX);
		sp_rt_leave();
	}
	return rc;
}

int sp_mutex_destroy(sp_mutex_t *m)
{
	int rc = sp_real.mutex_destroy(sp_pm(m));

	if (rc == 0)
		sp_instr_lock_destroyed(m);
	return rc;
}

int sp_mutex_lock(sp_mutex_t *m)
{
	return sp_instr_mutex_lock_fast(sp_pm(m), NULL);
}

int sp_mutex_trylock(sp_mutex_t *m)
{
	return sp_instr_mutex_trylock(sp_pm(m));
}

int sp_mutex_timedlock(sp_mutex_t *m, const struct timespec *abstime)
{
	return sp_instr_mutex_lock(sp_pm(m), SP_WAIT_TIMED, CLOCK_REALTIME, abstime);
}

int sp_mutex_clocklock(sp_mutex_t *m, clockid_t clock, const struct timespec *abstime)
{
	return sp_instr_mutex_lock(sp_pm(m), SP_WAIT_CLOCK, clock, abstime);
}

int sp_mutex_unlock(sp_mutex_t *m)
{
	return sp_instr_mutex_unlock_fast(sp_pm(m), NULL);
}

int sp_mutex_consistent(sp_mutex_t *m)
{
	return pthread_mutex_consistent(sp_pm(m));
}

int sp_rwlock_init(sp_rwlock_t *rw, int flags)
{
	pthread_rwlockattr_t a;
	struct sp_core *core;
	int rc;

	if (flags & ~SP_RWLOCK_PREFER_WRITER)
		return EINVAL;
	rc = pthread_rwlockattr_init(&a);
	if (rc)
		return rc;
	if (flags & SP_RWLOCK_PREFER_WRITER)
		rc = pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	if (!rc)
		rc = pthread_rwlock_init(sp_prw(rw), &a);
	pthread_rwlockattr_destroy(&a);
	if (!rc && (core = sp_rt_core())) {
		sp_rt_enter();
		sp_lock_declare(core, (sp_lock_key_t)(uintptr_t)rw, SP_LOCK_RWLOCK);
		sp_rt_leave();
	}
	return rc;
}

int sp_rwlock_destroy(sp_rwlock_t *rw)
{
	int rc = sp_real.rwlock_destroy(sp_prw(rw));

	if (rc == 0)
		sp_instr_lock_destroyed(rw);
	return rc;
}

int sp_rwlock_rdlock(sp_rwlock_t *rw)
{
	return sp_instr_rwlock_rdlock_fast(sp_prw(rw));
}

int sp_rwlock_tryrdlock(sp_rwlock_t *rw)
{
	return sp_instr_rwlock_tryrdlock(sp_prw(rw));
}

int sp_rwlock_timedrdlock(sp_rwlock_t *rw, const struct timespec *abstime)
{
	return sp_instr_rwlock_rdlock(sp_prw(rw), SP_WAIT_TIMED, CLOCK_REALTIME, abstime);
}

int sp_rwlock_clockrdlock(sp_rwlock_t *rw, clockid_t clock, const struct timespec *abstime)
{
	return sp_instr_rwlock_rdlock(sp_prw(rw), SP_WAIT_CLOCK, clock, abstime);
}

int sp_rwlock_wrlock(sp_rwlock_t *rw)
{
	return sp_instr_rwlock_wrlock(sp_prw(rw), SP_WAIT_FOREVER, CLOCK_REALTIME, NULL);
}

int sp_rwlock_trywrlock(sp_rwlock_t *rw)
{
	return sp_instr_rwlock_trywrlock(sp_prw(rw));
}

int sp_rwlock_timedwrlock(sp_rwlock_t *rw, const struct timespec *abstime)
{
	return sp_instr_rwlock_wrlock(sp_prw(rw), SP_WAIT_TIMED, CLOCK_REALTIME, abstime);
}

int sp_rwlock_clockwrlock(sp_rwlock_t *rw, clockid_t clock, const struct timespec *abstime)
{
	return sp_instr_rwlock_wrlock(sp_prw(rw), SP_WAIT_CLOCK, clock, abstime);
}

int sp_rwlock_unlock(sp_rwlock_t *rw)
{
	return sp_instr_rwlock_unlock_fast(sp_prw(rw));
}
