// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's private lock layouts, copied from kernel/locking/mutex.c,
 * mutex.h and rwsem.c (the same in 6.1 and 6.12). PREEMPT_RT builds these
 * locks on rt_mutex, with other words: kmod/Kbuild refuses it.
 */
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

#include "sp_kmod_lock_layout.h"

/* Owner-word flag bits: mutex WAITERS, HANDOFF, PICKUP; rwsem
 * READER_OWNED, NONSPINNABLE. */
#define SP_MUTEX_FLAGS 0x07UL
#define SP_RWSEM_READER_OWNED 0x01UL
#define SP_RWSEM_FLAGS 0x03UL
/* rwsem count: readers above RWSEM_READER_SHIFT. */
#define SP_RWSEM_READER_SHIFT 8

/* The heads of struct mutex_waiter (mutex.h) and struct rwsem_waiter
 * (rwsem.c): on the waiter's stack, linked on the lock's wait_list under
 * its wait_lock. */
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
 * An rwsem's word names only the last reader, which may be long gone and
 * is never dereferenced. A writer's task_struct is readable in an RCU read
 * side (task structs are freed after a grace period, which is what
 * mutex_spin_on_owner relies on as well).
 */
pid_t sp_layout_owner_tid(void *lock, enum sp_lock_kind kind)
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

unsigned long sp_layout_rwsem_owner_word(void *lock)
{
	return atomic_long_read(&((struct rw_semaphore *)lock)->owner);
}

unsigned long sp_layout_rwsem_last_reader(unsigned long word)
{
	if (!(word & SP_RWSEM_READER_OWNED))
		return 0;
	return word & ~SP_RWSEM_FLAGS;
}

bool sp_layout_rwsem_reader_owned(void *lock)
{
	return sp_layout_rwsem_owner_word(lock) & SP_RWSEM_READER_OWNED;
}

unsigned long sp_layout_rwsem_readers(void *lock)
{
	return (unsigned long)atomic_long_read(&((struct rw_semaphore *)lock)->count) >>
	       SP_RWSEM_READER_SHIFT;
}

/*
 * Readers at the front of an rwsem's queue are handed the lock together,
 * so only a writer is named. The entry is on its waiter's stack, so it is
 * read under wait_lock only, and with a trylock: the release hooks run
 * just before the release takes that lock itself and must never spin on
 * it (a waiter queueing right now: no name this time).
 */
pid_t sp_layout_first_waiter(void *lock, enum sp_lock_kind kind, bool *busy)
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
