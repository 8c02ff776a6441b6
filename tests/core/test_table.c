// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The fixed-capacity hash index (sp_table): insert/find, limits, bad keys,
 * retirement and RCU-deferred reuse, and concurrent inserts of one key.
 */
#include "sp_test_core.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_table.h"

/* The slot @key takes in an empty table of @limit: its home slot. */
static int home_slot(uint32_t limit, uint64_t key)
{
	struct sp_table t;
	bool created;
	int slot;

	assert_int_equal(sp_table_create(&t, limit), 0);
	slot = sp_table_insert(&t, key, NULL, NULL, &created);
	assert_true(slot >= 0);
	sp_table_destroy(&t);
	return slot;
}

/* A key other than those in @avoid[0..n) whose home slot is @slot. */
static uint64_t key_with_home(uint32_t limit, int slot, const uint64_t *avoid, int n,
			      uint64_t from)
{
	uint64_t k;
	int i;

	for (k = from;; k++) {
		for (i = 0; i < n && avoid[i] != k; i++)
			;
		if (i == n && home_slot(limit, k) == slot)
			return k;
	}
}

/* How many slots hold @key (live). */
static unsigned slots_holding(const struct sp_table *t, uint64_t key)
{
	unsigned n = 0;
	uint32_t i;

	for (i = 0; i < t->capacity; i++)
		n += sp_table_slot_key(t, i) == key;
	return n;
}

static void count_init(void *arg, uint32_t slot)
{
	(void)slot;
	__atomic_add_fetch((int *)arg, 1, __ATOMIC_RELAXED);
}

static void test_insert_find(void **state)
{
	struct sp_table t;
	int slots[65], inits = 0, slot;
	bool created;
	uint64_t k;

	(void)state;
	assert_int_equal(sp_table_create(&t, 64), 0);
	assert_true(t.capacity >= 128);
	for (k = 1; k <= 64; k++) {
		/* Lock-address-like keys sharing their low bits. */
		uint64_t key = 0x7f0000001000ull + k * 64;

		assert_int_equal(sp_table_find(&t, key), -ENOENT);
		slots[k] = sp_table_insert(&t, key, count_init, &inits, &created);
		assert_true(slots[k] >= 0);
		assert_true(created);
		assert_int_equal(sp_table_find(&t, key), slots[k]);
		assert_int_equal(sp_table_slot_key(&t, (uint32_t)slots[k]), key);
	}
	assert_int_equal(inits, 64);
	assert_int_equal(sp_table_live(&t), 64);
	for (k = 1; k <= 64; k++) {
		uint64_t key = 0x7f0000001000ull + k * 64;

		/* Same key again: same slot, not created, no init. */
		slot = sp_table_insert(&t, key, count_init, &inits, &created);
		assert_int_equal(slot, slots[k]);
		assert_false(created);
		assert_int_equal(slots_holding(&t, key), 1);
		for (uint64_t j = 1; j < k; j++)
			assert_int_not_equal(slots[j], slots[k]);
	}
	assert_int_equal(inits, 64);
	assert_int_equal(sp_table_live(&t), 64);
	/* tid-like small keys are fine too, and distinct from slot states. */
	sp_table_destroy(&t);
	assert_int_equal(sp_table_create(&t, 16), 0);
	for (k = 1; k <= 16; k++) {
		slot = sp_table_insert(&t, k, NULL, NULL, &created);
		assert_true(slot >= 0 && created);
	}
	for (k = 1; k <= 16; k++)
		assert_int_equal(sp_table_slot_key(&t, (uint32_t)sp_table_find(&t, k)), k);
	assert_int_equal(sp_table_find(&t, 17), -ENOENT);
	sp_table_destroy(&t);
}

static void test_bad_keys_and_args(void **state)
{
	struct sp_table t;
	bool created = true;
	uint32_t i;

	(void)state;
	assert_int_equal(sp_table_create(&t, 0), -EINVAL);
	assert_int_equal(sp_table_create(&t, 8), 0);
	assert_int_equal(sp_table_insert(&t, 0, NULL, NULL, &created), -EINVAL);
	assert_false(created);
	created = true;
	assert_int_equal(sp_table_insert(&t, UINT64_MAX, NULL, NULL, &created), -EINVAL);
	assert_false(created);
	assert_int_equal(sp_table_find(&t, 0), -ENOENT);
	assert_int_equal(sp_table_find(&t, UINT64_MAX), -ENOENT);
	assert_int_equal(sp_table_live(&t), 0);
	/* Nothing was written. */
	for (i = 0; i < t.capacity; i++)
		assert_int_equal(sp_table_slot_key(&t, i), 0);
	/* Retire of an out-of-range slot or a bad key is refused. */
	assert_false(sp_table_retire(&t, t.capacity, 1));
	assert_false(sp_table_retire(&t, 0, UINT64_MAX));
	assert_false(sp_table_retire(&t, 0, 1));
	assert_int_equal(sp_table_reclaim(&t), 0);
	sp_table_destroy(&t);
	sp_table_destroy(&t);  /* idempotent */
}

static void test_limit_enospc(void **state)
{
	struct sp_table t;
	int inits = 0, slot, s3;
	bool created;
	uint64_t k;

	(void)state;
	assert_int_equal(sp_table_create(&t, 8), 0);
	for (k = 1; k <= 8; k++)
		assert_true(sp_table_insert(&t, k * 1000, count_init, &inits, &created) >= 0);
	assert_int_equal(sp_table_live(&t), 8);
	created = true;
	assert_int_equal(sp_table_insert(&t, 9000, count_init, &inits, &created), -ENOSPC);
	assert_false(created);
	assert_int_equal(inits, 8);
	assert_int_equal(sp_table_live(&t), 8);
	assert_int_equal(sp_table_find(&t, 9000), -ENOENT);
	/* At the limit, an existing key is still found through insert. */
	s3 = sp_table_find(&t, 3000);
	assert_int_equal(sp_table_insert(&t, 3000, NULL, NULL, &created), s3);
	assert_false(created);
	/* Retiring one entry makes room (live drops at once, even before
	 * reclaim, because the capacity has slack). */
	assert_true(sp_table_retire(&t, (uint32_t)s3, 3000));
	assert_int_equal(sp_table_live(&t), 7);
	slot = sp_table_insert(&t, 9000, count_init, &inits, &created);
	assert_true(slot >= 0 && created);
	assert_int_not_equal(slot, s3);
	assert_int_equal(sp_table_insert(&t, 10000, NULL, NULL, &created), -ENOSPC);
	assert_int_equal(sp_table_live(&t), 8);
	sp_table_destroy(&t);
}

static void test_retire(void **state)
{
	struct sp_table t;
	bool created;
	int slot;

	(void)state;
	assert_int_equal(sp_table_create(&t, 8), 0);
	slot = sp_table_insert(&t, 77, NULL, NULL, &created);
	assert_true(slot >= 0);
	assert_false(sp_table_retire(&t, (uint32_t)slot, 78));   /* wrong key */
	assert_int_equal(sp_table_find(&t, 77), slot);
	assert_true(sp_table_retire(&t, (uint32_t)slot, 77));
	assert_false(sp_table_retire(&t, (uint32_t)slot, 77));   /* only once */
	assert_int_equal(sp_table_find(&t, 77), -ENOENT);
	assert_int_equal(sp_table_slot_key(&t, (uint32_t)slot), 0);
	assert_int_equal(sp_table_live(&t), 0);
	/* Re-inserting the key gets a fresh slot, not the retired one. */
	assert_int_not_equal(sp_table_insert(&t, 77, NULL, NULL, &created), slot);
	assert_true(created);
	assert_int_equal(slots_holding(&t, 77), 1);
	sp_table_destroy(&t);
}

static void test_retired_slot_reuse_after_reclaim(void **state)
{
	const uint32_t limit = 8;
	struct sp_table t;
	uint64_t keys[4];
	bool created;
	int h, sb, sc;
	uint32_t i;

	(void)state;
	keys[0] = 4242;
	h = home_slot(limit, keys[0]);
	keys[1] = key_with_home(limit, h, keys, 1, 1);
	keys[2] = key_with_home(limit, h, keys, 2, keys[1] + 1);
	keys[3] = key_with_home(limit, h, keys, 3, keys[2] + 1);

	assert_int_equal(sp_table_create(&t, limit), 0);
	assert_int_equal(sp_table_insert(&t, keys[0], NULL, NULL, &created), h);
	assert_true(sp_table_retire(&t, (uint32_t)h, keys[0]));
	/* Before reclaim the retired home slot is skipped. */
	sb = sp_table_insert(&t, keys[1], NULL, NULL, &created);
	assert_true(sb >= 0 && created);
	assert_int_not_equal(sb, h);
	assert_int_equal(sp_table_slot_key(&t, (uint32_t)h), 0);
	/* Fill up to the limit with other keys: still nobody takes h. */
	for (i = 0; sp_table_live(&t) < limit; i++)
		assert_true(sp_table_insert(&t, 100000 + i, NULL, NULL, &created) >= 0);
	assert_int_equal(sp_table_slot_key(&t, (uint32_t)h), 0);

	/* After reclaim the slot is a tombstone: reusable, and probe
	 * sequences still run through it. */
	assert_int_equal(sp_table_reclaim(&t), 1);
	assert_int_equal(sp_table_reclaim(&t), 0);
	assert_int_equal(sp_table_find(&t, keys[1]), sb);
	assert_int_equal(sp_table_find(&t, keys[0]), -ENOENT);
	assert_true(sp_table_retire(&t, (uint32_t)sp_table_find(&t, 100000), 100000));
	sc = sp_table_insert(&t, keys[2], NULL, NULL, &created);
	assert_int_equal(sc, h);
	assert_true(created);
	assert_int_equal(sp_table_find(&t, keys[1]), sb);
	assert_int_equal(sp_table_find(&t, keys[2]), h);
	/* The key behind the reused tombstone is found, not duplicated. */
	assert_int_equal(sp_table_insert(&t, keys[1], NULL, NULL, &created), sb);
	assert_false(created);
	assert_int_equal(slots_holding(&t, keys[1]), 1);
	sp_table_destroy(&t);
}

/*
 * A key must never be inserted twice, even when a slot on its probe path
 * turns into a tombstone while an inserter waits for the stripe lock:
 *   T1: find(X) misses; waits for the stripe lock
 *   T2 (holding it): X goes to h+1 because A sits at h; A retired and
 *                    reclaimed (h becomes a tombstone); X published
 *   T1: gets the lock; must find X at h+1, not claim the tombstone at h.
 */
struct race {
	struct sp_table *t;
	uint64_t a, x;
	int h;
	int t1_going;
	int in_init;
	int slot1;
};

static void race_init(void *arg, uint32_t slot)
{
	struct race *r = arg;

	(void)slot;
	__atomic_store_n(&r->in_init, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r->t1_going, __ATOMIC_ACQUIRE))
		sched_yield();
	/* Give T1 time to miss in find() and block on the stripe lock. If
	 * it is slower, the test only loses its power, never its truth. */
	usleep(50000);
	assert_true(sp_table_retire(r->t, (uint32_t)r->h, r->a));
	assert_int_equal(sp_table_reclaim(r->t), 1);
}

static void *race_t1(void *arg)
{
	struct race *r = arg;
	bool created;

	while (!__atomic_load_n(&r->in_init, __ATOMIC_ACQUIRE))
		sched_yield();
	__atomic_store_n(&r->t1_going, 1, __ATOMIC_RELEASE);
	r->slot1 = sp_table_insert(r->t, r->x, NULL, NULL, &created);
	return NULL;
}

static void test_no_duplicate_over_new_tombstone(void **state)
{
	const uint32_t limit = 8;
	struct sp_table t;
	struct race r = { .t = &t };
	pthread_t th;
	bool created;
	int slot2;

	(void)state;
	r.a = 4242;
	r.h = home_slot(limit, r.a);
	r.x = key_with_home(limit, r.h, &r.a, 1, 1);
	assert_int_equal(sp_table_create(&t, limit), 0);
	assert_int_equal(sp_table_insert(&t, r.a, NULL, NULL, &created), r.h);
	assert_int_equal(pthread_create(&th, NULL, race_t1, &r), 0);
	slot2 = sp_table_insert(&t, r.x, race_init, &r, &created);
	assert_true(created);
	assert_int_not_equal(slot2, r.h);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(r.slot1, slot2);
	assert_int_equal(slots_holding(&t, r.x), 1);
	assert_int_equal(sp_table_live(&t), 1);
	sp_table_destroy(&t);
}

/* ---- many threads inserting the same keys ---- */

#define CONC_THREADS 8
#define CONC_KEYS 512
#define CONC_ROUNDS 40

struct conc {
	struct sp_table *t;
	pthread_barrier_t *bar;
	unsigned id;
	int round;
	int slots[CONC_ROUNDS][CONC_KEYS];
	int inits;
	int stop;
};

static uint64_t conc_key(int round, int i)
{
	/* Fresh keys every round, lock-address-like. */
	return 0x55550000000ull + ((uint64_t)round * CONC_KEYS + (uint64_t)i) * 16;
}

static void *conc_worker(void *arg)
{
	struct conc *c = arg;
	int round, i;
	bool created;

	for (round = 0; round < CONC_ROUNDS; round++) {
		pthread_barrier_wait(c->bar);
		for (i = 0; i < CONC_KEYS; i++) {
			/* Different threads walk the keys in different orders. */
			int k = (int)((i * (2 * c->id + 1) + c->id * 37) % CONC_KEYS);

			c->slots[round][k] = sp_table_insert(c->t, conc_key(round, k), count_init,
							     &c->inits, &created);
		}
		pthread_barrier_wait(c->bar);   /* the checker looks */
		pthread_barrier_wait(c->bar);   /* the checker retired them */
	}
	return NULL;
}

/* Keeps retiring and reclaiming its own keys so that tombstones appear on
 * the workers' probe paths while they insert. */
static void *conc_churn(void *arg)
{
	struct conc *c = arg;
	uint64_t k = 1;
	bool created;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		int s;
		int n;

		for (n = 0; n < 32; n++, k++) {
			s = sp_table_insert(c->t, 0x99990000000ull + k * 16, NULL, NULL, &created);
			if (s >= 0)
				sp_table_retire(c->t, (uint32_t)s, 0x99990000000ull + k * 16);
		}
		sp_table_reclaim(c->t);
	}
	return NULL;
}

static void test_concurrent_same_keys(void **state)
{
	static struct conc cs[CONC_THREADS];
	struct conc churn;
	pthread_t th[CONC_THREADS], churn_th;
	pthread_barrier_t bar;
	struct sp_table t;
	int round, i, total_inits = 0;
	unsigned w;

	(void)state;
	/* Room for one round of keys plus the churner's. */
	assert_int_equal(sp_table_create(&t, CONC_KEYS + 64), 0);
	assert_int_equal(pthread_barrier_init(&bar, NULL, CONC_THREADS + 1), 0);
	memset(&churn, 0, sizeof(churn));
	churn.t = &t;
	for (w = 0; w < CONC_THREADS; w++) {
		memset(&cs[w], 0, sizeof(cs[w]));
		cs[w].t = &t;
		cs[w].bar = &bar;
		cs[w].id = w;
		assert_int_equal(pthread_create(&th[w], NULL, conc_worker, &cs[w]), 0);
	}
	assert_int_equal(pthread_create(&churn_th, NULL, conc_churn, &churn), 0);

	for (round = 0; round < CONC_ROUNDS; round++) {
		pthread_barrier_wait(&bar);     /* go */
		pthread_barrier_wait(&bar);     /* all inserted */
		for (i = 0; i < CONC_KEYS; i++) {
			uint64_t key = conc_key(round, i);
			int slot = cs[0].slots[round][i];

			assert_true(slot >= 0);
			for (w = 1; w < CONC_THREADS; w++)
				assert_int_equal(cs[w].slots[round][i], slot);
			assert_int_equal(sp_table_find(&t, key), slot);
			assert_int_equal(slots_holding(&t, key), 1);
		}
		for (i = 0; i < CONC_KEYS; i++)
			assert_true(sp_table_retire(&t, (uint32_t)cs[0].slots[round][i],
						    conc_key(round, i)));
		/* Recycle this round's slots too: the churner alone can fall
		 * behind on a loaded machine (seen under ASan), and retired
		 * slots fill the probe paths until reclaimed. */
		sp_table_reclaim(&t);
		pthread_barrier_wait(&bar);     /* retired */
	}
	for (w = 0; w < CONC_THREADS; w++) {
		assert_int_equal(pthread_join(th[w], NULL), 0);
		total_inits += cs[w].inits;
	}
	__atomic_store_n(&churn.stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(churn_th, NULL), 0);
	/* Every key was initialised exactly once, by whichever thread won. */
	assert_int_equal(total_inits, CONC_ROUNDS * CONC_KEYS);
	assert_int_equal(sp_table_live(&t), 0);
	pthread_barrier_destroy(&bar);
	sp_table_destroy(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_insert_find),
		cmocka_unit_test(test_bad_keys_and_args),
		cmocka_unit_test(test_limit_enospc),
		cmocka_unit_test(test_retire),
		cmocka_unit_test(test_retired_slot_reuse_after_reclaim),
		cmocka_unit_test(test_no_duplicate_over_new_tombstone),
		cmocka_unit_test(test_concurrent_same_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
