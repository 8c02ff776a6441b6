// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The actuator: makes a thread's scheduling attributes match what is
 * wanted for it, saving the exact attributes it had and putting them back.
 *
 * The core never calls in here. Its fast_track/restore callbacks only
 * queue the tid (sp_wk_fast_track/sp_wk_restore in sp_worker.c); the
 * worker thread then calls
 * sp_act_reconcile(), which asks the core what it wants now
 * (sp_task_fast_tracked) and applies that, so a boost and its restore queued
 * back to back cost nothing. The attributes are saved when the boost is
 * applied and put back when it ends. Besides the worker, a thread whose own
 * fast track ended reconciles itself on its way out of the core
 * (sp_wk_restore says why), and an exiting thread does (its tid must not be
 * touched once it is gone).
 *
 * Restoring never overwrites a change the application made meanwhile: if
 * the thread's attributes are no longer the ones we set, their change
 * wins and is counted (act_overridden).
 *
 * One mutex guards the table and is held across the system calls, so the
 * worker's reconciliation of a thread and the thread's own never
 * interleave (a thread lowering itself is the exception: sp_act_unlock). It is a priority-inheritance mutex: the worker runs at
 * SCHED_FIFO and must not wait behind a nice 19 thread that was preempted
 * while it held the lock on its way out.
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
#include "sp_os.h"

#define SP_ACT_SLOTS 1024u /* power of two; more concurrent boosts are refused */
#define SP_ACT_TOMB UINT64_MAX

struct sp_act_slot {
	sp_tid_t tid;                /* 0 free, SP_ACT_TOMB deleted */
	struct sp_sched_attr saved;  /* the thread's own attributes, to restore */
	struct sp_sched_attr set;    /* what we set (if changed) */
	bool changed;                /* false: nothing set (it was already as urgent) */
	bool core_want;              /* the core wants it fast-tracked (last look) */
	bool lowering;               /* its own thread restores itself, unlocked */
};

static struct {
	pthread_mutex_t lock;        /* PTHREAD_PRIO_INHERIT, see above */
	struct sp_act_slot slot[SP_ACT_SLOTS];
	enum sp_act_mode mode;
	int fifo_prio;
	int nice_floor;       /* lowest nice RLIMIT_NICE lets us set */
	int quiet;
	int log_fd;
	int exiting;          /* process exit: refuse new boosts */
	uint64_t boosted_now; /* entries the core wants */
	uint64_t fast_tracks, restores, errors, gone, overridden;
} sp_act = { .log_fd = -1 };

static void sp_act_lock_init(void)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&sp_act.lock, &a);
	pthread_mutexattr_destroy(&a);
}

/* Before any thread can reach the actuator (a PI mutex has no static
 * initialiser). */
__attribute__((constructor)) static void sp_act_ctor(void)
{
	sp_act_lock_init();
}

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
	if (sp_os_sys(SYS_capget, (long)&hdr, (long)data, 0, 0) != 0)
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
	sp_rt_lock(&sp_act.lock);
	memset(sp_act.slot, 0, sizeof(sp_act.slot));
	sp_act.boosted_now = 0;
	sp_act.fast_tracks = sp_act.restores = sp_act.errors = sp_act.gone = 0;
	sp_act.overridden = 0;
	sp_act.fifo_prio = cfg->fifo_prio;
	sp_act.quiet = cfg->quiet;
	sp_act.exiting = 0;
	if (sp_act.log_fd >= 0)
		close(sp_act.log_fd);
	sp_act.log_fd = -1;
	if (cfg->log_path)
		sp_act.log_fd = sp_rt_file_open_log(cfg->log_path); /* < 0: named on stderr */
	sp_act_probe(cfg->mode);
	sp_rt_unlock(&sp_act.lock);
	return 0;
}

enum sp_act_mode sp_act_mode_now(void)
{
	return __atomic_load_n(&sp_act.mode, __ATOMIC_RELAXED);
}

/* The time a logged call was made, taken before it: a thread that lowers
 * itself to nice 19 may not run again for a long time, and a time taken
 * after its sched_setattr returned would date its restore that late (a
 * fast track that seems to outlive its lock). */
static uint64_t sp_act_log_now(void)
{
	return sp_act.log_fd < 0 ? 0 : sp_rt_now_ns(NULL);
}

static void sp_act_log(const char *what, uint64_t t, sp_tid_t tid, const struct sp_sched_attr *a,
		       int rc)
{
	char line[160];
	int n;

	if (sp_act.log_fd < 0)
		return;
	n = snprintf(line, sizeof(line),
		     "%s t=%llu pid=%d tid=%llu policy=%u prio=%u nice=%d rc=%d by=%llu\n", what,
		     (unsigned long long)t, (int)getpid(), (unsigned long long)tid,
		     a->sched_policy, a->sched_priority, a->sched_nice, rc,
		     (unsigned long long)sp_rt_self_state.tid);
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
	if (!sp_sched_policy_fair(saved->sched_policy))
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

/* @tid is a thread of this process (a process-shared mutex can name an
 * owner in another process, and tids are global) that still exists. */
static bool sp_act_ours(sp_tid_t tid)
{
	return tid == sp_rt_self_state.tid || sp_os_sys(SYS_tgkill, getpid(), (long)tid, 0, 0) == 0;
}

static void sp_act_count_rc(int rc)
{
	if (rc == -ESRCH)
		sp_act.gone++;
	else if (rc)
		sp_act.errors++;
}

/* Saves @tid's attributes and boosts it; NULL if it is gone or the table
 * is full. Lock held, no entry for @tid. */
static struct sp_act_slot *sp_act_apply(sp_tid_t tid)
{
	struct sp_sched_attr saved, boost;
	struct sp_act_slot *s;
	uint64_t t;
	int rc;

	if (!sp_act_ours(tid)) {
		sp_act.gone++;
		return NULL;
	}
	rc = sp_sched_getattr((pid_t)tid, &saved);
	if (rc) {
		sp_act_count_rc(rc);
		return NULL;
	}
	s = sp_act_find(tid, 1);
	if (!s) {
		sp_act.errors++;
		return NULL;
	}
	memset(s, 0, sizeof(*s));
	s->tid = tid;
	s->saved = saved;
	if (!sp_act_boosted_attr(&saved, &boost))
		return s; /* already as urgent: an entry, nothing to undo */
	t = sp_act_log_now();
	rc = sp_sched_setattr((pid_t)tid, &boost);
	if (rc == -EPERM && sp_act.mode == SP_ACT_FIFO) {
		sp_act_downgrade();
		if (sp_act.mode == SP_ACT_NICE && sp_act_boosted_attr(&saved, &boost))
			rc = sp_sched_setattr((pid_t)tid, &boost);
		else
			rc = 0; /* observe-only from now on: nothing set */
	}
	sp_act_log("fast_track", t, tid, &boost, rc);
	if (rc == -ESRCH) {
		sp_act.gone++;
		s->tid = SP_ACT_TOMB;
		return NULL;
	}
	sp_act_count_rc(rc);
	if (rc == 0 && sp_act.mode != SP_ACT_OBSERVE) {
		s->changed = true;
		s->set = boost;
	}
	return s;
}

enum sp_act_undo_rc { SP_UNDO_NONE, SP_UNDO_RESTORED, SP_UNDO_OVERRIDDEN };

/* The system calls of a restore: puts back @s->saved unless the thread is
 * gone or the application changed its attributes since we set them. No
 * table state is touched, so a thread lowering itself runs this unlocked. */
static enum sp_act_undo_rc sp_act_undo_calls(const struct sp_act_slot *s, int *rc_out)
{
	struct sp_sched_attr now;
	uint64_t t;
	int rc;

	*rc_out = 0;
	if (!s->changed)
		return SP_UNDO_NONE;
	rc = sp_act_ours(s->tid) ? sp_sched_getattr((pid_t)s->tid, &now) : -ESRCH;
	if (rc) {
		*rc_out = rc;
		return SP_UNDO_NONE;
	}
	if (!sp_sched_attr_same(&now, &s->set)) {
		sp_act_log("overridden", sp_act_log_now(), s->tid, &now, 0);
		return SP_UNDO_OVERRIDDEN; /* their change wins */
	}
	t = sp_act_log_now();
	*rc_out = sp_sched_setattr((pid_t)s->tid, &s->saved);
	sp_act_log("restore", t, s->tid, &s->saved, *rc_out);
	return *rc_out ? SP_UNDO_NONE : SP_UNDO_RESTORED;
}

static void sp_act_undo_count(enum sp_act_undo_rc r, int rc)
{
	if (r == SP_UNDO_OVERRIDDEN)
		sp_act.overridden++;
	sp_act_count_rc(rc);
}

/* Restores @s (another thread than the caller's) and frees it. Lock held. */
static void sp_act_undo(struct sp_act_slot *s)
{
	int rc = 0;

	sp_act_undo_count(sp_act_undo_calls(s, &rc), rc);
	s->tid = SP_ACT_TOMB;
}

/* Makes @tid boosted or not, as @want says. Lock held; the only place that
 * decides to create, change or free an entry. Returns the entry if the
 * caller's own thread must now be lowered: it does that after dropping the
 * lock (sp_act_unlock). */
static struct sp_act_slot *sp_act_sync_locked(sp_tid_t tid, bool want)
{
	struct sp_act_slot *s = sp_act_find(tid, 0);
	bool was = s && s->core_want;

	if (sp_act.exiting || sp_act.mode == SP_ACT_OBSERVE)
		want = false;
	if (!s && want)
		s = sp_act_apply(tid);
	if (s)
		s->core_want = want;
	if (s && want && !was) {
		sp_act.fast_tracks++;
		sp_act.boosted_now++;
	} else if (was && !want) {
		sp_act.restores++;
		sp_act.boosted_now--;
	}
	if (!s || want || s->lowering)
		return NULL; /* a thread lowering itself looks again when done */
	if (tid == sp_rt_self_state.tid && s->changed) {
		s->lowering = true;
		return s;
	}
	sp_act_undo(s);
	return NULL;
}

/*
 * Drops the lock, first lowering the calling thread if @self says so. A
 * thread never lowers its own priority with the lock held: a nice 19
 * thread is preempted the moment it does, and every thread that needs the
 * lock (a critical thread entering its wait, the worker) would then wait
 * for it to get a CPU again. The entry stays,
 * marked, until it is done: if the thread is wanted boosted again
 * meanwhile, it boosts itself again from what it now has.
 */
static void sp_act_unlock(struct sp_act_slot *self)
{
	struct sp_act_slot copy;
	enum sp_act_undo_rc r;
	int rc = 0;

	if (!self) {
		sp_rt_unlock(&sp_act.lock);
		return;
	}
	copy = *self;
	sp_rt_unlock(&sp_act.lock);
	r = sp_act_undo_calls(&copy, &rc);
	sp_rt_lock(&sp_act.lock);
	sp_act_undo_count(r, rc);
	self->lowering = false;
	self->tid = SP_ACT_TOMB;
	if (self->core_want) {
		/* Wanted again meanwhile (the counts already say so): boost
		 * again, saving the attributes it has now. */
		struct sp_act_slot *again = sp_act_apply(copy.tid);

		if (again) {
			again->core_want = true;
		} else {
			sp_act.restores++; /* as good as restored: keep the counts whole */
			sp_act.boosted_now--;
		}
	}
	sp_rt_unlock(&sp_act.lock);
}

static struct sp_act_slot *sp_act_reconcile_locked(struct sp_core *core, sp_tid_t tid)
{
	return sp_act_sync_locked(tid, core && sp_task_fast_tracked(core, tid) == 1);
}

void sp_act_reconcile(struct sp_core *core, sp_tid_t tid)
{
	sp_rt_lock(&sp_act.lock);
	sp_act_unlock(sp_act_reconcile_locked(core, tid));
}

bool sp_act_reconcile_try(struct sp_core *core, sp_tid_t tid)
{
	if (!sp_rt_trylock(&sp_act.lock))
		return false;
	sp_act_unlock(sp_act_reconcile_locked(core, tid));
	return true;
}

void sp_act_reconcile_all(struct sp_core *core)
{
	static sp_tid_t tids[SP_ACT_SLOTS]; /* the worker only */
	uint32_t n;

	sp_rt_lock(&sp_act.lock);
	for (uint32_t i = 0; i < SP_ACT_SLOTS; i++) {
		sp_tid_t tid = sp_act.slot[i].tid;

		/* The worker is never a lock user: nothing of its own to lower. */
		if (tid != 0 && tid != SP_ACT_TOMB)
			sp_act_reconcile_locked(core, tid);
	}
	sp_rt_unlock(&sp_act.lock);
	n = sp_rt_registry_tids(tids, SP_ACT_SLOTS);
	for (uint32_t i = 0; i < n; i++)
		sp_act_reconcile(core, tids[i]);
}

void sp_act_thread_exit(sp_tid_t tid)
{
	sp_rt_lock(&sp_act.lock);
	sp_act_unlock(sp_act_find(tid, 0) ? sp_act_sync_locked(tid, false) : NULL);
}

void sp_act_restore_all(void)
{
	struct sp_act_slot *self = NULL, *s;

	sp_rt_lock(&sp_act.lock);
	for (uint32_t i = 0; i < SP_ACT_SLOTS; i++) {
		sp_tid_t tid = sp_act.slot[i].tid;

		if (tid != 0 && tid != SP_ACT_TOMB && (s = sp_act_sync_locked(tid, false)))
			self = s;
	}
	sp_act_unlock(self);
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
	/* Not s->changed: the fork may have raced with the worker, which sets
	 * it after sched_setattr returns. The saved attributes are filled in
	 * before the boost, and are the right ones either way. */
	int had = s != NULL;

	if (had)
		saved = s->saved;
	sp_act_lock_init();
	memset(sp_act.slot, 0, sizeof(sp_act.slot));
	sp_act.boosted_now = 0;
	sp_act.log_fd = -1; /* shared with the parent; do not interleave */
	if (had)
		sp_sched_setattr((pid_t)child_tid, &saved);
}

void sp_act_set_exiting(void)
{
	sp_rt_lock(&sp_act.lock);
	sp_act.exiting = 1;
	sp_rt_unlock(&sp_act.lock);
}

int sp_act_is_boosted(sp_tid_t tid)
{
	struct sp_act_slot *s;
	int r;

	sp_rt_lock(&sp_act.lock);
	s = sp_act_find(tid, 0);
	r = s && s->core_want;
	sp_rt_unlock(&sp_act.lock);
	return r;
}

void sp_act_stats(struct sp_runtime_stats *out)
{
	sp_rt_lock(&sp_act.lock);
	out->act_fast_tracks = sp_act.fast_tracks;
	out->act_restores = sp_act.restores;
	out->act_errors = sp_act.errors;
	out->act_gone = sp_act.gone;
	out->act_overridden = sp_act.overridden;
	out->act_boosted_now = sp_act.boosted_now;
	out->mode = (uint32_t)sp_act.mode;
	sp_rt_unlock(&sp_act.lock);
}
