// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * sp_victim's mutex case written with C11 threads only (<threads.h>): the
 * main thread waits in mtx_lock() for a mutex held by a nice 19 thread named
 * "holder", which polls its own scheduling attributes to see whether it
 * was fast-tracked, then releases and checks they are exactly back. The
 * holder announces itself through cnd_wait/cnd_broadcast, and main also
 * checks mtx_trylock's and mtx_timedlock's C11 results on the held mutex.
 * Exit status 0 iff the holder was boosted and restored and every C11
 * result was the documented one. The thread itself is a pthread: the
 * locks are what is tested, and ThreadSanitizer does not know thrd_create.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "sp_test_attr.h"

static mtx_t m, cm;
static cnd_t cv;
static int ready, release;
static int max_polls = 30000; /* argv[1] may lower it */

static void *holder(void *arg)
{
	struct sp_test_attr b, a;
	int boosted, restored;

	(void)arg;
	pthread_setname_np(pthread_self(), "holder");
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	sp_test_get_attr(&b);
	mtx_lock(&m);
	mtx_lock(&cm);
	ready = 1;
	cnd_broadcast(&cv);
	while (!release) /* main's trylock/timedlock checks come first */
		cnd_wait(&cv, &cm);
	mtx_unlock(&cm);
	boosted = sp_test_wait_boost(&b, max_polls);
	mtx_unlock(&m);
	restored = sp_test_wait_restored(&b, &a);
	printf("holder tid=%ld boosted=%d restored=%d\n", (long)syscall(SYS_gettid), boosted,
	       restored);
	return boosted && restored ? NULL : (void *)1;
}

int main(int argc, char **argv)
{
	struct timespec soon;
	pthread_t t;
	void *held_ok;
	int rc, failures = 0;

	if (argc > 1)
		max_polls = atoi(argv[1]);
	if (mtx_init(&m, mtx_timed) != thrd_success || mtx_init(&cm, mtx_plain) != thrd_success ||
	    cnd_init(&cv) != thrd_success)
		return 2;
	pthread_create(&t, NULL, holder, NULL);
	mtx_lock(&cm);
	while (!ready)
		cnd_wait(&cv, &cm);
	mtx_unlock(&cm);

	rc = mtx_trylock(&m);
	if (rc != thrd_busy) {
		printf("mtx_trylock on a held mutex: %d, expected thrd_busy %d\n", rc, thrd_busy);
		failures++;
	}
	timespec_get(&soon, TIME_UTC);
	soon.tv_nsec += 1000000;
	if (soon.tv_nsec >= 1000000000) {
		soon.tv_sec++;
		soon.tv_nsec -= 1000000000;
	}
	rc = mtx_timedlock(&m, &soon);
	if (rc != thrd_timedout) {
		printf("mtx_timedlock on a held mutex: %d, expected thrd_timedout %d\n", rc,
		       thrd_timedout);
		failures++;
	}
	mtx_lock(&cm);
	release = 1;
	cnd_broadcast(&cv);
	mtx_unlock(&cm);

	mtx_lock(&m); /* blocks until the holder lets go */
	mtx_unlock(&m);
	pthread_join(t, &held_ok);
	failures += held_ok != NULL;
	mtx_destroy(&m);
	mtx_destroy(&cm);
	cnd_destroy(&cv);
	printf("failures=%d\n", failures);
	return failures ? 1 : 0;
}
