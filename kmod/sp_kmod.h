/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every file of superpass.ko shares: the core, the tid filters and
 * the parameters. Each part has its own header beside this one and a file
 * includes only the parts it calls:
 *
 *   sp_kmod_detect.h   tracepoint probes -> core events; the watched locks
 *   sp_kmod_readers.h  kprobes on down_read/up_read/...  -> the detector
 *   sp_kmod_worker.h   the host of the core (clock, actuation queue) and
 *                      its kthread: drain, tick, reclaim, arm the hooks
 *   sp_kmod_act.h      applying a fast track (sched_setattr_nocheck)
 *   sp_kmod_proc.h     /proc/superpass
 *
 * One core (struct sp_core) lives from module init to exit. The detector
 * and the reader hooks feed it one event per thing they see; the core's
 * fast_track/restore callbacks only queue the tid; the worker applies
 * what sp_task_boosted() says when it gets there (include/superpass/core.h,
 * the host contract).
 */
#ifndef SP_KMOD_H
#define SP_KMOD_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/threads.h>
#include <asm/page.h>   /* PID_MAX_LIMIT uses PAGE_SIZE */
#include <linux/types.h>

#include <superpass/core.h>

/* Fast filters indexed by global tid (PID_MAX_LIMIT bits, 512 KiB each on
 * 64-bit): one test_bit() decides whether a probe does anything at all. */
#define SP_TID_LIMIT PID_MAX_LIMIT

extern struct sp_core *sp_core;
extern unsigned long *sp_critical_map;  /* marked through /proc */
extern unsigned long *sp_boosted_map;   /* the core wants a fast track */
/* Indexed by global pid: processes marked as a whole, whose new threads
 * the fork probe marks (sp_kmod_detect.c). */
extern unsigned long *sp_marked_procs;
/* Bits set in sp_critical_map: the reader hooks stay armed while > 0. */
extern atomic_t sp_nr_critical;

/* Load-time parameters (sp_kmod_main.c) and the runtime-settable ones. */
extern unsigned int sp_param_depth;
extern unsigned int sp_param_readers_k;
extern unsigned int sp_param_budget_ms;
extern unsigned int sp_param_throttle_permille;
extern unsigned int sp_fifo_prio;       /* runtime: /proc/superpass/config */
extern bool sp_readers_on;              /* runtime: /proc/superpass/config */
extern bool sp_param_readers;           /* load time: hooks registered at all */
extern unsigned int sp_param_log_boosts;
extern unsigned int sp_param_log_waits_ms;

static inline bool sp_tid_ok(pid_t tid)
{
	return tid > 0 && tid < SP_TID_LIMIT;
}

/* Critical, or fast-tracked on behalf of a critical task (chains). */
static inline bool sp_tid_interesting(pid_t tid)
{
	return sp_tid_ok(tid) && (test_bit(tid, sp_critical_map) ||
				  test_bit(tid, sp_boosted_map));
}

/* sp_kmod_proc.c: marks or unmarks one global tid, in the core and in
 * sp_critical_map together. Task context; does not sleep (the fork
 * probe calls it with preemption disabled). */
int sp_mark_tid(pid_t tid, bool on);

/* sp_kmod_selftest.c: 0 or a negative errno, with a pr_err saying what. */
int sp_selftest_run(void);

#endif /* SP_KMOD_H */
