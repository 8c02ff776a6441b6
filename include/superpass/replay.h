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
 *    for traces that missed a switch); where a switch took it off the CPU
 *    runnable (preempted), a preemption point (sp_preempt: in the fair
 *    class its slice ends there; sp_sim_task_preempt), so that the
 *    simulated scheduler cuts its bursts where the real one did;
 *  - sleep: a sleep (or a futex wait that a timer, an interrupt or a thread
 *    outside the replay ended) keeps its wall length; a critical thread
 *    whose sleeps end on a grid (80 % of the intervals within 10 % of a
 *    multiple of the median) gets an rt-app timer of that period instead,
 *    its frames (janky and frames are counted as `superpass bench` counts
 *    them: the periods the work spanned, the periods to the sleep's end),
 *    and that frame loop loops on to the end of the replay (sp_duration_ms:
 *    the trace's length, or, when every critical thread is a frame loop,
 *    where the last of them ended in the trace) so that a policy that
 *    serves it sooner does not run out of frames; a futex wait for its waker's tid (pthread_join)
 *    is a sleep;
 *  - runtime: a thread that never waited, slept less than 1 % of its life
 *    and ran at least 10 % of it (a CPU hog) is busy until it ended: what
 *    it wanted, not the share it got;
 *  - loop: a thread that takes locks and waited for a CPU (runnable, not
 *    running) more than ten times as long as it ran and for a tenth of its
 *    life at least (a starved background holder, behind its schedule) did
 *    less than it had to do: its program loops to the end of the replay,
 *    the work it would have done next taken to be more of the same, so a
 *    policy that gives it more CPU sees it go on taking the lock (counted
 *    in looped); any other thread is one pass;
 *  - its critical sections of the real locks (identity: the futex word or
 *    the kernel lock address, named futex-ADDR, kmutex-ADDR, rwsem-ADDR;
 *    kind: a futex waited on for 2 (FUTEX_WAIT) or LOCK_PI is a pthread
 *    mutex, PI futex semantics under `pi`; other futex words are glibc
 *    rwlock words, the words within 16 bytes one writer-preferring rwlock
 *    (rwlock-ADDR of the lowest), a wait for 0 or 2 (__wrphase_futex in a
 *    read phase) the writer's, any other value a reader's, the waker on
 *    the other side;
 *    contention_begin MUTEX/RT a kernel mutex, READ/WRITE an rwsem). A
 *    lock wait is a request for the lock where the thread asked for it in
 *    the trace (a retry on the same word right after a wake, glibc's lost
 *    race, is part of it). A wake of a waiter is a release of that lock at
 *    that point of the waker's CPU time: so the wait ends when the waker,
 *    replayed, reaches the point where it woke the waiter, and shrinks when
 *    it gets there sooner;
 *  - what a trace does not show, inferred: where an uncontended
 *    acquisition took the lock (the thread's critical-section length,
 *    the lower quartile of the sections it shows whole, from a wait to a
 *    wake; a glibc reader, which shows one whole only when it waited and
 *    then was the last one out with a writer waiting: from its bursts of
 *    CPU between sleeps that show one side of a read section, a wait for
 *    the read side at the start or a wake of the writer at the end, each
 *    bounding its section; before the release; else its last sleep, its last wait on the
 *    lock or its previous release of it), where a section acquired by a
 *    wait ended when its release woke nobody (that length after it, else
 *    its next sleep; at once for a critical thread), the sections nobody
 *    waited for of a thread whose sections are whole bursts between sleeps
 *    (a background holder: every burst at least 3/4 that long), and the
 *    acquisitions of a frame loop where it found the lock free (the CPU
 *    offsets in its frames at which it waited in two frames or more, and
 *    the offsets between those that their spacing says, asked in every
 *    frame that shows no wait at that point). Holders are assumed not to
 *    sleep with a lock held.
 * What the replay assumes (a trace does not show it):
 *  - readers of rwlocks and rwsems appear only as wakers (the last reader
 *    out wakes the writer) or as waiters (when a writer held the lock);
 *    a reader that took the read side uncontended and left without waking
 *    anyone leaves no event. For a glibc rwlock the replay assumes that
 *    every known reader (one that waited as a reader or woke the writer
 *    somewhere in the trace) that was inside a burst of CPU when the
 *    writer asked (it had run since its last sleep or wait and was not
 *    asleep) held the read side from that burst's start until the writer
 *    was woken or its burst ended (counted in readers); a reader that
 *    never waited nor woke the writer anywhere is not seen at all. rwsem
 *    readers are replayed from their waits and wakes only;
 *  - threads outside the recorded command (see all_threads) and interrupt
 *    time are left out; their CPU time is reported as outside_cpu_ns.
 * The workload runs on the simulator's EEVDF model in its "linux" variant
 * (sp_sched_model: a sleeper's negative lag kept as DELAY_DEQUEUE does,
 * a used slice seen at the next accounting or 4 ms tick as without HRTICK,
 * load balancing by weight; include/superpass/sim.h); its base slice is
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
	bool classic;      /* the simulator's classic scheduler model, not "linux" */
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
	uint64_t inferred;     /* a frame loop's requests where its trace shows none */
	uint64_t preemptions;  /* preemption points (switched out runnable) */
	uint64_t joins;        /* futex waits for a thread's exit (pthread_join): sleeps */
	uint64_t readers;      /* read sections inferred at a writer's wait */
	uint64_t readers_max;  /* the most at one wait (besides the last reader out) */
	uint64_t phase_wakes;  /* glibc readers' wakes of readers: not releases */
	uint64_t looped;       /* starved lock holders whose program loops on */
	uint64_t spin_ns;      /* CPU spun on kernel locks (in a wait, or before
				  an rwsem writer's request): not replayed */
	uint64_t outside_threads, outside_cpu_ns, replayed_cpu_ns;
	uint64_t first_ns, last_ns;
	uint64_t end_ns;       /* where the replay ends: last_ns, or where the last
				  critical thread ended when every one is a frame loop */
	uint32_t cpus;
	uint64_t slice_ns;
};

struct sp_replay;

void sp_replay_opts_default(struct sp_replay_opts *o);
/* Streaming: create, feed events (an sp_trace_event_fn), finish. */
int sp_replay_create(const struct sp_replay_opts *o, struct sp_replay **out);
int sp_replay_feed(void *replay, const struct sp_trace_event *ev);
/* Builds the workload. 0; -ENODATA (nothing to replay: no thread, or no
 * critical thread; or more than the simulator runs: a trace longer than
 * SP_SIM_MAX_DURATION_S, a thread starting later than a task can, as a
 * timestamp jump makes them) with the reason in @err; -ENOMEM. */
int sp_replay_finish(struct sp_replay *r, const char *name, char *err, size_t errcap);
/* sp_replay_create + sp_trace_read_file + sp_replay_finish; the reader's
 * diagnostics in @d (may be NULL). -ENOENT etc., -EINVAL (not a trace),
 * -ENODATA, with "FILE: what" in @err. */
int sp_replay_build(const char *path, const struct sp_replay_opts *o, struct sp_replay **out,
		    struct sp_trace_diag *d, char *err, size_t errcap);
void sp_replay_destroy(struct sp_replay *r);

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
