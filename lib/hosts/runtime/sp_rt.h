/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Internal contract of the userspace host (lib/hosts/runtime). Shared by
 * libsuperpass and libsuperpass-preload.so, which compile the same sources;
 * they differ only in where sp_real (the real pthread lock functions) points.
 */
#ifndef SP_RT_H
#define SP_RT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <superpass/core.h>
#include <superpass/runtime.h>

#include "sp_sched_attr.h"

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h> /* before the hidden region below */
#endif

/* Everything declared below is internal to the library (or the interposer):
 * hidden, so calls between our files are direct, not through the PLT. */
#pragma GCC visibility push(hidden)

/* Initial-exec TLS: no __tls_get_addr (which may allocate) on the lock
 * path, which matters in the interposer where allocation can take locks. */
#define SP_TLS __thread __attribute__((tls_model("initial-exec")))

/* ---- the real pthread lock functions ---- */
/* One list, X(field, parameters, arguments), for the struct and for each
 * way of filling it (sp_real_libc.c, lib/hosts/preload/sp_real_next.c): field
 * f is glibc's pthread_f. */
#define SP_REAL_OPS(X)                                                                     \
	X(mutex_lock, (pthread_mutex_t *m), (m))                                           \
	X(mutex_trylock, (pthread_mutex_t *m), (m))                                        \
	X(mutex_timedlock, (pthread_mutex_t *m, const struct timespec *t), (m, t))         \
	X(mutex_clocklock, (pthread_mutex_t *m, clockid_t c, const struct timespec *t),    \
	  (m, c, t))                                                                       \
	X(mutex_unlock, (pthread_mutex_t *m), (m))                                         \
	X(mutex_destroy, (pthread_mutex_t *m), (m))                                        \
	X(rwlock_rdlock, (pthread_rwlock_t *rw), (rw))                                     \
	X(rwlock_tryrdlock, (pthread_rwlock_t *rw), (rw))                                  \
	X(rwlock_timedrdlock, (pthread_rwlock_t *rw, const struct timespec *t), (rw, t))   \
	X(rwlock_clockrdlock, (pthread_rwlock_t *rw, clockid_t c, const struct timespec *t), \
	  (rw, c, t))                                                                      \
	X(rwlock_wrlock, (pthread_rwlock_t *rw), (rw))                                     \
	X(rwlock_trywrlock, (pthread_rwlock_t *rw), (rw))                                  \
	X(rwlock_timedwrlock, (pthread_rwlock_t *rw, const struct timespec *t), (rw, t))   \
	X(rwlock_clockwrlock, (pthread_rwlock_t *rw, clockid_t c, const struct timespec *t), \
	  (rw, c, t))                                                                      \
	X(rwlock_unlock, (pthread_rwlock_t *rw), (rw))                                     \
	X(rwlock_destroy, (pthread_rwlock_t *rw), (rw))

#define SP_REAL_FIELD(field, params, args) int(*field) params;
struct sp_real_ops {
	SP_REAL_OPS(SP_REAL_FIELD)
};
/* sp_real_libc.c (libsuperpass) or lib/hosts/preload/sp_real_next.c
 * (interposer). */
extern struct sp_real_ops sp_real;
/* Fills sp_real if the build resolves it at run time; idempotent. */
void sp_real_resolve(void);

/* ---- per-thread state ---- */
#define SP_RT_DIRECT_MAX 8
struct sp_rt_thread {
	sp_tid_t tid;       /* cached gettid(), 0 until first use */
	uint32_t gen;       /* runtime generation the thread registered with */
	int guard;          /* > 0 while inside the runtime or the core */
	int critical;       /* last critical state told to the core */
	int exited;         /* the thread-exit destructor has run */
	int on_leave;       /* SP_LEAVE_*: actuator work for sp_rt_leave */
	int direct_on;      /* in a critical wait's report: fast tracks may be ours */
	int direct_raise;   /* ... and we may raise ourselves to theirs (sp_waiter.c) */
	uint32_t direct_same; /* bit i: direct[i] last ran on our CPU */
	uint32_t direct_worker; /* bit i: direct[i] is the worker's, after our raise */
	int direct_n;       /* fast tracks this thread applies itself (sp_wk_fast_track) */
	sp_tid_t direct[SP_RT_DIRECT_MAX];
	char seen_name[16]; /* the name last added to the registry's names seen */
};
extern SP_TLS struct sp_rt_thread sp_rt_self_state;

#define SP_LEAVE_KICK 0x1u      /* queued actuator work: kick the worker */
#define SP_LEAVE_RECONCILE 0x2u /* our own fast track ended: see sp_wk_restore */

/* Entering the core: lock calls of third-party code made meanwhile
 * (liburcu's, stdio's) must reach libc directly, never the instrumented
 * path, and actuator work queued meanwhile waits for sp_rt_leave. */
static inline void sp_rt_enter(void)
{
	sp_rt_self_state.guard++;
}

/* Wakes the worker for the work this thread queued (sp_worker.c). */
void sp_wk_kick_queued(void);
/* What sp_rt_leave does for actuator work queued inside the core. */
void sp_wk_leave_slow(void);

/* Leaving the core: the actuator work this thread queued inside it that
 * waits until now (sp_wk_restore in sp_worker.c says why). */
static inline void sp_rt_leave(void)
{
	if (--sp_rt_self_state.guard == 0 && __builtin_expect(sp_rt_self_state.on_leave, 0))
		sp_wk_leave_slow();
}

static inline bool sp_rt_guarded(void)
{
	return sp_rt_self_state.guard != 0;
}

/* ---- the runtime's own mutexes ---- */
/* Through sp_real, never the exported names, which the interposer wraps.
 * Inside the interposer under ThreadSanitizer, sp_real is glibc's, past
 * libtsan's interceptors (libtsan is loaded first): so the order each
 * lock gives is told to it here (a second telling where the interceptor
 * saw the call too, which changes nothing). */
#if defined(__SANITIZE_THREAD__)
#define SP_RT_TSAN_ACQUIRE(m) __tsan_acquire(m)
#define SP_RT_TSAN_RELEASE(m) __tsan_release(m)
#else
#define SP_RT_TSAN_ACQUIRE(m) ((void)(m))
#define SP_RT_TSAN_RELEASE(m) ((void)(m))
#endif

/* Held inside the guard, entered before the lock is taken and left after
 * it is let go: a signal handler that calls into the runtime meanwhile
 * (sp_thread_before_exec, before an exec) sees it and takes its lock-free
 * path instead of the lock this thread holds. */
static inline void sp_rt_lock(pthread_mutex_t *m)
{
	sp_rt_enter();
	sp_real.mutex_lock(m);
	SP_RT_TSAN_ACQUIRE(m);
}

static inline bool sp_rt_trylock(pthread_mutex_t *m)
{
	sp_rt_enter();
	if (sp_real.mutex_trylock(m) != 0) {
		sp_rt_leave();
		return false;
	}
	SP_RT_TSAN_ACQUIRE(m);
	return true;
}

static inline void sp_rt_unlock(pthread_mutex_t *m)
{
	SP_RT_TSAN_RELEASE(m);
	sp_real.mutex_unlock(m);
	sp_rt_leave();
}

/* ---- runtime (sp_runtime.c) ---- */
extern struct sp_core *sp_rt_core_ptr; /* NULL until created */
extern uint32_t sp_rt_gen;             /* bumps at every creation */
extern int sp_rt_off;                  /* passthrough: forked child, exiting, failed */
/* The core, creating the runtime if needed; NULL means passthrough. */
struct sp_core *sp_rt_core_slow(void);
static inline struct sp_core *sp_rt_core(void)
{
	struct sp_core *c = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE);

	if (__builtin_expect(c != NULL, 1))
		return c;
	return sp_rt_core_slow();
}
const struct sp_runtime_config *sp_rt_config(void);
/* Lazy creation: adjusts the default config (weak; the interposer reads env). */
void sp_rt_env_config(struct sp_runtime_config *cfg);

/* ---- threads (sp_registry.c) ---- */
/* Registers the calling thread with the current core if needed; returns
 * its tid. Call with the guard held. */
sp_tid_t sp_rt_thread_slow(struct sp_core *core);
static inline sp_tid_t sp_rt_thread(struct sp_core *core)
{
	struct sp_rt_thread *t = &sp_rt_self_state;

	if (__builtin_expect(t->tid != 0 && t->gen == __atomic_load_n(&sp_rt_gen,
								       __ATOMIC_RELAXED), 1))
		return t->tid;
	return sp_rt_thread_slow(core);
}
/* The calling thread exits or execs: the core forgets it and its own
 * attributes are back before this returns. */
void sp_rt_thread_leave(void);
/* Before blocking: applies SUPERPASS_CRITICAL-style name rules. */
void sp_rt_thread_check_name(struct sp_core *core);
/* "name,name" (thread names or "main"); NULL clears. Copies the string;
 * -ENAMETOOLONG (and none critical) if longer than SP_RT_NAMES_MAX. */
#define SP_RT_NAMES_MAX 1021
int sp_rt_set_critical_names(const char *csv);
int sp_rt_have_critical_names(void);
void sp_rt_registry_reset(void);
/* For JSON: calls @fn for every registered thread. */
void sp_rt_registry_each(void (*fn)(void *arg, sp_tid_t tid, const char *name, int crit),
			 void *arg);
void sp_rt_registry_note(sp_tid_t tid, const char *name, int critical);
/* For JSON: every distinct thread name this process's registry has seen,
 * threads that exited included (at most SP_RT_SEEN_MAX; @more counts the
 * rest), and each SUPERPASS_CRITICAL name that made a thread critical
 * ("main" for the main thread): what `superpass run` says when a -c name
 * matched nothing. */
#define SP_RT_SEEN_MAX 64
void sp_rt_registry_seen(void (*fn)(void *arg, const char *name, int matched), void *arg,
			 uint32_t *more);
/* Copies up to @cap registered tids to @out; returns how many. */
uint32_t sp_rt_registry_tids(sp_tid_t *out, uint32_t cap);

/* ---- where threads run (sp_where.c) ---- */
/* The calling thread publishes (or takes back) where it runs. */
void sp_where_publish(sp_tid_t tid);
void sp_where_forget(sp_tid_t tid);
/* The CPU @tid last ran on, or -1 (unknown); the caller's own CPU. */
int sp_where_cpu(sp_tid_t tid);
int sp_where_self(void);
void sp_where_reset(void);

/* ---- lock instrumentation (sp_instr_mutex.c, sp_instr_rwlock.c) ---- */
/* glibc keeps the owner's tid in a mutex's __data.__owner; PI and robust
 * mutexes keep flag bits above it (FUTEX_TID_MASK in <linux/futex.h>). */
#define SP_FUTEX_TID_MASK 0x3fffffffu

/* The mutex's owner as its lock word says (0: free). Racy by nature: the
 * core decides what to make of it (sp_lock_blocked_owner). */
static inline sp_tid_t sp_rt_mutex_owner(const pthread_mutex_t *m)
{
	return (sp_tid_t)((unsigned int)__atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) &
			  SP_FUTEX_TID_MASK);
}

enum sp_wait_kind { SP_WAIT_FOREVER, SP_WAIT_TIMED, SP_WAIT_CLOCK };
int sp_instr_mutex_lock(pthread_mutex_t *m, enum sp_wait_kind wk, clockid_t clk,
			const struct timespec *abstime);
int sp_instr_mutex_trylock(pthread_mutex_t *m);
/* Past the inline test of sp_instr_mutex_unlock_fast (sp_instr_fast.h). */
int sp_instr_mutex_unlock_slow(pthread_mutex_t *m);
/* Around pthread_cond_*wait: 1 if a reported hold was ended, for _leave. */
int sp_instr_mutex_cond_enter(pthread_mutex_t *m);
void sp_instr_mutex_cond_leave(pthread_mutex_t *m, int told);
void sp_instr_lock_destroyed(const void *lock);
int sp_instr_rwlock_rdlock(pthread_rwlock_t *rw, enum sp_wait_kind wk, clockid_t clk,
			   const struct timespec *abstime);
int sp_instr_rwlock_wrlock(pthread_rwlock_t *rw, enum sp_wait_kind wk, clockid_t clk,
			   const struct timespec *abstime);
int sp_instr_rwlock_tryrdlock(pthread_rwlock_t *rw);
int sp_instr_rwlock_trywrlock(pthread_rwlock_t *rw);

/* Slow-path helpers shared by mutex and rwlock instrumentation. */
void sp_instr_acquired(sp_tid_t self, const void *lock, enum sp_hold hold);
void sp_instr_blocked_again(sp_tid_t self, const void *lock, enum sp_hold hold, sp_tid_t owner);
void sp_instr_blocked(sp_tid_t self, const void *lock, enum sp_hold hold,
		      sp_tid_t (*owner_of)(const void *lock), bool rwlock);
void sp_instr_unblocked(sp_tid_t self, const void *lock, enum sp_hold hold, bool acquired);
void sp_instr_read_unblocked(sp_tid_t self, const void *lock, int slot, bool acquired);
void sp_instr_released(sp_tid_t self, const void *lock, enum sp_hold hold);

/* ---- actuator (sp_actuator.c): makes threads' attributes match ---- */
int sp_act_setup(const struct sp_runtime_config *cfg); /* probes privileges */
/* The worker: makes @tid's scheduling match sp_task_fast_tracked() now. */
void sp_act_reconcile(struct sp_core *core, sp_tid_t tid);
/* The same for another thread than the caller, if the actuator's lock is
 * free; false (nothing done) if not. */
bool sp_act_reconcile_try(struct sp_core *core, sp_tid_t tid);
/* The worker, after the queue overflowed: every thread we changed and
 * every registered one. */
void sp_act_reconcile_all(struct sp_core *core);
/* The calling thread exits (after sp_task_exit): undo what we set on it
 * now, so that no boost survives it and its tid, once reused, is never
 * touched. */
void sp_act_thread_exit(sp_tid_t tid);
void sp_act_restore_all(void);          /* process exit / shutdown */
void sp_act_set_exiting(void);          /* process exit: no new boosts */
void sp_act_atfork_child(sp_tid_t parent_tid, sp_tid_t child_tid);
int sp_act_is_boosted(sp_tid_t tid);
enum sp_act_mode sp_act_mode_now(void);
void sp_act_stats(struct sp_runtime_stats *out);

/* ---- worker (sp_worker.c): drains the actuation queue, ticks ---- */
int sp_wk_start(const struct sp_runtime_config *cfg);
void sp_wk_stop(void);
/* The core's fast_track and restore: queue @tid for the worker. */
int sp_wk_fast_track(void *ctx, sp_tid_t tid);
int sp_wk_restore(void *ctx, sp_tid_t tid);
/* A critical thread started waiting: ticks are due (kicks if idle). */
void sp_wk_wait_started(void);
/* Around a critical wait's report: the fast tracks it grants are applied
 * by the caller at the end (sp_wk_direct_end; sp_worker.c says when). */
void sp_wk_direct_begin(struct sp_core *core);
void sp_wk_direct_end(struct sp_core *core);
/* The critical waiter's own attributes (sp_waiter.c): a wait of the
 * caller ended (@acquired: it took @lock); a release of the caller; the
 * caller execs or exits; the worker's bound on a kept raise (returns the
 * next one, 0 none); a fork's child. */
void sp_wk_wait_done(const void *lock, bool acquired);
void sp_wk_released(const void *lock);
void sp_wk_thread_leave(void);
/* An exec from inside the runtime's own code (a signal handler): only the
 * calling thread's own attributes back, nothing that takes a lock. */
void sp_wk_before_exec_guarded(void);
uint64_t sp_wk_bound_raised(uint64_t now);
bool sp_wk_raise_pending(void);
void sp_wk_waiter_atfork_child(void);
uint32_t sp_wk_raise_slots(uint32_t n); /* tests: how many may be raised at once */
/* For sp_waiter.c: a fast track for the worker to apply; its priority;
 * whether a worker is there to keep a bound; wake it for a new bound. */
void sp_wk_queue(sp_tid_t tid);
int sp_wk_fifo_prio(void);
bool sp_wk_can_bound(void);
void sp_wk_poke_bound(void);
void sp_wk_atfork_child(void);
/* Credential changes: no worker thread between the two (sp_worker.c). */
void sp_wk_block(void);
void sp_wk_unblock(void);
int sp_wk_running(void);
void sp_wk_stats(struct sp_runtime_stats *out);

/* ---- files the runtime writes (sp_rt_files.c): never through a link,
 * never another user's, new ones 0600 ---- */
/* One line on stderr, printf-style, never through stdio's buffers; none
 * while sp_rt_say_muted (the interposer, checking settings that a parent
 * process of the command has named already). */
void sp_rt_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int sp_rt_say_muted;
/* Whether @path (described as @what) can be created or replaced by us;
 * the reason is named on stderr if not. */
int sp_rt_file_check_dir(const char *what, const char *path);
/* The log, for appending; a negative errno (named on stderr) if refused. */
int sp_rt_file_open_log(const char *path);
/* A new temporary file next to @path (name in @tmp): its fd, or a negative
 * errno. sp_rt_file_commit() then renames it over @path if @rc is 0 and
 * removes it otherwise; returns the final result. */
int sp_rt_file_begin(const char *what, const char *path, char *tmp, size_t cap);
int sp_rt_file_commit(const char *tmp, const char *path, int rc);
/* sp_runtime_write_json into @path that way (SUPERPASS_STATS). */
int sp_rt_write_stats_file(const char *path);

/* ---- process exit (sp_runtime.c) ---- */
/* No new boosts, and every boost restored: the atexit handler and the
 * interposer's destructor. */
void sp_rt_process_exit(void);

/* Monotonic clock for the core. */
uint64_t sp_rt_now_ns(void *ctx);

#pragma GCC visibility pop

#endif /* SP_RT_H */
