// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The actuator: grant a fast track with sched_setattr and restore the
 * attributes the thread had before, exactly.
 *
 * The core calls sp_act_fast_track / sp_act_restore with its own locks held,
 * so nothing here calls back into the core. A small open-addressing table
 * keyed by tid keeps the saved attributes of every fast-tracked thread; it is
 * only touched when a grant starts or ends, so one mutex is enough.
 *
 * Without CAP_SYS_NICE (and without RLIMIT_RTPRIO) SCHED_FIFO is refused:
 * the actuator then lowers the nice value as far as RLIMIT_NICE allows, or,
 * if that is no boost at all, only observes. It says so once on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sp_rt.h"
#include "sp_sched_attr.h"

#define SP_ACT_SLOTS 1024u /* power of two; more concurrent boosts are refused */
#define SP_ACT_TOMB UINT64_MAX

struct sp_act_slot {
	sp_tid_t tid;                /* 0 free, SP_ACT_TOMB deleted */
	struct sp_sched_attr saved;  /* what to restore */
	int changed;                 /* 0: nothing was changed (already above us) */
};

static struct {
	pthread_mutex_t lock;
	struct sp_act_slot slot[SP_ACT_SLOTS];
	enum sp_act_mode mode;
	int fifo_prio;
	int nice_floor;       /* lowest nice RLIMIT_NICE lets us set */
	int quiet;
	int log_fd;
	int exiting;          /* process exit: refuse new grants */
	uint64_t active;
	uint64_t fast_tracks, restores, errors, gone;
} sp_act = { .lock = PTHREAD_MUTEX_INITIALIZER, .log_fd = -1 };

const char *sp_act_mode_name(enum sp_act_mode mode)
{
	switch (mode) {
	case SP_ACT_AUTO: return "auto";
	case SP_ACT_FIFO: return "fifo";
	case SP_ACT_NICE: return "nice";
	case SP_ACT_OBSERVE: return "observe";
	}
	return "?";
}

int sp_runtime_has_cap_sys_nice(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data) != 0)
		return 0;
	return (data[CAP_SYS_NICE / 32].effective >> (CAP_SYS_NICE % 32)) & 1u;
}

static void sp_act_say(const char *msg)
{
	if (!sp_act.quiet) {
		ssize_t r = write(STDERR_FILENO, msg, strlen(msg));
		(void)r;
	}
}

/* Picks the mode the privileges allow and explains a downgrade, once. */
static void sp_act_probe(enum sp_act_mode want)
{
	struct rlimit rt = { 0, 0 }, nl = { 0, 0 };
	char msg[400];
	int cap = sp_runtime_has_cap_sys_nice();

	getrlimit(RLIMIT_RTPRIO, &rt);
	getrlimit(RLIMIT_NICE, &nl);
	/* RLIMIT_NICE is 20 - lowest nice: 0 or 1 both mean "nice 19 at best". */
	sp_act.nice_floor = cap ? -20 : 20 - (int)(nl.rlim_cur > 40 ? 40 : nl.rlim_cur);
	if (want == SP_ACT_OBSERVE || want == SP_ACT_NICE) {
		__atomic_store_n(&sp_act.mode, want, __ATOMIC_RELAXED);
		return;
	}
	if (cap || rt.rlim_cur == RLIM_INFINITY || (long)rt.rlim_cur >= sp_act.fifo_prio) {
		__atomic_store_n(&sp_act.mode, SP_ACT_FIFO, __ATOMIC_RELAXED);
		return;
	}
	if (sp_act.nice_floor < 19) {
		__atomic_store_n(&sp_act.mode, SP_ACT_NICE, __ATOMIC_RELAXED);
		snprintf(msg, sizeof(msg),
			 "superpass: no CAP_SYS_NICE and RLIMIT_RTPRIO=%lu < %d: SCHED_FIFO fast track "
			 "unavailable; falling back to nice %d (RLIMIT_NICE=%lu). Run as root or "
			 "`setcap cap_sys_nice+ep` for the real fast track.\n",
			 (unsigned long)rt.rlim_cur, sp_act.fifo_prio, sp_act.nice_floor,
			 (unsigned long)nl.rlim_cur);
	} else {
		__atomic_store_n(&sp_act.mode, SP_ACT_OBSERVE, __ATOMIC_RELAXED);
		snprintf(msg, sizeof(msg),
			 "superpass: no CAP_SYS_NICE, RLIMIT_RTPRIO=%lu and RLIMIT_NICE=%lu: cannot "
			 "raise any thread's priority; observe-only (blockings are still measured, "
			 "nothing is fast-tracked). Run as root or `setcap cap_sys_nice+ep` to "
			 "enable the fast track.\n",
			 (unsigned long)rt.rlim_cur, (unsigned long)nl.rlim_cur);
	}
	sp_act_say(msg);
}

int sp_act_setup(const struct sp_runtime_config *cfg)
{
	if (cfg->fifo_prio < 1 || cfg->fifo_prio > 98)
		return -EINVAL;
	pthread_mutex_lock(&sp_act.lock);
	memset(sp_act.slot, 0, sizeof(sp_act.slot));
	__atomic_store_n(&sp_act.active, 0, __ATOMIC_RELAXED);
	sp_act.fast_tracks = sp_act.restores = sp_act.errors = sp_act.gone = 0;
	sp_act.fifo_prio = cfg->fifo_prio;
	sp_act.quiet = cfg->quiet;
	sp_act.exiting = 0;
	if (sp_act.log_fd >= 0)
		close(sp_act.log_fd);
	sp_act.log_fd = -1;
	if (cfg->log_path)
		sp_act.log_fd = open(cfg->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	sp_act_probe(cfg->mode);
	pthread_mutex_unlock(&sp_act.lock);
	return 0;
}

enum sp_act_mode sp_act_mode_now(void)
{
	return __atomic_load_n(&sp_act.mode, __ATOMIC_RELAXED);
}

static void sp_act_log(const char *what, sp_tid_t tid, const struct sp_sched_attr *a, int rc)
{
	char line[160];
	int n;

	if (sp_act.log_fd < 0)
		return;
	n = snprintf(line, sizeof(line),
		     "%s t=%llu pid=%d tid=%llu policy=%u prio=%u nice=%d rc=%d\n", what,
		     (unsigned long long)sp_rt_now_ns(NULL), (int)getpid(), (unsigned long long)tid,
		     a->sched_policy, a->sched_priority, a->sched_nice, rc);
	if (n > 0 && write(sp_act.log_fd, line, (size_t)n) < 0)
		return;
}

static struct sp_act_slot *sp_act_find(sp_tid_t tid, int insert)
{
	uint32_t h = (uint32_t)(tid * 0x9e3779b97f4a7c15ull >> 40);
	struct sp_act_slot *tomb = NULL;

	for (uint32_t i = 0; i < SP_ACT_SLOTS; i++) {
		struct sp_act_slot *s = &sp_act.slot[(h + i) & (SP_ACT_SLOTS - 1)];

		if (s->tid == tid)
			return s;
		if (s->tid == SP_ACT_TOMB && !tomb)
			tomb = s;
		if (s->tid == 0) {
			if (!insert)
				return NULL;
			return tomb ? tomb : s;
		}
	}
	return insert ? tomb : NULL;
}

/* The attributes of a fast track for a thread that had @saved; returns 0 if
 * the thread is already at least that urgent (nothing to change). */
static int sp_act_boosted_attr(const struct sp_sched_attr *saved, struct sp_sched_attr *out)
{
	*out = *saved;
	if (sp_act.mode == SP_ACT_FIFO) {
		if (saved->sched_policy == SCHED_DEADLINE ||
		    ((saved->sched_policy == SCHED_FIFO || saved->sched_policy == SCHED_RR) &&
		     (int)saved->sched_priority >= sp_act.fifo_prio))
			return 0;
		out->sched_policy = SCHED_FIFO;
		out->sched_priority = (uint32_t)sp_act.fifo_prio;
		/* A child forked by a boosted thread starts unboosted. */
		out->sched_flags = SP_SCHED_FLAG_RESET_ON_FORK;
		return 1;
	}
	/* SP_ACT_NICE: only SCHED_NORMAL/BATCH/IDLE threads above the floor. */
	if (saved->sched_policy != SCHED_OTHER && saved->sched_policy != SCHED_BATCH &&
	    saved->sched_policy != SCHED_IDLE)
		return 0;
	if (saved->sched_policy != SCHED_IDLE && saved->sched_nice <= sp_act.nice_floor)
		return 0;
	out->sched_policy = SCHED_OTHER;
	out->sched_nice = sp_act.nice_floor;
	return 1;
}

static void sp_act_downgrade(void)
{
	/* FIFO refused although the probe allowed it (e.g. a cgroup without RT
	 * runtime): fall back once, and say so. */
	char msg[200];

	__atomic_store_n(&sp_act.mode, sp_act.nice_floor < 19 ? SP_ACT_NICE : SP_ACT_OBSERVE,
			 __ATOMIC_RELAXED);
	snprintf(msg, sizeof(msg),
		 "superpass: sched_setattr(SCHED_FIFO) refused (EPERM); fast track falls back to "
		 "%s.\n", sp_act.mode == SP_ACT_NICE ? "raising nice" : "observe-only");
	sp_act_say(msg);
}

/*
 * Fast tracks that a waiter asks for while it reports its own wait are held
 * back until that waiter sleeps in the kernel. Applied at once, a holder
 * sharing the waiter's CPU preempts it before glibc has registered it as a
 * waiter, and a writer-preferring rwlock then keeps admitting the boosted
 * readers (measured: the critical writer stuck up to 16 ms in its own
 * report, 100 ms waits). The watchdog applies them on its next tick, once
 * /proc says the waiter is no longer running.
 */
#define SP_ACT_DEFERRED 64u

static struct {
	sp_tid_t target, waiter;
} sp_act_deferred[SP_ACT_DEFERRED];

static int sp_act_apply_boost(sp_tid_t tid);

static bool sp_act_defer(sp_tid_t target, sp_tid_t waiter)
{
	for (uint32_t i = 0; i < SP_ACT_DEFERRED; i++) {
		sp_tid_t empty = 0;

		if (__atomic_compare_exchange_n(&sp_act_deferred[i].target, &empty, target, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			__atomic_store_n(&sp_act_deferred[i].waiter, waiter, __ATOMIC_RELEASE);
			return true;
		}
	}
	return false;
}

/* Whether @tid of this process is off the CPU (state not R). */
static bool sp_act_sleeping(sp_tid_t tid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%llu/stat", (unsigned long long)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true; /* gone: nothing to wait for */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = 0;
	p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
	return !p || p[1] != ' ' || p[2] != 'R';
}

void sp_act_apply_deferred(struct sp_core *core)
{
	for (uint32_t i = 0; i < SP_ACT_DEFERRED; i++) {
		sp_tid_t target = __atomic_load_n(&sp_act_deferred[i].target, __ATOMIC_ACQUIRE);
		sp_tid_t waiter;
		int want;

		if (!target)
			continue;
		waiter = __atomic_load_n(&sp_act_deferred[i].waiter, __ATOMIC_ACQUIRE);
		/* What the core wants now: the grant may have ended meanwhile. */
		want = core ? sp_task_boosted(core, target) : 0;
		if (want == 1 && waiter && !sp_act_sleeping(waiter))
			continue; /* still on its way into the kernel: next tick */
		__atomic_store_n(&sp_act_deferred[i].target, 0, __ATOMIC_RELEASE);
		if (want == 1 && !sp_act_is_boosted(target))
			sp_act_apply_boost(target);
	}
}

int sp_act_fast_track(void *ctx, sp_tid_t tid)
{
	(void)ctx;
	if (sp_rt_self_state.reporting_wait && tid != sp_rt_self_state.tid &&
	    __atomic_load_n(&sp_act.mode, __ATOMIC_RELAXED) != SP_ACT_OBSERVE &&
	    sp_act_defer(tid, sp_rt_self_state.tid)) {
		sp_wd_kick();
		return 0;
	}
	return sp_act_apply_boost(tid);
}

static int sp_act_apply_boost(sp_tid_t tid)
{
	struct sp_sched_attr saved, boost;
	struct sp_act_slot *s;
	int rc = 0;

	pthread_mutex_lock(&sp_act.lock);
	if (sp_act.exiting || sp_act.mode == SP_ACT_OBSERVE)
		goto out;
	s = sp_act_find(tid, 0);
	if (s)  /* already ours: the core refcounts, so this is a repeat */
		goto out;
	/* Boosted again before a deferred restore of itself was applied: the
	 * thread still runs with our boost, and its true attributes are the
	 * pending ones. Cancel the restore and keep them as the saved state. */
	if (tid == sp_rt_self_state.tid && sp_rt_self_state.restore_pending) {
		s = sp_act_find(tid, 1);
		if (!s) {
			rc = -ENOSPC;
			sp_act.errors++;
			goto out;
		}
		sp_rt_self_state.restore_pending = 0;
		s->tid = tid;
		s->saved = sp_rt_self_state.restore_to;
		s->changed = 1;
		__atomic_add_fetch(&sp_act.active, 1, __ATOMIC_RELAXED);
		sp_act.fast_tracks++;
		goto out;
	}
	/* Only threads of this process: a process-shared mutex can name an
	 * owner in another process, and tids are global. */
	if (syscall(SYS_tgkill, getpid(), (pid_t)tid, 0) != 0) {
		sp_act.gone++;
		goto out;
	}
	rc = sp_sched_getattr((pid_t)tid, &saved);
	if (rc) {
		if (rc == -ESRCH)
			sp_act.gone++;
		else
			sp_act.errors++;
		goto out;
	}
	s = sp_act_find(tid, 1);
	if (!s) {
		rc = -ENOSPC;
		sp_act.errors++;
		goto out;
	}
	s->tid = tid;
	s->saved = saved;
	s->changed = 0;
	__atomic_add_fetch(&sp_act.active, 1, __ATOMIC_RELAXED);
	sp_act.fast_tracks++;
	if (sp_act_boosted_attr(&saved, &boost)) {
		rc = sp_sched_setattr((pid_t)tid, &boost);
		if (rc == -EPERM && sp_act.mode == SP_ACT_FIFO) {
			sp_act_downgrade();
			if (sp_act.mode == SP_ACT_NICE && sp_act_boosted_attr(&saved, &boost))
				rc = sp_sched_setattr((pid_t)tid, &boost);
			else
				rc = 0;
		}
		if (rc == 0)
			s->changed = 1;
		else if (rc == -ESRCH)
			sp_act.gone++;
		else
			sp_act.errors++;
		sp_act_log("fast_track", tid, &boost, rc);
	}
out:
	pthread_mutex_unlock(&sp_act.lock);
	if (rc == 0)
		sp_wd_kick();
	return rc == -ESRCH ? 0 : rc;
}

static int sp_act_undo(struct sp_act_slot *s)
{
	int rc = 0;

	if (s->changed) {
		rc = sp_sched_setattr((pid_t)s->tid, &s->saved);
		if (rc == -ESRCH)
			sp_act.gone++;
		else if (rc)
			sp_act.errors++;
		sp_act_log("restore", s->tid, &s->saved, rc);
	}
	sp_act.restores++;
	__atomic_sub_fetch(&sp_act.active, 1, __ATOMIC_RELAXED);
	s->tid = SP_ACT_TOMB;
	return rc == -ESRCH ? 0 : rc;
}

/*
 * A thread that ends its own fast track (it released the lock) would lower
 * its priority while the core still holds that task's boost lock, and the
 * kernel may preempt it right there: every other thread that needs the
 * lock (the critical waiter granting a new fast track to this very thread)
 * would then wait for a nice 19 thread to get a CPU again. So a restore of
 * the calling thread is only recorded here and applied by sp_rt_leave(),
 * once the thread is out of the core.
 */
int sp_act_restore(void *ctx, sp_tid_t tid)
{
	struct sp_rt_thread *self = &sp_rt_self_state;
	struct sp_act_slot *s;
	int rc = 0;

	(void)ctx;
	pthread_mutex_lock(&sp_act.lock);
	s = sp_act_find(tid, 0);
	if (s && tid == self->tid && self->guard > 0) {
		if (s->changed) {
			self->restore_to = s->saved;
			self->restore_pending = 1;
		}
		sp_act.restores++;
		__atomic_sub_fetch(&sp_act.active, 1, __ATOMIC_RELAXED);
		s->tid = SP_ACT_TOMB;
	} else if (s) {
		rc = sp_act_undo(s);
	}
	pthread_mutex_unlock(&sp_act.lock);
	return rc;
}

void sp_act_flush_self(void)
{
	struct sp_rt_thread *self = &sp_rt_self_state;
	int rc;

	self->restore_pending = 0;
	rc = sp_sched_setattr(0, &self->restore_to);
	if (rc && rc != -ESRCH) {
		pthread_mutex_lock(&sp_act.lock);
		sp_act.errors++;
		pthread_mutex_unlock(&sp_act.lock);
	}
	sp_act_log("restore", self->tid, &self->restore_to, rc);
}

void sp_act_restore_all(void)
{
	pthread_mutex_lock(&sp_act.lock);
	for (uint32_t i = 0; i < SP_ACT_SLOTS; i++) {
		struct sp_act_slot *s = &sp_act.slot[i];

		if (s->tid != 0 && s->tid != SP_ACT_TOMB)
			sp_act_undo(s);
	}
	pthread_mutex_unlock(&sp_act.lock);
}

/* In a forked child: only the forking thread exists and the table lock may
 * have been held by a thread that is gone, so rebuild everything without
 * locking. If the forking thread was boosted, its copy in the child is
 * already unboosted by SCHED_RESET_ON_FORK; put its exact attributes back
 * anyway (reset-on-fork also zeroes a negative nice). Other tids in the
 * table belong to the parent and must never be touched from here. */
void sp_act_atfork_child(sp_tid_t parent_tid, sp_tid_t child_tid)
{
	struct sp_act_slot *s = parent_tid ? sp_act_find(parent_tid, 0) : NULL;
	struct sp_sched_attr saved;
	/* Not s->changed: the fork may have raced with the granting thread,
	 * which sets it after sched_setattr returns. The saved attributes are
	 * filled in before the boost, and are the right ones either way. */
	int had = s != NULL;

	if (had)
		saved = s->saved;
	pthread_mutex_init(&sp_act.lock, NULL);
	memset(sp_act.slot, 0, sizeof(sp_act.slot));
	memset(sp_act_deferred, 0, sizeof(sp_act_deferred));
	__atomic_store_n(&sp_act.active, 0, __ATOMIC_RELAXED);
	sp_act.log_fd = -1; /* shared with the parent; do not interleave */
	if (had)
		sp_sched_setattr((pid_t)child_tid, &saved);
}

void sp_act_set_exiting(void)
{
	pthread_mutex_lock(&sp_act.lock);
	sp_act.exiting = 1;
	pthread_mutex_unlock(&sp_act.lock);
}

int sp_act_is_boosted(sp_tid_t tid)
{
	int r;

	pthread_mutex_lock(&sp_act.lock);
	r = sp_act_find(tid, 0) != NULL;
	pthread_mutex_unlock(&sp_act.lock);
	return r;
}

uint64_t sp_act_active(void)
{
	return __atomic_load_n(&sp_act.active, __ATOMIC_RELAXED);
}

void sp_act_stats(struct sp_runtime_stats *out)
{
	pthread_mutex_lock(&sp_act.lock);
	out->act_fast_tracks = sp_act.fast_tracks;
	out->act_restores = sp_act.restores;
	out->act_errors = sp_act.errors;
	out->act_gone = sp_act.gone;
	out->act_boosted_now = sp_act.active;
	out->mode = (uint32_t)sp_act.mode;
	pthread_mutex_unlock(&sp_act.lock);
}
