/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The engine's state, shared by its files: sp_sim_engine.c (event loop,
 * threads' programs), the scheduler (CPUs and classes: sp_sim_sched.c and
 * the files of sp_sim_sched.h), sp_sim_lock.c (locks), sp_sim_policy.c
 * (pi, ux-writer, superpass) and sp_sim_anchors.c (rseq-slice, lavd). One run, one thread of the host: nothing here
 * is shared or locked. */
#ifndef SP_SIM_ENGINE_H
#define SP_SIM_ENGINE_H

#include <superpass/core.h>
#include <superpass/rec_host.h>

#include "sp_sim_internal.h"

/* The engine's functions are the library's own (superpass_sim.map exports
 * only sp_sim_*): hidden, so calls within a file are direct and can be
 * inlined under -fPIC. Everything included above keeps its visibility. */
#pragma GCC visibility push(hidden)

#define SP_NICE_0 1024
#define SP_RR_SLICE_NS (100ull * 1000 * 1000)
#define SP_TICK_NSEC (4ull * 1000 * 1000)   /* HZ=250: place_entity's lag bound */
#define SP_BALANCE_NS (4ull * 1000 * 1000)
#define SP_FLIP_DECAY_NS (1000ull * 1000 * 1000) /* record_wakee(): HZ jiffies */
#define SP_MAX_HELD 16
#define SP_MAX_SNAP 16
#define SP_INF UINT64_MAX
/* What an unlock that wakes a waiter costs its caller (FUTEX_WAKE, or the
 * kernel's wake_up_q): CPU time after the lock is free, during which the
 * woken thread may run first. */
#define SP_WAKE_COST_NS 2000ull

enum sp_sim_thread_state { SP_TS_NEW = 0, SP_TS_RUNNABLE, SP_TS_BLOCKED, SP_TS_SLEEP, SP_TS_DONE };

struct sp_sim;

struct sp_sim_thread {
	int idx;
	const struct sp_sim_task *task;
	uint32_t inst;
	enum sp_sim_thread_state state;
	int cpu;                 /* run queue it is on, or was last on (-1: never) */
	bool on_rq;
	bool waiting;            /* runnable and not running: wait_ns accrues */
	bool needs_step;         /* run its program when it next runs */
	bool critical, hog;
	bool tick_slice;         /* linux: its used slice is seen at a tick (CPU work only) */
	uint64_t seq;            /* FIFO order within an RT priority */
	uint64_t affinity;
	/* program */
	uint32_t phase, op;
	int64_t phase_left, task_left;
	uint8_t op_started;      /* the op at phase/op is under way: its type
				    (SP_OP_RUN or SP_OP_RUNTIME), 0: none */
	uint64_t op_left;        /* RUN: work left; RUNTIME: its end */
	uint64_t sys_left;       /* CPU time of a wake-up syscall, before the next op */
	bool needs_sys_done;
	uint32_t gen;            /* sleep generation */
	/* scheduling */
	int policy, rtprio, nice;
	uint32_t weight;
	int eff;                 /* effective RT priority, 0: fair */
	bool rr;
	bool sp_boost, ux_boost, ux_new;
	uint32_t boost_gen;      /* superpass: a pending SP_SIM_EV_BOOST is this one's */
	bool boost_due;          /* linux model: the worker applies boost_gen at its run's end */
	uint64_t rt_pushed_at;   /* pushed by a raised waiter at this time + 1 (0: never) */
	/* sp_waiter_boost: the critical waiter raised to the fast tracks'
	 * priority for its wait and, if it took the lock, until it releases
	 * it or wt_hold_ns pass; else its wait's fair slice (the core's
	 * sp_core_wait_plan, as the runtime's sp_waiter.c carries it out) */
	bool wt_raised;
	int wt_lock;
	uint32_t wt_gen;         /* a pending SP_SIM_EV_WT_LOWER is this one's */
	uint64_t wt_hold_ns;
	uint64_t slice_ns;       /* its own fair slice (sched_runtime), 0: the base one */
	/* linux model, superpass: the mutex it gave back to a critical
	 * waiter in this lock call and sleeps for (sp_sim_handoff.c): its
	 * index + 1, 0 none */
	int ho_lock;
	bool ho_yielded;         /* this lock call yielded once: no second time */
	int pi_prio;
	int64_t v, deadline, vlag;
	uint64_t vrem;
	bool fresh;              /* never placed on a run queue */
	/* linux model: the deadline is kept, relative to v (@rel_deadline),
	 * for the next placement: PLACE_REL_DEADLINE (a dequeue that is no
	 * sleep: a migration, a class or priority change) and a sleeper
	 * DELAY_DEQUEUE still holds when it wakes (requeue_delayed_entity) */
	bool keep_deadline;
	int64_t rel_deadline;
	/* DELAY_DEQUEUE: asleep with negative lag, still owed to @delay_cpu's
	 * queue, whose average vruntime was @delay_V when it slept */
	bool delayed;
	/* linux model, PELT: the runnable share (0..1024) as of @pelt_t, and
	 * as of when it last stopped being runnable (what a wakeup reads) */
	double pelt, pelt_sleep;
	uint64_t pelt_t;
	/* linux model, record_wakee(): the thread it last woke, how often
	 * that changed (halved once a second), when it was last halved */
	int last_wakee;
	uint32_t wakee_flips;
	uint64_t flip_decay_t;
	int delay_cpu;
	int64_t delay_V;
	uint64_t rr_left;
	/* locks */
	int wait_lock;           /* lock it waits for (also while retrying), -1 */
	uint8_t wait_hold;
	bool in_wq;
	bool granted;            /* handed the lock while waiting */
	bool rwaiting;           /* linux model: a glibc reader that queued behind a
				    waiting writer (RWAITING): woken, not handed */
	bool donor;              /* blocked, kept on its run queue (proxy) */
	int nheld;
	struct { int lock; uint8_t hold; } held[SP_MAX_HELD];
	bool rseq_used;          /* rseq-slice: this section had its extension */
	uint64_t lavd_until;     /* lavd: a lock holder (not preempted) until then */
	/* a critical thread's blocking being measured */
	bool measuring;
	uint64_t req_t;
	int nsnap;
	int snap[SP_MAX_SNAP];
	uint64_t snap_w0[SP_MAX_SNAP];
	/* statistics */
	uint64_t t_first;
	struct sp_sim_timer *last_tm;  /* the sp_skip timer a critical thread last reached */
	uint64_t last_period;
	uint64_t cpu_ns, wait_ns, wait_since, blocked_ns, block_since;
	uint64_t rng;
};

struct sp_sim_lock {
	uint8_t kind;            /* enum sp_sim_lock_kind */
	bool pi;                 /* PI futex (a UMUTEX under `pi` or pi_enabled) */
	int owner;               /* exclusive holder, -1 */
	int nreaders;
	int *readers;
	int nwq;
	int *wq;                 /* waiters in arrival order */
	int wwaiting;            /* writers among them */
	bool handoff;            /* linux model, kernel locks: the next release hands
				  * the lock to the head waiter (MUTEX_FLAG_HANDOFF,
				  * RWSEM_FLAG_HANDOFF) */
};

struct sp_sim_cpu {
	int id;
	struct sp_sim_thread *curr;        /* what executes (the owner, under proxy) */
	struct sp_sim_thread *donor;       /* whose scheduling context is charged */
	uint64_t last;           /* accounted up to */
	uint64_t preempt_t;      /* when a program's sp_preempt last ended a slice here (+1) */
	int *rq;
	int nrq;
	bool resched;
	/* rseq-slice, lavd (sp_sim_anchors.c): a pick put off for thread
	 * defer_th until SP_SIM_EV_DEFER_END of defer_gen; no_defer: the
	 * pending pick is a yield's */
	bool deferred, no_defer;
	int defer_th;
	uint32_t defer_gen;
	uint64_t next_local;
	int64_t last_v;          /* average vruntime when last computed */
};

struct sp_sim_event {
	uint64_t t, seq;
	uint32_t type, gen;
	int32_t a;
};

enum {
	SP_SIM_EV_START = 1, SP_SIM_EV_WAKE, SP_SIM_EV_TICK, SP_SIM_EV_BALANCE, SP_SIM_EV_BOOST,
	SP_SIM_EV_WK_KICK, SP_SIM_EV_WT_LOWER, SP_SIM_EV_DEFER_END,
};

struct sp_sim_timer {
	bool init;
	uint64_t next;
};

struct sp_sim {
	const struct sp_sim_workload *w;
	const struct sp_sim_opts *o;
	struct sp_sim_result *r;
	enum sp_sim_policy pol;
	uint64_t now, end, slice;
	bool linux_model;         /* the workload's sp_sched_model is "linux" */
	bool waiter_boost;        /* the workload's sp_waiter_boost */
	bool in_waiter;           /* inside a critical waiter's block (sp_sim_pol_blocked) */
	int in_waiter_cpu;        /* ... the CPU of that waiter, raised; -1 none */
	/* linux model: the thread whose unlock is waking threads now
	 * (select_task_rq_fair()'s current), -1 for a timer's wake */
	int waker;
	uint32_t balance_failed;  /* linux model: sd->nr_balance_failed (sp_sim_sched_balance) */
	uint64_t balance_next;    /* linux model: when the next balance runs */
	uint64_t balance_interval; /* linux model: sd->balance_interval, busy (sp_sim_sched_balance) */
	int fifo_prio;
	uint32_t ncpus, nth;
	struct sp_sim_cpu *cpus;
	struct sp_sim_thread *th;
	struct sp_sim_lock *lk;
	struct sp_sim_timer *timers;   /* ntimers * nth */
	struct sp_sim_event *heap;
	uint32_t nheap;
	size_t heapcap;
	uint64_t seq, evseq;
	/* policies */
	bool proxy, migrate;
	int ncrit_waiting, nux;
	struct sp_rec_host *host;
	uint64_t host_notifies;  /* host->notifies at its worker's last run */
	bool tick_armed;
	uint64_t tick_ns;
	/* linux model, superpass: the runtime's worker thread, th[nth] (not
	 * one of the workload's: no statistics), an RT thread above the fast
	 * tracks that runs a while on its CPU for each kick and tick
	 * (sp_sim_policy.c, "The worker") */
	struct sp_sim_thread *wk;
	bool wk_busy;            /* a run of its is under way */
	bool wk_kicked;          /* a fast track is due: its next run is a kick's */
	bool wk_tick;            /* a tick is due: its next run is at least a tick's */
	bool err;
};

/* sp_sim_engine.c */
void sp_sim_trace_emit(struct sp_sim *s, int type, int cpu, int th, int lock, int arg);
static inline void sp_sim_trace_event(struct sp_sim *s, int type, int cpu, int th, int lock,
				      int arg)
{
	if (s->o->trace)
		sp_sim_trace_emit(s, type, cpu, th, lock, arg);
}
void sp_sim_push(struct sp_sim *s, uint64_t t, uint32_t type, int a, uint32_t gen);
void sp_sim_run_program(struct sp_sim *s, struct sp_sim_thread *t);
uint64_t sp_sim_wait_now(struct sp_sim *s, const struct sp_sim_thread *t);

/* the scheduler (sp_sim_sched.h lists its files) */
void sp_sim_sched_update_curr(struct sp_sim *s, struct sp_sim_cpu *c);
void sp_sim_sched_schedule(struct sp_sim *s, struct sp_sim_cpu *c);
void sp_sim_sched_cpu_event(struct sp_sim *s, struct sp_sim_cpu *c);
void sp_sim_sched_next_local(struct sp_sim *s, struct sp_sim_cpu *c);
void sp_sim_sched_wake(struct sp_sim *s, struct sp_sim_thread *t);
void sp_sim_sched_enqueue(struct sp_sim *s, struct sp_sim_thread *t, struct sp_sim_cpu *c);
void sp_sim_sched_dequeue(struct sp_sim *s, struct sp_sim_thread *t);
void sp_sim_sched_set_eff(struct sp_sim *s, struct sp_sim_thread *t);
void sp_sim_sched_set_weight(struct sp_sim *s, struct sp_sim_thread *t);
void sp_sim_sched_yield(struct sp_sim *s, struct sp_sim_thread *t);
bool sp_sim_sched_slice_end(struct sp_sim *s, struct sp_sim_thread *t);
void sp_sim_sched_balance(struct sp_sim *s);
void sp_sim_sched_sync_wait(struct sp_sim *s, struct sp_sim_thread *t);
void sp_sim_sched_set_state(struct sp_sim *s, struct sp_sim_thread *t, int state);
uint32_t sp_sim_sched_weight(int nice);
struct sp_sim_cpu *sp_sim_sched_cpu_of_curr(struct sp_sim *s, struct sp_sim_thread *t);

/* sp_sim_lock.c: true if @t got the lock now */
bool sp_sim_lock_try(struct sp_sim *s, struct sp_sim_thread *t, int l, uint8_t hold);
void sp_sim_lock_block(struct sp_sim *s, struct sp_sim_thread *t, int l, uint8_t hold);
bool sp_sim_lock_release(struct sp_sim *s, struct sp_sim_thread *t, int l);
void sp_sim_lock_finish(struct sp_sim *s, struct sp_sim_thread *t);

/* sp_sim_policy.c */
int sp_sim_pol_init(struct sp_sim *s);
void sp_sim_pol_fini(struct sp_sim *s);
void sp_sim_pol_acquired(struct sp_sim *s, struct sp_sim_thread *t, int l, uint8_t hold,
			 bool waited);
void sp_sim_pol_released(struct sp_sim *s, struct sp_sim_thread *t, int l, uint8_t hold);
void sp_sim_pol_blocked(struct sp_sim *s, struct sp_sim_thread *t, int l, uint8_t hold);
void sp_sim_pol_exit(struct sp_sim *s, struct sp_sim_thread *t);
void sp_sim_pol_tick(struct sp_sim *s);
void sp_sim_pol_pi_update(struct sp_sim *s, int owner, int depth);
void sp_sim_pol_wk_kick(struct sp_sim *s, struct sp_sim_thread *t, uint32_t gen);
void sp_sim_pol_waiter_bound(struct sp_sim *s, struct sp_sim_thread *t, uint32_t gen);
void sp_sim_pol_wk_step(struct sp_sim *s);
void sp_sim_pol_lock_changed(struct sp_sim *s);
void sp_sim_pol_boost_due(struct sp_sim *s, struct sp_sim_thread *t, uint32_t gen);

/* sp_sim_handoff.c: the core's hand-off of a mutex to a critical waiter */
bool sp_sim_handoff_yield(struct sp_sim *s, struct sp_sim_thread *t, int l);
void sp_sim_handoff_wait_ended(struct sp_sim *s, int l);
/* sp_sim_lock.c: a free mutex's unlock by a thread that just took it */
void sp_sim_lock_wake_one(struct sp_sim *s, struct sp_sim_thread *waker, int l);

/* sp_sim_anchors.c: rseq-slice and lavd */
bool sp_sim_pol_defer_resched(struct sp_sim *s, struct sp_sim_cpu *c);
void sp_sim_pol_defer_due(struct sp_sim *s, int cpu, uint32_t gen);
void sp_sim_pol_anchor_acquired(struct sp_sim *s, struct sp_sim_thread *t, bool waited);
void sp_sim_pol_anchor_released(struct sp_sim *s, struct sp_sim_thread *t, bool woke);

#pragma GCC visibility pop

#endif /* SP_SIM_ENGINE_H */
