// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Counters and the blocking-duration histogram of critical tasks. */
#include "sp_hist_index.h"
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
		c[SP_C_acquires] += sp_atomic_load(&core->tasks[i].acquires);
		c[SP_C_releases] += sp_atomic_load(&core->tasks[i].releases);
	}
	sp_rcu_read_unlock();

#define SP_STATS_COPY(name, kind, help) out->name = c[SP_C_##name];
	SP_STATS_FIELDS(SP_STATS_COPY)
#undef SP_STATS_COPY
	out->tasks_now = sp_table_live(&core->task_index);
	out->locks_now = sp_table_live(&core->lock_index);
	out->grants_now = sp_atomic_load(&core->grants_active);
}

int sp_core_report_boosts(const struct sp_stats *st)
{
	int n = 0;

	n += SP_REPORT(st->fast_tracks != st->restores + st->boosted_now,
		       "boost counts do not add up: fast_tracks %llu != restores %llu + "
		       "boosted_now %llu",
		       (unsigned long long)st->fast_tracks, (unsigned long long)st->restores,
		       (unsigned long long)st->boosted_now);
	n += SP_REPORT(st->boosted_now != 0, "%llu tasks still fast-tracked after the last restore",
		       (unsigned long long)st->boosted_now);
	return n;
}
