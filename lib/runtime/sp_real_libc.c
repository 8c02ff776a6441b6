// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* libsuperpass: the instrumented locks call glibc's pthread functions.
 * (The interposer replaces this file with lib/preload/sp_real_next.c.) */
#define _GNU_SOURCE
#include "sp_rt.h"

struct sp_real_ops sp_real = {
	.mutex_lock = pthread_mutex_lock,
	.mutex_trylock = pthread_mutex_trylock,
	.mutex_timedlock = pthread_mutex_timedlock,
	.mutex_clocklock = pthread_mutex_clocklock,
	.mutex_unlock = pthread_mutex_unlock,
	.rwlock_rdlock = pthread_rwlock_rdlock,
	.rwlock_tryrdlock = pthread_rwlock_tryrdlock,
	.rwlock_timedrdlock = pthread_rwlock_timedrdlock,
	.rwlock_clockrdlock = pthread_rwlock_clockrdlock,
	.rwlock_wrlock = pthread_rwlock_wrlock,
	.rwlock_trywrlock = pthread_rwlock_trywrlock,
	.rwlock_timedwrlock = pthread_rwlock_timedwrlock,
	.rwlock_clockwrlock = pthread_rwlock_clockwrlock,
	.rwlock_unlock = pthread_rwlock_unlock,
};

void sp_real_resolve(void)
{
}
