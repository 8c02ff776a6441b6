/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Futex waits and wakes seen in the kernel (sp_kmod_futex.c): the same
 * SP_LOCK_FUTEX events the userspace interposer sends, for programs the
 * interposer cannot see (static binaries, Go, glibc-internal waits).
 */
#ifndef SP_KMOD_FUTEX_H
#define SP_KMOD_FUTEX_H

#include <linux/types.h>

struct sp_futex_stats {
	u64 waits;          /* waits of interesting tasks reported as blocks */
	u64 pi_waits;       /* ... of them LOCK_PI/LOCK_PI2 with an owner */
	u64 wait_ends;      /* returns of reported waits (unblocks) */
	u64 timeouts;       /* ... of which timed out or were interrupted */
	u64 other_waits;    /* other tasks' waits on known words, reported */
	u64 candidates;     /* tasks back from a wait on a known word (or a
			     * reported one) that did not time out */
	u64 wakes;          /* wakes (and UNLOCK_PI) in watched spaces: releases */
	u64 words_learned;  /* ... of words the core did not know yet */
	u64 spaces_evicted; /* address spaces dropped from the full table */
	u64 high_addrs;     /* words above the key's 48 address bits: ignored */
	u64 missed;         /* the kretprobe ran out of instances */
};

/* Registers the hook disarmed (task context). 0, or a negative errno with
 * one log line; nothing is left registered then. */
int sp_futex_init(void);
/* Unregisters; waits for running handlers. Safe if init failed. */
void sp_futex_exit(void);
/* Arms the hook while some thread is marked critical, disarms it when none
 * is (sleeps: text patching; the worker and the marking write only). */
void sp_futex_sync(void);
/* Thread @nr (caller's pid namespace) was just marked critical: its
 * address space is watched from now on, so that the wakes of its words
 * teach the core their candidates before it first waits (task context). */
void sp_futex_watch(pid_t nr);
bool sp_futex_registered(void);
bool sp_futex_armed(void);
void sp_futex_get_stats(struct sp_futex_stats *out);

#endif /* SP_KMOD_FUTEX_H */
