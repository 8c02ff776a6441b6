// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Multithreaded stress of the core: 16 threads take real pthread mutexes
 * and rwlocks (so that what they report is plausible: one owner at a time,
 * waits only when the lock is busy) and report every step to one shared
 * core, with small tables so that every kind of overflow happens. A
 * separate thread ticks, reclaims and queries. When everybody has released
 * everything, the counters must add up exactly and nothing may stay
 * boosted.
 *
 * The run is bounded by iteration counts, never by time.
 */
#include "sp_test_core.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NTHREADS 16
#define NCRITICAL 4
#define NSHARED 32
#define NPRIVATE 2
#define MAX_NEST 3
#define TID_BASE 100

#if defined(__SANITIZE_THREAD__)
#define DEFAULT_ITERS 3000
#elif defined(__SANITIZE_ADDRESS__)
#define DEFAULT_ITERS 12000
#else
#define DEFAULT_ITERS 30000
#endif

struct shared_lock {
	sp_lock_key_t key;
	bool rw;
	pthread_mutex_t m;
	pthread_rwlock_t rwl;
};

struct worker {
	unsigned idx;
	sp_tid_t tid;
	bool critical;
	uint64_t rng;
	unsigned iters;
	/* events issued */
	uint64_t acquires, releases, blocks, unblocks, gave_up, exits, destroys;
	uint64_t releases_unknown;  /* releases of a lock with no entry (-ENOENT) */
	pthread_mutex_t priv[NPRIVATE];
};

static struct sp_core *core;
static struct sp_rec_host host;
static struct shared_lock locks[NSHARED];
static struct worker workers[NTHREADS];
static int stop_ticker;
static pthread_barrier_t phase_bar;
static uint64_t ticks, reclaims, queries;

/* cmocka's asserts may only fail in the test's own thread; workers print
 * and abort, which fails the test just as surely. */
#define wcheck(cond)                                                          \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #cond);                             \
			abort();                                              \
		}                                                             \
	} while (0)
#define wcheck_rc(expr, want)                                                 \
	do {                                                                  \
		int rc_ = (expr);                                             \
		if (rc_ != (want)) {                                          \
			fprintf(stderr, "%s:%d: %s returned %d, want %d\n",    \
				__FILE__, __LINE__, #expr, rc_, (want));      \
			abort();                                              \
		}                                                             \
	} while (0)

static uint64_t rnd(struct worker *w)
{
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return w->rng * 0x2545F4914F6CDD1Dull;
}

static sp_lock_key_t priv_key(const struct worker *w, unsigned j)
{
	return 0x7000000ull + (w->tid << 8) + j * 16;
}

static void spin(unsigned n)
{
	volatile unsigned x = 0;

	while (n--)
		x++;
}

static void deadline_in(struct timespec *ts, long ns)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_nsec += ns;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

enum mode { M_MUTEX, M_READ, M_WRITE };

static int try_take(struct shared_lock *l, enum mode m)
{
	switch (m) {
	case M_MUTEX:
		return pthread_mutex_trylock(&l->m);
	case M_READ:
		return pthread_rwlock_tryrdlock(&l->rwl);
	default:
		return pthread_rwlock_trywrlock(&l->rwl);
	}
}

static int timed_take(struct shared_lock *l, enum mode m, long ns)
{
	struct timespec ts;

	deadline_in(&ts, ns);
	switch (m) {
	case M_MUTEX:
		return pthread_mutex_timedlock(&l->m, &ts);
	case M_READ:
		return pthread_rwlock_timedrdlock(&l->rwl, &ts);
	default:
		return pthread_rwlock_timedwrlock(&l->rwl, &ts);
	}
}

static void put(struct shared_lock *l, enum mode m)
{
	if (m == M_MUTEX)
		pthread_mutex_unlock(&l->m);
	else
		pthread_rwlock_unlock(&l->rwl);
}

/* Takes @l, reporting a wait if it is busy. false if the thread gave up
 * (a timed lock that timed out), in which case it does not hold @l. */
static bool take(struct worker *w, struct shared_lock *l, enum mode m)
{
	enum sp_hold hold = m == M_READ ? SP_HOLD_SHARED : SP_HOLD_EXCL;
	bool may_give_up = rnd(w) % 8 == 0;
	unsigned tries = 0;

	if (try_take(l, m) == 0)
		goto got;
	/* Busy: report the wait before sleeping on the lock. The return
	 * value may be -ENOSPC (lock table full): the task's wait is still
	 * recorded. */
	sp_lock_blocked(core, w->tid, l->key, hold);
	w->blocks++;
	for (;;) {
		if (timed_take(l, m, 100000) == 0)
			break;
		if (may_give_up && ++tries >= 2) {
			wcheck_rc(sp_lock_unblocked(core, w->tid, l->key, false), 0);
			w->unblocks++;
			w->gave_up++;
			return false;
		}
		/* Still waiting: hosts re-report long waits (a refresh, not a
		 * new block). */
		sp_lock_blocked(core, w->tid, l->key, hold);
	}
	/* Also the acquire: the core records it in the wait's hold. */
	wcheck_rc(sp_lock_unblocked(core, w->tid, l->key, true), 0);
	w->unblocks++;
	w->acquires++;
	return true;
got:
	sp_lock_acquired(core, w->tid, l->key, hold);
	w->acquires++;
	return true;
}

static void drop(struct worker *w, struct shared_lock *l, enum mode m)
{
	/* Reported before the real unlock: the next owner's acquire comes
	 * after this release. */
	w->releases++;
	if (sp_lock_released(core, w->tid, l->key,
			     m == M_READ ? SP_HOLD_SHARED : SP_HOLD_EXCL) == -ENOENT)
		w->releases_unknown++;
	put(l, m);
}

static uint64_t register_retries;

static void register_task(struct worker *w)
{
	unsigned tries = 0;
	int rc;

	/* Exited tasks leave retired slots until a reclaim: when they fill
	 * the probe path the table says -ENOSPC, and a host that may sleep
	 * reclaims and tries again. */
	while ((rc = sp_task_register(core, w->tid)) != 0) {
		wcheck_rc(rc, -ENOSPC);
		/* A reclaim racing with the ticker's may find nothing left to
		 * mark and return at once: give the grace period time. */
		wcheck(++tries < 100000);
		__atomic_add_fetch(&register_retries, 1, __ATOMIC_RELAXED);
		wcheck(sp_core_reclaim(core) >= 0);
		usleep(20);
	}
	if (w->critical)
		wcheck_rc(sp_task_set_critical(core, w->tid, true), 0);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned it, i;

	register_task(w);
	for (it = 0; it < w->iters; it++) {
		unsigned r = (unsigned)(rnd(w) % 1000);

		if (it == w->iters - w->iters / 4) {
			/* Holding nothing: let the test stop the ticker, so that
			 * the last quarter runs without ticks (which would end
			 * grants the event paths forgot). */
			pthread_barrier_wait(&phase_bar);
			pthread_barrier_wait(&phase_bar);
		}

		if (r < 10) {
			/* The thread goes away and comes back (holding nothing,
			 * waiting for nothing). */
			wcheck_rc(sp_task_exit(core, w->tid), 0);
			w->exits++;
			register_task(w);
			continue;
		}
		if (r < 30) {
			unsigned j = (unsigned)(rnd(w) % NPRIVATE);

			/* A thread-private lock is destroyed (it may have no
			 * entry if the lock table was full). */
			int rc = sp_lock_destroyed(core, priv_key(w, j));

			wcheck(rc == 0 || rc == -ENOENT);
			w->destroys++;
			continue;
		}
		if (r < 150) {
			/* Uncontended private lock. */
			unsigned j = (unsigned)(rnd(w) % NPRIVATE);

			pthread_mutex_lock(&w->priv[j]);
			sp_lock_acquired(core, w->tid, priv_key(w, j), SP_HOLD_EXCL);
			w->acquires++;
			spin(50);
			w->releases++;
			if (sp_lock_released(core, w->tid, priv_key(w, j), SP_HOLD_EXCL) == -ENOENT)
				w->releases_unknown++;
			pthread_mutex_unlock(&w->priv[j]);
			continue;
		}

		/* 1..MAX_NEST shared locks in increasing index order (no real
		 * deadlock), which builds chains: holding one while waiting for
		 * the next. */
		{
			unsigned n = 1 + (unsigned)(rnd(w) % MAX_NEST), held = 0;
			unsigned idx[MAX_NEST];
			enum mode modes[MAX_NEST];
			unsigned next = (unsigned)(rnd(w) % NSHARED);

			for (i = 0; i < n && next < NSHARED; i++) {
				struct shared_lock *l = &locks[next];
				enum mode m = !l->rw ? M_MUTEX : (rnd(w) % 4 ? M_READ : M_WRITE);

				if (take(w, l, m)) {
					idx[held] = next;
					modes[held] = m;
					held++;
					spin(200);
					if (rnd(w) % 16 == 0)
						sched_yield();   /* preempted while holding */
				}
				next += 1 + (unsigned)(rnd(w) % 6);
			}
			/* Release in reverse order, or sometimes in order. */
			if (rnd(w) & 1) {
				for (i = held; i-- > 0;)
					drop(w, &locks[idx[i]], modes[i]);
			} else {
				for (i = 0; i < held; i++)
					drop(w, &locks[idx[i]], modes[i]);
			}
		}
	}
	return NULL;
}

static void *ticker_main(void *arg)
{
	uint64_t rng = 0x1234567ull;
	struct sp_hist *hist = malloc(sizeof(*hist));
	sp_tid_t out[8];

	(void)arg;
	wcheck(hist);
	while (!__atomic_load_n(&stop_ticker, __ATOMIC_ACQUIRE)) {
		struct sp_walk_result res;
		struct sp_stats st;
		int rc;

		wcheck(sp_core_tick(core) >= 0);
		ticks++;
		wcheck(sp_core_reclaim(core) >= 0);
		reclaims++;
		/* Concurrent readers of the graph and the statistics. */
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		rc = sp_graph_blockers(core, TID_BASE + rng % NTHREADS, out, 8, &res);
		wcheck(rc == 0 || rc == -ENOENT);
		if (rc == 0)
			wcheck(res.nr <= 8);
		sp_core_stats(core, &st);
		sp_core_blocking_hist(core, hist);
		queries++;
		sched_yield();
	}
	free(hist);
	return NULL;
}

static void test_stress(void **state)
{
	struct sp_config cfg;
	pthread_t th[NTHREADS], ticker;
	uint64_t acquires = 0, releases = 0, blocks = 0, unblocks = 0, gave_up = 0;
	uint64_t exits = 0, destroys = 0, releases_unknown = 0;
	unsigned iters = DEFAULT_ITERS, i, j;
	const char *env = getenv("SP_STRESS_ITERS");
	struct sp_stats st;
	struct sp_hist *hist;

	(void)state;
	if (env && atoi(env) > 0)
		iters = (unsigned)atoi(env);
	if (iters < 4)
		iters = 4;   /* the ticker stops at three quarters */

	sp_config_default(&cfg);
	cfg.max_tasks = 64;           /* 16 live; room for retired slots */
	cfg.max_locks = 40;           /* 32 shared + 32 private keys: overflows */
	cfg.max_grants = 8;
	cfg.readers_per_lock = 2;
	cfg.waiters_per_lock = 2;
	cfg.max_depth = 4;
	cfg.budget_ns = 200000;       /* 200 us: expiries happen */
	cfg.throttle_window_ns = 2000000;
	cfg.throttle_permille = 300;  /* throttles happen */
	/* The recording host, on the real clock: many threads move time. */
	core = sp_test_core(&host, &cfg);
	host.real_clock = true;

	for (i = 0; i < NSHARED; i++) {
		locks[i].key = 0x10000ull + i * 64;
		locks[i].rw = i % 2;
		pthread_mutex_init(&locks[i].m, NULL);
		pthread_rwlock_init(&locks[i].rwl, NULL);
	}
	for (i = 0; i < NTHREADS; i++) {
		struct worker *w = &workers[i];

		memset(w, 0, sizeof(*w));
		w->idx = i;
		w->tid = TID_BASE + i;
		w->critical = i < NCRITICAL;
		w->rng = 0x9E3779B97F4A7C15ull * (i + 1);
		w->iters = iters;
		for (j = 0; j < NPRIVATE; j++)
			pthread_mutex_init(&w->priv[j], NULL);
	}
	assert_int_equal(pthread_barrier_init(&phase_bar, NULL, NTHREADS + 1), 0);
	assert_int_equal(pthread_create(&ticker, NULL, ticker_main, NULL), 0);
	for (i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, worker_main, &workers[i]), 0);
	/* Three quarters in, every worker idle: stop the ticker. */
	pthread_barrier_wait(&phase_bar);
	__atomic_store_n(&stop_ticker, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(ticker, NULL), 0);
	sp_core_stats(core, &st);
	assert_int_equal(st.grants_now, 0);
	assert_int_equal(st.boosted_now, 0);
	assert_int_equal(sp_test_boosted_count(&host), 0);
	pthread_barrier_wait(&phase_bar);
	for (i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		acquires += workers[i].acquires;
		releases += workers[i].releases;
		releases_unknown += workers[i].releases_unknown;
		blocks += workers[i].blocks;
		unblocks += workers[i].unblocks;
		gave_up += workers[i].gave_up;
		exits += workers[i].exits;
		destroys += workers[i].destroys;
	}
	pthread_barrier_destroy(&phase_bar);

	/* Everyone released everything and stopped waiting. No tick in the
	 * last quarter: whatever ended its grants was the release, unblock
	 * and exit paths. */
	sp_core_stats(core, &st);
	print_message("stress: %u threads x %u iterations: %llu acquires, %llu blocks "
		      "(%llu gave up), %llu exits, %llu destroys; ticker: %llu ticks, "
		      "%llu reclaims, %llu register retries\n",
		      NTHREADS, iters, (unsigned long long)acquires, (unsigned long long)blocks,
		      (unsigned long long)gave_up, (unsigned long long)exits,
		      (unsigned long long)destroys, (unsigned long long)ticks,
		      (unsigned long long)reclaims, (unsigned long long)register_retries);
	print_message("core: grants %llu (dups %llu refused %llu) fast_tracks %llu restores %llu "
		      "ends: release %llu unblock %llu exit %llu expiry %llu throttle %llu "
		      "(throttles %llu); blockings %llu deadlocks %llu depth_limited %llu; "
		      "overflows: task %llu lock %llu grant %llu reader %llu waiter %llu; "
		      "stale %llu\n",
		      (unsigned long long)st.grants, (unsigned long long)st.grant_dups,
		      (unsigned long long)st.grants_refused, (unsigned long long)st.fast_tracks,
		      (unsigned long long)st.restores, (unsigned long long)st.ends_release,
		      (unsigned long long)st.ends_unblock, (unsigned long long)st.ends_exit,
		      (unsigned long long)st.expiries, (unsigned long long)st.ends_throttle,
		      (unsigned long long)st.throttles, (unsigned long long)st.blockings,
		      (unsigned long long)st.deadlocks, (unsigned long long)st.depth_limited,
		      (unsigned long long)st.task_overflows, (unsigned long long)st.lock_overflows,
		      (unsigned long long)st.grant_overflows,
		      (unsigned long long)st.reader_overflows,
		      (unsigned long long)st.waiter_overflows,
		      (unsigned long long)st.stale_events);

	/* Nothing stays boosted, and the actuator was never misused. */
	assert_int_equal(host.bad_calls, 0);
	assert_int_equal(sp_test_boosted_count(&host), 0);
	assert_int_equal(st.boosted_now, 0);
	for (i = 0; i < NTHREADS; i++)
		assert_int_equal(sp_task_fast_tracked(core, workers[i].tid), 0);
	assert_int_equal(st.fast_tracks, st.restores);
	assert_int_equal(host.fast_tracks, host.restores);
	assert_int_equal(st.fast_tracks, host.fast_tracks);
	assert_int_equal(st.restores, host.restores);
	assert_int_equal(st.actuator_errors, 0);

	/* (Lock order rules out real deadlocks, but a lock-free walk over a
	 * changing graph may see a transient cycle; each is reported once.) */
	assert_int_equal(host.deadlocks, st.deadlocks);
	if (host.deadlocks)
		assert_true(host.last_deadlock_waiter >= TID_BASE &&
			    host.last_deadlock_waiter < TID_BASE + NTHREADS &&
			    host.last_deadlock_lock != 0);

	/* Every grant ended once, for one reason. */
	assert_int_equal(st.grants_now, 0);
	assert_int_equal(st.grants, st.ends_release + st.ends_unblock + st.ends_exit +
				    st.expiries + st.ends_throttle + st.grants_now);

	/* Every event was counted. */
	assert_int_equal(st.acquires, acquires);
	/* A release of a lock that never got an entry (the table was full
	 * at its acquire) is a stale event, not a release; an acquire that
	 * found the table full is still an acquire. */
	assert_int_equal(st.releases, releases - releases_unknown);
	assert_true(st.stale_events >= releases_unknown);
	assert_true(releases_unknown <= st.lock_overflows);
	assert_int_equal(st.blocks, blocks);
	assert_int_equal(st.unblocks, unblocks);
	assert_int_equal(acquires, releases);
	assert_int_equal(blocks, unblocks);
	/* Each worker's own entry exists from its registration to its exit,
	 * so its blocks and unblocks were all counted above. Task overflows
	 * can still come from grants naming a target between its exit and
	 * its return. */
	assert_int_equal(st.tasks_now, NTHREADS);

	/* Blockings of critical tasks went into the histogram. */
	hist = malloc(sizeof(*hist));
	assert_non_null(hist);
	sp_core_blocking_hist(core, hist);
	assert_int_equal(hist->count, st.blockings);
	assert_true(st.blockings <= st.unblocks);
	free(hist);

	/* The graph is empty again: no owner, no tracked or counted reader. */
	for (i = 0; i < NSHARED; i++) {
		sp_tid_t owner = 1, readers[4];
		uint32_t untracked = 1;
		int rc = sp_lock_owner(core, locks[i].key, &owner);

		if (rc == -ENOENT)
			continue;   /* never got a table entry */
		assert_int_equal(rc, 0);
		assert_int_equal(owner, 0);
		assert_int_equal(sp_lock_readers(core, locks[i].key, readers, 4, &untracked), 0);
		assert_int_equal(untracked, 0);
	}
	for (i = 0; i < NTHREADS; i++) {
		struct sp_walk_result res;
		sp_tid_t out[4];

		assert_int_equal(sp_graph_blockers(core, workers[i].tid, out, 4, &res), 0);
		assert_int_equal(res.nr, 0);
	}

	/* The run did reach the paths it is meant to stress (not for a tiny
	 * SP_STRESS_ITERS). */
	if (iters >= 1000) {
		assert_true(acquires > 0 && blocks > 0);
		assert_true(st.lock_overflows > 0);
		assert_true(exits > 0 && destroys > 0);
	}

	/* A tick now finds nothing to end. */
	assert_int_equal(sp_core_tick(core), 0);
	sp_test_destroy(&host);
	/* Destroy restores nothing more (nothing was boosted). */
	assert_int_equal(host.fast_tracks, host.restores);
	assert_int_equal(host.bad_calls, 0);

	for (i = 0; i < NSHARED; i++) {
		pthread_mutex_destroy(&locks[i].m);
		pthread_rwlock_destroy(&locks[i].rwl);
	}
	for (i = 0; i < NTHREADS; i++)
		for (j = 0; j < NPRIVATE; j++)
			pthread_mutex_destroy(&workers[i].priv[j]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
