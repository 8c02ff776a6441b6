// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The portable core on its own: a scripted scenario (a UI thread, a chain
 * of lock holders, an rwlock with more readers than the tracker follows),
 * a clock moved by hand, and an actuator that prints what the policy
 * decides. No thread is really boosted: this is the policy, offline.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <superpass/core.h>
#include <superpass/rec_host.h>

#define MS 1000000ull
#define T0 (1000 * MS)

/* The recording host's worker runs after each step, as a real host's
 * would, and says what it would change. */
static void demo_change(struct sp_rec_host *h, sp_tid_t tid, bool boosted)
{
	printf("  %6.1f ms  %-10s tid %llu\n", (double)(h->now - T0) / MS,
	       boosted ? "fast-track" : "restore", (unsigned long long)tid);
}

static void show_blockers(struct sp_core *core, sp_tid_t tid)
{
	struct sp_walk_result r;
	sp_tid_t out[16];

	if (sp_graph_blockers(core, tid, out, 16, &r) < 0)
		return;
	printf("  blockers of tid %llu:", (unsigned long long)tid);
	for (uint32_t i = 0; i < r.nr; i++)
		printf(" %llu", (unsigned long long)out[i]);
	printf("%s\n", r.deadlock ? " (deadlock)" : "");
}

int main(void)
{
	struct sp_rec_host host;
	enum { UI = 100, LOG = 201, DB = 202, R1 = 301 };
	const sp_lock_key_t log_lock = 0x1000, db_lock = 0x2000, cfg_lock = 0x3000;
	struct sp_hist *hist = malloc(sizeof(*hist));
	struct sp_config cfg;
	struct sp_core *core;
	struct sp_stats st;
	int rc;

	sp_config_default(&cfg);
	cfg.readers_per_lock = 2;
	rc = sp_rec_host_create(&host, SP_REC_QUEUED, 1024, &cfg);
	if (rc < 0 || !hist) {
		fprintf(stderr, "sp_policy_demo: cannot create the core: %s\n",
			strerror(rc < 0 ? -rc : ENOMEM));
		return 1;
	}
	host.now = T0;
	host.on_change = demo_change;
	core = host.core;
	sp_task_set_critical(core, UI, true);

	puts("1. chain: UI waits for log_lock (held by LOG), LOG waits for db_lock (held by DB)");
	sp_lock_acquired(core, LOG, log_lock, SP_HOLD_EXCL);
	sp_lock_acquired(core, DB, db_lock, SP_HOLD_EXCL);
	sp_lock_blocked(core, LOG, db_lock, SP_HOLD_EXCL);
	sp_lock_blocked(core, UI, log_lock, SP_HOLD_EXCL);
	sp_rec_host_run(&host);
	show_blockers(core, UI);
	host.now += 2 * MS;
	sp_lock_released(core, DB, db_lock, SP_HOLD_EXCL);
	sp_lock_unblocked(core, LOG, db_lock, true);
	sp_rec_host_run(&host);
	host.now += 1 * MS;
	sp_lock_released(core, LOG, db_lock, SP_HOLD_EXCL);
	sp_lock_released(core, LOG, log_lock, SP_HOLD_EXCL);
	sp_rec_host_run(&host);
	sp_lock_unblocked(core, UI, log_lock, true);
	sp_lock_released(core, UI, log_lock, SP_HOLD_EXCL);

	puts("2. rwlock: UI wants to write cfg_lock, four readers hold it, K = 2 are tracked");
	for (sp_tid_t r = R1; r < R1 + 4; r++)
		sp_lock_acquired(core, r, cfg_lock, SP_HOLD_SHARED);
	sp_lock_blocked(core, UI, cfg_lock, SP_HOLD_EXCL);
	sp_rec_host_run(&host);
	show_blockers(core, UI);
	puts("3. the readers stay too long: the 20 ms budget revokes their fast track");
	for (int i = 0; i < 25; i++) {
		host.now += 1 * MS;
		sp_core_tick(core);
		sp_rec_host_run(&host);
	}
	for (sp_tid_t r = R1; r < R1 + 4; r++)
		sp_lock_released(core, r, cfg_lock, SP_HOLD_SHARED);
	sp_lock_unblocked(core, UI, cfg_lock, true);
	sp_lock_released(core, UI, cfg_lock, SP_HOLD_EXCL);
	sp_rec_host_run(&host);

	sp_core_stats(core, &st);
	sp_core_blocking_hist(core, hist);
	printf("stats: blockings %llu, grants %llu, restores %llu, expiries %llu, "
	       "reader overflows %llu, boosted now %llu\n",
	       (unsigned long long)st.blockings, (unsigned long long)st.grants,
	       (unsigned long long)st.restores, (unsigned long long)st.expiries,
	       (unsigned long long)st.reader_overflows, (unsigned long long)st.boosted_now);
	printf("UI blocking: P50 %.1f ms, max %.1f ms\n",
	       (double)sp_hist_quantile(hist, 50, 100) / MS, (double)hist->max / MS);
	sp_rec_host_destroy(&host);
	free(hist);
	return 0;
}
