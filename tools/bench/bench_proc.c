// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Clocks, CPU-time work, niceness and per-thread run-queue wait. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_ns(&ts);
}

uint64_t bench_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts_ns(&ts);
}

double bench_process_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts_ns(&ts) / 1e9;
}

/* Work is measured in CPU time, not wall time: a preempted thread takes
 * longer to finish the same work, which is exactly the effect under study. */
void bench_spin_cpu_us(uint32_t us)
{
	uint64_t end = bench_thread_cpu_ns() + (uint64_t)us * 1000u;
	uint64_t x = 0;

	while (bench_thread_cpu_ns() < end) {
		for (int i = 0; i < 200; i++)
			x += (uint64_t)i;
		__asm__ volatile("" : : "r"(x)); /* keep the work */
	}
}

void bench_spin_cpu_us_poll(uint32_t us, void (*poll)(void *arg), void *arg)
{
	uint64_t now = bench_thread_cpu_ns(), end = now + (uint64_t)us * 1000u, next = now;
	uint64_t x = 0;

	while ((now = bench_thread_cpu_ns()) < end) {
		if (now >= next) {
			poll(arg);
			next = now + BENCH_POLL_NS;
		}
		for (int i = 0; i < 200; i++)
			x += (uint64_t)i;
		__asm__ volatile("" : : "r"(x)); /* keep the work */
	}
}

double bench_thread_cpu_by_name(const char *comm)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	double s = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[300], name[32] = { 0 };
		unsigned long long ns;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(name, sizeof(name), f))
			name[0] = 0;
		fclose(f);
		name[strcspn(name, "\n")] = 0;
		if (strcmp(name, comm))
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", e->d_name);
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%llu", &ns) == 1)
				s += (double)ns / 1e9; /* first field: time on CPU, ns */
			fclose(f);
		}
	}
	closedir(d);
	return s;
}

int bench_gettid(void)
{
	return (int)syscall(SYS_gettid);
}

int bench_set_nice(int nice)
{
	if (setpriority(PRIO_PROCESS, (id_t)bench_gettid(), nice) != 0)
		return -errno;
	return 0;
}

int bench_schedstat_open(int tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* Second field: time spent runnable on a run queue, waiting for a CPU. */
uint64_t bench_schedstat_wait_ns(int fd)
{
	char buf[96];
	ssize_t n;
	char *p;

	if (fd < 0)
		return 0;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	strtoull(buf, &p, 10);
	return strtoull(p, NULL, 10);
}

void bench_sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

void bench_sleep_until_ns(uint64_t abs_ns)
{
	struct timespec ts = { (time_t)(abs_ns / 1000000000ull), (long)(abs_ns % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}
