/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * superpass userspace runtime: a thread registry, latency-critical marking,
 * instrumented mutexes and rwlocks, and a SCHED_FIFO fast-track actuator.
 *
 * sp_mutex_* and sp_rwlock_* wrap the pthread calls of the same name with
 * the same semantics and the same return values (0 or a positive errno, as
 * pthread does). Everything else returns 0 (or a count) on success and a
 * negative errno value on failure.
 *
 * The runtime is created lazily with the default configuration by the first
 * call that needs it; call sp_runtime_create() first to choose another one.
 * This header includes no pthread, urcu or kernel header: the lock types are
 * opaque storage, large enough for glibc's pthread types on every Linux ABI.
 */
#ifndef SUPERPASS_RUNTIME_H
#define SUPERPASS_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h> /* clockid_t, which <time.h> hides under -std=c11 */
#include <time.h>

#include <superpass/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How the actuator grants a fast track. */
enum sp_act_mode {
	SP_ACT_AUTO = 0,    /* FIFO if permitted, else nice, else observe */
	SP_ACT_FIFO = 1,    /* SCHED_FIFO at fifo_prio (needs CAP_SYS_NICE or RLIMIT_RTPRIO) */
	SP_ACT_NICE = 2,    /* lower the nice value within RLIMIT_NICE */
	SP_ACT_OBSERVE = 3, /* keep the graph and statistics, never change a thread */
};

struct sp_runtime_config {
	struct sp_config core;   /* core tables and policy (sp_config_default) */
	enum sp_act_mode mode;   /* default SP_ACT_AUTO */
	int fifo_prio;           /* SCHED_FIFO priority of a fast track (default 1) */
	uint32_t tick_ns;        /* worker's tick period while the core needs ticks (default 1 ms) */
	bool quiet;              /* do not print the fallback notice on stderr */
	const char *log_path;    /* if set, one line per actuator call is appended here */
};

void sp_runtime_config_default(struct sp_runtime_config *cfg);

/* Creates the process-wide runtime. -EALREADY if it exists (created by an
 * earlier call or lazily), -EINVAL, -ENOMEM. */
int sp_runtime_create(const struct sp_runtime_config *cfg);
/* Restores every fast-tracked thread, stops the worker and frees the core.
 * No sp_* lock may be in use by another thread. A later call creates a new
 * runtime (handy for benchmarks that compare configurations). */
void sp_runtime_destroy(void);
/* The core of the runtime, created lazily; NULL if creation failed. */
struct sp_core *sp_runtime_core(void);
/* The mode actually in force after the privilege check. */
enum sp_act_mode sp_runtime_mode(void);
const char *sp_act_mode_name(enum sp_act_mode mode);
/* 1 if this process holds CAP_SYS_NICE (it may grant SCHED_FIFO), else 0. */
int sp_runtime_has_cap_sys_nice(void);

/* ---- threads ---- */
/* The calling thread's Linux tid (cached). */
sp_tid_t sp_thread_self(void);
/* Registers the calling thread; @name (may be NULL) is also given to
 * pthread_setname_np (at most 15 characters are kept). */
int sp_thread_register(const char *name);
/* Marks thread @tid of this process latency-critical, or not; @tid 0 is the
 * calling thread, which this also registers. */
int sp_thread_set_critical(sp_tid_t tid, bool critical);
/* 1 if the actuator currently holds a fast track for @tid, else 0. */
int sp_thread_fast_tracked(sp_tid_t tid);
/* Call right before execve (or any exec function) or posix_spawn: the
 * calling thread leaves the runtime as if it exited, so a fast track it has
 * is restored now. Scheduling attributes survive exec (the new program
 * would keep SCHED_FIFO for good), and a spawned child starts from this
 * thread's. If the exec fails, the thread's next sp_* lock call registers it
 * again. Under the interposer every exec function and posix_spawn does this
 * already. */
void sp_thread_before_exec(void);

/* ---- statistics ---- */
/*
 * The runtime's own counters, listed once like the core's (stats.h):
 * SP_RUNTIME_STATS_FIELDS(X) calls X(name, kind, help) for each; the
 * struct, the JSON writer and the bench expand it.
 */
#define SP_RUNTIME_STATS_FIELDS(X)                                                       \
	X(act_fast_tracks, SP_STAT_COUNT, "fast tracks the worker applied")              \
	X(act_restores, SP_STAT_COUNT, "fast tracks the worker ended")                   \
	X(act_errors, SP_STAT_COUNT, "sched_getattr/sched_setattr failures")             \
	X(act_gone, SP_STAT_COUNT, "targets that had exited or are not in this process") \
	X(act_boosted_now, SP_STAT_GAUGE, "threads fast-tracked now")                    \
	X(ticks, SP_STAT_COUNT, "sp_core_tick calls by the worker")                      \
	X(act_overridden, SP_STAT_COUNT,                                                 \
	  "restores not made: the application had changed the thread's attributes")    \
	X(wk_wakeups, SP_STAT_COUNT, "times the worker woke up")                         \
	X(wk_reconciles, SP_STAT_COUNT, "queued tids the worker reconciled")             \
	X(wk_rescans, SP_STAT_COUNT, "full reconciliations after the queue overflowed")

struct sp_runtime_stats {
	struct sp_stats core;
#define SP_RUNTIME_STATS_MEMBER(name, kind, help) uint64_t name;
	SP_RUNTIME_STATS_FIELDS(SP_RUNTIME_STATS_MEMBER)
#undef SP_RUNTIME_STATS_MEMBER
	uint32_t mode;             /* enum sp_act_mode in force */
};
int sp_runtime_stats(struct sp_runtime_stats *out);
/* Writes statistics (counters and blocking percentiles) as one JSON object
 * to @f: 0, -EIO when a write failed, -ENOMEM. */
int sp_runtime_write_json(FILE *f);

/* ---- locks ---- */
#define SP_LOCK_STORAGE 64
typedef struct sp_mutex {
	union {
		unsigned char bytes[SP_LOCK_STORAGE];
		long long align_;
		void *align_p_;
	} opaque;
} sp_mutex_t;

typedef struct sp_rwlock {
	union {
		unsigned char bytes[SP_LOCK_STORAGE];
		long long align_;
		void *align_p_;
	} opaque;
} sp_rwlock_t;

/* Same as PTHREAD_MUTEX_INITIALIZER / PTHREAD_RWLOCK_INITIALIZER. */
#define SP_MUTEX_INITIALIZER {{{0}}}
#define SP_RWLOCK_INITIALIZER {{{0}}}

enum sp_mutex_type {
	SP_MUTEX_NORMAL = 0,
	SP_MUTEX_RECURSIVE = 1,
	SP_MUTEX_ERRORCHECK = 2,
};
#define SP_MUTEX_ROBUST 0x100       /* flag: robust (EOWNERDEAD) */
#define SP_MUTEX_PRIO_INHERIT 0x200 /* flag: PTHREAD_PRIO_INHERIT */
#define SP_RWLOCK_PREFER_WRITER 0x1 /* writer-preferring (non-recursive readers) */

/* @flags: an sp_mutex_type ORed with SP_MUTEX_* flags; 0 = default mutex.
 * Returns 0 or a positive errno like pthread_mutex_init. */
int sp_mutex_init(sp_mutex_t *m, int flags);
int sp_mutex_destroy(sp_mutex_t *m);
int sp_mutex_lock(sp_mutex_t *m);
int sp_mutex_trylock(sp_mutex_t *m);
int sp_mutex_timedlock(sp_mutex_t *m, const struct timespec *abstime); /* CLOCK_REALTIME */
int sp_mutex_clocklock(sp_mutex_t *m, clockid_t clock, const struct timespec *abstime);
int sp_mutex_unlock(sp_mutex_t *m);
/* For robust mutexes: pthread_mutex_consistent. */
int sp_mutex_consistent(sp_mutex_t *m);

int sp_rwlock_init(sp_rwlock_t *rw, int flags);
int sp_rwlock_destroy(sp_rwlock_t *rw);
int sp_rwlock_rdlock(sp_rwlock_t *rw);
int sp_rwlock_tryrdlock(sp_rwlock_t *rw);
int sp_rwlock_timedrdlock(sp_rwlock_t *rw, const struct timespec *abstime);
int sp_rwlock_clockrdlock(sp_rwlock_t *rw, clockid_t clock, const struct timespec *abstime);
int sp_rwlock_wrlock(sp_rwlock_t *rw);
int sp_rwlock_trywrlock(sp_rwlock_t *rw);
int sp_rwlock_timedwrlock(sp_rwlock_t *rw, const struct timespec *abstime);
int sp_rwlock_clockwrlock(sp_rwlock_t *rw, clockid_t clock, const struct timespec *abstime);
int sp_rwlock_unlock(sp_rwlock_t *rw);

#ifdef __cplusplus
}
#endif

#endif /* SUPERPASS_RUNTIME_H */
