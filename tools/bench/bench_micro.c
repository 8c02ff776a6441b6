// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * `superpass bench micro`: ns per uncontended lock+unlock on one thread for
 * glibc, sp_mutex_t / sp_rwlock_t, and glibc under the interposer (the same
 * loop re-executed with LD_PRELOAD), as ratios to glibc. Best of 5 rounds,
 * in thread CPU time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <superpass/runtime.h>

#include "bench.h"

#define ROUNDS 5

static long iters = 2000000;

static double best_ns(void (*fn)(void *), void *arg)
{
	double best = 1e30;

	for (int r = 0; r < ROUNDS; r++) {
		/* thread CPU time: robust to preemption on a busy machine */
		uint64_t t0 = bench_thread_cpu_ns();

		fn(arg);
		double ns = (double)(bench_thread_cpu_ns() - t0) / (double)iters;

		if (ns < best)
			best = ns;
	}
	return best;
}

static void glibc_mutex(void *arg)
{
	pthread_mutex_t *m = arg;

	for (long i = 0; i < iters; i++) {
		pthread_mutex_lock(m);
		pthread_mutex_unlock(m);
	}
}

static void glibc_rdlock(void *arg)
{
	pthread_rwlock_t *rw = arg;

	for (long i = 0; i < iters; i++) {
		pthread_rwlock_rdlock(rw);
		pthread_rwlock_unlock(rw);
	}
}

static void sp_mutex_loop(void *arg)
{
	sp_mutex_t *m = arg;

	for (long i = 0; i < iters; i++) {
		sp_mutex_lock(m);
		sp_mutex_unlock(m);
	}
}

static void sp_rdlock_loop(void *arg)
{
	sp_rwlock_t *rw = arg;

	for (long i = 0; i < iters; i++) {
		sp_rwlock_rdlock(rw);
		sp_rwlock_unlock(rw);
	}
}

static void glibc_pair(double *mutex_ns, double *rd_ns)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;

	*mutex_ns = best_ns(glibc_mutex, &m);
	*rd_ns = best_ns(glibc_rdlock, &rw);
}

/* Runs the glibc loops again under the interposer; -1 if unavailable. */
static int preload_pair(char **argv, double *mutex_ns, double *rd_ns)
{
	const char *lib = bench_preload_path();
	char iters_s[32], pre[4200];
	int fds[2], status;
	char buf[128] = { 0 };
	pid_t pid;

	if (!lib || pipe(fds) != 0)
		return -1;
	snprintf(iters_s, sizeof(iters_s), "%ld", iters);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		char *args[] = { argv[0], "bench", "micro", "--internal-child", "--iters", iters_s,
				 NULL };

		bench_preload_env(pre, sizeof(pre), lib);
		setenv("LD_PRELOAD", pre, 1);
		setenv("SUPERPASS_QUIET", "1", 1);
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	close(fds[1]);
	if (read(fds[0], buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    sscanf(buf, "%lf %lf", mutex_ns, rd_ns) != 2)
		return -1;
	return 0;
}

int bench_micro_main(int argc, char **argv_full)
{
	static const struct option lo[] = {
		{ "iters", required_argument, NULL, 'n' },
		{ "internal-child", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double gm, gr, sm, sr, pm = 0, pr = 0;
	sp_mutex_t m = SP_MUTEX_INITIALIZER;
	sp_rwlock_t rw = SP_RWLOCK_INITIALIZER;
	int child = 0, c, have_pre;
	char **argv = argv_full + 2; /* after "superpass bench" */

	argc -= 2;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			iters = strtol(optarg, NULL, 10);
			if (iters <= 0) {
				fprintf(stderr, "superpass bench micro: bad --iters '%s'\n", optarg);
				return 2;
			}
			break;
		case 'c': child = 1; break;
		case 'h':
			printf("usage: superpass bench micro [--iters N]\n");
			return 0;
		default:
			fprintf(stderr, "superpass bench micro: unknown option '%s'\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "superpass bench micro: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	glibc_pair(&gm, &gr);
	if (child) {
		printf("%.3f %.3f\n", gm, gr);
		return 0;
	}
	sm = best_ns(sp_mutex_loop, &m);
	sr = best_ns(sp_rdlock_loop, &rw);
	have_pre = preload_pair(argv_full, &pm, &pr) == 0;
	printf("uncontended lock+unlock, one thread, best of %d x %ld iterations (thread CPU "
	       "time)\n", ROUNDS, iters);
	printf("%-34s %9s %9s\n", "", "ns/op", "vs glibc");
	printf("%-34s %9.1f %8.2fx\n", "glibc pthread_mutex", gm, 1.0);
	printf("%-34s %9.1f %8.2fx\n", "sp_mutex_t", sm, sm / gm);
	if (have_pre)
		printf("%-34s %9.1f %8.2fx\n", "pthread_mutex + interposer", pm, pm / gm);
	printf("%-34s %9.1f %8.2fx\n", "glibc pthread_rwlock (read)", gr, 1.0);
	printf("%-34s %9.1f %8.2fx\n", "sp_rwlock_t (read)", sr, sr / gr);
	if (have_pre)
		printf("%-34s %9.1f %8.2fx\n", "pthread_rwlock (read) + interposer", pr, pr / gr);
	else
		printf("(interposer not found: set SUPERPASS_PRELOAD)\n");
	return 0;
}
