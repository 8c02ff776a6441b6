/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The offline host's internals: the workload model shared by the builders,
 * the rt-app reader and the engine. */
#ifndef SP_SIM_INTERNAL_H
#define SP_SIM_INTERNAL_H

#include <stdint.h>

#include <superpass/sim.h>

#include "sp_sim_names.h"

enum sp_sim_op_type {
	SP_OP_RUN = 1,      /* ns: CPU work */
	SP_OP_RUNTIME,      /* ns: busy until ns of wall time passed */
	SP_OP_SLEEP,        /* ns */
	SP_OP_TIMER,        /* ref: timer index; ns: period; jitter; absolute */
	SP_OP_LOCK,         /* ref: lock; hold */
	SP_OP_UNLOCK,       /* ref: lock */
	SP_OP_YIELD,
	SP_OP_SETSCHED,     /* sched, prio */
	SP_OP_PREEMPT,      /* a fair slice ends here (a preemption a trace showed) */
};

/* A timer's schedule when its thread is late: restart it from now
 * (relative), keep it and catch up (absolute), or keep its grid and skip
 * the periods it missed (a frame loop on vsync: the next frame starts at
 * the first grid point after now). */
enum { SP_TM_RELATIVE, SP_TM_ABSOLUTE, SP_TM_SKIP };

struct sp_sim_op {
	uint8_t type;
	uint8_t hold;
	uint8_t absolute;    /* TIMER: SP_TM_* */
	uint8_t sched;
	int32_t ref;
	int32_t prio;
	uint32_t backlog;    /* TIMER: periods behind before the schedule resets (0: never) */
	uint64_t ns;
	uint64_t jitter;
};

struct sp_sim_phase {
	struct sp_sim_op *ops;
	uint32_t nops;
	size_t cap;
	int64_t loop;
};

struct sp_sim_task {
	char *name;
	uint32_t instances;
	uint8_t sched;
	int32_t prio;
	bool critical;
	uint64_t affinity;
	uint64_t delay_ns;
	int64_t loop;       /* -1: for ever */
	struct sp_sim_phase *phases;
	uint32_t nphases;
	size_t cap;
	bool explicit_phase;
};

struct sp_sim_lockdef {
	char *name;
	uint8_t kind;
};

struct sp_sim_timerdef {
	char *name;
	bool unique;        /* one per thread */
};

struct sp_sim_workload {
	char *name;
	uint32_t cpus;
	uint64_t duration_ns;
	uint64_t base_slice_ns; /* 0: not said */
	bool linux_model;        /* sp_sched_model "linux" */
	bool pi_enabled;    /* rt-app global pi_enabled: every mutex is PI */
	bool waiter_boost;  /* sp_waiter_boost: a critical waiter applies its fast tracks */
	struct sp_sim_task *tasks;
	uint32_t ntasks;
	size_t tcap;
	struct sp_sim_lockdef *locks;
	uint32_t nlocks;
	size_t lcap;
	struct sp_sim_timerdef *timers;
	uint32_t ntimers;
	size_t tmcap;
	char **warnings;    /* sp_sim_validate's, NULL-terminated (not cloned) */
	uint32_t nwarnings;
	/* name -> index of tasks, locks, timers (tag: unique), sp_sim_names.h */
	struct sp_sim_names task_ix, lock_ix, timer_ix;
};

/* sp_sim_workload.c */
int sp_sim_timer_ref(struct sp_sim_workload *w, const char *name, bool unique);
bool sp_sim_task_takes_locks(const struct sp_sim_task *t);
bool sp_sim_task_only_runs(const struct sp_sim_task *t);
/* A deep copy (the sweep changes copies). */
int sp_sim_workload_clone(const struct sp_sim_workload *w, struct sp_sim_workload **out);

/* The timer op @op (sp_sim_task_timer's return) of @task skips the
 * periods its thread missed (SP_TM_SKIP). */
int sp_sim_timer_skip(struct sp_sim_workload *w, int task, int op);

/* sp_sim_validate.c: the checks of a file's locks (the file says which).
 * 0; -EINVAL with "FILE: KEY: what was expected" in @err; -ENOMEM. The
 * warnings go into @w (sp_sim_workload_warning). @root: the JSON @w was
 * read from, to name the keys (NULL: events by number). */
struct json_object;
int sp_sim_validate(struct sp_sim_workload *w, const char *file, struct json_object *root,
		    char *err, size_t errcap);
/* -E2BIG if a thread of @w would hold more than SP_SIM_MAX_HELD locks at
 * once (the engine's limit), else 0 (or -ENOMEM). */
int sp_sim_check_depth(const struct sp_sim_workload *w);

#endif /* SP_SIM_INTERNAL_H */
