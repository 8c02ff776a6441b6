// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Fast-track policy: who is boosted, when, for how long, and that every
 * boost is restored exactly once. */
#include "sp_test_core.h"
#include "sp_internal.h"   /* to stage a race the public API cannot */

#include <errno.h>

#define L1 0x1000
#define L2 0x2000
#define MS 1000000ull

enum { W = 1, W2 = 2, A = 10, B = 11, C = 12 };

/* Bookkeeping that must hold at any quiet moment. */
static void check_invariants(struct sp_core *core)
{
	struct sp_stats s;

	sp_core_stats(core, &s);
	assert_int_equal(sp_test_host.bad_calls, 0);
	assert_int_equal(s.fast_tracks, s.restores + s.boosted_now);
	assert_int_equal(s.grants, s.ends_release + s.ends_unblock + s.ends_exit + s.expiries +
					   s.ends_throttle + s.grants_now);
	assert_int_equal(s.boosted_now, sp_test_boosted_count(&sp_test_host));
}

/* The commonest start: A holds L1 and the critical W blocks on it. */
static void w_waits_behind_a(struct sp_core *core)
{
	assert_int_equal(sp_lock_acquired(core, A, L1, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_blocked(core, W, L1, SP_HOLD_EXCL), 0);
}

/* Fixtures: W critical on a default core (cases that need another
 * config have their own setup); the invariants checked after each case. */
static int setup_config(void **state, const struct sp_config *cfg)
{
	struct sp_core *core = sp_test_setup_config(state, cfg);

	assert_int_equal(sp_task_set_critical(core, W, true), 0);
	assert_int_equal(sp_task_is_critical(core, W), 1);
	return 0;
}

static int setup(void **state)
{
	return setup_config(state, NULL);
}

static int setup_two_readers(void **state)
{
	struct sp_config cfg;

	sp_config_default(&cfg);
	cfg.readers_per_lock = 2;
	return setup_config(state, &cfg);
}

/* Only the throttle limits: 30% of a 100 ms window. */
static int setup_throttle(void **state)
{
	struct sp_config cfg;

	sp_config_default(&cfg);
	cfg.budget_ns = 0;
	cfg.throttle_window_ns = 100 * MS;
	cfg.throttle_permille = 300;
	return setup_config(state, &cfg);
}

static int setup_two_grants(void **state)
{
	struct sp_config cfg;

	sp_config_default(&cfg);
	cfg.max_grants = 2;
	return setup_config(state, &cfg);
}

static int teardown(void **state)
{
	if (sp_test_host.core)   /* a case may have destroyed its core itself */
		check_invariants(sp_test_host.core);
	sp_test_teardown(state);
	assert_int_equal(sp_test_boosted_count(&sp_test_host), 0);
	assert_int_equal(sp_test_host.bad_calls, 0);
	return 0;
}

/* Group fixtures: the actuator model every case of the group runs under. */
static int direct_actuator(void **state)
{
	sp_test_model = SP_REC_DIRECT;
	return 0;
}

static int queued_actuator(void **state)
{
	sp_test_model = SP_REC_QUEUED;
	return 0;
}

static void test_owner_boosted_until_release(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&sp_test_host, A);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&sp_test_host, A);
	assert_int_equal(sp_task_fast_tracked(core, A), 1);
	check_invariants(core);

	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&sp_test_host, A);
	assert_int_equal(sp_task_fast_tracked(core, A), 0);
	sp_lock_unblocked(core, W, L1, true);
	sp_core_stats(core, &s);
	assert_int_equal(s.grants, 1);
	assert_int_equal(s.ends_release, 1);
	assert_int_equal(s.fast_tracks, 1);
	assert_int_equal(s.restores, 1);
	assert_int_equal(s.blockings, 1);
}

static void test_restore_when_waiter_gives_up(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	w_waits_behind_a(core);
	sp_assert_boosted(&sp_test_host, A);
	/* a timed lock times out: A still holds L1 but nobody critical waits */
	sp_lock_unblocked(core, W, L1, false);
	sp_assert_not_boosted(&sp_test_host, A);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_core_stats(core, &s);
	assert_int_equal(s.ends_unblock, 1);
	assert_int_equal(s.ends_release, 0);
	assert_int_equal(sp_test_host.restores, 1);
}

static void test_normal_waiter_boosts_nobody(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, B, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&sp_test_host, A);
	/* a task that stops being critical stops causing boosts */
	sp_task_set_critical(core, W, false);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&sp_test_host, A);
	sp_lock_unblocked(core, W, L1, false);
	sp_lock_unblocked(core, B, L1, false);
	sp_core_stats(core, &s);
	assert_int_equal(s.grants, 0);
	assert_int_equal(s.blocks, 2);
	assert_int_equal(s.blockings, 0);
}

static void test_two_waiters_one_boost(void **state)
{
	struct sp_core *core = *state;

	sp_task_set_critical(core, W2, true);
	w_waits_behind_a(core);
	sp_lock_blocked(core, W2, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&sp_test_host, A);
	assert_int_equal(sp_test_host.fast_tracks, 1);
	sp_lock_unblocked(core, W, L1, false);
	sp_assert_boosted(&sp_test_host, A);   /* W2 still needs it */
	assert_int_equal(sp_test_host.restores, 0);
	sp_lock_unblocked(core, W2, L1, false);
	sp_assert_not_boosted(&sp_test_host, A);
	assert_int_equal(sp_test_host.restores, 1);
}

static void test_repeated_block_report_is_one_wait(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	w_waits_behind_a(core);
	sp_assert_boosted(&sp_test_host, A);
	sp_test_host.now += 3 * MS;
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);   /* fired again after a wakeup */
	sp_test_host.now += 2 * MS;
	sp_lock_unblocked(core, W, L1, true);
	sp_core_stats(core, &s);
	assert_int_equal(s.blocks, 1);
	assert_int_equal(s.grants, 1);
	assert_int_equal(s.grant_dups, 1);
	sp_assert_not_boosted(&sp_test_host, A);
	assert_int_equal(sp_test_host.fast_tracks, 1);
}

static void test_readers_boosted_up_to_k(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	for (sp_tid_t r = 20; r < 24; r++)
		sp_lock_acquired(core, r, L1, SP_HOLD_SHARED);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	assert_int_equal(sp_test_boosted_count(&sp_test_host), 2);
	sp_assert_boosted(&sp_test_host, 20);
	sp_assert_boosted(&sp_test_host, 21);
	sp_assert_not_boosted(&sp_test_host, 22);
	/* each tracked reader is restored when it leaves */
	sp_lock_released(core, 20, L1, SP_HOLD_SHARED);
	sp_assert_not_boosted(&sp_test_host, 20);
	sp_assert_boosted(&sp_test_host, 21);
	sp_lock_released(core, 22, L1, SP_HOLD_SHARED);   /* untracked: no effect */
	sp_assert_boosted(&sp_test_host, 21);
	sp_lock_released(core, 21, L1, SP_HOLD_SHARED);
	sp_lock_released(core, 23, L1, SP_HOLD_SHARED);
	assert_int_equal(sp_test_boosted_count(&sp_test_host), 0);
	sp_lock_unblocked(core, W, L1, true);
	sp_core_stats(core, &s);
	assert_int_equal(s.reader_overflows, 2);
	assert_int_equal(s.ends_release, 2);
}

static void test_new_reader_while_writer_waits(void **state)
{
	struct sp_core *core = *state;

	sp_lock_acquired(core, 20, L1, SP_HOLD_SHARED);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	/* reader-preferring rwlocks let more readers in: each delays W */
	sp_lock_acquired(core, 21, L1, SP_HOLD_SHARED);
	sp_assert_boosted(&sp_test_host, 20);
	sp_assert_boosted(&sp_test_host, 21);
	sp_lock_released(core, 20, L1, SP_HOLD_SHARED);
	sp_lock_released(core, 21, L1, SP_HOLD_SHARED);
	assert_int_equal(sp_test_boosted_count(&sp_test_host), 0);
	sp_lock_unblocked(core, W, L1, true);
}

static void test_chain_boosts_every_link(void **state)
{
	struct sp_core *core = *state;

	/* W waits L1 held by A; A waits L2 held by B */
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_acquired(core, B, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, A, L2, SP_HOLD_EXCL);
	sp_assert_not_boosted(&sp_test_host, B);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&sp_test_host, A);
	sp_assert_boosted(&sp_test_host, B);
	/* B lets go of L2 and A gets it: B restored, A still needed */
	sp_lock_released(core, B, L2, SP_HOLD_EXCL);
	sp_assert_not_boosted(&sp_test_host, B);
	sp_lock_unblocked(core, A, L2, true);
	sp_assert_boosted(&sp_test_host, A);
	sp_lock_released(core, A, L2, SP_HOLD_EXCL);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&sp_test_host, A);
	sp_lock_unblocked(core, W, L1, true);
}

static void test_boosted_holder_that_blocks_extends_chain(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_acquired(core, B, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&sp_test_host, A);
	/* A, fast-tracked on W's behalf, now waits for B */
	sp_lock_blocked(core, A, L2, SP_HOLD_EXCL);
	sp_assert_boosted(&sp_test_host, B);
	/* W gives up: both links lose their fast track */
	sp_lock_unblocked(core, W, L1, false);
	sp_assert_not_boosted(&sp_test_host, A);
	sp_assert_not_boosted(&sp_test_host, B);
	sp_core_stats(core, &s);
	assert_int_equal(s.grants, 2);
	assert_int_equal(s.ends_unblock, 2);
	sp_lock_unblocked(core, A, L2, false);
}

static void test_chain_link_stops_waiting(void **state)
{
	struct sp_core *core = *state;

	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_acquired(core, B, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, A, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&sp_test_host, B);
	/* A stops waiting for L2 (timeout): B no longer delays W */
	sp_lock_unblocked(core, A, L2, false);
	sp_assert_not_boosted(&sp_test_host, B);
	sp_assert_boosted(&sp_test_host, A);
	sp_lock_unblocked(core, W, L1, false);
}

static void test_new_owner_while_critical_waits(void **state)
{
	struct sp_core *core = *state;

	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, C, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&sp_test_host, A);
	/* C wins the lock before W: now C delays W */
	sp_lock_unblocked(core, C, L1, true);
	sp_assert_boosted(&sp_test_host, C);
	sp_lock_released(core, C, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&sp_test_host, C);
	sp_lock_unblocked(core, W, L1, true);
}

static void test_lost_unblock_closes_previous_wait(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_acquired(core, B, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&sp_test_host, A);
	/* the host never reported the end of the first wait */
	sp_lock_blocked(core, W, L2, SP_HOLD_EXCL);
	sp_assert_not_boosted(&sp_test_host, A);
	sp_assert_boosted(&sp_test_host, B);
	sp_core_stats(core, &s);
	assert_int_equal(s.stale_events, 1);
	assert_int_equal(sp_lock_unblocked(core, W, L1, false), -ENOENT);
	assert_int_equal(sp_lock_unblocked(core, W, L2, false), 0);
	sp_assert_not_boosted(&sp_test_host, B);
}

/* The target runs the moment it is fast-tracked and releases the lock,
 * inside the granter's actuator call: the host may re-enter the core, and
 * the release must find the grant (it is ACTIVE before the host is told). */
static void release_at_once(struct sp_rec_host *h, sp_tid_t tid, bool boosted)
{
	if (!boosted)
		return;
	assert_int_equal(sp_task_fast_tracked(h->core, tid), 1);
	assert_int_equal(sp_lock_released(h->core, tid, L1, SP_HOLD_EXCL), 0);
}

static void test_target_runs_inside_actuator_call(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	sp_test_host.on_change = release_at_once;
	w_waits_behind_a(core);
	sp_rec_host_run(&sp_test_host); /* QUEUED: the worker boosts; the target runs */
	sp_test_host.on_change = NULL;
	sp_assert_not_boosted(&sp_test_host, A);
	assert_int_equal(sp_task_fast_tracked(core, A), 0);
	sp_core_stats(core, &s);
	assert_int_equal(s.ends_release, 1);
	assert_int_equal(sp_test_host.fast_tracks, 1);
	assert_int_equal(sp_test_host.restores, 1);
	sp_lock_unblocked(core, W, L1, true);
}

static void block_with_word(struct sp_core *core, sp_tid_t tid, sp_tid_t word)
{
	const struct sp_event ev = { .type = SP_EV_BLOCKED, .hold = SP_HOLD_EXCL,
				     .flags = SP_EVF_OWNER, .tid = tid, .lock = L1,
				     .owner = word };

	assert_int_equal(sp_core_event(core, &ev), 0);
}

static sp_tid_t owner_of(struct sp_core *core, sp_lock_key_t lock)
{
	sp_tid_t owner = 0;

	sp_lock_owner(core, lock, &owner);
	return owner;
}

/* A block event carries the owner read from the lock word; the core
 * reconciles it with its record in one place. */
static void test_owner_from_lock_word(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	/* an acquire the core never heard of: the word names A */
	block_with_word(core, W, A);
	sp_assert_boosted(&sp_test_host, A);
	assert_int_equal(owner_of(core, L1), A);
	/* the same wait reported again with the same word changes nothing */
	block_with_word(core, W, A);
	/* A's own late acquire report keeps A; its release restores */
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&sp_test_host, A);
	assert_int_equal(owner_of(core, L1), 0);
	/* the word changed (a release the host never saw): B replaces a word
	 * owner, then a word of 0 ("free") takes it back */
	block_with_word(core, W, B);
	sp_assert_boosted(&sp_test_host, B);
	block_with_word(core, W, C);
	assert_int_equal(owner_of(core, L1), C);
	sp_assert_not_boosted(&sp_test_host, B);
	sp_assert_boosted(&sp_test_host, C);
	block_with_word(core, W, 0);
	assert_int_equal(owner_of(core, L1), 0);
	sp_assert_not_boosted(&sp_test_host, C);
	/* an owner the core heard acquire the lock wins over a word */
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	block_with_word(core, W, B);
	assert_int_equal(owner_of(core, L1), A);
	block_with_word(core, W, 0);
	assert_int_equal(owner_of(core, L1), A);
	/* the waiter named as owner is not taken (a recursive read) */
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	block_with_word(core, W, W);
	assert_int_equal(owner_of(core, L1), 0);
	sp_lock_unblocked(core, W, L1, false);
	sp_core_stats(core, &s);
	assert_int_equal(s.acquires, 2);   /* words are not acquires */
	assert_int_equal(s.releases, 2);
	assert_int_equal(s.owner_updates, 4); /* A, B, C, then 0 */
	assert_int_equal(s.blocks, 1);        /* one wait, reported many times */
}

/* An unblock that got the lock is also its acquire, in the wait's hold. */
static void test_unblock_acquired_records_acquire(void **state)
{
	struct sp_core *core = *state;
	const struct sp_event blocked = { .type = SP_EV_BLOCKED, .hold = SP_HOLD_SHARED,
					  .tid = B, .lock = L1 };
	const struct sp_event got = { .type = SP_EV_UNBLOCKED, .flags = SP_EVF_ACQUIRED,
				      .tid = B, .lock = L1 };
	sp_tid_t readers[4];
	struct sp_stats s;

	w_waits_behind_a(core);
	sp_assert_boosted(&sp_test_host, A);
	assert_int_equal(sp_core_event(core, &blocked), 0);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&sp_test_host, A);
	/* B got the read side: it is a reader now, and W's wait boosts it */
	assert_int_equal(sp_core_event(core, &got), 0);
	assert_int_equal(sp_lock_readers(core, L1, readers, 4, NULL), 1);
	assert_int_equal(readers[0], B);
	sp_assert_boosted(&sp_test_host, B);
	sp_lock_released(core, B, L1, SP_HOLD_SHARED);
	sp_assert_not_boosted(&sp_test_host, B);
	/* W gives up without the lock: no acquire */
	sp_lock_unblocked(core, W, L1, false);
	assert_int_equal(owner_of(core, L1), 0);
	sp_core_stats(core, &s);
	assert_int_equal(s.acquires, 2);
	assert_int_equal(s.releases, 2);
}

/* The kernel host never sees a mutex released: an acquire that ends a
 * wait reported with a lock word must yield to the next word. */
static void test_word_wait_acquire_yields_to_next_word(void **state)
{
	struct sp_core *core = *state;
	const struct sp_event got = { .type = SP_EV_UNBLOCKED, .flags = SP_EVF_ACQUIRED,
				      .tid = A, .lock = L1 };

	block_with_word(core, A, B); /* A (not critical) waits behind B */
	assert_int_equal(sp_core_event(core, &got), 0);
	assert_int_equal(owner_of(core, L1), A);
	/* A let go unseen; W finds C in the word */
	block_with_word(core, W, C);
	assert_int_equal(owner_of(core, L1), C);
	sp_assert_boosted(&sp_test_host, C);
	sp_assert_not_boosted(&sp_test_host, A);
	/* a plain wait's acquire (no word read) still wins over a word */
	sp_lock_unblocked(core, W, L1, false);
	block_with_word(core, W, 0);
	sp_lock_unblocked(core, W, L1, false);
	sp_lock_blocked(core, B, L1, SP_HOLD_EXCL);
	sp_lock_unblocked(core, B, L1, true);
	assert_int_equal(owner_of(core, L1), B);
	block_with_word(core, W, C);
	assert_int_equal(owner_of(core, L1), B);
	sp_lock_released(core, B, L1, SP_HOLD_EXCL);
	sp_lock_unblocked(core, W, L1, false);
}

/*
 * Two readers queued behind a writer's hold are handed the read side
 * asleep; the critical writer's next wait has both reported by its scan.
 * The first to wake ends its own wait; the other, still in its section as
 * far as anyone knows, must stay boosted. A queued reader that holds the
 * lock it waits for waits for nothing through it, so no grant may be
 * made on its behalf (it would end with its wait).
 */
static void test_handed_reader_keeps_boost_when_another_wakes(void **state)
{
	struct sp_core *core = *state;

	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, B, L1, SP_HOLD_SHARED);  /* queued behind A */
	sp_lock_blocked(core, C, L1, SP_HOLD_SHARED);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);   /* both handed the read side */
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);    /* the writer's next wait */
	sp_lock_acquired(core, C, L1, SP_HOLD_SHARED); /* its scan reports them */
	sp_lock_acquired(core, B, L1, SP_HOLD_SHARED);
	sp_assert_boosted(&sp_test_host, B);
	sp_assert_boosted(&sp_test_host, C);
	sp_lock_unblocked(core, C, L1, false); /* C wakes first (the scan told its hold) */
	sp_assert_boosted(&sp_test_host, B);
	sp_assert_boosted(&sp_test_host, C);
	sp_lock_unblocked(core, B, L1, false);
	sp_assert_boosted(&sp_test_host, B);
	sp_lock_released(core, C, L1, SP_HOLD_SHARED);
	sp_lock_released(core, B, L1, SP_HOLD_SHARED);
	sp_assert_not_boosted(&sp_test_host, B);
	sp_assert_not_boosted(&sp_test_host, C);
	sp_lock_unblocked(core, W, L1, true);
	sp_lock_released(core, W, L1, SP_HOLD_EXCL);
}

/* A kernel mutex handoff names the waiter as owner before it wakes: the
 * walk boosts it, and it is no deadlock. */
static void test_handoff_owner_still_waiting_is_no_cycle(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	sp_lock_blocked(core, A, L1, SP_HOLD_EXCL); /* A queued first */
	block_with_word(core, W, A);                /* handed to A, not awake yet */
	sp_assert_boosted(&sp_test_host, A);
	sp_core_stats(core, &s);
	assert_int_equal(s.deadlocks, 0);
	assert_int_equal(sp_test_host.deadlocks, 0);
	sp_lock_unblocked(core, A, L1, true);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&sp_test_host, A);
	sp_lock_unblocked(core, W, L1, false);
}

/* Malformed records are rejected and counted, never acted on. */
static void test_bad_events(void **state)
{
	struct sp_core *core = *state;
	const struct sp_event bad[] = {
		{ .type = 0, .tid = A, .lock = L1 },
		{ .type = SP_EV_NR, .tid = A, .lock = L1 },
		{ .type = 999, .tid = A, .lock = L1 },
		{ .type = SP_EV_ACQUIRED, .tid = 0, .lock = L1 },
		{ .type = SP_EV_ACQUIRED, .tid = A, .lock = 0 },
		{ .type = SP_EV_ACQUIRED, .hold = 7, .tid = A, .lock = L1 },
		{ .type = SP_EV_ACQUIRED, .flags = SP_EVF_OWNER, .tid = A, .lock = L1 },
		{ .type = SP_EV_BLOCKED, .tid = W, .lock = L1, .owner = A }, /* no OWNER flag */
		{ .type = SP_EV_BLOCKED, .kind = 9, .tid = W, .lock = L1 },
		{ .type = SP_EV_UNBLOCKED, .flags = SP_EVF_ON, .tid = W, .lock = L1 },
		{ .type = SP_EV_DECLARED, .kind = SP_LOCK_UNKNOWN, .lock = L1 },
		{ .type = SP_EV_EXIT, .tid = 0 },
		{ .type = SP_EV_CRITICAL, .tid = 0, .flags = SP_EVF_ON },
		{ .type = SP_EV_DESTROYED, .lock = 0 },
	};
	struct sp_stats s;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(sp_core_event(core, &bad[i]), -EINVAL);
	assert_int_equal(sp_core_event(core, NULL), -EINVAL);
	assert_int_equal(sp_core_event(NULL, &bad[0]), -EINVAL);
	sp_core_stats(core, &s);
	assert_int_equal(s.bad_events, sizeof(bad) / sizeof(bad[0]));
	assert_int_equal(s.acquires + s.blocks + s.unblocks + s.grants, 0);
	assert_int_equal(sp_test_boosted_count(&sp_test_host), 0);
	assert_null(sp_event_name(0));
	assert_null(sp_event_name(SP_EV_NR));
	assert_string_equal(sp_event_name(SP_EV_BLOCKED), "blocked");
}

/* Every event type through the one entry point. */
static void test_core_event_dispatch(void **state)
{
	struct sp_core *core = *state;
	const struct sp_event evs[] = {
		{ .type = SP_EV_CRITICAL, .flags = SP_EVF_ON, .tid = W },
		{ .type = SP_EV_DECLARED, .kind = SP_LOCK_MUTEX, .lock = L1 },
		{ .type = SP_EV_ACQUIRED, .hold = SP_HOLD_EXCL, .tid = A, .lock = L1 },
		{ .type = SP_EV_BLOCKED, .hold = SP_HOLD_EXCL, .tid = W, .lock = L1 },
	};
	const struct sp_event after[] = {
		{ .type = SP_EV_RELEASED, .hold = SP_HOLD_EXCL, .tid = A, .lock = L1 },
		{ .type = SP_EV_UNBLOCKED, .flags = SP_EVF_ACQUIRED, .tid = W, .lock = L1 },
		{ .type = SP_EV_RELEASED, .hold = SP_HOLD_EXCL, .tid = W, .lock = L1 },
		{ .type = SP_EV_DESTROYED, .lock = L1 },
		{ .type = SP_EV_EXIT, .tid = A },
		{ .type = SP_EV_CRITICAL, .tid = W },
	};
	struct sp_stats s;
	size_t i;

	for (i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		assert_int_equal(sp_core_event(core, &evs[i]), 0);
	assert_int_equal(sp_task_is_critical(core, W), 1);
	sp_assert_boosted(&sp_test_host, A);
	for (i = 0; i < sizeof(after) / sizeof(after[0]); i++)
		assert_int_equal(sp_core_event(core, &after[i]), 0);
	sp_assert_not_boosted(&sp_test_host, A);
	assert_int_equal(sp_task_is_critical(core, W), 0);
	assert_int_equal(sp_task_fast_tracked(core, A), -ENOENT);
	sp_core_stats(core, &s);
	assert_int_equal(s.acquires, 2);
	assert_int_equal(s.releases, 2);
	assert_int_equal(s.blockings, 1);
	assert_int_equal(s.ends_release, 1);
	assert_int_equal(s.bad_events, 0);
}

static void test_tick_refresh_finds_unseen_owner(void **state)
{
	struct sp_core *core = *state;
	struct sp_lock *l;

	assert_false(sp_core_needs_tick(core));
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);   /* no owner known: no grant */
	assert_true(sp_core_needs_tick(core));
	/* A took L1 in that same instant: its owner store raced W's walk and
	 * its look at the waiter slots missed W (the window the barrier-free
	 * acquire leaves). Staged by writing the owner word directly. */
	sp_rcu_read_lock();
	l = sp_lock_find(core, L1);
	assert_non_null(l);
	sp_atomic_store(&l->owner, A);
	sp_rcu_read_unlock();
	sp_assert_not_boosted(&sp_test_host, A);
	sp_test_host.now += MS / 2;
	sp_core_tick(core);
	sp_assert_not_boosted(&sp_test_host, A);   /* younger than the refresh age */
	sp_test_host.now += MS / 2;
	sp_core_tick(core);
	sp_assert_boosted(&sp_test_host, A);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&sp_test_host, A);
	sp_lock_unblocked(core, W, L1, true);
	assert_false(sp_core_needs_tick(core));
}

static void test_budget_expiry(void **state)
{
	struct sp_core *core = *state;   /* default budget 20 ms */
	struct sp_stats s;

	w_waits_behind_a(core);
	sp_test_host.now += 19 * MS;
	assert_int_equal(sp_core_tick(core), 0);
	sp_assert_boosted(&sp_test_host, A);
	sp_test_host.now += 1 * MS;
	assert_int_equal(sp_core_tick(core), 1);
	sp_assert_not_boosted(&sp_test_host, A);
	sp_core_stats(core, &s);
	assert_int_equal(s.expiries, 1);
	/* re-reporting the same wait does not buy a new budget at once... */
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&sp_test_host, A);
	sp_test_host.now += 19 * MS;
	sp_core_tick(core);
	sp_assert_not_boosted(&sp_test_host, A);
	sp_core_stats(core, &s);
	assert_true(s.grants_refused >= 2);
	/* ...but after as long off as it had on, the tick's refresh of the
	 * long wait grants again: a long critical section progresses at half
	 * speed instead of starving */
	sp_test_host.now += 1 * MS;
	sp_core_tick(core);
	sp_assert_boosted(&sp_test_host, A);
	sp_lock_unblocked(core, W, L1, false);
	sp_assert_not_boosted(&sp_test_host, A);
	/* a new wait gets a budget at once */
	sp_lock_unblocked(core, W, L1, false);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&sp_test_host, A);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_lock_unblocked(core, W, L1, true);
}

static void test_throttle_caps_share(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	sp_task_set_critical(core, W2, true);
	w_waits_behind_a(core);
	sp_test_host.now += 30 * MS;
	assert_int_equal(sp_core_tick(core), 0);   /* exactly at the share: fine */
	sp_assert_boosted(&sp_test_host, A);
	sp_test_host.now += 1 * MS;
	assert_int_equal(sp_core_tick(core), 1);
	sp_assert_not_boosted(&sp_test_host, A);
	/* refused until the window closes */
	sp_lock_blocked(core, W2, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&sp_test_host, A);
	sp_core_stats(core, &s);
	assert_int_equal(s.throttles, 1);
	assert_int_equal(s.ends_throttle, 1);
	/* W2's request, and the refresh of W's wait by that same tick */
	assert_int_equal(s.grants_refused, 2);
	sp_lock_unblocked(core, W2, L1, false);
	sp_test_host.now += 68 * MS;
	sp_core_tick(core);
	sp_assert_not_boosted(&sp_test_host, A);
	sp_test_host.now += 2 * MS;                         /* next window */
	sp_core_tick(core);                         /* W still waits: granted */
	sp_assert_boosted(&sp_test_host, A);
	sp_lock_blocked(core, W2, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&sp_test_host, A);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_lock_unblocked(core, W2, L1, true);
	sp_lock_unblocked(core, W, L1, false);
}

static void test_throttle_counts_across_grants(void **state)
{
	struct sp_core *core = *state;

	/* two 20 ms boosts inside one window add up to more than 30 ms */
	for (int i = 0; i < 2; i++) {
		sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
		sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
		sp_test_host.now += 20 * MS;
		sp_core_tick(core);
		if (i == 0) {
			sp_assert_boosted(&sp_test_host, A);
			sp_lock_released(core, A, L1, SP_HOLD_EXCL);
			sp_lock_unblocked(core, W, L1, true);
			sp_lock_released(core, W, L1, SP_HOLD_EXCL);
		}
	}
	sp_assert_not_boosted(&sp_test_host, A);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_lock_unblocked(core, W, L1, true);
}

static void test_boosted_task_exits(void **state)
{
	struct sp_core *core = *state;
	struct sp_walk_result r;
	sp_tid_t out[4], owner = 1;
	struct sp_stats s;

	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_acquired(core, A, L2, SP_HOLD_SHARED);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&sp_test_host, A);
	assert_int_equal(sp_task_exit(core, A), 0);
	sp_assert_not_boosted(&sp_test_host, A);
	assert_int_equal(sp_task_fast_tracked(core, A), -ENOENT);
	/* what it held is no longer held by anyone */
	sp_lock_owner(core, L1, &owner);
	assert_int_equal(owner, 0);
	assert_int_equal(sp_lock_readers(core, L2, out, 4, NULL), 0);
	assert_int_equal(sp_graph_blockers(core, W, out, 4, &r), 0);
	assert_int_equal(r.nr, 0);
	sp_core_stats(core, &s);
	assert_int_equal(s.ends_exit, 1);
	assert_int_equal(s.acquires, 2);   /* the exited task's counts are kept */
	sp_lock_unblocked(core, W, L1, true);
}

static void test_waiter_exits(void **state)
{
	struct sp_core *core = *state;

	w_waits_behind_a(core);
	sp_assert_boosted(&sp_test_host, A);
	assert_int_equal(sp_task_exit(core, W), 0);
	sp_assert_not_boosted(&sp_test_host, A);
	/* the exited tid may come back as a new, non-critical task */
	assert_int_equal(sp_task_register(core, W), 0);
	assert_int_equal(sp_task_is_critical(core, W), 0);
}

static void test_lock_destroyed_while_tracked(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	w_waits_behind_a(core);
	sp_assert_boosted(&sp_test_host, A);
	assert_int_equal(sp_lock_destroyed(core, L1), 0);
	sp_assert_not_boosted(&sp_test_host, A);
	sp_core_stats(core, &s);
	assert_int_equal(s.ends_exit, 1);
	assert_int_equal(s.locks_now, 0);
	/* late events for the dead lock are refused, not crashes */
	assert_int_equal(sp_lock_released(core, A, L1, SP_HOLD_EXCL), -ENOENT);
	assert_int_equal(sp_lock_unblocked(core, W, L1, false), 0);
	assert_int_equal(sp_core_reclaim(core), 1);
}

static void test_grant_table_overflow(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	for (sp_tid_t r = 20; r < 24; r++)
		sp_lock_acquired(core, r, L1, SP_HOLD_SHARED);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	assert_int_equal(sp_test_boosted_count(&sp_test_host), 2);
	sp_core_stats(core, &s);
	assert_int_equal(s.grant_overflows, 2);
	assert_int_equal(s.grants_now, 2);
	sp_lock_unblocked(core, W, L1, false);
	assert_int_equal(sp_test_boosted_count(&sp_test_host), 0);
}

static void test_actuator_failure_is_counted(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	sp_test_host.fail_fast_track = -EPERM;
	w_waits_behind_a(core);
	assert_int_equal(sp_task_fast_tracked(core, A), 0);
	sp_lock_unblocked(core, W, L1, false);
	sp_core_stats(core, &s);
	assert_int_equal(s.actuator_errors, 1);
	assert_int_equal(sp_test_host.restores, 0);   /* nothing was boosted */
}

static void test_deadlock_reported_to_host(void **state)
{
	struct sp_core *core = *state;
	struct sp_stats s;

	/* W holds L2 and waits L1; A holds L1 and waits L2 */
	sp_lock_acquired(core, W, L2, SP_HOLD_EXCL);
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, A, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_core_stats(core, &s);
	assert_int_equal(s.deadlocks, 1);
	assert_int_equal(sp_test_host.deadlocks, 1);
	assert_int_equal(sp_test_host.last_deadlock_waiter, W);
	/* A still gets its fast track: it is the only way out if anything
	 * times out */
	sp_assert_boosted(&sp_test_host, A);
	sp_lock_unblocked(core, W, L1, false);
	sp_lock_unblocked(core, A, L2, false);
}

static void test_destroy_restores_everything(void **state)
{
	struct sp_core *core = *state;

	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_acquired(core, B, L2, SP_HOLD_SHARED);
	sp_lock_blocked(core, A, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	assert_int_equal(sp_test_boosted_count(&sp_test_host), 2);
	sp_test_destroy(&sp_test_host);
	assert_int_equal(sp_test_boosted_count(&sp_test_host), 0);
	assert_int_equal(sp_test_host.bad_calls, 0);
	assert_int_equal(sp_test_host.restores, 2);
}

static void test_blocking_histogram(void **state)
{
	struct sp_core *core = *state;
	struct sp_hist *h = test_malloc(sizeof(*h));

	for (int i = 1; i <= 100; i++) {
		sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
		sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
		sp_lock_blocked(core, B, L1, SP_HOLD_EXCL);   /* not critical */
		sp_test_host.now += (uint64_t)i * MS;
		sp_lock_released(core, A, L1, SP_HOLD_EXCL);
		sp_lock_unblocked(core, W, L1, true);
		sp_lock_unblocked(core, B, L1, false);
	}
	sp_core_blocking_hist(core, h);
	assert_int_equal(h->count, 100);
	assert_int_equal(h->max, 100 * MS);
	assert_int_equal(h->min, 1 * MS);
	/* P50 is 50 ms within the histogram's 1/128 */
	assert_in_range(sp_hist_quantile(h, 50, 100), 50 * MS - 50 * MS / 128,
			50 * MS + 50 * MS / 128);
	test_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_owner_boosted_until_release, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handed_reader_keeps_boost_when_another_wakes,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore_when_waiter_gives_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_normal_waiter_boosts_nobody, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_waiters_one_boost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repeated_block_report_is_one_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readers_boosted_up_to_k, setup_two_readers, teardown),
		cmocka_unit_test_setup_teardown(test_new_reader_while_writer_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chain_boosts_every_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boosted_holder_that_blocks_extends_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chain_link_stops_waiting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_owner_while_critical_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_unblock_closes_previous_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_target_runs_inside_actuator_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_owner_from_lock_word, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unblock_acquired_records_acquire, setup, teardown),
		cmocka_unit_test_setup_teardown(test_word_wait_acquire_yields_to_next_word, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handoff_owner_still_waiting_is_no_cycle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_core_event_dispatch, sp_test_setup, teardown),
		cmocka_unit_test_setup_teardown(test_tick_refresh_finds_unseen_owner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_budget_expiry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_throttle_caps_share, setup_throttle, teardown),
		cmocka_unit_test_setup_teardown(test_throttle_counts_across_grants, setup_throttle, teardown),
		cmocka_unit_test_setup_teardown(test_boosted_task_exits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_waiter_exits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_destroyed_while_tracked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_grant_table_overflow, setup_two_grants, teardown),
		cmocka_unit_test_setup_teardown(test_actuator_failure_is_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deadlock_reported_to_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_restores_everything, setup, teardown),
		cmocka_unit_test_setup_teardown(test_blocking_histogram, setup, teardown),
	};

	int failed;

	/* Every case under both actuator models: callbacks applied at once,
	 * and queued for a worker (what the runtime and the kmod do). */
	failed = cmocka_run_group_tests_name("direct actuator", tests, direct_actuator,
					     sp_test_group_teardown);
	failed += cmocka_run_group_tests_name("queued actuator", tests, queued_actuator,
					      sp_test_group_teardown);
	return failed;
}
