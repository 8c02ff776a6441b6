// SPDX-License-Identifier: GPL-2.0-only
/*
 * Detector: turns lock:contention_begin/end and sched_process_exit into core
 * events.
 *
 * These tracepoints are not exported, so the probes are attached by name
 * through for_each_kernel_tracepoint() + tracepoint_probe_register(). They
 * fire for every contended kernel lock, spinlocks included, with preemption
 * off and sometimes with interrupts off and a wait_lock held: the fast path
 * returns after a flag test and one or two bit tests, and nothing here
 * sleeps or allocates (all tables are static and fixed-size).
 *
 * The core only needs blockings of tasks it cares about: critical tasks and
 * tasks fast-tracked on their behalf (their own blocking extends the chain).
 * For those, the lock's owner word names the holder; the core is told that
 * holder acquired the lock, then that the task blocked.
 *
 * Lock slots remember every lock such a task contended on. They bound how
 * many locks the core keeps (a recycled slot is sp_lock_destroyed()), and
 * they are the watch list of the reader hooks: readers of an rwsem are only
 * tracked once a critical task has contended on it.
 */
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>

#include "sp_kmod.h"

/* include/trace/events/lock.h */
#define SP_LCB_F_SPIN   (1U << 0)
#define SP_LCB_F_READ   (1U << 1)
#define SP_LCB_F_WRITE  (1U << 2)
#define SP_LCB_F_RT     (1U << 3)
#define SP_LCB_F_PERCPU (1U << 4)
#define SP_LCB_F_MUTEX  (1U << 5)

/* Owner-word flag bits, private to kernel/locking/{mutex,rwsem}.c. */
#define SP_MUTEX_FLAGS 0x07UL
#define SP_RWSEM_READER_OWNED 0x01UL
#define SP_RWSEM_FLAGS 0x03UL

#define SP_DET_LOCKS 64u
#define SP_DET_WAITERS 64u

struct sp_det_lock {
	unsigned long key;       /* 0: free */
	enum sp_lock_kind kind;
	unsigned int nwait;      /* reported waiters blocked on it now */
	u64 last_use;
	u64 last_ns;             /* last contention by an interesting task */
};

struct sp_det_waiter {
	struct task_struct *task;  /* NULL: free; compared, never dereferenced */
	unsigned long key;
	pid_t tid;
	enum sp_hold hold;
	enum sp_lock_kind kind;
	bool early;              /* a queued reader, not a reported wait */
	bool reported;           /* early: told the core it holds the lock */
	u64 start;               /* ktime_get_mono_fast_ns() at the block */
};

static struct {
	raw_spinlock_t lock;       /* the two tables; taken only for reported events */
	struct sp_det_lock locks[SP_DET_LOCKS];
	struct sp_det_waiter waiters[SP_DET_WAITERS];
	atomic_t nr_waiting;       /* lets contention_end skip the scan */
	u64 clock;
	sp_tid_t readers[SP_MAX_READERS_PER_LOCK];  /* scratch, under lock */
	struct sp_long_blocking longs[SP_DET_LONGS];
	unsigned int nr_longs;
	struct sp_detect_stats st;
	struct tracepoint *tp_begin, *tp_end, *tp_exit;
	bool on_begin, on_end, on_exit;
} sp_det = {
	/* Static: the actuator thread may call in before sp_detect_init(). */
	.lock = __RAW_SPIN_LOCK_UNLOCKED(sp_det.lock),
};

static struct sp_det_lock *sp_det_lock_find(unsigned long key)
{
	unsigned int i;

	for (i = 0; i < SP_DET_LOCKS; i++)
		if (sp_det.locks[i].key == key)
			return &sp_det.locks[i];
	return NULL;
}

/* Finds or takes a slot for @key, recycling the least recently used lock
 * nobody waits on. NULL if every slot has waiters: the event is still
 * reported, the lock is just not watched. */
static struct sp_det_lock *sp_det_lock_get(unsigned long key, enum sp_lock_kind kind)
{
	struct sp_det_lock *l = sp_det_lock_find(key), *victim = NULL;
	unsigned int i;

	if (l)
		goto found;
	for (i = 0; i < SP_DET_LOCKS; i++) {
		l = &sp_det.locks[i];
		if (!l->key) {
			victim = l;
			break;
		}
		if (!l->nwait && (!victim || l->last_use < victim->last_use))
			victim = l;
	}
	if (!victim)
		return NULL;
	if (victim->key) {
		sp_lock_destroyed(sp_core, victim->key);
		sp_det.st.lock_evictions++;
	}
	/* Publish the key last: the reader hooks read it without our lock. */
	victim->kind = kind;
	victim->nwait = 0;
	WRITE_ONCE(victim->key, key);
	sp_lock_declare(sp_core, key, kind);
	l = victim;
	if (kind == SP_LOCK_RWLOCK)
		sp_act_kick();  /* the reader hooks may need arming */
found:
	l->last_use = ++sp_det.clock;
	l->last_ns = ktime_get_mono_fast_ns();
	return l;
}

static struct sp_det_waiter *sp_det_waiter_find(struct task_struct *t)
{
	unsigned int i;

	for (i = 0; i < SP_DET_WAITERS; i++)
		if (READ_ONCE(sp_det.waiters[i].task) == t)
			return &sp_det.waiters[i];
	return NULL;
}

static bool sp_det_is_reader(unsigned long key, pid_t tid)
{
	int i, n = sp_lock_readers(sp_core, key, sp_det.readers,
				   ARRAY_SIZE(sp_det.readers), NULL);

	for (i = 0; i < n; i++)
		if (sp_det.readers[i] == (sp_tid_t)tid)
			return true;
	return false;
}

/* The exclusive holder from the lock's owner word, or NULL. The task_struct
 * stays valid while we are in this preempt-off (RCU) section: task structs
 * are freed after a grace period, which is what mutex_spin_on_owner relies on
 * as well. The word may be stale during a handoff; the next event fixes it. */
static struct task_struct *sp_det_holder(void *lock, enum sp_lock_kind kind)
{
	unsigned long o;

	if (kind == SP_LOCK_MUTEX) {
		o = atomic_long_read(&((struct mutex *)lock)->owner);
		return (struct task_struct *)(o & ~SP_MUTEX_FLAGS);
	}
	o = atomic_long_read(&((struct rw_semaphore *)lock)->owner);
	if (o & SP_RWSEM_READER_OWNED)
		return NULL;  /* only the last reader is visible: use the tracker */
	return (struct task_struct *)(o & ~SP_RWSEM_FLAGS);
}

/* Readers holding the rwsem now: count >> RWSEM_READER_SHIFT (8). */
static unsigned long sp_det_readers_now(void *lock)
{
	return (unsigned long)atomic_long_read(&((struct rw_semaphore *)lock)->count) >> 8;
}

/*
 * When a writer releases, rwsem_mark_wake() hands the lock to the readers
 * queued at the front and wakes them: they hold it before they have run, so
 * their down_read() has not returned and the reader hooks have not seen
 * them. At nice 19 they may not run for a long time. Queued readers are kept
 * in waiter slots (sp_det_queued_reader); those not yet reported are
 * reported now if the rwsem has more readers than the core tracks. Some of
 * them may still be queued rather than holding: then they are fast-tracked
 * needlessly until the waiter stops waiting or the budget ends.
 *
 * (The rwsem's owner word names the last reader too, but it is never
 * cleared, so that task may be long gone: it is never dereferenced.)
 */
static void sp_det_queued_holders(unsigned long key, void *lock)
{
	struct sp_det_waiter *w;
	unsigned int i;

	if (sp_det_readers_now(lock) <=
	    (unsigned long)sp_lock_readers(sp_core, key, sp_det.readers,
					   ARRAY_SIZE(sp_det.readers), NULL))
		return;
	for (i = 0; i < SP_DET_WAITERS; i++) {
		w = &sp_det.waiters[i];
		if (w->task && w->early && !w->reported && w->key == key) {
			sp_lock_acquired(sp_core, w->tid, key, SP_HOLD_SHARED);
			w->reported = true;
			sp_det.st.reader_hints++;
		}
	}
}

/* Make the core's idea of @key's exclusive owner match the owner word. */
static void sp_det_sync_owner(unsigned long key, void *lock, enum sp_lock_kind kind,
			      pid_t self)
{
	struct task_struct *h = sp_det_holder(lock, kind);
	pid_t htid = h ? READ_ONCE(h->pid) : 0;
	sp_tid_t cur = 0;

	if (htid == self)
		htid = 0;
	sp_lock_owner(sp_core, key, &cur);
	if (cur == (sp_tid_t)htid) {
		if (!htid)
			sp_det.st.no_owner++;
		return;
	}
	sp_det.st.owner_changes++;
	if (cur)
		sp_lock_released(sp_core, cur, key, SP_HOLD_EXCL);
	if (htid)
		sp_lock_acquired(sp_core, htid, key, SP_HOLD_EXCL);
	else
		sp_det.st.no_owner++;
}

static void sp_det_block(void *lock, enum sp_lock_kind kind, enum sp_hold hold)
{
	unsigned long key = (unsigned long)lock, flags;
	struct task_struct *t = current;
	struct sp_det_waiter *w;
	struct sp_det_lock *l;
	pid_t tid = t->pid;

	raw_spin_lock_irqsave(&sp_det.lock, flags);
	w = sp_det_waiter_find(t);
	if (w && w->early) {
		/* A queued reader that became interesting: if reported, it stays
		 * a reader; from now on its wait is tracked like any other. */
		WRITE_ONCE(w->task, NULL);
		atomic_dec(&sp_det.nr_waiting);
		w = NULL;
	}
	if (w && w->key == key) {
		/* Same wait seen again (mutex: spin then sleep, or a wakeup
		 * that lost the race): only the holder may have changed. */
		sp_det_sync_owner(key, lock, kind, tid);
		goto out;
	}
	if (w) {
		/* A wait we never saw end: close it before the new one. */
		sp_lock_unblocked(sp_core, w->tid, w->key, false);
		l = sp_det_lock_find(w->key);
		if (l && l->nwait)
			l->nwait--;
		WRITE_ONCE(w->task, NULL);
		atomic_dec(&sp_det.nr_waiting);
	}
	w = sp_det_waiter_find(NULL);
	if (!w) {
		sp_det.st.waiter_full++;
		goto out;
	}
	l = sp_det_lock_get(key, kind);
	if (l)
		l->nwait++;
	sp_det_sync_owner(key, lock, kind, tid);
	if (kind == SP_LOCK_RWLOCK && READ_ONCE(sp_readers_on))
		sp_det_queued_holders(key, lock);
	sp_lock_blocked(sp_core, tid, key, hold);
	w->key = key;
	w->tid = tid;
	w->hold = hold;
	w->kind = kind;
	w->early = false;
	w->reported = false;
	w->start = ktime_get_mono_fast_ns();
	WRITE_ONCE(w->task, t);
	atomic_inc(&sp_det.nr_waiting);
	sp_det.st.blocks++;
out:
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
}

/*
 * A reader queues on a watched rwsem. The queue is FIFO: if a critical
 * writer comes to wait behind it, this reader will hold the lock first, so
 * it is reported as a reader now; its contention_end takes that back if the
 * wait fails, and the down_read() return hook finds it tracked already. If a
 * critical waiter is queued already, the reader is behind it: it is only
 * remembered (sp_det_queued_holders reports it if the lock is handed to it
 * while it sleeps), so that its throttle share is not burnt for nothing.
 */
static void sp_det_queued_reader(void *lock)
{
	unsigned long key = (unsigned long)lock, flags;
	struct task_struct *t = current;
	struct sp_det_waiter *w;
	struct sp_det_lock *l;
	pid_t tid = t->pid;

	raw_spin_lock_irqsave(&sp_det.lock, flags);
	l = sp_det_lock_find(key);
	if (!l || sp_det_waiter_find(t))
		goto out;
	w = sp_det_waiter_find(NULL);
	if (!w) {
		sp_det.st.waiter_full++;
		goto out;
	}
	w->reported = !l->nwait;
	if (w->reported && !sp_det_is_reader(key, tid)) {
		sp_lock_acquired(sp_core, tid, key, SP_HOLD_SHARED);
		sp_det.st.reader_hints++;
	}
	w->key = key;
	w->tid = tid;
	w->hold = SP_HOLD_SHARED;
	w->kind = SP_LOCK_RWLOCK;
	w->early = true;
	WRITE_ONCE(w->task, t);
	atomic_inc(&sp_det.nr_waiting);
out:
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
}

static void sp_probe_begin(void *data, void *lock, unsigned int flags)
{
	enum sp_lock_kind kind;

	if (flags & SP_LCB_F_MUTEX) {
		if (flags & SP_LCB_F_RT)
			return;
		kind = SP_LOCK_MUTEX;
	} else if (flags & (SP_LCB_F_SPIN | SP_LCB_F_RT | SP_LCB_F_PERCPU)) {
		return;  /* spinlocks, rwlocks, rt_mutex, percpu-rwsem */
	} else if (flags & (SP_LCB_F_READ | SP_LCB_F_WRITE)) {
		kind = SP_LOCK_RWLOCK;
	} else {
		return;  /* semaphores */
	}
	if (!sp_tid_interesting(current->pid)) {
		if (kind == SP_LOCK_RWLOCK && (flags & SP_LCB_F_READ) &&
		    READ_ONCE(sp_readers_on) && sp_detect_watched((unsigned long)lock))
			sp_det_queued_reader(lock);
		return;
	}
	sp_det_block(lock, kind, (flags & SP_LCB_F_READ) ? SP_HOLD_SHARED : SP_HOLD_EXCL);
}

/* The last long blockings of reported tasks (over 50 ms), with what the
 * core knew about the lock when they ended: shown in /proc/superpass/stats
 * to tell an untracked holder from a throttled or expired grant. */
static void sp_det_note_long(struct sp_det_waiter *w, void *lock, struct sp_det_lock *l)
{
	u64 ns = ktime_get_mono_fast_ns() - w->start;
	struct sp_long_blocking *r;
	sp_tid_t owner = 0;
	u32 untracked = 0;
	int tracked;

	if (ns < 50 * NSEC_PER_MSEC)
		return;
	sp_lock_owner(sp_core, w->key, &owner);
	tracked = sp_lock_readers(sp_core, w->key, sp_det.readers,
				  ARRAY_SIZE(sp_det.readers), &untracked);
	r = &sp_det.longs[sp_det.nr_longs++ % SP_DET_LONGS];
	r->tid = w->tid;
	r->ms = ns / NSEC_PER_MSEC;
	r->rwsem = l && l->kind == SP_LOCK_RWLOCK;
	r->owner = owner;
	r->tracked = tracked > 0 ? tracked : 0;
	r->untracked = untracked;
	r->readers_now = r->rwsem ? sp_det_readers_now(lock) : 0;
}

void sp_detect_get_longs(struct sp_long_blocking *out, unsigned int *nr)
{
	unsigned long flags;
	unsigned int i, n;

	raw_spin_lock_irqsave(&sp_det.lock, flags);
	n = min_t(unsigned int, sp_det.nr_longs, SP_DET_LONGS);
	for (i = 0; i < n; i++)
		out[i] = sp_det.longs[(sp_det.nr_longs - n + i) % SP_DET_LONGS];
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
	*nr = n;
}

static void sp_probe_end(void *data, void *lock, int ret)
{
	unsigned long key = (unsigned long)lock, flags;
	struct task_struct *t = current;
	struct sp_det_waiter *w;
	struct sp_det_lock *l;
	sp_tid_t prev = 0;

	if (!atomic_read(&sp_det.nr_waiting) || !sp_det_waiter_find(t))
		return;
	raw_spin_lock_irqsave(&sp_det.lock, flags);
	w = sp_det_waiter_find(t);
	if (!w || w->key != key)
		goto out;
	if (w->early) {
		if (ret != 0 && w->reported)
			sp_lock_released(sp_core, w->tid, key, SP_HOLD_SHARED);
		WRITE_ONCE(w->task, NULL);
		atomic_dec(&sp_det.nr_waiting);
		goto out;
	}
	sp_lock_unblocked(sp_core, w->tid, key, ret == 0);
	l = sp_det_lock_find(key);
	sp_det_note_long(w, lock, l);
	if (ret == 0) {
		/* We own it now, so whoever the core thinks held it let go:
		 * that ends the grants made for it. Readers are reported by
		 * the reader hooks, which see every watched down_read. */
		sp_lock_owner(sp_core, key, &prev);
		if (prev && prev != (sp_tid_t)w->tid)
			sp_lock_released(sp_core, prev, key, SP_HOLD_EXCL);
		if (w->hold == SP_HOLD_EXCL && prev != (sp_tid_t)w->tid)
			sp_lock_acquired(sp_core, w->tid, key, SP_HOLD_EXCL);
	}
	if (l && l->nwait)
		l->nwait--;
	WRITE_ONCE(w->task, NULL);
	atomic_dec(&sp_det.nr_waiting);
	sp_det.st.unblocks++;
out:
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
}

static void sp_probe_exit(void *data, struct task_struct *p)
{
	pid_t tid = p->pid;

	if (!sp_tid_ok(tid))
		return;
	if (atomic_read(&sp_det.nr_waiting) && sp_det_waiter_find(p)) {
		unsigned long flags;
		struct sp_det_waiter *w;

		/* A wait whose end we never saw: the slot must not match
		 * a future task_struct at the same address. */
		raw_spin_lock_irqsave(&sp_det.lock, flags);
		w = sp_det_waiter_find(p);
		if (w) {
			struct sp_det_lock *l = sp_det_lock_find(w->key);

			if (!w->early && l && l->nwait)
				l->nwait--;
			WRITE_ONCE(w->task, NULL);
			atomic_dec(&sp_det.nr_waiting);
		}
		raw_spin_unlock_irqrestore(&sp_det.lock, flags);
	}
	/* A marked tid that exits is dropped; its number may come back as
	 * someone else. */
	if (test_bit(tid, sp_critical_map))
		clear_bit(tid, sp_critical_map);
	/* Owners and readers are known to the core without being marked, so
	 * every exit is reported; unknown tids cost one lookup. */
	if (sp_task_exit(sp_core, tid) == 0)
		sp_det.st.exits++;
}

unsigned int sp_detect_nr_waiting(void)
{
	return atomic_read(&sp_det.nr_waiting);
}

/*
 * Called by the actuator thread every few ms while waits are in progress:
 * for every wait older than @min_age_ns, read the lock's owner word again
 * and report the wait again. The owner can change without an event we see
 * (a mutex unlock or handoff emits nothing), and the core treats a repeated
 * block as the same wait and re-runs its policy, so a new holder, or one
 * whose grant a throttle ended, gets a grant instead of staying unboosted
 * until some other event (a nice-19 holder may need seconds to produce one).
 *
 * The lock is alive: its waiter has not passed contention_end (the slot is
 * cleared there, under sp_det.lock, which we hold). Holding a raw spinlock
 * with interrupts off is an RCU read-side section, which keeps the owner's
 * task_struct readable.
 */
void sp_detect_refresh(u64 min_age_ns)
{
	u64 now = ktime_get_mono_fast_ns();
	struct sp_det_waiter *w;
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&sp_det.lock, flags);
	for (i = 0; i < SP_DET_WAITERS; i++) {
		w = &sp_det.waiters[i];
		if (w->task && !w->early && now - w->start >= min_age_ns) {
			sp_det_sync_owner(w->key, (void *)w->key, w->kind, w->tid);
			sp_lock_blocked(sp_core, w->tid, w->key, w->hold);
			sp_det.st.refreshes++;
		}
	}
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
}

unsigned int sp_detect_expire(u64 idle_ns)
{
	u64 now = ktime_get_mono_fast_ns();
	unsigned int i, rwsems = 0;
	struct sp_det_lock *l;
	unsigned long flags;

	raw_spin_lock_irqsave(&sp_det.lock, flags);
	for (i = 0; i < SP_DET_LOCKS; i++) {
		l = &sp_det.locks[i];
		if (!l->key)
			continue;
		if (!l->nwait && now - l->last_ns > idle_ns) {
			sp_lock_destroyed(sp_core, l->key);
			WRITE_ONCE(l->key, 0);
			sp_det.st.lock_expiries++;
		} else if (l->kind == SP_LOCK_RWLOCK) {
			rwsems++;
		}
	}
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
	return rwsems;
}

bool sp_detect_watched(unsigned long key)
{
	unsigned int i;

	for (i = 0; i < SP_DET_LOCKS; i++)
		if (READ_ONCE(sp_det.locks[i].key) == key)
			return true;
	return false;
}

void sp_detect_reader_event(unsigned long key, enum sp_reader_op op)
{
	pid_t tid = current->pid;
	unsigned long flags;

	raw_spin_lock_irqsave(&sp_det.lock, flags);
	if (!sp_det_lock_find(key))
		goto out;  /* recycled meanwhile */
	switch (op) {
	case SP_RD_ACQUIRE:
		if (!sp_det_is_reader(key, tid))  /* reported early while queued? */
			sp_lock_acquired(sp_core, tid, key, SP_HOLD_SHARED);
		break;
	case SP_WR_ACQUIRE:
		sp_lock_acquired(sp_core, tid, key, SP_HOLD_EXCL);
		break;
	case SP_RD_RELEASE:
		sp_lock_released(sp_core, tid, key, SP_HOLD_SHARED);
		break;
	case SP_WR_RELEASE:
		sp_lock_released(sp_core, tid, key, SP_HOLD_EXCL);
		break;
	case SP_WR_DOWNGRADE:
		sp_lock_released(sp_core, tid, key, SP_HOLD_EXCL);
		sp_lock_acquired(sp_core, tid, key, SP_HOLD_SHARED);
		break;
	}
	sp_det.st.reader_events++;
out:
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
}

static void sp_det_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "contention_begin"))
		sp_det.tp_begin = tp;
	else if (!strcmp(tp->name, "contention_end"))
		sp_det.tp_end = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		sp_det.tp_exit = tp;
}

int sp_detect_init(void)
{
	int ret;

	for_each_kernel_tracepoint(sp_det_find_tp, NULL);
	if (!sp_det.tp_begin || !sp_det.tp_end || !sp_det.tp_exit) {
		pr_err("superpass: tracepoints lock:contention_begin/end or sched_process_exit not found\n");
		return -ENOENT;
	}
	/* Exit first: a task must never be left in the core by a missed exit. */
	ret = tracepoint_probe_register(sp_det.tp_exit, sp_probe_exit, NULL);
	if (ret)
		goto err;
	sp_det.on_exit = true;
	ret = tracepoint_probe_register(sp_det.tp_end, sp_probe_end, NULL);
	if (ret)
		goto err;
	sp_det.on_end = true;
	ret = tracepoint_probe_register(sp_det.tp_begin, sp_probe_begin, NULL);
	if (ret)
		goto err;
	sp_det.on_begin = true;
	return 0;
err:
	pr_err("superpass: tracepoint_probe_register failed (%d)\n", ret);
	sp_detect_exit();
	return ret;
}

void sp_detect_exit(void)
{
	unsigned long flags;
	unsigned int i;

	if (sp_det.on_begin)
		tracepoint_probe_unregister(sp_det.tp_begin, sp_probe_begin, NULL);
	if (sp_det.on_end)
		tracepoint_probe_unregister(sp_det.tp_end, sp_probe_end, NULL);
	if (sp_det.on_exit)
		tracepoint_probe_unregister(sp_det.tp_exit, sp_probe_exit, NULL);
	sp_det.on_begin = sp_det.on_end = sp_det.on_exit = false;
	/* No probe is running or will run after this. */
	tracepoint_synchronize_unregister();
	/* Their contention_end will never be seen: drop every wait, so that
	 * the actuator thread's refresh, which still runs until the module
	 * stops it, touches no lock that may be gone. */
	raw_spin_lock_irqsave(&sp_det.lock, flags);
	for (i = 0; i < SP_DET_WAITERS; i++)
		WRITE_ONCE(sp_det.waiters[i].task, NULL);
	atomic_set(&sp_det.nr_waiting, 0);
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
}

void sp_detect_get_stats(struct sp_detect_stats *out)
{
	*out = sp_det.st;
}
