// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * An ordinary pthread program that knows nothing of superpass. Run it under
 * the interposer and name its critical thread:
 *
 *   superpass run -c render -- ./example_interposer
 *
 * or, by hand, with the settings `superpass run` makes:
 *
 *   LD_PRELOAD=libsuperpass-preload.so SUPERPASS_CRITICAL=render \
 *   SUPERPASS_STATS=/tmp/stats.json ./example_interposer
 *
 * The "render" thread waits for a mutex and an rwlock held by nice 19
 * threads; the interposer fast-tracks them while it waits. Compare the
 * printed worst wait with and without LD_PRELOAD.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t scene_lock = PTHREAD_RWLOCK_INITIALIZER;
static int stop; /* set once by main, read by the others: atomics */

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static void burn_us(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void *background(void *arg)
{
	long id = (long)arg;

	pthread_setname_np(pthread_self(), id ? "reader" : "saver");
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		if (id) {
			pthread_rwlock_rdlock(&scene_lock);
			burn_us(400);
			pthread_rwlock_unlock(&scene_lock);
		} else {
			pthread_mutex_lock(&state_lock);
			burn_us(400);
			pthread_mutex_unlock(&state_lock);
		}
		usleep(3000);
	}
	return NULL;
}

static void *hog(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		burn_us(1000);
	return NULL;
}

static void *render(void *arg)
{
	long worst = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "render");
	for (int frame = 0; frame < 360; frame++) { /* 3 s at 120 Hz */
		long t0 = now_us();

		pthread_mutex_lock(&state_lock);
		pthread_mutex_unlock(&state_lock);
		pthread_rwlock_wrlock(&scene_lock);
		pthread_rwlock_unlock(&scene_lock);
		if (now_us() - t0 > worst)
			worst = now_us() - t0;
		usleep(8333);
	}
	printf("render: worst wait for its locks %.2f ms\n", worst / 1000.0);
	return NULL;
}

int main(void)
{
	pthread_t r, bg[3], h[4];

	for (long i = 0; i < 3; i++)
		pthread_create(&bg[i], NULL, background, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_create(&h[i], NULL, hog, NULL);
	pthread_create(&r, NULL, render, NULL);
	pthread_join(r, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 3; i++)
		pthread_join(bg[i], NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(h[i], NULL);
	return 0;
}
