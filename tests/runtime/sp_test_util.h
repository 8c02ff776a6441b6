/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Helpers for the runtime tests. Waiting is by polling a condition with a
 * generous iteration bound: a bound only turns a hang into a failure, no
 * test ever asserts how long something took.
 */
#ifndef SP_TEST_UTIL_H
#define SP_TEST_UTIL_H

#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sp_sched_attr.h"

#define SP_POLL_MAX 200000 /* x 50 us of sleep: never reached unless broken */

static inline void sp_test_nap(void)
{
	struct timespec ts = { 0, 50000 };

	nanosleep(&ts, NULL);
}

/* Polls @expr until true; evaluates to whether it became true. */
#define SP_WAIT_FOR(expr)                                                                  \
	({                                                                                 \
		bool ok_ = false;                                                          \
		for (int i_ = 0; i_ < SP_POLL_MAX; i_++) {                                 \
			if (expr) {                                                        \
				ok_ = true;                                                \
				break;                                                     \
			}                                                                  \
			sp_test_nap();                                                     \
		}                                                                          \
		ok_;                                                                       \
	})

static inline pid_t sp_test_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Whether robust futexes work here: every Linux kernel has them, qemu-user
 * emulates none (set/get_robust_list fail with ENOSYS). */
static inline bool sp_test_robust_futexes(void)
{
	void *head;
	size_t len;

	return syscall(SYS_get_robust_list, 0, &head, &len) == 0;
}

static inline void sp_test_set_nice(int nice)
{
	setpriority(PRIO_PROCESS, (id_t)sp_test_gettid(), nice);
}

static inline int sp_test_policy(pid_t tid)
{
	struct sp_sched_attr a;

	if (sp_sched_getattr(tid, &a) != 0)
		return -1;
	return (int)a.sched_policy;
}

static inline int sp_test_nice(pid_t tid)
{
	struct sp_sched_attr a;

	if (sp_sched_getattr(tid, &a) != 0)
		return 99;
	return a.sched_nice;
}

#endif /* SP_TEST_UTIL_H */
