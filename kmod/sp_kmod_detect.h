/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Detector: lock:contention_begin/end and sched_process_exit probes, one
 * core event per thing they see, and the table of watched locks that the
 * reader hooks filter on.
 */
#ifndef SP_KMOD_DETECT_H
#define SP_KMOD_DETECT_H

#include <linux/types.h>

#include <superpass/core.h>

struct sp_detect_stats {
	u64 blocks;          /* waits of interesting tasks reported */
	u64 unblocks;
	u64 rereports;       /* a wait reported again: its owner word changed */
	u64 no_owner;        /* the word showed no exclusive owner (readers, free) */
	u64 lock_evictions;  /* tracked-lock slots recycled */
	u64 lock_expiries;   /* tracked locks forgotten after idling */
	u64 waiter_full;     /* waiter table full: a wait not reported */
	u64 reader_events;   /* reader hook events on watched locks */
	u64 reader_hints;    /* queued readers reported as holders before they ran */
	u64 hidden_readers;  /* untracked readers found through the owner word */
	u64 exits;
	u64 unlocks;           /* releases of waited-on locks that wake a waiter */
	u64 unlock_hints;      /* ... whose next owner was named before it ran */
	u64 unlock_busy;       /* ... whose wait list was busy (no name) */
	u64 fork_marks;        /* new threads of marked processes marked */
	u64 fork_mark_errors;  /* ... that the core could not take (table full) */
};

#define SP_DET_LONGS 8u
struct sp_long_blocking {
	pid_t tid;
	bool rwsem;
	u64 ms;
	u64 owner;           /* the core's exclusive owner at the end */
	u32 tracked, untracked;
	unsigned long readers_now;  /* rwsem count of readers at the end */
};

int sp_detect_init(void);
void sp_detect_exit(void);
void sp_detect_get_stats(struct sp_detect_stats *out);
void sp_detect_get_longs(struct sp_long_blocking *out, unsigned int *nr);

/* ---- the worker ---- */
/* Task context, no locks held: names the reader an rwsem's owner word
 * points at for waits on rwsems held by readers the core does not track
 * (see the function). */
void sp_detect_find_hidden_readers(void);
/* Reads the owner word of every reported wait again and reports the wait
 * again where it changed. */
void sp_detect_recheck_owners(void);
/* Forgets locks nobody waits on and no interesting task contended on for
 * @idle_ns. */
void sp_detect_expire(u64 idle_ns);
/* rwsems watched now. */
unsigned int sp_detect_nr_rwsems(void);
/* The reader hooks are armed: take their events, and record rwsem
 * acquires whose release they will report. */
void sp_detect_hooks_live(void);
/* Before disarming: false if an rwsem is watched again (unless @forget:
 * then every rwsem is forgotten, since its releases will go unseen);
 * otherwise stops taking hook events and returns true. */
bool sp_detect_hooks_idle(bool forget);

/* ---- the release hooks (sp_kmod_unlock.c, sp_kmod_readers.c) ---- */
/* Does a reported task wait on lock @key now? Any context, lock-free. */
bool sp_detect_waited(unsigned long key);
/* current is releasing @lock (a mutex with waiters; an rwsem's writer or
 * a reader): if that wakes a waiter, its holder's grant ends and the
 * waiter it wakes is named as the next owner. */
void sp_detect_release(void *lock, enum sp_lock_kind kind);

/* ---- the reader hooks ---- */
/* Is @key a lock an interesting task contended on, with the hooks live? */
bool sp_detect_watched(unsigned long key);
enum sp_reader_op {
	SP_RD_ACQUIRE, SP_RD_RELEASE, SP_WR_ACQUIRE, SP_WR_RELEASE, SP_WR_DOWNGRADE
};
void sp_detect_reader_event(unsigned long key, enum sp_reader_op op);

#endif /* SP_KMOD_DETECT_H */
