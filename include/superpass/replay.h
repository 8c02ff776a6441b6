/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * superpass::replay: a kernel trace (superpass::trace) turned into a
 * simulator workload (superpass::sim) for what-if replay under another
 * policy.
 *
 * Each replayed thread gets a program, in trace order:
 *  - run: its CPU time between blocking points (sched_switch accounting);
 *  - sleep: a sleep that no traced thread ended keeps its wall length; a
 *    critical thread whose sleeps end on a regular grid (80 % of them on a
 *    multiple of the median interval) gets an absolute rt-app timer of that
 *    period instead: its frames;
 *  - lock: a futex wait (FUTEX_WAIT, WAIT_BITSET, LOCK_PI) or a kernel lock
 *    wait (lock:contention_begin..end) that another traced thread ended is
 *    an acquisition of the lock named by the futex word or the kernel lock
 *    address: futex words are pthread mutexes, contention_begin MUTEX/RT a
 *    kernel mutex, READ/WRITE an rwsem;
 *  - unlock: the point in the waker's own CPU time where it woke the waiter.
 *    So the wait ends when the waker, replayed, reaches that point.
 * Assumptions (what a trace does not show):
 *  - an uncontended acquisition is invisible: a waker that was not seen
 *    taking the lock is assumed to have taken it at most the lock's median
 *    observed section (CPU from a contended acquisition to the wake; all of
 *    the time since its last blocking point if none was observed, or
 *    cs_ns when given) before the wake;
 *  - a release that woke nobody is invisible: a thread releases what it
 *    holds before it sleeps (not before it waits on another lock: chains);
 *  - readers of rwlocks and rwsems appear only as wakers (the last reader
 *    out wakes the writer): the other readers are not in the replay, and a
 *    waker's inferred hold is exclusive;
 *  - threads outside the recorded command (see all_threads) and interrupts
 *    are left out: their CPU time is reported as outside_cpu_ns.
 */
#ifndef SUPERPASS_REPLAY_H
#define SUPERPASS_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <superpass/sim.h>
#include <superpass/trace.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sp_replay_opts {
	const char *const *critical_comms; /* fnmatch patterns, NULL-terminated, or NULL */
	const int32_t *critical_tids;
	size_t nr_critical_tids;
	/* Neither given: every replayed thread with a lock wait is critical. */
	bool all_threads;  /* every thread of the trace, not only the recorded command's */
	uint32_t cpus;     /* 0: the trace's #P, else 2 */
	uint64_t slice_ns; /* the fair base slice the workload asks for (0: Linux's
			      default for that many CPUs, 0.75 ms * (1 + log2(min(cpus, 8)))) */
};

struct sp_replay_figures {   /* the critical threads, together */
	uint64_t blockings, p50, p99, p999, max;
	uint64_t frames, janky;  /* 0, 0 when no critical thread is periodic */
};

struct sp_replay_counts {
	uint64_t events, threads, locks, waits, dropped, sleeps, timers, lost;
	uint64_t hogs;         /* threads replayed as busy until they ended (never slept) */
	uint64_t open_waits;   /* waits still open when the trace ended: dropped */
	uint64_t outside_threads, outside_cpu_ns, replayed_cpu_ns;
	uint64_t first_ns, last_ns;
	uint32_t cpus;
	uint64_t slice_ns;
};

struct sp_replay;

void sp_replay_opts_default(struct sp_replay_opts *o);
/* Streaming: create, feed events (an sp_trace_event_fn), finish. */
int sp_replay_create(const struct sp_replay_opts *o, struct sp_replay **out);
int sp_replay_feed(void *replay, const struct sp_trace_event *ev);
/* Builds the workload. 0; -ENODATA (nothing to replay: no thread, or no
 * critical thread) with the reason in @err; -ENOMEM. */
int sp_replay_finish(struct sp_replay *r, const char *name, char *err, size_t errcap);
/* sp_replay_create + sp_trace_read_file + sp_replay_finish; the reader's
 * diagnostics in @d (may be NULL). -ENOENT etc., -EINVAL (not a trace),
 * -ENODATA, with "FILE: what" in @err. */
int sp_replay_build(const char *path, const struct sp_replay_opts *o, struct sp_replay **out,
		    struct sp_trace_diag *d, char *err, size_t errcap);
void sp_replay_free(struct sp_replay *r);

/* After finish: the workload as rt-app JSON (what --workload writes), the
 * workload itself (parsed from that text: the file and the replay agree),
 * the trace's own figures, and counts. */
const char *sp_replay_json(const struct sp_replay *r);
const struct sp_sim_workload *sp_replay_workload(const struct sp_replay *r);
void sp_replay_trace_figures(const struct sp_replay *r, struct sp_replay_figures *f);
void sp_replay_get_counts(const struct sp_replay *r, struct sp_replay_counts *c);
/* The figures of a run in the same shape. */
void sp_replay_run_figures(const struct sp_sim_result *res, struct sp_replay_figures *f);

#ifdef __cplusplus
}
#endif

#endif /* SUPERPASS_REPLAY_H */
