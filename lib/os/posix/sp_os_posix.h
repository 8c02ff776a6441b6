/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * POSIX shim for the portable core: C11/GCC atomics, pthread mutexes and
 * liburcu's urcu-memb flavour. Provides exactly the contract listed in
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
#include <pthread.h>
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
#define SP_VERIFY_FAILED() abort()
#else
#define SP_VERIFY_FAILED() ((void)0)
#endif
#define SP_VERIFY(cond)                                                                 \
	do {                                                                            \
		if (sp_unlikely(!(cond))) {                                             \
			fprintf(stderr, "superpass: %s:%d: VERIFY(%s) failed\n", __FILE__,  \
				__LINE__, #cond);                                       \
			SP_VERIFY_FAILED();                                             \
		}                                                                       \
	} while (0)
#define SP_VERIFY3U(a, op, b)                                                           \
	do {                                                                            \
		uint64_t __sp_a = (uint64_t)(a), __sp_b = (uint64_t)(b);                \
		if (sp_unlikely(!(__sp_a op __sp_b))) {                                 \
			fprintf(stderr,                                                 \
				"superpass: %s:%d: VERIFY3U(%s %s %s) failed "          \
				"(%llu %s %llu)\n",                                     \
				__FILE__, __LINE__, #a, #op, #b,                        \
				(unsigned long long)__sp_a, #op,                        \
				(unsigned long long)__sp_b);                            \
			SP_VERIFY_FAILED();                                             \
		}                                                                       \
	} while (0)

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

/* ---- locks ---- */
typedef struct {
	pthread_mutex_t m;
} sp_os_lock_t;

static inline void sp_os_lock_init(sp_os_lock_t *l)
{
	pthread_mutex_init(&l->m, NULL);
}

static inline void sp_os_lock_destroy(sp_os_lock_t *l)
{
	pthread_mutex_destroy(&l->m);
}

static inline void sp_os_lock(sp_os_lock_t *l)
{
	pthread_mutex_lock(&l->m);
}

static inline void sp_os_unlock(sp_os_lock_t *l)
{
	pthread_mutex_unlock(&l->m);
}

/* ---- RCU ---- */
/* initial-exec: a global-dynamic TLS access costs a __tls_get_addr call
 * on every event in a shared library (12 % of an uncontended lock in
 * perf). libsuperpass is linked or preloaded at startup, where the static
 * TLS block has room. */
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
