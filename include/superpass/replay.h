/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * superpass::replay: a kernel trace (superpass::trace) turned into a
 * simulator workload (superpass::sim) for what-if replay under another
 * policy.
 *
 * Each replayed thread gets a program, in trace order (one pass of one
 * rt-app phase):
 *  - run: its CPU time between blocking points (sched_switch accounting;
 *    an event in a thread's context also counts as it being on that CPU,
 *    for traces that missed a switch);
 *  - sleep: a sleep (or a futex wait that a timer, an interrupt or a thread
 *    outside the replay ended) keeps its wall length; a critical thread
 *    whose sleeps end on a grid (80 % of the intervals within 10 % of a
 *    multiple of the median) gets an rt-app timer of that period instead,
 *    its frames (janky and frames are counted as `superpass bench` counts
 *    them: the periods the work spanned, the periods to the sleep's end);
 *  - runtime: a thread that never waited, slept less than 1 % of its life
 *    and ran at least 10 % of it (a CPU hog) is busy until it ended: what
 *    it wanted, not the share it got;
 *  - each lock wait that a replayed thread ended becomes a dependency
 *    token: a lock the waker holds and releases at the point in its own
 *    CPU time where it woke the waiter; the waiter asks for it where it
 *    asked for the real lock. So the wait ends when the waker, replayed,
 *    reaches that point, and shrinks (or vanishes) when the waker gets
 *    there sooner. A waker holds the tokens of its next WINDOW (12) wakes.
 *    Lock identity: the futex word or the kernel lock address (the token's
 *    name: futex-ADDR-N, kmutex-ADDR-N, rwsem-ADDR-N); kind: a futex is a
 *    pthread mutex (PI futex semantics under `pi`), contention_begin
 *    MUTEX/RT a kernel mutex, READ/WRITE an rwsem (the waiter's side).
 *    A waiter that waits again on the same word right after a wake (glibc's
 *    retry) depends on the last wake only; its blocking runs from its
 *    first request.
 * What the replay assumes (a trace does not show it):
 *  - only contended acquisitions are seen (a futex or contention event):
 *    the replay keeps the trace's set of blockings, it does not find the
 *    ones a policy would add or remove by moving threads in time;
 *  - readers of rwlocks and rwsems appear only as wakers (the last reader
 *    out wakes the writer): the waiter depends on that reader alone; the
 *    other readers, and glibc rwlocks (futex words like any other), are
 *    not told apart;
 *  - threads outside the recorded command (see all_threads) and interrupt
 *    time are left out; their CPU time is reported as outside_cpu_ns.
 * The workload runs on the simulator's EEVDF model; its base slice is
 * Linux's default for the trace's CPU count unless slice_ns says.
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
	uint32_t lead;     /* wakes a waker holds ahead (0: 12; at most 12) */
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
