// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Futex words the program drives itself through syscall(SYS_futex, ...):
 * GLib's GMutex, Rust's std locks, hand-written locks. What the core hears:
 *   - a wait (FUTEX_WAIT, WAIT_BITSET) on a word: a block on a futex lock
 *     whose holder the core guesses (SP_LOCK_FUTEX, lib/core), and its end;
 *     a return that did not time out makes the caller a candidate holder;
 *   - a wake (FUTEX_WAKE, WAKE_BITSET) of a word some wait made known: the
 *     waker let the word go, and is a candidate for the next time;
 *   - a PI wait (LOCK_PI, LOCK_PI2): the word is the owner's tid, exactly;
 *     a block with that owner, and the acquire if the call took it (an
 *     owner read from a word, which the next word read may replace: an
 *     uncontended unlock makes no system call); UNLOCK_PI its release.
 * A critical waiter applies the fast tracks it grants before it sleeps, as
 * for a pthread mutex (sp_worker.c). Its own raise is not kept past the
 * wait: the release of a futex word is seen only when it wakes someone.
 */
#define _GNU_SOURCE
#include <errno.h>

#include "sp_instr_futex.h"
#include "sp_rt.h"

/* Set by the first reported wait: until then no wake can be of a known
 * word, and wakes skip the lookup. */
static bool sp_fx_waits_seen;

static inline sp_lock_key_t sp_fx_key(const void *uaddr)
{
	return (sp_lock_key_t)(uintptr_t)uaddr;
}

bool sp_instr_futex_wait_begin(const void *uaddr, bool pi, sp_tid_t owner)
{
	struct sp_core *core;
	sp_tid_t self;

	if (sp_rt_guarded() || !(core = sp_rt_core()))
		return false;
	sp_rt_enter();
	self = sp_rt_thread(core);
	if (!self || (pi && owner == self)) {
		sp_rt_leave();
		return false;
	}
	sp_rt_thread_check_name(core);
	if (!__atomic_load_n(&sp_fx_waits_seen, __ATOMIC_RELAXED))
		__atomic_store_n(&sp_fx_waits_seen, true, __ATOMIC_RELAXED);
	if (sp_rt_self_state.critical)
		sp_wk_direct_begin(core);
	if (pi) {
		sp_lock_blocked_owner(core, self, sp_fx_key(uaddr), SP_HOLD_EXCL, true, owner);
	} else {
		sp_lock_declare(core, sp_fx_key(uaddr), SP_LOCK_FUTEX);
		sp_lock_blocked(core, self, sp_fx_key(uaddr), SP_HOLD_EXCL);
	}
	if (sp_rt_self_state.critical)
		sp_wk_wait_started();
	if (sp_rt_self_state.direct_on)
		sp_wk_direct_end(core);
	sp_rt_leave();
	return true;
}

void sp_instr_futex_wait_end(const void *uaddr, bool acquired)
{
	struct sp_core *core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE);

	sp_rt_enter();
	sp_wk_wait_done(uaddr, false);
	/* a PI word taken is its owner's until UNLOCK_PI or the next word
	 * read; a plain word's waiter back from its wait is a candidate */
	if (core)
		sp_lock_unblocked(core, sp_rt_self_state.tid, sp_fx_key(uaddr), acquired);
	sp_rt_leave();
}

void sp_instr_futex_woke(const void *uaddr)
{
	struct sp_core *core;
	sp_tid_t owner;

	if (!__atomic_load_n(&sp_fx_waits_seen, __ATOMIC_RELAXED) || sp_rt_guarded() ||
	    !(core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE)))
		return;
	/* Only a word some wait made known: wakes of condition variables,
	 * events and the like cost a lookup, nothing more. */
	if (sp_lock_owner(core, sp_fx_key(uaddr), &owner) == -ENOENT)
		return;
	sp_rt_enter();
	sp_lock_released(core, sp_rt_thread(core), sp_fx_key(uaddr), SP_HOLD_EXCL);
	sp_rt_leave();
}
