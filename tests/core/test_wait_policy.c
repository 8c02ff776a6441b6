// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The critical waiter's own mechanisms (sp_wait_policy.c): the plan a
 * waiter carries out with its primitives (raise, hold bound, slice) and
 * the hand-off of a mutex it waits for, each decided from the graph and
 * sp_config. */
#include "sp_test_core.h"

#include <errno.h>

#define L1 0x1000
#define L2 0x2000
#define RW 0x3000
#define FX 0x4000
#define MS 1000000ull
#define US 1000ull

enum { W = 1, W2 = 2, A = 10, B = 11 };

static int setup(void **state)
{
	struct sp_core *core = sp_test_setup_config(state, NULL);

	assert_int_equal(sp_task_set_critical(core, W, true), 0);
	return 0;
}

static int teardown(void **state)
{
	sp_test_teardown(state);
	assert_int_equal(sp_test_host.bad_calls, 0);
	return 0;
}

/* A core whose config is @cfg, W critical. */
static struct sp_core *core_with(void **state, const struct sp_config *cfg)
{
	struct sp_core *core = sp_test_setup_config(state, cfg);

	assert_int_equal(sp_task_set_critical(core, W, true), 0);
	return core;
}

static void test_defaults_are_the_runtimes(void **state)
{
	struct sp_config cfg;

	(void)state;
	sp_config_default(&cfg);
	assert_int_equal(cfg.handoff_wait_ns, 4 * MS);
	assert_int_equal(cfg.wait_raise_hold_ns, 4 * MS);
	assert_int_equal(cfg.wait_raise_max, 4);
	assert_int_equal(cfg.wait_slice_ns, 100 * US);
	assert_int_equal(sp_config_check(&cfg), 0);
}

static void test_config_bounds(void **state)
{
	struct sp_config cfg;

	(void)state;
	sp_config_default(&cfg);
	cfg.wait_raise_max = SP_MAX_WAIT_RAISED + 1;
	assert_int_equal(sp_config_check(&cfg), -EINVAL);
	sp_config_default(&cfg);
	cfg.handoff_wait_ns = SP_MAX_WAIT_BOUND_NS + 1;
	assert_int_equal(sp_config_check(&cfg), -EINVAL);
	sp_config_default(&cfg);
	cfg.wait_raise_hold_ns = SP_MAX_WAIT_BOUND_NS + 1;
	assert_int_equal(sp_config_check(&cfg), -EINVAL);
	sp_config_default(&cfg);
	cfg.wait_slice_ns = SP_MIN_WAIT_SLICE_NS - 1; /* shorter than Linux takes */
	assert_int_equal(sp_config_check(&cfg), -EINVAL);
	cfg.wait_slice_ns = 100 * MS + 1;
	assert_int_equal(sp_config_check(&cfg), -EINVAL);
	/* 0 turns each one off */
	cfg.wait_slice_ns = 0;
	cfg.handoff_wait_ns = 0;
	cfg.wait_raise_hold_ns = 0;
	cfg.wait_raise_max = 0;
	assert_int_equal(sp_config_check(&cfg), 0);
}

/* A critical waiter that can raise itself does, with the bound and the
 * cap; the slice is its fallback. */
static void test_plan_raise(void **state)
{
	struct sp_core *core = *state;
	struct sp_wait_plan p;

	assert_int_equal(sp_core_wait_plan(core, W, SP_WAIT_CAN_RAISE | SP_WAIT_CAN_SLICE, &p), 1);
	assert_true(p.raise);
	assert_int_equal(p.raise_max, 4);
	assert_int_equal(p.raise_hold_ns, 4 * MS);
	assert_int_equal(p.slice_ns, 100 * US);
}

/* Without the raise (not SCHED_FIFO actuation), the slice only. */
static void test_plan_slice_only(void **state)
{
	struct sp_core *core = *state;
	struct sp_wait_plan p;

	assert_int_equal(sp_core_wait_plan(core, W, SP_WAIT_CAN_SLICE, &p), 1);
	assert_false(p.raise);
	assert_int_equal(p.raise_hold_ns, 0);
	assert_int_equal(p.slice_ns, 100 * US);
	/* no primitive: nothing */
	assert_int_equal(sp_core_wait_plan(core, W, 0, &p), 0);
	assert_false(p.raise);
	assert_int_equal(p.slice_ns, 0);
}

/* Only a critical task's wait gets a plan; one made not critical loses it. */
static void test_plan_only_critical(void **state)
{
	struct sp_core *core = *state;
	struct sp_wait_plan p;

	assert_int_equal(sp_task_register(core, A), 0);
	assert_int_equal(sp_core_wait_plan(core, A, SP_WAIT_CAN_RAISE | SP_WAIT_CAN_SLICE, &p), 0);
	assert_false(p.raise);
	assert_int_equal(p.slice_ns, 0);
	assert_int_equal(sp_core_wait_plan(core, B, SP_WAIT_CAN_RAISE, &p), 0); /* unknown */
	assert_int_equal(sp_task_set_critical(core, W, false), 0);
	assert_int_equal(sp_core_wait_plan(core, W, SP_WAIT_CAN_RAISE, &p), 0);
	assert_int_equal(sp_core_wait_plan(core, W, 0x80, &p), -EINVAL);
	assert_int_equal(sp_core_wait_plan(NULL, W, 0, &p), -EINVAL);
}

/* The plan follows the config: each mechanism can be turned off. */
static void test_plan_follows_config(void **state)
{
	struct sp_config cfg;
	struct sp_core *core;
	struct sp_wait_plan p;

	sp_config_default(&cfg);
	cfg.wait_raise_max = 2;
	cfg.wait_raise_hold_ns = 0;
	cfg.wait_slice_ns = 250 * US;
	core = core_with(state, &cfg);
	assert_int_equal(sp_core_wait_plan(core, W, SP_WAIT_CAN_RAISE | SP_WAIT_CAN_SLICE, &p), 1);
	assert_true(p.raise);
	assert_int_equal(p.raise_max, 2);
	assert_int_equal(p.raise_hold_ns, 0); /* lowered when the wait ends */
	assert_int_equal(p.slice_ns, 250 * US);

	sp_config_default(&cfg);
	cfg.wait_raise_max = 0;
	cfg.wait_slice_ns = 0;
	core = core_with(state, &cfg);
	assert_int_equal(sp_core_wait_plan(core, W, SP_WAIT_CAN_RAISE | SP_WAIT_CAN_SLICE, &p), 0);
	assert_false(p.raise);
	assert_int_equal(p.slice_ns, 0);
}

/* A taker that is not critical and holds nothing yields a mutex the
 * critical W waits for, for the configured bound. */
static void test_handoff_to_critical_waiter(void **state)
{
	struct sp_core *core = *state;

	assert_int_equal(sp_lock_declare(core, L1, SP_LOCK_MUTEX), 0);
	assert_int_equal(sp_lock_acquired(core, A, L1, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_blocked(core, W, L1, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_released(core, A, L1, SP_HOLD_EXCL), 0);
	/* A's section is over; it (or B) takes the free lock again at once */
	assert_int_equal(sp_core_handoff_wanted(core, A, L1, 0), 4 * MS);
	assert_int_equal(sp_core_handoff_wanted(core, B, L1, 0), 4 * MS); /* never seen before */
	/* W got it: nobody yields any more */
	assert_int_equal(sp_lock_unblocked(core, W, L1, true), 0);
	assert_int_equal(sp_core_handoff_wanted(core, A, L1, 0), 0);
	assert_int_equal(sp_lock_released(core, W, L1, SP_HOLD_EXCL), 0);
}

/* Nobody critical waits: no yield; a non-critical waiter does not count. */
static void test_handoff_needs_critical_waiter(void **state)
{
	struct sp_core *core = *state;

	assert_int_equal(sp_core_handoff_wanted(core, A, L1, 0), 0); /* unknown lock */
	assert_int_equal(sp_lock_blocked(core, B, L1, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_core_handoff_wanted(core, A, L1, 0), 0);
	/* W waits for another lock */
	assert_int_equal(sp_lock_blocked(core, W, L2, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_core_handoff_wanted(core, A, L1, 0), 0);
	/* W gave up its wait (a timeout): nothing to hand over */
	assert_int_equal(sp_lock_unblocked(core, W, L2, false), 0);
	assert_int_equal(sp_core_handoff_wanted(core, A, L2, 0), 0);
}

/* The taker keeps the lock if it is critical or holds anything. */
static void test_handoff_not_from_critical_or_holder(void **state)
{
	struct sp_core *core = *state;

	assert_int_equal(sp_task_set_critical(core, W2, true), 0);
	assert_int_equal(sp_lock_blocked(core, W, L1, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_core_handoff_wanted(core, W2, L1, 0), 0);
	assert_int_equal(sp_core_handoff_wanted(core, A, L1, 1), 0);
	assert_int_equal(sp_core_handoff_wanted(core, A, L1, 0), 4 * MS);
	assert_int_equal(sp_core_handoff_wanted(core, 0, L1, 0), 0);
	assert_int_equal(sp_core_handoff_wanted(NULL, A, L1, 0), 0);
}

/* Not for an rwlock nor a futex word: no single owner to hand over. */
static void test_handoff_mutexes_only(void **state)
{
	struct sp_core *core = *state;

	assert_int_equal(sp_lock_declare(core, RW, SP_LOCK_RWLOCK), 0);
	assert_int_equal(sp_lock_declare(core, FX, SP_LOCK_FUTEX), 0);
	assert_int_equal(sp_lock_blocked(core, W, RW, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_core_handoff_wanted(core, A, RW, 0), 0);
	assert_int_equal(sp_lock_unblocked(core, W, RW, false), 0);
	assert_int_equal(sp_lock_blocked(core, W, FX, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_core_handoff_wanted(core, A, FX, 0), 0);
}

/* handoff_wait_ns is the bound; 0 turns the hand-off off. */
static void test_handoff_follows_config(void **state)
{
	struct sp_config cfg;
	struct sp_core *core;

	sp_config_default(&cfg);
	cfg.handoff_wait_ns = 2 * MS;
	core = core_with(state, &cfg);
	assert_int_equal(sp_lock_blocked(core, W, L1, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_core_handoff_wanted(core, A, L1, 0), 2 * MS);

	cfg.handoff_wait_ns = 0;
	core = core_with(state, &cfg);
	assert_int_equal(sp_lock_blocked(core, W, L1, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_core_handoff_wanted(core, A, L1, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_are_the_runtimes),
		cmocka_unit_test(test_config_bounds),
		cmocka_unit_test_setup_teardown(test_plan_raise, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_slice_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_only_critical, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plan_follows_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handoff_to_critical_waiter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handoff_needs_critical_waiter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handoff_not_from_critical_or_holder, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_handoff_mutexes_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handoff_follows_config, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
