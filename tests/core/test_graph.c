// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Blocker graph: edges, chains, cycles, depth bound, queries, bad input. */
#include "sp_test_core.h"

#include <errno.h>

#define L1 0x1000
#define L2 0x2000
#define L3 0x3000

static uint32_t blockers(struct sp_core *core, sp_tid_t tid, sp_tid_t *out, uint32_t cap,
			 struct sp_walk_result *res)
{
	assert_int_equal(sp_graph_blockers(core, tid, out, cap, res), 0);
	return res->nr;
}

static bool has(const sp_tid_t *v, uint32_t n, sp_tid_t tid)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == tid)
			return true;
	return false;
}

/* Fixtures for the cases that need a config of their own (the others
 * run on sp_test_setup's defaults). */
static int setup_depth_3(void **state)
{
	struct sp_config cfg;

	sp_config_default(&cfg);
	cfg.max_depth = 3;
	sp_test_setup_config(state, &cfg);
	return 0;
}

/* Four tasks, two locks, two reader slots. */
static int setup_small_tables(void **state)
{
	struct sp_config cfg;

	sp_config_default(&cfg);
	cfg.max_tasks = 4;
	cfg.max_locks = 2;
	cfg.readers_per_lock = 2;
	sp_test_setup_config(state, &cfg);
	return 0;
}

static void test_owner_and_readers_block(void **state)
{
	struct sp_core *core = *state;
	struct sp_walk_result r;
	sp_tid_t out[16], owner = 0;
	uint32_t untracked = 99;

	assert_int_equal(sp_lock_acquired(core, 10, L1, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_owner(core, L1, &owner), 0);
	assert_int_equal(owner, 10);
	assert_int_equal(sp_lock_blocked(core, 20, L1, SP_HOLD_EXCL), 0);
	assert_int_equal(blockers(core, 20, out, 16, &r), 1);
	assert_int_equal(out[0], 10);
	assert_false(r.deadlock);

	/* readers of an rwlock block a writer */
	assert_int_equal(sp_lock_acquired(core, 31, L2, SP_HOLD_SHARED), 0);
	assert_int_equal(sp_lock_acquired(core, 32, L2, SP_HOLD_SHARED), 0);
	assert_int_equal(sp_lock_readers(core, L2, out, 16, &untracked), 2);
	assert_int_equal(untracked, 0);
	assert_int_equal(sp_lock_blocked(core, 40, L2, SP_HOLD_EXCL), 0);
	assert_int_equal(blockers(core, 40, out, 16, &r), 2);
	assert_true(has(out, 2, 31) && has(out, 2, 32));

	/* not blocked: nobody blocks it */
	assert_int_equal(blockers(core, 10, out, 16, &r), 0);
}

static void test_chain_is_transitive(void **state)
{
	struct sp_core *core = *state;
	struct sp_walk_result r;
	sp_tid_t out[16];

	/* 1 waits L1 held by 2; 2 waits L2 held by 3; 3 waits L3 held by 4 */
	sp_lock_acquired(core, 2, L1, SP_HOLD_EXCL);
	sp_lock_acquired(core, 3, L2, SP_HOLD_EXCL);
	sp_lock_acquired(core, 4, L3, SP_HOLD_EXCL);
	sp_lock_blocked(core, 3, L3, SP_HOLD_EXCL);
	sp_lock_blocked(core, 2, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, 1, L1, SP_HOLD_EXCL);
	assert_int_equal(blockers(core, 1, out, 16, &r), 3);
	assert_true(has(out, 3, 2) && has(out, 3, 3) && has(out, 3, 4));
	assert_false(r.deadlock);
	assert_false(r.depth_limited);

	/* the middle link lets go of its wait: the chain is cut there */
	assert_int_equal(sp_lock_unblocked(core, 2, L2, false), 0);
	assert_int_equal(blockers(core, 1, out, 16, &r), 1);
	assert_int_equal(out[0], 2);
}

static void test_cycle_is_reported_not_followed(void **state)
{
	struct sp_core *core = *state;
	struct sp_walk_result r;
	sp_tid_t out[16];

	/* 2 holds L1 and waits L2; 3 holds L2 and waits L1: a deadlock that
	 * 1 (waiting for L1) runs into. */
	sp_lock_acquired(core, 2, L1, SP_HOLD_EXCL);
	sp_lock_acquired(core, 3, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, 2, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, 3, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, 1, L1, SP_HOLD_EXCL);
	assert_int_equal(blockers(core, 1, out, 16, &r), 2);
	assert_true(r.deadlock);

	/* the cycle seen from one of its members */
	assert_int_equal(blockers(core, 2, out, 16, &r), 1);
	assert_int_equal(out[0], 3);
	assert_true(r.deadlock);
}

static void test_self_deadlock(void **state)
{
	struct sp_core *core = *state;
	struct sp_walk_result r;
	sp_tid_t out[4];

	/* a reader asking for the write side of the lock it reads */
	sp_lock_acquired(core, 5, L1, SP_HOLD_SHARED);
	sp_lock_blocked(core, 5, L1, SP_HOLD_EXCL);
	assert_int_equal(blockers(core, 5, out, 4, &r), 0);
	assert_true(r.deadlock);
}

static void test_depth_bound(void **state)
{
	struct sp_core *core = *state;
	struct sp_walk_result r;
	sp_tid_t out[32];

	/* a chain of 10: task i waits lock i held by task i+1 */
	for (sp_tid_t i = 1; i <= 10; i++)
		sp_lock_acquired(core, i + 1, 0x100 * i, SP_HOLD_EXCL);
	for (sp_tid_t i = 10; i >= 1; i--)
		sp_lock_blocked(core, i, 0x100 * i, SP_HOLD_EXCL);
	assert_int_equal(blockers(core, 1, out, 32, &r), 3);
	assert_true(r.depth_limited);
	assert_false(r.deadlock);
}

static void test_result_capacity(void **state)
{
	struct sp_core *core = *state;
	struct sp_walk_result r;
	sp_tid_t out[2];

	for (sp_tid_t i = 0; i < 4; i++)
		sp_lock_acquired(core, 100 + i, L1, SP_HOLD_SHARED);
	sp_lock_blocked(core, 1, L1, SP_HOLD_EXCL);
	assert_int_equal(blockers(core, 1, out, 2, &r), 2);
	assert_int_equal(r.missed, 2);
}

static void test_release_and_stale_events(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats st;
	sp_tid_t owner = 1;

	sp_lock_acquired(core, 7, L1, SP_HOLD_EXCL);
	/* releasing a lock someone else owns changes nothing, and is counted */
	assert_int_equal(sp_lock_released(core, 8, L1, SP_HOLD_EXCL), 0);
	sp_lock_owner(core, L1, &owner);
	assert_int_equal(owner, 7);
	assert_int_equal(sp_lock_released(core, 7, L1, SP_HOLD_EXCL), 0);
	sp_lock_owner(core, L1, &owner);
	assert_int_equal(owner, 0);
	/* a lock never seen */
	assert_int_equal(sp_lock_released(core, 7, 0xdead, SP_HOLD_EXCL), -ENOENT);
	/* an unblock without a block */
	assert_int_equal(sp_lock_unblocked(core, 7, L1, true), -ENOENT);
	sp_core_stats(core, &st);
	assert_int_equal(st.stale_events, 3);
	assert_int_equal(st.acquires, 1);
	assert_int_equal(st.releases, 2);
}

static void test_bad_arguments(void **state)
{
	struct sp_core *core = *state;
	struct sp_config cfg;
	struct sp_walk_result r;
	struct sp_host_ops ops = sp_test_ops;
	struct sp_core *c2 = (struct sp_core *)1;
	sp_tid_t out[1], owner;

	assert_int_equal(sp_lock_acquired(core, 0, L1, SP_HOLD_EXCL), -EINVAL);
	assert_int_equal(sp_lock_acquired(core, 1, 0, SP_HOLD_EXCL), -EINVAL);
	assert_int_equal(sp_lock_acquired(core, 1, L1, (enum sp_hold)7), -EINVAL);
	assert_int_equal(sp_lock_acquired(NULL, 1, L1, SP_HOLD_EXCL), -EINVAL);
	assert_int_equal(sp_lock_blocked(core, 1, L1, (enum sp_hold)-1), -EINVAL);
	assert_int_equal(sp_lock_released(core, 0, L1, SP_HOLD_EXCL), -EINVAL);
	assert_int_equal(sp_lock_unblocked(core, 1, 0, true), -EINVAL);
	assert_int_equal(sp_lock_declare(core, L1, (enum sp_lock_kind)9), -EINVAL);
	assert_int_equal(sp_lock_destroyed(core, 0), -EINVAL);
	assert_int_equal(sp_lock_destroyed(core, 0x77), -ENOENT);
	assert_int_equal(sp_lock_owner(core, 0x77, &owner), -ENOENT);
	assert_int_equal(sp_lock_readers(core, L1, NULL, 3, NULL), -EINVAL);
	assert_int_equal(sp_task_register(core, 0), -EINVAL);
	assert_int_equal(sp_task_exit(core, 12345), -ENOENT);
	assert_int_equal(sp_task_is_critical(core, 12345), -ENOENT);
	assert_int_equal(sp_task_fast_tracked(core, 12345), -ENOENT);
	assert_int_equal(sp_graph_blockers(core, 12345, out, 1, &r), -ENOENT);
	assert_int_equal(sp_graph_blockers(core, 1, NULL, 1, &r), -EINVAL);
	assert_int_equal(sp_graph_blockers(core, 1, out, 1, NULL), -EINVAL);
	assert_int_equal(sp_core_tick(NULL), -EINVAL);
	assert_int_equal(sp_core_reclaim(NULL), -EINVAL);

	/* configs */
	assert_int_equal(sp_config_check(NULL), -EINVAL);
	sp_config_default(&cfg);
	assert_int_equal(sp_config_check(&cfg), 0);
	assert_int_equal(cfg.readers_per_lock, 4);
	assert_int_equal(cfg.budget_ns, 20000000);
	cfg.readers_per_lock = 65;
	assert_int_equal(sp_core_create(&cfg, &sp_test_ops, &sp_test_host, &c2), -EINVAL);
	assert_null(c2);
	sp_config_default(&cfg);
	cfg.readers_per_lock = 0;
	assert_int_equal(sp_config_check(&cfg), -EINVAL);
	sp_config_default(&cfg);
	cfg.max_depth = 17;
	assert_int_equal(sp_config_check(&cfg), -EINVAL);
	sp_config_default(&cfg);
	cfg.throttle_permille = 1001;
	assert_int_equal(sp_config_check(&cfg), -EINVAL);
	sp_config_default(&cfg);
	cfg.max_tasks = 0;
	assert_int_equal(sp_config_check(&cfg), -EINVAL);
	ops.restore = NULL;
	assert_int_equal(sp_core_create(NULL, &ops, &sp_test_host, &c2), -EINVAL);
	assert_int_equal(sp_core_create(NULL, &sp_test_ops, &sp_test_host, NULL), -EINVAL);
	sp_core_destroy(NULL);
}

static void test_capacity_overflow_degrades(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats st;
	uint32_t untracked = 0;
	sp_tid_t out[8];

	for (sp_tid_t t = 1; t <= 6; t++)
		sp_lock_acquired(core, t, L1, SP_HOLD_SHARED);
	assert_int_equal(sp_lock_readers(core, L1, out, 8, &untracked), 2);
	assert_int_equal(untracked, 4);
	assert_int_equal(sp_lock_acquired(core, 1, L2, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_acquired(core, 1, L3, SP_HOLD_EXCL), -ENOSPC);
	assert_int_equal(sp_task_register(core, 99), -ENOSPC);
	sp_core_stats(core, &st);
	assert_int_equal(st.reader_overflows, 4);
	assert_int_equal(st.lock_overflows, 1);
	assert_true(st.task_overflows >= 2);
	assert_int_equal(st.tasks_now, 4);
	assert_int_equal(st.locks_now, 2);
	/* untracked readers leave without underflow */
	for (sp_tid_t t = 1; t <= 6; t++)
		assert_int_equal(sp_lock_released(core, t, L1, SP_HOLD_SHARED), 0);
	assert_int_equal(sp_lock_readers(core, L1, out, 8, &untracked), 0);
	assert_int_equal(untracked, 0);
	assert_int_equal(sp_lock_released(core, 6, L1, SP_HOLD_SHARED), 0);
	sp_core_stats(core, &st);
	assert_int_equal(st.stale_events, 1);

	/* a destroyed lock frees its place in the limit at once; its slot is
	 * recycled only after a reclaim (a grace period) */
	assert_int_equal(sp_lock_destroyed(core, L2), 0);
	assert_int_equal(sp_lock_owner(core, L2, out), -ENOENT);
	assert_int_equal(sp_lock_acquired(core, 1, L3, SP_HOLD_EXCL), 0);
	sp_core_stats(core, &st);
	assert_int_equal(st.locks_now, 2);
	assert_int_equal(sp_core_reclaim(core), 1);
	assert_int_equal(sp_core_reclaim(core), 0);
}

/* An owner the core only ever read from a lock word (the userspace host
 * reports no uncontended acquire) is dropped when that task exits (or
 * execs): a later walk must not find, and fast-track, a task that is gone. */
static void test_word_owner_dropped_at_exit(void **state)
{
	struct sp_core *core = *state;
	struct sp_walk_result r;
	sp_tid_t out[4], owner = 0;

	assert_int_equal(sp_lock_blocked_owner(core, 20, L1, SP_HOLD_EXCL, true, 10), 0);
	assert_int_equal(sp_lock_owner(core, L1, &owner), 0);
	assert_int_equal(owner, 10);
	assert_int_equal(blockers(core, 20, out, 4, &r), 1);
	assert_int_equal(sp_task_exit(core, 10), 0);
	assert_int_equal(sp_lock_owner(core, L1, &owner), 0);
	assert_int_equal(owner, 0);
	assert_int_equal(blockers(core, 20, out, 4, &r), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		SP_TEST_CASE(test_owner_and_readers_block, sp_test_setup),
		SP_TEST_CASE(test_chain_is_transitive, sp_test_setup),
		SP_TEST_CASE(test_cycle_is_reported_not_followed, sp_test_setup),
		SP_TEST_CASE(test_self_deadlock, sp_test_setup),
		SP_TEST_CASE(test_depth_bound, setup_depth_3),
		SP_TEST_CASE(test_result_capacity, sp_test_setup),
		SP_TEST_CASE(test_release_and_stale_events, sp_test_setup),
		SP_TEST_CASE(test_bad_arguments, sp_test_setup),
		SP_TEST_CASE(test_capacity_overflow_degrades, setup_small_tables),
		SP_TEST_CASE(test_word_owner_dropped_at_exit, sp_test_setup),
	};

	return cmocka_run_group_tests(tests, NULL, sp_test_group_teardown);
}
