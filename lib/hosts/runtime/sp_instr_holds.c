// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Every thread's list of the locks it holds (sp_instr_holds.h), and the
 * waiter's scan of them (sp_instr_watch.c says when the core hears what).
 *
 *  - Readers are anonymous in glibc, so every thread keeps a list of the
 *    read locks it holds (sp_iw_self, a stack: a read acquire is two
 *    stores and a load, its release two loads and two stores, no atomic
 *    read-modify-write, no search unless locks are released out of order)
 *    and the core hears about readers only of
 *    watched rwlocks: one that a critical thread, or a fast-tracked one,
 *    waited on in the last few seconds (sp_instr_watch.c). A reader of a watched lock
 *    reports its acquire; a reader that entered before the lock became
 *    watched (or before its check of the watch table saw it) is found by
 *    the waiter, which scans every thread's list (sp_iw_scan_readers) and
 *    reports those readers on their behalf. The `claim` word of a list
 *    entry says the core was told: whoever sets it (the reader itself or
 *    a scanner, by compare-and-swap) reported the acquire, and the reader
 *    reports the release. The scanner's two membarriers pair with the
 *    readers' compiler-only barriers (sp_iw_read_acquired, sp_iw_release),
 *    as liburcu's urcu-memb flavour does.
 *    Limits: a thread holding more than SP_IW_HELD locks at once is not
 *    listed for the extra ones (counted, never found); without membarrier
 *    (old kernels) a reader that enters or leaves in the instant of a scan
 *    can be missed, or stay recorded until its thread next releases a
 *    listed lock of that slot.
 *    Why the list is kept while nothing is watched: a reader that entered
 *    before the watch can only be found in it (glibc counts readers, it
 *    does not name them), and it costs two stores and two loads a pair.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sp_glibc_locks.h"
#include "sp_instr_holds.h"
#include "sp_os.h"

#define SP_IW_THREADS 1024u                  /* threads whose lists can be scanned */
#define SP_IW_SCAN_MAX 64u                   /* readers one scan reports */

SP_TLS struct sp_iw_thread sp_iw_self;

/* Under sp_iw_lock (sp_instr_watch.h). */
static struct sp_iw_thread *sp_iw_tab[SP_IW_THREADS];
static pthread_key_t sp_iw_key;
static pthread_once_t sp_iw_once = PTHREAD_ONCE_INIT;
static int sp_iw_key_ok;
static uint64_t sp_iw_unlisted; /* holds beyond SP_IW_HELD */

/* ---- the thread table ---- */

static void sp_iw_thread_exit(void *arg)
{
	(void)arg;
	sp_rt_lock(&sp_iw_lock);
	for (uint32_t i = 0; i < SP_IW_THREADS; i++)
		if (sp_iw_tab[i] == &sp_iw_self)
			__atomic_store_n(&sp_iw_tab[i], NULL, __ATOMIC_RELAXED);
	sp_rt_unlock(&sp_iw_lock);
	sp_iw_self.reg = -1; /* later locks of this thread's destructors: not listed */
	sp_iw_self.lim = 0;
	sp_iw_self.fast = 0;
	sp_iw_self.gen = __atomic_load_n(&sp_rt_gen, __ATOMIC_RELAXED);
}

static void sp_iw_make_key(void)
{
	sp_iw_key_ok = pthread_key_create(&sp_iw_key, sp_iw_thread_exit) == 0;
}

void sp_iw_register(void)
{
	struct sp_iw_thread *t = &sp_iw_self;
	uint32_t gen = __atomic_load_n(&sp_rt_gen, __ATOMIC_RELAXED);
	struct sp_core *core;
	bool listed = t->reg > 0;

	if (sp_rt_guarded())
		return;
	sp_rt_enter();
	core = sp_rt_core();
	if (!core) {
		t->reg = -1; /* passthrough (a forked child, no runtime): until a new one */
		t->lim = 0;
		t->gen = __atomic_load_n(&sp_rt_gen, __ATOMIC_RELAXED);
		goto out;
	}
	gen = __atomic_load_n(&sp_rt_gen, __ATOMIC_RELAXED);
	__atomic_store_n(&t->tid, sp_rt_thread(core), __ATOMIC_RELAXED);
	t->gen = gen;
	if (listed)
		goto out;
	t->reg = -1;
	sp_glibc_probe(); /* before lim says listed: the inline mutex path (sp_instr_fast.h) */
	pthread_once(&sp_iw_once, sp_iw_make_key);
	if (!sp_iw_key_ok || pthread_setspecific(sp_iw_key, (void *)1) != 0)
		goto out;
	sp_rt_lock(&sp_iw_lock);
	for (uint32_t i = 0; i < SP_IW_THREADS; i++) {
		if (!sp_iw_tab[i]) {
			__atomic_store_n(&sp_iw_tab[i], t, __ATOMIC_RELAXED);
			t->reg = 1;
			t->lim = SP_IW_HELD;
			break;
		}
	}
	sp_rt_unlock(&sp_iw_lock);
out:
	t->fast = t->lim != 0 && sp_glibc_mutex_inline() ? ~t->gen : 0;
	sp_rt_leave();
}

/* The slot for a new entry of @lock, or -1: the top of the list; when it
 * is full, the highest free slot below, but only for a lock not listed
 * yet (a lock's lowest entry must stay its oldest: see the header). */
static int sp_iw_slot_push(const void *lock)
{
	struct sp_iw_thread *t = &sp_iw_self;

	if (t->n < SP_IW_HELD)
		return (int)t->n++;
	if (sp_iw_find(lock) < 0)
		for (uint32_t i = SP_IW_HELD; i-- > 0;)
			if (!__atomic_load_n(&t->e[i].lock, __ATOMIC_RELAXED))
				return (int)i;
	__atomic_add_fetch(&sp_iw_unlisted, 1, __ATOMIC_RELAXED);
	return -1;
}

/*
 * A claim says who told the core of a read hold: the reader itself or a
 * scanner on its behalf. Whoever sets it (0 -> lock) told, or tells, the
 * core of the acquire; whoever takes it back (lock -> 0) tells it of the
 * release. Acquire-release on both. A set's release pairs with the
 * acquire load of the claim in the reader's unlock (sp_iw_release in
 * sp_instr_watch.h, its inline twin in sp_instr_fast.h): a reader that sees a scanner's claim sees the core told
 * of its hold, so the core never hears the release first. A take-back's
 * acquire pairs with the release of the set it undoes, for the same
 * order seen from the side that reports the release.
 */
static inline bool sp_iw_claim(struct sp_iw_entry *e, uintptr_t lock)
{
	uintptr_t zero = 0;

	return __atomic_compare_exchange_n(&e->claim, &zero, lock, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_RELAXED);
}

static inline bool sp_iw_unclaim(struct sp_iw_entry *e, uintptr_t lock)
{
	return __atomic_compare_exchange_n(&e->claim, &lock, 0, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_RELAXED);
}

/* The lowest slot with a read hold of @lock, or -1: the one a claim goes on. */
static int sp_iw_lowest_read(const void *lock)
{
	struct sp_iw_thread *t = &sp_iw_self;

	for (uint32_t i = 0; i < t->n; i++)
		if (__atomic_load_n(&t->e[i].lock, __ATOMIC_RELAXED) == (uintptr_t)lock)
			return (int)i;
	return -1;
}

/* After the top entry was freed: the free slots under it go too. */
static uint32_t sp_iw_shrink(uint32_t n)
{
	while (n && !__atomic_load_n(&sp_iw_self.e[n - 1].lock, __ATOMIC_RELAXED))
		n--;
	return n;
}

/* Frees slot @i (it held our hold of @lock): then the pair with the
 * scanner, as in sp_iw_release. */
static int sp_iw_free_slot(uint32_t i, const void *lock, enum sp_hold hold)
{
	struct sp_iw_thread *t = &sp_iw_self;

	__atomic_store_n(&t->e[i].lock, 0, __ATOMIC_RELAXED);
	t->n = sp_iw_shrink(t->n);
	__atomic_signal_fence(__ATOMIC_SEQ_CST); /* pairs as in sp_iw_pop_top */
	if (__atomic_load_n(&t->e[i].claim, __ATOMIC_ACQUIRE) != 0)
		return sp_iw_release_claimed((int)i, lock, hold);
	return SP_IW_QUIET;
}

/* ---- acquires and releases ---- */

/* The reader of a watched lock tells the core, unless a scanner did. */
static void sp_iw_report_read(const void *lock, int slot)
{
	struct sp_iw_thread *t = &sp_iw_self;
	struct sp_core *core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE);

	if (!core || !sp_iw_watch_fresh(lock))
		return;
	if (!sp_iw_claim(&t->e[slot], (uintptr_t)lock))
		return;
	sp_instr_acquired(t->tid, lock, SP_HOLD_SHARED);
}

/* After a read hold was listed, with some rwlock watched. */
void sp_iw_read_watched(const void *lock)
{
	int lo;

	if (!sp_iw_is_watched(lock) || (lo = sp_iw_lowest_read(lock)) < 0)
		return;
	sp_iw_report_read(lock, lo);
}

void sp_iw_read_acquired_slow(const void *lock)
{
	struct sp_iw_thread *t = &sp_iw_self;
	int slot;

	if (t->reg == 0)
		sp_iw_register();
	if (t->reg <= 0)
		return; /* passthrough, or no room in the scan table */
	if (t->n < t->lim) {
		sp_iw_read_acquired(lock); /* just registered */
		return;
	}
	slot = sp_iw_slot_push(lock); /* full: a free slot below the top, if any */
	if (slot < 0)
		return;
	__atomic_store_n(&t->e[slot].lock, (uintptr_t)lock, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST); /* as in sp_iw_read_acquired */
	if (__atomic_load_n(&sp_iw_nwatched, __ATOMIC_RELAXED))
		sp_iw_read_watched(lock);
}

void sp_iw_note_acquire(const void *lock, enum sp_hold hold)
{
	struct sp_iw_thread *t = &sp_iw_self;
	struct sp_core *core;
	sp_tid_t self;
	int i = sp_iw_find(lock);

	(void)hold; /* exclusive only: readers go through sp_iw_read_acquired */
	if (i >= 0) {
		t->extra[i]++; /* recursive: the first hold speaks for it */
		return;
	}
	if (!sp_iw_active() || !(core = sp_rt_core()))
		return;
	self = sp_rt_thread(core);
	i = sp_iw_slot_push(lock);
	if (i < 0)
		return;
	t->extra[i] = 0;
	__atomic_store_n(&t->e[i].claim, (uintptr_t)lock, __ATOMIC_RELAXED);
	__atomic_store_n(&t->e[i].lock, (uintptr_t)lock | SP_IW_EXCL, __ATOMIC_RELEASE);
	sp_instr_acquired(self, lock, SP_HOLD_EXCL);
}

bool sp_iw_list_reported(const void *lock, enum sp_hold hold)
{
	struct sp_iw_thread *t = &sp_iw_self;
	int i;

	if (hold == SP_HOLD_EXCL) {
		i = sp_iw_find(lock);
		if (i >= 0) {
			t->extra[i]++;
			return false; /* already held and listed: the core has it */
		}
		if ((i = sp_iw_slot_push(lock)) < 0)
			return false;
		t->extra[i] = 0;
		__atomic_store_n(&t->e[i].claim, (uintptr_t)lock, __ATOMIC_RELAXED);
		__atomic_store_n(&t->e[i].lock, (uintptr_t)lock | SP_IW_EXCL, __ATOMIC_RELEASE);
		return true;
	}
	if ((i = sp_iw_slot_push(lock)) < 0)
		return false;
	__atomic_store_n(&t->e[i].lock, (uintptr_t)lock, __ATOMIC_RELEASE);
	/* The claim goes on the lock's lowest entry; a scanner may have
	 * claimed it already (then the core has this reader). */
	i = sp_iw_lowest_read(lock);
	return sp_iw_claim(&t->e[i], (uintptr_t)lock);
}

/*
 * A reader queued in glibc's rdlock is handed the lock by the writer's
 * unlock, and then waits for a CPU before it can report it: at low
 * priority behind busy CPUs, a long time during which the critical writer,
 * back for its next wrlock, waits for a reader the core knows only as a
 * waiter. So the
 * reader lists the lock before it blocks, marked queued, and the waiter's
 * scan reports it as a reader when the lock is in a read phase (then
 * glibc has handed it the lock: sp_iw_scan_readers); the core treats a
 * reader still waiting for the lock it holds as one being handed it
 * (sp_graph_walk.c) and fast-tracks it, which costs nothing while it
 * sleeps and makes it run at once when woken. The reader lists it only
 * once it is registered in glibc (sp_instr_rwlock.c).
 */
int sp_iw_read_pending(const void *lock)
{
	struct sp_iw_thread *t = &sp_iw_self;
	int slot;

	/* A read hold of @lock already listed: a scan finds us through it. */
	if (t->reg <= 0 || sp_iw_find(lock) >= 0)
		return -1;
	slot = sp_iw_slot_push(lock);
	if (slot < 0)
		return -1;
	/* Relaxed, as in sp_iw_read_acquired: the scanner's membarrier
	 * orders it before its scan. */
	__atomic_store_n(&t->e[slot].lock, (uintptr_t)lock | SP_IW_QUEUED, __ATOMIC_RELAXED);
	return slot;
}

bool sp_iw_read_pending_done(int slot, const void *lock, bool acquired)
{
	struct sp_iw_entry *e = &sp_iw_self.e[slot];

	/* The entry is the lock's only one, so its claim is the lock's. */
	if (acquired) {
		/* Granted now: a hold in any phase. Relaxed: a scanner that
		 * still sees it queued counts it only in a read phase, which
		 * is true now. */
		__atomic_store_n(&e->lock, (uintptr_t)lock, __ATOMIC_RELAXED);
		/* as sp_iw_report_read: whoever sets the claim tells the core */
		return sp_iw_claim(e, (uintptr_t)lock);
	}
	/* Nothing nested above it (we were blocked): free it as a release
	 * does, which takes back a scanner's claim. */
	return sp_iw_free_slot((uint32_t)slot, lock, SP_HOLD_SHARED) > 0;
}

int sp_iw_release_claimed(int slot, const void *lock, enum sp_hold hold)
{
	/* A claim for another lock is a scanner's, on a slot we reused: its
	 * own check after the scan clears it. */
	return sp_iw_unclaim(&sp_iw_self.e[slot], (uintptr_t)lock) ? SP_IW_TOLD(hold)
								     : SP_IW_QUIET;
}

int sp_iw_release_slow(const void *lock)
{
	struct sp_iw_thread *t = &sp_iw_self;
	int i = sp_iw_find(lock);
	uintptr_t w;

	if (i < 0)
		return SP_IW_QUIET;
	w = __atomic_load_n(&t->e[i].lock, __ATOMIC_RELAXED);
	if (!(w & SP_IW_EXCL))
		return sp_iw_free_slot((uint32_t)i, lock, SP_HOLD_SHARED);
	if (t->extra[i] > 0) {
		t->extra[i]--;
		return SP_IW_KEEP;
	}
	return sp_iw_free_slot((uint32_t)i, lock, SP_HOLD_EXCL);
}

/*
 * Which listed readers hold the lock. An entry with the bare address: a
 * read hold glibc granted (its rdlock returned). A queued entry (the
 * reader is inside glibc's rdlock, registered: sp_iw_read_pending): a
 * holder exactly when the lock is in a read phase, in which glibc's
 * readers all hold the lock at once, asleep or not; in a write phase the
 * writer holds it (__cur_writer, the owner the waiter reported) and a
 * queued reader is only waiting, like us. Granted holds first: the core
 * tracks K readers, and a queued one told in their place would take a
 * slot from a reader that is in its section (sp_iw_scan_pass).
 */
struct sp_iw_got {
	struct sp_iw_thread *t;
	uint32_t slot;
	sp_tid_t tid;
};

/* One pass over the thread table for entries whose word is @word; adds
 * what it told the core to @got from @n on; returns the new count. */
static uint32_t sp_iw_scan_pass(struct sp_core *core, uintptr_t want, uintptr_t word,
				struct sp_iw_got *got, uint32_t n)
{
	for (uint32_t i = 0; i < SP_IW_THREADS && n < SP_IW_SCAN_MAX; i++) {
		struct sp_iw_thread *t = __atomic_load_n(&sp_iw_tab[i], __ATOMIC_RELAXED);

		if (!t || t == &sp_iw_self)
			continue;
		for (uint32_t s = 0; s < SP_IW_HELD && n < SP_IW_SCAN_MAX; s++) {
			sp_tid_t tid;

			/* The thread's lowest read entry of the lock carries
			 * its claim (sp_instr_watch.h); the others are its
			 * recursive holds. A queued entry is the thread's
			 * only one of the lock. */
			if (__atomic_load_n(&t->e[s].lock, __ATOMIC_RELAXED) != word)
				continue;
			if (__atomic_load_n(&t->e[s].claim, __ATOMIC_RELAXED) != 0)
				break;
			tid = __atomic_load_n(&t->tid, __ATOMIC_RELAXED);
			/* Told before the claim is visible: the reader reports
			 * its release only after it sees the claim, so the core
			 * never hears the release first. */
			sp_lock_acquired(core, tid, (sp_lock_key_t)want, SP_HOLD_SHARED);
			if (!sp_iw_claim(&t->e[s], want)) {
				/* The reader (or another scanner) told the core
				 * itself meanwhile: take ours back. */
				sp_lock_released(core, tid, (sp_lock_key_t)want, SP_HOLD_SHARED);
				break;
			}
			got[n].t = t;
			got[n].slot = s;
			got[n].tid = tid;
			n++;
			break;
		}
	}
	return n;
}

void sp_iw_scan_readers(struct sp_core *core, const void *lock)
{
	struct sp_iw_got got[SP_IW_SCAN_MAX];
	uint32_t n;
	uintptr_t want = (uintptr_t)lock;

	if (!sp_iw_is_watched(lock))
		return;
	sp_rt_lock(&sp_iw_lock);
	n = sp_iw_scan_pass(core, want, want, got, 0);
	if (sp_glibc_read_phase(lock))
		n = sp_iw_scan_pass(core, want, want | SP_IW_QUEUED, got, n);
	if (n) {
		/* Pairs with the compiler barrier in sp_iw_pop_top: either the
		 * reader, leaving, sees our claim and reports the release, or
		 * we see it gone here and report it for it. A queued entry
		 * that became a granted one (sp_iw_read_pending_done) is
		 * still the hold we told. */
		sp_iw_membarrier();
		for (uint32_t i = 0; i < n; i++) {
			struct sp_iw_entry *e = &got[i].t->e[got[i].slot];

			if ((__atomic_load_n(&e->lock, __ATOMIC_RELAXED) & ~SP_IW_QUEUED) != want &&
			    sp_iw_unclaim(e, want))
				sp_lock_released(core, got[i].tid, (sp_lock_key_t)want,
						 SP_HOLD_SHARED);
		}
	}
	sp_rt_unlock(&sp_iw_lock);
}

/* A forked child runs with the runtime off (sp_runtime.c): nothing of the
 * parent's threads is valid here. */
static void sp_iw_atfork_child(void)
{
	/* The tid sp_iw_atfork_prepare cached is the parent's. With a
	 * runtime, sp_rt_atfork_child (run after us) still needs it, and then
	 * replaces it; without one nothing does, and the child's first lock
	 * would register, and write into owner words, its parent's tid. */
	if (!__atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE))
		sp_rt_self_state.tid = 0; /* read again when next needed */
	sp_iw_watch_atfork_child();
	for (uint32_t i = 0; i < SP_IW_THREADS; i++)
		sp_iw_tab[i] = NULL;
	for (uint32_t i = 0; i < SP_IW_HELD; i++) {
		sp_iw_self.e[i] = (struct sp_iw_entry){ 0 };
		sp_iw_self.extra[i] = 0;
	}
	sp_iw_self.n = 0;
	sp_iw_self.lim = 0;
	sp_iw_self.fast = 0;
	sp_iw_self.reg = -1;
	sp_iw_self.gen = sp_rt_gen;
}

/* The uncontended path never asks for the caller's tid, but the child's
 * half of fork (sp_rt_atfork_child) needs the forking thread's to find
 * out whether it was fast-tracked. */
static void sp_iw_atfork_prepare(void)
{
	if (!sp_rt_self_state.tid)
		sp_rt_self_state.tid = (sp_tid_t)sp_os_sys(SYS_gettid, 0, 0, 0, 0);
}

__attribute__((constructor)) static void sp_iw_ctor(void)
{
	pthread_atfork(sp_iw_atfork_prepare, NULL, sp_iw_atfork_child);
}
