// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The first step of glibc 2.36's read lock on a writer-preferring rwlock
 * (PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP), done here before glibc's
 * rdlock so that the runtime knows which queued readers hold the lock
 * (sp_glibc_locks.h has the declaration, sp_instr_rwlock.c the why).
 *
 * glibc (nptl/pthread_rwlock_common.c, __pthread_rwlock_rdlock_full64): in
 * a read phase with a primary writer (WRLOCKED) and readers present, a new
 * reader does not register (it does not add to __readers' count) but sets
 * RWAITING and waits on the __readers futex until RWAITING is cleared (the
 * last reader's unlock, or the writer giving up, clears it and wakes every
 * such waiter); then it looks again. The loop below is that loop, on the
 * same words with the same orderings (relaxed: it is only about waiting
 * for a state change), so glibc's rdlock, called next, finds the state it
 * would have waited for, and registers. Its own copy of the loop is then a
 * few loads that find nothing to wait for, unless a writer came back in
 * between, and then it waits as it always did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sp_glibc_locks.h"
#include "sp_os.h"

/* glibc's futex_abstimed_wait for these words: 0, ETIMEDOUT, or anything
 * else (EAGAIN, EINTR), after which the caller looks at the word again. */
static int sp_glibc_futex_wait(unsigned int *word, unsigned int val, bool shared, clockid_t clk,
			       const struct timespec *abstime)
{
	int op = shared ? 0 : FUTEX_PRIVATE_FLAG;
	long rc;

	if (!abstime) {
		rc = sp_os_futex(word, op | FUTEX_WAIT, val, NULL, 0);
	} else {
		/* As glibc: a time before the epoch has passed (the kernel
		 * would say EINVAL). */
		if (abstime->tv_sec < 0)
			return ETIMEDOUT;
		op |= FUTEX_WAIT_BITSET | (clk == CLOCK_REALTIME ? FUTEX_CLOCK_REALTIME : 0);
		rc = sp_os_futex(word, op, val, abstime, FUTEX_BITSET_MATCH_ANY);
	}
	return rc == 0 ? 0 : (int)-rc;
}

int sp_glibc_read_wait_turn(pthread_rwlock_t *rw, clockid_t clk, const struct timespec *abstime)
{
	unsigned int *readers = &rw->__data.__readers;
	unsigned int r;

	if (rw->__data.__flags != PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP)
		return 0;
	/* glibc returns EINVAL for these before anything else: leave it to. */
	if (abstime && ((clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC) || abstime->tv_nsec < 0 ||
			abstime->tv_nsec >= 1000000000L))
		return 0;
	r = __atomic_load_n(readers, __ATOMIC_RELAXED);
	while ((r & SP_GLIBC_RW_WRPHASE) == 0 && (r & SP_GLIBC_RW_WRLOCKED) != 0 &&
	       r >= SP_GLIBC_RW_READER) {
		if (!__atomic_compare_exchange_n(readers, &r, r | SP_GLIBC_RW_RWAITING, true,
						 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			continue; /* r reloaded */
		while (((r = __atomic_load_n(readers, __ATOMIC_RELAXED)) & SP_GLIBC_RW_RWAITING) != 0) {
			int err = sp_glibc_futex_wait(readers, r, rw->__data.__shared != 0, clk,
						      abstime);

			if (err == ETIMEDOUT)
				return err; /* glibc: nothing to undo */
		}
	}
	return 0;
}
