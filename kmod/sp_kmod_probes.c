// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tracepoint probes: lock:contention_begin/end to the detector,
 * sched_process_exit to the detector, the marks and the core,
 * sched_process_fork to the marks.
 *
 * These tracepoints are not exported, so the probes are attached by name
 * through for_each_kernel_tracepoint() + tracepoint_probe_register(). They
 * fire for every contended kernel lock, spinlocks included, with preemption
 * off and sometimes with interrupts off and a wait_lock held: the fast path
 * returns after a flag test and one or two bit tests, and nothing here
 * sleeps or allocates.
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "sp_kmod_detect.h"
#include "sp_kmod_detect_hooks.h"
#include "sp_kmod_mark.h"
#include "sp_kmod_probes.h"
#include "sp_kmod_state.h"

/* contention_begin's flags, from include/trace/events/lock.h. */
#define SP_LCB_F_SPIN   (1U << 0)
#define SP_LCB_F_READ   (1U << 1)
#define SP_LCB_F_WRITE  (1U << 2)
#define SP_LCB_F_RT     (1U << 3)
#define SP_LCB_F_PERCPU (1U << 4)
#define SP_LCB_F_MUTEX  (1U << 5)

static struct sp_probe_stats sp_probes_st;  /* racy counters */

/* Only mutexes and rwsems: other callers (spinlocks, rt_mutex,
 * percpu-rwsem, semaphores) share the tracepoint, and taking a lock here
 * for them could contend and re-enter it. */
static void sp_probe_begin(void *data, void *lock, unsigned int flags)
{
	enum sp_lock_kind kind;

	if (flags & SP_LCB_F_MUTEX) {
		if (flags & SP_LCB_F_RT)
			return;
		kind = SP_LOCK_MUTEX;
	} else if (flags & (SP_LCB_F_SPIN | SP_LCB_F_RT | SP_LCB_F_PERCPU)) {
		return;  /* spinlocks, rwlocks, rt_mutex, percpu-rwsem */
	} else if (flags & (SP_LCB_F_READ | SP_LCB_F_WRITE)) {
		kind = SP_LOCK_RWLOCK;
	} else {
		return;  /* semaphores */
	}
	if (!sp_tid_interesting(current->pid)) {
		if (kind == SP_LOCK_RWLOCK && (flags & SP_LCB_F_READ) &&
		    sp_detect_watched((unsigned long)lock))
			sp_detect_queued_reader(lock);
		return;
	}
	sp_detect_block(lock, kind, (flags & SP_LCB_F_READ) ? SP_HOLD_SHARED : SP_HOLD_EXCL);
}

static void sp_probe_end(void *data, void *lock, int ret)
{
	sp_detect_unblock(lock, ret);
}

static void sp_probe_exit(void *data, struct task_struct *p)
{
	pid_t tid = p->pid;

	if (!sp_tid_ok(tid))
		return;
	sp_detect_task_exit(p);
	sp_mark_task_exit(p);
	/* Owners and readers are known to the core without being marked, so
	 * every exit is reported; unknown tids cost one lookup. */
	if (sp_task_exit(sp_core, tid) == 0)
		sp_probes_st.exits++;
}

static void sp_probe_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	int ret = sp_mark_new_thread(child);

	if (ret < 0)
		sp_probes_st.fork_mark_errors++;
	else if (ret > 0)
		sp_probes_st.fork_marks++;
}

/* Registered in this order, unregistered in the reverse one: exit first,
 * so that a task is never left in the core by a missed exit. */
static struct sp_probe_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool on;
} sp_probe_tps[] = {
	{ "sched_process_exit", sp_probe_exit },
	{ "sched_process_fork", sp_probe_fork },
	{ "contention_end", sp_probe_end },
	{ "contention_begin", sp_probe_begin },
};

static void sp_probes_find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sp_probe_tps); i++)
		if (!strcmp(tp->name, sp_probe_tps[i].name))
			sp_probe_tps[i].tp = tp;
}

int sp_probes_init(void)
{
	unsigned int i;
	int ret;

	for_each_kernel_tracepoint(sp_probes_find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(sp_probe_tps); i++) {
		if (!sp_probe_tps[i].tp) {
			pr_err("superpass: tracepoints lock:contention_begin/end or sched_process_exit/fork not found\n");
			return -ENOENT;
		}
	}
	for (i = 0; i < ARRAY_SIZE(sp_probe_tps); i++) {
		ret = tracepoint_probe_register(sp_probe_tps[i].tp, sp_probe_tps[i].probe, NULL);
		if (ret) {
			pr_err("superpass: tracepoint_probe_register failed (%d)\n", ret);
			sp_probes_exit();
			return ret;
		}
		sp_probe_tps[i].on = true;
	}
	return 0;
}

void sp_probes_exit(void)
{
	unsigned int i;

	for (i = ARRAY_SIZE(sp_probe_tps); i-- > 0;) {
		if (sp_probe_tps[i].on)
			tracepoint_probe_unregister(sp_probe_tps[i].tp, sp_probe_tps[i].probe, NULL);
		sp_probe_tps[i].on = false;
	}
	/* No probe is running or will run after this. */
	tracepoint_synchronize_unregister();
	/* Their contention_end will never be seen. */
	sp_detect_forget_waits();
}

void sp_probes_get_stats(struct sp_probe_stats *out)
{
	*out = sp_probes_st;
}
