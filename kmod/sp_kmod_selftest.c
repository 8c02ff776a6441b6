// SPDX-License-Identifier: GPL-2.0-only
/*
 * Load-time self-test: the core compiled for the kernel makes the same
 * decisions as in userspace, fed the way the detector feeds it. It runs on
 * the recording host (include/superpass/rec_host.h, lib/hosts/sim), the one the
 * core's tests and the offline host use, in its queued model: the core's
 * callbacks only queue tids and sp_rec_host_run() is the worker, applying
 * sp_task_fast_tracked(), as sp_kmod_worker.c does for real tasks.
 *
 * A chain (critical 3 waits for mutex L2, whose word names 2, who waits for
 * L1, whose word names 1), the word changing under a wait (the worker's
 * re-report), the wait ending without a recorded acquire (a mutex: the
 * next wait's word names the owner), and a reader case (critical 7 waits to
 * write rwsem L3, read by 4, 5 and 6 with K = 2). Tids are made up and the
 * recording host touches no real task.
 */
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/slab.h>

#include <superpass/rec_host.h>

#include "sp_kmod_selftest.h"

#define SP_ST_TIDS 16

#define SP_ST_CHECK(cond, fmt, ...) do {				\
	if (!(cond)) {							\
		pr_err("superpass: self-test: %s: " fmt "\n", #cond, ##__VA_ARGS__); \
		ret = -EINVAL;						\
		goto out;						\
	}								\
} while (0)

#define SP_ST_OK(expr) do {						\
	int __r = (expr);						\
	if (__r < 0) {							\
		pr_err("superpass: self-test: %s returned %d\n", #expr, __r); \
		ret = __r;						\
		goto out;						\
	}								\
} while (0)

static bool sp_st_has(const sp_tid_t *v, u32 n, sp_tid_t tid)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (v[i] == tid)
			return true;
	return false;
}

/* The worker's pass, then the recorded state of @tid. */
static int sp_st_boosted(struct sp_rec_host *h, sp_tid_t tid)
{
	sp_rec_host_run(h);
	return sp_rec_host_is_boosted(h, tid);
}

static int sp_st_run(struct sp_rec_host *h)
{
	const sp_lock_key_t L1 = 0x1000, L2 = 0x2000, L3 = 0x3000;
	struct sp_core *core = h->core;
	struct sp_walk_result res;
	struct sp_stats st;
	sp_tid_t out[8], owner;
	u32 untracked = 0;
	int ret = 0, i, n;

	/* Chain, as the detector reports it: each wait carries its word. */
	SP_ST_OK(sp_lock_declare(core, L1, SP_LOCK_MUTEX));
	SP_ST_OK(sp_lock_declare(core, L2, SP_LOCK_MUTEX));
	SP_ST_OK(sp_task_register(core, 3));
	SP_ST_OK(sp_task_set_critical(core, 3, true));
	SP_ST_OK(sp_lock_blocked_owner(core, 3, L2, SP_HOLD_EXCL, true, 2));
	SP_ST_CHECK(sp_st_boosted(h, 2) && !sp_st_boosted(h, 3), "after 3 waits for 2");
	/* 2 is fast-tracked, hence watched: its own wait extends the chain. */
	SP_ST_OK(sp_lock_blocked_owner(core, 2, L1, SP_HOLD_EXCL, true, 1));
	SP_ST_CHECK(sp_st_boosted(h, 1) && sp_st_boosted(h, 2), "chain 3 -> 2 -> 1");
	SP_ST_OK(sp_graph_blockers(core, 3, out, ARRAY_SIZE(out), &res));
	SP_ST_CHECK(res.nr == 2 && !res.deadlock, "nr=%u deadlock=%d", res.nr, res.deadlock);
	SP_ST_CHECK(sp_st_has(out, res.nr, 1) && sp_st_has(out, res.nr, 2),
		    "blockers %llu %llu", out[0], out[1]);

	/* L2 changed hands unseen (a mutex unlock emits nothing): the
	 * worker reports the wait again with the new word. */
	SP_ST_OK(sp_lock_blocked_owner(core, 3, L2, SP_HOLD_EXCL, true, 4));
	SP_ST_CHECK(sp_st_boosted(h, 4) && !sp_st_boosted(h, 2), "word 2 -> 4");
	SP_ST_OK(sp_lock_owner(core, L2, &owner));
	SP_ST_CHECK(owner == 4, "owner of L2 %llu", owner);
	SP_ST_OK(sp_lock_blocked_owner(core, 3, L2, SP_HOLD_EXCL, true, 0));
	SP_ST_CHECK(!sp_st_boosted(h, 4), "word 4 -> free");

	/* The waits end; a mutex acquire is not recorded (its release would
	 * never be), so the next wait's word names the owner again. */
	SP_ST_OK(sp_lock_unblocked(core, 2, L1, false));
	SP_ST_OK(sp_lock_unblocked(core, 3, L2, false));
	sp_rec_host_run(h);
	SP_ST_CHECK(sp_rec_host_boosted_count(h) == 0, "%u boosted after the waits ended",
		    sp_rec_host_boosted_count(h));
	SP_ST_OK(sp_lock_blocked_owner(core, 3, L2, SP_HOLD_EXCL, true, 5));
	SP_ST_CHECK(sp_st_boosted(h, 5), "second wait, word 5");
	SP_ST_OK(sp_lock_unblocked(core, 3, L2, false));
	SP_ST_CHECK(!sp_st_boosted(h, 5), "second wait over");

	/* Readers (the reader hooks' events): K = 2 of 3 tracked; a critical
	 * writer, whose word shows no exclusive owner, boosts those two. */
	SP_ST_OK(sp_lock_declare(core, L3, SP_LOCK_RWLOCK));
	for (i = 4; i <= 6; i++)
		SP_ST_OK(sp_lock_acquired(core, i, L3, SP_HOLD_SHARED));
	n = sp_lock_readers(core, L3, out, ARRAY_SIZE(out), &untracked);
	SP_ST_CHECK(n == 2 && untracked == 1, "readers n=%d untracked=%u", n, untracked);
	SP_ST_OK(sp_task_register(core, 7));
	SP_ST_OK(sp_task_set_critical(core, 7, true));
	SP_ST_OK(sp_lock_blocked_owner(core, 7, L3, SP_HOLD_EXCL, true, 0));
	sp_rec_host_run(h);
	n = sp_rec_host_is_boosted(h, 4) + sp_rec_host_is_boosted(h, 5) +
	    sp_rec_host_is_boosted(h, 6);
	SP_ST_CHECK(n == 2, "%d readers boosted", n);
	for (i = 4; i <= 6; i++)
		SP_ST_OK(sp_lock_released(core, i, L3, SP_HOLD_SHARED));
	sp_rec_host_run(h);
	SP_ST_CHECK(sp_rec_host_boosted_count(h) == 0, "%u boosted after the releases",
		    sp_rec_host_boosted_count(h));
	/* An rwsem acquire is recorded with the unblock (the hooks report
	 * its release). */
	SP_ST_OK(sp_lock_unblocked(core, 7, L3, true));
	SP_ST_OK(sp_lock_owner(core, L3, &owner));
	SP_ST_CHECK(owner == 7, "owner of L3 %llu", owner);
	SP_ST_OK(sp_lock_released(core, 7, L3, SP_HOLD_EXCL));

	sp_rec_host_run(h);
	sp_core_stats(core, &st);
	SP_ST_CHECK(st.fast_tracks == st.restores && st.boosted_now == 0,
		    "fast_tracks=%llu restores=%llu boosted_now=%llu",
		    st.fast_tracks, st.restores, st.boosted_now);
	SP_ST_CHECK(st.owner_updates >= 4 && st.reader_overflows >= 1 && st.bad_events == 0 &&
		    st.deadlocks == 0,
		    "owner_updates=%llu reader_overflows=%llu bad_events=%llu deadlocks=%llu",
		    st.owner_updates, st.reader_overflows, st.bad_events, st.deadlocks);
	SP_ST_CHECK(st.acquires == 4 && st.releases == 4, "acquires=%llu releases=%llu",
		    st.acquires, st.releases);
	SP_ST_CHECK(h->fast_tracks == h->restores && h->fast_tracks == st.fast_tracks &&
		    h->bad_calls == 0,
		    "recorded %llu fast tracks, %llu restores, %llu bad calls",
		    h->fast_tracks, h->restores, h->bad_calls);
out:
	return ret;
}

int sp_selftest_run(void)
{
	struct sp_rec_host *h;
	struct sp_config cfg;
	int ret;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	sp_config_default(&cfg);
	cfg.max_tasks = 16;
	cfg.max_locks = 16;
	cfg.max_grants = 16;
	cfg.readers_per_lock = 2;
	cfg.max_depth = 4;
	ret = sp_rec_host_create(h, SP_REC_QUEUED, SP_ST_TIDS, &cfg);
	if (ret)
		pr_err("superpass: self-test: sp_rec_host_create returned %d\n", ret);
	else
		ret = sp_st_run(h);
	sp_rec_host_destroy(h);
	kfree(h);
	return ret;
}
