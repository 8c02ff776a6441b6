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
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <superpass/runtime.h>

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

/* The state letter of one of our threads (S: asleep, here in a futex;
 * '?' if it is gone). */
static inline char sp_test_task_state(pid_t tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : '?';
}

/* cmocka group set-up: the runtime in observe mode (no privilege needed,
 * nothing is boosted: the tests look at what the core was told). */
static inline int sp_test_setup_observe(void **state)
{
	struct sp_runtime_config cfg;

	(void)state;
	sp_runtime_config_default(&cfg);
	cfg.quiet = true;
	cfg.mode = SP_ACT_OBSERVE;
	return sp_runtime_create(&cfg) == 0 ? 0 : -1;
}

static inline int sp_test_teardown_runtime(void **state)
{
	(void)state;
	sp_runtime_destroy();
	return 0;
}

/* An absolute deadline @ms from now on @clk (a timed lock's bound). */
static inline struct timespec sp_test_deadline_ms(clockid_t clk, long ms)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	while (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* "LD_PRELOAD=..." for a child's environment: the sanitizer runtime of a
 * sanitized build first (@san, "" if none), then the interposer @lib. */
static inline void sp_test_preload_env(char *out, size_t cap, const char *san, const char *lib)
{
	if (san[0])
		snprintf(out, cap, "LD_PRELOAD=%s:%s", san, lib);
	else
		snprintf(out, cap, "LD_PRELOAD=%s", lib);
}

#endif /* SP_TEST_UTIL_H */
