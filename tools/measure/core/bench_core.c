// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Microbenchmark of the core's event paths (not a test: it asserts
 * nothing about time). ns per operation, where an operation is a pair of
 * events:
 *   acquire+release   sp_lock_acquired + sp_lock_released, exclusive
 *   rdlock enter+exit sp_lock_acquired + sp_lock_released, shared
 *   block+unblock     a critical waiter blocks on a lock held by a normal
 *                     task (a grant: the holder is fast-tracked) and
 *                     stops waiting (the grant ends: the holder restored)
 * on 1 and 2 threads, each thread on its own tasks and locks, plus a
 * variant where 2 threads read the same rwlock. The actuator does
 * nothing; the core's clock is CLOCK_MONOTONIC. Median of 5 runs, in
 * thread CPU time (descheduled time excluded) and in wall time.
 *
 * Usage: sp_bench_core [iterations-scale, default 1]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <superpass/core.h>

#define RUNS 5
#define MAX_THREADS 2

static uint64_t now_ns(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int noop_act(void *ctx, sp_tid_t tid)
{
	(void)ctx;
	(void)tid;
	return 0;
}

static const struct sp_host_ops bench_ops = {
	.now_ns = now_ns,
	.fast_track = noop_act,
	.restore = noop_act,
};

enum bench_kind { B_ACQ_REL, B_RD, B_BLOCK };

struct bench_thread {
	struct sp_core *core;
	enum bench_kind kind;
	unsigned idx;
	bool same_lock;
	uint64_t iters;
	pthread_barrier_t *bar;
	double ns_per_op;      /* thread CPU time per op */
	double wall_per_op;    /* wall time per op */
	int cpu;
};

/* CPU time of the calling thread: on a shared machine, time spent
 * descheduled does not count against the core. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* Best effort: an affinity mask that excludes the CPU just leaves
	 * the thread where the scheduler puts it. */
	(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* @n event pairs of @kind: the switch outside the loops, so that a timed
 * run measures the core's calls and their loop only. */
static void run_ops(enum bench_kind kind, struct sp_core *core, sp_tid_t me, sp_lock_key_t lock,
		    uint64_t n)
{
	uint64_t i;

	switch (kind) {
	case B_ACQ_REL:
		for (i = 0; i < n; i++) {
			sp_lock_acquired(core, me, lock, SP_HOLD_EXCL);
			sp_lock_released(core, me, lock, SP_HOLD_EXCL);
		}
		break;
	case B_RD:
		for (i = 0; i < n; i++) {
			sp_lock_acquired(core, me, lock, SP_HOLD_SHARED);
			sp_lock_released(core, me, lock, SP_HOLD_SHARED);
		}
		break;
	case B_BLOCK:
		for (i = 0; i < n; i++) {
			sp_lock_blocked(core, me, lock, SP_HOLD_EXCL);
			sp_lock_unblocked(core, me, lock, false);
		}
		break;
	}
}

static void *bench_main(void *arg)
{
	struct bench_thread *b = arg;
	struct sp_core *core = b->core;
	sp_tid_t me = 1000 + b->idx * 2, holder = me + 1;
	sp_lock_key_t lock = 0x100000ull * (b->same_lock ? 1 : b->idx + 1);
	uint64_t t0, t1, c0, c1, warm = b->iters / 10 + 1;

	pin(b->cpu);
	sp_task_register(core, me);
	if (b->kind == B_BLOCK) {
		sp_task_register(core, holder);
		sp_task_set_critical(core, me, true);
		sp_lock_acquired(core, holder, lock, SP_HOLD_EXCL);
	}
	run_ops(b->kind, core, me, lock, warm);
	pthread_barrier_wait(b->bar);
	c0 = cpu_ns();
	t0 = now_ns(NULL);
	run_ops(b->kind, core, me, lock, b->iters);
	t1 = now_ns(NULL);
	c1 = cpu_ns();
	b->ns_per_op = (double)(c1 - c0) / (double)b->iters;
	b->wall_per_op = (double)(t1 - t0) / (double)b->iters;
	if (b->kind == B_BLOCK)
		sp_lock_released(core, holder, lock, SP_HOLD_EXCL);
	return NULL;
}

/* One run: CPU and wall ns/op averaged over the threads. Checks that the
 * block benchmark really granted and restored once per iteration. */
static double run_once(enum bench_kind kind, unsigned nthreads, bool same_lock, uint64_t iters,
		       double *wall)
{
	struct bench_thread bt[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	pthread_barrier_t bar;
	struct sp_core *core;
	struct sp_stats st;
	double sum = 0, wsum = 0;
	unsigned i;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int rc = sp_core_create(NULL, &bench_ops, NULL, &core);

	if (rc) {
		fprintf(stderr, "sp_core_create: %d\n", rc);
		exit(1);
	}
	pthread_barrier_init(&bar, NULL, nthreads);
	for (i = 0; i < nthreads; i++) {
		bt[i] = (struct bench_thread){
			.core = core, .kind = kind, .idx = i, .same_lock = same_lock,
			.iters = iters, .bar = &bar,
			.cpu = ncpu >= (long)nthreads ? (int)i : -1,
		};
		pthread_create(&th[i], NULL, bench_main, &bt[i]);
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		sum += bt[i].ns_per_op;
		wsum += bt[i].wall_per_op;
	}
	*wall = wsum / nthreads;
	sp_core_stats(core, &st);
	if (kind == B_BLOCK) {
		uint64_t want = nthreads * (iters + iters / 10 + 1);

		if (st.fast_tracks != want || st.restores != want || st.grants != want) {
			fprintf(stderr, "block benchmark: %llu grants, %llu fast tracks, "
				"%llu restores, expected %llu each\n",
				(unsigned long long)st.grants, (unsigned long long)st.fast_tracks,
				(unsigned long long)st.restores, (unsigned long long)want);
			exit(1);
		}
	}
	sp_core_destroy(core);
	pthread_barrier_destroy(&bar);
	return sum / nthreads;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void bench(const char *name, enum bench_kind kind, unsigned nthreads, bool same_lock,
		  uint64_t iters)
{
	double r[RUNS], w[RUNS];
	unsigned i;

	for (i = 0; i < RUNS; i++)
		r[i] = run_once(kind, nthreads, same_lock, iters, &w[i]);
	qsort(r, RUNS, sizeof(r[0]), cmp_double);
	qsort(w, RUNS, sizeof(w[0]), cmp_double);
	printf("| %-36s | %7u | %8.1f | %6.1f .. %-6.1f | %8.1f |\n", name, nthreads, r[RUNS / 2],
	       r[0], r[RUNS - 1], w[RUNS / 2]);
}

int main(int argc, char **argv)
{
	uint64_t scale = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
	uint64_t fast = 4000000 * (scale ? scale : 1), slow = fast / 8;
	int i;

	printf("command:");
	for (i = 0; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\ncores online: %ld; iterations per thread: %llu (acquire/rdlock), "
	       "%llu (block); ns per operation (a pair of events), median of %d runs;\n"
	       "CPU ns: thread CPU time (robust on a loaded machine), wall ns: elapsed\n\n",
	       sysconf(_SC_NPROCESSORS_ONLN), (unsigned long long)fast,
	       (unsigned long long)slow, RUNS);
	printf("| %-36s | %7s | %8s | %-16s | %8s |\n", "operation", "threads", "CPU ns",
	       "CPU min .. max", "wall ns");
	printf("|%.38s|%.9s|%.10s|%.18s|%.10s|\n", "--------------------------------------",
	       "---------", "----------", "------------------", "----------");
	bench("acquire+release (excl)", B_ACQ_REL, 1, false, fast);
	bench("acquire+release (excl), own locks", B_ACQ_REL, 2, false, fast);
	bench("rdlock enter+exit", B_RD, 1, false, fast);
	bench("rdlock enter+exit, own locks", B_RD, 2, false, fast);
	bench("rdlock enter+exit, same lock", B_RD, 2, true, fast);
	bench("block+unblock with grant", B_BLOCK, 1, false, slow);
	bench("block+unblock with grant, own locks", B_BLOCK, 2, false, slow);
	return 0;
}
