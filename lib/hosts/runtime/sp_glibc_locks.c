// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Whether glibc elides default mutexes here (sp_glibc_locks.h says why that
 * turns the inline mutex path off), and the contended end of the inline
 * unlock. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sp_glibc_locks.h"
#include "sp_os.h"
#include "sp_rt.h"

void sp_glibc_mutex_wake(pthread_mutex_t *m)
{
	sp_os_futex_wake((uint32_t *)(void *)&m->__data.__lock, 1);
}

void sp_glibc_mutex_lock_wait(pthread_mutex_t *m, int tid, void (*retaken)(void *ctx, int owner),
			      void *ctx)
{
	int *word = &m->__data.__lock, owner;

	if (__atomic_load_n(word, __ATOMIC_RELAXED) != 2 &&
	    __atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE) == 0)
		goto got;
	for (;;) {
		/* EAGAIN (no longer 2) and EINTR both mean: try again */
		sp_os_futex_wait((uint32_t *)(void *)word, 2);
		if (__atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE) == 0)
			break;
		owner = __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED);
		if (owner)
			retaken(ctx, owner);
	}
got:
	__atomic_store_n(&m->__data.__owner, tid, __ATOMIC_RELAXED);
	m->__data.__nusers++;
}

int sp_glibc_plain_kind = -1;

void sp_glibc_probe(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	int kind;

	if (__atomic_load_n(&sp_glibc_plain_kind, __ATOMIC_RELAXED) == 0)
		return;
	/* With glibc.elision.enable=1, glibc's first lock of a default mutex
	 * marks it for elision in __kind (FORCE_ELISION). */
	sp_real_resolve();
	if (sp_real.mutex_lock(&m) != 0)
		return;
	kind = __atomic_load_n(&m.__data.__kind, __ATOMIC_RELAXED);
	sp_real.mutex_unlock(&m);
	if (kind == 0)
		__atomic_store_n(&sp_glibc_plain_kind, 0, __ATOMIC_RELAXED);
}
