// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Counters and the blocking-duration histogram of critical tasks. */
#include "sp_internal.h"

static void sp_atomic_min(sp_atomic64_t *a, uint64_t v)
{
	uint64_t cur;

	for (cur = sp_atomic_load(a); v < cur; cur = sp_atomic_load(a))
		if (sp_atomic_cmpxchg(a, cur, v))
			return;
}

static void sp_atomic_max(sp_atomic64_t *a, uint64_t v)
{
	uint64_t cur;

	for (cur = sp_atomic_load(a); v > cur; cur = sp_atomic_load(a))
		if (sp_atomic_cmpxchg(a, cur, v))
			return;
}

void sp_stats_record_blocking(struct sp_core *core, uint64_t ns)
{
	sp_atomic_add(&core->hist_buckets[sp_hist_index(ns)], 1);
	sp_atomic_add(&core->hist_count, 1);
	sp_atomic_add(&core->hist_sum, ns);
	sp_atomic_min(&core->hist_min, ns);
	sp_atomic_max(&core->hist_max, ns);
}

void sp_core_blocking_hist(struct sp_core *core, struct sp_hist *out)
{
	uint32_t i;

	sp_hist_init(out);
	if (!core)
		return;
	for (i = 0; i < SP_HIST_BUCKETS; i++)
		out->buckets[i] = sp_atomic_load(&core->hist_buckets[i]);
	out->count = sp_atomic_load(&core->hist_count);
	out->sum = sp_atomic_load(&core->hist_sum);
	out->min = sp_atomic_load(&core->hist_min);
	out->max = sp_atomic_load(&core->hist_max);
}

void sp_core_stats(struct sp_core *core, struct sp_stats *out)
{
	uint64_t c[SP_C_NR];
	uint32_t i;

	memset(out, 0, sizeof(*out));
	if (!core)
		return;
	for (i = 0; i < SP_C_NR; i++)
		c[i] = sp_atomic_load(&core->counters[i]);
	/* Acquire/release counts live in the task entries (no shared cache
	 * line on the hot path) until the task exits. */
	sp_rcu_read_lock();
	for (i = 0; i < core->task_index.capacity; i++) {
		if (!sp_table_slot_key(&core->task_index, i))
			continue;
		c[SP_C_ACQUIRES] += sp_atomic_load(&core->tasks[i].acquires);
		c[SP_C_RELEASES] += sp_atomic_load(&core->tasks[i].releases);
	}
	sp_rcu_read_unlock();

	out->acquires = c[SP_C_ACQUIRES];
	out->releases = c[SP_C_RELEASES];
	out->blocks = c[SP_C_BLOCKS];
	out->unblocks = c[SP_C_UNBLOCKS];
	out->blockings = c[SP_C_BLOCKINGS];
	out->grants = c[SP_C_GRANTS];
	out->grant_dups = c[SP_C_GRANT_DUPS];
	out->grants_refused = c[SP_C_GRANTS_REFUSED];
	out->fast_tracks = c[SP_C_FAST_TRACKS];
	out->restores = c[SP_C_RESTORES];
	out->actuator_errors = c[SP_C_ACTUATOR_ERRORS];
	out->ends_release = c[SP_C_ENDS_RELEASE];
	out->ends_unblock = c[SP_C_ENDS_UNBLOCK];
	out->ends_exit = c[SP_C_ENDS_EXIT];
	out->expiries = c[SP_C_EXPIRIES];
	out->throttles = c[SP_C_THROTTLES];
	out->ends_throttle = c[SP_C_ENDS_THROTTLE];
	out->deadlocks = c[SP_C_DEADLOCKS];
	out->depth_limited = c[SP_C_DEPTH_LIMITED];
	out->task_overflows = c[SP_C_TASK_OVERFLOWS];
	out->lock_overflows = c[SP_C_LOCK_OVERFLOWS];
	out->grant_overflows = c[SP_C_GRANT_OVERFLOWS];
	out->reader_overflows = c[SP_C_READER_OVERFLOWS];
	out->waiter_overflows = c[SP_C_WAITER_OVERFLOWS];
	out->stale_events = c[SP_C_STALE_EVENTS];
	out->tasks_now = sp_table_live(&core->task_index);
	out->locks_now = sp_table_live(&core->lock_index);
	out->grants_now = sp_atomic_load(&core->grants_active);
	out->boosted_now = c[SP_C_BOOSTED_NOW];
}
