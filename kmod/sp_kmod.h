/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal interfaces between the files of superpass.ko.
 *
 * One core (struct sp_core) lives from module init to exit. The detector
 * (tracepoint probes) and the reader hooks feed it events; the core calls the
 * actuator, which only records and queues; a SCHED_FIFO kthread applies and
 * restores the boosts. /proc/superpass is the user interface.
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
extern unsigned long *sp_boosted_map;   /* the core asked for a fast track */

/* Load-time parameters (sp_kmod_main.c) and the runtime-settable ones. */
extern unsigned int sp_param_depth;
extern unsigned int sp_param_readers_k;
extern unsigned int sp_param_budget_ms;
extern unsigned int sp_param_throttle_permille;
extern unsigned int sp_fifo_prio;       /* runtime: /proc/superpass/config */
extern bool sp_readers_on;              /* runtime: /proc/superpass/config */
extern bool sp_param_readers;           /* load time: hooks registered at all */
extern unsigned int sp_param_log_boosts;

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

/* sp_kmod_selftest.c: 0 or a negative errno, with a pr_err saying what. */
int sp_selftest_run(void);

/* sp_kmod_act.c: actuator and its kthread. */
struct sp_act_stats {
	u64 boosts;          /* sched_setattr to SCHED_FIFO done */
	u64 restores;        /* saved attributes put back */
	u64 skipped;         /* not boosted: RT/DL task, gone, or table full */
	u64 errors;          /* sched_setattr_nocheck failed */
	u64 ring_overflows;  /* queue full: a rescan reconciled instead */
	u64 rescans;
	u64 ticks;
	u64 reclaimed;
	u64 active;          /* tasks boosted right now */
};
int sp_act_init(void);
int sp_act_start(void);
/* Stops the kthread and restores every boost it applied. */
void sp_act_stop(void);
void sp_act_free(void);
void sp_act_get_stats(struct sp_act_stats *out);
/* Wakes the actuator thread (any context). */
void sp_act_kick(void);
extern const struct sp_host_ops sp_act_ops;

/* sp_kmod_detect.c: lock:contention_* and sched_process_exit probes. */
struct sp_detect_stats {
	u64 blocks;          /* blockings of interesting tasks reported */
	u64 unblocks;
	u64 owner_changes;   /* owner word differed from the core's record */
	u64 no_owner;        /* no exclusive owner visible (readers, handoff) */
	u64 lock_evictions;  /* tracked-lock slots recycled */
	u64 lock_expiries;   /* tracked locks forgotten after idling */
	u64 waiter_full;     /* waiter table full: blocking not reported */
	u64 reader_events;   /* reader hook events on watched locks */
	u64 reader_hints;    /* queued readers reported as holders before they ran */
	u64 refreshes;       /* long waits reported again (policy re-run) */
	u64 exits;
};
#define SP_DET_LONGS 8u
struct sp_long_blocking {
	pid_t tid;
	bool rwsem;
	u64 ms;
	u64 owner;           /* the core's exclusive owner at the end */
	u32 tracked, untracked;
	unsigned long readers_now;  /* rwsem count of readers at the end */
};
int sp_detect_init(void);
void sp_detect_exit(void);
void sp_detect_get_longs(struct sp_long_blocking *out, unsigned int *nr);
unsigned int sp_detect_nr_waiting(void);
/* Forgets locks nobody waits on and no critical task contended on for
 * @idle_ns; returns how many rwsems stay watched. */
unsigned int sp_detect_expire(u64 idle_ns);
void sp_detect_refresh(u64 min_age_ns);
void sp_detect_get_stats(struct sp_detect_stats *out);
/* Reader hooks: is @key a lock an interesting task contended on? */
bool sp_detect_watched(unsigned long key);
enum sp_reader_op {
	SP_RD_ACQUIRE, SP_RD_RELEASE, SP_WR_ACQUIRE, SP_WR_RELEASE, SP_WR_DOWNGRADE
};
void sp_detect_reader_event(unsigned long key, enum sp_reader_op op);

/* sp_kmod_readers.c: down_read* / up_read / up_write / downgrade_write. */
int sp_readers_init(void);
void sp_readers_exit(void);
u64 sp_readers_missed(void);
/* Arms or disarms the hooks; sleeps. */
void sp_readers_arm(bool on);
void sp_readers_state(bool *armed, u64 *arms);

/* sp_kmod_proc.c */
int sp_proc_init(void);
void sp_proc_exit(void);

#endif /* SP_KMOD_H */
