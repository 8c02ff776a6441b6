// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Time-driven limits on fast tracks. A grant lives at most budget_ns; a task
 * may be fast-tracked for at most throttle_permille of each
 * throttle_window_ns, after which all its grants end and new ones are
 * refused until the window closes. Neither needs the blocked thread: the
 * host calls sp_core_tick() from its own timer or thread, which also
 * refreshes long waits of critical tasks.
 */
#include "sp_internal.h"

/* true if @g's target just went over its share (and is now throttled). */
static bool sp_tick_throttle(struct sp_core *core, struct sp_grant *g, uint64_t now)
{
	uint64_t window = core->cfg.throttle_window_ns;
	struct sp_task *t;
	bool over = false;

	if (!window)
		return false;
	t = sp_grant_target(core, g);
	if (!t)
		return false;
	sp_os_lock(&t->boost_lock);
	sp_throttle_roll(core, t, now);
	if (t->boosted && now >= t->throttled_until &&
	    sp_throttle_used(t, now) * 1000 > window * core->cfg.throttle_permille) {
		t->throttled_until = t->window_start + window;
		over = true;
	}
	sp_os_unlock(&t->boost_lock);
	return over;
}

/*
 * Critical tasks that have waited longer than SP_REFRESH_NS are walked
 * again: a throttle or a budget cool-down may have ended, the lock may have
 * changed hands without an event (a kernel mutex handoff), or its owner may
 * have taken it in the very instant the wait began (the acquire path has no
 * full barrier). Grants that already exist are skipped, so a refresh costs
 * a walk.
 */
#define SP_REFRESH_NS 1000000ull

static void sp_tick_refresh(struct sp_core *core, uint64_t now)
{
	uint32_t i;

	for (i = 0; i < core->task_index.capacity; i++) {
		struct sp_task *t = &core->tasks[i];
		uint64_t start = sp_atomic_load(&t->block_start);
		sp_lock_key_t lock = sp_atomic_load_acquire(&t->blocked_on);
		sp_tid_t tid;

		if (!start || !lock || now - start < SP_REFRESH_NS)
			continue;
		tid = sp_table_slot_key(&core->task_index, i);
		if (tid)
			sp_policy_on_block(core, tid, t, lock);
	}
}

bool sp_core_needs_tick(struct sp_core *core)
{
	return core && (sp_atomic_load(&core->grants_active) ||
			sp_atomic_load(&core->critical_blocked));
}

int sp_core_tick(struct sp_core *core)
{
	uint64_t budget, now;
	uint32_t i, n, ended = 0;
	enum sp_end_reason why;

	if (!core)
		return -EINVAL;
	if (!sp_core_needs_tick(core))
		return 0;
	budget = core->cfg.budget_ns;
	now = sp_now(core);

	sp_rcu_read_lock();
	n = sp_grant_scan_limit(core);
	for (i = 0; i < n; i++) {
		struct sp_grant *g = &core->grants[i];
		uint64_t word = sp_atomic_load_acquire(&g->state);

		if (sp_grant_state_of(word) != SP_GRANT_ACTIVE)
			continue;
		if (budget && now - sp_atomic_load(&g->start) >= budget) {
			ended += sp_grant_end(core, g, word, SP_END_EXPIRY);
		} else if (sp_tick_throttle(core, g, now)) {
			struct sp_grant_match m = { .target = sp_atomic_load(&g->target) };

			sp_count(core, SP_C_throttles);
			ended += sp_grants_end_matching(core, &m, SP_END_THROTTLE);
		} else if (!sp_grant_valid(core, g, &why)) {
			/* A lost release or unblock must not pin a boost. */
			ended += sp_grant_end(core, g, word, why);
		}
	}
	if (sp_atomic_load(&core->critical_blocked))
		sp_tick_refresh(core, now);
	sp_rcu_read_unlock();
	return (int)ended;
}
