// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libsuperpass in a program: a latency-critical thread and a low-priority
 * worker share an sp_mutex_t while CPU hogs compete for the CPUs. When the
 * critical thread blocks on the mutex, the worker that holds it gets a
 * SCHED_FIFO fast track until it releases the lock.
 *
 *   ./example_runtime          (as root, or with CAP_SYS_NICE, for SCHED_FIFO)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <superpass/runtime.h>

static sp_mutex_t lock = SP_MUTEX_INITIALIZER;
static int stop; /* set once by main, read by the others: atomics */

static void burn_us(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void *worker(void *arg)
{
	(void)arg;
	sp_thread_register("worker");
	setpriority(PRIO_PROCESS, (id_t)sp_thread_self(), 19);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		sp_mutex_lock(&lock);
		burn_us(500); /* a short critical section, unless preempted */
		sp_mutex_unlock(&lock);
		usleep(2000);
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

int main(void)
{
	struct sp_runtime_config cfg;
	struct sp_runtime_stats st;
	pthread_t w, h[4];

	sp_runtime_config_default(&cfg);
	cfg.fifo_prio = 1;
	if (sp_runtime_create(&cfg) != 0)
		return 1;
	printf("actuator mode: %s\n", sp_act_mode_name(sp_runtime_mode()));
	sp_thread_register("ui");
	sp_thread_set_critical(0, true);

	pthread_create(&w, NULL, worker, NULL);
	for (int i = 0; i < 4; i++)
		pthread_create(&h[i], NULL, hog, NULL);
	for (int frame = 0; frame < 240; frame++) { /* 2 s at 120 Hz */
		sp_mutex_lock(&lock);
		burn_us(50);
		sp_mutex_unlock(&lock);
		usleep(8333);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(w, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(h[i], NULL);

	sp_runtime_stats(&st);
	printf("blockings of the critical thread: %llu, fast tracks: %llu, restored: %llu, "
	       "budget expiries: %llu\n",
	       (unsigned long long)st.core.blockings, (unsigned long long)st.act_fast_tracks,
	       (unsigned long long)st.act_restores, (unsigned long long)st.core.expiries);
	sp_runtime_write_json(stdout);
	sp_runtime_destroy();
	return 0;
}
