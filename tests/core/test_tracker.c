// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The bounded reader/waiter tracker: K slots, an untracked counter, O(K)
 * enter/exit without locks.
 */
#include "sp_test_core.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sp_tracker.h"

#define K 4

static uint64_t tracked(const struct sp_tracker *tr)
{
	return sp_atomic_load(&tr->tracked);
}

static uint64_t untracked(const struct sp_tracker *tr)
{
	return sp_atomic_load(&tr->untracked);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_enter_exit_up_to_k(void **state)
{
	sp_atomic64_t slots[K];
	struct sp_tracker tr;
	uint64_t snap[K + 2];
	uint64_t tid;

	(void)state;
	memset(slots, 0xab, sizeof(slots));  /* bind must clear garbage */
	sp_tracker_bind(&tr, slots, K);
	assert_true(sp_tracker_empty(&tr));
	assert_int_equal(sp_tracker_snapshot(&tr, snap, K + 2), 0);
	for (tid = 1; tid <= K; tid++) {
		assert_false(sp_tracker_contains(&tr, tid));
		assert_true(sp_tracker_enter(&tr, tid));
		assert_true(sp_tracker_contains(&tr, tid));
		assert_int_equal(tracked(&tr), tid);
		assert_false(sp_tracker_empty(&tr));
	}
	assert_int_equal(untracked(&tr), 0);
	assert_int_equal(sp_tracker_snapshot(&tr, snap, K + 2), K);
	qsort(snap, K, sizeof(snap[0]), cmp_u64);
	for (tid = 1; tid <= K; tid++)
		assert_int_equal(snap[tid - 1], tid);
	/* Snapshot honours its cap. */
	assert_int_equal(sp_tracker_snapshot(&tr, snap, 2), 2);
	assert_int_equal(sp_tracker_snapshot(&tr, snap, 0), 0);

	/* Exit in another order. */
	assert_true(sp_tracker_exit(&tr, 3));
	assert_false(sp_tracker_contains(&tr, 3));
	assert_true(sp_tracker_contains(&tr, 4));
	assert_int_equal(tracked(&tr), K - 1);
	assert_true(sp_tracker_exit(&tr, 1));
	assert_true(sp_tracker_exit(&tr, 4));
	assert_true(sp_tracker_exit(&tr, 2));
	assert_true(sp_tracker_empty(&tr));
	assert_int_equal(untracked(&tr), 0);
	/* Nothing left: exit of anyone is refused and changes nothing. */
	assert_false(sp_tracker_exit(&tr, 2));
	assert_false(sp_tracker_exit(&tr, 99));
	assert_int_equal(tracked(&tr), 0);
	assert_int_equal(untracked(&tr), 0);
	/* A freed slot is reused. */
	assert_true(sp_tracker_enter(&tr, 7));
	assert_int_equal(sp_tracker_snapshot(&tr, snap, K), 1);
	assert_int_equal(snap[0], 7);
}

static void test_overflow_untracked(void **state)
{
	sp_atomic64_t slots[K];
	struct sp_tracker tr;
	uint64_t snap[K];
	uint64_t tid;

	(void)state;
	sp_tracker_bind(&tr, slots, K);
	for (tid = 1; tid <= K; tid++)
		assert_true(sp_tracker_enter(&tr, tid));
	/* Beyond K: counted, not stored. */
	assert_false(sp_tracker_enter(&tr, 100));
	assert_false(sp_tracker_enter(&tr, 101));
	assert_false(sp_tracker_enter(&tr, 102));
	assert_int_equal(untracked(&tr), 3);
	assert_int_equal(tracked(&tr), K);
	assert_false(sp_tracker_contains(&tr, 100));
	assert_int_equal(sp_tracker_snapshot(&tr, snap, K), K);
	for (tid = 0; tid < K; tid++)
		assert_true(snap[tid] >= 1 && snap[tid] <= K);

	/* An untracked reader leaves: the count drops, slots stay. */
	assert_true(sp_tracker_exit(&tr, 101));
	assert_int_equal(untracked(&tr), 2);
	assert_int_equal(tracked(&tr), K);
	/* A tracked one leaves: its slot frees, the count stays. */
	assert_true(sp_tracker_exit(&tr, 2));
	assert_int_equal(untracked(&tr), 2);
	assert_int_equal(tracked(&tr), K - 1);
	/* remove() never touches the untracked count. */
	assert_false(sp_tracker_remove(&tr, 100));
	assert_int_equal(untracked(&tr), 2);
	assert_true(sp_tracker_exit(&tr, 100));
	assert_true(sp_tracker_exit(&tr, 102));
	assert_int_equal(untracked(&tr), 0);
	/* No underflow: further exits of untracked tids are refused. */
	assert_false(sp_tracker_exit(&tr, 100));
	assert_false(sp_tracker_exit(&tr, 555));
	assert_int_equal(untracked(&tr), 0);
	assert_int_equal(tracked(&tr), K - 1);
	assert_true(sp_tracker_exit(&tr, 1));
	assert_true(sp_tracker_exit(&tr, 3));
	assert_true(sp_tracker_exit(&tr, 4));
	assert_true(sp_tracker_empty(&tr));
}

static void test_duplicates(void **state)
{
	sp_atomic64_t slots[K];
	struct sp_tracker tr;
	uint64_t snap[K];

	(void)state;
	sp_tracker_bind(&tr, slots, K);
	/* The same tid twice (a recursive read lock): two slots. */
	assert_true(sp_tracker_enter(&tr, 9));
	assert_true(sp_tracker_enter(&tr, 9));
	assert_int_equal(tracked(&tr), 2);
	assert_int_equal(sp_tracker_snapshot(&tr, snap, K), 2);
	assert_int_equal(snap[0], 9);
	assert_int_equal(snap[1], 9);
	/* One exit keeps the other hold visible. */
	assert_true(sp_tracker_exit(&tr, 9));
	assert_true(sp_tracker_contains(&tr, 9));
	assert_int_equal(tracked(&tr), 1);
	assert_true(sp_tracker_exit(&tr, 9));
	assert_false(sp_tracker_contains(&tr, 9));
	assert_true(sp_tracker_empty(&tr));

	/* Duplicates that overflow are counted like anyone else. */
	for (int i = 0; i < K + 2; i++)
		(void)sp_tracker_enter(&tr, 5);
	assert_int_equal(tracked(&tr), K);
	assert_int_equal(untracked(&tr), 2);
	for (int i = 0; i < K + 2; i++)
		assert_true(sp_tracker_exit(&tr, 5));
	assert_true(sp_tracker_empty(&tr));
	assert_int_equal(untracked(&tr), 0);
	assert_false(sp_tracker_exit(&tr, 5));
}

static void test_remove_and_reset(void **state)
{
	sp_atomic64_t slots[K];
	struct sp_tracker tr;

	(void)state;
	sp_tracker_bind(&tr, slots, K);
	assert_true(sp_tracker_enter(&tr, 1));
	assert_true(sp_tracker_enter(&tr, 2));
	assert_true(sp_tracker_enter(&tr, 2));
	/* remove() takes one slot at a time (exit path loops on it). */
	assert_true(sp_tracker_remove(&tr, 2));
	assert_true(sp_tracker_remove(&tr, 2));
	assert_false(sp_tracker_remove(&tr, 2));
	assert_int_equal(tracked(&tr), 1);

	for (int i = 0; i < K + 3; i++)
		(void)sp_tracker_enter(&tr, 40 + (uint64_t)i);
	assert_int_equal(tracked(&tr), K);
	assert_true(untracked(&tr) > 0);
	sp_tracker_reset(&tr);
	assert_true(sp_tracker_empty(&tr));
	assert_int_equal(tracked(&tr), 0);
	assert_int_equal(untracked(&tr), 0);
	for (int i = 0; i < K; i++)
		assert_int_equal(sp_tracker_slot(&tr, (uint32_t)i), 0);
	assert_false(sp_tracker_contains(&tr, 1));
	assert_false(sp_tracker_exit(&tr, 1));
	/* A tracker of one slot. */
	sp_tracker_bind(&tr, slots, 1);
	assert_true(sp_tracker_enter(&tr, 3));
	assert_false(sp_tracker_enter(&tr, 4));
	assert_true(sp_tracker_exit(&tr, 3));
	assert_true(sp_tracker_enter(&tr, 5));
	assert_true(sp_tracker_exit(&tr, 4));
	assert_true(sp_tracker_exit(&tr, 5));
	assert_true(sp_tracker_empty(&tr));
	assert_int_equal(untracked(&tr), 0);
}

/* ---- concurrency ---- */

#define CONC_THREADS 8
#define CONC_ITERS 200000

struct conc_arg {
	struct sp_tracker *tr;
	uint64_t tid;
	unsigned holds;       /* how many times this thread holds at once (1..3) */
	uint64_t entered_tracked, entered_untracked, exit_failures, lost;
};

static void *conc_worker(void *arg)
{
	struct conc_arg *a = arg;
	unsigned i, j;

	for (i = 0; i < CONC_ITERS; i++) {
		unsigned n = 1 + (i % a->holds);

		for (j = 0; j < n; j++) {
			if (sp_tracker_enter(a->tr, a->tid))
				a->entered_tracked++;
			else
				a->entered_untracked++;
		}
		/* Our own tracked entries are visible to us. */
		if (a->entered_tracked && !sp_tracker_contains(a->tr, a->tid))
			a->lost++;
		for (j = 0; j < n; j++)
			if (!sp_tracker_exit(a->tr, a->tid))
				a->exit_failures++;
		/* Reset the "tracked" hint of this round. */
		a->entered_tracked = 0;
	}
	return NULL;
}

/* @residents entries stay in the tracker during the run (fewer free slots:
 * with K - 1 residents every thread that holds twice overflows). */
static void run_concurrent(unsigned residents, bool expect_overflow)
{
	sp_atomic64_t slots[K];
	struct sp_tracker tr;
	struct conc_arg args[CONC_THREADS];
	pthread_t th[CONC_THREADS];
	uint64_t untracked_total = 0;
	unsigned i;

	sp_tracker_bind(&tr, slots, K);
	for (i = 0; i < residents; i++)
		assert_true(sp_tracker_enter(&tr, 1 + i));
	for (i = 0; i < CONC_THREADS; i++) {
		memset(&args[i], 0, sizeof(args[i]));
		args[i].tr = &tr;
		args[i].tid = 1000 + i;
		args[i].holds = 1 + i % 3;
		assert_int_equal(pthread_create(&th[i], NULL, conc_worker, &args[i]), 0);
	}
	for (i = 0; i < CONC_THREADS; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		/* Every exit matched an entry: the tracker never lost one. */
		assert_int_equal(args[i].exit_failures, 0);
		assert_int_equal(args[i].lost, 0);
		untracked_total += args[i].entered_untracked;
	}
	if (expect_overflow)
		assert_true(untracked_total > 0);
	/* Only the residents are left, in slots. */
	assert_int_equal(sp_atomic_load(&tr.tracked), residents);
	assert_int_equal(sp_atomic_load(&tr.untracked), 0);
	for (i = 0; i < residents; i++) {
		assert_true(sp_tracker_contains(&tr, 1 + i));
		assert_true(sp_tracker_exit(&tr, 1 + i));
	}
	for (i = 0; i < K; i++)
		assert_int_equal(sp_tracker_slot(&tr, i), 0);
	assert_true(sp_tracker_empty(&tr));
	assert_int_equal(sp_atomic_load(&tr.untracked), 0);
}

static void test_concurrent_enter_exit(void **state)
{
	(void)state;
	run_concurrent(0, false);
	run_concurrent(K - 1, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enter_exit_up_to_k),
		cmocka_unit_test(test_overflow_untracked),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_remove_and_reset),
		cmocka_unit_test(test_concurrent_enter_exit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
