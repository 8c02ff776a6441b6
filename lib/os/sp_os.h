/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The one door from the portable core to its host operating system.
 *
 * lib/core includes this header and nothing else from the outside world.
 * It selects a shim that provides, with identical names and semantics:
 *
 *   types        uint8_t..uint64_t, int64_t, uintptr_t, size_t, bool,
 *                UINT32_MAX, UINT64_MAX (via <stdint.h>, <stddef.h>,
 *                <stdbool.h>, which the kernel build supplies itself)
 *   errors       EINVAL, ENOENT, ENOSPC, ENOMEM, EEXIST, EPERM, ESRCH,
 *                EDEADLK, EBUSY
 *   memory       sp_os_zalloc(size), sp_os_free(p): init/teardown only,
 *                may sleep; memset, memcpy
 *   atomics      sp_atomic64_t; sp_atomic_load / _load_acquire (relaxed /
 *                acquire), sp_atomic_store / _store_release, sp_atomic_add
 *                (relaxed, returns the new value), sp_atomic_cmpxchg (true
 *                on success; a full barrier on success only: a failed one
 *                orders nothing, as the kernel's atomic64_try_cmpxchg),
 *                sp_atomic_xchg (full barrier), sp_smp_mb(),
 *                sp_smp_mb__after_atomic() (a full barrier after an atomic
 *                read-modify-write: free where that already is one, as on
 *                x86). Every barrier in lib/ names what it pairs with.
 *   locks        sp_os_lock_t: a short, non-sleeping critical section that
 *                is safe in every context the core runs in. sp_os_lock_init,
 *                sp_os_lock_destroy, sp_os_lock, sp_os_unlock. In userspace
 *                a futex mutex of its own, never pthread_mutex_lock (which
 *                our interposer wraps); userspace hosts may use it too.
 *   futex        userspace only: sp_os_futex(word, op, val, ts, val3),
 *                sp_os_futex_wait(word, val), sp_os_futex_wake(word, n),
 *                made without libc's syscall() (which an interposer may
 *                wrap); a negative errno on failure.
 *   RCU          sp_rcu_read_lock / sp_rcu_read_unlock (never sleep, nest),
 *                sp_rcu_synchronize (sleeps; reclaim only)
 *   time         sp_os_now_ns(): a monotonic clock for hosts (the core itself
 *                only uses host->now_ns)
 *   hints        sp_likely, sp_unlikely, sp_os_spin_wait() (one pause of a
 *                busy-wait for another CPU; userspace may yield, since the
 *                thread waited for can be preempted)
 *   preemption   sp_os_nopreempt_begin / _end: a section that others may
 *                busy-wait on; in the kernel it must not be preempted
 *                (userspace cannot forbid it: no-ops there)
 *   checks       SP_ASSERT(cond), SP_ASSERT3U(a, op, b): a debug check that
 *                prints the expression and both operands when it fails
 *                (OpenZFS ASSERT3U). The kernel warns once and goes on;
 *                userspace aborts in SUPERPASS_DEBUG_CHECKS builds (tests,
 *                Debug) and prints and goes on otherwise.
 *                SP_REPORT(cond, fmt, ...): an always-on check that never
 *                stops anything: when @cond holds, the kernel warns once
 *                per call site, userspace prints one line "superpass: ..."
 *                on stderr; yields @cond. sp_atomic_dec_checked decrements
 *                a count that must not go below zero.
 */
#ifndef SP_OS_H
#define SP_OS_H

#ifdef __KERNEL__
#include "kernel/sp_os_kernel.h"
#else
#include "posix/sp_os_posix.h"
#endif

/* Decrements a count that is never below zero; yields the new value. A
 * decrement from 0 is a lost increment somewhere: reported at the caller's
 * line, and the count stays at 0 rather than wrapping to 2^64 - 1. */
#define sp_atomic_dec_checked(a)                                                        \
	({                                                                              \
		uint64_t __sp_was = sp_atomic_add((a), (uint64_t)-1) + 1;               \
		if (sp_unlikely(__sp_was == 0))                                         \
			sp_atomic_add((a), 1);                                          \
		SP_ASSERT3U(__sp_was, >, 0);                                            \
		__sp_was ? __sp_was - 1 : 0;                                            \
	})

#endif /* SP_OS_H */
