// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Futex words that name no owner (SP_LOCK_FUTEX): the candidate set, who
 * of it gets a grant when a critical task waits, and what a wake ends.
 */
#include "sp_test_core.h"

#define MS 1000000ull
#define F 0x1000u  /* the futex word's address */
#define L 0x2000u  /* an ordinary mutex */
#define UI 1u
#define H1 11u
#define H2 12u
#define H3 13u

static int setup_k2(void **state)
{
	struct sp_config cfg;
	struct sp_core *core;

	sp_config_default(&cfg);
	cfg.readers_per_lock = 2; /* two candidates at most */
	core = sp_test_setup_config(state, &cfg);
	sp_test_host.now = 1000 * MS;
	assert_int_equal(sp_lock_declare(core, F, SP_LOCK_FUTEX), 0);
	assert_int_equal(sp_task_set_critical(core, UI, true), 0);
	return 0;
}

static void wake(struct sp_core *core, sp_tid_t tid)
{
	assert_int_equal(sp_lock_released(core, tid, F, SP_HOLD_EXCL), 0);
}

static void back_from_wait(struct sp_core *core, sp_tid_t tid)
{
	assert_int_equal(sp_lock_blocked(core, tid, F, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_unblocked(core, tid, F, true), 0);
}

/* A word nobody was seen at has no candidate: a wait grants nothing. */
static void test_unknown_holder_gets_nothing(void **state)
{
	struct sp_core *core = *state;

	assert_int_equal(sp_lock_blocked(core, UI, F, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_test_boosted_count(&sp_test_host), 0);
	assert_int_equal(sp_lock_unblocked(core, UI, F, true), 0);
}

/* The wakers and the tasks back from a wait are the candidates; the
 * critical waiter's grants go to them, not to itself nor to a candidate
 * that waits for the same word. */
static void test_candidates_get_the_fast_track(void **state)
{
	struct sp_core *core = *state;

	wake(core, H1);
	back_from_wait(core, H2);
	assert_int_equal(sp_lock_blocked(core, H2, F, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_blocked(core, UI, F, SP_HOLD_EXCL), 0);
	sp_assert_boosted(&sp_test_host, H1);
	sp_assert_not_boosted(&sp_test_host, H2);
	sp_assert_not_boosted(&sp_test_host, UI);
	assert_int_equal(sp_lock_unblocked(core, H2, F, false), 0);
	assert_int_equal(sp_lock_unblocked(core, UI, F, true), 0);
	sp_assert_not_boosted(&sp_test_host, H1);
}

/* At most K (2) candidates, the oldest replaced first. */
static void test_newest_candidates_replace_the_oldest(void **state)
{
	struct sp_core *core = *state;

	wake(core, H1);
	wake(core, H2);
	wake(core, H3); /* replaces H1 */
	assert_int_equal(sp_lock_blocked(core, UI, F, SP_HOLD_EXCL), 0);
	sp_assert_not_boosted(&sp_test_host, H1);
	sp_assert_boosted(&sp_test_host, H2);
	sp_assert_boosted(&sp_test_host, H3);
	assert_int_equal(sp_lock_unblocked(core, UI, F, true), 0);
}

/* A wake ends every grant on the word at once (it is free, or the woken
 * waiter's); the waker becomes a candidate again, so a waiter still
 * waiting is granted on it. */
static void test_wake_ends_the_grants(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	wake(core, H1);
	wake(core, H2);
	assert_int_equal(sp_lock_blocked(core, UI, F, SP_HOLD_EXCL), 0);
	sp_assert_boosted(&sp_test_host, H1);
	sp_assert_boosted(&sp_test_host, H2);
	wake(core, H2);
	sp_rec_host_run(&sp_test_host);
	sp_assert_not_boosted(&sp_test_host, H1);
	/* UI still waits (another waiter was woken): H2 is granted again */
	sp_assert_boosted(&sp_test_host, H2);
	assert_int_equal(sp_lock_unblocked(core, UI, F, true), 0);
	sp_assert_not_boosted(&sp_test_host, H2);
	sp_core_stats(core, &s);
	assert_int_equal(s.boosted_now, 0);
}

/* A boosted candidate that waits for the same word is no holder: its
 * grant ends before it sleeps (else it would queue in the kernel at RT
 * priority ahead of the critical waiter). */
static void test_candidate_that_waits_loses_its_grant(void **state)
{
	struct sp_core *core = *state;

	wake(core, H1);
	wake(core, H2);
	assert_int_equal(sp_lock_blocked(core, UI, F, SP_HOLD_EXCL), 0);
	sp_assert_boosted(&sp_test_host, H1);
	sp_assert_boosted(&sp_test_host, H2);
	assert_int_equal(sp_lock_blocked(core, H2, F, SP_HOLD_EXCL), 0);
	sp_assert_not_boosted(&sp_test_host, H2);
	sp_assert_boosted(&sp_test_host, H1);
	assert_int_equal(sp_lock_unblocked(core, H2, F, false), 0);
	assert_int_equal(sp_lock_unblocked(core, UI, F, true), 0);
}

/* Through a chain: a candidate that waits for a mutex passes its grant on
 * to the mutex's owner. */
static void test_candidate_chain(void **state)
{
	struct sp_core *core = *state;

	wake(core, H1);
	assert_int_equal(sp_lock_acquired(core, H2, L, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_blocked(core, H1, L, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_blocked(core, UI, F, SP_HOLD_EXCL), 0);
	sp_assert_boosted(&sp_test_host, H1);
	sp_assert_boosted(&sp_test_host, H2);
	assert_int_equal(sp_lock_unblocked(core, UI, F, true), 0);
	assert_int_equal(sp_lock_unblocked(core, H1, L, false), 0);
	assert_int_equal(sp_lock_released(core, H2, L, SP_HOLD_EXCL), 0);
}

/* A cycle through a guess is no deadlock: UI was back from a wait on F
 * (a candidate) and holds L; H1 waits for F; UI waits for L's... itself
 * through the candidate: not reported. */
static void test_cycle_through_a_candidate_is_not_a_deadlock(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	back_from_wait(core, H1);
	assert_int_equal(sp_lock_acquired(core, UI, L, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_blocked(core, H1, L, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_blocked(core, UI, F, SP_HOLD_EXCL), 0);
	for (int i = 0; i < 2000; i++) {
		sp_test_host.now += MS;
		sp_core_tick(core);
	}
	sp_core_stats(core, &s);
	assert_int_equal(s.deadlocks, 0);
	assert_int_equal(sp_lock_unblocked(core, UI, F, true), 0);
	assert_int_equal(sp_lock_unblocked(core, H1, L, false), 0);
}

/* A candidate that exits leaves the set. */
static void test_exited_candidate_leaves(void **state)
{
	struct sp_core *core = *state;

	wake(core, H1);
	assert_int_equal(sp_task_exit(core, H1), 0);
	assert_int_equal(sp_lock_blocked(core, UI, F, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_test_boosted_count(&sp_test_host), 0);
	assert_int_equal(sp_lock_unblocked(core, UI, F, true), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		SP_TEST_CASE(test_unknown_holder_gets_nothing, setup_k2),
		SP_TEST_CASE(test_candidates_get_the_fast_track, setup_k2),
		SP_TEST_CASE(test_newest_candidates_replace_the_oldest, setup_k2),
		SP_TEST_CASE(test_wake_ends_the_grants, setup_k2),
		SP_TEST_CASE(test_candidate_that_waits_loses_its_grant, setup_k2),
		SP_TEST_CASE(test_candidate_chain, setup_k2),
		SP_TEST_CASE(test_cycle_through_a_candidate_is_not_a_deadlock, setup_k2),
		SP_TEST_CASE(test_exited_candidate_leaves, setup_k2),
	};

	return cmocka_run_group_tests(tests, NULL, sp_test_group_teardown);
}
