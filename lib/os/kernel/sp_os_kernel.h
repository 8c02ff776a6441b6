/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Linux kernel shim for the portable core. Provides exactly the contract
 * listed in lib/os/sp_os.h.
 *
 * The core runs inside tracepoint probes with preemption disabled and, for
 * rwsem writers, with interrupts off and the rwsem's wait_lock held. So its
 * locks are raw spinlocks taken with interrupts saved, and its read side is
 * plain RCU (a preempt-disabled region already is one; taking it again is
 * cheap and documents intent).
 */
#ifndef SP_OS_KERNEL_H
#define SP_OS_KERNEL_H

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/preempt.h>
#include <linux/processor.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/types.h>

/* The stand-ins in lib/os/kernel/include (first on the Kbuild include path):
 * UINT32_MAX, UINT64_MAX and friends, as sp_os.h promises. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define sp_likely(x) likely(x)
#define sp_unlikely(x) unlikely(x)

/* The other side runs with preemption off too: its wait is short. */
static inline void sp_os_spin_wait(void)
{
	cpu_relax();
}

static inline void sp_os_nopreempt_begin(void)
{
	preempt_disable();
}

static inline void sp_os_nopreempt_end(void)
{
	preempt_enable();
}

/* ---- memory ---- */
static inline void *sp_os_zalloc(size_t size)
{
	return kvzalloc(size, GFP_KERNEL);
}

static inline void sp_os_free(void *p)
{
	kvfree(p);
}

/* ---- time ---- */
/* NMI-safe and lock-free: usable inside any probe. */
static inline uint64_t sp_os_now_ns(void)
{
	return ktime_get_mono_fast_ns();
}

/* ---- checks ---- */
/* Warn once per call site and go on: a broken count must not take the
 * machine down, and the module's stats show what followed. */
#define SP_ASSERT(cond) WARN_ONCE(!(cond), "superpass: ASSERT(%s) failed\n", #cond)
#define SP_ASSERT3U(a, op, b)                                                           \
	do {                                                                            \
		u64 __sp_a = (u64)(a), __sp_b = (u64)(b);                               \
		WARN_ONCE(!(__sp_a op __sp_b),                                          \
			  "superpass: ASSERT3U(%s %s %s) failed (%llu %s %llu)\n", #a, #op, \
			  #b, __sp_a, #op, __sp_b);                                     \
	} while (0)
/* Always on: warns once per call site; yields @cond. */
#define SP_REPORT(cond, fmt, ...) WARN_ONCE((cond), "superpass: " fmt "\n", ##__VA_ARGS__)

/* ---- atomics ---- */
typedef atomic64_t sp_atomic64_t;

static inline uint64_t sp_atomic_load(const sp_atomic64_t *a)
{
	return (uint64_t)atomic64_read(a);
}

static inline uint64_t sp_atomic_load_acquire(const sp_atomic64_t *a)
{
	return (uint64_t)atomic64_read_acquire(a);
}

static inline void sp_atomic_store(sp_atomic64_t *a, uint64_t v)
{
	atomic64_set(a, (s64)v);
}

static inline void sp_atomic_store_release(sp_atomic64_t *a, uint64_t v)
{
	atomic64_set_release(a, (s64)v);
}

static inline uint64_t sp_atomic_add(sp_atomic64_t *a, uint64_t v)
{
	return (uint64_t)atomic64_add_return_relaxed((s64)v, a);
}

static inline bool sp_atomic_cmpxchg(sp_atomic64_t *a, uint64_t old, uint64_t new_value)
{
	s64 expected = (s64)old;

	return atomic64_try_cmpxchg(a, &expected, (s64)new_value);
}

static inline uint64_t sp_atomic_xchg(sp_atomic64_t *a, uint64_t v)
{
	return (uint64_t)atomic64_xchg(a, (s64)v);
}

static inline void sp_smp_mb(void)
{
	smp_mb();
}

static inline void sp_smp_mb__after_atomic(void)
{
	smp_mb__after_atomic();
}

/* ---- locks ---- */
typedef struct {
	raw_spinlock_t lock;
	unsigned long flags; /* written only while the lock is held */
} sp_os_lock_t;

/* A macro, not a function: lockdep gives each call site its own class, so
 * the core's stripe locks and per-task locks may nest without a false
 * recursive-locking report. */
#define sp_os_lock_init(l) raw_spin_lock_init(&(l)->lock)

static inline void sp_os_lock_destroy(sp_os_lock_t *l)
{
	(void)l;
}

static inline void sp_os_lock(sp_os_lock_t *l)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&l->lock, flags);
	l->flags = flags;
}

static inline void sp_os_unlock(sp_os_lock_t *l)
{
	raw_spin_unlock_irqrestore(&l->lock, l->flags);
}

/* ---- RCU ---- */
static inline void sp_rcu_read_lock(void)
{
	rcu_read_lock();
}

static inline void sp_rcu_read_unlock(void)
{
	rcu_read_unlock();
}

static inline void sp_rcu_synchronize(void)
{
	synchronize_rcu();
}

#endif /* SP_OS_KERNEL_H */
