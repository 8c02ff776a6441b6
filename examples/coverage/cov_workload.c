// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The coverage workload (cov_workload.h): threads, frame loop, CPU burns
 * and the record of who held L. The record goes into arrays allocated
 * before the threads start and is written at exit, so that keeping it
 * costs two clock reads per hold and no system call.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cov_workload.h"

#define COV_PERIOD_NS 8333333ull /* 120 Hz */
#define COV_BG 2
#define COV_HOGS 4

struct cov_span {
	uint64_t start, end;
};

struct cov_log {
	long tid;
	struct cov_span *span;
	size_t n, cap;
	unsigned long dropped;
};

static const struct cov_lock_ops *cov_ops;
static int cov_stop; /* atomic: the ui is done */
static uint64_t cov_duration_ns;
static struct cov_log cov_holds[1 + COV_BG]; /* [0] the ui's */
static struct cov_log cov_waits;
static uint64_t cov_longest_ns;

static uint64_t cov_now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void cov_burn_ns(uint64_t ns)
{
	uint64_t t0 = cov_now(CLOCK_THREAD_CPUTIME_ID);

	while (cov_now(CLOCK_THREAD_CPUTIME_ID) - t0 < ns)
		;
}

static void cov_note(struct cov_log *log, uint64_t start, uint64_t end)
{
	if (log->n < log->cap)
		log->span[log->n++] = (struct cov_span){ start, end };
	else
		log->dropped++;
}

/* Names the calling thread (what `superpass run -c` matches) and sets its
 * nice value (per thread on Linux: setpriority on the tid). */
static long cov_thread_setup(const char *name, int nice_value)
{
	long tid = syscall(SYS_gettid);

	pthread_setname_np(pthread_self(), name);
	if (setpriority(PRIO_PROCESS, (id_t)tid, nice_value) != 0)
		fprintf(stderr, "%s: cannot set nice %d (not root?): the inversion will be weaker\n",
			name, nice_value);
	return tid;
}

static void *cov_ui(void *arg)
{
	uint64_t next, end;

	(void)arg;
	cov_holds[0].tid = cov_waits.tid = cov_thread_setup("ui", -10);
	next = cov_now(CLOCK_MONOTONIC);
	end = next + cov_duration_ns;
	while (next < end) {
		for (int i = 0; i < 2; i++) {
			uint64_t t0 = cov_now(CLOCK_MONOTONIC), t1, t2;

			cov_ops->ui_lock();
			t1 = cov_now(CLOCK_MONOTONIC);
			cov_burn_ns(20000); /* read the shared state */
			t2 = cov_now(CLOCK_MONOTONIC);
			cov_ops->ui_unlock();
			cov_note(&cov_waits, t0, t1);
			cov_note(&cov_holds[0], t1, t2);
			if (t1 - t0 > cov_longest_ns)
				cov_longest_ns = t1 - t0;
			if (i == 0)
				cov_burn_ns(500000); /* the frame's own work */
		}
		next += COV_PERIOD_NS;
		if (next < cov_now(CLOCK_MONOTONIC))
			next = cov_now(CLOCK_MONOTONIC); /* a missed frame starts now */
		else
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					&(struct timespec){ (time_t)(next / 1000000000ull),
							    (long)(next % 1000000000ull) },
					NULL);
	}
	__atomic_store_n(&cov_stop, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void *cov_bg(void *arg)
{
	struct cov_log *log = arg;
	unsigned int seed = (unsigned int)(log - cov_holds) * 2654435761u;

	log->tid = cov_thread_setup("bg", 19);
	while (!__atomic_load_n(&cov_stop, __ATOMIC_RELAXED)) {
		uint64_t t1, t2;

		seed = seed * 1103515245u + 12345u;
		cov_ops->bg_lock();
		t1 = cov_now(CLOCK_MONOTONIC);
		cov_burn_ns(500000 + (seed >> 8) % 1000000); /* 0.5-1.5 ms of CPU */
		t2 = cov_now(CLOCK_MONOTONIC);
		cov_ops->bg_unlock();
		cov_note(log, t1, t2);
		usleep(500); /* then at it again: L is contended often */
	}
	return NULL;
}

static void *cov_hog(void *arg)
{
	(void)arg;
	cov_thread_setup("hog", 0);
	while (!__atomic_load_n(&cov_stop, __ATOMIC_RELAXED))
		cov_burn_ns(1000000);
	return NULL;
}

static int cov_alloc(struct cov_log *log, size_t cap)
{
	log->cap = cap;
	log->span = calloc(cap, sizeof(*log->span));
	return log->span ? 0 : -1;
}

static void cov_write(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		return;
	}
	fprintf(f, "pid %d\nimpl %s\n", (int)getpid(), cov_ops->impl);
	for (int i = 0; i < 1 + COV_BG; i++)
		for (size_t j = 0; j < cov_holds[i].n; j++)
			fprintf(f, "hold %ld %llu %llu\n", cov_holds[i].tid,
				(unsigned long long)cov_holds[i].span[j].start,
				(unsigned long long)cov_holds[i].span[j].end);
	for (size_t j = 0; j < cov_waits.n; j++)
		fprintf(f, "wait %ld %llu %llu\n", cov_waits.tid,
			(unsigned long long)cov_waits.span[j].start,
			(unsigned long long)cov_waits.span[j].end);
	if (fclose(f) != 0)
		perror(path);
}

int cov_main(int argc, char **argv, const struct cov_lock_ops *ops)
{
	pthread_t ui, bg[COV_BG], hog[COV_HOGS];
	double seconds = argc > 1 ? atof(argv[1]) : 8.0;
	size_t frames;

	if (seconds <= 0 || seconds > 3600) {
		fprintf(stderr, "usage: %s [SECONDS [RECORD_FILE]]\n", argv[0]);
		return 2;
	}
	cov_ops = ops;
	cov_duration_ns = (uint64_t)(seconds * 1e9);
	frames = (size_t)(seconds * 120) + 16;
	/* A bg hold is at least 0.5 ms of CPU: at most 2000 a second. */
	if (cov_alloc(&cov_waits, 2 * frames) || cov_alloc(&cov_holds[0], 2 * frames) ||
	    cov_alloc(&cov_holds[1], (size_t)(seconds * 2000) + 16) ||
	    cov_alloc(&cov_holds[2], (size_t)(seconds * 2000) + 16)) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	for (int i = 0; i < COV_BG; i++)
		pthread_create(&bg[i], NULL, cov_bg, &cov_holds[1 + i]);
	for (int i = 0; i < COV_HOGS; i++)
		pthread_create(&hog[i], NULL, cov_hog, NULL);
	pthread_create(&ui, NULL, cov_ui, NULL);
	pthread_join(ui, NULL);
	for (int i = 0; i < COV_BG; i++)
		pthread_join(bg[i], NULL);
	for (int i = 0; i < COV_HOGS; i++)
		pthread_join(hog[i], NULL);
	printf("ui: longest_wait_ms=%.3f waits=%zu impl=%s\n", cov_longest_ns / 1e6, cov_waits.n,
	       ops->impl);
	if (argc > 2)
		cov_write(argv[2]);
	return 0;
}
