// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * What the interposer's syscall() costs a call it only passes on, and a
 * futex wake of a word no wait made known (the common wake: condition
 * variables, events). Run it plain and under the interposer
 * (tools/measure/preload/syscall-cost.sh does both, interleaved) and
 * compare: ns per call, the best of @rounds rounds of @n calls.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t sp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t sp_word;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000, rounds = argc > 2 ? atol(argv[2]) : 15;
	double best_pid = 1e30, best_wake = 1e30;

	for (long r = 0; r < rounds; r++) {
		uint64_t t0 = sp_now_ns();

		for (long i = 0; i < n; i++)
			syscall(SYS_getppid);
		uint64_t t1 = sp_now_ns();

		for (long i = 0; i < n; i++)
			syscall(SYS_futex, &sp_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		uint64_t t2 = sp_now_ns();
		double pid = (double)(t1 - t0) / (double)n, wake = (double)(t2 - t1) / (double)n;

		best_pid = pid < best_pid ? pid : best_pid;
		best_wake = wake < best_wake ? wake : best_wake;
	}
	printf("syscall(SYS_getppid) %.1f ns, syscall(SYS_futex, FUTEX_WAKE) %.1f ns\n", best_pid,
	       best_wake);
	return 0;
}
