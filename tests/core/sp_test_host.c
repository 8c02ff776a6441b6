// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "sp_test_host.h"

#include <string.h>
#include <time.h>

static uint64_t sp_test_now(void *ctx)
{
	struct sp_test_host *h = ctx;
	struct timespec ts;

	if (!h->real_clock)
		return __atomic_load_n(&h->now, __ATOMIC_RELAXED);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The core serialises calls for one tid under that task's lock; calls for
 * different tids may run at once, hence the atomics. */
static int sp_test_fast_track(void *ctx, sp_tid_t tid)
{
	struct sp_test_host *h = ctx;

	__atomic_add_fetch(&h->fast_tracks, 1, __ATOMIC_RELAXED);
	if (h->fail_fast_track < 0)
		return h->fail_fast_track;
	if (tid >= SP_TEST_MAX_TIDS || __atomic_exchange_n(&h->boosted[tid], 1, __ATOMIC_RELAXED))
		__atomic_add_fetch(&h->bad_calls, 1, __ATOMIC_RELAXED);
	if (h->on_fast_track)
		h->on_fast_track(h, tid);
	return 0;
}

static int sp_test_restore(void *ctx, sp_tid_t tid)
{
	struct sp_test_host *h = ctx;

	__atomic_add_fetch(&h->restores, 1, __ATOMIC_RELAXED);
	if (tid >= SP_TEST_MAX_TIDS || !__atomic_exchange_n(&h->boosted[tid], 0, __ATOMIC_RELAXED))
		__atomic_add_fetch(&h->bad_calls, 1, __ATOMIC_RELAXED);
	return 0;
}

static void sp_test_deadlock(void *ctx, sp_tid_t waiter, sp_lock_key_t lock)
{
	struct sp_test_host *h = ctx;

	/* may run on several threads at once (stress tests) */
	__atomic_add_fetch(&h->deadlocks, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&h->last_deadlock_waiter, waiter, __ATOMIC_RELAXED);
	__atomic_store_n(&h->last_deadlock_lock, lock, __ATOMIC_RELAXED);
}

const struct sp_host_ops sp_test_ops = {
	.now_ns = sp_test_now,
	.fast_track = sp_test_fast_track,
	.restore = sp_test_restore,
	.on_deadlock = sp_test_deadlock,
};

struct sp_core *sp_test_core(struct sp_test_host *h, const struct sp_config *cfg)
{
	struct sp_core *core = NULL;

	memset(h, 0, sizeof(*h));
	h->now = 1000000000ull;
	assert_int_equal(sp_core_create(cfg, &sp_test_ops, h, &core), 0);
	assert_non_null(core);
	h->core = core;
	return core;
}

unsigned sp_test_boosted_count(const struct sp_test_host *h)
{
	unsigned i, n = 0;

	for (i = 0; i < SP_TEST_MAX_TIDS; i++)
		n += __atomic_load_n(&h->boosted[i], __ATOMIC_RELAXED);
	return n;
}
