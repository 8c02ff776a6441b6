// SPDX-License-Identifier: GPL-2.0-only
/*
 * The detector's tables (sp_kmod_detect_tables.h). Lock slots remember
 * every lock an interesting task contended on. They bound how many locks
 * the core keeps (a recycled slot is sp_lock_destroyed()), and they are
 * the watch list of the reader hooks: readers of an rwsem are only
 * tracked once a critical task has contended on it. Everything is static
 * and fixed-size: the probes never allocate.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>

#include "sp_kmod_detect_tables.h"
#include "sp_kmod_host.h"
#include "sp_kmod_state.h"

struct sp_det_tables sp_det = {
	/* Static: the worker thread may call in before the probes exist. */
	.lock = __RAW_SPIN_LOCK_UNLOCKED(sp_det.lock),
};

struct sp_det_lock *sp_det_lock_find(unsigned long key)
{
	unsigned int i;

	for (i = 0; i < SP_DET_LOCKS; i++)
		if (sp_det.locks[i].key == key)
			return &sp_det.locks[i];
	return NULL;
}

void sp_det_lock_forget(struct sp_det_lock *l)
{
	sp_lock_destroyed(sp_core, l->key);
	if (l->kind == SP_LOCK_RWLOCK)
		sp_det.nr_rwsems--;
	WRITE_ONCE(l->key, 0);
}

/* Finds or takes a slot for @key, recycling the least recently used lock
 * nobody waits on. NULL if every slot has waiters: the event is still
 * reported, the lock is just not watched. */
struct sp_det_lock *sp_det_lock_get(unsigned long key, enum sp_lock_kind kind)
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
		sp_host_kick();  /* the reader hooks may need arming */
	}
found:
	l->last_use = ++sp_det.clock;
	l->last_ns = ktime_get_mono_fast_ns();
	return l;
}

struct sp_det_waiter *sp_det_waiter_find(struct task_struct *t)
{
	unsigned int i;

	for (i = 0; i < SP_DET_WAITERS; i++)
		if (READ_ONCE(sp_det.waiters[i].task) == t)
			return &sp_det.waiters[i];
	return NULL;
}

void sp_det_waiter_free(struct sp_det_waiter *w)
{
	WRITE_ONCE(w->task, NULL);
	atomic_dec(&sp_det.nr_waiting);
}

bool sp_det_is_reader(unsigned long key, pid_t tid)
{
	int i, n = sp_lock_readers(sp_core, key, sp_det.readers,
				   ARRAY_SIZE(sp_det.readers), NULL);

	for (i = 0; i < n; i++)
		if (sp_det.readers[i] == (sp_tid_t)tid)
			return true;
	return false;
}

bool sp_det_is_owner(unsigned long key, pid_t tid)
{
	sp_tid_t owner = 0;

	return sp_lock_owner(sp_core, key, &owner) == 0 && owner == (sp_tid_t)tid;
}

/*
 * The owner to report for a lock whose word is @word: the word if it names
 * one (which ends the hint), else the waiter its last release woke
 * (sp_detect_release), which holds the lock as soon as it runs. Under
 * sp_det.lock.
 */
pid_t sp_det_word_or_hint(struct sp_det_lock *l, pid_t word)
{
	if (!l)
		return word;
	if (word) {
		l->hint = 0;
		return word;
	}
	return l->hint;
}

/* Reports @w's wait with the owner word @word. */
void sp_det_report(struct sp_det_waiter *w, pid_t word)
{
	if (!word)
		sp_det.st.no_owner++;
	sp_lock_blocked_owner(sp_core, w->tid, w->key, w->hold, true, word);
}

/* Reports @w's wait again if @word tells the core something: it names
 * another owner than the core's record (which every waiter's report and
 * the hooks change, so it is the one to compare with), and not the waiter
 * itself (a handoff to it, which the core ignores). */
void sp_det_rereport(struct sp_det_waiter *w, pid_t word)
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

void sp_detect_get_stats(struct sp_detect_stats *out)
{
	*out = sp_det.st;
}
