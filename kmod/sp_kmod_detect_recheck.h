/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The worker's passes over the detector's tables (sp_kmod_detect_recheck.c).
 * Task context, no locks held.
 */
#ifndef SP_KMOD_DETECT_RECHECK_H
#define SP_KMOD_DETECT_RECHECK_H

#include <linux/types.h>

/* Names the reader an rwsem's owner word points at, for waits on rwsems
 * held by readers the core does not track (see the function). */
void sp_detect_find_hidden_readers(void);
/* Reads the owner word of every reported wait again and reports the wait
 * again where it changed. */
void sp_detect_recheck_owners(void);
/* Forgets locks nobody waits on and no interesting task contended on for
 * @idle_ns. */
void sp_detect_expire(u64 idle_ns);

#endif /* SP_KMOD_DETECT_RECHECK_H */
