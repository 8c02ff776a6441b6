// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * What the uncontended path tells the core (lib/hosts/runtime/sp_instr_watch.c):
 * nothing, for a mutex or an rwlock nobody critical waited on; the readers
 * of an rwlock a critical thread waits on are found, both the one that
 * entered before the wait (the waiter's scan of the threads' read-lock
 * lists) and one that enters while the lock is watched (it reports
 * itself); every reader the core was told about has its release told,
 * also when it held the lock twice or let it go out of order, and a reader
 * that went hand over hand along more locks than its list has slots.
 * Only a critical or fast-tracked waiter scans for readers.
 * Observe mode: no privilege needed, nothing is boosted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <superpass/runtime.h>

#include "sp_test_util.h"

static int nr_readers(sp_rwlock_t *rw)
{
	sp_tid_t out[8];
	int n = sp_lock_readers(sp_runtime_core(), (sp_lock_key_t)(uintptr_t)rw, out, 8, NULL);

	return n < 0 ? 0 : n;
}

static void test_uncontended_tells_nothing(void **state)
{
	sp_mutex_t m;
	sp_rwlock_t rw;
	struct sp_runtime_stats a, b;

	(void)state;
	assert_int_equal(sp_mutex_init(&m, 0), 0);
	assert_int_equal(sp_rwlock_init(&rw, 0), 0);
	assert_int_equal(sp_runtime_stats(&a), 0);
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(sp_mutex_lock(&m), 0);
		assert_int_equal(sp_mutex_unlock(&m), 0);
		assert_int_equal(sp_rwlock_rdlock(&rw), 0);
		assert_int_equal(nr_readers(&rw), 0);
		assert_int_equal(sp_rwlock_unlock(&rw), 0);
		assert_int_equal(sp_rwlock_wrlock(&rw), 0);
		assert_int_equal(sp_rwlock_unlock(&rw), 0);
	}
	assert_int_equal(sp_runtime_stats(&b), 0);
	assert_int_equal(b.core.acquires, a.core.acquires);
	assert_int_equal(b.core.releases, a.core.releases);
	assert_int_equal(b.core.blocks, a.core.blocks);
	assert_int_equal(sp_rwlock_destroy(&rw), 0);
	assert_int_equal(sp_mutex_destroy(&m), 0);
}

struct rd {
	sp_rwlock_t *rw;
	int stage;      /* 1: holds the read lock; the test sets 2: let go */
	int rc;
};

static void *reader_main(void *arg)
{
	struct rd *r = arg;

	r->rc = sp_rwlock_rdlock(r->rw);
	__atomic_store_n(&r->stage, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&r->stage, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
	if (r->rc == 0)
		sp_rwlock_unlock(r->rw);
	return NULL;
}

/* The critical writer waits (bounded: a timed wrlock) while another
 * thread watches how many readers the core knows. */
struct watcher {
	sp_rwlock_t *rw;
	int want;       /* readers the core should know during the wait */
	int seen;
	int done;
};

static void *watcher_main(void *arg)
{
	struct watcher *w = arg;

	for (int i = 0; i < 200000 && !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE); i++) {
		struct timespec ts = { 0, 20000 };
		int n = nr_readers(w->rw);

		if (n > w->seen)
			w->seen = n;
		if (w->seen >= w->want)
			break;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static int critical_timed_wrlock(sp_rwlock_t *rw, struct watcher *w)
{
	struct timespec dl;
	pthread_t t;
	int rc;

	assert_int_equal(pthread_create(&t, NULL, watcher_main, w), 0);
	dl = sp_test_deadline_ms(CLOCK_REALTIME, 200); /* ends the test's wait, whatever happens */
	rc = sp_rwlock_timedwrlock(rw, &dl);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	return rc;
}

static void test_readers_found_before_and_after_watch(void **state)
{
	sp_rwlock_t rw;
	struct rd early = { .rw = &rw }, late = { .rw = &rw };
	struct watcher w1 = { .rw = &rw, .want = 1 };
	struct watcher w2 = { .rw = &rw, .want = 1 };
	struct sp_runtime_stats st;
	pthread_t te, tl;

	(void)state;
	assert_int_equal(sp_rwlock_init(&rw, 0), 0);
	assert_int_equal(pthread_create(&te, NULL, reader_main, &early), 0);
	while (!__atomic_load_n(&early.stage, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_int_equal(early.rc, 0);
	assert_int_equal(nr_readers(&rw), 0); /* not watched: not told */

	/* The reader entered before anyone waited: the waiter's scan finds it. */
	assert_int_equal(sp_thread_set_critical(0, true), 0);
	assert_int_equal(critical_timed_wrlock(&rw, &w1), ETIMEDOUT);
	assert_int_equal(w1.seen, 1);
	assert_int_equal(nr_readers(&rw), 1);

	/* Its release is told: the core no longer has it. */
	__atomic_store_n(&early.stage, 2, __ATOMIC_RELEASE);
	pthread_join(te, NULL);
	assert_int_equal(nr_readers(&rw), 0);

	/* The lock is watched now: a new reader tells the core itself. */
	assert_int_equal(pthread_create(&tl, NULL, reader_main, &late), 0);
	while (!__atomic_load_n(&late.stage, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_int_equal(nr_readers(&rw), 1);
	assert_int_equal(critical_timed_wrlock(&rw, &w2), ETIMEDOUT);
	assert_int_equal(w2.seen, 1); /* found once, not twice */
	assert_int_equal(nr_readers(&rw), 1);
	__atomic_store_n(&late.stage, 2, __ATOMIC_RELEASE);
	pthread_join(tl, NULL);
	assert_int_equal(nr_readers(&rw), 0);
	assert_int_equal(sp_thread_set_critical(0, false), 0);

	assert_int_equal(sp_runtime_stats(&st), 0);
	assert_int_equal(st.core.blocks, st.core.unblocks);
	assert_int_equal(sp_rwlock_destroy(&rw), 0);
}

/*
 * The per-thread list of read holds is a stack (sp_instr_watch.h): a read
 * lock taken twice is two entries, a release takes the highest one. A
 * reader holding A, B, A is found once on A; it stays a reader of A until
 * its last hold of A goes, even when that one is released out of order
 * (under B).
 */
struct nest {
	sp_rwlock_t *a, *b;
	int stage; /* odd: the reader did a step; even: the test lets it go on */
	int bad;   /* a lock call of the reader failed (checked by the test) */
};

static void nest_step(struct nest *n, int done)
{
	__atomic_store_n(&n->stage, done, __ATOMIC_RELEASE);
	while (__atomic_load_n(&n->stage, __ATOMIC_ACQUIRE) != done + 1)
		sched_yield();
}

static void *nest_main(void *arg)
{
	struct nest *n = arg;

	n->bad |= sp_rwlock_rdlock(n->a) != 0;
	n->bad |= sp_rwlock_rdlock(n->b) != 0;
	n->bad |= sp_rwlock_rdlock(n->a) != 0;
	nest_step(n, 1);
	n->bad |= sp_rwlock_unlock(n->a) != 0; /* the top hold of a */
	nest_step(n, 3);
	n->bad |= sp_rwlock_unlock(n->a) != 0; /* the last hold of a, under b */
	nest_step(n, 5);
	n->bad |= sp_rwlock_unlock(n->b) != 0;
	return NULL;
}

static void nest_wait(struct nest *n, int stage)
{
	while (__atomic_load_n(&n->stage, __ATOMIC_ACQUIRE) != stage)
		sched_yield();
}

static void test_nested_read_holds(void **state)
{
	sp_rwlock_t a, b;
	struct nest n = { .a = &a, .b = &b };
	struct watcher w = { .rw = &a, .want = 1 };
	pthread_t t;

	(void)state;
	assert_int_equal(sp_rwlock_init(&a, 0), 0);
	assert_int_equal(sp_rwlock_init(&b, 0), 0);
	assert_int_equal(pthread_create(&t, NULL, nest_main, &n), 0);
	nest_wait(&n, 1);
	assert_int_equal(sp_thread_set_critical(0, true), 0);
	assert_int_equal(critical_timed_wrlock(&a, &w), ETIMEDOUT);
	assert_int_equal(sp_thread_set_critical(0, false), 0);
	assert_int_equal(w.seen, 1);
	assert_int_equal(nr_readers(&a), 1); /* one reader, though two holds */
	assert_int_equal(nr_readers(&b), 0); /* never watched */
	__atomic_store_n(&n.stage, 2, __ATOMIC_RELEASE);
	nest_wait(&n, 3);
	assert_int_equal(nr_readers(&a), 1); /* it still holds a */
	__atomic_store_n(&n.stage, 4, __ATOMIC_RELEASE);
	nest_wait(&n, 5);
	assert_int_equal(nr_readers(&a), 0); /* its release was told */
	__atomic_store_n(&n.stage, 6, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	assert_int_equal(n.bad, 0);
	assert_int_equal(nr_readers(&b), 0);
	assert_int_equal(sp_rwlock_destroy(&b), 0);
	assert_int_equal(sp_rwlock_destroy(&a), 0);
}

/*
 * Hand-over-hand read locking along more rwlocks than the list has slots
 * (SP_IW_HELD is 16): each release leaves a free slot under the top, which
 * the next hold reuses once the list is full, so the reader of the last
 * lock is still listed and found.
 */
#define COUPLED 40

struct coupling {
	sp_rwlock_t *rw;
	int stage;
	int bad;
};

static void *coupling_main(void *arg)
{
	struct coupling *c = arg;

	c->bad |= sp_rwlock_rdlock(&c->rw[0]) != 0;
	for (int i = 1; i < COUPLED; i++) {
		c->bad |= sp_rwlock_rdlock(&c->rw[i]) != 0;
		c->bad |= sp_rwlock_unlock(&c->rw[i - 1]) != 0;
	}
	__atomic_store_n(&c->stage, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&c->stage, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
	c->bad |= sp_rwlock_unlock(&c->rw[COUPLED - 1]) != 0;
	return NULL;
}

static void test_hand_over_hand_readers_listed(void **state)
{
	sp_rwlock_t rw[COUPLED];
	struct coupling c = { .rw = rw };
	struct watcher w = { .rw = &rw[COUPLED - 1], .want = 1 };
	pthread_t t;

	(void)state;
	for (int i = 0; i < COUPLED; i++)
		assert_int_equal(sp_rwlock_init(&rw[i], 0), 0);
	assert_int_equal(pthread_create(&t, NULL, coupling_main, &c), 0);
	while (!__atomic_load_n(&c.stage, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_int_equal(sp_thread_set_critical(0, true), 0);
	assert_int_equal(critical_timed_wrlock(&rw[COUPLED - 1], &w), ETIMEDOUT);
	assert_int_equal(sp_thread_set_critical(0, false), 0);
	assert_int_equal(w.seen, 1);
	__atomic_store_n(&c.stage, 2, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	assert_int_equal(c.bad, 0);
	assert_int_equal(nr_readers(&rw[COUPLED - 1]), 0);
	for (int i = 0; i < COUPLED; i++)
		assert_int_equal(sp_rwlock_destroy(&rw[i]), 0);
}

/* A critical waiter on a mutex: the owner comes from the lock word, and a
 * holder that takes the lock while the critical thread waits is told. */
struct mh {
	sp_mutex_t *m;
	int stage;
};

static void *mutex_holder(void *arg)
{
	struct mh *h = arg;

	sp_mutex_lock(h->m);
	__atomic_store_n(&h->stage, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&h->stage, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
	sp_mutex_unlock(h->m);
	return NULL;
}

struct mwatch {
	sp_mutex_t *m;
	sp_tid_t want;
	int seen;
	int done;
};

static void *mutex_watcher(void *arg)
{
	struct mwatch *w = arg;

	for (int i = 0; i < 200000 && !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE); i++) {
		struct timespec ts = { 0, 20000 };
		sp_tid_t o = 0;

		sp_lock_owner(sp_runtime_core(), (sp_lock_key_t)(uintptr_t)w->m, &o);
		if (o && o == __atomic_load_n(&w->want, __ATOMIC_ACQUIRE)) {
			w->seen = 1;
			break;
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void test_owner_from_word(void **state)
{
	sp_mutex_t m;
	struct mh h = { .m = &m };
	struct mwatch w = { .m = &m };
	struct timespec dl;
	pthread_t th, tw;
	sp_tid_t owner = 1;

	(void)state;
	assert_int_equal(sp_mutex_init(&m, 0), 0);
	assert_int_equal(pthread_create(&th, NULL, mutex_holder, &h), 0);
	while (!__atomic_load_n(&h.stage, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_int_equal(sp_lock_owner(sp_runtime_core(), (sp_lock_key_t)(uintptr_t)&m, &owner), 0);
	assert_int_equal(owner, 0); /* not told */
	/* the holder's tid, as glibc keeps it */
	__atomic_store_n(&w.want, (sp_tid_t)(((pthread_mutex_t *)(void *)m.opaque.bytes)->__data.__owner),
			 __ATOMIC_RELEASE);
	assert_int_equal(sp_thread_set_critical(0, true), 0);
	assert_int_equal(pthread_create(&tw, NULL, mutex_watcher, &w), 0);
	dl = sp_test_deadline_ms(CLOCK_REALTIME, 1000);
	assert_int_equal(sp_mutex_timedlock(&m, &dl), ETIMEDOUT);
	__atomic_store_n(&w.done, 1, __ATOMIC_RELEASE);
	pthread_join(tw, NULL);
	assert_int_equal(w.seen, 1);
	assert_int_equal(sp_thread_set_critical(0, false), 0);
	__atomic_store_n(&h.stage, 2, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	assert_int_equal(sp_mutex_destroy(&m), 0);
}

/*
 * Only a critical (or fast-tracked) waiter scans the threads' read-lock
 * lists for readers: the scan holds the thread table's mutex, and a nice
 * 19 waiter preempted in it kept the critical writer waiting on that mutex
 * for 13-22 ms (sp_instr_events.c). A reader queued behind a writer is
 * listed before it blocks (sp_iw_read_pending); a plain writer that then
 * blocks on the watched lock must not report it.
 */
struct plain_writer {
	sp_rwlock_t *rw;
	pid_t tid; /* atomic */
	int rc;
};

static void *plain_writer_main(void *arg)
{
	struct plain_writer *p = arg;

	__atomic_store_n(&p->tid, sp_test_gettid(), __ATOMIC_RELEASE);
	p->rc = sp_rwlock_wrlock(p->rw);
	if (p->rc == 0)
		sp_rwlock_unlock(p->rw);
	return NULL;
}

struct queued_reader {
	struct rd rd;
	pid_t tid; /* atomic */
};

static void *queued_reader_main(void *arg)
{
	struct queued_reader *q = arg;

	__atomic_store_n(&q->tid, sp_test_gettid(), __ATOMIC_RELEASE);
	return reader_main(&q->rd);
}

static bool asleep(pid_t *tid)
{
	pid_t t = __atomic_load_n(tid, __ATOMIC_ACQUIRE);

	return t && sp_test_task_state(t) == 'S';
}

static void test_plain_waiter_reports_no_reader(void **state)
{
	sp_rwlock_t rw;
	struct rd early = { .rw = &rw };
	struct queued_reader q = { .rd = { .rw = &rw } };
	struct plain_writer pw = { .rw = &rw };
	struct watcher w = { .rw = &rw, .want = 1 };
	pthread_t te, tq, tw;

	(void)state;
	assert_int_equal(sp_rwlock_init(&rw, 0), 0);
	/* Watched: a critical writer waited on it (for a reader). */
	assert_int_equal(pthread_create(&te, NULL, reader_main, &early), 0);
	while (!__atomic_load_n(&early.stage, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_int_equal(sp_thread_set_critical(0, true), 0);
	assert_int_equal(critical_timed_wrlock(&rw, &w), ETIMEDOUT);
	assert_int_equal(sp_thread_set_critical(0, false), 0);
	assert_int_equal(w.seen, 1);
	__atomic_store_n(&early.stage, 2, __ATOMIC_RELEASE);
	pthread_join(te, NULL);
	assert_int_equal(nr_readers(&rw), 0);

	/* A reader queued behind our write hold, then a plain writer. */
	assert_int_equal(sp_rwlock_wrlock(&rw), 0);
	assert_int_equal(pthread_create(&tq, NULL, queued_reader_main, &q), 0);
	assert_true(SP_WAIT_FOR(asleep(&q.tid)));
	assert_int_equal(pthread_create(&tw, NULL, plain_writer_main, &pw), 0);
	assert_true(SP_WAIT_FOR(asleep(&pw.tid)));
	assert_int_equal(nr_readers(&rw), 0);

	assert_int_equal(sp_rwlock_unlock(&rw), 0); /* the reader's turn, then the writer's */
	while (!__atomic_load_n(&q.rd.stage, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_int_equal(q.rd.rc, 0);
	__atomic_store_n(&q.rd.stage, 2, __ATOMIC_RELEASE);
	pthread_join(tq, NULL);
	pthread_join(tw, NULL);
	assert_int_equal(pw.rc, 0);
	assert_int_equal(nr_readers(&rw), 0);
	assert_int_equal(sp_rwlock_destroy(&rw), 0);
}

/*
 * A reader queued inside glibc's rdlock holds the lock only in a read
 * phase (glibc hands a read phase to every registered reader at once).
 * Behind a writer that holds the lock (a write phase) it holds nothing:
 * the critical waiter's scan must not tell the core of it, or it takes
 * one of the K reader slots while it sleeps (sp_iw_scan_readers).
 */
struct holder {
	sp_rwlock_t *rw;
	pid_t tid;  /* atomic */
	int stage;  /* 1: holds the write lock (or waits for it); the test sets 2: let go */
	int rc;
};

static void *write_holder_main(void *arg)
{
	struct holder *h = arg;

	__atomic_store_n(&h->tid, sp_test_gettid(), __ATOMIC_RELEASE);
	h->rc = sp_rwlock_wrlock(h->rw);
	__atomic_store_n(&h->stage, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&h->stage, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
	if (h->rc == 0)
		sp_rwlock_unlock(h->rw);
	return NULL;
}

/*
 * The end of a test whose writer x holds the lock with reader q queued
 * behind it: the writer leaves, the reader gets the lock and leaves, and
 * nothing is left listed and no deadlock was reported on the way.
 */
static void finish_writer_then_reader(sp_rwlock_t *rw, struct holder *x, pthread_t tx,
				      struct queued_reader *q, pthread_t tq)
{
	struct sp_runtime_stats st;

	__atomic_store_n(&x->stage, 2, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&q->rd.stage, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_int_equal(q->rd.rc, 0);
	__atomic_store_n(&q->rd.stage, 2, __ATOMIC_RELEASE);
	pthread_join(tq, NULL);
	pthread_join(tx, NULL);
	assert_int_equal(nr_readers(rw), 0);
	assert_int_equal(sp_runtime_stats(&st), 0);
	assert_int_equal(st.core.deadlocks, 0);
	assert_int_equal(sp_rwlock_destroy(rw), 0);
}

static void test_queued_reader_behind_writer_holds_nothing(void **state)
{
	sp_rwlock_t rw;
	struct holder x = { .rw = &rw };
	struct queued_reader q = { .rd = { .rw = &rw } };
	struct watcher w = { .rw = &rw, .want = 1 };
	sp_tid_t owner = 0;
	pthread_t tx, tq;

	(void)state;
	assert_int_equal(sp_rwlock_init(&rw, 0), 0);
	assert_int_equal(pthread_create(&tx, NULL, write_holder_main, &x), 0);
	while (!__atomic_load_n(&x.stage, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_int_equal(x.rc, 0);
	/* Registered in glibc, asleep until the writer's unlock. */
	assert_int_equal(pthread_create(&tq, NULL, queued_reader_main, &q), 0);
	assert_true(SP_WAIT_FOR(asleep(&q.tid)));

	assert_int_equal(sp_thread_set_critical(0, true), 0);
	assert_int_equal(critical_timed_wrlock(&rw, &w), ETIMEDOUT);
	assert_int_equal(sp_thread_set_critical(0, false), 0);
	assert_int_equal(w.seen, 0); /* the writer holds it, not the queued reader */
	assert_int_equal(sp_lock_owner(sp_runtime_core(), (sp_lock_key_t)(uintptr_t)&rw, &owner), 0);
	assert_int_equal(owner, (sp_tid_t)__atomic_load_n(&x.tid, __ATOMIC_ACQUIRE));

	finish_writer_then_reader(&rw, &x, tx, &q, tq); /* the reader's turn */
}

/*
 * A writer-preferring rwlock in a read phase with a writer waiting: a new
 * reader waits without registering (glibc's RWAITING) and holds nothing.
 * The critical waiter's scan finds the reader in its section, not the one
 * waiting; a timed reader waiting there times out as glibc's does, and
 * the lock goes on working: the reader in its section leaves, the writer
 * has its turn, then the waiting reader.
 */
struct timed_reader {
	sp_rwlock_t *rw;
	pid_t tid; /* atomic */
	clockid_t clk;
	int rc;    /* atomic: -1 until the call returned */
};

static void *timed_reader_main(void *arg)
{
	struct timed_reader *r = arg;
	struct timespec dl = sp_test_deadline_ms(r->clk, 50);
	int rc;

	__atomic_store_n(&r->tid, sp_test_gettid(), __ATOMIC_RELEASE);
	rc = r->clk == CLOCK_REALTIME ? sp_rwlock_timedrdlock(r->rw, &dl)
				      : sp_rwlock_clockrdlock(r->rw, r->clk, &dl);
	if (rc == 0)
		sp_rwlock_unlock(r->rw);
	__atomic_store_n(&r->rc, rc, __ATOMIC_RELEASE);
	return NULL;
}

static void test_reader_waiting_behind_writer_holds_nothing(void **state)
{
	sp_rwlock_t rw;
	struct rd a = { .rw = &rw };
	struct holder x = { .rw = &rw };
	struct queued_reader q = { .rd = { .rw = &rw } };
	struct timed_reader t1 = { .rw = &rw, .clk = CLOCK_REALTIME, .rc = -1 };
	struct timed_reader t2 = { .rw = &rw, .clk = CLOCK_MONOTONIC, .rc = -1 };
	struct watcher w = { .rw = &rw, .want = 2 };
	sp_tid_t out[8];
	pthread_t ta, tx, tq, tt1, tt2;

	(void)state;
	assert_int_equal(sp_rwlock_init(&rw, SP_RWLOCK_PREFER_WRITER), 0);
	assert_int_equal(pthread_create(&ta, NULL, reader_main, &a), 0);
	while (!__atomic_load_n(&a.stage, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_int_equal(a.rc, 0);
	assert_int_equal(pthread_create(&tx, NULL, write_holder_main, &x), 0);
	assert_true(SP_WAIT_FOR(asleep(&x.tid))); /* the primary writer, waiting for a */
	assert_int_equal(pthread_create(&tq, NULL, queued_reader_main, &q), 0);
	assert_true(SP_WAIT_FOR(asleep(&q.tid))); /* RWAITING: not registered */
	assert_int_equal(pthread_create(&tt1, NULL, timed_reader_main, &t1), 0);
	assert_int_equal(pthread_create(&tt2, NULL, timed_reader_main, &t2), 0);

	assert_int_equal(sp_thread_set_critical(0, true), 0);
	assert_int_equal(critical_timed_wrlock(&rw, &w), ETIMEDOUT);
	assert_int_equal(sp_thread_set_critical(0, false), 0);
	assert_int_equal(w.seen, 1);
	assert_int_equal(sp_lock_readers(sp_runtime_core(), (sp_lock_key_t)(uintptr_t)&rw, out, 8,
					 NULL),
			 1);
	pthread_join(tt1, NULL);
	pthread_join(tt2, NULL);
	assert_int_equal(t1.rc, ETIMEDOUT);
	assert_int_equal(t2.rc, ETIMEDOUT);
	assert_int_equal(__atomic_load_n(&q.rd.stage, __ATOMIC_ACQUIRE), 0);

	__atomic_store_n(&a.stage, 2, __ATOMIC_RELEASE); /* the writer's turn */
	pthread_join(ta, NULL);
	while (!__atomic_load_n(&x.stage, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_int_equal(x.rc, 0);
	finish_writer_then_reader(&rw, &x, tx, &q, tq); /* then the waiting reader's */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uncontended_tells_nothing),
		cmocka_unit_test(test_readers_found_before_and_after_watch),
		cmocka_unit_test(test_nested_read_holds),
		cmocka_unit_test(test_hand_over_hand_readers_listed),
		cmocka_unit_test(test_owner_from_word),
		cmocka_unit_test(test_plain_waiter_reports_no_reader),
		cmocka_unit_test(test_queued_reader_behind_writer_holds_nothing),
		cmocka_unit_test(test_reader_waiting_behind_writer_holds_nothing),
	};

	return cmocka_run_group_tests(tests, sp_test_setup_observe, sp_test_teardown_runtime);
}
