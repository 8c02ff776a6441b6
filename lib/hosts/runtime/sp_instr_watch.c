// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * When the instrumented locks talk to the core (sp_instr_watch.h): the
 * count of critical waits and the watch table. The lists of held locks
 * that readers keep and waiters scan are sp_instr_holds.c's.
 *
 * The kernel host already works from the owner word plus contention only;
 * the userspace host does the same, so that an uncontended lock costs what
 * glibc costs:
 *
 *  - Mutexes and rwlock writers: glibc keeps the owner's tid in the lock
 *    word (__owner, __cur_writer); a waiter reads it when it blocks and the
 *    core takes it (sp_lock_blocked_owner). Acquires and releases are
 *    reported only while a critical thread waits (sp_iw_crit_waits != 0):
 *    then a thread that takes a lock a critical thread waits for is seen
 *    at once (the core fast-tracks new owners of such locks), and a
 *    fast-tracked holder's release ends its grant at once. Ordering: a
 *    full barrier after the waiter's increment and one after the holder's
 *    taking of the lock word (sp_iw_took): either the holder sees the
 *    count, or the waiter's read of the owner word after it sees the
 *    holder. A release not reported is harmless: the owner came from a
 *    word, which the next word replaces, and the wait's grants end when
 *    the waiter stops waiting.
 *
 *  - Readers: their lists and the waiter's scan are sp_instr_holds.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sp_handoff.h"
#include "sp_instr_watch.h"
#include "sp_os.h"

#define SP_IW_WATCH 16u                      /* watched rwlocks at once */
#define SP_IW_WATCH_NS 5000000000ull         /* a lock stays watched this long */

static SP_TLS int sp_iw_counted; /* our current wait is in sp_iw_crit_waits */
int sp_iw_crit_waits;
int sp_iw_nwatched;

static struct {
	uintptr_t lock;   /* atomic */
	uint64_t last_ns; /* atomic: the last critical wait on it */
} sp_iw_w[SP_IW_WATCH];

pthread_mutex_t sp_iw_lock = PTHREAD_MUTEX_INITIALIZER;
static int sp_iw_mb; /* 1 membarrier usable, -1 not, 0 unknown */

static uint64_t sp_iw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A full barrier on every CPU running one of our threads. */
void sp_iw_membarrier(void)
{
	int mb = __atomic_load_n(&sp_iw_mb, __ATOMIC_RELAXED);

	if (mb == 0) {
		mb = sp_os_sys(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0, 0) == 0
			     ? 1 : -1;
		__atomic_store_n(&sp_iw_mb, mb, __ATOMIC_RELAXED);
	}
	if (mb < 0 || sp_os_sys(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0, 0) != 0)
		sp_smp_mb(); /* in its place: the limit said in sp_instr_holds.c */
}

/* ---- the watch table ---- */

static int sp_iw_watch_slot(const void *lock)
{
	for (uint32_t i = 0; i < SP_IW_WATCH; i++)
		if (__atomic_load_n(&sp_iw_w[i].lock, __ATOMIC_RELAXED) == (uintptr_t)lock)
			return (int)i;
	return -1;
}

bool sp_iw_is_watched(const void *lock)
{
	return sp_iw_watch_slot(lock) >= 0;
}

static void sp_iw_recount(void)
{
	int n = 0;

	for (uint32_t i = 0; i < SP_IW_WATCH; i++)
		n += __atomic_load_n(&sp_iw_w[i].lock, __ATOMIC_RELAXED) != 0;
	__atomic_store_n(&sp_iw_nwatched, n, __ATOMIC_RELAXED);
}

/* Watches @lock from now on; true if it was not watched. Guard held. */
static bool sp_iw_watch(const void *lock, uint64_t now)
{
	uint32_t victim = 0;
	int i;

	i = sp_iw_watch_slot(lock);
	if (i >= 0) {
		__atomic_store_n(&sp_iw_w[i].last_ns, now, __ATOMIC_RELAXED);
		return false;
	}
	sp_rt_lock(&sp_iw_lock);
	for (uint32_t j = 0; j < SP_IW_WATCH; j++) {
		if (!sp_iw_w[j].lock) {
			victim = j;
			break;
		}
		if (sp_iw_w[j].last_ns < sp_iw_w[victim].last_ns)
			victim = j;
	}
	/* A lock that falls out: its readers that reported keep reporting
	 * their release (their list says so); new ones stop. */
	__atomic_store_n(&sp_iw_w[victim].last_ns, now, __ATOMIC_RELAXED);
	__atomic_store_n(&sp_iw_w[victim].lock, (uintptr_t)lock, __ATOMIC_RELAXED);
	sp_iw_recount();
	sp_rt_unlock(&sp_iw_lock);
	return true;
}

static void sp_iw_unwatch(const void *lock)
{
	int i;

	sp_rt_lock(&sp_iw_lock);
	i = sp_iw_watch_slot(lock);
	if (i >= 0) {
		__atomic_store_n(&sp_iw_w[i].lock, 0, __ATOMIC_RELAXED);
		sp_iw_recount();
	}
	sp_rt_unlock(&sp_iw_lock);
}

void sp_iw_lock_destroyed(const void *lock)
{
	if (__atomic_load_n(&sp_iw_nwatched, __ATOMIC_RELAXED) && sp_iw_is_watched(lock))
		sp_iw_unwatch(lock);
}

bool sp_iw_watch_fresh(const void *lock)
{
	int w = sp_iw_watch_slot(lock);

	if (w < 0)
		return false;
	if (sp_iw_now() - __atomic_load_n(&sp_iw_w[w].last_ns, __ATOMIC_RELAXED) > SP_IW_WATCH_NS) {
		sp_iw_unwatch(lock); /* nobody critical waited on it for a while */
		return false;
	}
	return true;
}

/* ---- waits ---- */

bool sp_iw_wait_begins(struct sp_core *core, const void *lock, bool rwlock)
{
	bool critical = sp_rt_self_state.critical;

	if (critical && !sp_iw_counted) {
		__atomic_add_fetch(&sp_iw_crit_waits, 1, __ATOMIC_RELAXED);
		/* Pairs with the holder's after its lock word (sp_iw_took):
		 * the owner word, read after this, names a holder that did not
		 * see the count. */
		sp_smp_mb__after_atomic();
		sp_iw_counted = 1;
	}
	if (!rwlock) {
		if (critical)
			sp_ho_wait_begins(lock);
		return false;
	}
	if (!critical && sp_task_fast_tracked(core, sp_rt_self_state.tid) != 1)
		return false;
	/* Readers that check the table after this see it; the scan finds
	 * the ones that entered before (sp_iw_scan_readers). Pairs with the
	 * compiler barrier in sp_iw_read_acquired. */
	if (sp_iw_watch(lock, sp_iw_now()))
		sp_iw_membarrier();
	return true;
}

void sp_iw_wait_ends(void)
{
	sp_ho_wait_ends();
	if (sp_iw_counted) {
		__atomic_sub_fetch(&sp_iw_crit_waits, 1, __ATOMIC_RELAXED);
		sp_iw_counted = 0;
	}
}

/* A forked child (sp_iw_atfork_child in sp_instr_holds.c): no thread of
 * the parent waits here, nor watches. */
void sp_iw_watch_atfork_child(void)
{
	pthread_mutex_init(&sp_iw_lock, NULL);
	for (uint32_t i = 0; i < SP_IW_WATCH; i++)
		sp_iw_w[i].lock = 0;
	sp_iw_nwatched = 0;
	sp_iw_crit_waits = 0;
	sp_iw_counted = 0;
	sp_ho_atfork_child();
}
