// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A program that knows nothing of superpass: plain pthread mutex, rwlock and
 * condition variable. Its main thread waits for a lock held by a nice 19
 * thread named "holder", and (as a writer) for two nice 19 threads named
 * "reader". Each lock holder polls its own scheduling attributes (raw
 * sched_getattr) to see whether someone fast-tracked it, then releases and
 * checks that its attributes are exactly back. Exit status 0 iff every
 * holder was boosted and restored; without the interposer it exits 1 after
 * a bounded wait. Output: one line per holder.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sp_test_attr.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int nr_ready;
static int failures;
static int max_polls = 30000; /* argv[1] may lower it */

static void ready(void)
{
	pthread_mutex_lock(&cm);
	nr_ready++;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&cm);
}

static void wait_ready(int n)
{
	pthread_mutex_lock(&cm);
	while (nr_ready < n)
		pthread_cond_wait(&cv, &cm);
	pthread_mutex_unlock(&cm);
}

static void report(const char *who, int boosted, const struct sp_test_attr *b, const struct sp_test_attr *a)
{
	int restored = sp_test_attr_same(a, b);

	printf("%s tid=%ld boosted=%d restored=%d", who, (long)syscall(SYS_gettid), boosted,
	       restored);
	if (!restored)
		printf(" before=%u/%d/%u/%llx after=%u/%d/%u/%llx", b->policy, b->nice, b->prio,
		       (unsigned long long)b->flags, a->policy, a->nice, a->prio,
		       (unsigned long long)a->flags);
	printf("\n");
	if (!boosted || !restored)
		__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
}

static void *holder(void *arg)
{
	struct sp_test_attr b, a;
	int boosted;

	(void)arg;
	pthread_setname_np(pthread_self(), "holder");
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	sp_test_get_attr(&b);
	pthread_mutex_lock(&m);
	ready();
	boosted = sp_test_wait_boost(&b, max_polls);
	pthread_mutex_unlock(&m);
	sp_test_wait_restored(&b, &a);
	report("holder", boosted, &b, &a);
	return NULL;
}

static void *reader(void *arg)
{
	struct sp_test_attr b, a;
	int boosted;

	(void)arg;
	pthread_setname_np(pthread_self(), "reader");
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	sp_test_get_attr(&b);
	pthread_rwlock_rdlock(&rw);
	ready();
	boosted = sp_test_wait_boost(&b, max_polls);
	pthread_rwlock_unlock(&rw);
	sp_test_wait_restored(&b, &a);
	report("reader", boosted, &b, &a);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3];

	if (argc > 1)
		max_polls = atoi(argv[1]);
	pthread_create(&t[0], NULL, holder, NULL);
	wait_ready(1);
	pthread_mutex_lock(&m); /* blocks until the holder lets go */
	pthread_mutex_unlock(&m);
	pthread_join(t[0], NULL);

	pthread_create(&t[1], NULL, reader, NULL);
	pthread_create(&t[2], NULL, reader, NULL);
	wait_ready(3);
	pthread_rwlock_wrlock(&rw);
	pthread_rwlock_unlock(&rw);
	pthread_join(t[1], NULL);
	pthread_join(t[2], NULL);
	printf("failures=%d\n", failures);
	return failures ? 1 : 0;
}
