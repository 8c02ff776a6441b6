/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * superpass::sim, the offline host: a deterministic discrete-event
 * simulator of CPUs, scheduling classes, locks and threads, in integer
 * nanoseconds. The `superpass` policy is the real core (lib/core) behind
 * the recording host's queued actuator (include/superpass/rec_host.h),
 * with the primitives the core's wait policy decides on (the critical
 * waiter's raise and slice under sp_waiter_boost; the mutex hand-off in
 * the linux model; core.h's sp_core_wait_plan, sp_core_handoff_wanted);
 * the other policies (none, pi, rt-ui, proxy-exec, proxy-exec-migrate,
 * ux-writer) are models of what Linux and Android do.
 *
 * Same workload, options and seed: the same result, bit for bit (nothing
 * reads a real clock, and the only randomness is the seeded generator).
 *
 * What it models, and what it leaves out:
 *  - Fair class after EEVDF (Linux 6.6+): the kernel's nice-to-weight
 *    table; virtual runtime advances by delta * 1024 / weight; a task is
 *    eligible when its vruntime is at most the run queue's weighted
 *    average; the eligible task with the earliest virtual deadline runs;
 *    a deadline is vruntime + base_slice * 1024 / weight, renewed when the
 *    slice is used (classic model: at the exact instant, as with HRTICK;
 *    linux model: a thread that enters the kernel (sleeps, locks) at the
 *    exact instant too, as a trace of this kernel shows a bench holder's;
 *    one of CPU work only, when Linux without HRTICK next accounts it at a
 *    wakeup, dequeue or pick on its CPU, else at the next 4 ms tick,
 *    HZ=250). Base slice: 3 ms in the classic model, the kernel's 0.70 ms
 *    * (1 + ilog2(CPUs, at most 8)) in the linux one, unless the workload
 *    or options give one. Lag is kept across sleeps (clamped as
 *    place_entity does, with its (W + w) / W inflation); a waking task
 *    preempts when it is eligible and its deadline is earlier. A sleeper's negative lag: the
 *    classic model (the default) drops it; the "linux" model (workload
 *    global.sp_sched_model, what `superpass replay` uses) keeps it as
 *    DELAY_DEQUEUE with DELAY_ZERO does (6.12+): the sleeper stays owed to
 *    its queue, and wakes with what its queue's average has not paid off
 *    yet (so a nice-19 thread that sleeps 50 us after each 500 us burst
 *    gets its weight's share beside nice-0 hogs, 0.7 %, not 14 %). The
 *    linux model also has RUN_TO_PARITY: the running fair task keeps its
 *    CPU against a fair wakeup while it is eligible and inside its slice,
 *    unless the woken task's slice is shorter (PREEMPT_SHORT). Every task
 *    has the one base slice but a critical waiter that waits with the
 *    core's wait slice (sp_waiter_boost, when it is not raised). No cgroups,
 *    no SMT, no frequency scaling, no context-switch cost; PELT only as
 *    the load below (linux model).
 *  - RT class: SCHED_FIFO and SCHED_RR (100 ms slices), priorities 1..99,
 *    always above fair; FIFO order within a priority.
 *  - Per-CPU run queues. Wakeup placement: a fair task goes to its
 *    previous CPU if idle, else to the lowest-numbered idle CPU, else back
 *    to its previous CPU (linux model: select_task_rq_fair()'s fast path,
 *    where the waker's CPU may replace the previous one first: an unlock's
 *    wakee goes to the unlocking thread's CPU when wake_affine() says so,
 *    that CPU idle, or its load with the wakee's (as of the wakee's last
 *    sleep, task_h_load()) below the previous one's by WA_BIAS, unless
 *    wake_wide() finds a waker of many and a wakee of several
 *    (record_wakee()'s flips); and a sleeper DELAY_DEQUEUE still
 *    holds is requeued where it is); an RT task goes to the CPU running the
 *    lowest-priority work when it cannot preempt where it was (cpupri's
 *    find_lowest_rq). Balancing: a CPU about to go idle pulls a queued
 *    task from the CPU with most queued tasks; every 4 ms the CPU with most
 *    runnable fair tasks gives one queued task to the one with fewest when
 *    they differ by two or more (classic: counts), or the CPU with the most
 *    fair load gives the heaviest queued task that narrows the gap
 *    (linux: weight times PELT's runnable share, 32 ms half-life, a
 *    sleeping thread's load decaying on its CPU; a task whose load is
 *    more than half the gap moves after failed tries above 117 % of the
 *    least loaded (imbalance_pct), its
 *    load halved per try as nr_balance_failed does, so four nice-0 hogs
 *    go two per CPU whatever nice-19 or mostly sleeping threads run
 *    beside them; a task that fits the gap moves at any imbalance, which
 *    Linux does not do: a calibration, sp_sim_balance.c says why); a queued
 *    RT task is pulled by any CPU that would otherwise run something lower.
 *  - Locks: userspace mutex (glibc normal futex mutex: unlock frees the
 *    word and wakes one waiter, which retries when it runs, so a running
 *    thread may take the lock first), PI futex mutex (ownership handed to
 *    the top waiter; the owner inherits the best RT priority among its
 *    waiters, transitively; fair waiters give nothing), userspace rwlock
 *    (reader- or writer-preferring like glibc's kinds; futex wake-and-retry;
 *    linux model: a reader that finds a writer waiting in a read phase
 *    waits unregistered, RWAITING, and is woken to retry by the last
 *    reader out or the writer's unlock instead of being handed the read
 *    side),
 *    kernel mutex (FIFO handoff to the first waiter; no optimistic
 *    spinning; linux model: the unlock leaves it free and wakes the head
 *    waiter, a thread that runs first takes it, and the woken waiter that
 *    lost it stays at the head and sets the handoff, MUTEX_FLAG_HANDOFF,
 *    for the next unlock), kernel rwsem (FIFO queue; a new reader queues
 *    behind any waiter; a writer release wakes every queued reader, or
 *    hands off to a writer at the head; linux model: a writer at the head
 *    is woken to retry and a writer that runs first may take the rwsem
 *    past it, until the head writer, having waited a 4 ms tick or being
 *    real-time, sets RWSEM_FLAG_HANDOFF).
 */
#ifndef SUPERPASS_SIM_H
#define SUPERPASS_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <superpass/hist.h>
#include <superpass/stats.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- workloads ---- */

enum sp_sim_lock_kind {
	SP_SIM_UMUTEX = 0,     /* pthread mutex (rt-app "lock"); PI under `pi` */
	SP_SIM_URWLOCK = 1,    /* pthread rwlock, reader-preferring (glibc default) */
	SP_SIM_URWLOCK_W = 2,  /* pthread rwlock, PREFER_WRITER_NONRECURSIVE */
	SP_SIM_KMUTEX = 3,     /* kernel struct mutex */
	SP_SIM_RWSEM = 4,      /* kernel rw_semaphore */
	SP_SIM_LOCK_KIND_NR
};

enum sp_sim_sched {
	SP_SIM_OTHER = 0,      /* fair class; prio is the nice value */
	SP_SIM_FIFO = 1,       /* prio 1..99 */
	SP_SIM_RR = 2,         /* prio 1..99 */
};

enum sp_sim_hold {
	SP_SIM_EXCL = 0,       /* mutex, or write side */
	SP_SIM_SHARED = 1,     /* read side */
};

struct sp_sim_workload;

/* An empty workload named @name (the scenario column of the table).
 * 0, -EINVAL, -ENOMEM. */
int sp_sim_workload_create(const char *name, struct sp_sim_workload **out);
void sp_sim_workload_destroy(struct sp_sim_workload *w);
const char *sp_sim_workload_name(const struct sp_sim_workload *w);
/* CPUs the file asks for (0: not said) and its duration (0: not said). */
uint32_t sp_sim_workload_cpus(const struct sp_sim_workload *w);
uint64_t sp_sim_workload_duration_ns(const struct sp_sim_workload *w);
void sp_sim_workload_set_cpus(struct sp_sim_workload *w, uint32_t cpus);
void sp_sim_workload_set_duration_ns(struct sp_sim_workload *w, uint64_t ns);
/* true if a lock of @w is an rwlock or rwsem (readers to track). */
bool sp_sim_workload_has_rw(const struct sp_sim_workload *w);

/* The most locks one thread holds at once: a workload that nests more is
 * refused (sp_sim_workload_load, sp_sim_run: -E2BIG). */
#define SP_SIM_MAX_HELD 16u
/* The longest duration a workload file may ask for (global.duration, in
 * seconds; global.sp_duration_ms). */
#define SP_SIM_MAX_DURATION_S 1000000u

/* Reads an rt-app JSON file (the subset and extensions are described in
 * lib/hosts/sim/sp_sim_rtapp.c). On failure returns a negative errno and writes
 * "FILE: KEY: what was expected" into @err. The tasks' locks are checked
 * (lib/hosts/sim/sp_sim_validate.c): a task that takes a lock it holds,
 * unlocks one it does not hold, or holds more than SP_SIM_MAX_HELD at once
 * is an error (-EINVAL); a lock still held when a task's program ends and a
 * lock-order inversion between two threads are warnings, kept in the
 * workload (sp_sim_workload_warning). */
int sp_sim_workload_load(const char *path, struct sp_sim_workload **out, char *err,
			 size_t errcap);
/* The same from text in memory; @name is used in errors and as the
 * scenario name. */
int sp_sim_workload_parse(const char *text, const char *name, struct sp_sim_workload **out,
			  char *err, size_t errcap);
/* Warning @i of the workload's file ("FILE: KEY: what", the checks above),
 * NULL past the last. A workload made with the builders below has none. */
const char *sp_sim_workload_warning(const struct sp_sim_workload *w, uint32_t i);

/* Builders. Each returns the new lock's or task's index (>= 0) or a
 * negative errno. Durations are in ns. */
int sp_sim_lock_add(struct sp_sim_workload *w, const char *name, enum sp_sim_lock_kind kind);
int sp_sim_task_add(struct sp_sim_workload *w, const char *name, enum sp_sim_sched sched,
		    int prio, uint32_t instances);
int sp_sim_task_set_critical(struct sp_sim_workload *w, int task, bool critical);
/* CPUs the task may run on (bit i: CPU i); 0 or all ones: any. */
int sp_sim_task_set_affinity(struct sp_sim_workload *w, int task, uint64_t mask);
int sp_sim_task_set_delay(struct sp_sim_workload *w, int task, uint64_t ns);
/* How many times the list of phases runs (-1: for ever, the default). */
int sp_sim_task_set_loop(struct sp_sim_workload *w, int task, int64_t loop);
/* Starts a new phase, run @loop times (>= 1). Events added before the
 * first call go to an implicit phase of loop 1. */
int sp_sim_task_phase(struct sp_sim_workload *w, int task, int64_t loop);
int sp_sim_task_run(struct sp_sim_workload *w, int task, uint64_t ns);      /* CPU work */
int sp_sim_task_runtime(struct sp_sim_workload *w, int task, uint64_t ns);  /* busy for wall time */
int sp_sim_task_sleep(struct sp_sim_workload *w, int task, uint64_t ns);
int sp_sim_task_yield(struct sp_sim_workload *w, int task);
/* A preemption point: if the thread runs in the fair class here, its slice
 * ends (a new deadline, and the CPU picks again, as when a slice is used
 * up); in the RT class (boosted, PI, rt-ui) nothing happens. What a trace
 * replay puts where the recorded thread was preempted (include/superpass/
 * replay.h). */
int sp_sim_task_preempt(struct sp_sim_workload *w, int task);
/* rt-app's timer: sleeps until the next period of timer @ref; a frame of
 * a critical task, janky when reached late. @jitter_ns: each period is
 * period +- jitter (uniform). @absolute: a late thread keeps its schedule
 * (and catches up), else it restarts from now; @backlog: with @absolute,
 * more than this many periods behind restarts the schedule (0: never).
 * @unique: one timer per thread (rt-app's "unique"), else shared by name. */
int sp_sim_task_timer(struct sp_sim_workload *w, int task, const char *ref, uint64_t period_ns,
		      uint64_t jitter_ns, bool absolute, uint32_t backlog, bool unique);
int sp_sim_task_lock(struct sp_sim_workload *w, int task, int lock, enum sp_sim_hold hold);
int sp_sim_task_unlock(struct sp_sim_workload *w, int task, int lock);
/* Changes the thread's policy and priority (nice for SP_SIM_OTHER). */
int sp_sim_task_setsched(struct sp_sim_workload *w, int task, enum sp_sim_sched sched, int prio);
int sp_sim_lock_find(const struct sp_sim_workload *w, const char *name);
/* The name of lock @lock (an index: sp_sim_trace.lock), NULL if none. */
const char *sp_sim_lock_name(const struct sp_sim_workload *w, int lock);
int sp_sim_task_find(const struct sp_sim_workload *w, const char *name);

/* A copy of @w with one parameter changed, for sweeps. @param:
 *   "holders"  instances of every non-critical task that takes a lock
 *   "nice"     nice of those tasks (SCHED_OTHER ones)
 *   "cs_us"    every run/runtime inside their critical sections, in us
 * 0, -EINVAL (unknown parameter or bad value), -ENOMEM. ("k" is an
 * option of the run, not of the workload: struct sp_sim_opts.k.) */
int sp_sim_workload_vary(const struct sp_sim_workload *w, const char *param, int64_t value,
			 struct sp_sim_workload **out);

/* ---- runs ---- */

enum sp_sim_policy {
	SP_SIM_POL_NONE = 0,
	SP_SIM_POL_PI,
	SP_SIM_POL_RTUI,
	SP_SIM_POL_PROXY,
	SP_SIM_POL_PROXY_MIGRATE,
	SP_SIM_POL_UX_WRITER,
	SP_SIM_POL_SUPERPASS,
	SP_SIM_POL_RSEQ_SLICE,
	SP_SIM_POL_LAVD,
	SP_SIM_POL_NR
};

/* "none", "pi", "rt-ui", "proxy-exec", "proxy-exec-migrate", "ux-writer",
 * "superpass", "rseq-slice", "lavd"; NULL if out of range.
 * rseq-slice (Linux 7.0's rseq time-slice extension) and lavd (scx_lavd's
 * futex rule) are the anchors: lib/hosts/sim/sp_sim_anchors.c says what
 * each models and leaves out. */
const char *sp_sim_policy_name(enum sp_sim_policy p);
/* The policy of that name, or -EINVAL. */
int sp_sim_policy_parse(const char *name);

/* What the simulator reports as it goes (tests check invariants on it). */
enum sp_sim_trace_type {
	SP_SIM_TR_SWITCH = 1,  /* cpu now runs thread (-1: idle); arg: the donor (proxy) or -1 */
	SP_SIM_TR_BLOCK,       /* thread waits for lock; arg: hold */
	SP_SIM_TR_ACQUIRE,     /* thread holds lock; arg: hold */
	SP_SIM_TR_RELEASE,     /* thread let go of lock; arg: hold */
	SP_SIM_TR_WAKE,        /* thread is runnable again (timer, futex wake, handoff);
				  rq: the CPU whose queue the wakeup put it on */
	SP_SIM_TR_PRIO,        /* thread's effective RT priority is now arg (0: fair) */
	SP_SIM_TR_FRAME,       /* critical thread reached a timer; arg: 1 if late */
	SP_SIM_TR_PROXY,       /* cpu runs thread (the owner) for donor arg */
	SP_SIM_TR_DONE,        /* thread finished its program */
};

struct sp_sim_trace {
	uint64_t t;            /* ns since the start */
	uint16_t type;         /* enum sp_sim_trace_type */
	int16_t cpu;           /* -1 if none */
	int16_t rq;            /* the CPU whose run queue holds thread, -1 if none */
	int16_t pad;
	int32_t thread;        /* thread index, -1 if none */
	int32_t lock;          /* lock index, -1 if none */
	int32_t arg;
};

struct sp_sim_opts {
	enum sp_sim_policy policy;
	uint32_t k;               /* superpass: readers tracked per lock (0: the core's default) */
	uint32_t cpus;            /* 0: the workload's, else SP_SIM_DEFAULT_CPUS */
	uint64_t duration_ns;     /* 0: the workload's, else SP_SIM_DEFAULT_DURATION_NS */
	uint64_t seed;
	uint64_t base_slice_ns;   /* 0: the workload's, else SP_SIM_DEFAULT_SLICE_NS (linux model: the kernel's) */
	uint64_t budget_ns;       /* superpass grant budget (default 20 ms); UINT64_MAX: none */
	uint64_t tick_ns;         /* superpass tick period while needed (0: 1 ms) */
	int fifo_prio;            /* RT priority of a fast track and of rt-ui (0: 1) */
	/* superpass: from the core's fast-track call to the thread running in
	 * the RT class, as the runtime's worker takes to wake and call
	 * sched_setattr (sp_sim_opts_default: SP_SIM_DEFAULT_BOOST_LATENCY_NS;
	 * 0: at once). A restore acts at once (a thread that lets go of the
	 * lock lowers itself). */
	uint64_t boost_latency_ns;
	/* Each run op's CPU time drawn uniformly from its length +- this many
	 * parts per million (at most SP_SIM_MAX_RUN_JITTER_PPM), from the
	 * thread's seeded generator; 0: exact. A run is chaotic in its input
	 * (a small change of one duration can move many blockings), so runs
	 * over several seeds with a small jitter give the spread that one run
	 * hides (superpass replay --runs). */
	uint32_t run_jitter_ppm;
	/* rseq-slice: the extension a section may run past a preemption
	 * (0: SP_SIM_DEFAULT_RSEQ_SLICE_NS; at most SP_SIM_MAX_RSEQ_SLICE_NS) */
	uint64_t rseq_slice_ns;
	/* Tasks made critical by name (NULL-terminated; NULL: none beyond
	 * the workload's own). */
	const char *const *critical;
	void (*trace)(void *ctx, const struct sp_sim_trace *ev);
	void *trace_ctx;
};

#define SP_SIM_DEFAULT_CPUS 2u
#define SP_SIM_MAX_RUN_JITTER_PPM 100000u
#define SP_SIM_DEFAULT_DURATION_NS (10ull * 1000 * 1000 * 1000)
#define SP_SIM_DEFAULT_SLICE_NS (3ull * 1000 * 1000)
/* The kernel's rseq_slice_ext_nsec: its default and its upper bound. */
#define SP_SIM_DEFAULT_RSEQ_SLICE_NS 5000ull
#define SP_SIM_MAX_RSEQ_SLICE_NS 50000ull
/* The runtime's boost latency: the typical time from a critical wait to
 * the holder running in SCHED_FIFO (`superpass bench` reports it as
 * boost_us; pass the machine's own with --boost-latency-us). */
#define SP_SIM_DEFAULT_BOOST_LATENCY_NS (150ull * 1000)

struct sp_sim_thread_stats {
	char name[32];          /* task name, "-N" appended for instance N > 0 */
	int task;
	bool critical;
	bool hog;               /* the task takes no lock: background work */
	uint64_t cpu_ns;        /* CPU time used */
	uint64_t wait_ns;       /* runnable but not running */
	uint64_t blocked_ns;    /* waiting for a lock */
};

struct sp_sim_result {
	char scenario[64];
	enum sp_sim_policy policy;
	uint32_t k;               /* superpass only; 0 otherwise */
	uint32_t cpus;
	uint64_t sim_ns;          /* simulated time */
	/* The critical threads' blockings (request to acquisition). */
	struct sp_hist hist;
	uint64_t blockings, p50, p99, p999, max;
	uint64_t blocked_ns;      /* their sum */
	uint64_t holder_wait_ns;  /* part of it the worst holder spent runnable, not running */
	/* Critical threads' frames: rt-app's meaning for an rt-app timer (one
	 * per timer reached, janky when reached late: slack < 0); for a frame
	 * loop on sp_skip timers the bench's (every period a frame, janky
	 * the deadlines a late frame missed). */
	uint64_t frames, janky;
	uint64_t bg_work_ns;      /* CPU time of hogs (tasks that take no lock), or of
				     every non-critical task if there is no hog */
	uint64_t busy_ns;         /* CPU time used, all threads */
	uint64_t grants, expiries, fast_tracks, restores; /* superpass: the core's; ux-writer: its boosts */
	uint64_t boosted_at_end;  /* superpass: threads still recorded boosted after the core's destroy */
	uint64_t proxy_runs;      /* proxy: times an owner ran for a donor */
	uint64_t proxy_migrations;
	uint64_t pi_boosts;       /* pi: inherited-priority raises */
	uint64_t deferrals;       /* rseq-slice, lavd: preemptions put off */
	uint64_t handoffs;        /* superpass, linux model: mutexes a taker gave back to a
				     critical waiter (the core's hand-off) */
	uint64_t handoff_timeouts;/* ... whose taker's sleep reached the core's bound */
	uint64_t events;          /* simulator events processed */
	uint64_t ctx_switches;
	uint64_t stalled;         /* threads stopped for looping without using time */
	struct sp_stats core;     /* superpass: the core's statistics at the end */
	uint32_t nthreads;
	struct sp_sim_thread_stats *threads; /* nthreads entries; sp_sim_result_destroy */
};

void sp_sim_opts_default(struct sp_sim_opts *o);
/* Runs @w once under @o. 0, or -EINVAL (bad options: a --critical name
 * that matches no task, cpus above 64, ...), -E2BIG (a thread would hold
 * more than SP_SIM_MAX_HELD locks at once), -ENOMEM. @r must be freed
 * with sp_sim_result_destroy after a success; after a failure it holds
 * nothing. */
int sp_sim_run(const struct sp_sim_workload *w, const struct sp_sim_opts *o,
	       struct sp_sim_result *r);
void sp_sim_result_destroy(struct sp_sim_result *r);

/* ---- reports, in the shape of `superpass bench` ---- */
/* The table header for @w's runs, a row (@none: the `none` run to compare
 * with, or NULL), and the summary lines against `none`. */
void sp_sim_print_header(FILE *f, const char *scenario, uint32_t cpus, uint64_t duration_ns);
void sp_sim_print_row(FILE *f, const struct sp_sim_result *r, const struct sp_sim_result *none);
/* A run's name in those rows: its policy, and a superpass run's K
 * ("superpass K=4", "superpass K=64 (all)"). Returns @buf. */
const char *sp_sim_policy_label(const struct sp_sim_result *r, char *buf, size_t cap);
void sp_sim_print_summary(FILE *f, const struct sp_sim_result *rs, int n);
/* {"runs": [...]} with the bench's record keys, one record per result. */
int sp_sim_write_json(FILE *f, const struct sp_sim_result *rs, int n, uint64_t seed);
/* The blocking CDF of every result (one curve per policy) as SVG. */
int sp_sim_write_svg(FILE *f, const struct sp_sim_result *rs, int n, const char *title);

#ifdef __cplusplus
}
#endif

#endif /* SUPERPASS_SIM_H */
