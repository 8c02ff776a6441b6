// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The sleeping half of sp_os_lock_t, the futex mutex of sp_os_posix.h. */
#include "sp_os_posix.h"

/* sp_os_lock found the lock held (@seen != 0): mark it contended (2) and
 * sleep until an exchange finds it free. Whoever takes it this way leaves
 * it at 2, so its unlock wakes the next sleeper, if any. */
void sp_os_lock_wait(sp_os_lock_t *l, uint32_t seen)
{
	if (seen != 2)
		seen = __atomic_exchange_n(&l->state, 2, __ATOMIC_ACQUIRE);
	while (seen != 0) {
		sp_os_futex_wait(&l->state, 2);
		seen = __atomic_exchange_n(&l->state, 2, __ATOMIC_ACQUIRE);
	}
}
