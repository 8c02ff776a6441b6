// SPDX-License-Identifier: GPL-2.0-only
/*
 * Detector: the tracepoint probes' events (sp_kmod_probes.c) as core
 * events, one core call per thing seen. The core only needs waits of tasks
 * it cares about: critical tasks and tasks fast-tracked on their behalf
 * (their own wait extends the chain). contention_begin of such a task is
 * one sp_lock_blocked_owner() carrying the exclusive owner read from the
 * lock word; the core reconciles it with its own record. contention_end
 * is one sp_lock_unblocked().
 *
 * A kernel mutex is released without an event (mutex_unlock emits
 * nothing). That is fine: a wait reported with a lock word ends in an
 * acquire the core counts as taken from a word (core.h, sp_lock_unblocked),
 * so the next word read replaces it. An rwsem's acquires are recorded only
 * while the reader hooks are live (sp_kmod_readers.c), which then report
 * the releases too: readers, which the word does not show, would otherwise
 * stay recorded after they left.
 *
 * Everything here runs in a probe: preemption off, sometimes interrupts
 * off and a wait_lock held; nothing sleeps or allocates.
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "sp_kmod_detect.h"
#include "sp_kmod_detect_tables.h"
#include "sp_kmod_host.h"
#include "sp_kmod_lock_layout.h"
#include "sp_kmod_state.h"

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
	pid_t word = sp_layout_owner_tid(lock, kind);
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
 * in waiter slots (sp_detect_queued_reader); those not yet reported are
 * reported now if the rwsem has more readers than the core tracks. Some of
 * them may still be queued rather than holding: then they are fast-tracked
 * needlessly until the waiter stops waiting or the budget ends.
 */
static void sp_det_queued_holders(unsigned long key, void *lock)
{
	struct sp_det_waiter *w;
	unsigned int i;

	if (sp_layout_rwsem_readers(lock) <=
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

void sp_detect_block(void *lock, enum sp_lock_kind kind, enum sp_hold hold)
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
		sp_det_rereport(w, sp_layout_owner_tid(lock, kind));
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
	sp_det_report(w, sp_det_word_or_hint(l, sp_layout_owner_tid(lock, kind)));
	critical = test_bit(tid, sp_critical_map);
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
	/* The core ticks while a critical task waits: start the ticks. */
	if (critical)
		sp_host_kick_idle();
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
void sp_detect_queued_reader(void *lock)
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
	r->readers_now = r->rwsem ? sp_layout_rwsem_readers(lock) : 0;
}

void sp_detect_unblock(void *lock, int ret)
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

void sp_detect_task_exit(struct task_struct *p)
{
	unsigned long flags;
	struct sp_det_waiter *w;

	if (!atomic_read(&sp_det.nr_waiting) || !sp_det_waiter_find(p))
		return;
	/* A wait whose end we never saw: the slot must not match a future
	 * task_struct at the same address. */
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

void sp_detect_forget_waits(void)
{
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&sp_det.lock, flags);
	for (i = 0; i < SP_DET_WAITERS; i++)
		WRITE_ONCE(sp_det.waiters[i].task, NULL);
	atomic_set(&sp_det.nr_waiting, 0);
	raw_spin_unlock_irqrestore(&sp_det.lock, flags);
}
