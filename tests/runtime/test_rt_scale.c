// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The deadlock suspicion through the real runtime, at scale and for real:
 *  - 200 threads, 64 of them critical, take chains of 1,000 sp_mutex_t in
 *    increasing order for a fixed number of rounds. Such a program cannot
 *    deadlock, yet its graph is full of owners read from lock words that
 *    let go unseen: the core must report no deadlock.
 *  - Two critical threads in a real ABBA deadlock (timed locks, so that
 *    the test ends): reported.
 * Observe mode: no privilege needed, nothing is boosted, the core and its
 * statistics work as in any mode. Nothing here is timed: the rounds are
 * counted, and the timed locks' deadlines only end the deadlock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <superpass/runtime.h>

#include "sp_test_util.h"

#define SP_SCALE_THREADS 200
#define SP_SCALE_CRITICAL 64
#define SP_SCALE_LOCKS 1000
#define SP_SCALE_ROUNDS 600 /* SP_SCALE_ROUNDS in the environment: fewer (TSan) */
#define SP_SCALE_CHAIN 3   /* locks held at once, at most */
#define SP_SCALE_HOT 8     /* most chains start among the first few locks */

struct sp_scale {
	sp_mutex_t *locks;
	unsigned int rounds;
	pthread_barrier_t start;
};

struct sp_worker {
	struct sp_scale *s;
	unsigned int index;
	uint64_t rnd;
	int rc;
};

static uint64_t sp_rnd(struct sp_worker *w)
{
	w->rnd ^= w->rnd << 13;
	w->rnd ^= w->rnd >> 7;
	w->rnd ^= w->rnd << 17;
	return w->rnd;
}

static void sp_spin(unsigned int n)
{
	for (volatile unsigned int i = 0; i < n; i++)
		;
}

/* One round: a chain of up to SP_SCALE_CHAIN locks in increasing index
 * order, released in reverse. Contention comes from the hot first locks
 * and the short steps between the locks of a chain. */
static int sp_round(struct sp_worker *w)
{
	unsigned int idx[SP_SCALE_CHAIN], n = 0, len = 2 + (unsigned int)(sp_rnd(w) % 2);
	unsigned int next = sp_rnd(w) % 4 ? (unsigned int)(sp_rnd(w) % SP_SCALE_HOT)
					  : (unsigned int)(sp_rnd(w) % SP_SCALE_LOCKS);
	int rc = 0;

	while (n < len && next < SP_SCALE_LOCKS) {
		rc = sp_mutex_lock(&w->s->locks[next]);
		if (rc)
			break;
		idx[n++] = next;
		sp_spin(200);
		if (sp_rnd(w) % 8 == 0)
			sched_yield(); /* preempted while holding */
		next += 1 + (unsigned int)(sp_rnd(w) % 2);
	}
	while (n > 0) {
		int u = sp_mutex_unlock(&w->s->locks[idx[--n]]);

		if (!rc)
			rc = u;
	}
	return rc;
}

static void *sp_worker_main(void *arg)
{
	struct sp_worker *w = arg;
	char name[16];

	snprintf(name, sizeof(name), "%s%u", w->index < SP_SCALE_CRITICAL ? "crit" : "work",
		 w->index);
	w->rc = sp_thread_register(name);
	if (!w->rc && w->index < SP_SCALE_CRITICAL)
		w->rc = sp_thread_set_critical(0, true);
	pthread_barrier_wait(&w->s->start);
	for (unsigned int r = 0; r < w->s->rounds && !w->rc; r++)
		w->rc = sp_round(w);
	return NULL;
}

static void test_ordered_locks_report_no_deadlock(void **state)
{
	static struct sp_worker workers[SP_SCALE_THREADS];
	static pthread_t tids[SP_SCALE_THREADS];
	struct sp_runtime_stats st;
	struct sp_scale s;
	pthread_attr_t attr;

	(void)state;
	s.rounds = getenv("SP_SCALE_ROUNDS") ? (unsigned int)atoi(getenv("SP_SCALE_ROUNDS"))
					     : SP_SCALE_ROUNDS;
	assert_true(s.rounds > 0);
	s.locks = calloc(SP_SCALE_LOCKS, sizeof(*s.locks));
	assert_non_null(s.locks);
	for (unsigned int i = 0; i < SP_SCALE_LOCKS; i++)
		assert_int_equal(sp_mutex_init(&s.locks[i], 0), 0);
	assert_int_equal(pthread_barrier_init(&s.start, NULL, SP_SCALE_THREADS), 0);
	assert_int_equal(pthread_attr_init(&attr), 0);
	assert_int_equal(pthread_attr_setstacksize(&attr, 1 << 20), 0);
	for (unsigned int i = 0; i < SP_SCALE_THREADS; i++) {
		workers[i] = (struct sp_worker){ .s = &s, .index = i,
						 .rnd = 0x9e3779b97f4a7c15ull * (i + 1) };
		assert_int_equal(pthread_create(&tids[i], &attr, sp_worker_main, &workers[i]), 0);
	}
	for (unsigned int i = 0; i < SP_SCALE_THREADS; i++) {
		pthread_join(tids[i], NULL);
		assert_int_equal(workers[i].rc, 0);
	}
	pthread_attr_destroy(&attr);
	assert_int_equal(sp_runtime_stats(&st), 0);
	printf("# %u threads (%u critical), %u locks, %u rounds each: blocks %llu, "
	       "blockings %llu, grants %llu, grant_overflows %llu, waiter_overflows %llu, "
	       "depth_limited %llu, stale_events %llu, deadlocks %llu\n",
	       SP_SCALE_THREADS, SP_SCALE_CRITICAL, SP_SCALE_LOCKS, s.rounds,
	       (unsigned long long)st.core.blocks, (unsigned long long)st.core.blockings,
	       (unsigned long long)st.core.grants, (unsigned long long)st.core.grant_overflows,
	       (unsigned long long)st.core.waiter_overflows,
	       (unsigned long long)st.core.depth_limited, (unsigned long long)st.core.stale_events,
	       (unsigned long long)st.core.deadlocks);
	/* The rounds did contend, and critical threads waited behind chains. */
	assert_true(st.core.blockings > 0);
	assert_int_equal(st.core.deadlocks, 0);
	pthread_barrier_destroy(&s.start);
	for (unsigned int i = 0; i < SP_SCALE_LOCKS; i++)
		assert_int_equal(sp_mutex_destroy(&s.locks[i]), 0);
	free(s.locks);
}

/* ---- a real deadlock ---- */

struct sp_abba {
	sp_mutex_t *first, *second;
	long timeout_ms;   /* the timed lock of the second: what ends the deadlock */
	int *holds;        /* threads holding their first lock */
	int rc;
};

static void *sp_abba_main(void *arg)
{
	struct sp_abba *a = arg;
	struct timespec deadline;

	a->rc = sp_thread_set_critical(0, true);
	if (a->rc)
		return NULL;
	a->rc = sp_mutex_lock(a->first);
	if (a->rc)
		return NULL;
	__atomic_add_fetch(a->holds, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(a->holds, __ATOMIC_ACQUIRE) < 2)
		sp_test_nap();
	deadline = sp_test_deadline_ms(CLOCK_REALTIME, a->timeout_ms);
	a->rc = sp_mutex_timedlock(a->second, &deadline);
	if (a->rc == 0)
		sp_mutex_unlock(a->second);
	sp_mutex_unlock(a->first);
	return NULL;
}

/* X takes LA then LB, Y takes LB then LA: both wait for the other. Y's
 * wait ends first (its deadline), then X gets LB. */
static void test_abba_deadlock_is_reported(void **state)
{
	sp_mutex_t la, lb;
	int holds = 0;
	struct sp_abba x = { .first = &la, .second = &lb, .timeout_ms = 20000, .holds = &holds };
	struct sp_abba y = { .first = &lb, .second = &la, .timeout_ms = 4000, .holds = &holds };
	struct sp_runtime_stats before, st;
	pthread_t tx, ty;

	(void)state;
	assert_int_equal(sp_mutex_init(&la, 0), 0);
	assert_int_equal(sp_mutex_init(&lb, 0), 0);
	assert_int_equal(sp_runtime_stats(&before), 0);
	assert_int_equal(pthread_create(&tx, NULL, sp_abba_main, &x), 0);
	assert_int_equal(pthread_create(&ty, NULL, sp_abba_main, &y), 0);
	/* Reported while both still wait (the bound only turns a miss into
	 * a failure: Y's deadline ends the wait anyway). */
	assert_true(SP_WAIT_FOR(sp_runtime_stats(&st) == 0 &&
				st.core.deadlocks > before.core.deadlocks));
	pthread_join(ty, NULL);
	pthread_join(tx, NULL);
	assert_int_equal(y.rc, ETIMEDOUT);
	assert_int_equal(x.rc, 0);
	assert_int_equal(sp_runtime_stats(&st), 0);
	assert_true(st.core.deadlocks >= before.core.deadlocks + 1);
	assert_int_equal(sp_mutex_destroy(&la), 0);
	assert_int_equal(sp_mutex_destroy(&lb), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ordered_locks_report_no_deadlock),
		cmocka_unit_test(test_abba_deadlock_is_reported),
	};

	return cmocka_run_group_tests(tests, sp_test_setup_observe, sp_test_teardown_runtime);
}
