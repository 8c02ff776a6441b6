// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libsuperpass-preload.so: SuperPass for unmodified programs.
 *
 *   LD_PRELOAD=libsuperpass-preload.so SUPERPASS_CRITICAL=main,RenderThread prog
 *
 * Every pthread mutex/rwlock call of the program lands here and goes through
 * the same instrumentation as sp_mutex_t/sp_rwlock_t (lib/runtime), which
 * calls the real glibc function and reports the event to the core. Calls
 * made while the runtime itself is running (the core's locks, liburcu,
 * stdio in the stats writer) see the thread-local guard and go straight to
 * glibc. pthread_cond_*wait are wrapped too: they release and retake the
 * mutex inside glibc, which the graph must know about.
 *
 * Environment:
 *   SUPERPASS_CRITICAL=a,b   critical threads by name (pthread_setname_np)
 *                            or "main" (the thread whose tid is the pid)
 *   SUPERPASS_STATS=FILE     JSON statistics at exit ("%p" -> pid)
 *   SUPERPASS_READERS=K      tracked readers per rwlock (default 4, max 64)
 *   SUPERPASS_PRIO=N         SCHED_FIFO priority of a fast track (default 1)
 *   SUPERPASS_BUDGET_US=N    per-grant budget (default 20000; 0 = none)
 *   SUPERPASS_MODE=auto|fifo|nice|observe
 *   SUPERPASS_LOG=FILE       one line per actuator call (tests, debugging)
 *   SUPERPASS_QUIET=1        no fallback notice on stderr
 */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_preload.h"
#include "sp_rt.h"

#define SP_EXPORT __attribute__((visibility("default")))

static pid_t sp_pl_pid;

/*
 * liburcu's own mutexes (registry and grace-period locks) are taken by
 * urcu_memb_unregister_thread() from a thread-exit destructor, outside any
 * guard of ours; instrumenting them would re-enter the core, which registers
 * the thread with liburcu again under the same lock: a self-deadlock. Locks
 * that live inside liburcu's image are therefore never instrumented.
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

static inline int sp_pl_internal(const void *lock)
{
	uintptr_t a = (uintptr_t)lock;

	return a >= sp_pl_urcu_lo && a < sp_pl_urcu_hi;
}

/* A numeric setting from the environment. A value that is not a number in
 * [min, max] is named on stderr and the default is kept: the program under
 * the interposer must run on either way. */
static unsigned long sp_pl_env_ul(const char *name, unsigned long def, unsigned long min,
				  unsigned long max)
{
	const char *v = getenv(name);
	char *end;
	unsigned long r;

	if (!v || !*v)
		return def;
	errno = 0;
	r = strtoul(v, &end, 10);
	if (errno || *end || v[0] == '-' || r < min || r > max) {
		fprintf(stderr,
			"superpass-preload: ignoring %s=%s (expected an integer from %lu to %lu); "
			"using %lu\n",
			name, v, min, max, def);
		return def;
	}
	return r;
}

void sp_rt_env_config(struct sp_runtime_config *cfg)
{
	const char *mode = getenv("SUPERPASS_MODE");

	cfg->core.readers_per_lock = (uint32_t)sp_pl_env_ul(
		"SUPERPASS_READERS", cfg->core.readers_per_lock, 1, SP_MAX_READERS_PER_LOCK);
	cfg->fifo_prio = (int)sp_pl_env_ul("SUPERPASS_PRIO", (unsigned long)cfg->fifo_prio, 1, 98);
	cfg->core.budget_ns = 1000ull * sp_pl_env_ul("SUPERPASS_BUDGET_US",
						     cfg->core.budget_ns / 1000, 0, 10000000);
	cfg->quiet = sp_pl_env_ul("SUPERPASS_QUIET", 0, 0, 1) != 0;
	cfg->log_path = getenv("SUPERPASS_LOG");
	if (mode && !strcmp(mode, "fifo"))
		cfg->mode = SP_ACT_FIFO;
	else if (mode && !strcmp(mode, "nice"))
		cfg->mode = SP_ACT_NICE;
	else if (mode && !strcmp(mode, "observe"))
		cfg->mode = SP_ACT_OBSERVE;
	else if (mode && *mode && strcmp(mode, "auto"))
		fprintf(stderr,
			"superpass-preload: ignoring SUPERPASS_MODE=%s (expected auto, fifo, nice "
			"or observe); using auto\n",
			mode);
	sp_rt_set_critical_names(getenv("SUPERPASS_CRITICAL"));
}

__attribute__((constructor)) static void sp_pl_init(void)
{
	sp_pl_pid = getpid();
	dl_iterate_phdr(sp_pl_phdr_cb, NULL);
	sp_real_resolve();
	sp_rt_core(); /* create now: the fallback notice, if any, comes first */
}

static void sp_pl_stats_path(char *out, size_t cap, const char *tmpl)
{
	size_t n = 0;

	for (const char *p = tmpl; *p && n + 12 < cap; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			n += (size_t)snprintf(out + n, cap - n, "%d", (int)getpid());
			p++;
		} else {
			out[n++] = *p;
		}
	}
	out[n] = 0;
}

__attribute__((destructor)) static void sp_pl_fini(void)
{
	const char *tmpl = getenv("SUPERPASS_STATS");
	char path[512];

	/* Not in a forked child that never exec'd: the file is the parent's. */
	if (getpid() != sp_pl_pid)
		return;
	sp_rt_enter();
	sp_rt_process_exit();
	if (tmpl && *tmpl) {
		sp_pl_stats_path(path, sizeof(path), tmpl);
		if (sp_runtime_write_json(path) < 0)
			fprintf(stderr, "superpass-preload: cannot write %s\n", path);
	}
	sp_rt_leave();
}

/* ---- mutex ---- */

SP_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	sp_pl_ready();
	if (sp_pl_internal(m))
		return sp_real.mutex_lock(m);
	return sp_instr_mutex_lock(m, SP_WAIT_FOREVER, CLOCK_REALTIME, NULL);
}

SP_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	sp_pl_ready();
	if (sp_pl_internal(m))
		return sp_real.mutex_trylock(m);
	return sp_instr_mutex_trylock(m);
}

SP_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	sp_pl_ready();
	return sp_instr_mutex_lock(m, SP_WAIT_TIMED, CLOCK_REALTIME, abstime);
}

SP_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk,
				      const struct timespec *abstime)
{
	sp_pl_ready();
	return sp_instr_mutex_lock(m, SP_WAIT_CLOCK, clk, abstime);
}

SP_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	sp_pl_ready();
	if (sp_pl_internal(m))
		return sp_real.mutex_unlock(m);
	return sp_instr_mutex_unlock(m);
}

SP_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
	sp_pl_ready();
	int rc = sp_real_x.mutex_destroy(m);

	if (rc == 0)
		sp_instr_lock_destroyed(m);
	return rc;
}

/* ---- rwlock ---- */

SP_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *rw)
{
	sp_pl_ready();
	return sp_instr_rwlock_rdlock(rw, SP_WAIT_FOREVER, CLOCK_REALTIME, NULL);
}

SP_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *rw)
{
	sp_pl_ready();
	return sp_instr_rwlock_tryrdlock(rw);
}

SP_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *rw, const struct timespec *abstime)
{
	sp_pl_ready();
	return sp_instr_rwlock_rdlock(rw, SP_WAIT_TIMED, CLOCK_REALTIME, abstime);
}

SP_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *rw, clockid_t clk,
					 const struct timespec *abstime)
{
	sp_pl_ready();
	return sp_instr_rwlock_rdlock(rw, SP_WAIT_CLOCK, clk, abstime);
}

SP_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *rw)
{
	sp_pl_ready();
	return sp_instr_rwlock_wrlock(rw, SP_WAIT_FOREVER, CLOCK_REALTIME, NULL);
}

SP_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *rw)
{
	sp_pl_ready();
	return sp_instr_rwlock_trywrlock(rw);
}

SP_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *rw, const struct timespec *abstime)
{
	sp_pl_ready();
	return sp_instr_rwlock_wrlock(rw, SP_WAIT_TIMED, CLOCK_REALTIME, abstime);
}

SP_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *rw, clockid_t clk,
					 const struct timespec *abstime)
{
	sp_pl_ready();
	return sp_instr_rwlock_wrlock(rw, SP_WAIT_CLOCK, clk, abstime);
}

SP_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *rw)
{
	sp_pl_ready();
	return sp_instr_rwlock_unlock(rw);
}

SP_EXPORT int pthread_rwlock_destroy(pthread_rwlock_t *rw)
{
	sp_pl_ready();
	int rc = sp_real_x.rwlock_destroy(rw);

	if (rc == 0)
		sp_instr_lock_destroyed(rw);
	return rc;
}

/* ---- condition variables: glibc drops and retakes the mutex inside ---- */

static int sp_pl_cond_enter(pthread_mutex_t *m, sp_tid_t *self)
{
	struct sp_core *core;

	if (sp_rt_guarded() || !(core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE)))
		return 0;
	*self = sp_rt_thread(core);
	if (sp_rt_mutex_owner(m) != *self)
		return 0;
	sp_instr_released(*self, m, SP_HOLD_EXCL);
	return 1;
}

static void sp_pl_cond_leave(pthread_mutex_t *m, sp_tid_t self, int tracked)
{
	if (tracked)
		sp_instr_acquired(self, m, SP_HOLD_EXCL);
}

SP_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	sp_pl_ready();
	sp_tid_t self = 0;
	int t = sp_pl_cond_enter(m, &self);
	int rc = sp_real_x.cond_wait(c, m);

	sp_pl_cond_leave(m, self, t);
	return rc;
}

SP_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				     const struct timespec *abstime)
{
	sp_pl_ready();
	sp_tid_t self = 0;
	int t = sp_pl_cond_enter(m, &self);
	int rc = sp_real_x.cond_timedwait(c, m, abstime);

	sp_pl_cond_leave(m, self, t);
	return rc;
}

SP_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
				     const struct timespec *abstime)
{
	sp_pl_ready();
	sp_tid_t self = 0;
	int t = sp_pl_cond_enter(m, &self);
	int rc = sp_real_x.cond_clockwait(c, m, clk, abstime);

	sp_pl_cond_leave(m, self, t);
	return rc;
}
