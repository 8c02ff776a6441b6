/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the instrumented locks tell the core, and when (sp_instr_watch.c has
 * the why). The uncontended path reports nothing: the core hears
 *   - every wait (block, unblock), with the owner glibc keeps in the lock
 *     word;
 *   - acquires and releases only while a critical thread waits somewhere
 *     in the process (sp_iw_active), so that a holder that takes the lock
 *     meanwhile, or a fast-tracked one that lets it go, is seen;
 *   - readers only of watched rwlocks (one a critical or fast-tracked
 *     thread waited on in the last few seconds), and the readers that
 *     entered before the lock became watched through a scan of every
 *     thread's list of held read locks (sp_iw_scan_readers).
 * Every acquire the core was told about is in the thread's list of holds
 * with its claim set, so that its release is told too.
 */
#ifndef SP_INSTR_WATCH_H
#define SP_INSTR_WATCH_H

#include "sp_rt.h"

#pragma GCC visibility push(hidden)

#define SP_IW_HELD 16u /* locks one thread holds that we keep track of */

struct sp_iw_entry {
	uintptr_t lock;  /* atomic (scanners read it): the lock held, 0 = free slot */
	uintptr_t claim; /* atomic: the lock the core was told this thread holds here */
	uint32_t depth;  /* own thread only: recursive holds */
	uint32_t hold;   /* own thread only: enum sp_hold */
};

struct sp_iw_thread {
	uint32_t n;      /* own thread only: slots below n may be in use */
	uint32_t gen;    /* own thread only: the sp_rt_gen that reg is for */
	int reg;         /* own thread only: 0 not yet, 1 registered, -1 passthrough */
	sp_tid_t tid;    /* atomic: for scanners */
	struct sp_iw_entry e[SP_IW_HELD];
};

extern SP_TLS struct sp_iw_thread sp_iw_self;
extern int sp_iw_crit_waits; /* critical waits in progress in the process */
extern int sp_iw_nwatched;   /* rwlocks in the watch table */

static inline bool sp_iw_active(void)
{
	return __atomic_load_n(&sp_iw_crit_waits, __ATOMIC_RELAXED) != 0;
}

/* The slot of @lock in our list, or -1. */
static inline int sp_iw_find(const void *lock)
{
	struct sp_iw_thread *t = &sp_iw_self;

	for (uint32_t i = t->n; i-- > 0;)
		if (__atomic_load_n(&t->e[i].lock, __ATOMIC_RELAXED) == (uintptr_t)lock)
			return (int)i;
	return -1;
}

/* ---- slow paths (sp_instr_watch.c) ---- */
/* Registers the calling thread with the runtime (sp_rt_thread: its task,
 * its exit hook) and its list with the scan table, once per runtime. */
void sp_iw_register(void);

/* Every lock call starts here: a thread the runtime may fast-track (from
 * an owner word) must have its exit hook, though it reports nothing. */
static inline void sp_iw_ready(void)
{
	if (__builtin_expect(sp_iw_self.gen != __atomic_load_n(&sp_rt_gen, __ATOMIC_RELAXED), 0))
		sp_iw_register();
}

/* A lock was taken while sp_iw_active() or with holds in our list: a
 * recursive hold counts, a new one is reported and listed. */
void sp_iw_note_acquire(const void *lock, enum sp_hold hold);
/* A read lock was taken: listed (so a scan can find it), reported if the
 * lock is watched. The fast part inline below. */
void sp_iw_read_acquired_slow(const void *lock, int slot);
bool sp_iw_is_watched(const void *lock);

static inline void sp_iw_read_acquired(const void *lock)
{
	struct sp_iw_thread *t = &sp_iw_self;
	uint32_t n = t->n, i, free_i = SP_IW_HELD;

	if (__builtin_expect(t->reg <= 0 || n == SP_IW_HELD, 0)) {
		if (t->reg < 0)
			return; /* passthrough */
		sp_iw_read_acquired_slow(lock, -1);
		return;
	}
	for (i = 0; i < n; i++) {
		uintptr_t l = __atomic_load_n(&t->e[i].lock, __ATOMIC_RELAXED);

		if (l == (uintptr_t)lock) {
			t->e[i].depth++; /* recursive read: the first hold speaks for it */
			return;
		}
		if (l == 0 && free_i == SP_IW_HELD)
			free_i = i;
	}
	if (free_i == SP_IW_HELD)
		free_i = t->n++;
	t->e[free_i].depth = 1;
	t->e[free_i].hold = SP_HOLD_SHARED;
	/* Relaxed: a scanner's membarrier orders this store before its scan,
	 * or our check of the watch table below after its publication. */
	__atomic_store_n(&t->e[free_i].lock, (uintptr_t)lock, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(__atomic_load_n(&sp_iw_nwatched, __ATOMIC_RELAXED) != 0, 0) &&
	    sp_iw_is_watched(lock))
		sp_iw_read_acquired_slow(lock, (int)free_i);
}

/* Before the real unlock: takes @lock out of our list. Returns 1 if the
 * core was told we hold it (report the release: *hold says how), 0 if it
 * is not in the list, -1 for a recursive hold that remains. */
int sp_iw_release_slow(int slot, const void *lock, enum sp_hold *hold);
static inline int sp_iw_release(const void *lock, enum sp_hold *hold)
{
	struct sp_iw_thread *t = &sp_iw_self;
	int i = sp_iw_find(lock);
	uintptr_t claim;

	if (i < 0)
		return 0;
	if (--t->e[i].depth > 0)
		return -1;
	*hold = (enum sp_hold)t->e[i].hold;
	__atomic_store_n(&t->e[i].lock, 0, __ATOMIC_RELAXED);
	while (t->n && !__atomic_load_n(&t->e[t->n - 1].lock, __ATOMIC_RELAXED))
		t->n--;
	/* Store then load with only a compiler barrier: the scanner's second
	 * membarrier (sp_iw_scan_readers) is the full barrier of this pair. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	claim = __atomic_load_n(&t->e[i].claim, __ATOMIC_ACQUIRE);
	if (__builtin_expect(claim != 0, 0))
		return sp_iw_release_slow(i, lock, hold);
	return 0;
}

/* A critical thread (or a fast-tracked one) waits on @lock: count the
 * wait (sp_iw_active), and for an rwlock watch it and find its readers.
 * Call with the guard held, before reading the owner word. */
void sp_iw_wait_begins(struct sp_core *core, const void *lock, bool rwlock);
void sp_iw_wait_ends(void);
/* After sp_lock_blocked_owner for an rwlock: tells the core the readers
 * listed by other threads that it does not know yet. */
void sp_iw_scan_readers(struct sp_core *core, const void *lock);
/* An acquire the core recorded at the end of a wait: list it. false if
 * the list is full (the caller reports the wait ended without it). */
bool sp_iw_list_reported(const void *lock, enum sp_hold hold);
void sp_iw_lock_destroyed(const void *lock);
/* The rwlock unlock past sp_iw_release (sp_instr_rwlock.c). */
int sp_instr_rwlock_unlock_told(pthread_rwlock_t *rw, int told, enum sp_hold hold);

#pragma GCC visibility pop

#endif /* SP_INSTR_WATCH_H */
