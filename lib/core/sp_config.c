// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "sp_internal.h"

void sp_config_default(struct sp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->max_tasks = 1024;
	cfg->max_locks = 4096;
	cfg->max_grants = 256;
	cfg->readers_per_lock = 4;
	cfg->waiters_per_lock = 8;
	cfg->max_depth = 8;
	cfg->budget_ns = 20ull * 1000 * 1000;
	cfg->throttle_window_ns = 100ull * 1000 * 1000;
	cfg->throttle_permille = 500;
	/* The runtime's measured choices (sp_wait_policy.c says why). */
	cfg->handoff_wait_ns = 4ull * 1000 * 1000;
	cfg->wait_raise_hold_ns = 4ull * 1000 * 1000;
	cfg->wait_raise_max = 4;
	cfg->wait_slice_ns = 100ull * 1000;
}

int sp_config_check(const struct sp_config *cfg)
{
	if (!cfg)
		return -EINVAL;
	if (cfg->max_tasks == 0 || cfg->max_tasks > (1u << 22))
		return -EINVAL;
	if (cfg->max_locks == 0 || cfg->max_locks > (1u << 24))
		return -EINVAL;
	if (cfg->max_grants == 0 || cfg->max_grants > (1u << 16))
		return -EINVAL;
	if (cfg->readers_per_lock == 0 || cfg->readers_per_lock > SP_MAX_READERS_PER_LOCK)
		return -EINVAL;
	if (cfg->waiters_per_lock == 0 || cfg->waiters_per_lock > SP_MAX_WAITERS_PER_LOCK)
		return -EINVAL;
	if (cfg->max_depth == 0 || cfg->max_depth > SP_MAX_DEPTH)
		return -EINVAL;
	if (cfg->throttle_window_ns &&
	    (cfg->throttle_permille == 0 || cfg->throttle_permille > 1000))
		return -EINVAL;
	/* window * permille must not overflow */
	if (cfg->throttle_window_ns > UINT64_MAX / 1000)
		return -EINVAL;
	if (cfg->handoff_wait_ns > SP_MAX_WAIT_BOUND_NS ||
	    cfg->wait_raise_hold_ns > SP_MAX_WAIT_BOUND_NS ||
	    cfg->wait_raise_max > SP_MAX_WAIT_RAISED)
		return -EINVAL;
	/* The range Linux takes for a fair thread's sched_runtime. */
	if (cfg->wait_slice_ns &&
	    (cfg->wait_slice_ns < SP_MIN_WAIT_SLICE_NS || cfg->wait_slice_ns > 100ull * 1000 * 1000))
		return -EINVAL;
	return 0;
}
