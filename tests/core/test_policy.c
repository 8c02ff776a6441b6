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

static struct sp_rec_host host;

/* Bookkeeping that must hold at any quiet moment. */
static void check_invariants(struct sp_core *core)
{
	struct sp_stats s;

	sp_core_stats(core, &s);
	assert_int_equal(host.bad_calls, 0);
	assert_int_equal(s.fast_tracks, s.restores + s.boosted_now);
	assert_int_equal(s.grants, s.ends_release + s.ends_unblock + s.ends_exit + s.expiries +
					   s.ends_throttle + s.grants_now);
	assert_int_equal(s.boosted_now, sp_test_boosted_count(&host));
}

static struct sp_core *setup(const struct sp_config *cfg)
{
	struct sp_core *core = sp_test_core(&host, cfg);

	assert_int_equal(sp_task_set_critical(core, W, true), 0);
	assert_int_equal(sp_task_is_critical(core, W), 1);
	return core;
}

static void teardown(struct sp_core *core)
{
	check_invariants(core);
	sp_test_destroy(&host);
	assert_int_equal(sp_test_boosted_count(&host), 0);
	assert_int_equal(host.bad_calls, 0);
}

static void test_owner_boosted_until_release(void **state)
{
	struct sp_core *core = setup(NULL);
	struct sp_stats s;

	(void)state;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&host, A);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&host, A);
	assert_int_equal(sp_task_boosted(core, A), 1);
	check_invariants(core);

	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&host, A);
	assert_int_equal(sp_task_boosted(core, A), 0);
	sp_lock_unblocked(core, W, L1, true);
	sp_core_stats(core, &s);
	assert_int_equal(s.grants, 1);
	assert_int_equal(s.ends_release, 1);
	assert_int_equal(s.fast_tracks, 1);
	assert_int_equal(s.restores, 1);
	assert_int_equal(s.blockings, 1);
	teardown(core);
}

static void test_restore_when_waiter_gives_up(void **state)
{
	struct sp_core *core = setup(NULL);
	struct sp_stats s;

	(void)state;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&host, A);
	/* a timed lock times out: A still holds L1 but nobody critical waits */
	sp_lock_unblocked(core, W, L1, false);
	sp_assert_not_boosted(&host, A);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_core_stats(core, &s);
	assert_int_equal(s.ends_unblock, 1);
	assert_int_equal(s.ends_release, 0);
	assert_int_equal(host.restores, 1);
	teardown(core);
}

static void test_normal_waiter_boosts_nobody(void **state)
{
	struct sp_core *core = setup(NULL);
	struct sp_stats s;

	(void)state;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, B, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&host, A);
	/* a task that stops being critical stops causing boosts */
	sp_task_set_critical(core, W, false);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&host, A);
	sp_lock_unblocked(core, W, L1, false);
	sp_lock_unblocked(core, B, L1, false);
	sp_core_stats(core, &s);
	assert_int_equal(s.grants, 0);
	assert_int_equal(s.blocks, 2);
	assert_int_equal(s.blockings, 0);
	teardown(core);
}

static void test_two_waiters_one_boost(void **state)
{
	struct sp_core *core = setup(NULL);

	(void)state;
	sp_task_set_critical(core, W2, true);
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, W2, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&host, A);
	assert_int_equal(host.fast_tracks, 1);
	sp_lock_unblocked(core, W, L1, false);
	sp_assert_boosted(&host, A);   /* W2 still needs it */
	assert_int_equal(host.restores, 0);
	sp_lock_unblocked(core, W2, L1, false);
	sp_assert_not_boosted(&host, A);
	assert_int_equal(host.restores, 1);
	teardown(core);
}

static void test_repeated_block_report_is_one_wait(void **state)
{
	struct sp_core *core = setup(NULL);
	struct sp_stats s;

	(void)state;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&host, A);
	host.now += 3 * MS;
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);   /* fired again after a wakeup */
	host.now += 2 * MS;
	sp_lock_unblocked(core, W, L1, true);
	sp_core_stats(core, &s);
	assert_int_equal(s.blocks, 1);
	assert_int_equal(s.grants, 1);
	assert_int_equal(s.grant_dups, 1);
	sp_assert_not_boosted(&host, A);
	assert_int_equal(host.fast_tracks, 1);
	teardown(core);
}

static void test_readers_boosted_up_to_k(void **state)
{
	struct sp_config cfg;
	struct sp_core *core;
	struct sp_stats s;

	(void)state;
	sp_config_default(&cfg);
	cfg.readers_per_lock = 2;
	core = setup(&cfg);
	for (sp_tid_t r = 20; r < 24; r++)
		sp_lock_acquired(core, r, L1, SP_HOLD_SHARED);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	assert_int_equal(sp_test_boosted_count(&host), 2);
	sp_assert_boosted(&host, 20);
	sp_assert_boosted(&host, 21);
	sp_assert_not_boosted(&host, 22);
	/* each tracked reader is restored when it leaves */
	sp_lock_released(core, 20, L1, SP_HOLD_SHARED);
	sp_assert_not_boosted(&host, 20);
	sp_assert_boosted(&host, 21);
	sp_lock_released(core, 22, L1, SP_HOLD_SHARED);   /* untracked: no effect */
	sp_assert_boosted(&host, 21);
	sp_lock_released(core, 21, L1, SP_HOLD_SHARED);
	sp_lock_released(core, 23, L1, SP_HOLD_SHARED);
	assert_int_equal(sp_test_boosted_count(&host), 0);
	sp_lock_unblocked(core, W, L1, true);
	sp_core_stats(core, &s);
	assert_int_equal(s.reader_overflows, 2);
	assert_int_equal(s.ends_release, 2);
	teardown(core);
}

static void test_new_reader_while_writer_waits(void **state)
{
	struct sp_core *core = setup(NULL);

	(void)state;
	sp_lock_acquired(core, 20, L1, SP_HOLD_SHARED);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	/* reader-preferring rwlocks let more readers in: each delays W */
	sp_lock_acquired(core, 21, L1, SP_HOLD_SHARED);
	sp_assert_boosted(&host, 20);
	sp_assert_boosted(&host, 21);
	sp_lock_released(core, 20, L1, SP_HOLD_SHARED);
	sp_lock_released(core, 21, L1, SP_HOLD_SHARED);
	assert_int_equal(sp_test_boosted_count(&host), 0);
	sp_lock_unblocked(core, W, L1, true);
	teardown(core);
}

static void test_chain_boosts_every_link(void **state)
{
	struct sp_core *core = setup(NULL);

	(void)state;
	/* W waits L1 held by A; A waits L2 held by B */
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_acquired(core, B, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, A, L2, SP_HOLD_EXCL);
	sp_assert_not_boosted(&host, B);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&host, A);
	sp_assert_boosted(&host, B);
	/* B lets go of L2 and A gets it: B restored, A still needed */
	sp_lock_released(core, B, L2, SP_HOLD_EXCL);
	sp_assert_not_boosted(&host, B);
	sp_lock_unblocked(core, A, L2, true);
	sp_assert_boosted(&host, A);
	sp_lock_released(core, A, L2, SP_HOLD_EXCL);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&host, A);
	sp_lock_unblocked(core, W, L1, true);
	teardown(core);
}

static void test_boosted_holder_that_blocks_extends_chain(void **state)
{
	struct sp_core *core = setup(NULL);
	struct sp_stats s;

	(void)state;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_acquired(core, B, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&host, A);
	/* A, fast-tracked on W's behalf, now waits for B */
	sp_lock_blocked(core, A, L2, SP_HOLD_EXCL);
	sp_assert_boosted(&host, B);
	/* W gives up: both links lose their fast track */
	sp_lock_unblocked(core, W, L1, false);
	sp_assert_not_boosted(&host, A);
	sp_assert_not_boosted(&host, B);
	sp_core_stats(core, &s);
	assert_int_equal(s.grants, 2);
	assert_int_equal(s.ends_unblock, 2);
	sp_lock_unblocked(core, A, L2, false);
	teardown(core);
}

static void test_chain_link_stops_waiting(void **state)
{
	struct sp_core *core = setup(NULL);

	(void)state;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_acquired(core, B, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, A, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&host, B);
	/* A stops waiting for L2 (timeout): B no longer delays W */
	sp_lock_unblocked(core, A, L2, false);
	sp_assert_not_boosted(&host, B);
	sp_assert_boosted(&host, A);
	sp_lock_unblocked(core, W, L1, false);
	teardown(core);
}

static void test_new_owner_while_critical_waits(void **state)
{
	struct sp_core *core = setup(NULL);

	(void)state;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, C, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&host, A);
	/* C wins the lock before W: now C delays W */
	sp_lock_unblocked(core, C, L1, true);
	sp_assert_boosted(&host, C);
	sp_lock_released(core, C, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&host, C);
	sp_lock_unblocked(core, W, L1, true);
	teardown(core);
}

static void test_lost_unblock_closes_previous_wait(void **state)
{
	struct sp_core *core = setup(NULL);
	struct sp_stats s;

	(void)state;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_acquired(core, B, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&host, A);
	/* the host never reported the end of the first wait */
	sp_lock_blocked(core, W, L2, SP_HOLD_EXCL);
	sp_assert_not_boosted(&host, A);
	sp_assert_boosted(&host, B);
	sp_core_stats(core, &s);
	assert_int_equal(s.stale_events, 1);
	assert_int_equal(sp_lock_unblocked(core, W, L1, false), -ENOENT);
	assert_int_equal(sp_lock_unblocked(core, W, L2, false), 0);
	sp_assert_not_boosted(&host, B);
	teardown(core);
}

/* The target runs the moment it is fast-tracked and releases the lock,
 * inside the granter's actuator call: the host may re-enter the core, and
 * the release must find the grant (it is ACTIVE before the host is told). */
static void release_at_once(struct sp_rec_host *h, sp_tid_t tid, bool boosted)
{
	if (!boosted)
		return;
	assert_int_equal(sp_task_boosted(h->core, tid), 1);
	assert_int_equal(sp_lock_released(h->core, tid, L1, SP_HOLD_EXCL), 0);
}

static void test_target_runs_inside_actuator_call(void **state)
{
	struct sp_core *core = setup(NULL);
	struct sp_stats s;

	(void)state;
	host.on_change = release_at_once;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_rec_host_run(&host); /* QUEUED: the worker boosts; the target runs */
	host.on_change = NULL;
	sp_assert_not_boosted(&host, A);
	assert_int_equal(sp_task_boosted(core, A), 0);
	sp_core_stats(core, &s);
	assert_int_equal(s.ends_release, 1);
	assert_int_equal(host.fast_tracks, 1);
	assert_int_equal(host.restores, 1);
	sp_lock_unblocked(core, W, L1, true);
	teardown(core);
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
	struct sp_core *core = setup(NULL);
	struct sp_stats s;

	(void)state;
	/* an acquire the core never heard of: the word names A */
	block_with_word(core, W, A);
	sp_assert_boosted(&host, A);
	assert_int_equal(owner_of(core, L1), A);
	/* the same wait reported again with the same word changes nothing */
	block_with_word(core, W, A);
	/* A's own late acquire report keeps A; its release restores */
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&host, A);
	assert_int_equal(owner_of(core, L1), 0);
	/* the word changed (a release the host never saw): B replaces a word
	 * owner, then a word of 0 ("free") takes it back */
	block_with_word(core, W, B);
	sp_assert_boosted(&host, B);
	block_with_word(core, W, C);
	assert_int_equal(owner_of(core, L1), C);
	sp_assert_not_boosted(&host, B);
	sp_assert_boosted(&host, C);
	block_with_word(core, W, 0);
	assert_int_equal(owner_of(core, L1), 0);
	sp_assert_not_boosted(&host, C);
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
	teardown(core);
}

/* An unblock that got the lock is also its acquire, in the wait's hold. */
static void test_unblock_acquired_records_acquire(void **state)
{
	struct sp_core *core = setup(NULL);
	const struct sp_event blocked = { .type = SP_EV_BLOCKED, .hold = SP_HOLD_SHARED,
					  .tid = B, .lock = L1 };
	const struct sp_event got = { .type = SP_EV_UNBLOCKED, .flags = SP_EVF_ACQUIRED,
				      .tid = B, .lock = L1 };
	sp_tid_t readers[4];
	struct sp_stats s;

	(void)state;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&host, A);
	assert_int_equal(sp_core_event(core, &blocked), 0);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&host, A);
	/* B got the read side: it is a reader now, and W's wait boosts it */
	assert_int_equal(sp_core_event(core, &got), 0);
	assert_int_equal(sp_lock_readers(core, L1, readers, 4, NULL), 1);
	assert_int_equal(readers[0], B);
	sp_assert_boosted(&host, B);
	sp_lock_released(core, B, L1, SP_HOLD_SHARED);
	sp_assert_not_boosted(&host, B);
	/* W gives up without the lock: no acquire */
	sp_lock_unblocked(core, W, L1, false);
	assert_int_equal(owner_of(core, L1), 0);
	sp_core_stats(core, &s);
	assert_int_equal(s.acquires, 2);
	assert_int_equal(s.releases, 2);
	teardown(core);
}

/* The kernel host never sees a mutex released: an acquire that ends a
 * wait reported with a lock word must yield to the next word. */
static void test_word_wait_acquire_yields_to_next_word(void **state)
{
	struct sp_core *core = setup(NULL);
	const struct sp_event got = { .type = SP_EV_UNBLOCKED, .flags = SP_EVF_ACQUIRED,
				      .tid = A, .lock = L1 };

	(void)state;
	block_with_word(core, A, B); /* A (not critical) waits behind B */
	assert_int_equal(sp_core_event(core, &got), 0);
	assert_int_equal(owner_of(core, L1), A);
	/* A let go unseen; W finds C in the word */
	block_with_word(core, W, C);
	assert_int_equal(owner_of(core, L1), C);
	sp_assert_boosted(&host, C);
	sp_assert_not_boosted(&host, A);
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
	teardown(core);
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
	struct sp_core *core = setup(NULL);

	(void)state;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, B, L1, SP_HOLD_SHARED);  /* queued behind A */
	sp_lock_blocked(core, C, L1, SP_HOLD_SHARED);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);   /* both handed the read side */
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);    /* the writer's next wait */
	sp_lock_acquired(core, C, L1, SP_HOLD_SHARED); /* its scan reports them */
	sp_lock_acquired(core, B, L1, SP_HOLD_SHARED);
	sp_assert_boosted(&host, B);
	sp_assert_boosted(&host, C);
	sp_lock_unblocked(core, C, L1, false); /* C wakes first (the scan told its hold) */
	sp_assert_boosted(&host, B);
	sp_assert_boosted(&host, C);
	sp_lock_unblocked(core, B, L1, false);
	sp_assert_boosted(&host, B);
	sp_lock_released(core, C, L1, SP_HOLD_SHARED);
	sp_lock_released(core, B, L1, SP_HOLD_SHARED);
	sp_assert_not_boosted(&host, B);
	sp_assert_not_boosted(&host, C);
	sp_lock_unblocked(core, W, L1, true);
	sp_lock_released(core, W, L1, SP_HOLD_EXCL);
	teardown(core);
}

/* A kernel mutex handoff names the waiter as owner before it wakes: the
 * walk boosts it, and it is no deadlock. */
static void test_handoff_owner_still_waiting_is_no_cycle(void **state)
{
	struct sp_core *core = setup(NULL);
	struct sp_stats s;

	(void)state;
	sp_lock_blocked(core, A, L1, SP_HOLD_EXCL); /* A queued first */
	block_with_word(core, W, A);                /* handed to A, not awake yet */
	sp_assert_boosted(&host, A);
	sp_core_stats(core, &s);
	assert_int_equal(s.deadlocks, 0);
	assert_int_equal(host.deadlocks, 0);
	sp_lock_unblocked(core, A, L1, true);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&host, A);
	sp_lock_unblocked(core, W, L1, false);
	teardown(core);
}

/* Malformed records are rejected and counted, never acted on. */
static void test_bad_events(void **state)
{
	struct sp_core *core = setup(NULL);
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

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(sp_core_event(core, &bad[i]), -EINVAL);
	assert_int_equal(sp_core_event(core, NULL), -EINVAL);
	assert_int_equal(sp_core_event(NULL, &bad[0]), -EINVAL);
	sp_core_stats(core, &s);
	assert_int_equal(s.bad_events, sizeof(bad) / sizeof(bad[0]));
	assert_int_equal(s.acquires + s.blocks + s.unblocks + s.grants, 0);
	assert_int_equal(sp_test_boosted_count(&host), 0);
	assert_null(sp_event_name(0));
	assert_null(sp_event_name(SP_EV_NR));
	assert_string_equal(sp_event_name(SP_EV_BLOCKED), "blocked");
	teardown(core);
}

/* Every event type through the one entry point. */
static void test_core_event_dispatch(void **state)
{
	struct sp_core *core = sp_test_core(&host, NULL);
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

	(void)state;
	for (i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		assert_int_equal(sp_core_event(core, &evs[i]), 0);
	assert_int_equal(sp_task_is_critical(core, W), 1);
	sp_assert_boosted(&host, A);
	for (i = 0; i < sizeof(after) / sizeof(after[0]); i++)
		assert_int_equal(sp_core_event(core, &after[i]), 0);
	sp_assert_not_boosted(&host, A);
	assert_int_equal(sp_task_is_critical(core, W), 0);
	assert_int_equal(sp_task_boosted(core, A), -ENOENT);
	sp_core_stats(core, &s);
	assert_int_equal(s.acquires, 2);
	assert_int_equal(s.releases, 2);
	assert_int_equal(s.blockings, 1);
	assert_int_equal(s.ends_release, 1);
	assert_int_equal(s.bad_events, 0);
	teardown(core);
}

static void test_tick_refresh_finds_unseen_owner(void **state)
{
	struct sp_core *core = setup(NULL);
	struct sp_lock *l;

	(void)state;
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
	sp_assert_not_boosted(&host, A);
	host.now += MS / 2;
	sp_core_tick(core);
	sp_assert_not_boosted(&host, A);   /* younger than the refresh age */
	host.now += MS / 2;
	sp_core_tick(core);
	sp_assert_boosted(&host, A);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&host, A);
	sp_lock_unblocked(core, W, L1, true);
	assert_false(sp_core_needs_tick(core));
	teardown(core);
}

static void test_budget_expiry(void **state)
{
	struct sp_core *core = setup(NULL);   /* default budget 20 ms */
	struct sp_stats s;

	(void)state;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	host.now += 19 * MS;
	assert_int_equal(sp_core_tick(core), 0);
	sp_assert_boosted(&host, A);
	host.now += 1 * MS;
	assert_int_equal(sp_core_tick(core), 1);
	sp_assert_not_boosted(&host, A);
	sp_core_stats(core, &s);
	assert_int_equal(s.expiries, 1);
	/* re-reporting the same wait does not buy a new budget at once... */
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&host, A);
	host.now += 19 * MS;
	sp_core_tick(core);
	sp_assert_not_boosted(&host, A);
	sp_core_stats(core, &s);
	assert_true(s.grants_refused >= 2);
	/* ...but after as long off as it had on, the tick's refresh of the
	 * long wait grants again: a long critical section progresses at half
	 * speed instead of starving */
	host.now += 1 * MS;
	sp_core_tick(core);
	sp_assert_boosted(&host, A);
	sp_lock_unblocked(core, W, L1, false);
	sp_assert_not_boosted(&host, A);
	/* a new wait gets a budget at once */
	sp_lock_unblocked(core, W, L1, false);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&host, A);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_lock_unblocked(core, W, L1, true);
	teardown(core);
}

static void test_throttle_caps_share(void **state)
{
	struct sp_config cfg;
	struct sp_core *core;
	struct sp_stats s;

	(void)state;
	sp_config_default(&cfg);
	cfg.budget_ns = 0;                    /* only the throttle limits */
	cfg.throttle_window_ns = 100 * MS;
	cfg.throttle_permille = 300;
	core = setup(&cfg);
	sp_task_set_critical(core, W2, true);
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	host.now += 30 * MS;
	assert_int_equal(sp_core_tick(core), 0);   /* exactly at the share: fine */
	sp_assert_boosted(&host, A);
	host.now += 1 * MS;
	assert_int_equal(sp_core_tick(core), 1);
	sp_assert_not_boosted(&host, A);
	/* refused until the window closes */
	sp_lock_blocked(core, W2, L1, SP_HOLD_EXCL);
	sp_assert_not_boosted(&host, A);
	sp_core_stats(core, &s);
	assert_int_equal(s.throttles, 1);
	assert_int_equal(s.ends_throttle, 1);
	/* W2's request, and the refresh of W's wait by that same tick */
	assert_int_equal(s.grants_refused, 2);
	sp_lock_unblocked(core, W2, L1, false);
	host.now += 68 * MS;
	sp_core_tick(core);
	sp_assert_not_boosted(&host, A);
	host.now += 2 * MS;                         /* next window */
	sp_core_tick(core);                         /* W still waits: granted */
	sp_assert_boosted(&host, A);
	sp_lock_blocked(core, W2, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&host, A);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_lock_unblocked(core, W2, L1, true);
	sp_lock_unblocked(core, W, L1, false);
	teardown(core);
}

static void test_throttle_counts_across_grants(void **state)
{
	struct sp_config cfg;
	struct sp_core *core;

	(void)state;
	sp_config_default(&cfg);
	cfg.budget_ns = 0;
	cfg.throttle_window_ns = 100 * MS;
	cfg.throttle_permille = 300;
	core = setup(&cfg);
	/* two 20 ms boosts inside one window add up to more than 30 ms */
	for (int i = 0; i < 2; i++) {
		sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
		sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
		host.now += 20 * MS;
		sp_core_tick(core);
		if (i == 0) {
			sp_assert_boosted(&host, A);
			sp_lock_released(core, A, L1, SP_HOLD_EXCL);
			sp_lock_unblocked(core, W, L1, true);
			sp_lock_released(core, W, L1, SP_HOLD_EXCL);
		}
	}
	sp_assert_not_boosted(&host, A);
	sp_lock_released(core, A, L1, SP_HOLD_EXCL);
	sp_lock_unblocked(core, W, L1, true);
	teardown(core);
}

static void test_boosted_task_exits(void **state)
{
	struct sp_core *core = setup(NULL);
	struct sp_walk_result r;
	sp_tid_t out[4], owner = 1;
	struct sp_stats s;

	(void)state;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_acquired(core, A, L2, SP_HOLD_SHARED);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&host, A);
	assert_int_equal(sp_task_exit(core, A), 0);
	sp_assert_not_boosted(&host, A);
	assert_int_equal(sp_task_boosted(core, A), -ENOENT);
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
	teardown(core);
}

static void test_waiter_exits(void **state)
{
	struct sp_core *core = setup(NULL);

	(void)state;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&host, A);
	assert_int_equal(sp_task_exit(core, W), 0);
	sp_assert_not_boosted(&host, A);
	/* the exited tid may come back as a new, non-critical task */
	assert_int_equal(sp_task_register(core, W), 0);
	assert_int_equal(sp_task_is_critical(core, W), 0);
	teardown(core);
}

static void test_lock_destroyed_while_tracked(void **state)
{
	struct sp_core *core = setup(NULL);
	struct sp_stats s;

	(void)state;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_assert_boosted(&host, A);
	assert_int_equal(sp_lock_destroyed(core, L1), 0);
	sp_assert_not_boosted(&host, A);
	sp_core_stats(core, &s);
	assert_int_equal(s.ends_exit, 1);
	assert_int_equal(s.locks_now, 0);
	/* late events for the dead lock are refused, not crashes */
	assert_int_equal(sp_lock_released(core, A, L1, SP_HOLD_EXCL), -ENOENT);
	assert_int_equal(sp_lock_unblocked(core, W, L1, false), 0);
	assert_int_equal(sp_core_reclaim(core), 1);
	teardown(core);
}

static void test_grant_table_overflow(void **state)
{
	struct sp_config cfg;
	struct sp_core *core;
	struct sp_stats s;

	(void)state;
	sp_config_default(&cfg);
	cfg.max_grants = 2;
	core = setup(&cfg);
	for (sp_tid_t r = 20; r < 24; r++)
		sp_lock_acquired(core, r, L1, SP_HOLD_SHARED);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	assert_int_equal(sp_test_boosted_count(&host), 2);
	sp_core_stats(core, &s);
	assert_int_equal(s.grant_overflows, 2);
	assert_int_equal(s.grants_now, 2);
	sp_lock_unblocked(core, W, L1, false);
	assert_int_equal(sp_test_boosted_count(&host), 0);
	teardown(core);
}

static void test_actuator_failure_is_counted(void **state)
{
	struct sp_core *core = setup(NULL);
	struct sp_stats s;

	(void)state;
	host.fail_fast_track = -EPERM;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	assert_int_equal(sp_task_boosted(core, A), 0);
	sp_lock_unblocked(core, W, L1, false);
	sp_core_stats(core, &s);
	assert_int_equal(s.actuator_errors, 1);
	assert_int_equal(host.restores, 0);   /* nothing was boosted */
	teardown(core);
}

static void test_deadlock_reported_to_host(void **state)
{
	struct sp_core *core = setup(NULL);
	struct sp_stats s;

	(void)state;
	/* W holds L2 and waits L1; A holds L1 and waits L2 */
	sp_lock_acquired(core, W, L2, SP_HOLD_EXCL);
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_blocked(core, A, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	sp_core_stats(core, &s);
	assert_int_equal(s.deadlocks, 1);
	assert_int_equal(host.deadlocks, 1);
	assert_int_equal(host.last_deadlock_waiter, W);
	/* A still gets its fast track: it is the only way out if anything
	 * times out */
	sp_assert_boosted(&host, A);
	sp_lock_unblocked(core, W, L1, false);
	sp_lock_unblocked(core, A, L2, false);
	teardown(core);
}

static void test_destroy_restores_everything(void **state)
{
	struct sp_core *core = setup(NULL);

	(void)state;
	sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
	sp_lock_acquired(core, B, L2, SP_HOLD_SHARED);
	sp_lock_blocked(core, A, L2, SP_HOLD_EXCL);
	sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
	assert_int_equal(sp_test_boosted_count(&host), 2);
	sp_test_destroy(&host);
	assert_int_equal(sp_test_boosted_count(&host), 0);
	assert_int_equal(host.bad_calls, 0);
	assert_int_equal(host.restores, 2);
}

static void test_blocking_histogram(void **state)
{
	struct sp_core *core = setup(NULL);
	struct sp_hist *h = test_malloc(sizeof(*h));

	(void)state;
	for (int i = 1; i <= 100; i++) {
		sp_lock_acquired(core, A, L1, SP_HOLD_EXCL);
		sp_lock_blocked(core, W, L1, SP_HOLD_EXCL);
		sp_lock_blocked(core, B, L1, SP_HOLD_EXCL);   /* not critical */
		host.now += (uint64_t)i * MS;
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
	teardown(core);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owner_boosted_until_release),
		cmocka_unit_test(test_handed_reader_keeps_boost_when_another_wakes),
		cmocka_unit_test(test_restore_when_waiter_gives_up),
		cmocka_unit_test(test_normal_waiter_boosts_nobody),
		cmocka_unit_test(test_two_waiters_one_boost),
		cmocka_unit_test(test_repeated_block_report_is_one_wait),
		cmocka_unit_test(test_readers_boosted_up_to_k),
		cmocka_unit_test(test_new_reader_while_writer_waits),
		cmocka_unit_test(test_chain_boosts_every_link),
		cmocka_unit_test(test_boosted_holder_that_blocks_extends_chain),
		cmocka_unit_test(test_chain_link_stops_waiting),
		cmocka_unit_test(test_new_owner_while_critical_waits),
		cmocka_unit_test(test_lost_unblock_closes_previous_wait),
		cmocka_unit_test(test_target_runs_inside_actuator_call),
		cmocka_unit_test(test_owner_from_lock_word),
		cmocka_unit_test(test_unblock_acquired_records_acquire),
		cmocka_unit_test(test_word_wait_acquire_yields_to_next_word),
		cmocka_unit_test(test_handoff_owner_still_waiting_is_no_cycle),
		cmocka_unit_test(test_bad_events),
		cmocka_unit_test(test_core_event_dispatch),
		cmocka_unit_test(test_tick_refresh_finds_unseen_owner),
		cmocka_unit_test(test_budget_expiry),
		cmocka_unit_test(test_throttle_caps_share),
		cmocka_unit_test(test_throttle_counts_across_grants),
		cmocka_unit_test(test_boosted_task_exits),
		cmocka_unit_test(test_waiter_exits),
		cmocka_unit_test(test_lock_destroyed_while_tracked),
		cmocka_unit_test(test_grant_table_overflow),
		cmocka_unit_test(test_actuator_failure_is_counted),
		cmocka_unit_test(test_deadlock_reported_to_host),
		cmocka_unit_test(test_destroy_restores_everything),
		cmocka_unit_test(test_blocking_histogram),
	};

	int failed;

	/* Every case under both actuator models: callbacks applied at once,
	 * and queued for a worker (what the runtime and the kmod do). */
	sp_test_model = SP_REC_DIRECT;
	failed = cmocka_run_group_tests_name("direct actuator", tests, NULL, NULL);
	sp_test_model = SP_REC_QUEUED;
	failed += cmocka_run_group_tests_name("queued actuator", tests, NULL, NULL);
	sp_test_end(&host);
	return failed;
}
