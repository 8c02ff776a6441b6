// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libsuperpass-preload.so: SuperPass for unmodified programs.
 *
 *   LD_PRELOAD=libsuperpass-preload.so SUPERPASS_CRITICAL=main,RenderThread prog
 *
 * Every pthread mutex/rwlock call of the program lands here and goes through
 * the same instrumentation as sp_mutex_t/sp_rwlock_t (lib/hosts/runtime), which
 * calls the real glibc function and reports the event to the core. The
 * library's own locks never come here (sp_os_lock is a futex lock, the
 * runtime's mutexes call sp_real); third-party calls made while the runtime
 * runs (liburcu, stdio in the stats writer) see the thread-local guard and
 * go straight to glibc. pthread_cond_*wait are wrapped too: they release and retake the
 * mutex inside glibc, which the graph must know about. The exec family and
 * posix_spawn (sp_preload_exec.c) and the credential calls
 * (sp_preload_creds.c) are wrapped too, so that no fast track outlives the
 * program and no worker thread stands in a credential change.
 *
 * Without SUPERPASS_CRITICAL the runtime stays in passthrough: every lock
 * call goes to glibc, no thread is created, nothing is printed.
 *
 * Environment (read in sp_preload_env.c, ignored in secure-execution mode):
 *   SUPERPASS_CRITICAL=a,b   critical threads by name (pthread_setname_np)
 *                            or "main" (the thread whose tid is the pid)
 *   SUPERPASS_STATS=FILE     JSON statistics at exit ("%p" -> pid; without it,
 *                            sp_pl_stats_shared says which process keeps FILE)
 *   SUPERPASS_READERS=K      tracked readers per rwlock (default 4, max 64)
 *   SUPERPASS_PRIO=N         SCHED_FIFO priority of a fast track (default 1)
 *   SUPERPASS_BUDGET_US=N    per-grant budget (default 20000; 0 = none)
 *   SUPERPASS_MODE=auto|fifo|nice|observe
 *   SUPERPASS_LOG=FILE       one line per actuator call (tests, debugging)
 *   SUPERPASS_QUIET=1        no fallback notice on stderr
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sp_preload.h"
#include "sp_instr_fast.h"
#include "sp_rt.h"

#define SP_EXPORT __attribute__((visibility("default")))

static pid_t sp_pl_pid;
static struct timespec sp_pl_start; /* CLOCK_REALTIME, as file times are */

/*
 * liburcu's own mutexes (registry and grace-period locks) are taken by
 * urcu_memb_unregister_thread() from a thread-exit destructor, outside any
 * guard of ours; instrumenting them would re-enter the core, which registers
 * the thread with liburcu again under the same lock: a self-deadlock. Locks
 * that live inside liburcu's image therefore never reach the runtime (the
 * test runs only where the runtime would be entered: sp_instr_fast.h).
 */
static uintptr_t sp_pl_urcu_lo = UINTPTR_MAX, sp_pl_urcu_hi;

static int sp_pl_phdr_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "liburcu"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (lo < sp_pl_urcu_lo)
			sp_pl_urcu_lo = lo;
		if (lo + ph->p_memsz > sp_pl_urcu_hi)
			sp_pl_urcu_hi = lo + ph->p_memsz;
	}
	return 0;
}

static inline bool sp_pl_internal(const void *lock)
{
	uintptr_t a = (uintptr_t)lock;

	return a >= sp_pl_urcu_lo && a < sp_pl_urcu_hi;
}

__attribute__((constructor)) static void sp_pl_init(void)
{
	sp_pl_pid = getpid();
	clock_gettime(CLOCK_REALTIME, &sp_pl_start);
	dl_iterate_phdr(sp_pl_phdr_cb, NULL);
	sp_real_resolve();
	sp_rt_core(); /* create now: the fallback notice, if any, comes first */
}

static void sp_pl_count_thread(void *arg, sp_tid_t tid, const char *name, int crit)
{
	(void)tid;
	(void)name;
	(void)crit;
	++*(unsigned *)arg;
}

/* Whether this process's statistics would say nothing: no thread made a
 * lock call through us (none is listed) and the core counted nothing
 * (sp_pl_file_says_nothing reads the same in a file). */
static bool sp_pl_stats_empty(void)
{
	struct sp_runtime_stats st;
	unsigned n = 0;

	sp_runtime_stats(&st);
#define SP_PL_ZERO(name, kind, help) \
	if (st.core.name)            \
		return false;
	SP_STATS_FIELDS(SP_PL_ZERO)
#undef SP_PL_ZERO
	sp_rt_registry_each(sp_pl_count_thread, &n);
	return n == 0;
}

/* Whether the statistics in @path say nothing, as sp_pl_stats_empty's
 * would: no thread listed, no acquire, no block. */
static bool sp_pl_file_says_nothing(const char *path)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return strstr(buf, "\"threads\": []") && strstr(buf, "\"acquires\": 0,") &&
	       strstr(buf, "\"blocks\": 0,");
}

/* @path with ".PID" before the extension of its file name. */
static int sp_pl_path_with_pid(char *out, size_t cap, const char *path)
{
	const char *base = strrchr(path, '/'), *dot;
	int n;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!dot || dot == base)
		dot = path + strlen(path);
	n = snprintf(out, cap, "%.*s.%d%s", (int)(dot - path), path, (int)getpid(), dot);
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/*
 * SUPERPASS_STATS without "%p": every process of the command writes the
 * same FILE, and the last one out would replace what the others wrote.
 * So a FILE that another process wrote since this one started is left
 * alone by a process with nothing to say (a wrapper such as timeout or
 * sh, which takes no lock: its empty statistics would replace its
 * program's); a process with statistics replaces it if it says nothing
 * too (a helper child that took no lock), else writes its own next to it,
 * as FILE with ".PID" before the extension, and says so. A FILE older than
 * the process is an earlier run's: replaced. 0: write @path (perhaps
 * changed); 1: write nothing.
 */
static int sp_pl_stats_shared(char *path, size_t cap)
{
	char alt[PATH_MAX];
	struct stat st;

	if (lstat(path, &st) != 0 || st.st_mtim.tv_sec < sp_pl_start.tv_sec ||
	    (st.st_mtim.tv_sec == sp_pl_start.tv_sec && st.st_mtim.tv_nsec < sp_pl_start.tv_nsec))
		return 0;
	if (sp_pl_stats_empty())
		return 1;
	if (sp_pl_file_says_nothing(path) || sp_pl_path_with_pid(alt, sizeof(alt), path) < 0)
		return 0;
	sp_rt_say("superpass-preload: %s was written by another process while this one ran; "
		  "the statistics of pid %d go to %s (\"%%p\" in SUPERPASS_STATS: one file per "
		  "process)\n", path, (int)getpid(), alt);
	if (strlen(alt) >= cap)
		return 0;
	memcpy(path, alt, strlen(alt) + 1);
	return 0;
}

__attribute__((destructor)) static void sp_pl_fini(void)
{
	const char *tmpl = sp_pl_stats_template(); /* NULL in secure-execution mode */
	char path[PATH_MAX];
	int rc;

	/* Not in a forked child that never exec'd: the file is the parent's. */
	if (getpid() != sp_pl_pid)
		return;
	sp_rt_enter();
	sp_rt_process_exit();
	if (tmpl && sp_pl_stats_path(path, sizeof(path), tmpl) == 0 &&
	    (strstr(tmpl, "%p") || sp_pl_stats_shared(path, sizeof(path)) == 0)) {
		rc = sp_rt_write_stats_file(path);
		if (rc < 0)
			sp_rt_say("superpass-preload: cannot write statistics %s: %s\n", path,
				  strerror(-rc));
	}
	sp_rt_leave();
}

/* ---- mutex ---- */

SP_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	return sp_instr_mutex_lock_fast(m, sp_pl_internal);
}

SP_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	if (sp_pl_internal(m))
		return sp_real.mutex_trylock(m);
	return sp_instr_mutex_trylock(m);
}

SP_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	return sp_instr_mutex_lock(m, SP_WAIT_TIMED, CLOCK_REALTIME, abstime);
}

SP_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk,
				      const struct timespec *abstime)
{
	return sp_instr_mutex_lock(m, SP_WAIT_CLOCK, clk, abstime);
}

SP_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	return sp_instr_mutex_unlock_fast(m, sp_pl_internal);
}

SP_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
	int rc = sp_real.mutex_destroy(m);

	if (rc == 0)
		sp_instr_lock_destroyed(m);
	return rc;
}

/* ---- rwlock ---- */

SP_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *rw)
{
	return sp_instr_rwlock_rdlock_fast(rw);
}

SP_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *rw)
{
	return sp_instr_rwlock_tryrdlock(rw);
}

SP_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *rw, const struct timespec *abstime)
{
	return sp_instr_rwlock_rdlock(rw, SP_WAIT_TIMED, CLOCK_REALTIME, abstime);
}

SP_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *rw, clockid_t clk,
					 const struct timespec *abstime)
{
	return sp_instr_rwlock_rdlock(rw, SP_WAIT_CLOCK, clk, abstime);
}

SP_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *rw)
{
	return sp_instr_rwlock_wrlock(rw, SP_WAIT_FOREVER, CLOCK_REALTIME, NULL);
}

SP_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *rw)
{
	return sp_instr_rwlock_trywrlock(rw);
}

SP_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *rw, const struct timespec *abstime)
{
	return sp_instr_rwlock_wrlock(rw, SP_WAIT_TIMED, CLOCK_REALTIME, abstime);
}

SP_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *rw, clockid_t clk,
					 const struct timespec *abstime)
{
	return sp_instr_rwlock_wrlock(rw, SP_WAIT_CLOCK, clk, abstime);
}

SP_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *rw)
{
	return sp_instr_rwlock_unlock_fast(rw);
}

SP_EXPORT int pthread_rwlock_destroy(pthread_rwlock_t *rw)
{
	int rc = sp_real.rwlock_destroy(rw);

	if (rc == 0)
		sp_instr_lock_destroyed(rw);
	return rc;
}

/* ---- condition variables: glibc drops and retakes the mutex inside ---- */

static int sp_pl_cond_enter(pthread_mutex_t *m, sp_tid_t *self)
{
	(void)self;
	return sp_instr_mutex_cond_enter(m);
}

static void sp_pl_cond_leave(pthread_mutex_t *m, sp_tid_t self, int tracked)
{
	(void)self;
	sp_instr_mutex_cond_leave(m, tracked);
}

SP_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	sp_tid_t self = 0;
	int t = sp_pl_cond_enter(m, &self);
	int rc = sp_real_x.cond_wait(c, m);

	sp_pl_cond_leave(m, self, t);
	return rc;
}

SP_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				     const struct timespec *abstime)
{
	sp_tid_t self = 0;
	int t = sp_pl_cond_enter(m, &self);
	int rc = sp_real_x.cond_timedwait(c, m, abstime);

	sp_pl_cond_leave(m, self, t);
	return rc;
}

SP_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
				     const struct timespec *abstime)
{
	sp_tid_t self = 0;
	int t = sp_pl_cond_enter(m, &self);
	int rc = sp_real_x.cond_clockwait(c, m, clk, abstime);

	sp_pl_cond_leave(m, self, t);
	return rc;
}
