/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the module reads inside a kernel mutex or rw_semaphore: the owner
 * word, the rwsem reader count and the first waiter. Their layouts are
 * private to kernel/locking/ (sp_kmod_lock_layout.c copies them); nothing
 * else in the module looks inside a lock.
 */
#ifndef SP_KMOD_LOCK_LAYOUT_H
#define SP_KMOD_LOCK_LAYOUT_H

#include <linux/types.h>

#include <superpass/core.h>

/* The tid of the exclusive owner the owner word names, or 0 (free, or an
 * rwsem held by readers). Call with preemption off or under RCU: the
 * owner's task_struct is read. May be stale during a handoff. */
pid_t sp_layout_owner_tid(void *lock, enum sp_lock_kind kind);
/* The raw owner word of an rw_semaphore. */
unsigned long sp_layout_rwsem_owner_word(void *lock);
/* The address of the last reader that @word (an rwsem owner word) names,
 * or 0 if it names no reader. Possibly a task long gone: compare it,
 * never dereference it. */
unsigned long sp_layout_rwsem_last_reader(unsigned long word);
/* Is the rwsem held by readers (its word names no exclusive owner)? */
bool sp_layout_rwsem_reader_owned(void *lock);
/* Readers holding the rwsem now. */
unsigned long sp_layout_rwsem_readers(void *lock);
/* The task a release of @lock wakes: the first waiter, for an rwsem only
 * a writer; 0 if none, or if the wait list was busy (then *@busy). Never
 * spins on the lock's wait_lock. */
pid_t sp_layout_first_waiter(void *lock, enum sp_lock_kind kind, bool *busy);

#endif /* SP_KMOD_LOCK_LAYOUT_H */
