// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sp_mutex_t / sp_rwlock_t keep pthread semantics: each case runs the same
 * operations on a plain pthread lock and on the instrumented one and expects
 * the same return codes (EBUSY, ETIMEDOUT, EDEADLK, EPERM, recursion). Timed
 * locks use deadlines already in the past or a few ms ahead; only the
 * result code is checked, never how long it took.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include <cmocka.h>

#include <superpass/runtime.h>

#include "sp_test_util.h"

/* A second thread tries the lock while the test thread holds it. */
struct other {
	sp_mutex_t *m;
	sp_rwlock_t *rw;
	int op;
	int rc;
};

enum { OP_TRY, OP_TIMED, OP_CLOCK, OP_UNLOCK, OP_TRYRD, OP_TRYWR, OP_TIMEDRD, OP_TIMEDWR,
       OP_CLOCKRD, OP_CLOCKWR };

static void *other_main(void *arg)
{
	struct other *o = arg;
	struct timespec rt = sp_test_deadline_ms(CLOCK_REALTIME, 5);
	struct timespec mono = sp_test_deadline_ms(CLOCK_MONOTONIC, 5);

	switch (o->op) {
	case OP_TRY: o->rc = sp_mutex_trylock(o->m); break;
	case OP_TIMED: o->rc = sp_mutex_timedlock(o->m, &rt); break;
	case OP_CLOCK: o->rc = sp_mutex_clocklock(o->m, CLOCK_MONOTONIC, &mono); break;
	case OP_UNLOCK: o->rc = sp_mutex_unlock(o->m); break;
	case OP_TRYRD: o->rc = sp_rwlock_tryrdlock(o->rw); break;
	case OP_TRYWR: o->rc = sp_rwlock_trywrlock(o->rw); break;
	case OP_TIMEDRD: o->rc = sp_rwlock_timedrdlock(o->rw, &rt); break;
	case OP_TIMEDWR: o->rc = sp_rwlock_timedwrlock(o->rw, &rt); break;
	case OP_CLOCKRD: o->rc = sp_rwlock_clockrdlock(o->rw, CLOCK_MONOTONIC, &mono); break;
	case OP_CLOCKWR: o->rc = sp_rwlock_clockwrlock(o->rw, CLOCK_MONOTONIC, &mono); break;
	}
	if (o->rc == 0) {
		if (o->m && o->op != OP_UNLOCK)
			sp_mutex_unlock(o->m);
		if (o->rw)
			sp_rwlock_unlock(o->rw);
	}
	return NULL;
}

static int from_other(sp_mutex_t *m, sp_rwlock_t *rw, int op)
{
	struct other o = { .m = m, .rw = rw, .op = op, .rc = -1 };
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, other_main, &o), 0);
	pthread_join(t, NULL);
	return o.rc;
}

/* ---- the inline uncontended paths keep glibc's words ---- */

static pthread_mutex_t *pm_of(sp_mutex_t *m)
{
	return (pthread_mutex_t *)(void *)m->opaque.bytes;
}

static pthread_rwlock_t *prw_of(sp_rwlock_t *rw)
{
	return (pthread_rwlock_t *)(void *)rw->opaque.bytes;
}

static void *nothing_main(void *arg)
{
	return arg;
}

/* A blocking lock from another thread, bounded: a lost wake-up fails the
 * test instead of hanging it. */
struct blocker {
	sp_mutex_t *m;
	sp_rwlock_t *rw;
	int rc;
	int done;
};

static void *blocker_main(void *arg)
{
	struct blocker *b = arg;
	struct timespec dl = sp_test_deadline_ms(CLOCK_REALTIME, 20000);

	b->rc = b->m ? sp_mutex_timedlock(b->m, &dl) : sp_rwlock_timedwrlock(b->rw, &dl);
	if (b->rc == 0)
		b->rc = b->m ? sp_mutex_unlock(b->m) : sp_rwlock_unlock(b->rw);
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* What glibc's own functions see after ours took and released the lock,
 * and what they see while we hold it (the inline paths write glibc's
 * words as glibc would: sp_glibc_locks.h). */
static void check_words(bool with_attr)
{
	sp_mutex_t m = SP_MUTEX_INITIALIZER;
	sp_rwlock_t rw = SP_RWLOCK_INITIALIZER;
	pthread_mutex_t *pm = pm_of(&m);
	pthread_rwlock_t *prw = prw_of(&rw);

	/* sp_mutex_init() passes an attribute object, after which glibc's
	 * __kind has PTHREAD_MUTEX_NO_ELISION_NP set: still a default mutex */
	if (with_attr) {
		assert_int_equal(sp_mutex_init(&m, SP_MUTEX_NORMAL), 0);
		assert_int_equal(sp_rwlock_init(&rw, 0), 0);
	}
	for (int i = 0; i < 3; i++) { /* the first call may register the thread */
		assert_int_equal(sp_mutex_lock(&m), 0);
		assert_int_not_equal(pm->__data.__lock, 0);
		assert_int_equal(pm->__data.__owner, sp_test_gettid());
		assert_int_equal(pm->__data.__nusers, 1);
		assert_int_equal(pthread_mutex_trylock(pm), EBUSY);
		assert_int_equal(sp_mutex_unlock(&m), 0);
		assert_int_equal(pm->__data.__lock, 0);
		assert_int_equal(pm->__data.__owner, 0);
		assert_int_equal(pm->__data.__nusers, 0);
		assert_int_equal(pthread_mutex_trylock(pm), 0);
		assert_int_equal(pthread_mutex_unlock(pm), 0);

		assert_int_equal(sp_rwlock_rdlock(&rw), 0);
		assert_int_equal(sp_rwlock_rdlock(&rw), 0);
		assert_int_equal(prw->__data.__readers >> 3, 2); /* PTHREAD_RWLOCK_READER_SHIFT */
		assert_int_equal(pthread_rwlock_trywrlock(prw), EBUSY);
		assert_int_equal(pthread_rwlock_tryrdlock(prw), 0);
		assert_int_equal(pthread_rwlock_unlock(prw), 0);
		assert_int_equal(sp_rwlock_unlock(&rw), 0);
		assert_int_equal(sp_rwlock_unlock(&rw), 0);
		assert_int_equal(prw->__data.__readers, 0);
		assert_int_equal(pthread_rwlock_trywrlock(prw), 0);
		assert_int_equal(pthread_rwlock_unlock(prw), 0);
	}
}

/* Before anything created the runtime: a child forked now creates its
 * own at its first lock, and must register (and write into owner words)
 * its own tid, not the one its parent had cached for the fork. */
static void test_fork_before_runtime_child_owns_its_locks(void **state)
{
	int status = -1;
	pid_t pid;

	(void)state; /* run before anything created the runtime (main) */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		sp_mutex_t m = SP_MUTEX_INITIALIZER;
		int bad = sp_thread_self() != (sp_tid_t)sp_test_gettid();

		bad |= sp_runtime_create(NULL) != 0; /* the child's own runtime */
		for (int i = 0; i < 3; i++) { /* the first call registers the thread */
			bad |= sp_mutex_lock(&m) != 0;
			bad |= pm_of(&m)->__data.__owner != sp_test_gettid();
			bad |= sp_mutex_unlock(&m) != 0;
		}
		_exit(bad);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* First of all (no thread created yet: glibc's single-threaded mutex
 * path), then after a thread existed (compare-and-exchange). */
static void test_inline_paths_keep_glibcs_words(void **state)
{
	pthread_t t;

	(void)state;
	check_words(false);
	check_words(true);
	assert_int_equal(pthread_create(&t, NULL, nothing_main, NULL), 0);
	pthread_join(t, NULL);
	assert_false(__libc_single_threaded);
	check_words(false);
	check_words(true);
}

/* Held through the inline path, waited for by a thread that blocks in
 * glibc: the unlock must hand the lock over and wake it (the inline read
 * unlock leaves a lock with a waiting writer to glibc). */
static void test_inline_holds_wake_waiters(void **state)
{
	sp_mutex_t m = SP_MUTEX_INITIALIZER;
	sp_rwlock_t rw = SP_RWLOCK_INITIALIZER;
	struct blocker bm = { .m = &m }, brw = { .rw = &rw };
	pthread_t t;

	(void)state;
	assert_int_equal(sp_mutex_lock(&m), 0);
	assert_int_equal(pthread_create(&t, NULL, blocker_main, &bm), 0);
	/* glibc marks a mutex with a waiter 2 (its lll_lock_wait) */
	assert_true(SP_WAIT_FOR(__atomic_load_n(&pm_of(&m)->__data.__lock, __ATOMIC_RELAXED) == 2));
	assert_int_equal(sp_mutex_unlock(&m), 0);
	pthread_join(t, NULL);
	assert_int_equal(bm.rc, 0);

	assert_int_equal(sp_rwlock_rdlock(&rw), 0);
	assert_int_equal(pthread_create(&t, NULL, blocker_main, &brw), 0);
	/* a writer waiting in a read phase sets PTHREAD_RWLOCK_WRLOCKED (2) */
	assert_true(SP_WAIT_FOR((__atomic_load_n(&prw_of(&rw)->__data.__readers, __ATOMIC_RELAXED) &
				 2) != 0));
	assert_int_equal(sp_rwlock_unlock(&rw), 0);
	pthread_join(t, NULL);
	assert_int_equal(brw.rc, 0);
	assert_int_equal(prw_of(&rw)->__data.__readers & 2, 0); /* no writer holds it */
}

static void test_static_initializers(void **state)
{
	sp_mutex_t m = SP_MUTEX_INITIALIZER;
	sp_rwlock_t rw = SP_RWLOCK_INITIALIZER;
	pthread_mutex_t pm = PTHREAD_MUTEX_INITIALIZER;
	pthread_rwlock_t prw = PTHREAD_RWLOCK_INITIALIZER;

	(void)state;
	/* the zero initialisers are glibc's initialisers */
	assert_memory_equal(m.opaque.bytes, &pm, sizeof(pm));
	assert_memory_equal(rw.opaque.bytes, &prw, sizeof(prw));
	assert_int_equal(sp_mutex_lock(&m), 0);
	assert_int_equal(sp_mutex_unlock(&m), 0);
	assert_int_equal(sp_rwlock_rdlock(&rw), 0);
	assert_int_equal(sp_rwlock_unlock(&rw), 0);
}

static void test_mutex_normal(void **state)
{
	sp_mutex_t m;

	(void)state;
	assert_int_equal(sp_mutex_init(&m, 0), 0);
	assert_int_equal(sp_mutex_trylock(&m), 0);
	assert_int_equal(sp_mutex_trylock(&m), EBUSY);  /* same as glibc: no recursion */
	assert_int_equal(from_other(&m, NULL, OP_TRY), EBUSY);
	assert_int_equal(from_other(&m, NULL, OP_TIMED), ETIMEDOUT);
	assert_int_equal(from_other(&m, NULL, OP_CLOCK), ETIMEDOUT);
	assert_int_equal(sp_mutex_unlock(&m), 0);
	assert_int_equal(from_other(&m, NULL, OP_TIMED), 0);
	assert_int_equal(sp_mutex_destroy(&m), 0);
	assert_int_equal(sp_mutex_init(&m, 0x7), EINVAL);
	assert_int_equal(sp_mutex_init(&m, 0x10000), EINVAL);
}

static void test_mutex_errorcheck(void **state)
{
	sp_mutex_t m;
	pthread_mutex_t pm;
	pthread_mutexattr_t a;
	struct timespec past = { 0, 0 };

	(void)state;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&pm, &a);
	assert_int_equal(sp_mutex_init(&m, SP_MUTEX_ERRORCHECK), 0);

	assert_int_equal(sp_mutex_unlock(&m), pthread_mutex_unlock(&pm)); /* EPERM */
	assert_int_equal(sp_mutex_unlock(&m), EPERM);
	assert_int_equal(sp_mutex_lock(&m), pthread_mutex_lock(&pm));
	assert_int_equal(sp_mutex_lock(&m), pthread_mutex_lock(&pm));   /* EDEADLK */
	assert_int_equal(sp_mutex_lock(&m), EDEADLK);
	assert_int_equal(sp_mutex_timedlock(&m, &past), pthread_mutex_timedlock(&pm, &past));
	assert_int_equal(sp_mutex_trylock(&m), pthread_mutex_trylock(&pm)); /* EBUSY */
	assert_int_equal(from_other(&m, NULL, OP_UNLOCK), EPERM);
	assert_int_equal(sp_mutex_unlock(&m), 0);
	assert_int_equal(pthread_mutex_unlock(&pm), 0);
	assert_int_equal(sp_mutex_destroy(&m), 0);
	pthread_mutex_destroy(&pm);
	pthread_mutexattr_destroy(&a);
}

static void test_mutex_recursive(void **state)
{
	sp_mutex_t m;
	struct sp_runtime_stats st;

	(void)state;
	assert_int_equal(sp_mutex_init(&m, SP_MUTEX_RECURSIVE), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(sp_mutex_lock(&m), 0);
	assert_int_equal(sp_mutex_trylock(&m), 0);
	assert_int_equal(from_other(&m, NULL, OP_TRY), EBUSY);
	assert_int_equal(from_other(&m, NULL, OP_UNLOCK), EPERM);
	for (int i = 0; i < 5; i++)
		assert_int_equal(sp_mutex_unlock(&m), 0);
	/* still held once; uncontended holds are not told to the core (the
	 * owner is in the lock word): it records no owner */
	assert_int_equal(from_other(&m, NULL, OP_TRY), EBUSY);
	sp_tid_t owner = 0;
	assert_int_equal(sp_lock_owner(sp_runtime_core(), (sp_lock_key_t)(uintptr_t)&m, &owner), 0);
	assert_int_equal(owner, 0);
	assert_int_equal(sp_mutex_unlock(&m), 0);
	assert_int_equal(sp_mutex_unlock(&m), EPERM);
	assert_int_equal(from_other(&m, NULL, OP_TRY), 0);
	assert_int_equal(sp_runtime_stats(&st), 0);
	assert_int_equal(st.core.stale_events, 0);
	assert_int_equal(sp_mutex_destroy(&m), 0);
}

static void test_mutex_pi_and_robust_keep_behaviour(void **state)
{
	sp_mutex_t m;

	(void)state;
	assert_int_equal(sp_mutex_init(&m, SP_MUTEX_ERRORCHECK | SP_MUTEX_PRIO_INHERIT), 0);
	assert_int_equal(sp_mutex_lock(&m), 0);
	assert_int_equal(sp_mutex_lock(&m), EDEADLK);
	assert_int_equal(from_other(&m, NULL, OP_TRY), EBUSY);
	assert_int_equal(from_other(&m, NULL, OP_TIMED), ETIMEDOUT);
	assert_int_equal(sp_mutex_unlock(&m), 0);
	assert_int_equal(sp_mutex_destroy(&m), 0);

	assert_int_equal(sp_mutex_init(&m, SP_MUTEX_ROBUST), 0);
	assert_int_equal(sp_mutex_lock(&m), 0);
	assert_int_equal(from_other(&m, NULL, OP_TRY), EBUSY);
	assert_int_equal(sp_mutex_unlock(&m), 0);
	assert_int_equal(sp_mutex_destroy(&m), 0);
}

static void test_rwlock(void **state)
{
	sp_rwlock_t rw;
	pthread_rwlock_t prw;
	sp_tid_t readers[4];

	(void)state;
	pthread_rwlock_init(&prw, NULL);
	assert_int_equal(sp_rwlock_init(&rw, 0), 0);
	assert_int_equal(sp_rwlock_init(&rw, 0x40), EINVAL);

	/* read side */
	assert_int_equal(sp_rwlock_rdlock(&rw), 0);
	assert_int_equal(sp_rwlock_tryrdlock(&rw), 0);
	/* an rwlock nobody critical waited on: its readers are not told */
	assert_true(sp_lock_readers(sp_runtime_core(), (sp_lock_key_t)(uintptr_t)&rw, readers,
				    4, NULL) <= 0);
	assert_int_equal(from_other(NULL, &rw, OP_TRYRD), 0);
	assert_int_equal(from_other(NULL, &rw, OP_TRYWR), EBUSY);
	assert_int_equal(from_other(NULL, &rw, OP_TIMEDWR), ETIMEDOUT);
	assert_int_equal(from_other(NULL, &rw, OP_CLOCKWR), ETIMEDOUT);
	assert_int_equal(sp_rwlock_unlock(&rw), 0);
	assert_int_equal(sp_rwlock_unlock(&rw), 0);
	assert_true(sp_lock_readers(sp_runtime_core(), (sp_lock_key_t)(uintptr_t)&rw, readers,
				    4, NULL) <= 0);

	/* write side, compared with glibc */
	assert_int_equal(sp_rwlock_wrlock(&rw), pthread_rwlock_wrlock(&prw));
	assert_int_equal(sp_rwlock_wrlock(&rw), pthread_rwlock_wrlock(&prw)); /* EDEADLK */
	assert_int_equal(sp_rwlock_rdlock(&rw), pthread_rwlock_rdlock(&prw)); /* EDEADLK */
	assert_int_equal(sp_rwlock_trywrlock(&rw), pthread_rwlock_trywrlock(&prw));
	assert_int_equal(sp_rwlock_tryrdlock(&rw), pthread_rwlock_tryrdlock(&prw));
	assert_int_equal(from_other(NULL, &rw, OP_TRYRD), EBUSY);
	assert_int_equal(from_other(NULL, &rw, OP_TIMEDRD), ETIMEDOUT);
	assert_int_equal(from_other(NULL, &rw, OP_CLOCKRD), ETIMEDOUT);
	sp_tid_t owner = 1;
	sp_lock_owner(sp_runtime_core(), (sp_lock_key_t)(uintptr_t)&rw, &owner);
	/* not told (0), or taken from the word by the waits above */
	assert_true(owner == 1 || owner == 0 || owner == sp_thread_self());
	assert_int_equal(sp_rwlock_unlock(&rw), 0);
	assert_int_equal(pthread_rwlock_unlock(&prw), 0);
	assert_int_equal(sp_rwlock_destroy(&rw), 0);
	pthread_rwlock_destroy(&prw);

	assert_int_equal(sp_rwlock_init(&rw, SP_RWLOCK_PREFER_WRITER), 0);
	assert_int_equal(sp_rwlock_wrlock(&rw), 0);
	assert_int_equal(sp_rwlock_unlock(&rw), 0);
	assert_int_equal(sp_rwlock_destroy(&rw), 0);
}

/* Contended paths report block/unblock; counts stay consistent. */
struct contend {
	sp_mutex_t m;
	int iters;
	int locked;                  /* staged: the holder has the lock */
	struct sp_runtime_stats at;  /* staged: stats when the waiter was seen blocked */
	int saw_block;
};

static void *contend_main(void *arg)
{
	struct contend *c = arg;

	for (int i = 0; i < c->iters; i++) {
		sp_mutex_lock(&c->m);
		sp_mutex_unlock(&c->m);
	}
	return NULL;
}

/* Holds the lock until the runtime has counted the test thread's block:
 * the contention is certain, not left to the scheduler. */
static void *staged_holder(void *arg)
{
	struct contend *c = arg;
	struct sp_runtime_stats before;

	assert_int_equal(sp_runtime_stats(&before), 0);
	assert_int_equal(sp_mutex_lock(&c->m), 0);
	__atomic_store_n(&c->locked, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 200000 && !c->saw_block; i++) {
		struct timespec ts = { 0, 50000 }; /* bounded: a hang becomes a failure */

		sp_runtime_stats(&c->at);
		c->saw_block = c->at.core.blocks > before.core.blocks;
		if (!c->saw_block)
			nanosleep(&ts, NULL);
	}
	assert_int_equal(sp_mutex_unlock(&c->m), 0);
	return NULL;
}

static void *report_tid(void *arg)
{
	struct { sp_tid_t tid; int go; } *t = arg;

	__atomic_store_n(&t->tid, sp_thread_self(), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&t->go, __ATOMIC_ACQUIRE))
		sched_yield();
	return NULL;
}

/* One call marks any thread of the process, 0 being the caller. */
static void test_set_critical_by_tid(void **state)
{
	struct { sp_tid_t tid; int go; } other = { 0, 0 };
	struct sp_core *core;
	pthread_t t;

	(void)state;
	assert_int_equal(sp_thread_set_critical(0, true), 0);
	core = sp_runtime_core();
	assert_non_null(core);
	assert_int_equal(sp_task_is_critical(core, sp_thread_self()), 1);
	assert_int_equal(pthread_create(&t, NULL, report_tid, &other), 0);
	while (!__atomic_load_n(&other.tid, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_int_equal(sp_thread_set_critical(other.tid, true), 0);
	assert_int_equal(sp_task_is_critical(core, other.tid), 1);
	assert_int_equal(sp_thread_set_critical(other.tid, false), 0);
	assert_int_equal(sp_task_is_critical(core, other.tid), 0);
	assert_int_equal(sp_thread_set_critical(0, false), 0);
	assert_int_equal(sp_task_is_critical(core, sp_thread_self()), 0);
	__atomic_store_n(&other.go, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
}

static void test_contended_counts(void **state)
{
	static struct contend c;
	pthread_t t[3];
	struct sp_runtime_stats before, st;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(sp_mutex_init(&c.m, 0), 0);
	assert_int_equal(sp_runtime_stats(&before), 0);

	/* One certain blocking of a critical thread. */
	assert_int_equal(sp_thread_set_critical(0, true), 0);
	assert_int_equal(pthread_create(&t[0], NULL, staged_holder, &c), 0);
	while (!__atomic_load_n(&c.locked, __ATOMIC_ACQUIRE))
		sched_yield();
	assert_int_equal(sp_mutex_lock(&c.m), 0); /* blocks until the block is counted */
	assert_int_equal(sp_mutex_unlock(&c.m), 0);
	pthread_join(t[0], NULL);
	assert_int_equal(sp_thread_set_critical(0, false), 0);
	assert_true(c.saw_block);
	assert_int_equal(sp_runtime_stats(&st), 0);
	assert_true(st.core.blocks >= before.core.blocks + 1);
	assert_true(st.core.blockings >= before.core.blockings + 1);
	/* the wait's end is also the acquire: one event, counted once; the
	 * holder's uncontended acquire was not told, its release was (a
	 * critical thread waited), and matched the owner the word gave */
	assert_int_equal(st.core.blocks, st.core.unblocks);
	assert_true(st.core.acquires >= before.core.acquires + 1);
	assert_true(st.core.releases >= st.core.acquires);
	sp_tid_t owner = 1;
	assert_int_equal(sp_lock_owner(sp_runtime_core(), (sp_lock_key_t)(uintptr_t)&c.m, &owner), 0);
	assert_int_equal(owner, 0);

	/* Then free-running contention: whatever blocks, counts stay paired. */
	c.iters = 20000;
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, contend_main, &c);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(sp_runtime_stats(&st), 0);
	assert_int_equal(st.core.blocks, st.core.unblocks);
	/* every acquire told (the ends of waits) had its release told */
	owner = 1;
	assert_int_equal(sp_lock_owner(sp_runtime_core(), (sp_lock_key_t)(uintptr_t)&c.m, &owner), 0);
	assert_int_equal(owner, 0);
	assert_int_equal(sp_mutex_destroy(&c.m), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inline_paths_keep_glibcs_words), /* one thread */
		cmocka_unit_test(test_inline_holds_wake_waiters),
		cmocka_unit_test(test_static_initializers),
		cmocka_unit_test(test_mutex_normal),
		cmocka_unit_test(test_mutex_errorcheck),
		cmocka_unit_test(test_mutex_recursive),
		cmocka_unit_test(test_mutex_pi_and_robust_keep_behaviour),
		cmocka_unit_test(test_rwlock),
		cmocka_unit_test(test_set_critical_by_tid),
		cmocka_unit_test(test_contended_counts),
	};

	/* First, alone and before the group set-up creates the runtime. */
	const struct CMUnitTest before[] = {
		cmocka_unit_test(test_fork_before_runtime_child_owns_its_locks),
	};
	int failed = cmocka_run_group_tests_name("before the runtime", before, NULL, NULL);

	return failed + cmocka_run_group_tests(tests, sp_test_setup_observe, sp_test_teardown_runtime);
}
