/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The detector's side of the release and reader hooks
 * (sp_kmod_detect_hooks.c): what they ask before acting, the events they
 * report, and the worker's arming handshake.
 */
#ifndef SP_KMOD_DETECT_HOOKS_H
#define SP_KMOD_DETECT_HOOKS_H

#include <linux/types.h>

#include <superpass/core.h>

/* Is @key a lock an interesting task contended on, with the hooks live?
 * Any context, lock-free. */
bool sp_detect_watched(unsigned long key);
/* Does a reported task wait on lock @key now? Any context, lock-free. */
bool sp_detect_waited(unsigned long key);
/* current is releasing @lock (a mutex with waiters; an rwsem's writer or
 * a reader): if that wakes a waiter, its holder's grant ends and the
 * waiter it wakes is named as the next owner. */
void sp_detect_release(void *lock, enum sp_lock_kind kind);

enum sp_reader_op {
	SP_RD_ACQUIRE, SP_RD_RELEASE, SP_WR_ACQUIRE, SP_WR_RELEASE, SP_WR_DOWNGRADE
};
/* current did @op on watched rwsem @key. */
void sp_detect_reader_event(unsigned long key, enum sp_reader_op op);

/* ---- the worker ---- */
/* rwsems watched now. */
unsigned int sp_detect_nr_rwsems(void);
/* The reader hooks are armed: take their events, and record rwsem
 * acquires whose release they will report. */
void sp_detect_hooks_live(void);
/* Before disarming: false if an rwsem is watched again (unless @forget:
 * then every rwsem is forgotten, since its releases will go unseen);
 * otherwise stops taking hook events and returns true. */
bool sp_detect_hooks_idle(bool forget);

#endif /* SP_KMOD_DETECT_HOOKS_H */
