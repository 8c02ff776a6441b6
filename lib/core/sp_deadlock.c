// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The deadlock suspicion: when a walk meets a cycle, is it one?
 *
 * The graph is assembled from events of many threads and from lock words
 * read by waiters, so a lock-free walk can meet a cycle that never existed:
 *  - its reads are spread over time: a holder read as owner of L1 may have
 *    let go of L1 and be waiting for L0 by the time its wait is read;
 *  - an owner taken from a lock word (sp_lock_set_owner) stays recorded
 *    after a release the host never reports: B is still "owner" of L1
 *    while its waiter A, woken, has not run yet to say it took L1; B goes
 *    on, waits for L0, which A holds, and the graph has the cycle
 *    A -> L1 -> B -> L0 -> A in a program that takes L0 before L1. A
 *    second walk right after the first sees the same records.
 * So a cycle counts only if it holds in one consistent view, and then only
 * as far as the records can be trusted:
 *  1. Found by a walk that notes, for every edge, the holder's wait number
 *     (block_seq, odd while it waits) and whether the core heard the holder
 *     take the lock (exact) or has it from a lock word.
 *  2. Every edge read again after a full barrier: each holder still waits
 *     for the same lock in the same wait, each lock still has that holder.
 *     A waiting task takes no lock and lets none go, so its holdings were
 *     the same over the whole interval: the cycle held, in the records, at
 *     one instant.
 *  3. Exact edges (the host reports that release) are the truth: reported
 *     at once. An edge from a lock word may be a release nobody reported;
 *     only time tells it from a real hold (a real deadlock does not go
 *     away, a stale word does when its waiter runs): such a cycle is
 *     reported only once the same cycle, with the same waits, has been
 *     seen for SP_DEADLOCK_SETTLE_NS (the tick walks long critical waits
 *     again every millisecond).
 * A cycle is reported once per wait of the task walked from.
 */
#include "sp_internal.h"

/* How long a cycle through lock words must stay unchanged to be reported:
 * far beyond a woken waiter's scheduling delay, far below "forever". */
#define SP_DEADLOCK_SETTLE_NS 1000000000ull
#define SP_DL_MAX_NODES 256u

/* @holder holds @lock (owner, or a tracked @reader) and waits, in its wait
 * numbered @seq, for @next: the lock of the following edge. */
struct sp_dl_edge {
	sp_lock_key_t lock;
	sp_tid_t holder;
	uint64_t seq;
	sp_lock_key_t next;
	bool reader;
	bool exact;
};

struct sp_dl_find {
	struct sp_core *core;
	sp_tid_t start;
	uint64_t start_seq;
	sp_lock_key_t start_lock;
	uint32_t nodes;
	uint32_t first, n; /* the cycle: path[first .. first + n - 1] */
	struct sp_dl_edge path[SP_MAX_DEPTH];
};

static bool sp_dl_lock(struct sp_dl_find *f, uint32_t d, sp_tid_t waiter, sp_lock_key_t lock);

/* path[d] is @holder holding the lock @waiter waits for. */
static bool sp_dl_holder(struct sp_dl_find *f, uint32_t d, sp_tid_t waiter, sp_tid_t holder)
{
	struct sp_dl_edge *e = &f->path[d];
	struct sp_task *t;

	if (holder == f->start) {
		e->seq = f->start_seq;
		e->next = f->start_lock;
		f->first = 0;
		f->n = d + 1;
		return true;
	}
	if (holder == waiter) {
		/* Waits for what it holds (a reader asking for the write
		 * side): d > 0 here, the waiter is path[d - 1]'s holder. */
		e->seq = f->path[d - 1].seq;
		e->next = e->lock;
		f->first = d;
		f->n = 1;
		return true;
	}
	if (f->nodes >= SP_DL_MAX_NODES)
		return false;
	f->nodes++;
	t = sp_task_find(f->core, holder);
	if (!t)
		return false;
	e->seq = sp_atomic_load_acquire(&t->block_seq);
	e->next = sp_atomic_load_acquire(&t->blocked_on);
	/* Running (even seq), or being handed the lock it holds
	 * (sp_graph_walk.c): no edge. */
	if (!(e->seq & 1) || !e->next || e->next == e->lock)
		return false;
	return sp_dl_lock(f, d + 1, holder, e->next);
}

/* @waiter (the start, or path[d - 1]'s holder) waits for @lock. */
static bool sp_dl_lock(struct sp_dl_find *f, uint32_t d, sp_tid_t waiter, sp_lock_key_t lock)
{
	struct sp_lock *l;
	sp_tid_t owner;
	uint32_t i;

	for (i = 0; i < d; i++) {
		if (f->path[i].lock == lock) {
			f->first = i;
			f->n = d - i;
			return true;
		}
	}
	if (d >= f->core->cfg.max_depth)
		return false;
	l = sp_lock_find(f->core, lock);
	if (!l)
		return false;
	f->path[d].lock = lock;
	owner = sp_atomic_load_acquire(&l->owner);
	if (owner) {
		f->path[d].holder = owner;
		f->path[d].reader = false;
		f->path[d].exact = sp_atomic_load(&l->word_owner) != owner;
		if (sp_dl_holder(f, d, waiter, owner))
			return true;
	}
	/* a futex lock's candidates are guesses: no cycle stands on one */
	if (sp_tracker_empty(&l->readers) || sp_atomic_load(&l->kind) == SP_LOCK_FUTEX)
		return false;
	for (i = 0; i < l->readers.cap; i++) {
		sp_tid_t reader = sp_tracker_slot(&l->readers, i);

		if (!reader)
			continue;
		f->path[d].lock = lock;
		f->path[d].holder = reader;
		f->path[d].reader = true;
		f->path[d].exact = true;
		if (sp_dl_holder(f, d, waiter, reader))
			return true;
	}
	return false;
}

/* Step 2: @e still holds, read after the walk and a full barrier. A word
 * owner met on either read makes the edge inexact. */
static bool sp_dl_edge_holds(struct sp_core *core, struct sp_dl_edge *e)
{
	struct sp_task *t = sp_task_find(core, e->holder);
	struct sp_lock *l = sp_lock_find(core, e->lock);

	if (!t || !l)
		return false;
	if (sp_atomic_load_acquire(&t->blocked_on) != e->next ||
	    sp_atomic_load_acquire(&t->block_seq) != e->seq)
		return false;
	if (e->reader)
		return sp_tracker_contains(&l->readers, e->holder);
	if (sp_atomic_load_acquire(&l->owner) != e->holder)
		return false;
	if (sp_atomic_load(&l->word_owner) == e->holder)
		e->exact = false;
	return true;
}

static uint64_t sp_dl_mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

void sp_deadlock_check(struct sp_core *core, sp_tid_t tid, struct sp_task *t,
		       sp_lock_key_t lock)
{
	struct sp_dl_find f;
	uint64_t sig = 0xcbf29ce484222325ull, told, now;
	bool exact = true;
	uint32_t i;

	memset(&f, 0, sizeof(f));
	f.core = core;
	f.start = tid;
	f.start_seq = sp_atomic_load_acquire(&t->block_seq);
	f.start_lock = lock;
	if (!(f.start_seq & 1) || sp_atomic_load_acquire(&t->blocked_on) != lock)
		return;
	if (!sp_dl_lock(&f, 0, tid, lock))
		return;
	/* Pairs with the full barriers of the events that change the edges
	 * (the exchanges on blocked_on and l->owner). */
	sp_smp_mb();
	for (i = f.first; i < f.first + f.n; i++) {
		if (!sp_dl_edge_holds(core, &f.path[i]))
			return;
		exact = exact && f.path[i].exact;
		sig = sp_dl_mix(sig, f.path[i].lock);
		sig = sp_dl_mix(sig, f.path[i].holder);
		sig = sp_dl_mix(sig, f.path[i].seq);
	}
	if (sp_atomic_load_acquire(&t->blocked_on) != lock ||
	    sp_atomic_load_acquire(&t->block_seq) != f.start_seq)
		return;
	if (!exact) {
		sig = sp_dl_mix(sig, f.start_seq) | 1;
		now = sp_now(core);
		if (sp_atomic_load_acquire(&t->dl_sig) != sig) {
			/* First sight of this cycle from this wait. */
			sp_atomic_store(&t->dl_since, now);
			sp_atomic_store_release(&t->dl_sig, sig);
			return;
		}
		if (now - sp_atomic_load(&t->dl_since) < SP_DEADLOCK_SETTLE_NS)
			return;
	}
	told = sp_atomic_load(&t->dl_told);
	if (told == f.start_seq || !sp_atomic_cmpxchg(&t->dl_told, told, f.start_seq))
		return;
	sp_count(core, SP_C_deadlocks);
	if (core->ops.on_deadlock)
		core->ops.on_deadlock(core->ctx, tid, lock);
}
