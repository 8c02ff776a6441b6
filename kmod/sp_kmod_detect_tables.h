/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The detector's tables, shared by its parts: the locks interesting tasks
 * contended on (the reader hooks' watch list) and the waits reported to
 * the core, under one raw spinlock, with the helpers that report a wait.
 * The parts: sp_kmod_detect.c (tracepoint events), sp_kmod_detect_hooks.c
 * (release and reader hook events), sp_kmod_detect_recheck.c (the
 * worker's passes).
 */
#ifndef SP_KMOD_DETECT_TABLES_H
#define SP_KMOD_DETECT_TABLES_H

#include <linux/atomic.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <superpass/core.h>

#define SP_DET_LOCKS 64u
#define SP_DET_WAITERS 64u
#define SP_DET_LONGS 8u

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
	u64 unlocks;           /* releases of waited-on locks that wake a waiter */
	u64 unlock_hints;      /* ... whose next owner was named before it ran */
	u64 unlock_busy;       /* ... whose wait list was busy (no name) */
};

/* A long blocking of a reported task, with what the core knew of the lock
 * when it ended (/proc/superpass/stats). */
struct sp_long_blocking {
	pid_t tid;
	bool rwsem;
	u64 ms;
	u64 owner;           /* the core's exclusive owner at the end */
	u32 tracked, untracked;
	unsigned long readers_now;  /* rwsem count of readers at the end */
};

struct sp_det_lock {
	unsigned long key;       /* 0: free */
	enum sp_lock_kind kind;
	unsigned int nwait;      /* reported waiters blocked on it now */
	u64 last_use;
	u64 last_ns;             /* last contention by an interesting task */
	pid_t hint;              /* the waiter its last release woke, until the word names an owner */
};

struct sp_det_waiter {
	struct task_struct *task;  /* NULL: free; compared, never dereferenced */
	unsigned long key;
	pid_t tid;
	enum sp_hold hold;
	enum sp_lock_kind kind;
	bool early;              /* a queued reader, not a reported wait */
	bool reported;           /* early: told the core it holds the lock */
	bool logged;             /* log_waits_ms: logged once */
	bool looked;             /* sp_detect_find_hidden_readers looked once */
	u64 start;               /* ktime_get_mono_fast_ns() at the block */
};

struct sp_det_tables {
	raw_spinlock_t lock;       /* everything below; taken only for reported events */
	struct sp_det_lock locks[SP_DET_LOCKS];
	struct sp_det_waiter waiters[SP_DET_WAITERS];
	atomic_t nr_waiting;       /* lets contention_end skip the scan */
	unsigned int nr_rwsems;    /* rwsem slots in use */
	bool live;                 /* reader hooks armed: take their events */
	u64 clock;
	sp_tid_t readers[SP_MAX_READERS_PER_LOCK];  /* scratch, under lock */
	struct sp_long_blocking longs[SP_DET_LONGS];
	unsigned int nr_longs;
	struct sp_detect_stats st;
};

extern struct sp_det_tables sp_det;

/* The rest under sp_det.lock. */
struct sp_det_lock *sp_det_lock_find(unsigned long key);
/* Finds or takes a slot for @key; NULL if every slot has waiters. */
struct sp_det_lock *sp_det_lock_get(unsigned long key, enum sp_lock_kind kind);
/* Frees slot @l: the core forgets the lock (its grants end). */
void sp_det_lock_forget(struct sp_det_lock *l);
/* @t's slot; NULL finds a free one. Lock-free as a filter too. */
struct sp_det_waiter *sp_det_waiter_find(struct task_struct *t);
void sp_det_waiter_free(struct sp_det_waiter *w);
/* Does the core record @tid as a reader, or as the exclusive owner? */
bool sp_det_is_reader(unsigned long key, pid_t tid);
bool sp_det_is_owner(unsigned long key, pid_t tid);
/* The owner to report: @word if it names one, else @l's hint. */
pid_t sp_det_word_or_hint(struct sp_det_lock *l, pid_t word);
/* Reports @w's wait with owner @word, first or again. */
void sp_det_report(struct sp_det_waiter *w, pid_t word);
/* Reports @w's wait again if @word changes what the core knows. */
void sp_det_rereport(struct sp_det_waiter *w, pid_t word);

/* Any context: copies of the counters and of the last long blockings
 * (up to SP_DET_LONGS, oldest first). */
void sp_detect_get_stats(struct sp_detect_stats *out);
void sp_detect_get_longs(struct sp_long_blocking *out, unsigned int *nr);

#endif /* SP_KMOD_DETECT_TABLES_H */
