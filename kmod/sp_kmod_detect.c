// SPDX-License-Identifier: GPL-2.0-only
/*
 * Detector: turns lock:contention_begin/end and sched_process_exit into core
 * events, one core call per thing seen; sched_process_fork marks the new
 * threads of a process marked as a whole.
 *
 * These tracepoints are not exported, so the probes are attached by name
 * through for_each_kernel_tracepoint() + tracepoint_probe_register(). They
 * fire for every contended kernel lock, spinlocks included, with preemption
 * off and sometimes with interrupts off and a wait_lock held: the fast path
 * returns after a flag test and one or two bit tests, and nothing here
 * sleeps or allocates (all tables are static and fixed-size).
 *
 * The core only needs waits of tasks it cares about: critical tasks and
 * tasks fast-tracked on their behalf (their own wait extends the chain).
 * contention_begin of such a task is one sp_lock_blocked_owner() carrying
 * the exclusive owner read from the lock word; the core reconciles it with
 * its own record. contention_end is one sp_lock_unblocked().
 *
 * A kernel mutex is released without an event (mutex_unlock emits
 * nothing). That is fine: a wait reported with a lock word ends in an
 * acquire the core counts as taken from a word (core.h, sp_lock_unblocked),
 * so the next word read replaces it. An rwsem's acquires are recorded only
 * while the reader hooks are live (sp_kmod_readers.c), which then report
 * the releases too: readers, which the word does not show, would otherwise
 * stay recorded after they left.
 *
 * Lock slots remember every lock such a task contended on. They bound how
 * many locks the core keeps (a recycled slot is sp_lock_destroyed()), and
 * they are the watch list of the reader hooks: readers of an rwsem are only
 * tracked once a critical task has contended on it.
 */
#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>

#include "sp_kmod.h"
#include "sp_kmod_detect.h"
#include "sp_kmod_worker.h"

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

static struct {
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
	struct tracepoint *tp_begin, *tp_end, *tp_exit, *tp_fork;
	bool on_begin, on_end, on_exit, on_fork;
} sp_det = {
	/* Static: the worker thread may call in before sp_detect_init(). */
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

/* Frees slot @l: the core forgets the lock (its grants end). */
static void sp_det_lock_forget(struct sp_det_lock *l)
{
	sp_lock_destroyed(sp_core, l->key);
	if (l->kind == SP_LOCK_RWLOCK)
		sp_det.nr_rwsems--;
	WRITE_ONCE(l->key, 0);
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
		sp_det_lock_forget(victim);
		sp_det.st.lock_evictions++;
	}
	/* The key last. WRITE_ONCE, not a release (on arm64 the stores
	 * above may become visible after it): the reader hooks read keys
	 * without our lock only as a filter (sp_detect_watched), and take
	 * sp_det.lock before they touch the slot (sp_detect_reader_event),
	 * which orders them after this whole section. */
	victim->kind = kind;
	victim->nwait = 0;
	victim->hint = 0;
	WRITE_ONCE(victim->key, key);
	sp_lock_declare(sp_core, key, kind);
	l = victim;
	if (kind == SP_LOCK_RWLOCK) {
		sp_det.nr_rwsems++;
		sp_worker_kick();  /* the reader hooks may need arming */
	}
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

static void sp_det_waiter_free(struct sp_det_waiter *w)
{
	WRITE_ONCE(w->task, NULL);
	atomic_dec(&sp_det.nr_waiting);
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

static bool sp_det_is_owner(unsigned long key, pid_t tid)
{
	sp_tid_t owner = 0;

	return sp_lock_owner(sp_core, key, &owner) == 0 && owner == (sp_tid_t)tid;
}

/*
 * The exclusive owner named by the lock's owner word: its tid, or 0 if the
 * word names none (free, or held by readers: an rwsem's word then names
 * only the last reader, which may be long gone and is never dereferenced).
 * The task_struct of a writer is readable while we are in this RCU read
 * side (task structs are freed after a grace period, which is what
 * mutex_spin_on_owner relies on as well). The word may be stale during a
 * handoff; the worker reads it again every tick.
 */
static pid_t sp_det_word(void *lock, enum sp_lock_kind kind)
{
	struct task_struct *h;
	unsigned long o;

	if (kind == SP_LOCK_MUTEX) {
		o = atomic_long_read(&((struct mutex *)lock)->owner);
		h = (struct task_struct *)(o & ~SP_MUTEX_FLAGS);
	} else {
		o = atomic_long_read(&((struct rw_semaphore *)lock)->owner);
		if (o & SP_RWSEM_READER_OWNED)
			return 0;
		h = (struct task_struct *)(o & ~SP_RWSEM_FLAGS);
	}
	return h ? READ_ONCE(h->pid) : 0;
}

/*
 * The owner to report for a lock whose word is @word: the word if it names
 * one (which ends the hint), else the waiter its last release woke
 * (sp_detect_release), which holds the lock as soon as it runs. Under
 * sp_det.lock.
 */
static pid_t sp_det_word_or_hint(struct sp_det_lock *l, pid_t word)
{
	if (!l)
		return word;
	if (word) {
		l->hint = 0;
		return word;
	}
	return l->hint;
}

/* Readers holding the rwsem now: count >> RWSEM_READER_SHIFT (8). */
static unsigned long sp_det_readers_now(void *lock)
{
	return (unsigned long)atomic_long_read(&((struct rw_semaphore *)lock)->count) >> 8;
}

/* Reports @w's wait with the owner word @word. */
static void sp_det_report(struct sp_det_waiter *w, pid_t word)
{
	if (!word)
		sp_det.st.no_owner++;
	sp_lock_blocked_owner(sp_core, w->tid, w->key, w->hold, true, word);
}

/* Reports @w's wait again if @word tells the core something: it names
 * another owner than the core's record (which every waiter's report and
 * the hooks change, so it is the one to compare with), and not the waiter
 * itself (a handoff to it, which the core ignores). */
static void sp_det_rereport(struct sp_det_waiter *w, pid_t word)
{
	sp_tid_t cur = 0;

	if (word == w->tid)
		return;
	sp_lock_owner(sp_core, w->key, &cur);
	if (cur == (sp_tid_t)word)
		return;
	sp_det_report(w, word);
	sp_det.st.rereports++;
}

/*
 * @self just took @key without the core recording the acquire (a mutex:
 * see the top of this file). The word names it now, so the other waits
 * reported on @key are reported again with it: their owner changed, and
 * the core fast-tracks the new one for them now rather than at the
 * worker's next look at the word.
 */
static void sp_det_handover(unsigned long key, void *lock, enum sp_lock_kind kind,
			    struct task_struct *self)
{
	struct sp_det_waiter *w;
	pid_t word = sp_det_word(lock, kind);
	unsigned int i;

	for (i = 0; i < SP_DET_WAITERS; i++) {
		w = &sp_det.waiters[i];
		if (w->task && w->task != self && !w->early && w->key == key)
			sp_det_rereport(w, word);
	}
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

static void sp_det_block(void *lock, enum sp_lock_kind kind, enum sp_hold hold)
{
	unsigned long key = (unsigned long)lock, flags;
	struct task_struct *t = current;
	struct sp_det_waiter *w;
	struct sp_det_lock *l;
	pid_t tid = t->pid;
	bool critical;

	raw_spin_lock_irqsave(&sp_det.lock, flags);
	w = sp_det_waiter_find(t);
	if (w && w->early) {
		/* A queued reader that became interesting: if reported, it stays
		 * a reader; from now on its wait is tracked like any other. */
		sp_det_waiter_free(w);
		w = NULL;
	}
	if (w && w->key == key) {
		/* Same wait seen again (mutex: spin then sleep, or a wakeup
		 * that lost the race): only the owner may have changed, and
		 * only then is it worth a report. */
		sp_det_rereport(w, sp_det_word(lock, kind));
		goto out;
	}
	if (w) {
		/* A wait we never saw end: the core closes it when it hears
		 * of the new one; the slot is reused for that. */
		l = sp_det_lock_find(w->key);
		if (l && l->nwait)
			l->nwait--;
		sp_det_waiter_free(w);
	}
	w = sp_det_waiter_find(NULL);
	if (!w) {
		sp_det.st.waiter_full++;
		goto out;
	}
	l = sp_det_lock_get(key, kind);
	if (l)
		l->nwait++;
	if (kind == SP_LOCK_RWLOCK && sp_det.live)
		sp_det_queued_holders(key, lock);
	w->key = key;
	w->tid = tid;
	w->hold = hold;
	w->kind = kind;
	w->early = false;
	w->reported = false;
	w->logged = false;
	w->looked = false;
	w->start = ktime_get_mono_fast_ns();
	WRITE_ONCE(w->task, t);
	atomic_inc(&sp_det.nr_waiting);
	sp_det.st.blocks++;
	sp_det_report(w, sp_det_word_or_hint(l, sp_det_word(lock, kind)));
	critical = test_bit(tid, sp_critical_map);
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
	/* The core ticks while a critical task waits: start the ticks. */
	if (critical)
		sp_worker_kick_idle();
	return;
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
	if (!l || !sp_det.live || sp_det_waiter_find(t))
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
		    sp_detect_watched((unsigned long)lock))
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
	bool acquired;

	if (!atomic_read(&sp_det.nr_waiting) || !sp_det_waiter_find(t))
		return;
	raw_spin_lock_irqsave(&sp_det.lock, flags);
	w = sp_det_waiter_find(t);
	if (!w || w->key != key)
		goto out;
	if (w->early) {
		/* Reported as a holder while queued, and it gave up. */
		if (ret != 0 && w->reported)
			sp_lock_released(sp_core, w->tid, key, SP_HOLD_SHARED);
		sp_det_waiter_free(w);
		goto out;
	}
	/* See the top of this file: a mutex acquire yields to the next
	 * word; an rwsem's only while its releases are reported. The
	 * reader hooks that report it again find it recorded and stay
	 * quiet. */
	acquired = ret == 0 && (w->kind != SP_LOCK_RWLOCK || sp_det.live);
	l = sp_det_lock_find(key);
	/* Before the unblock: after it, the core records the waiter itself
	 * as the owner it has just become. */
	sp_det_note_long(w, lock, l);
	sp_lock_unblocked(sp_core, w->tid, key, acquired);
	if (l && ret == 0)
		l->hint = 0;  /* it is the owner now; the word says so */
	if (ret == 0 && !acquired && l && l->nwait > 1)
		sp_det_handover(key, lock, w->kind, t);
	if (l && l->nwait)
		l->nwait--;
	sp_det_waiter_free(w);
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
			sp_det_waiter_free(w);
		}
		raw_spin_unlock_irqrestore(&sp_det.lock, flags);
	}
	/* A marked tid that exits is dropped; its number may come back as
	 * someone else. */
	if (test_bit(tid, sp_critical_map) && test_and_clear_bit(tid, sp_critical_map))
		atomic_dec(&sp_nr_critical);
	/* The last thread of a marked process: its pid may come back too
	 * (do_exit counts signal->live down before this tracepoint; the
	 * fork probe clears a reused leader's bit as well). */
	if (sp_tid_ok(p->tgid) && test_bit(p->tgid, sp_marked_procs) &&
	    !atomic_read(&p->signal->live))
		clear_bit(p->tgid, sp_marked_procs);
	/* Owners and readers are known to the core without being marked, so
	 * every exit is reported; unknown tids cost one lookup. */
	if (sp_task_exit(sp_core, tid) == 0)
		sp_det.st.exits++;
}

/*
 * The worker, every tick: a mutex changes hands without an event (unlock
 * and handoff emit nothing), and a writer may take an rwsem ahead of a
 * sleeping waiter. So the owner word of every reported wait is read again,
 * and the wait is reported again where it names another owner than the
 * core's: the core treats that as the same wait and walks again with the
 * new owner, which gets a grant instead of staying unboosted until some
 * other event (a nice-19 holder may need seconds to produce one). A word
 * that agrees costs two reads.
 *
 * The lock is alive: its waiter has not passed contention_end (the slot is
 * cleared there, under sp_det.lock, which we hold).
 */
/*
 * log_waits_ms: what the detector and the core know of a wait that has
 * lasted that long, once per wait (a debugging aid: which holder was
 * missing from the record). Under sp_det.lock and rcu_read_lock.
 */
static void sp_det_log_wait(struct sp_det_waiter *w, u64 now)
{
	struct sp_det_lock *l = sp_det_lock_find(w->key);
	sp_tid_t owner = 0;
	u32 untracked = 0;
	int n, i, ne = 0;
	pid_t early[4];

	w->logged = true;
	sp_lock_owner(sp_core, w->key, &owner);
	n = sp_lock_readers(sp_core, w->key, sp_det.readers, ARRAY_SIZE(sp_det.readers),
			    &untracked);
	for (i = 0; i < SP_DET_WAITERS && ne < (int)ARRAY_SIZE(early); i++)
		if (sp_det.waiters[i].task && sp_det.waiters[i].early &&
		    sp_det.waiters[i].key == w->key)
			early[ne++] = sp_det.waiters[i].reported ? sp_det.waiters[i].tid :
								   -sp_det.waiters[i].tid;
	pr_info("superpass: wait tid %d %llu ms on %s: word %d readers_now %lu hint %d core owner %llu readers %d [%lld %lld %lld] untracked %u early %d [%d %d %d %d] live %d\n",
		w->tid, (now - w->start) / NSEC_PER_MSEC,
		w->kind == SP_LOCK_MUTEX ? "mutex" : "rwsem", sp_det_word((void *)w->key, w->kind),
		w->kind == SP_LOCK_RWLOCK ? sp_det_readers_now((void *)w->key) : 0,
		l ? l->hint : -1, (unsigned long long)owner, n,
		n > 0 ? (long long)sp_det.readers[0] : 0, n > 1 ? (long long)sp_det.readers[1] : 0,
		n > 2 ? (long long)sp_det.readers[2] : 0, untracked, ne,
		ne > 0 ? early[0] : 0, ne > 1 ? early[1] : 0, ne > 2 ? early[2] : 0,
		ne > 3 ? early[3] : 0, sp_det.live);
}

void sp_detect_recheck_owners(void)
{
	struct sp_det_waiter *w;
	unsigned long flags;
	unsigned int i;
	u64 now;

	if (!atomic_read(&sp_det.nr_waiting))
		return;
	now = ktime_get_mono_fast_ns();
	raw_spin_lock_irqsave(&sp_det.lock, flags);
	rcu_read_lock();  /* a writer's task_struct: see sp_det_word */
	for (i = 0; i < SP_DET_WAITERS; i++) {
		w = &sp_det.waiters[i];
		if (w->task && !w->early)
			sp_det_rereport(w, sp_det_word_or_hint(sp_det_lock_find(w->key),
				sp_det_word((void *)w->key, w->kind)));
		if (w->task && !w->early && !w->logged && sp_param_log_waits_ms &&
		    now - w->start >= (u64)sp_param_log_waits_ms * NSEC_PER_MSEC)
			sp_det_log_wait(w, now);
	}
	rcu_read_unlock();
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
}

/*
 * A reader that took an rwsem before the lock was watched (before a
 * critical task first contended on it: the reader hooks take only watched
 * locks) is not in the core's tracker, and a critical writer waiting for
 * it waits for a nice-19 task nobody fast-tracks: seen under QEMU as a
 * 400-500 ms wait with readers in the count and none tracked. The owner
 * word still names the last reader to take the lock. That pointer may be
 * a task long gone, so it is never dereferenced: the live threads are
 * walked under RCU and compared with it, and only a match gives a tid.
 * That tid becomes the lock's hint (sp_det_word_or_hint), reported as the
 * holder to the waits on it until an acquire or the word changes it: if
 * it released already, it is fast-tracked needlessly for that long,
 * within the budget. Once per wait; the walk costs one compare per
 * thread on the system, in the worker, outside every lock of ours.
 */
#define SP_DET_HIDDEN_MAX 4u
void sp_detect_find_hidden_readers(void)
{
	struct { unsigned long key, word; pid_t tid; } found[SP_DET_HIDDEN_MAX];
	struct task_struct *p, *t;
	struct sp_det_waiter *w;
	struct sp_det_lock *l;
	unsigned int i, j, n = 0;
	unsigned long flags;
	int tracked;

	if (!atomic_read(&sp_det.nr_waiting))
		return;
	raw_spin_lock_irqsave(&sp_det.lock, flags);
	for (i = 0; i < SP_DET_WAITERS && n < SP_DET_HIDDEN_MAX; i++) {
		w = &sp_det.waiters[i];
		if (!w->task || w->early || w->looked || w->kind != SP_LOCK_RWLOCK)
			continue;
		w->looked = true;
		l = sp_det_lock_find(w->key);
		if (!l || l->hint)
			continue;
		found[n].word = atomic_long_read(&((struct rw_semaphore *)w->key)->owner);
		if (!(found[n].word & SP_RWSEM_READER_OWNED) || !(found[n].word & ~SP_RWSEM_FLAGS))
			continue;
		tracked = sp_lock_readers(sp_core, w->key, sp_det.readers,
					  ARRAY_SIZE(sp_det.readers), NULL);
		if (sp_det_readers_now((void *)w->key) <= (unsigned long)max(tracked, 0))
			continue;
		found[n].key = w->key;
		found[n].tid = 0;
		n++;
	}
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
	if (!n)
		return;
	rcu_read_lock();
	for_each_process_thread(p, t)
		for (j = 0; j < n; j++)
			if ((unsigned long)t == (found[j].word & ~SP_RWSEM_FLAGS))
				found[j].tid = t->pid;
	rcu_read_unlock();
	raw_spin_lock_irqsave(&sp_det.lock, flags);
	for (j = 0; j < n; j++) {
		l = sp_det_lock_find(found[j].key);
		/* Still waited on, still the same word (the lock is alive:
		 * a waiter of it has not passed contention_end). */
		if (!found[j].tid || !l || !l->nwait || l->hint ||
		    atomic_long_read(&((struct rw_semaphore *)found[j].key)->owner) != found[j].word)
			continue;
		l->hint = found[j].tid;
		sp_det.st.hidden_readers++;
	}
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
}

void sp_detect_expire(u64 idle_ns)
{
	u64 now = ktime_get_mono_fast_ns();
	struct sp_det_lock *l;
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&sp_det.lock, flags);
	for (i = 0; i < SP_DET_LOCKS; i++) {
		l = &sp_det.locks[i];
		if (l->key && !l->nwait && now - l->last_ns > idle_ns) {
			sp_det_lock_forget(l);
			sp_det.st.lock_expiries++;
		}
	}
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
}

unsigned int sp_detect_nr_rwsems(void)
{
	return READ_ONCE(sp_det.nr_rwsems);
}

void sp_detect_hooks_live(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&sp_det.lock, flags);
	WRITE_ONCE(sp_det.live, true);
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
}

bool sp_detect_hooks_idle(bool forget)
{
	unsigned long flags;
	unsigned int i;
	bool idle = true;

	raw_spin_lock_irqsave(&sp_det.lock, flags);
	if (forget) {
		/* Reader tracking turned off: the hooks go, so every rwsem
		 * acquire the core recorded would keep a holder whose release
		 * nobody reports. */
		for (i = 0; i < SP_DET_LOCKS; i++)
			if (sp_det.locks[i].key && sp_det.locks[i].kind == SP_LOCK_RWLOCK)
				sp_det_lock_forget(&sp_det.locks[i]);
	} else if (sp_det.nr_rwsems) {
		idle = false;  /* watched again since the worker looked */
	}
	if (idle)
		WRITE_ONCE(sp_det.live, false);
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
	return idle;
}

bool sp_detect_waited(unsigned long key)
{
	unsigned int i;

	if (!atomic_read(&sp_det.nr_waiting))
		return false;
	for (i = 0; i < SP_DET_LOCKS; i++)
		if (READ_ONCE(sp_det.locks[i].key) == key)
			return READ_ONCE(sp_det.locks[i].nwait);
	return false;
}

/* The heads of struct mutex_waiter (kernel/locking/mutex.h) and struct
 * rwsem_waiter (kernel/locking/rwsem.c), private to the kernel and the
 * same in 6.1 and 6.12: on the waiter's stack, linked on the lock's
 * wait_list under its wait_lock. */
struct sp_mutex_waiter_head {
	struct list_head list;
	struct task_struct *task;
};

struct sp_rwsem_waiter_head {
	struct list_head list;
	struct task_struct *task;
	int type;                /* enum rwsem_waiter_type */
};
#define SP_RWSEM_WAITING_FOR_WRITE 0

/*
 * The task a release of @lock wakes (or hands it to): the first waiter;
 * for an rwsem only a writer (readers at the front are handed the lock
 * together: sp_det_queued_holders). The entry is on its stack, so it is
 * read under wait_lock only, and with a trylock: the hook runs just
 * before the release takes that lock itself and must never spin on it (a
 * waiter queueing right now: no name this time, *@busy).
 */
static pid_t sp_det_first_waiter(void *lock, enum sp_lock_kind kind, bool *busy)
{
	struct sp_rwsem_waiter_head *rw;
	struct list_head *head;
	raw_spinlock_t *wl;
	unsigned long flags;
	pid_t tid = 0;

	if (kind == SP_LOCK_MUTEX) {
		wl = &((struct mutex *)lock)->wait_lock;
		head = &((struct mutex *)lock)->wait_list;
	} else {
		wl = &((struct rw_semaphore *)lock)->wait_lock;
		head = &((struct rw_semaphore *)lock)->wait_list;
	}
	if (!raw_spin_trylock_irqsave(wl, flags)) {
		*busy = true;
		return 0;
	}
	if (!list_empty(head)) {
		if (kind == SP_LOCK_MUTEX) {
			tid = READ_ONCE(list_first_entry(head, struct sp_mutex_waiter_head,
							 list)->task->pid);
		} else {
			rw = list_first_entry(head, struct sp_rwsem_waiter_head, list);
			if (READ_ONCE(rw->type) == SP_RWSEM_WAITING_FOR_WRITE)
				tid = READ_ONCE(rw->task->pid);
		}
	}
	raw_spin_unlock_irqrestore(wl, flags);
	return tid;
}

/*
 * current releases @lock, which reported tasks wait on (an rwsem: as its
 * writer or last reader). Each of their waits is reported again: with the
 * woken waiter as the owner (the core fast-tracks it now, before it has
 * run to take the lock, and the releasing holder's grant ends), or with
 * "free" to the woken one itself, whose contention_end follows. Until the
 * word names an owner, the worker keeps reporting the woken waiter
 * (sp_det_word_or_hint). A word that still names the releaser (read in
 * the moment before the release clears it) ends the hint early: it is
 * also what the word says when the releaser takes the lock back, as a
 * looping holder does, and then it is the one to fast-track.
 */
void sp_detect_release(void *lock, enum sp_lock_kind kind)
{
	unsigned long key = (unsigned long)lock, flags;
	struct sp_det_waiter *w;
	struct sp_det_lock *l;
	bool busy = false, to_reported = false;
	pid_t next;
	unsigned int i;

	if (kind == SP_LOCK_RWLOCK &&
	    (atomic_long_read(&((struct rw_semaphore *)lock)->owner) & SP_RWSEM_READER_OWNED) &&
	    sp_det_readers_now(lock) > 1)
		return;  /* not the last reader: nobody is woken */
	next = sp_det_first_waiter(lock, kind, &busy);
	raw_spin_lock_irqsave(&sp_det.lock, flags);
	l = sp_det_lock_find(key);
	if (!l || l->kind != kind || !l->nwait)
		goto out;
	sp_det.st.unlocks++;
	if (busy)
		sp_det.st.unlock_busy++;
	l->hint = next;
	for (i = 0; i < SP_DET_WAITERS; i++) {
		w = &sp_det.waiters[i];
		if (!w->task || w->early || w->key != key)
			continue;
		if (w->tid == next)
			to_reported = true;
		sp_det_rereport(w, w->tid == next ? 0 : next);
	}
	if (next && !to_reported)
		sp_det.st.unlock_hints++;
out:
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
}

bool sp_detect_watched(unsigned long key)
{
	unsigned int i;

	if (!READ_ONCE(sp_det.live))
		return false;
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
	if (!sp_det.live || !sp_det_lock_find(key))
		goto out;  /* disarming, or recycled meanwhile */
	if (op == SP_RD_ACQUIRE || op == SP_WR_ACQUIRE)
		sp_det_lock_find(key)->hint = 0;  /* taken: the core hears who */
	switch (op) {
	case SP_RD_ACQUIRE:
		/* Reported already: queued early, or by its contention_end. */
		if (!sp_det_is_reader(key, tid))
			sp_lock_acquired(sp_core, tid, key, SP_HOLD_SHARED);
		break;
	case SP_WR_ACQUIRE:
		if (!sp_det_is_owner(key, tid))  /* by its contention_end? */
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

/*
 * A new task. Runs in the parent after copy_process() put the child in
 * its thread group's list, preemption disabled (the probe rules). Only
 * threads of a process marked as a whole are marked; a child process
 * (its own thread group) never inherits the mark, and its pid, if a
 * marked process of that number is gone, drops the stale process bit.
 */
static void sp_probe_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	pid_t tid = child->pid, tgid = child->tgid;

	if (!sp_tid_ok(tid) || !sp_tid_ok(tgid))
		return;
	if (tid == tgid) {
		if (test_bit(tid, sp_marked_procs))
			clear_bit(tid, sp_marked_procs);
		return;
	}
	if (!test_bit(tgid, sp_marked_procs))
		return;
	if (sp_mark_tid(tid, true)) {
		sp_det.st.fork_mark_errors++;
		return;
	}
	/* Pairs with the barrier between clearing the process bit and
	 * walking its threads in sp_critical_write(): if the bit is still
	 * set, that walk comes after our mark and unmarks this thread;
	 * if not, we undo it ourselves. */
	smp_mb();
	if (!test_bit(tgid, sp_marked_procs))
		sp_mark_tid(tid, false);
	else
		sp_det.st.fork_marks++;
}

static void sp_det_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "contention_begin"))
		sp_det.tp_begin = tp;
	else if (!strcmp(tp->name, "contention_end"))
		sp_det.tp_end = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		sp_det.tp_exit = tp;
	else if (!strcmp(tp->name, "sched_process_fork"))
		sp_det.tp_fork = tp;
}

int sp_detect_init(void)
{
	int ret;

	for_each_kernel_tracepoint(sp_det_find_tp, NULL);
	if (!sp_det.tp_begin || !sp_det.tp_end || !sp_det.tp_exit || !sp_det.tp_fork) {
		pr_err("superpass: tracepoints lock:contention_begin/end or sched_process_exit/fork not found\n");
		return -ENOENT;
	}
	/* Exit first: a task must never be left in the core by a missed exit. */
	ret = tracepoint_probe_register(sp_det.tp_exit, sp_probe_exit, NULL);
	if (ret)
		goto err;
	sp_det.on_exit = true;
	ret = tracepoint_probe_register(sp_det.tp_fork, sp_probe_fork, NULL);
	if (ret)
		goto err;
	sp_det.on_fork = true;
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
	if (sp_det.on_fork)
		tracepoint_probe_unregister(sp_det.tp_fork, sp_probe_fork, NULL);
	if (sp_det.on_exit)
		tracepoint_probe_unregister(sp_det.tp_exit, sp_probe_exit, NULL);
	sp_det.on_begin = sp_det.on_end = sp_det.on_exit = sp_det.on_fork = false;
	/* No probe is running or will run after this. */
	tracepoint_synchronize_unregister();
	/* Their contention_end will never be seen: drop every wait, so that
	 * the worker's owner re-check, which still runs until the module
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
