// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Lock events from the instrumented locks to the core. Every call into the
 * core runs under the re-entrancy guard: the core's own locks and liburcu
 * are pthread mutexes, which the interposer would otherwise instrument.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "sp_rt.h"

static inline struct sp_core *sp_ev_core(void)
{
	return __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE);
}

void sp_instr_acquired(sp_tid_t self, const void *lock, enum sp_hold hold)
{
	struct sp_core *core = sp_ev_core();

	if (!core)
		return;
	sp_rt_enter();
	sp_lock_acquired(core, self, (sp_lock_key_t)(uintptr_t)lock, hold);
	sp_rt_leave();
}

void sp_instr_released(sp_tid_t self, const void *lock, enum sp_hold hold)
{
	struct sp_core *core = sp_ev_core();

	if (!core)
		return;
	sp_rt_enter();
	sp_lock_released(core, self, (sp_lock_key_t)(uintptr_t)lock, hold);
	sp_rt_leave();
}

/*
 * @owner_of reads the exclusive owner glibc records in the lock word (0 if
 * none). The core may not know it yet: the owner took the lock with a
 * trylock and was preempted before reporting the acquire (seen on this
 * machine: a nice 19 holder stuck 67 ms in that window, so the critical
 * waiter found no owner and nobody was fast-tracked), or the lock was taken
 * on a path that is not instrumented. The block event carries the word;
 * the core decides what to make of it (sp_lock_blocked_owner). The word
 * can be stale by the time the core hears it, so it is read again after
 * the report, and the wait reported again (cheap: same wait) only if the
 * word changed meanwhile.
 */
void sp_instr_blocked(sp_tid_t self, const void *lock, enum sp_hold hold,
		      sp_tid_t (*owner_of)(const void *lock))
{
	struct sp_core *core = sp_ev_core();
	sp_lock_key_t key = (sp_lock_key_t)(uintptr_t)lock;
	sp_tid_t owner = owner_of(lock), again;

	if (!core)
		return;
	sp_rt_enter();
	sp_rt_thread_check_name(core);
	sp_lock_blocked_owner(core, self, key, hold, true, owner);
	again = owner_of(lock);
	if (again != owner)
		sp_lock_blocked_owner(core, self, key, hold, true, again);
	if (sp_rt_self_state.critical)
		sp_wk_wait_started();
	sp_rt_leave();
}

/* One event: with @acquired the core also records the acquire. */
void sp_instr_unblocked(sp_tid_t self, const void *lock, enum sp_hold hold, bool acquired)
{
	struct sp_core *core = sp_ev_core();
	sp_lock_key_t key = (sp_lock_key_t)(uintptr_t)lock;

	if (!core)
		return;
	sp_rt_enter();
	(void)hold; /* the core knows the wait's hold */
	sp_lock_unblocked(core, self, key, acquired);
	sp_rt_leave();
}

void sp_instr_lock_destroyed(const void *lock)
{
	struct sp_core *core = sp_ev_core();

	if (!core || sp_rt_guarded())
		return;
	sp_rt_enter();
	sp_lock_destroyed(core, (sp_lock_key_t)(uintptr_t)lock);
	sp_rt_leave();
}
