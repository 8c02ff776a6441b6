// SPDX-License-Identifier: GPL-2.0-only
/*
 * sp_probe_cost.ko: a controlled contention loop, to read what superpass.ko
 * costs per contention event (docs/kmod.md, docs/results/kmod-qemu.md).
 * A measuring module: built by tests/kmod/run-qemu-test.sh and loaded only
 * in its QEMU guest (tests/kmod/guest-init.sh), never installed.
 *
 * Two kthreads bound to one CPU take turns on one lock, a struct mutex or
 * an rw_semaphore taken for writing. Each iteration takes the lock, yields
 * while holding it (the other thread runs into the held lock and sleeps on
 * it), releases it (the slow path: it has a waiter, which it wakes) and
 * yields again (the woken thread takes the lock before this one can take
 * it back). So after the first, every acquisition is contended, the same
 * way each time: on one CPU the owner is never running while the other
 * tries, so there is no optimistic spinning, and every contended
 * acquisition is contention_begin (twice for a mutex: before the spin and
 * before the sleep), a sleep, a wakeup by a slow-path release (the mutex
 * unlock slow path, or up_write with waiters: both probed by superpass.ko)
 * and contention_end. A trylock first tells contended from not; the count
 * is reported, not assumed.
 *
 * /proc/sp_probe_cost
 *   read   "tids A B", then the last run: "kind K iters N ns E contended C"
 *          (N per thread, E from the start until both threads are done)
 *   write  "mutex N" or "rwsem N" (1 <= N <= 1000000): runs it; the write
 *          returns when both threads are done
 */
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#define SP_PC_THREADS 2
#define SP_PC_MAX_ITERS 1000000u

enum sp_pc_kind { SP_PC_MUTEX, SP_PC_RWSEM };

static struct {
	struct mutex run_lock;       /* one run at a time; held by the writer */
	struct mutex mutex;          /* the contended locks */
	struct rw_semaphore rwsem;
	wait_queue_head_t start_wq, done_wq;
	unsigned int gen;            /* a new run: bumped under run_lock */
	unsigned int done;           /* threads finished with this run */
	enum sp_pc_kind kind;
	unsigned int iters;
	u64 start_ns, end_ns;
	unsigned int contended[SP_PC_THREADS];
	struct task_struct *task[SP_PC_THREADS];
	bool ran;
	struct proc_dir_entry *proc;
} sp_pc;

static bool sp_pc_take(void)
{
	if (sp_pc.kind == SP_PC_MUTEX) {
		if (mutex_trylock(&sp_pc.mutex))
			return false;
		mutex_lock(&sp_pc.mutex);
	} else {
		if (down_write_trylock(&sp_pc.rwsem))
			return false;
		down_write(&sp_pc.rwsem);
	}
	return true;
}

static void sp_pc_give(void)
{
	if (sp_pc.kind == SP_PC_MUTEX)
		mutex_unlock(&sp_pc.mutex);
	else
		up_write(&sp_pc.rwsem);
}

static int sp_pc_thread(void *arg)
{
	unsigned int me = (unsigned int)(unsigned long)arg, seen = 0, i, n;
	u64 end;

	for (;;) {
		/* Acquire: pairs with the writer's release of gen, which
		 * publishes kind and iters. */
		wait_event_interruptible(sp_pc.start_wq,
					 smp_load_acquire(&sp_pc.gen) != seen || kthread_should_stop());
		if (kthread_should_stop())
			return 0;
		seen = smp_load_acquire(&sp_pc.gen);
		n = 0;
		for (i = 0; i < sp_pc.iters; i++) {
			n += sp_pc_take();
			yield();  /* holding it: the other thread runs into it */
			sp_pc_give();
			yield();  /* the woken thread takes it now */
		}
		end = ktime_get_ns();
		sp_pc.contended[me] = n;
		/* The later end wins. Release: pairs with the writer's
		 * acquire of done, so that it reads contended and end_ns
		 * as stored here. */
		spin_lock_irq(&sp_pc.done_wq.lock);
		if (end > sp_pc.end_ns)
			sp_pc.end_ns = end;
		smp_store_release(&sp_pc.done, sp_pc.done + 1);
		wake_up_locked(&sp_pc.done_wq);
		spin_unlock_irq(&sp_pc.done_wq.lock);
	}
}

static int sp_pc_show(struct seq_file *m, void *v)
{
	mutex_lock(&sp_pc.run_lock);
	seq_printf(m, "tids %d %d\n", sp_pc.task[0]->pid, sp_pc.task[1]->pid);
	if (sp_pc.ran)
		seq_printf(m, "kind %s iters %u ns %llu contended %u\n",
			   sp_pc.kind == SP_PC_MUTEX ? "mutex" : "rwsem", sp_pc.iters,
			   sp_pc.end_ns - sp_pc.start_ns,
			   sp_pc.contended[0] + sp_pc.contended[1]);
	mutex_unlock(&sp_pc.run_lock);
	return 0;
}

static int sp_pc_open(struct inode *inode, struct file *file)
{
	return single_open(file, sp_pc_show, NULL);
}

static ssize_t sp_pc_write(struct file *file, const char __user *ubuf, size_t len, loff_t *pos)
{
	char buf[32], kind[8];
	unsigned int iters;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%7s %u", kind, &iters) != 2 || !iters || iters > SP_PC_MAX_ITERS ||
	    (strcmp(kind, "mutex") && strcmp(kind, "rwsem"))) {
		pr_warn("sp_probe_cost: expected \"mutex N\" or \"rwsem N\" (1..%u)\n",
			SP_PC_MAX_ITERS);
		return -EINVAL;
	}
	if (mutex_lock_interruptible(&sp_pc.run_lock))
		return -EINTR;
	sp_pc.kind = strcmp(kind, "mutex") ? SP_PC_RWSEM : SP_PC_MUTEX;
	sp_pc.iters = iters;
	sp_pc.done = 0;
	sp_pc.end_ns = 0;
	sp_pc.start_ns = ktime_get_ns();
	/* Release: pairs with the threads' acquire of gen. */
	smp_store_release(&sp_pc.gen, sp_pc.gen + 1);
	wake_up_all(&sp_pc.start_wq);
	/* Uninterruptible: the threads use the run's fields until done. */
	wait_event(sp_pc.done_wq, smp_load_acquire(&sp_pc.done) == SP_PC_THREADS);
	sp_pc.ran = true;
	mutex_unlock(&sp_pc.run_lock);
	return (ssize_t)len;
}

static const struct proc_ops sp_pc_ops = {
	.proc_open = sp_pc_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
	.proc_write = sp_pc_write,
};

static void sp_pc_stop(void)
{
	unsigned int i;

	for (i = 0; i < SP_PC_THREADS; i++)
		if (sp_pc.task[i])
			kthread_stop(sp_pc.task[i]);
}

static int __init sp_pc_init(void)
{
	unsigned int i;

	mutex_init(&sp_pc.run_lock);
	mutex_init(&sp_pc.mutex);
	init_rwsem(&sp_pc.rwsem);
	init_waitqueue_head(&sp_pc.start_wq);
	init_waitqueue_head(&sp_pc.done_wq);
	for (i = 0; i < SP_PC_THREADS; i++) {
		struct task_struct *t = kthread_create(sp_pc_thread, (void *)(unsigned long)i,
						       "sp-pcost/%u", i);

		if (IS_ERR(t)) {
			sp_pc_stop();
			return PTR_ERR(t);
		}
		/* One CPU for both: the owner is never running while the
		 * other tries, so each contended acquisition sleeps. */
		kthread_bind(t, cpumask_first(cpu_online_mask));
		sp_pc.task[i] = t;
		wake_up_process(t);
	}
	sp_pc.proc = proc_create("sp_probe_cost", 0600, NULL, &sp_pc_ops);
	if (!sp_pc.proc) {
		sp_pc_stop();
		return -ENOMEM;
	}
	return 0;
}

static void __exit sp_pc_exit(void)
{
	proc_remove(sp_pc.proc);
	sp_pc_stop();
}

module_init(sp_pc_init);
module_exit(sp_pc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("superpass test: a controlled mutex/rwsem contention loop (probe cost)");
