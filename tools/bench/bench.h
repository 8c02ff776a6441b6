/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * `superpass bench`: a real-kernel experiment. A latency-critical thread
 * runs a 120 Hz frame loop and takes locks that low-priority threads hold,
 * while CPU hogs keep every CPU busy. Each policy runs the same workload in
 * the same invocation; the figures are compared as ratios to `none`.
 */
#ifndef SP_BENCH_H
#define SP_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <superpass/hist.h>
#include <superpass/runtime.h>

enum bench_scenario { SC_MUTEX, SC_RWLOCK, SC_CHAIN, SC_NR };
enum bench_policy { PO_NONE, PO_PI, PO_RTUI, PO_SUPERPASS, PO_PRELOAD, PO_NR };

#define BENCH_MAX_K 8
#define BENCH_MAX_THREADS 64
#define BENCH_FRAME_NS 8333333ull /* 120 Hz */

struct bench_opts {
	double duration_s;       /* per policy run */
	unsigned scenarios;      /* bit mask of enum bench_scenario */
	unsigned policies;       /* bit mask of enum bench_policy */
	int hogs, holders, readers;
	int ui_nice, bg_nice, hog_nice;
	uint32_t cs_us;          /* background critical section (CPU time) */
	uint32_t ui_cs_us;       /* critical thread's critical section */
	uint32_t ui_work_us;     /* critical thread's work per frame, outside locks */
	uint32_t locks_per_frame;
	uint32_t gap_us;         /* background pause between critical sections */
	uint64_t seed;
	uint32_t k[BENCH_MAX_K]; /* reader-tracker bounds for the rwlock scenario */
	int nr_k;
	bool k_given;             /* --k: superpass-preload runs these K too */
	int prio;                /* SCHED_FIFO priority of fast track and rt-ui */
	uint32_t budget_ms;
	int repeat;              /* runs of each row; the table shows median and range */
	const char *json_path;
	bool quiet;
	/* internal: the re-executed child of superpass-preload */
	int child_scenario;      /* -1 unless a child */
	const char *child_result;
};

/* What one run measured. */
struct bench_result {
	enum bench_scenario scenario;
	enum bench_policy policy;
	uint32_t k;              /* rwlock tracker bound (0: n/a) */
	int rep;                 /* which of the --repeat passes */
	bool skipped;
	char note[96];
	struct sp_hist hist;     /* blocking durations of the critical thread, ns */
	uint64_t p50, p99, p999, max; /* from hist (or from the preload child) */
	uint64_t blockings;
	uint64_t frames, janky;
	uint64_t hog_iters;
	double seconds;          /* wall time of the run */
	double cpu_s;            /* process CPU time during the run */
	uint64_t blocked_ns, holder_wait_ns;
	uint64_t grants, expiries, fast_tracks;
	/* From a critical thread's wait (a failed trylock) to a holder of the
	 * lock seeing itself in SCHED_FIFO while it runs its section. */
	struct sp_hist boost_hist;
	uint64_t boost_p50, boost_p99, boost_n;
	double rt_cpu_s;         /* CPU time of the runtime's worker thread in the run */
	/* CPU time the hypervisor gave to others during the run, all CPUs
	 * (/proc/stat steal); -1 where the kernel does not count it. A virtual
	 * CPU taken away for tens of ms stalls whatever it was running, a
	 * fast-tracked holder included: such a run's longest wait may be the
	 * host's. */
	double steal_s;
	int ncpus;
	/* superpass policies: every core and runtime counter at the end of the
	 * run (the JSON's "core" and "runtime" objects). */
	bool have_stats;
	struct sp_runtime_stats stats;
};

extern const char *const bench_scenario_name[SC_NR];
extern const char *const bench_policy_name[PO_NR];

/* bench_opts.c: 0 ok, 1 help printed, -1 error printed (exit 2). */
int bench_parse(int argc, char **argv, struct bench_opts *o);
void bench_usage(FILE *f);

/* bench_run.c: one scenario under one policy, in this process. */
int bench_run(const struct bench_opts *o, enum bench_scenario sc, enum bench_policy po,
	      uint32_t k, struct bench_result *r);

/* Fills p50..max from hist. */
/* A fresh result of one run: zeroes, empty histograms, the row's identity. */
void bench_result_init(struct bench_result *r, enum bench_scenario sc, enum bench_policy po,
		       uint32_t k);
void bench_result_finish(struct bench_result *r);

/* bench_preload.c: the same run re-executed under LD_PRELOAD. */
int bench_run_preload(const struct bench_opts *o, int argc, char **argv,
		      enum bench_scenario sc, uint32_t k, struct bench_result *r);
int bench_child_main(const struct bench_opts *o);

/* bench_report.c */
void bench_print_header(FILE *f, const struct bench_opts *o, enum bench_scenario sc);
/* A line on the host's steal time during @n runs, if it took any. */
void bench_print_steal(FILE *f, const struct bench_result *rs, int n);
/* @rs: @reps passes over the same @rows rows (rs[rep * rows + row]), at
 * most PO_NR * BENCH_MAX_K rows: the same columns for any @reps, and a
 * line per policy against `none`. */
void bench_print_table(FILE *f, const struct bench_opts *o, const struct bench_result *rs,
		       int rows, int reps);
int bench_write_json(const char *path, const struct bench_opts *o, const struct bench_result *rs,
		     int n);

/* bench_proc.c: clocks, CPU-time spinning, niceness, schedstat. */
uint64_t bench_now_ns(void);
uint64_t bench_thread_cpu_ns(void);
double bench_process_cpu_s(void);
void bench_spin_cpu_us(uint32_t us);
/* The same, calling @poll(@arg) about every BENCH_POLL_NS of CPU time: the
 * resolution of boost_us (the holder polls its policy only while a critical
 * wait is on and it has not seen its boost, so a short period costs the
 * section nothing but a few system calls of its own CPU time). */
#define BENCH_POLL_NS 5000u
void bench_spin_cpu_us_poll(uint32_t us, void (*poll)(void *arg), void *arg);
/* CPU time (s) of this process's thread named @comm (0 if none). */
double bench_thread_cpu_by_name(const char *comm);
int bench_set_nice(int nice);
int bench_gettid(void);
int bench_schedstat_open(int tid);
uint64_t bench_schedstat_wait_ns(int fd);
void bench_sleep_ns(uint64_t ns);
void bench_sleep_until_ns(uint64_t abs_ns);

/* bench_micro.c: `superpass bench micro` */
int bench_micro_main(int argc, char **argv);

#endif /* SP_BENCH_H */
