// SPDX-License-Identifier: GPL-2.0-only
/*
 * The detector's side of the release and reader hooks (sp_kmod_unlock.c,
 * sp_kmod_readers.c): their events on watched locks as core events, and
 * whether they are live. The hooks run at function entry or return, in
 * any task, so each first filters on the lock address lock-free.
 */
#include <linux/kernel.h>
#include <linux/sched.h>

#include "sp_kmod_detect_hooks.h"
#include "sp_kmod_detect_tables.h"
#include "sp_kmod_lock_layout.h"
#include "sp_kmod_state.h"

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

	if (kind == SP_LOCK_RWLOCK && sp_layout_rwsem_reader_owned(lock) &&
	    sp_layout_rwsem_readers(lock) > 1)
		return;  /* not the last reader: nobody is woken */
	next = sp_layout_first_waiter(lock, kind, &busy);
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
