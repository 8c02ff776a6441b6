// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The deadlock suspicion (lib/core/sp_deadlock.c): a cycle made of an owner
 * that a lock word named and that let go unseen is no deadlock, however
 * often it is walked; a real cycle is reported, once per wait: at once when
 * the core heard every holder take its lock, after it stayed the same for a
 * second when an owner came from a lock word.
 */
#include "sp_test_core.h"

#define L0 0x1000
#define L1 0x2000
#define MS 1000000ull

enum { A = 10, B = 11 };

static int setup(void **state)
{
	struct sp_core *core = sp_test_setup_config(state, NULL);

	sp_test_host.now = 1000 * MS; /* a wait's start of 0 would mean "none" */
	assert_int_equal(sp_task_set_critical(core, A, true), 0);
	assert_int_equal(sp_task_set_critical(core, B, true), 0);
	return 0;
}

static void block_with_word(struct sp_core *core, sp_tid_t tid, sp_lock_key_t lock,
			    sp_tid_t word)
{
	assert_int_equal(sp_lock_blocked_owner(core, tid, lock, SP_HOLD_EXCL, true, word), 0);
}

static uint64_t deadlocks(struct sp_core *core)
{
	struct sp_stats s;

	sp_core_stats(core, &s);
	assert_int_equal(s.deadlocks, sp_test_host.deadlocks);
	return s.deadlocks;
}

/* Ticks for @ms milliseconds of the test clock, one per millisecond. */
static void run_ticks(struct sp_core *core, unsigned int ms)
{
	for (unsigned int i = 0; i < ms; i++) {
		sp_test_host.now += MS;
		sp_core_tick(core);
	}
}

/*
 * Locks taken in order L0 then L1. B held L1 when A (holding L0) blocked on
 * it, and the word said so; B let go without an event (an uncontended
 * release nobody reports) and A, woken, has not run yet. B starts over and
 * blocks on L0, which A holds: the records show A -> L1 -> B -> L0 -> A.
 * Nothing waits on anything in truth; A stays unscheduled for a while.
 */
static void test_stale_word_owner_is_no_deadlock(void **state)
{
	struct sp_core *core = *state;

	assert_int_equal(sp_lock_acquired(core, A, L0, SP_HOLD_EXCL), 0);
	block_with_word(core, A, L1, B);
	block_with_word(core, B, L0, A);
	assert_int_equal(deadlocks(core), 0);
	/* The tick walks both long waits again and again. */
	run_ticks(core, 200);
	assert_int_equal(deadlocks(core), 0);
	/* A runs: it has L1; B gets L0 once A is done. */
	assert_int_equal(sp_lock_unblocked(core, A, L1, true), 0);
	run_ticks(core, 2000);
	assert_int_equal(deadlocks(core), 0);
	assert_int_equal(sp_lock_released(core, A, L1, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_released(core, A, L0, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_unblocked(core, B, L0, true), 0);
	assert_int_equal(sp_lock_released(core, B, L0, SP_HOLD_EXCL), 0);
	assert_int_equal(deadlocks(core), 0);
}

/* The same cycle from lock words, but real: nobody moves. Reported once it
 * held for a second, and only once for these waits. */
static void test_word_cycle_that_stays_is_reported_once(void **state)
{
	struct sp_core *core = *state;

	block_with_word(core, A, L1, B); /* A holds L0 unseen, B holds L1 */
	block_with_word(core, B, L0, A);
	assert_int_equal(deadlocks(core), 0);
	run_ticks(core, 900);
	assert_int_equal(deadlocks(core), 0);
	run_ticks(core, 200);
	assert_int_equal(deadlocks(core), 2); /* each of the two critical waits */
	run_ticks(core, 2000);
	assert_int_equal(deadlocks(core), 2);
	/* A gives up; a new wait of A on the same cycle is a new report. */
	assert_int_equal(sp_lock_unblocked(core, A, L1, false), 0);
	block_with_word(core, A, L1, B);
	run_ticks(core, 1100);
	assert_int_equal(deadlocks(core), 3); /* B's wait was reported already */
	assert_int_equal(sp_lock_unblocked(core, A, L1, false), 0);
	assert_int_equal(sp_lock_unblocked(core, B, L0, false), 0);
}

/* A cycle whose holders the core heard take their locks is the truth:
 * reported at the block that closes it, once. */
static void test_exact_cycle_is_reported_at_once(void **state)
{
	struct sp_core *core = *state;

	assert_int_equal(sp_lock_acquired(core, A, L0, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_acquired(core, B, L1, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_blocked(core, A, L1, SP_HOLD_EXCL), 0);
	assert_int_equal(deadlocks(core), 0);
	assert_int_equal(sp_lock_blocked(core, B, L0, SP_HOLD_EXCL), 0);
	assert_int_equal(deadlocks(core), 1);
	assert_int_equal(sp_test_host.last_deadlock_waiter, B);
	assert_int_equal(sp_test_host.last_deadlock_lock, L0);
	run_ticks(core, 5);
	assert_int_equal(deadlocks(core), 2); /* A's wait, at its tick */
	run_ticks(core, 100);
	assert_int_equal(deadlocks(core), 2);
	assert_int_equal(sp_lock_unblocked(core, B, L0, false), 0);
	assert_int_equal(sp_lock_unblocked(core, A, L1, true), 0);
}

/* A cycle one of whose edges changed between the walk and its check is
 * none: B let go of L1 (an event this time) before anyone looked again. */
static void test_cycle_broken_by_a_release_is_not_reported(void **state)
{
	struct sp_core *core = *state;

	assert_int_equal(sp_lock_acquired(core, A, L0, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_acquired(core, B, L1, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_blocked(core, A, L1, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_released(core, B, L1, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_blocked(core, B, L0, SP_HOLD_EXCL), 0);
	run_ticks(core, 2000);
	assert_int_equal(deadlocks(core), 0);
	assert_int_equal(sp_lock_unblocked(core, A, L1, true), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		SP_TEST_CASE(test_stale_word_owner_is_no_deadlock, setup),
		SP_TEST_CASE(test_word_cycle_that_stays_is_reported_once, setup),
		SP_TEST_CASE(test_exact_cycle_is_reported_at_once, setup),
		SP_TEST_CASE(test_cycle_broken_by_a_release_is_not_reported, setup),
	};

	return cmocka_run_group_tests(tests, NULL, sp_test_group_teardown);
}
