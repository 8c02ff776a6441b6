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
 *                (relaxed, returns the new value), sp_atomic_cmpxchg (full
 *                barrier, true on success), sp_atomic_xchg (full barrier),
 *                sp_smp_mb()
 *   locks        sp_os_lock_t: a short, non-sleeping critical section that
 *                is safe in every context the core runs in. sp_os_lock_init,
 *                sp_os_lock_destroy, sp_os_lock, sp_os_unlock
 *   RCU          sp_rcu_read_lock / sp_rcu_read_unlock (never sleep, nest),
 *                sp_rcu_synchronize (sleeps; reclaim only)
 *   hints        sp_likely, sp_unlikely, sp_os_spin_wait() (one pause of a
 *                busy-wait for another CPU; userspace may yield, since the
 *                thread waited for can be preempted)
 *   preemption   sp_os_nopreempt_begin / _end: a section that others may
 *                busy-wait on; in the kernel it must not be preempted
 *                (userspace cannot forbid it: no-ops there)
 */
#ifndef SP_OS_H
#define SP_OS_H

#ifdef __KERNEL__
#include "kernel/sp_os_kernel.h"
#else
#include "posix/sp_os_posix.h"
#endif

#endif /* SP_OS_H */
