// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Hand-off of a mutex to the critical thread that waits for it.
 *
 * glibc's mutex is not fair: its unlock frees the word and wakes one
 * waiter, and whoever reaches the word first takes it. A holder that the
 * fast track just ran through its section releases, lowers itself (its
 * grant ended), keeps its CPU for a moment and, with a backlog (a periodic
 * thread behind its schedule), locks again before the woken critical
 * thread has run: its trylock finds the word free. The critical thread
 * finds it taken again, sleeps again, the new hold is fast-tracked again,
 * as many times as the holder's backlog lasts.
 *
 * So while a critical thread waits for a mutex, a thread that takes it in
 * a lock call may have to give it back at once and sleep until that wait
 * ends (the critical thread has the lock by then, or gave up), then wait
 * for the lock like any other waiter. Whether it does, and the bound on
 * its sleep, is the core's decision (sp_core_handoff_wanted; the rule and
 * why it is safe: lib/core/sp_wait_policy.c); this file is the primitive.
 *  - It only ever happens with the lock just taken, before the lock call
 *    returns: the program never held it. The unlock is glibc's own.
 *  - A caller yields at most once per lock call, so every call ends.
 *  - The holds the core weighs are the thread's list (sp_iw_self.n: its
 *    read holds, and every exclusive hold the core was told of). An
 *    unlisted hold (taken before any critical wait began) is the bounded
 *    case.
 *  - Only with the core's verdict: it is asked only once a critical wait
 *    on this very mutex is published here, so the common path is the
 *    one load of sp_ho_published.
 *  - Trylock never yields: it must not fail on a lock that was free.
 *    PI, robust and priority-protected mutexes never yield: glibc and the
 *    kernel give them their own semantics.
 *
 * The table: one slot per critical mutex wait in progress (sp_ho_w); when
 * it is full a wait simply is not published (counted). Finding the slot
 * races with its publication: a yielder that misses it barges as before,
 * no worse, so the loads are relaxed. The sleep is a futex wait on the
 * slot's sequence word; see sp_ho_wait_ends for the pairing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sp_handoff.h"
#include "sp_instr_holds.h"
#include "sp_os.h"

#define SP_HO_SLOTS 16u

#define SP_MUTEX_NO_HANDOFF 0x70 /* glibc's PTHREAD_MUTEX_{ROBUST,PRIO_INHERIT,PRIO_PROTECT}_NP bits */

struct sp_ho_slot {
	uintptr_t lock;    /* atomic: the mutex a critical thread waits for, 0 free */
	uint32_t seq;      /* atomic: bumped when the wait ends (the futex word) */
	uint32_t sleepers; /* atomic: yielders asleep on seq */
};

static struct sp_ho_slot sp_ho_w[SP_HO_SLOTS];
int sp_ho_published;
static SP_TLS int sp_ho_mine = -1; /* our published slot, -1 none */
static uint64_t sp_ho_yields, sp_ho_timeouts, sp_ho_unpublished;

void sp_ho_wait_begins(const void *lock)
{
	if (sp_ho_mine >= 0)
		return;
	for (uint32_t i = 0; i < SP_HO_SLOTS; i++) {
		uintptr_t zero = 0;

		if (__atomic_compare_exchange_n(&sp_ho_w[i].lock, &zero, (uintptr_t)lock, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			sp_ho_mine = (int)i;
			__atomic_add_fetch(&sp_ho_published, 1, __ATOMIC_RELAXED);
			return;
		}
	}
	__atomic_add_fetch(&sp_ho_unpublished, 1, __ATOMIC_RELAXED);
}

/*
 * Store-buffering pair with sp_ho_sleep: we free the slot and bump seq,
 * then read sleepers; a yielder adds itself to sleepers, then reads lock
 * and (in the futex call) seq. Both sides sequentially consistent, so
 * either we see the sleeper and wake it, or it sees the wait over (the
 * slot freed, or seq moved: the futex wait returns at once).
 */
void sp_ho_wait_ends(void)
{
	struct sp_ho_slot *s;

	if (sp_ho_mine < 0)
		return;
	s = &sp_ho_w[sp_ho_mine];
	sp_ho_mine = -1;
	__atomic_sub_fetch(&sp_ho_published, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&s->lock, 0, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&s->seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->sleepers, __ATOMIC_SEQ_CST))
		sp_os_futex_wake(&s->seq, INT_MAX);
}

static int sp_ho_find(const void *lock)
{
	for (uint32_t i = 0; i < SP_HO_SLOTS; i++)
		if (__atomic_load_n(&sp_ho_w[i].lock, __ATOMIC_RELAXED) == (uintptr_t)lock)
			return (int)i;
	return -1;
}

/* Sleeps until the wait in slot @s on @lock ends (@seq: its sequence when
 * we read the slot), or @bound_ns passed. */
static void sp_ho_sleep(struct sp_ho_slot *s, const void *lock, uint32_t seq, uint64_t bound_ns)
{
	struct timespec now, until;
	uint64_t end;

	clock_gettime(CLOCK_MONOTONIC, &now);
	end = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec + bound_ns;
	until.tv_sec = (time_t)(end / 1000000000ull);
	until.tv_nsec = (long)(end % 1000000000ull);
	__atomic_add_fetch(&s->sleepers, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&s->lock, __ATOMIC_SEQ_CST) == (uintptr_t)lock &&
	       __atomic_load_n(&s->seq, __ATOMIC_SEQ_CST) == seq) {
		/* EAGAIN: seq moved; EINTR: a signal, look again. */
		if (sp_os_futex(&s->seq, FUTEX_WAIT_BITSET_PRIVATE, seq, &until,
				FUTEX_BITSET_MATCH_ANY) == -ETIMEDOUT) {
			__atomic_add_fetch(&sp_ho_timeouts, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	__atomic_sub_fetch(&s->sleepers, 1, __ATOMIC_SEQ_CST);
}

bool sp_ho_yield_slow(pthread_mutex_t *m)
{
	struct sp_core *core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE);
	struct sp_ho_slot *s;
	uint64_t bound;
	uint32_t seq;
	int i, saved_errno;

	/* What this primitive cannot do: a mutex glibc gives other
	 * semantics, one no critical thread here waits for. */
	if (!core || (__atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) & SP_MUTEX_NO_HANDOFF) ||
	    (i = sp_ho_find(m)) < 0)
		return false;
	s = &sp_ho_w[i];
	/* Read before the unlock: a wait that ends after it is one we must
	 * not sleep through. */
	seq = __atomic_load_n(&s->seq, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->lock, __ATOMIC_SEQ_CST) != (uintptr_t)m)
		return false;
	/* A thread that only ever took free locks has no tid yet. */
	sp_rt_enter();
	bound = sp_core_handoff_wanted(core, sp_rt_thread(core), (sp_lock_key_t)(uintptr_t)m,
				       sp_iw_self.n);
	sp_rt_leave();
	if (!bound)
		return false;
	if (sp_real.mutex_unlock(m) != 0)
		return false; /* cannot happen for a lock we just took; keep it */
	__atomic_add_fetch(&sp_ho_yields, 1, __ATOMIC_RELAXED);
	saved_errno = errno;
	sp_ho_sleep(s, m, seq, bound);
	errno = saved_errno;
	return true;
}

void sp_ho_counts(uint64_t *yields, uint64_t *timeouts, uint64_t *unpublished)
{
	*yields = __atomic_load_n(&sp_ho_yields, __ATOMIC_RELAXED);
	*timeouts = __atomic_load_n(&sp_ho_timeouts, __ATOMIC_RELAXED);
	*unpublished = __atomic_load_n(&sp_ho_unpublished, __ATOMIC_RELAXED);
}

void sp_ho_atfork_child(void)
{
	for (uint32_t i = 0; i < SP_HO_SLOTS; i++)
		sp_ho_w[i] = (struct sp_ho_slot){ 0 };
	sp_ho_published = 0;
	sp_ho_mine = -1;
}
