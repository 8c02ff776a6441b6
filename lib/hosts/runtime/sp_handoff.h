/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A mutex a critical thread waits for goes to it, not to a thread that
 * barges in (sp_handoff.c says why and how).
 *
 *  - A critical thread's mutex wait is published for its duration
 *    (sp_ho_wait_begins / sp_ho_wait_ends, from sp_iw_wait_begins/_ends).
 *  - A thread that has just taken such a mutex, inside a lock call (never
 *    a trylock: that must not fail on a free lock), gives it back and
 *    sleeps until that wait ends (sp_ho_yield), boundedly, if the core
 *    says so (not critical, holding nothing);
 *    the caller then waits for the lock as anybody would, with no second
 *    yield, so every lock call still ends.
 */
#ifndef SP_HANDOFF_H
#define SP_HANDOFF_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

extern int sp_ho_published; /* critical mutex waits in the table */

/* The calling (critical) thread starts or ends its wait for @lock. */
void sp_ho_wait_begins(const void *lock);
void sp_ho_wait_ends(void);

/*
 * The caller has just taken @m in a lock call. If a critical thread waits
 * for @m and the core wants the hand-off (sp_core_handoff_wanted), gives
 * @m back (glibc's unlock, which wakes a waiter if there is one) and
 * sleeps until that wait ends or the core's bound passed: true, and the
 * caller must now lock @m again without yielding. false (nothing done)
 * otherwise. Outside the runtime's guard only.
 */
bool sp_ho_yield_slow(pthread_mutex_t *m);

static inline bool sp_ho_yield(pthread_mutex_t *m)
{
	if (__builtin_expect(!__atomic_load_n(&sp_ho_published, __ATOMIC_RELAXED), 1))
		return false;
	return sp_ho_yield_slow(m);
}

/* What sp_ho_yield did: yields, sleeps that hit the bound, critical waits
 * not published (table full). For the statistics. */
void sp_ho_counts(uint64_t *yields, uint64_t *timeouts, uint64_t *unpublished);

/* In a forked child: the parent's waits are not the child's. */
void sp_ho_atfork_child(void);

#pragma GCC visibility pop

#endif /* SP_HANDOFF_H */
