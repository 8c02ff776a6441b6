/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * POSIX shim for the portable core: C11/GCC atomics, a futex mutex of its
 * own and liburcu's urcu-memb flavour. Provides exactly the contract listed in
 * lib/os/sp_os.h.
 *
 * urcu-memb wants every reader thread registered. The core is called from
 * threads it does not own (an LD_PRELOAD interposer sees every thread of
 * an unmodified program), so registration is lazy: the first read-side
 * section of a thread registers it, and a thread-exit destructor
 * unregisters it.
 */
#ifndef SP_OS_POSIX_H
#define SP_OS_POSIX_H

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define _LGPL_SOURCE 1
#include <urcu/urcu-memb.h>

#define sp_likely(x) __builtin_expect(!!(x), 1)
#define sp_unlikely(x) __builtin_expect(!!(x), 0)

/* ---- checks ---- */
#include <stdio.h>
#ifdef SUPERPASS_DEBUG_CHECKS
#define SP_ASSERT_FAILED() abort()
#else
#define SP_ASSERT_FAILED() ((void)0)
#endif
#define SP_ASSERT(cond)                                                                 \
	do {                                                                            \
		if (sp_unlikely(!(cond))) {                                             \
			fprintf(stderr, "superpass: %s:%d: ASSERT(%s) failed\n", __FILE__,  \
				__LINE__, #cond);                                       \
			SP_ASSERT_FAILED();                                             \
		}                                                                       \
	} while (0)
#define SP_ASSERT3U(a, op, b)                                                           \
	do {                                                                            \
		uint64_t __sp_a = (uint64_t)(a), __sp_b = (uint64_t)(b);                \
		if (sp_unlikely(!(__sp_a op __sp_b))) {                                 \
			fprintf(stderr,                                                 \
				"superpass: %s:%d: ASSERT3U(%s %s %s) failed "          \
				"(%llu %s %llu)\n",                                     \
				__FILE__, __LINE__, #a, #op, #b,                        \
				(unsigned long long)__sp_a, #op,                        \
				(unsigned long long)__sp_b);                            \
			SP_ASSERT_FAILED();                                             \
		}                                                                       \
	} while (0)
/* Always on, never aborts: one line on stderr each time @cond holds;
 * yields @cond. */
#define SP_REPORT(cond, fmt, ...)                                                       \
	({                                                                              \
		bool __sp_r = (cond);                                                   \
		if (sp_unlikely(__sp_r))                                                \
			fprintf(stderr, "superpass: " fmt "\n", ##__VA_ARGS__);         \
		__sp_r;                                                                 \
	})

/* The thread waited for may be preempted on this very CPU: let it run. */
static inline void sp_os_spin_wait(void)
{
	sched_yield();
}

static inline void sp_os_nopreempt_begin(void)
{
}

static inline void sp_os_nopreempt_end(void)
{
}

/* ---- time ---- */
#include <time.h>
static inline uint64_t sp_os_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- memory ---- */
static inline void *sp_os_zalloc(size_t size)
{
	return calloc(1, size);
}

static inline void sp_os_free(void *p)
{
	free(p);
}

/* ---- atomics ---- */
typedef struct {
	uint64_t v;
} sp_atomic64_t;

static inline uint64_t sp_atomic_load(const sp_atomic64_t *a)
{
	return __atomic_load_n(&a->v, __ATOMIC_RELAXED);
}

static inline uint64_t sp_atomic_load_acquire(const sp_atomic64_t *a)
{
	return __atomic_load_n(&a->v, __ATOMIC_ACQUIRE);
}

static inline void sp_atomic_store(sp_atomic64_t *a, uint64_t v)
{
	__atomic_store_n(&a->v, v, __ATOMIC_RELAXED);
}

static inline void sp_atomic_store_release(sp_atomic64_t *a, uint64_t v)
{
	__atomic_store_n(&a->v, v, __ATOMIC_RELEASE);
}

static inline uint64_t sp_atomic_add(sp_atomic64_t *a, uint64_t v)
{
	return __atomic_add_fetch(&a->v, v, __ATOMIC_RELAXED);
}

static inline bool sp_atomic_cmpxchg(sp_atomic64_t *a, uint64_t old, uint64_t new_value)
{
	/* Relaxed on failure: the contract (sp_os.h) is the kernel's. */
	return __atomic_compare_exchange_n(&a->v, &old, new_value, false, __ATOMIC_SEQ_CST,
					   __ATOMIC_RELAXED);
}

static inline uint64_t sp_atomic_xchg(sp_atomic64_t *a, uint64_t v)
{
	return __atomic_exchange_n(&a->v, v, __ATOMIC_SEQ_CST);
}

static inline void sp_smp_mb(void)
{
#if defined(__SANITIZE_THREAD__)
	/* ThreadSanitizer does not model fences (GCC warns, -Wtsan); a
	 * sequentially consistent read-modify-write is a full barrier too. */
	static uint64_t sp_os_fence_word;

	__atomic_fetch_add(&sp_os_fence_word, 0, __ATOMIC_SEQ_CST);
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* After an atomic read-modify-write, orders it before the loads and stores
 * that follow, as a full barrier would. x86's locked instructions already
 * are one: a compiler barrier there. */
static inline void sp_smp_mb__after_atomic(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#else
	sp_smp_mb();
#endif
}

/* ---- locks ---- */
/*
 * A futex mutex of the library's own (Drepper's "Futexes Are Tricky",
 * mutex2): 0 free, 1 held, 2 held with sleepers. Not pthread_mutex_lock,
 * which an interposer (ours) exports and wraps: the core's locks must never
 * reach it. The acquire and release atomics are what ThreadSanitizer sees.
 */
#include "sp_os_futex.h"

typedef struct {
	uint32_t state;
} sp_os_lock_t;

/* Contended: sleeps until the lock is ours (sp_os_lock.c). */
void sp_os_lock_wait(sp_os_lock_t *l, uint32_t seen);

static inline void sp_os_lock_init(sp_os_lock_t *l)
{
	__atomic_store_n(&l->state, 0, __ATOMIC_RELAXED);
}

static inline void sp_os_lock_destroy(sp_os_lock_t *l)
{
	(void)l;
}

static inline void sp_os_lock(sp_os_lock_t *l)
{
	uint32_t seen = 0;

	if (sp_unlikely(!__atomic_compare_exchange_n(&l->state, &seen, 1, false,
						     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)))
		sp_os_lock_wait(l, seen);
}

static inline void sp_os_unlock(sp_os_lock_t *l)
{
	if (sp_unlikely(__atomic_exchange_n(&l->state, 0, __ATOMIC_RELEASE) == 2))
		sp_os_futex_wake(&l->state, 1);
}

/* ---- RCU ---- */
/* initial-exec: a global-dynamic TLS access would be a __tls_get_addr call
 * on every event in a shared library. libsuperpass is linked or preloaded
 * at startup, where the static TLS block has room. */
extern __thread int sp_os_rcu_registered __attribute__((tls_model("initial-exec")));
void sp_os_rcu_register_slow(void);

static inline void sp_rcu_read_lock(void)
{
	if (sp_unlikely(!sp_os_rcu_registered))
		sp_os_rcu_register_slow();
	urcu_memb_read_lock();
}

static inline void sp_rcu_read_unlock(void)
{
	urcu_memb_read_unlock();
}

static inline void sp_rcu_synchronize(void)
{
	urcu_memb_synchronize_rcu();
}

#endif /* SP_OS_POSIX_H */
