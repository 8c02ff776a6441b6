/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Every thread's list of the locks it holds (sp_iw_self): the read holds,
 * which a waiter scans for readers (glibc does not name them), and every
 * acquire the core was told about, with its claim set, so that its release
 * is told too. sp_instr_watch.h says when the core hears what.
 */
#ifndef SP_INSTR_HOLDS_H
#define SP_INSTR_HOLDS_H

#include "sp_instr_watch.h"

#pragma GCC visibility push(hidden)

#define SP_IW_HELD 16u /* locks one thread holds that we keep track of */

/* An entry's lock word: the lock's address, with this bit set for an
 * exclusive hold (a mutex, an rwlock's write side). Scanners look for
 * readers, so they compare the word with the bare address. */
#define SP_IW_EXCL ((uintptr_t)1)
/* A reader's entry of a lock it waits for inside glibc's rdlock, already
 * registered there (sp_iw_read_pending): a holder only while the lock is
 * in a read phase (sp_iw_scan_readers). Scanners look for either word. */
#define SP_IW_QUEUED ((uintptr_t)2)

/*
 * The thread's list is a stack: a hold is pushed at e[n], a release takes
 * the highest entry of its lock (the top one, for the usual nesting).
 * A read lock held twice has two entries; an exclusive hold has one, with
 * a count of the extra recursive holds. Slots at and above n are free (0),
 * so a scanner reads all SP_IW_HELD slots without reading n. Which entry
 * of a (thread, lock) carries the claim: the lowest, which is the last one
 * released (a new entry of a lock already listed always goes above it).
 */
struct sp_iw_entry {
	uintptr_t lock;  /* atomic (scanners read it): lock | SP_IW_EXCL or _QUEUED?, 0 = free */
	uintptr_t claim; /* atomic: the lock the core was told this thread holds here */
};

struct sp_iw_thread {
	uint32_t n;      /* own thread only: slots below n may be in use */
	uint32_t lim;    /* own thread only: SP_IW_HELD once listed, 0 before (slow path) */
	uint32_t gen;    /* own thread only: the sp_rt_gen that reg is for */
	/* own thread only: ~gen while listed, where a default mutex is glibc's
	 * to take inline (sp_glibc_mutex_inline), else 0: the whole of
	 * sp_instr_mutex_lock_fast's test of the thread, one load and branch.
	 * A new (zeroed) thread, a delisted one and a stale generation all
	 * miss it: ~sp_rt_gen is 0 only at generation UINT32_MAX, the horizon
	 * at which gen itself would match a stale value. */
	uint32_t fast;
	int reg;         /* own thread only: 0 not yet, 1 registered, -1 passthrough */
	sp_tid_t tid;    /* atomic: for scanners */
	struct sp_iw_entry e[SP_IW_HELD];
	/* own thread only: an exclusive entry's recursive holds past the
	 * first (apart, so that an entry is 16 bytes: cheaper indexing) */
	uint32_t extra[SP_IW_HELD];
};

extern SP_TLS struct sp_iw_thread sp_iw_self;

/* Nonzero if the caller's list has holds or a critical wait is in
 * progress: what the inline mutex paths test, in one branch. */
static inline uint32_t sp_iw_must_tell(const struct sp_iw_thread *t)
{
	return t->n | (uint32_t)__atomic_load_n(&sp_iw_crit_waits, __ATOMIC_RELAXED);
}

/* The highest slot of @lock (either hold) in our list, or -1. */
static inline int sp_iw_find(const void *lock)
{
	struct sp_iw_thread *t = &sp_iw_self;

	for (uint32_t i = t->n; i-- > 0;)
		if ((__atomic_load_n(&t->e[i].lock, __ATOMIC_RELAXED) &
		     ~(SP_IW_EXCL | SP_IW_QUEUED)) == (uintptr_t)lock)
			return (int)i;
	return -1;
}

/* ---- slow paths (sp_instr_holds.c) ---- */
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
void sp_iw_read_acquired_slow(const void *lock);
void sp_iw_read_watched(const void *lock);

static inline void sp_iw_read_acquired(const void *lock)
{
	struct sp_iw_thread *t = &sp_iw_self;
	uint32_t n = t->n;

	/* Not listed yet, passthrough, or full: lim says all three; the
	 * passthrough test inline, so that it stays a plain glibc call. */
	if (__builtin_expect(n >= t->lim, 0)) {
		if (t->reg >= 0)
			sp_iw_read_acquired_slow(lock);
		return;
	}
	/* Relaxed: a scanner's membarrier orders this store before its scan,
	 * or our check of the watch table below after its publication
	 * (sp_iw_wait_begins: the table store, then the membarrier). */
	__atomic_store_n(&t->e[n].lock, (uintptr_t)lock, __ATOMIC_RELAXED);
	t->n = n + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(__atomic_load_n(&sp_iw_nwatched, __ATOMIC_RELAXED) != 0, 0))
		sp_iw_read_watched(lock);
}

/* What a release was, for the unlock that follows it. */
#define SP_IW_KEEP (-1)  /* a recursive hold remains: just unlock */
#define SP_IW_QUIET 0    /* the core was not told of this hold */
/* > 0: the core was told; the release to report is SP_IW_TOLD_HOLD(r). */
#define SP_IW_TOLD(hold) (1 + (int)(hold))
#define SP_IW_TOLD_HOLD(r) ((enum sp_hold)((r) - 1))

/* The claimed entry @slot of @lock was just freed: take the claim back. */
int sp_iw_release_claimed(int slot, const void *lock, enum sp_hold hold);
/* Any release but a read hold on top of the list. */
int sp_iw_release_slow(const void *lock);

/* Pops the read hold in @t's top slot @i (n - 1), and the free slots
 * under it. The caller loads the slot's claim next: between this store
 * and that load there is only a compiler barrier, because the scanner's
 * second membarrier (sp_iw_scan_readers) is the full barrier of the pair. */
static inline void sp_iw_pop_top(struct sp_iw_thread *t, uint32_t i)
{
	uint32_t n = i;

	__atomic_store_n(&t->e[i].lock, 0, __ATOMIC_RELAXED);
	while (n && !__atomic_load_n(&t->e[n - 1].lock, __ATOMIC_RELAXED))
		n--; /* the free slots that were under it */
	t->n = n;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* Before the real unlock: takes one hold of @lock out of our list and
 * says what it was (SP_IW_KEEP, SP_IW_QUIET, SP_IW_TOLD). The common
 * case, a read hold on top of the list, inline: two loads, two stores. */
static inline int sp_iw_release(const void *lock)
{
	struct sp_iw_thread *t = &sp_iw_self;
	uint32_t i = t->n - 1;

	if (i >= SP_IW_HELD) /* n == 0: nothing listed */
		return SP_IW_QUIET;
	if (__builtin_expect(__atomic_load_n(&t->e[i].lock, __ATOMIC_RELAXED) != (uintptr_t)lock,
			     0))
		return sp_iw_release_slow(lock);
	sp_iw_pop_top(t, i);
	if (__builtin_expect(__atomic_load_n(&t->e[i].claim, __ATOMIC_ACQUIRE) != 0, 0))
		return sp_iw_release_claimed((int)i, lock, SP_HOLD_SHARED);
	return SP_IW_QUIET;
}

/* After sp_lock_blocked_owner for an rwlock: tells the core the readers
 * listed by other threads that it does not know yet. */
void sp_iw_scan_readers(struct sp_core *core, const void *lock);
/* A reader about to block in glibc's rdlock, past the wait in which it
 * is not registered (sp_glibc_read_wait_turn), lists @lock queued first
 * (claim 0), so that a scan finds it once glibc hands it the lock while it
 * is still queued (sp_instr_watch.c says why). Returns its slot, or -1 if
 * not listed (passthrough, recursive read, list full). */
int sp_iw_read_pending(const void *lock);
/* The wait of a listed pending reader ended. @acquired: returns true if
 * the core must record the acquire now (no scanner told it). Not
 * acquired: the entry goes; returns true if a scanner had told the core
 * (report the release). */
bool sp_iw_read_pending_done(int slot, const void *lock, bool acquired);
/* An acquire the core recorded at the end of a wait: list it. false if
 * the list is full (the caller reports the wait ended without it). */
bool sp_iw_list_reported(const void *lock, enum sp_hold hold);
/* The rwlock unlock past sp_iw_release (sp_instr_rwlock.c); @told is
 * what it returned, not SP_IW_KEEP. */
int sp_instr_rwlock_unlock_told(pthread_rwlock_t *rw, int told);

#pragma GCC visibility pop

#endif /* SP_INSTR_HOLDS_H */
