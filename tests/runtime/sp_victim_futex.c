// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A program whose locks are its own futex words, driven through libc's
 * syscall() as GLib and Rust do: a 0/1/2 lock (0 free, 1 held, 2 held with
 * waiters; the word names nobody) and a PI lock (the word is the owner's
 * tid). The main thread waits on each while a nice 19 thread "holder"
 * holds it and polls its own attributes to see whether it was
 * fast-tracked, then releases and checks they are back.
 *
 * The 0/1/2 word: the first wait finds no candidate (nobody was seen at
 * the word yet), so main waits unhelped; the holder's release wakes it,
 * which makes the holder a candidate; the second wait fast-tracks it.
 * The PI word names its owner: the first wait does.
 * Exit status 0 iff the second 0/1/2 wait and the PI wait boosted the
 * holder and it was restored each time.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sp_test_attr.h"

static uint32_t word, pi_word;
static int step, done_step; /* main asks the holder for a round; the holder says it holds */
static int max_polls = 30000;

static long futex(uint32_t *w, int op, uint32_t val)
{
	return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

static void lock012(uint32_t *w)
{
	uint32_t c = 0;

	if (__atomic_compare_exchange_n(w, &c, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	if (c != 2)
		c = __atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE);
	while (c != 0) {
		futex(w, FUTEX_WAIT_PRIVATE, 2);
		c = __atomic_exchange_n(w, 2, __ATOMIC_ACQUIRE);
	}
}

static void unlock012(uint32_t *w)
{
	if (__atomic_exchange_n(w, 0, __ATOMIC_RELEASE) == 2)
		futex(w, FUTEX_WAKE_PRIVATE, 1);
}

static void lock_pi(uint32_t *w, uint32_t tid)
{
	uint32_t c = 0;

	if (!__atomic_compare_exchange_n(w, &c, tid, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		futex(w, FUTEX_LOCK_PI_PRIVATE, 0);
}

static void unlock_pi(uint32_t *w, uint32_t tid)
{
	uint32_t c = tid;

	if (!__atomic_compare_exchange_n(w, &c, 0, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		futex(w, FUTEX_UNLOCK_PI_PRIVATE, 0);
}

static void pause_briefly(void)
{
	struct timespec ts = { 0, 100000 };

	nanosleep(&ts, NULL);
}

static int results[3][2]; /* per round: boosted, restored */

/* Round r: take the lock, say so, wait (bounded) for a boost while main
 * waits for it, let go. Rounds 0 and 1: the 0/1/2 word; 2: the PI word. */
static void *holder(void *arg)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	struct sp_test_attr b, a;

	(void)arg;
	pthread_setname_np(pthread_self(), "holder");
	setpriority(PRIO_PROCESS, tid, 19);
	sp_test_get_attr(&b);
	for (int r = 0; r < 3; r++) {
		while (__atomic_load_n(&step, __ATOMIC_ACQUIRE) != r + 1)
			pause_briefly();
		if (r < 2)
			lock012(&word);
		else
			lock_pi(&pi_word, tid);
		__atomic_store_n(&done_step, r + 1, __ATOMIC_RELEASE);
		/* Round 0 expects no boost: a short look is enough, once main
		 * waits (the word says 2). Without that wait for main, a slow
		 * run (qemu-user on a loaded machine) let go before main asked,
		 * and round 0 had no blocking to count. */
		if (r == 0)
			for (int i = 0; i < max_polls && __atomic_load_n(&word, __ATOMIC_ACQUIRE) != 2; i++)
				pause_briefly();
		results[r][0] = sp_test_wait_boost(&b, r == 0 ? 2000 : max_polls);
		if (r < 2)
			unlock012(&word);
		else
			unlock_pi(&pi_word, tid);
		results[r][1] = sp_test_wait_restored(&b, &a);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	uint32_t self = (uint32_t)syscall(SYS_gettid);
	pthread_t t;
	int ok;

	if (argc > 1)
		max_polls = atoi(argv[1]);
	pthread_create(&t, NULL, holder, NULL);
	for (int r = 0; r < 3; r++) {
		__atomic_store_n(&step, r + 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&done_step, __ATOMIC_ACQUIRE) != r + 1)
			pause_briefly();
		if (r < 2) {
			lock012(&word);
			unlock012(&word);
		} else {
			lock_pi(&pi_word, self);
			unlock_pi(&pi_word, self);
		}
	}
	pthread_join(t, NULL);
	for (int r = 0; r < 3; r++)
		printf("round %d (%s): boosted=%d restored=%d\n", r, r < 2 ? "0/1/2 word" : "PI word",
		       results[r][0], results[r][1]);
	ok = results[1][0] && results[2][0] && results[0][1] && results[1][1] && results[2][1];
	printf("failures=%d\n", !ok);
	return ok ? 0 : 1;
}
