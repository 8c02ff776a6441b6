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

/* @glibc_owner: the exclusive owner glibc records in the lock word (0 if
 * none). A lock the core has never seen (taken before the runtime existed,
 * or on a path that is not instrumented) has no owner in the graph: tell
 * the core who holds it so the policy can act. A lock the core knows is
 * left alone: its owner is reported by the owner itself, and a release is
 * reported before glibc's unlock, so glibc's owner field may lag. */
void sp_instr_blocked(sp_tid_t self, const void *lock, enum sp_hold hold,
		      sp_tid_t glibc_owner)
{
	struct sp_core *core = sp_ev_core();
	sp_lock_key_t key = (sp_lock_key_t)(uintptr_t)lock;

	if (!core)
		return;
	sp_rt_enter();
	sp_rt_thread_check_name(core);
	if (glibc_owner && glibc_owner != self) {
		sp_tid_t known = 0;

		if (sp_lock_owner(core, key, &known) == -ENOENT)
			sp_lock_acquired(core, glibc_owner, key, SP_HOLD_EXCL);
	}
	sp_lock_blocked(core, self, key, hold);
	sp_rt_leave();
}

void sp_instr_unblocked(sp_tid_t self, const void *lock, enum sp_hold hold, bool acquired)
{
	struct sp_core *core = sp_ev_core();
	sp_lock_key_t key = (sp_lock_key_t)(uintptr_t)lock;

	if (!core)
		return;
	sp_rt_enter();
	sp_lock_unblocked(core, self, key, acquired);
	if (acquired)
		sp_lock_acquired(core, self, key, hold);
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
