// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/superpass/{critical,stats,config}: the user interface.
 *
 *   critical  write "TID" to mark a thread, "-TID" to unmark it. If TID is a
 *             process (thread-group leader), all of its current threads are
 *             (un)marked, and the threads it creates later are marked too
 *             until it is unmarked (the fork probe, sp_kmod_mark.c).
 *             A mark is done whole or not at all, and refused with nothing
 *             marked: -ESRCH for a tid that does not exist, -EINVAL for a
 *             kernel thread or init (pid 1 of the initial pid namespace)
 *             unless the module was loaded with allow_kthreads=1, -E2BIG
 *             for a process of more than SP_MARK_MAX (256) threads, -ENOSPC
 *             when the core's task table (max_tasks) cannot take them all.
 *             Unmarking is never refused for size.
 *             Read: one marked tid per line. Exited tids are dropped by the
 *             exit probe.
 *   stats     every counter of the core (include/superpass/stats.h, same
 *             names and order), the blocking percentiles of critical
 *             threads, the counters of the detector, the reader hooks, the
 *             actuator and the worker, and the last few blockings over
 *             50 ms with what the core knew at their end.
 *   config    "key value" lines. max_tasks, depth, readers_k, budget_ms,
 *             throttle_permille and allow_kthreads are load-time module
 *             parameters (read-only here); fifo_prio and reader_tracking
 *             can be written ("fifo_prio 10").
 *
 * Each write() to critical or config is one whole line ending in a
 * newline ("1234\n", what echo writes): a write without one, or with more
 * than one line, is refused with -EINVAL and does nothing, so that a
 * number split over two writes is never taken as two numbers, and lines
 * buffered into one write are never half done.
 *
 * Writes need CAP_SYS_NICE in the initial user namespace: marking a thread
 * gives other threads FIFO time, which no user namespace's root may hand
 * out. Numbers are in the writer's pid namespace.
 *
 * Reads are open to everyone, but a tid is shown only to a reader who
 * could write (CAP_SYS_NICE) or whose real uid owns that thread, and as
 * the number the reader's pid namespace gives it; anyone else reads "-".
 * Which threads another user marked critical, and how long they waited
 * for which holder, say what that user's program does and when (a timing
 * side channel), and on a system that mounts /proc with hidepid= the
 * tids themselves are hidden. The counters and percentiles are totals
 * over every user, like /proc/schedstat: they stay readable.
 */
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/proc_fs.h>
#include <linux/pid_namespace.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/cred.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

#include "sp_kmod_act.h"
#include "sp_kmod_detect_tables.h"
#include "sp_kmod_futex.h"
#include "sp_kmod_host.h"
#include "sp_kmod_mark.h"
#include "sp_kmod_params.h"
#include "sp_kmod_probes.h"
#include "sp_kmod_proc.h"
#include "sp_kmod_readers.h"
#include "sp_kmod_state.h"
#include "sp_kmod_unlock.h"
#include "sp_kmod_worker.h"

static struct proc_dir_entry *sp_proc_dir;

/* What the reader of @file may see of global @tid (see the top): the
 * number in the reader's pid namespace, or 0. */
static pid_t sp_proc_tid_for_reader(struct seq_file *m, pid_t tid)
{
	const struct cred *cred = m->file->f_cred;
	bool priv = file_ns_capable(m->file, &init_user_ns, CAP_SYS_NICE);
	struct task_struct *t;
	pid_t nr = 0;

	if (!sp_tid_ok(tid))
		return 0;
	rcu_read_lock();
	t = pid_task(find_pid_ns(tid, &init_pid_ns), PIDTYPE_PID);
	if (t && (priv || uid_eq(task_uid(t), cred->uid)))
		nr = task_pid_nr_ns(t, task_active_pid_ns(current));
	else if (!t && priv && task_active_pid_ns(current) == &init_pid_ns)
		nr = tid;  /* gone: only the initial namespace had its number */
	rcu_read_unlock();
	return nr;
}

static void sp_proc_print_tid(struct seq_file *m, pid_t tid)
{
	pid_t nr = sp_proc_tid_for_reader(m, tid);

	if (nr)
		seq_printf(m, "%d", nr);
	else
		seq_puts(m, "-");
}

/* Copies one whole line (see the top) into @buf, NUL-terminated. */
static ssize_t sp_proc_read_input(struct file *file, const char __user *ubuf,
				  size_t len, char *buf, size_t cap, const char *name)
{
	char *nl;

	/* Both the opener and the writer: an fd handed to a privileged
	 * process must not let an unprivileged opener mark threads. */
	if (!file_ns_capable(file, &init_user_ns, CAP_SYS_NICE) || !capable(CAP_SYS_NICE))
		return -EPERM;
	if (len == 0 || len >= cap) {
		pr_warn("superpass: /proc/superpass write of %zu bytes rejected (1..%zu)\n",
			len, cap - 1);
		return -EINVAL;
	}
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	nl = memchr(buf, '\n', len);
	if (!nl || nl != buf + len - 1 || strlen(buf) != len) {
		pr_warn("superpass: %s: a write must be one line ending in a newline (got %zu bytes, %s)\n",
			name, len, !nl ? "no newline" : strlen(buf) != len ? "a NUL byte" :
			"more than one line");
		return -EINVAL;
	}
	*nl = '\0';
	return len;
}

/* ---- critical ---- */

static ssize_t sp_critical_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	char buf[32], *s;
	bool on = true;
	ssize_t ret;
	int nr;

	ret = sp_proc_read_input(file, ubuf, len, buf, sizeof(buf), "critical");
	if (ret < 0)
		return ret;
	s = strim(buf);
	if (*s == '-') {
		on = false;
		s++;
	}
	if (kstrtoint(s, 10, &nr) || nr <= 0) {
		pr_warn("superpass: critical: expected TID or -TID, got \"%s\"\n", strim(buf));
		return -EINVAL;
	}
	ret = sp_mark_request(nr, on);
	if (ret)
		return ret;
	/* Before the marked thread takes its first lock (sleeps). */
	if (on && sp_param_readers)
		sp_worker_readers_sync();
	if (on) {
		sp_futex_sync();
		sp_futex_watch(nr);
	}
	return len;
}

static int sp_critical_show(struct seq_file *m, void *v)
{
	unsigned long tid;

	for_each_set_bit(tid, sp_critical_map, SP_TID_LIMIT) {
		pid_t nr = sp_proc_tid_for_reader(m, tid);

		/* Not even a "-": how many others marked is theirs too. */
		if (nr)
			seq_printf(m, "%d\n", nr);
		cond_resched();
	}
	return 0;
}

static int sp_critical_open(struct inode *inode, struct file *file)
{
	return single_open(file, sp_critical_show, NULL);
}

static const struct proc_ops sp_critical_ops = {
	.proc_open = sp_critical_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
	.proc_write = sp_critical_write,
};

/* ---- stats ---- */

/* Every core statistic, in the order and with the names of
 * include/superpass/stats.h: none can be missing here. */
static void sp_stats_core(struct seq_file *m, const struct sp_stats *s)
{
#define SP_PROC_STAT(name, kind, help) \
	seq_printf(m, #name " %llu\n", (unsigned long long)s->name);
	SP_STATS_FIELDS(SP_PROC_STAT)
#undef SP_PROC_STAT
}

static int sp_stats_show(struct seq_file *m, void *v)
{
	struct sp_long_blocking longs[SP_DET_LONGS];
	unsigned int i, nr_longs;
	struct sp_host_queue_stats q;
	struct sp_worker_stats w;
	struct sp_detect_stats d;
	struct sp_probe_stats p;
	struct sp_futex_stats fx;
	struct sp_act_stats a;
	struct sp_stats s;
	struct sp_hist *h;
	bool armed;
	u64 arms;

	h = kvmalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	sp_core_stats(sp_core, &s);
	sp_core_blocking_hist(sp_core, h);
	sp_detect_get_stats(&d);
	sp_probes_get_stats(&p);
	sp_act_get_stats(&a);
	sp_worker_get_stats(&w);
	sp_host_get_queue_stats(&q);
	sp_futex_get_stats(&fx);

	sp_stats_core(m, &s);
	seq_printf(m, "blocking_p50_ns %llu\n", sp_hist_quantile(h, 50, 100));
	seq_printf(m, "blocking_p99_ns %llu\n", sp_hist_quantile(h, 99, 100));
	seq_printf(m, "blocking_p999_ns %llu\n", sp_hist_quantile(h, 999, 1000));
	seq_printf(m, "blocking_max_ns %llu\n", h->count ? h->max : 0);
	seq_printf(m, "detect_blocks %llu\n", d.blocks);
	seq_printf(m, "detect_unblocks %llu\n", d.unblocks);
	seq_printf(m, "detect_rereports %llu\n", d.rereports);
	seq_printf(m, "detect_no_owner %llu\n", d.no_owner);
	seq_printf(m, "detect_lock_evictions %llu\n", d.lock_evictions);
	seq_printf(m, "detect_lock_expiries %llu\n", d.lock_expiries);
	seq_printf(m, "detect_waiter_full %llu\n", d.waiter_full);
	seq_printf(m, "detect_reader_events %llu\n", d.reader_events);
	seq_printf(m, "detect_reader_hints %llu\n", d.reader_hints);
	seq_printf(m, "detect_hidden_readers %llu\n", d.hidden_readers);
	seq_printf(m, "detect_exits %llu\n", p.exits);
	seq_printf(m, "detect_unlocks %llu\n", d.unlocks);
	seq_printf(m, "detect_unlock_hints %llu\n", d.unlock_hints);
	seq_printf(m, "detect_unlock_busy %llu\n", d.unlock_busy);
	seq_printf(m, "unlock_hook %d\n", sp_unlock_registered());
	seq_printf(m, "unlock_hook_misses %llu\n", sp_unlock_missed());
	seq_printf(m, "detect_fork_marks %llu\n", p.fork_marks);
	seq_printf(m, "detect_fork_mark_errors %llu\n", p.fork_mark_errors);
	sp_readers_state(&armed, &arms);
	seq_printf(m, "reader_hooks_armed %d\n", sp_param_readers && armed);
	seq_printf(m, "reader_hook_arms %llu\n", arms);
	seq_printf(m, "reader_hook_misses %llu\n", sp_param_readers ? sp_readers_missed() : 0);
	seq_printf(m, "futex_hook %d\n", sp_futex_registered());
	seq_printf(m, "futex_hook_armed %d\n", sp_futex_armed());
	seq_printf(m, "futex_waits %llu\n", fx.waits);
	seq_printf(m, "futex_pi_waits %llu\n", fx.pi_waits);
	seq_printf(m, "futex_wait_ends %llu\n", fx.wait_ends);
	seq_printf(m, "futex_timeouts %llu\n", fx.timeouts);
	seq_printf(m, "futex_other_waits %llu\n", fx.other_waits);
	seq_printf(m, "futex_candidates %llu\n", fx.candidates);
	seq_printf(m, "futex_wakes %llu\n", fx.wakes);
	seq_printf(m, "futex_words_learned %llu\n", fx.words_learned);
	seq_printf(m, "futex_spaces_evicted %llu\n", fx.spaces_evicted);
	seq_printf(m, "futex_high_addrs %llu\n", fx.high_addrs);
	seq_printf(m, "futex_hook_misses %llu\n", fx.missed);
	seq_printf(m, "act_boosts %llu\n", a.boosts);
	seq_printf(m, "act_restores %llu\n", a.restores);
	seq_printf(m, "act_active %llu\n", a.active);
	seq_printf(m, "act_skipped %llu\n", a.skipped);
	seq_printf(m, "act_errors %llu\n", a.errors);
	seq_printf(m, "act_rescans %llu\n", a.rescans);
	seq_printf(m, "worker_ticks %llu\n", w.ticks);
	seq_printf(m, "worker_wakeups %llu\n", w.wakeups);
	seq_printf(m, "worker_reclaimed %llu\n", w.reclaimed);
	seq_printf(m, "queue_pushes %llu\n", q.pushes);
	seq_printf(m, "queue_dups %llu\n", q.dups);
	seq_printf(m, "queue_overflows %llu\n", q.overflows);
	sp_detect_get_longs(longs, &nr_longs);
	for (i = 0; i < nr_longs; i++) {
		seq_puts(m, "long_blocking tid ");
		sp_proc_print_tid(m, longs[i].tid);
		seq_printf(m, " ms %llu %s owner ", longs[i].ms, longs[i].rwsem ? "rwsem" : "mutex");
		sp_proc_print_tid(m, (pid_t)longs[i].owner);
		seq_printf(m, " readers_tracked %u untracked %u readers_now %lu\n",
			   longs[i].tracked, longs[i].untracked, longs[i].readers_now);
	}
	kvfree(h);
	return 0;
}

static int sp_stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, sp_stats_show, NULL);
}

/* Read-only (0444), but the root of a user namespace that maps uid 0
 * passes the open for writing (CAP_DAC_OVERRIDE over an inode whose
 * owner it maps): refuse with EPERM like the other files, not the EIO of
 * a missing handler. */
static ssize_t sp_stats_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	return -EPERM;
}

static const struct proc_ops sp_stats_ops = {
	.proc_open = sp_stats_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
	.proc_write = sp_stats_write,
};

/* ---- config ---- */

static int sp_config_show(struct seq_file *m, void *v)
{
	seq_printf(m, "max_tasks %u\n", sp_param_max_tasks);
	seq_printf(m, "depth %u\n", sp_param_depth);
	seq_printf(m, "readers_k %u\n", sp_param_readers_k);
	seq_printf(m, "budget_ms %u\n", sp_param_budget_ms);
	seq_printf(m, "throttle_permille %u\n", sp_param_throttle_permille);
	seq_printf(m, "fifo_prio %u\n", READ_ONCE(sp_fifo_prio));
	seq_printf(m, "reader_tracking %d\n", sp_param_readers && READ_ONCE(sp_readers_on));
	seq_printf(m, "allow_kthreads %d\n", sp_param_allow_kthreads);
	return 0;
}

static ssize_t sp_config_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	char buf[64], *s, *key;
	unsigned int val;
	ssize_t ret;

	ret = sp_proc_read_input(file, ubuf, len, buf, sizeof(buf), "config");
	if (ret < 0)
		return ret;
	s = strim(buf);
	key = strsep(&s, " \t=");
	if (!s || kstrtouint(strim(s), 10, &val)) {
		pr_warn("superpass: config: expected \"KEY VALUE\", got \"%s\"\n", key);
		return -EINVAL;
	}
	if (!strcmp(key, "fifo_prio")) {
		if (val < 1 || val > 98) {
			pr_warn("superpass: config: fifo_prio %u out of range 1..98\n", val);
			return -EINVAL;
		}
		/* New boosts use it; the kthread moves itself to val + 1. */
		WRITE_ONCE(sp_fifo_prio, val);
	} else if (!strcmp(key, "reader_tracking")) {
		if (val > 1 || (val && !sp_param_readers)) {
			pr_warn("superpass: config: reader_tracking takes 0 or 1 (1 needs the module loaded with readers=1)\n");
			return -EINVAL;
		}
		WRITE_ONCE(sp_readers_on, val);
		sp_host_kick();  /* the worker arms or disarms the hooks */
	} else if (!strcmp(key, "max_tasks") || !strcmp(key, "depth") ||
		   !strcmp(key, "readers_k") || !strcmp(key, "budget_ms") ||
		   !strcmp(key, "throttle_permille") || !strcmp(key, "allow_kthreads")) {
		pr_warn("superpass: config: %s is fixed at load time (insmod superpass.ko %s=N)\n",
			key, key);
		return -EINVAL;
	} else {
		pr_warn("superpass: config: unknown key \"%s\"\n", key);
		return -EINVAL;
	}
	return len;
}

static int sp_config_open(struct inode *inode, struct file *file)
{
	return single_open(file, sp_config_show, NULL);
}

static const struct proc_ops sp_config_ops = {
	.proc_open = sp_config_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
	.proc_write = sp_config_write,
};

int sp_proc_init(void)
{
	sp_proc_dir = proc_mkdir("superpass", NULL);
	if (!sp_proc_dir)
		return -ENOMEM;
	/* World-writable on purpose: the gate is CAP_SYS_NICE, checked on
	 * every write, not uid 0. */
	if (!proc_create("critical", 0666, sp_proc_dir, &sp_critical_ops) ||
	    !proc_create("stats", 0444, sp_proc_dir, &sp_stats_ops) ||
	    !proc_create("config", 0666, sp_proc_dir, &sp_config_ops)) {
		proc_remove(sp_proc_dir);
		sp_proc_dir = NULL;
		return -ENOMEM;
	}
	return 0;
}

void sp_proc_exit(void)
{
	/* Waits for open readers and writers to finish. */
	proc_remove(sp_proc_dir);
	sp_proc_dir = NULL;
}
