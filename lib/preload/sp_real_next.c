// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The interposer's view of the real pthread lock functions.
 *
 * All of them are found with dlsym(RTLD_NEXT): the next definition after
 * the interposer, which is glibc's, or a sanitizer's interceptor when the
 * sanitizer runtime is preloaded after us. (glibc's __pthread_mutex_lock
 * aliases would avoid dlsym, but ASan and TSan intercept those names with
 * no real function behind them.) The constructor resolves them; a lock call
 * that comes earlier (another library's constructor) reaches a stand-in
 * that resolves them first (SP_LAZY).
 * dlsym takes only glibc-internal locks, which never reach our wrappers.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sp_rt.h"
#include "sp_preload.h"

/*
 * Until the constructor (or an earlier lock call) resolves them, every
 * pointer leads to a stand-in that resolves them all and calls the real
 * function: the wrappers call through sp_real with no test of their own.
 */
#define SP_LAZY(ops, field, params, args)                                                 \
	static int sp_lazy_##field params                                                 \
	{                                                                                 \
		sp_real_resolve();                                                        \
		return __atomic_load_n(&ops.field, __ATOMIC_RELAXED) args;                \
	}

SP_LAZY(sp_real, mutex_lock, (pthread_mutex_t *m), (m))
SP_LAZY(sp_real, mutex_trylock, (pthread_mutex_t *m), (m))
SP_LAZY(sp_real, mutex_timedlock, (pthread_mutex_t *m, const struct timespec *t), (m, t))
SP_LAZY(sp_real, mutex_clocklock, (pthread_mutex_t *m, clockid_t c, const struct timespec *t), (m, c, t))
SP_LAZY(sp_real, mutex_unlock, (pthread_mutex_t *m), (m))
SP_LAZY(sp_real, rwlock_rdlock, (pthread_rwlock_t *rw), (rw))
SP_LAZY(sp_real, rwlock_tryrdlock, (pthread_rwlock_t *rw), (rw))
SP_LAZY(sp_real, rwlock_timedrdlock, (pthread_rwlock_t *rw, const struct timespec *t), (rw, t))
SP_LAZY(sp_real, rwlock_clockrdlock, (pthread_rwlock_t *rw, clockid_t c, const struct timespec *t), (rw, c, t))
SP_LAZY(sp_real, rwlock_wrlock, (pthread_rwlock_t *rw), (rw))
SP_LAZY(sp_real, rwlock_trywrlock, (pthread_rwlock_t *rw), (rw))
SP_LAZY(sp_real, rwlock_timedwrlock, (pthread_rwlock_t *rw, const struct timespec *t), (rw, t))
SP_LAZY(sp_real, rwlock_clockwrlock, (pthread_rwlock_t *rw, clockid_t c, const struct timespec *t), (rw, c, t))
SP_LAZY(sp_real, rwlock_unlock, (pthread_rwlock_t *rw), (rw))
SP_LAZY(sp_real_x, mutex_destroy, (pthread_mutex_t *m), (m))
SP_LAZY(sp_real_x, rwlock_destroy, (pthread_rwlock_t *rw), (rw))
SP_LAZY(sp_real_x, cond_wait, (pthread_cond_t *c, pthread_mutex_t *m), (c, m))
SP_LAZY(sp_real_x, cond_timedwait, (pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t), (c, m, t))
SP_LAZY(sp_real_x, cond_clockwait, (pthread_cond_t *c, pthread_mutex_t *m, clockid_t k, const struct timespec *t), (c, m, k, t))

struct sp_real_ops sp_real = {
	.mutex_lock = sp_lazy_mutex_lock,
	.mutex_trylock = sp_lazy_mutex_trylock,
	.mutex_timedlock = sp_lazy_mutex_timedlock,
	.mutex_clocklock = sp_lazy_mutex_clocklock,
	.mutex_unlock = sp_lazy_mutex_unlock,
	.rwlock_rdlock = sp_lazy_rwlock_rdlock,
	.rwlock_tryrdlock = sp_lazy_rwlock_tryrdlock,
	.rwlock_timedrdlock = sp_lazy_rwlock_timedrdlock,
	.rwlock_clockrdlock = sp_lazy_rwlock_clockrdlock,
	.rwlock_wrlock = sp_lazy_rwlock_wrlock,
	.rwlock_trywrlock = sp_lazy_rwlock_trywrlock,
	.rwlock_timedwrlock = sp_lazy_rwlock_timedwrlock,
	.rwlock_clockwrlock = sp_lazy_rwlock_clockwrlock,
	.rwlock_unlock = sp_lazy_rwlock_unlock,
};
struct sp_real_extra sp_real_x = {
	.mutex_destroy = sp_lazy_mutex_destroy,
	.rwlock_destroy = sp_lazy_rwlock_destroy,
	.cond_wait = sp_lazy_cond_wait,
	.cond_timedwait = sp_lazy_cond_timedwait,
	.cond_clockwait = sp_lazy_cond_clockwait,
};
static int sp_real_ready;

static void *sp_next(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		static const char msg[] = "superpass-preload: a pthread function is missing\n";
		ssize_t r = write(STDERR_FILENO, msg, sizeof(msg) - 1);

		(void)r;
		abort();
	}
	return p;
}

#define SP_RESOLVE(field, name) \
	__atomic_store_n(&field, (__typeof__(field))sp_next(name), __ATOMIC_RELAXED)

void sp_real_resolve(void)
{
	/* Acquire: pairs with the release below, so that a stand-in called
	 * late (its caller read the old pointer) then reads the real one. */
	if (__atomic_load_n(&sp_real_ready, __ATOMIC_ACQUIRE))
		return;
	/* Racing resolvers store the same values: harmless. */
	sp_rt_enter();
	SP_RESOLVE(sp_real.mutex_lock, "pthread_mutex_lock");
	SP_RESOLVE(sp_real.mutex_trylock, "pthread_mutex_trylock");
	SP_RESOLVE(sp_real.mutex_timedlock, "pthread_mutex_timedlock");
	SP_RESOLVE(sp_real.mutex_clocklock, "pthread_mutex_clocklock");
	SP_RESOLVE(sp_real.mutex_unlock, "pthread_mutex_unlock");
	SP_RESOLVE(sp_real.rwlock_rdlock, "pthread_rwlock_rdlock");
	SP_RESOLVE(sp_real.rwlock_tryrdlock, "pthread_rwlock_tryrdlock");
	SP_RESOLVE(sp_real.rwlock_timedrdlock, "pthread_rwlock_timedrdlock");
	SP_RESOLVE(sp_real.rwlock_clockrdlock, "pthread_rwlock_clockrdlock");
	SP_RESOLVE(sp_real.rwlock_wrlock, "pthread_rwlock_wrlock");
	SP_RESOLVE(sp_real.rwlock_trywrlock, "pthread_rwlock_trywrlock");
	SP_RESOLVE(sp_real.rwlock_timedwrlock, "pthread_rwlock_timedwrlock");
	SP_RESOLVE(sp_real.rwlock_clockwrlock, "pthread_rwlock_clockwrlock");
	SP_RESOLVE(sp_real.rwlock_unlock, "pthread_rwlock_unlock");
	SP_RESOLVE(sp_real_x.mutex_destroy, "pthread_mutex_destroy");
	SP_RESOLVE(sp_real_x.rwlock_destroy, "pthread_rwlock_destroy");
	SP_RESOLVE(sp_real_x.cond_wait, "pthread_cond_wait");
	SP_RESOLVE(sp_real_x.cond_timedwait, "pthread_cond_timedwait");
	SP_RESOLVE(sp_real_x.cond_clockwait, "pthread_cond_clockwait");
	sp_rt_leave();
	__atomic_store_n(&sp_real_ready, 1, __ATOMIC_RELEASE);
}
