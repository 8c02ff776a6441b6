// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * C11 threads (<threads.h>) for the interposer. glibc implements mtx_t and
 * cnd_t as a pthread_mutex_t and a pthread_cond_t, but its mtx_lock() calls
 * the internal __pthread_mutex_lock, which no exported wrapper sees: a C11
 * program's waits never reached the runtime. Each call here goes through
 * the exported pthread function instead (ours, found first in the lookup
 * scope like the program's own calls, so a sanitizer preloaded before us
 * still sees it), and maps its error as glibc's thrd_err_map() does.
 */
#include <errno.h>
#include <pthread.h>
#include <threads.h>

#define SP_EXPORT __attribute__((visibility("default")))

_Static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t), "mtx_t is a pthread_mutex_t");
_Static_assert(sizeof(cnd_t) == sizeof(pthread_cond_t), "cnd_t is a pthread_cond_t");

static int sp_c11_result(int err)
{
	switch (err) {
	case 0:
		return thrd_success;
	case ENOMEM:
		return thrd_nomem;
	case ETIMEDOUT:
		return thrd_timedout;
	case EBUSY:
		return thrd_busy;
	default:
		return thrd_error;
	}
}

SP_EXPORT int mtx_lock(mtx_t *m)
{
	return sp_c11_result(pthread_mutex_lock((pthread_mutex_t *)m));
}

SP_EXPORT int mtx_trylock(mtx_t *m)
{
	return sp_c11_result(pthread_mutex_trylock((pthread_mutex_t *)m));
}

SP_EXPORT int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict abstime)
{
	return sp_c11_result(pthread_mutex_timedlock((pthread_mutex_t *)m, abstime));
}

SP_EXPORT int mtx_unlock(mtx_t *m)
{
	return sp_c11_result(pthread_mutex_unlock((pthread_mutex_t *)m));
}

/* mtx_destroy returns nothing; the lock leaves the runtime's tables. */
SP_EXPORT void mtx_destroy(mtx_t *m)
{
	(void)pthread_mutex_destroy((pthread_mutex_t *)m);
}

SP_EXPORT int cnd_wait(cnd_t *c, mtx_t *m)
{
	return sp_c11_result(pthread_cond_wait((pthread_cond_t *)c, (pthread_mutex_t *)m));
}

SP_EXPORT int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m,
			    const struct timespec *restrict abstime)
{
	return sp_c11_result(pthread_cond_timedwait((pthread_cond_t *)c, (pthread_mutex_t *)m,
						    abstime));
}
