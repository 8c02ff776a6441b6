/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The coverage workload, shared by the C and C++ programs of this folder:
 * one lock L, a `ui` thread (nice -10, 120 Hz frames, takes L twice a
 * frame), two `bg` threads (nice 19, hold L for 0.5-1.5 ms of CPU) and four
 * `hog` threads (nice 0, CPU only). Each program supplies the lock calls of
 * its implementation; the rest (threads, timing, the record of holds and
 * waits) is here, so that the programs differ in their lock only.
 *
 *   PROG [SECONDS [RECORD_FILE]]    (default 8 s; no record without a file)
 *
 * Prints "ui: longest_wait_ms=X waits=N"; the record file has one line per
 * hold of L ("hold TID START END") and per ui wait ("wait TID START END"),
 * CLOCK_MONOTONIC ns, the clock of superpass's actuator log
 * (tools/measure/coverage/candidates.py joins the two).
 */
#ifndef COV_WORKLOAD_H
#define COV_WORKLOAD_H

#ifdef __cplusplus
extern "C" {
#endif

struct cov_lock_ops {
	const char *impl;        /* printed and recorded: "pthread_mutex" ... */
	void (*ui_lock)(void);   /* the ui's side (exclusive for rwlocks) */
	void (*ui_unlock)(void);
	void (*bg_lock)(void);   /* the bg threads' side (shared for rwlocks) */
	void (*bg_unlock)(void);
};

int cov_main(int argc, char **argv, const struct cov_lock_ops *ops);

#ifdef __cplusplus
}
#endif

#endif
