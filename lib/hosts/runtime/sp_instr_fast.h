/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The uncontended lock paths, inline in sp_mutex_t / sp_rwlock_t and in the
 * interposer's wrappers: a call level less is a real share of a
 * lock+unlock that costs glibc a handful of instructions. For
 * a default mutex and a read lock in a read phase the trylock itself is
 * inline (sp_glibc_locks.h); everything past it, and every other lock,
 * is out of line (sp_instr_mutex.c, sp_instr_rwlock.c), reached by tail
 * calls so that the inline paths keep no stack frame. sp_instr_watch.h
 * says what is reported when.
 */
#ifndef SP_INSTR_FAST_H
#define SP_INSTR_FAST_H

#include <errno.h>

#include "sp_glibc_locks.h"
#include "sp_instr_holds.h"

#pragma GCC visibility push(hidden)

/*
 * @skip (a constant: NULL, or the interposer's test for liburcu's own
 * mutexes, which must never reach the runtime: sp_preload.c) is asked
 * only where the runtime would be entered, so that the uncontended path
 * does not pay for it. A skipped lock gets what a plain lock would: the
 * trylock, then the real lock if it was busy.
 */
typedef bool (*sp_instr_skip_fn)(const void *lock);

/* Out of line, so that the inline paths below keep no frame and every
 * branch off them is a tail call (sp_instr_mutex.c, sp_instr_rwlock.c). */
/* The inline trylock found the mutex busy. */
int sp_instr_mutex_busy(pthread_mutex_t *m, sp_instr_skip_fn skip);
/* Taken inline, with holds in our list or a critical wait somewhere:
 * tells what sp_iw_note_acquire says; returns 0. */
int sp_instr_mutex_took(pthread_mutex_t *m, sp_instr_skip_fn skip);
/* Any mutex but a default one, or a thread not (yet) registered: the
 * lock through glibc's trylock. */
int sp_instr_mutex_lock_other(pthread_mutex_t *m, sp_instr_skip_fn skip);
/* A read lock the inline path did not take or list: the whole of it. */
int sp_instr_rwlock_rdlock_other(pthread_rwlock_t *rw);
/* The read hold was taken; its list entry is out of line: returns 0. */
int sp_instr_rwlock_read_listed(pthread_rwlock_t *rw);

static inline int sp_instr_mutex_lock_fast(pthread_mutex_t *m, sp_instr_skip_fn skip)
{
	struct sp_iw_thread *t = &sp_iw_self;

	/* A default mutex, taken by glibc's own trylock inline
	 * (sp_glibc_locks.h), by a thread registered with this runtime and
	 * listed, so its tid is known and its exit hook set, where glibc does
	 * not elide: t->fast says all three in one test. Inside the runtime
	 * (the guard) it is the same lock glibc's would be; only the
	 * reporting is skipped (sp_instr_mutex_took). */
	if (__builtin_expect(!sp_glibc_mutex_default(m) ||
			     t->fast != ~__atomic_load_n(&sp_rt_gen, __ATOMIC_RELAXED),
			     0))
		return sp_instr_mutex_lock_other(m, skip);
	if (__builtin_expect(!sp_glibc_mutex_take(m, (int)t->tid), 0))
		return sp_instr_mutex_busy(m, skip);
	sp_iw_took();
	if (__builtin_expect(sp_iw_must_tell(t) != 0, 0))
		return sp_instr_mutex_took(m, skip);
	return 0;
}

/* Nothing to tell (no hold in our list, no critical wait anywhere), or
 * inside the runtime, or a lock it must not hear of: glibc's unlock, inline
 * for a default mutex (sp_glibc_locks.h). */
static inline int sp_instr_mutex_unlock_fast(pthread_mutex_t *m, sp_instr_skip_fn skip)
{
	if (__builtin_expect(sp_iw_must_tell(&sp_iw_self) == 0, 1) ||
	    sp_rt_guarded() || (skip && skip(m))) {
		if (__builtin_expect(sp_glibc_mutex_plain(m), 1)) {
			sp_glibc_mutex_give(m);
			return 0;
		}
		return sp_real.mutex_unlock(m);
	}
	return sp_instr_mutex_unlock_slow(m);
}

static inline int sp_instr_rwlock_rdlock_fast(pthread_rwlock_t *rw)
{
	struct sp_iw_thread *t = &sp_iw_self;
	uint32_t n = t->n;

	/* Registered with this runtime (gen), room in the list (lim: 0 also
	 * for passthrough and before registration), outside the runtime:
	 * then glibc's read trylock inline (sp_glibc_locks.h), and the hold
	 * pushed on our list as sp_iw_read_acquired does. Anything else is
	 * the out-of-line path, which calls glibc's. */
	if (__builtin_expect(t->gen != __atomic_load_n(&sp_rt_gen, __ATOMIC_RELAXED) ||
			     n >= t->lim || sp_rt_guarded() || !sp_glibc_read_take(rw),
			     0))
		return sp_instr_rwlock_rdlock_other(rw);
	/* As in sp_iw_read_acquired (the orderings are said there). */
	__atomic_store_n(&t->e[n].lock, (uintptr_t)rw, __ATOMIC_RELAXED);
	t->n = n + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(__atomic_load_n(&sp_iw_nwatched, __ATOMIC_RELAXED) != 0, 0))
		return sp_instr_rwlock_read_listed(rw);
	return 0;
}

/* Any rwlock unlock but a read hold on top of our list, outside the
 * runtime: the whole of it (sp_instr_rwlock.c). */
int sp_instr_rwlock_unlock_other(pthread_rwlock_t *rw);
/* A read hold popped from slot @slot, its claim set (a scanner told the
 * core of it) or a critical wait somewhere: the rest of the unlock. */
int sp_instr_rwlock_unlock_popped(pthread_rwlock_t *rw, int slot);

/* The only rwlock unlock (sp_rwlock_unlock and the interposer's). The
 * common case inline: a read hold on top of our list (the bare address,
 * sp_instr_watch.h) is popped as sp_iw_release does, and when the core
 * has nothing to hear, glibc's own read unlock inline where it wakes
 * nobody (sp_glibc_locks.h), else glibc's unlock as a tail call. */
static inline int sp_instr_rwlock_unlock_fast(pthread_rwlock_t *rw)
{
	struct sp_iw_thread *t = &sp_iw_self;
	uint32_t i = t->n - 1;

	if (__builtin_expect(i >= SP_IW_HELD ||
			     __atomic_load_n(&t->e[i].lock, __ATOMIC_RELAXED) != (uintptr_t)rw ||
			     sp_rt_guarded(),
			     0))
		return sp_instr_rwlock_unlock_other(rw);
	sp_iw_pop_top(t, i);
	if (__builtin_expect((__atomic_load_n(&t->e[i].claim, __ATOMIC_ACQUIRE) |
			      (uintptr_t)sp_iw_active()) != 0,
			     0))
		return sp_instr_rwlock_unlock_popped(rw, (int)i);
	if (__builtin_expect(sp_glibc_read_give(rw), 1))
		return 0;
	return sp_real.rwlock_unlock(rw);
}

#pragma GCC visibility pop

#endif /* SP_INSTR_FAST_H */
