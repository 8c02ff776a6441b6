// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Lock events from the instrumented locks to the core. Every call into the
 * core runs under the re-entrancy guard: a lock taken inside it (liburcu's,
 * as a thread registers as a reader) must not report to the core again,
 * and the actuator work the core queues waits for sp_rt_leave.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "sp_instr_holds.h"

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

	sp_rt_enter();
	sp_wk_released(lock); /* after the unlock, as the core's restore */
	if (core)
		sp_lock_released(core, self, (sp_lock_key_t)(uintptr_t)lock, hold);
	sp_rt_leave();
}

/*
 * @owner_of reads the exclusive owner glibc records in the lock word (0 if
 * none). The core does not know it: uncontended acquires are not reported
 * (sp_instr_watch.c), and even when they are, the owner may have taken the
 * lock with a trylock and been preempted before reporting it. The block event
 * carries the word; the core decides what to make of it
 * (sp_lock_blocked_owner). The word is read after a critical wait is
 * counted (sp_iw_wait_begins: from then on new owners report), and read
 * again after the report, which is repeated (cheap: same wait) only if the
 * word changed meanwhile. For an rwlock a critical or fast-tracked waiter
 * then reports the readers other threads listed (sp_iw_scan_readers).
 * Nobody else scans: the scan holds the thread table's mutex, and a low
 * priority reader preempted in its scan would keep the critical writer
 * waiting on that mutex.
 */
void sp_instr_blocked(sp_tid_t self, const void *lock, enum sp_hold hold,
		      sp_tid_t (*owner_of)(const void *lock), bool rwlock)
{
	struct sp_core *core = sp_ev_core();
	sp_lock_key_t key = (sp_lock_key_t)(uintptr_t)lock;
	sp_tid_t owner, again;
	bool watching;

	if (!core)
		return;
	sp_rt_enter();
	sp_rt_thread_check_name(core);
	watching = sp_iw_wait_begins(core, lock, rwlock);
	if (sp_rt_self_state.critical)
		sp_wk_direct_begin(core);
	owner = owner_of(lock);
	sp_lock_blocked_owner(core, self, key, hold, true, owner);
	again = owner_of(lock);
	if (again != owner)
		sp_lock_blocked_owner(core, self, key, hold, true, again);
	if (sp_rt_self_state.critical)
		sp_wk_wait_started();
	if (watching)
		sp_iw_scan_readers(core, lock);
	if (sp_rt_self_state.direct_on)
		sp_wk_direct_end(core);
	sp_rt_leave();
}

/* The same wait, the lock word now naming @owner: reported again with it
 * (the core keeps the wait's start and re-runs the policy for the new
 * holder). */
void sp_instr_blocked_again(sp_tid_t self, const void *lock, enum sp_hold hold, sp_tid_t owner)
{
	struct sp_core *core = sp_ev_core();

	if (!core)
		return;
	sp_rt_enter();
	sp_lock_blocked_owner(core, self, (sp_lock_key_t)(uintptr_t)lock, hold, true, owner);
	sp_rt_leave();
}

/* One event: with @acquired the core also records the acquire, which goes
 * in our list so that its release is reported. */
void sp_instr_unblocked(sp_tid_t self, const void *lock, enum sp_hold hold, bool acquired)
{
	struct sp_core *core = sp_ev_core();
	sp_lock_key_t key = (sp_lock_key_t)(uintptr_t)lock;

	sp_iw_wait_ends();
	sp_rt_enter();
	if (acquired && !sp_iw_list_reported(lock, hold))
		acquired = false; /* list full: the core must not keep a hold it never hears end */
	sp_wk_wait_done(lock, acquired); /* its release is heard only if listed */
	if (core)
		sp_lock_unblocked(core, self, key, acquired);
	sp_rt_leave();
}

/* The end of a wait whose reader listed the lock before it blocked
 * (sp_iw_read_pending): the core records the acquire unless a scan
 * already reported it; a failed wait takes back what a scan reported. */
void sp_instr_read_unblocked(sp_tid_t self, const void *lock, int slot, bool acquired)
{
	struct sp_core *core = sp_ev_core();
	sp_lock_key_t key = (sp_lock_key_t)(uintptr_t)lock;
	bool told;

	sp_iw_wait_ends();
	sp_rt_enter();
	told = sp_iw_read_pending_done(slot, lock, acquired);
	sp_wk_wait_done(lock, acquired && told);
	if (core) {
		if (!acquired && told)
			sp_lock_released(core, self, key, SP_HOLD_SHARED);
		sp_lock_unblocked(core, self, key, acquired && told);
	}
	sp_rt_leave();
}

void sp_instr_lock_destroyed(const void *lock)
{
	struct sp_core *core = sp_ev_core();

	if (!core || sp_rt_guarded())
		return;
	sp_iw_lock_destroyed(lock);
	sp_rt_enter();
	sp_lock_destroyed(core, (sp_lock_key_t)(uintptr_t)lock);
	sp_rt_leave();
}
