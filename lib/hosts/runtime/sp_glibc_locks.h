/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * glibc's own uncontended acquire of the two commonest locks, inline: a
 * default mutex (PTHREAD_MUTEX_TIMED_NP: not recursive, errorcheck,
 * adaptive, robust, PI, PP, process-shared or elided) and the read side of
 * an rwlock in a read phase with no writer. These are the trylocks
 * themselves (glibc 2.36: nptl/pthread_mutex_trylock.c, the
 * PTHREAD_MUTEX_TIMED_NP case, with its unlock, and
 * nptl/pthread_rwlock_tryrdlock.c, the
 * read-phase case; the read unlock that wakes nobody from
 * __pthread_rwlock_rdunlock in nptl/pthread_rwlock_common.c), the same words with the same orderings, so the lock
 * stays glibc's: its other unlocks, its waits and its other kinds are glibc's
 * functions, and a caller that fails here calls glibc's trylock or lock as
 * before. Being a trylock, it keeps what sp_instr_fast.h relies on: a lock
 * that is busy is never waited for without the core hearing of it.
 *
 * The layout is glibc's private ABI, stable since 2.25 (the rwlock) and
 * long before (the mutex); the asserts below hold the field types we
 * touch, and sp_glibc_probe() turns the mutex path off where glibc would
 * elide (GLIBC_TUNABLES=glibc.elision.enable=1), because an elided
 * mutex's unlock leaves __owner and __nusers as they are.
 *
 * Not under ThreadSanitizer: it models a mutex from the pthread calls it
 * intercepts, and would not see a lock taken here.
 */
#ifndef SP_GLIBC_LOCKS_H
#define SP_GLIBC_LOCKS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/single_threaded.h>

#if defined(__SANITIZE_THREAD__)
#define SP_GLIBC_INLINE 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SP_GLIBC_INLINE 0
#endif
#endif
#ifndef SP_GLIBC_INLINE
#define SP_GLIBC_INLINE 1
#endif

#pragma GCC visibility push(hidden)

_Static_assert(offsetof(pthread_mutex_t, __data.__lock) == 0, "mutex futex word first");
_Static_assert(sizeof(((pthread_mutex_t *)0)->__data.__lock) == 4, "mutex __lock is an int");
_Static_assert(sizeof(((pthread_mutex_t *)0)->__data.__owner) == 4, "mutex __owner is an int");
_Static_assert(sizeof(((pthread_mutex_t *)0)->__data.__nusers) == 4, "mutex __nusers");
_Static_assert(sizeof(((pthread_mutex_t *)0)->__data.__kind) == 4, "mutex __kind is an int");
_Static_assert(offsetof(pthread_rwlock_t, __data.__readers) == 0, "rwlock __readers first");
_Static_assert(sizeof(((pthread_rwlock_t *)0)->__data.__readers) == 4, "rwlock __readers");

/* glibc's __readers bits (nptl/pthread_rwlock_common.c). */
#define SP_GLIBC_RW_WRPHASE 1u
#define SP_GLIBC_RW_WRLOCKED 2u
#define SP_GLIBC_RW_RWAITING 4u
#define SP_GLIBC_RW_READER (1u << 3)  /* one reader: 1 << PTHREAD_RWLOCK_READER_SHIFT */
#define SP_GLIBC_RW_OVERFLOW (1u << 31)

/* The __kind a mutex must have for sp_glibc_mutex_take, bar the bit below:
 * 0 (the default, PTHREAD_MUTEX_INITIALIZER's), or -1 (matches no mutex) until
 * sp_glibc_probe() has run, and where glibc elides. */
extern int sp_glibc_plain_kind;
/* Sets sp_glibc_plain_kind; idempotent, any thread, any time. */
void sp_glibc_probe(void);

/* glibc's PTHREAD_MUTEX_NO_ELISION_NP: pthread_mutex_init() with an
 * attribute object sets it on a default mutex; its trylock still takes
 * the PTHREAD_MUTEX_TIMED_NP case (it masks the bit off), and it is never
 * elided. */
#define SP_GLIBC_MUTEX_NO_ELISION 0x200

static inline bool sp_glibc_mutex_plain(const pthread_mutex_t *m)
{
	return SP_GLIBC_INLINE && (__atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) &
				   ~SP_GLIBC_MUTEX_NO_ELISION) ==
					  __atomic_load_n(&sp_glibc_plain_kind, __ATOMIC_RELAXED);
}

/* Default mutexes are glibc's to take and give inline here, once and for
 * all: sp_glibc_probe() found no elision (it never turns this off again). */
static inline bool sp_glibc_mutex_inline(void)
{
	return SP_GLIBC_INLINE && __atomic_load_n(&sp_glibc_plain_kind, __ATOMIC_RELAXED) == 0;
}

/* sp_glibc_mutex_plain() for a caller that knows sp_glibc_mutex_inline()
 * is true: the kind alone, one load less. */
static inline bool sp_glibc_mutex_default(const pthread_mutex_t *m)
{
	return (__atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) & ~SP_GLIBC_MUTEX_NO_ELISION) ==
	       0;
}

/*
 * The trylock of a mutex sp_glibc_mutex_plain() said yes to, by thread
 * @tid (ours, for __owner: a waiter reads it to find the holder). As glibc:
 * in a process that never had a second thread, a plain store (its
 * lll_mutex_lock_optimized; the unlock is then a plain store too);
 * otherwise a compare-and-exchange 0 -> 1 with acquire, which pairs with
 * the release of glibc's unlock. Then __owner and __nusers, under the
 * lock, as glibc writes them (its unlock clears and decrements them).
 */
static inline bool sp_glibc_mutex_take(pthread_mutex_t *m, int tid)
{
	int zero = 0;

	if (__libc_single_threaded) {
		if (__atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) != 0)
			return false;
		__atomic_store_n(&m->__data.__lock, 1, __ATOMIC_RELAXED);
	} else if (!__atomic_compare_exchange_n(&m->__data.__lock, &zero, 1, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		return false;
	}
	__atomic_store_n(&m->__data.__owner, tid, __ATOMIC_RELAXED);
	m->__data.__nusers++;
	return true;
}

/* Wakes one thread asleep on @m's word, as glibc's lll_unlock does when
 * its exchange found 2 (a waiter marked it): out of line, contended. */
void sp_glibc_mutex_wake(pthread_mutex_t *m);

/*
 * glibc's blocking lock of a mutex sp_glibc_mutex_plain() said yes to,
 * after its trylock failed (2.36: lll_lock's __lll_lock_wait, then the
 * owner fields as pthread_mutex_lock writes them), by thread @tid, with
 * one difference: after every wake that did not get it the lock, it
 * calls @retaken with the owner the word now names, if that is not 0.
 * glibc's own lock sleeps again without a word, and the holder that took
 * the lock back between the wake and the retry (a thread behind its
 * schedule barges: it unlocks, locks again at once, uncontended, so it
 * reports nothing) stays unknown to the core for the rest of the wait.
 * The loop is glibc's: mark the word 2
 * (locked, waiters) by exchange with acquire, which pairs with the
 * release of the unlock that freed it; sleep while it is 2.
 */
void sp_glibc_mutex_lock_wait(pthread_mutex_t *m, int tid, void (*retaken)(void *ctx, int owner),
			      void *ctx);

/*
 * glibc's unlock of a mutex sp_glibc_mutex_plain() said yes to (2.36:
 * __pthread_mutex_unlock_usercnt's PTHREAD_MUTEX_TIMED_NP case and
 * lll_mutex_unlock_optimized), which, like glibc's, does not ask who
 * holds it: __owner cleared and __nusers decremented while still held,
 * then the word to 0. In a process that never had a second thread a plain
 * store (no other thread can wait: a process-shared mutex is not plain);
 * else an exchange with release, which pairs with the acquire of the next
 * trylock (ours or glibc's), and whose old value says whether anyone
 * sleeps on the word: one is then woken, as glibc does. Inline, it saves
 * the call into glibc on sp_mutex_t's fast path.
 */
static inline void sp_glibc_mutex_give(pthread_mutex_t *m)
{
	__atomic_store_n(&m->__data.__owner, 0, __ATOMIC_RELAXED);
	m->__data.__nusers--;
	if (__libc_single_threaded) {
		__atomic_store_n(&m->__data.__lock, 0, __ATOMIC_RELAXED);
		return;
	}
	if (__atomic_exchange_n(&m->__data.__lock, 0, __ATOMIC_RELEASE) > 1)
		sp_glibc_mutex_wake(m);
}

/*
 * The read trylock while the lock is in a read phase with no writer
 * holding it (glibc's tryrdlock takes the same branch: one more reader by
 * compare-and-exchange, acquire to pair with the release of the writer's
 * unlock that began the phase). Anything else (a write phase, a writer,
 * a reader count about to overflow, a lost race) says false: the caller
 * then asks glibc, which knows the rest.
 */
static inline bool sp_glibc_read_take(pthread_rwlock_t *rw)
{
	unsigned int r = __atomic_load_n(&rw->__data.__readers, __ATOMIC_RELAXED);

	if (!SP_GLIBC_INLINE || (r & (SP_GLIBC_RW_WRPHASE | SP_GLIBC_RW_WRLOCKED)) != 0 ||
	    r + SP_GLIBC_RW_READER >= SP_GLIBC_RW_OVERFLOW)
		return false;
	return __atomic_compare_exchange_n(&rw->__data.__readers, &r, r + SP_GLIBC_RW_READER,
					   false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/*
 * The read unlock by a thread that holds @rw for reading (our list says
 * so), where glibc's rdunlock wakes nobody and changes no phase: no writer
 * holds or waits for the lock (WRLOCKED), no reader waits (RWAITING), a
 * read phase (WRPHASE clear). Then it is one reader less by
 * compare-and-exchange, release, which pairs with the acquire of the
 * writer that takes the lock next. Anything else says false: glibc's
 * unlock does the hand-over and the wake-ups.
 */
static inline bool sp_glibc_read_give(pthread_rwlock_t *rw)
{
	unsigned int r = __atomic_load_n(&rw->__data.__readers, __ATOMIC_RELAXED);

	if (!SP_GLIBC_INLINE ||
	    (r & (SP_GLIBC_RW_WRPHASE | SP_GLIBC_RW_WRLOCKED | SP_GLIBC_RW_RWAITING)) != 0 ||
	    r < SP_GLIBC_RW_READER)
		return false;
	return __atomic_compare_exchange_n(&rw->__data.__readers, &r, r - SP_GLIBC_RW_READER,
					   false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/*
 * glibc's first step of a blocking read lock on a writer-preferring rwlock
 * (PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP; any other kind returns 0
 * at once): while a writer waits for the readers of a read phase, a new
 * reader waits without registering (RWAITING). Returns 0 once glibc's
 * rdlock would register, or ETIMEDOUT at @abstime on @clk (NULL: never).
 * After it, a reader of the lock is registered, so a holder as soon as
 * the lock is in a read phase, within the few instructions of glibc's
 * rdlock before its fetch-and-add (sp_glibc_rwait.c).
 */
int sp_glibc_read_wait_turn(pthread_rwlock_t *rw, clockid_t clk, const struct timespec *abstime);

/* The lock is in a read phase: every registered reader holds it. */
static inline bool sp_glibc_read_phase(const pthread_rwlock_t *rw)
{
	return (__atomic_load_n(&rw->__data.__readers, __ATOMIC_RELAXED) & SP_GLIBC_RW_WRPHASE) == 0;
}

#pragma GCC visibility pop

#endif /* SP_GLIBC_LOCKS_H */
