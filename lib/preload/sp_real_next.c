// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The interposer's view of the real pthread lock functions.
 *
 * The untimed ones come from glibc's exported __pthread_* aliases, which
 * need no dlsym at all: they work even for lock calls made by other
 * libraries' constructors before ours ran. The timed/clock variants have no
 * alias and are found with dlsym(RTLD_NEXT), once, from our constructor or
 * from the first call that needs them (dlsym takes only glibc-internal
 * locks, which never come back through our wrappers).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sp_rt.h"
#include "sp_preload.h"

extern int __pthread_mutex_lock(pthread_mutex_t *);
extern int __pthread_mutex_trylock(pthread_mutex_t *);
extern int __pthread_mutex_unlock(pthread_mutex_t *);
extern int __pthread_mutex_destroy(pthread_mutex_t *);
extern int __pthread_rwlock_rdlock(pthread_rwlock_t *);
extern int __pthread_rwlock_tryrdlock(pthread_rwlock_t *);
extern int __pthread_rwlock_wrlock(pthread_rwlock_t *);
extern int __pthread_rwlock_trywrlock(pthread_rwlock_t *);
extern int __pthread_rwlock_unlock(pthread_rwlock_t *);
extern int __pthread_rwlock_destroy(pthread_rwlock_t *);

struct sp_real_ops sp_real = {
	.mutex_lock = __pthread_mutex_lock,
	.mutex_trylock = __pthread_mutex_trylock,
	.mutex_unlock = __pthread_mutex_unlock,
	.rwlock_rdlock = __pthread_rwlock_rdlock,
	.rwlock_tryrdlock = __pthread_rwlock_tryrdlock,
	.rwlock_wrlock = __pthread_rwlock_wrlock,
	.rwlock_trywrlock = __pthread_rwlock_trywrlock,
	.rwlock_unlock = __pthread_rwlock_unlock,
};

struct sp_real_extra sp_real_x = {
	.mutex_destroy = __pthread_mutex_destroy,
	.rwlock_destroy = __pthread_rwlock_destroy,
};

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

void sp_real_resolve(void)
{
	static int done;

	if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		return;
	/* Racing resolvers store the same values: harmless. */
	sp_rt_enter();
	__atomic_store_n(&sp_real.mutex_timedlock, sp_next("pthread_mutex_timedlock"),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&sp_real.mutex_clocklock, sp_next("pthread_mutex_clocklock"),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&sp_real.rwlock_timedrdlock, sp_next("pthread_rwlock_timedrdlock"),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&sp_real.rwlock_clockrdlock, sp_next("pthread_rwlock_clockrdlock"),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&sp_real.rwlock_timedwrlock, sp_next("pthread_rwlock_timedwrlock"),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&sp_real.rwlock_clockwrlock, sp_next("pthread_rwlock_clockwrlock"),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&sp_real_x.cond_wait, sp_next("pthread_cond_wait"), __ATOMIC_RELAXED);
	__atomic_store_n(&sp_real_x.cond_timedwait, sp_next("pthread_cond_timedwait"),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&sp_real_x.cond_clockwait, sp_next("pthread_cond_clockwait"),
			 __ATOMIC_RELAXED);
	sp_rt_leave();
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}
