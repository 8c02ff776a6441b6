// SPDX-License-Identifier: GPL-2.0-only
/*
 * Load-time self-test: the core compiled for the kernel makes the same
 * decisions as in userspace. A private core with a recording actuator; a
 * chain (critical 3 waits for L2, held by 2, who waits for L1, held by 1)
 * and a reader case (critical 7 waits to write L3, read by 4, 5 and 6 with
 * K = 2); the walk, the grants and the restores are checked, then the core
 * is destroyed. Nothing here touches a real task: tids are made up and the
 * actuator only records.
 */
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "sp_kmod.h"

#define SP_ST_TIDS 16

struct sp_st_rec {
	int boosted[SP_ST_TIDS];   /* fast_track minus restore, per tid */
	unsigned int fast_tracks, restores;
	u64 now;
};

static u64 sp_st_now(void *ctx)
{
	return ((struct sp_st_rec *)ctx)->now;
}

static int sp_st_fast_track(void *ctx, sp_tid_t tid)
{
	struct sp_st_rec *r = ctx;

	if (tid >= SP_ST_TIDS)
		return -EINVAL;
	r->boosted[tid]++;
	r->fast_tracks++;
	return 0;
}

static int sp_st_restore(void *ctx, sp_tid_t tid)
{
	struct sp_st_rec *r = ctx;

	if (tid >= SP_ST_TIDS)
		return -EINVAL;
	r->boosted[tid]--;
	r->restores++;
	return 0;
}

static const struct sp_host_ops sp_st_ops = {
	.now_ns = sp_st_now,
	.fast_track = sp_st_fast_track,
	.restore = sp_st_restore,
};

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

int sp_selftest_run(void)
{
	static struct sp_st_rec rec;   /* init is single-threaded */
	const sp_lock_key_t L1 = 0x1000, L2 = 0x2000, L3 = 0x3000;
	struct sp_walk_result res;
	struct sp_core *core = NULL;
	struct sp_config cfg;
	struct sp_stats st;
	sp_tid_t out[8];
	int ret = 0, i;

	memset(&rec, 0, sizeof(rec));
	rec.now = 1000000;
	sp_config_default(&cfg);
	cfg.max_tasks = 16;
	cfg.max_locks = 16;
	cfg.max_grants = 16;
	cfg.readers_per_lock = 2;
	cfg.max_depth = 4;
	SP_ST_OK(sp_core_create(&cfg, &sp_st_ops, &rec, &core));

	/* Chain: 1 holds L1; 2 holds L2 and waits for L1; critical 3 waits for L2. */
	SP_ST_OK(sp_lock_declare(core, L1, SP_LOCK_MUTEX));
	SP_ST_OK(sp_lock_declare(core, L2, SP_LOCK_MUTEX));
	SP_ST_OK(sp_lock_acquired(core, 1, L1, SP_HOLD_EXCL));
	SP_ST_OK(sp_lock_acquired(core, 2, L2, SP_HOLD_EXCL));
	SP_ST_OK(sp_lock_blocked(core, 2, L1, SP_HOLD_EXCL));
	SP_ST_CHECK(rec.fast_tracks == 0, "non-critical waiter caused %u fast tracks",
		    rec.fast_tracks);
	SP_ST_OK(sp_task_register(core, 3));
	SP_ST_OK(sp_task_set_critical(core, 3, true));
	SP_ST_OK(sp_lock_blocked(core, 3, L2, SP_HOLD_EXCL));

	SP_ST_OK(sp_graph_blockers(core, 3, out, ARRAY_SIZE(out), &res));
	SP_ST_CHECK(res.nr == 2 && !res.deadlock, "nr=%u deadlock=%d", res.nr, res.deadlock);
	SP_ST_CHECK(sp_st_has(out, res.nr, 1) && sp_st_has(out, res.nr, 2),
		    "blockers %llu %llu", out[0], out[1]);
	SP_ST_CHECK(rec.boosted[1] == 1 && rec.boosted[2] == 1 && rec.boosted[3] == 0,
		    "boosted 1:%d 2:%d 3:%d", rec.boosted[1], rec.boosted[2], rec.boosted[3]);
	SP_ST_CHECK(sp_task_boosted(core, 1) == 1 && sp_task_boosted(core, 2) == 1,
		    "core says 1:%d 2:%d", sp_task_boosted(core, 1), sp_task_boosted(core, 2));

	/* The critical task stops waiting: both holders are restored. */
	SP_ST_OK(sp_lock_unblocked(core, 3, L2, false));
	SP_ST_CHECK(rec.boosted[1] == 0 && rec.boosted[2] == 0,
		    "after unblock 1:%d 2:%d", rec.boosted[1], rec.boosted[2]);

	/* Readers: K = 2 of 3 readers tracked; a critical writer boosts those two. */
	SP_ST_OK(sp_lock_declare(core, L3, SP_LOCK_RWLOCK));
	for (i = 4; i <= 6; i++)
		SP_ST_OK(sp_lock_acquired(core, i, L3, SP_HOLD_SHARED));
	{
		u32 untracked = 0;
		int n = sp_lock_readers(core, L3, out, ARRAY_SIZE(out), &untracked);

		SP_ST_CHECK(n == 2 && untracked == 1, "readers n=%d untracked=%u", n, untracked);
	}
	SP_ST_OK(sp_task_register(core, 7));
	SP_ST_OK(sp_task_set_critical(core, 7, true));
	SP_ST_OK(sp_lock_blocked(core, 7, L3, SP_HOLD_EXCL));
	SP_ST_CHECK(rec.boosted[4] + rec.boosted[5] + rec.boosted[6] == 2,
		    "reader boosts 4:%d 5:%d 6:%d", rec.boosted[4], rec.boosted[5],
		    rec.boosted[6]);
	/* Releasing restores that reader at once, the other on unblock. */
	for (i = 4; i <= 6; i++)
		SP_ST_OK(sp_lock_released(core, i, L3, SP_HOLD_SHARED));
	SP_ST_CHECK(rec.boosted[4] + rec.boosted[5] + rec.boosted[6] == 0,
		    "after release 4:%d 5:%d 6:%d", rec.boosted[4], rec.boosted[5],
		    rec.boosted[6]);
	SP_ST_OK(sp_lock_unblocked(core, 7, L3, true));

	sp_core_stats(core, &st);
	SP_ST_CHECK(st.fast_tracks == st.restores && st.boosted_now == 0,
		    "fast_tracks=%llu restores=%llu boosted_now=%llu",
		    st.fast_tracks, st.restores, st.boosted_now);
	SP_ST_CHECK(st.reader_overflows >= 1, "reader_overflows=%llu", st.reader_overflows);
	SP_ST_CHECK(rec.fast_tracks == 4 && rec.restores == 4,
		    "actuator saw %u fast tracks, %u restores", rec.fast_tracks, rec.restores);
out:
	if (core)
		sp_core_destroy(core);
	return ret;
}
