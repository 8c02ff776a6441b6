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
 * This header: the count of critical waits and the watch table;
 * sp_instr_holds.h: every thread's list of the locks it holds.
 */
#ifndef SP_INSTR_WATCH_H
#define SP_INSTR_WATCH_H

#include <pthread.h>

#include "sp_os.h"
#include "sp_rt.h"

#pragma GCC visibility push(hidden)

extern int sp_iw_crit_waits; /* critical waits in progress in the process */
extern int sp_iw_nwatched;   /* rwlocks in the watch table */

static inline bool sp_iw_active(void)
{
	return __atomic_load_n(&sp_iw_crit_waits, __ATOMIC_RELAXED) != 0;
}

/* The caller has just taken a lock: its lock word by an atomic
 * read-modify-write, then the owner word. The barrier pairs with the one
 * after the waiter's increment (sp_iw_wait_begins): either we see the
 * count and report the acquire, or the waiter, reading the owner after its
 * barrier, sees the lock taken. Free on x86 (the locked compare-and-swap
 * is the barrier: a waiter may read the owner word in the instant before
 * it is written, and reads it again after its report, sp_instr_blocked). */
static inline void sp_iw_took(void)
{
	sp_smp_mb__after_atomic();
}

/* ---- slow paths (sp_instr_watch.c) ---- */
bool sp_iw_is_watched(const void *lock);
/* Whether @lock is watched and a critical wait on it was recent; one that
 * nobody critical waited on for a while stops being watched here. */
bool sp_iw_watch_fresh(const void *lock);
/* A thread waits on @lock: count a critical wait (sp_iw_active), and if a
 * critical or fast-tracked thread waits on an rwlock, watch it and return
 * true: then the waiter scans for its readers (sp_iw_scan_readers), no
 * other waiter does. Call with the guard held, before reading the owner
 * word. */
bool sp_iw_wait_begins(struct sp_core *core, const void *lock, bool rwlock);
void sp_iw_wait_ends(void);
void sp_iw_lock_destroyed(const void *lock);

/* Guards the watch table's updates and the thread table of the hold lists
 * (sp_instr_holds.c); held across a scan, so that a thread's list
 * outlives the scan (its exit waits). */
extern pthread_mutex_t sp_iw_lock;
/* A full barrier on every CPU running one of our threads. */
void sp_iw_membarrier(void);
/* The watch table's part of a forked child's reset (sp_iw_atfork_child). */
void sp_iw_watch_atfork_child(void);

#pragma GCC visibility pop

#endif /* SP_INSTR_WATCH_H */
