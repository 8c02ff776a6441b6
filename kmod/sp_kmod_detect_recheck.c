// SPDX-License-Identifier: GPL-2.0-only
/*
 * The worker's passes over the detector's tables (task context): the
 * owner words of reported waits read again, readers the core does not
 * track found through an rwsem's owner word, idle locks forgotten, and
 * the log_waits_ms log.
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>

#include "sp_kmod_detect_recheck.h"
#include "sp_kmod_detect_tables.h"
#include "sp_kmod_lock_layout.h"
#include "sp_kmod_params.h"
#include "sp_kmod_state.h"

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
		w->kind == SP_LOCK_MUTEX ? "mutex" : "rwsem", sp_layout_owner_tid((void *)w->key, w->kind),
		w->kind == SP_LOCK_RWLOCK ? sp_layout_rwsem_readers((void *)w->key) : 0,
		l ? l->hint : -1, (unsigned long long)owner, n,
		n > 0 ? (long long)sp_det.readers[0] : 0, n > 1 ? (long long)sp_det.readers[1] : 0,
		n > 2 ? (long long)sp_det.readers[2] : 0, untracked, ne,
		ne > 0 ? early[0] : 0, ne > 1 ? early[1] : 0, ne > 2 ? early[2] : 0,
		ne > 3 ? early[3] : 0, sp_det.live);
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
	rcu_read_lock();  /* a writer's task_struct: see sp_layout_owner_tid */
	for (i = 0; i < SP_DET_WAITERS; i++) {
		w = &sp_det.waiters[i];
		if (w->task && !w->early)
			sp_det_rereport(w, sp_det_word_or_hint(sp_det_lock_find(w->key),
				sp_layout_owner_tid((void *)w->key, w->kind)));
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
 * it waits for a nice-19 task nobody fast-tracks (readers in the count,
 * none tracked). The owner word still names the last reader to take the
 * lock. That pointer may be
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
	struct { unsigned long key, word, reader; pid_t tid; } found[SP_DET_HIDDEN_MAX];
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
		found[n].word = sp_layout_rwsem_owner_word((void *)w->key);
		found[n].reader = sp_layout_rwsem_last_reader(found[n].word);
		if (!found[n].reader)
			continue;
		tracked = sp_lock_readers(sp_core, w->key, sp_det.readers,
					  ARRAY_SIZE(sp_det.readers), NULL);
		if (sp_layout_rwsem_readers((void *)w->key) <= (unsigned long)max(tracked, 0))
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
			if ((unsigned long)t == found[j].reader)
				found[j].tid = t->pid;
	rcu_read_unlock();
	raw_spin_lock_irqsave(&sp_det.lock, flags);
	for (j = 0; j < n; j++) {
		l = sp_det_lock_find(found[j].key);
		/* Still waited on, still the same word (the lock is alive:
		 * a waiter of it has not passed contention_end). */
		if (!found[j].tid || !l || !l->nwait || l->hint ||
		    sp_layout_rwsem_owner_word((void *)found[j].key) != found[j].word)
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
