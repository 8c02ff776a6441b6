/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A fake host for core tests: a clock the test moves by hand and an
 * actuator that records what it is asked and flags every call that would
 * be wrong on a real system (boosting a boosted task, restoring one that is
 * not boosted).
 */
#ifndef SP_TEST_HOST_H
#define SP_TEST_HOST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>

#include <superpass/core.h>

#define SP_TEST_MAX_TIDS 4096

struct sp_test_host {
	uint64_t now;                       /* ns, moved by the test */
	bool real_clock;                    /* use CLOCK_MONOTONIC instead */
	int fail_fast_track;                /* return this from fast_track if < 0 */
	uint8_t boosted[SP_TEST_MAX_TIDS];  /* actuator state per tid */
	uint64_t fast_tracks, restores;     /* calls seen */
	uint64_t bad_calls;                 /* double boost, restore of unboosted */
	/* If set, fast_track runs this with the core and tid, as if the target
	 * ran at once on its new priority (it may report events). */
	void (*on_fast_track)(struct sp_test_host *h, sp_tid_t tid);
	struct sp_core *core;
	uint64_t deadlocks;
	sp_tid_t last_deadlock_waiter;
	sp_lock_key_t last_deadlock_lock;
};

extern const struct sp_host_ops sp_test_ops;

/* A core with @cfg (NULL: defaults) and a zeroed host. Fails the test on
 * error. */
struct sp_core *sp_test_core(struct sp_test_host *h, const struct sp_config *cfg);
/* Number of tids the fake actuator currently holds boosted. */
unsigned sp_test_boosted_count(const struct sp_test_host *h);

/* Asserts that print both operands (cmocka's do). */
#define sp_assert_boosted(h, tid) assert_int_equal((h)->boosted[(tid)], 1)
#define sp_assert_not_boosted(h, tid) assert_int_equal((h)->boosted[(tid)], 0)

#endif /* SP_TEST_HOST_H */
