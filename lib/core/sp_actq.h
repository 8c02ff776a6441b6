/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The actuation queue every host shares: the core's fast_track/restore
 * callbacks push a tid, the host's worker pops it and applies what
 * sp_task_fast_tracked() says at that moment. Order does not matter and a tid
 * is queued at most once (a boost and its restore pushed back to back are
 * one entry, resolved by the worker to "nothing to do"). When the ring is
 * full the queue remembers that a rescan is due instead of losing the tid:
 * the worker then reconciles every task it has changed, and every task it
 * is told about from then on.
 *
 * Push never sleeps or allocates and is safe where the core's events run
 * (a kernel probe with interrupts off); the memory is allocated once.
 */
#ifndef SP_ACTQ_H
#define SP_ACTQ_H

#include "sp_os.h"

#include <superpass/core.h>

struct sp_actq {
	sp_os_lock_t lock;    /* a leaf lock: nothing is called under it */
	sp_tid_t *ring;       /* cap entries */
	sp_tid_t *set;        /* 2 * cap slots, linear probing: what is queued */
	uint32_t cap;         /* power of two */
	uint32_t head, tail;  /* ring positions, free-running */
	bool rescan;
	uint64_t pushes, dups, overflows;
};

/* @cap is rounded up to a power of two (at least 8). -ENOMEM. */
int sp_actq_init(struct sp_actq *q, uint32_t cap);
void sp_actq_fini(struct sp_actq *q);
/* Queues @tid. true if the worker needs a kick (it was not queued yet). */
bool sp_actq_push(struct sp_actq *q, sp_tid_t tid);
/* The next queued tid, or 0 when empty. */
sp_tid_t sp_actq_pop(struct sp_actq *q);
/* true once after the ring overflowed: reconcile everything. */
bool sp_actq_take_rescan(struct sp_actq *q);
/* In a forked child: the lock may have been held by a thread that is
 * gone, and the queued tids are the parent's. Re-inits and drops all. */
void sp_actq_atfork_child(struct sp_actq *q);

#endif /* SP_ACTQ_H */
