// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Creation, teardown and table lookups of the core. */
#include "sp_internal.h"

static void sp_core_free(struct sp_core *core)
{
	uint32_t i;

	if (core->tasks) {
		for (i = 0; i < core->task_index.capacity; i++)
			sp_os_lock_destroy(&core->tasks[i].boost_lock);
		sp_os_free(core->tasks);
	}
	sp_os_free(core->locks);
	sp_os_free(core->tracker_slots);
	sp_os_free(core->grants);
	sp_os_free(core->hist_buckets);
	sp_table_destroy(&core->task_index);
	sp_table_destroy(&core->lock_index);
	sp_os_free(core);
}

int sp_core_create(const struct sp_config *cfg, const struct sp_host_ops *ops, void *ctx,
		   struct sp_core **out)
{
	struct sp_core *core;
	struct sp_config defaults;
	uint32_t i, per_lock;
	int rc;

	if (!out || !ops || !ops->now_ns || !ops->fast_track || !ops->restore)
		return -EINVAL;
	*out = NULL;
	if (!cfg) {
		sp_config_default(&defaults);
		cfg = &defaults;
	}
	rc = sp_config_check(cfg);
	if (rc)
		return rc;

	core = sp_os_zalloc(sizeof(*core));
	if (!core)
		return -ENOMEM;
	core->cfg = *cfg;
	core->ops = *ops;
	core->ctx = ctx;

	rc = sp_table_create(&core->task_index, cfg->max_tasks);
	if (!rc)
		rc = sp_table_create(&core->lock_index, cfg->max_locks);
	if (rc)
		goto fail;
	rc = -ENOMEM;
	core->tasks = sp_os_zalloc((size_t)core->task_index.capacity * sizeof(*core->tasks));
	core->locks = sp_os_zalloc((size_t)core->lock_index.capacity * sizeof(*core->locks));
	per_lock = cfg->readers_per_lock + cfg->waiters_per_lock;
	core->tracker_slots = sp_os_zalloc((size_t)core->lock_index.capacity * per_lock *
					   sizeof(*core->tracker_slots));
	core->grants = sp_os_zalloc((size_t)cfg->max_grants * sizeof(*core->grants));
	core->hist_buckets = sp_os_zalloc(SP_HIST_BUCKETS * sizeof(*core->hist_buckets));
	if (!core->tasks || !core->locks || !core->tracker_slots || !core->grants ||
	    !core->hist_buckets)
		goto fail;

	for (i = 0; i < core->task_index.capacity; i++)
		sp_os_lock_init(&core->tasks[i].boost_lock);
	for (i = 0; i < core->lock_index.capacity; i++) {
		sp_atomic64_t *slots = core->tracker_slots + (size_t)i * per_lock;

		sp_tracker_bind(&core->locks[i].readers, slots, cfg->readers_per_lock);
		sp_tracker_bind(&core->locks[i].waiters, slots + cfg->readers_per_lock,
				cfg->waiters_per_lock);
	}
	sp_atomic_store(&core->hist_min, UINT64_MAX);
	*out = core;
	return 0;
fail:
	sp_core_free(core);
	return rc;
}

void sp_core_destroy(struct sp_core *core)
{
	struct sp_grant_match all = { 0 };
	struct sp_stats st;

	if (!core)
		return;
	/* Nothing may stay fast-tracked once the core is gone. */
	sp_grants_end_matching(core, &all, SP_END_EXIT);
	sp_core_stats(core, &st);
	sp_core_report_boosts(&st);
	sp_core_free(core);
}

const struct sp_config *sp_core_config(const struct sp_core *core)
{
	return &core->cfg;
}

static void sp_task_init_slot(void *arg, uint32_t slot)
{
	struct sp_core *core = arg;
	struct sp_task *t = &core->tasks[slot];

	sp_atomic_store(&t->critical, 0);
	sp_atomic_store(&t->blocked_on, 0);
	sp_atomic_store(&t->block_seq, 0);
	sp_atomic_store(&t->block_start, 0);
	sp_atomic_store(&t->refs, 0);
	sp_atomic_store(&t->acquires, 0);
	sp_atomic_store(&t->word_owned, 0);
	sp_atomic_store(&t->releases, 0);
	sp_atomic_add(&t->gen, 1);
	sp_atomic_store(&t->applying, 0);
	sp_atomic_store(&t->dl_sig, 0);
	sp_atomic_store(&t->dl_since, 0);
	sp_atomic_store(&t->dl_told, 0);
	sp_os_lock(&t->boost_lock);
	t->dead = false;
	t->want_boost = false;
	t->boosted = false;
	t->boost_start = 0;
	t->window_start = 0;
	t->window_used = 0;
	t->throttled_until = 0;
	t->spent_waiter = 0;
	t->spent_until = 0;
	sp_os_unlock(&t->boost_lock);
}

static void sp_lock_init_slot(void *arg, uint32_t slot)
{
	struct sp_core *core = arg;
	struct sp_lock *l = &core->locks[slot];

	sp_atomic_store(&l->kind, SP_LOCK_UNKNOWN);
	sp_atomic_store(&l->owner, 0);
	sp_tracker_reset(&l->readers);
	sp_tracker_reset(&l->waiters);
	sp_atomic_store(&l->cand_next, 0);
}

/* Slot of @key in @index, inserting it if missing; a full table is
 * counted in @overflow. The plain lookup comes first because on the event
 * path the key is almost always there, and sp_table_insert's own checks
 * would cost every hit. */
static int sp_index_get(struct sp_core *core, struct sp_table *index, uint64_t key,
			sp_table_init_fn init, enum sp_counter overflow)
{
	bool created;
	int slot = sp_table_find(index, key);

	if (sp_likely(slot >= 0))
		return slot;
	slot = sp_table_insert(index, key, init, core, &created);
	if (slot == -ENOSPC)
		sp_count(core, overflow);
	return slot;
}

struct sp_task *sp_task_find(struct sp_core *core, sp_tid_t tid)
{
	int slot = sp_table_find(&core->task_index, tid);

	return slot >= 0 ? &core->tasks[slot] : NULL;
}

struct sp_task *sp_task_get(struct sp_core *core, sp_tid_t tid)
{
	int slot = sp_index_get(core, &core->task_index, tid, sp_task_init_slot,
				SP_C_task_overflows);

	return slot >= 0 ? &core->tasks[slot] : NULL;
}

struct sp_lock *sp_lock_find(struct sp_core *core, sp_lock_key_t key)
{
	int slot = sp_table_find(&core->lock_index, key);

	return slot >= 0 ? &core->locks[slot] : NULL;
}

struct sp_lock *sp_lock_get(struct sp_core *core, sp_lock_key_t key)
{
	int slot = sp_index_get(core, &core->lock_index, key, sp_lock_init_slot,
				SP_C_lock_overflows);

	return slot >= 0 ? &core->locks[slot] : NULL;
}

int sp_core_reclaim(struct sp_core *core)
{
	if (!core)
		return -EINVAL;
	return (int)(sp_table_reclaim(&core->task_index) + sp_table_reclaim(&core->lock_index));
}
