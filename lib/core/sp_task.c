// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Task events: registration, critical marking, exit. */
#include "sp_internal.h"

void sp_task_set_block_start(struct sp_core *core, struct sp_task *t, uint64_t start)
{
	uint64_t old = sp_atomic_xchg(&t->block_start, start);

	if (old && !start)
		sp_atomic_dec_checked(&core->critical_blocked);
	else if (!old && start)
		sp_atomic_add(&core->critical_blocked, 1);
}

int sp_task_register(struct sp_core *core, sp_tid_t tid)
{
	int rc = 0;

	if (!core || !tid)
		return -EINVAL;
	sp_rcu_read_lock();
	if (!sp_task_get(core, tid))
		rc = -ENOSPC;
	sp_rcu_read_unlock();
	return rc;
}

int sp_task_set_critical(struct sp_core *core, sp_tid_t tid, bool critical)
{
	struct sp_task *t;
	int rc = 0;

	if (!core || !tid)
		return -EINVAL;
	sp_rcu_read_lock();
	t = critical ? sp_task_get(core, tid) : sp_task_find(core, tid);
	if (t)
		sp_atomic_store(&t->critical, critical);
	else if (critical)
		rc = -ENOSPC;
	sp_rcu_read_unlock();
	return rc;
}

int sp_task_is_critical(struct sp_core *core, sp_tid_t tid)
{
	struct sp_task *t;
	int rc;

	if (!core || !tid)
		return -EINVAL;
	sp_rcu_read_lock();
	t = sp_task_find(core, tid);
	rc = t ? (int)sp_atomic_load(&t->critical) : -ENOENT;
	sp_rcu_read_unlock();
	return rc;
}

int sp_task_fast_tracked(struct sp_core *core, sp_tid_t tid)
{
	struct sp_task *t;
	int rc = -ENOENT;

	if (!core || !tid)
		return -EINVAL;
	sp_rcu_read_lock();
	t = sp_task_find(core, tid);
	if (t) {
		sp_os_lock(&t->boost_lock);
		rc = t->want_boost;
		sp_os_unlock(&t->boost_lock);
	}
	sp_rcu_read_unlock();
	return rc;
}

/* Drops @tid from every lock it holds. Exit is rare; a scan is cheaper than
 * keeping a held-lock list on every acquire. */
static void sp_task_release_all(struct sp_core *core, sp_tid_t tid)
{
	uint32_t i;

	for (i = 0; i < core->lock_index.capacity; i++) {
		struct sp_lock *l = &core->locks[i];

		if (!sp_table_slot_key(&core->lock_index, i))
			continue;
		sp_atomic_cmpxchg(&l->owner, tid, 0);
		while (sp_tracker_remove(&l->readers, tid))
			;
	}
}

int sp_task_exit(struct sp_core *core, sp_tid_t tid)
{
	struct sp_grant_match m = { .any_role = tid };
	struct sp_task *t;
	sp_lock_key_t lock;
	int slot;

	if (!core || !tid)
		return -EINVAL;
	sp_rcu_read_lock();
	slot = sp_table_find(&core->task_index, tid);
	if (slot < 0) {
		sp_rcu_read_unlock();
		return -ENOENT;
	}
	t = &core->tasks[slot];

	/* From here no grant can take a new reference on t. */
	sp_os_lock(&t->boost_lock);
	t->dead = true;
	sp_os_unlock(&t->boost_lock);

	lock = sp_atomic_xchg(&t->blocked_on, 0);
	sp_task_set_block_start(core, t, 0);
	if (lock) {
		struct sp_lock *l = sp_lock_find(core, lock);

		sp_atomic_add(&t->block_seq, 1);
		if (l)
			sp_tracker_exit(&l->waiters, tid);
	}
	if (sp_atomic_load(&t->acquires) || sp_atomic_load(&t->word_owned))
		sp_task_release_all(core, tid);
	sp_grants_end_matching(core, &m, SP_END_EXIT);
	/* A grant still being created when t turned dead holds a reference
	 * that its own validity check will drop; the boost must go now. */
	sp_task_force_restore(core, t, tid);

	sp_atomic_add(&core->counters[SP_C_acquires], sp_atomic_xchg(&t->acquires, 0));
	sp_atomic_add(&core->counters[SP_C_releases], sp_atomic_xchg(&t->releases, 0));
	sp_table_retire(&core->task_index, (uint32_t)slot, tid);
	sp_rcu_read_unlock();
	return 0;
}
