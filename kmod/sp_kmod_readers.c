// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reader hooks: feed the core's bounded reader tracker for watched rwsems
 * (and tell it about writers of those rwsems, see sp_wr_ret_void).
 *
 * A rwsem records only its last reader, so the readers that hold one while a
 * critical writer waits are found by watching down_read*() and up_read().
 * These run on every page fault, so each hook first compares the lock
 * address with the detector's small watch list (rwsems a critical or
 * fast-tracked task contended on) and returns. Up to 6.3 a fault takes
 * mmap_lock (down_read_trylock/down_read); from 6.4 (CONFIG_PER_VMA_LOCK,
 * on in Debian's 6.12) it takes its VMA's vm_lock, also an rwsem, through
 * down_read_trylock() and up_read() in vma_start_read/vma_end_read, and
 * mmap_lock only on a fallback. The hooks and their cost are the same on
 * both; only which rwsem a fault takes differs, so no version check here.
 *
 * down_read*() are kretprobes: the reader holds the lock only once the call
 * returns (and down_read_trylock/_killable/_interruptible may fail). Their
 * instances are preallocated at registration (maxactive); when they run out
 * the kprobe core counts a miss instead of allocating. up_read(), up_write()
 * and downgrade_write() are plain kprobes at entry. With KPROBES_ON_FTRACE
 * (Debian) all of them go through the ftrace trampoline, not int3.
 *
 * Even filtered, a hook costs a trip through the kprobe machinery on every
 * page fault, so the hooks are registered disarmed and armed only while
 * reader tracking is on and a thread is marked critical or some rwsem is
 * watched (sp_worker_readers_sync; a write that marks a thread arms them
 * before it returns, since arming takes long and a handoff it misses is a
 * long wait); the detector forgets locks no critical task contended on
 * for a few seconds. A system with no marked thread pays nothing here.
 * The detector takes hook events only while it knows the hooks are armed
 * (sp_detect_watched is false otherwise), so that an acquire it records
 * always has its release reported.
 *
 * Every hook runs at a function's entry (a kretprobe's entry handler
 * too), where regs_get_kernel_argument(regs, 0) is the lock on x86-64 and
 * arm64 alike.
 */
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>

#include "sp_kmod_detect_hooks.h"
#include "sp_kmod_readers.h"

struct sp_rd_data {
	unsigned long key;
};

static int sp_rd_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned long key = regs_get_kernel_argument(regs, 0);

	if (!sp_detect_watched(key))
		return 1;  /* no return hook for this call */
	((struct sp_rd_data *)ri->data)->key = key;
	return 0;
}

/* void down_read(): it returned, so it holds the lock. */
static int sp_rd_ret_void(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	sp_detect_reader_event(((struct sp_rd_data *)ri->data)->key, SP_RD_ACQUIRE);
	return 0;
}

/* down_read_killable/_interruptible: 0 on success. */
static int sp_rd_ret_zero_ok(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (regs_return_value(regs) == 0)
		sp_detect_reader_event(((struct sp_rd_data *)ri->data)->key, SP_RD_ACQUIRE);
	return 0;
}

/* down_read_trylock: 1 on success. */
static int sp_rd_ret_one_ok(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (regs_return_value(regs) == 1)
		sp_detect_reader_event(((struct sp_rd_data *)ri->data)->key, SP_RD_ACQUIRE);
	return 0;
}

/*
 * Writers of watched rwsems too: a waiting critical writer sees no new
 * contention event when another writer takes the lock before it (rwsem
 * lets a running writer in ahead of a sleeping one), so without this the
 * core would keep a stale owner and never fast-track the new one.
 */
static int sp_wr_ret_void(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	sp_detect_reader_event(((struct sp_rd_data *)ri->data)->key, SP_WR_ACQUIRE);
	return 0;
}

static int sp_wr_ret_zero_ok(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (regs_return_value(regs) == 0)
		sp_detect_reader_event(((struct sp_rd_data *)ri->data)->key, SP_WR_ACQUIRE);
	return 0;
}

static int sp_wr_ret_one_ok(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (regs_return_value(regs) == 1)
		sp_detect_reader_event(((struct sp_rd_data *)ri->data)->key, SP_WR_ACQUIRE);
	return 0;
}

static int sp_hook_at_entry(struct pt_regs *regs, enum sp_reader_op op)
{
	unsigned long key = regs_get_kernel_argument(regs, 0);

	if (sp_detect_watched(key))
		sp_detect_reader_event(key, op);
	return 0;
}

/* A release of a lock a reported task waits on also names the waiter it
 * wakes (sp_detect_release): at nice 19 it may not run for long, and
 * until its down_write() returns nothing else tells who holds the lock. */
static int sp_release_at_entry(struct pt_regs *regs, enum sp_reader_op op)
{
	unsigned long key = regs_get_kernel_argument(regs, 0);

	if (!sp_detect_watched(key))
		return 0;
	sp_detect_reader_event(key, op);
	if (sp_detect_waited(key))
		sp_detect_release((void *)key, SP_LOCK_RWLOCK);
	return 0;
}

static int sp_up_read_pre(struct kprobe *p, struct pt_regs *regs)
{
	return sp_release_at_entry(regs, SP_RD_RELEASE);
}

static int sp_up_write_pre(struct kprobe *p, struct pt_regs *regs)
{
	return sp_release_at_entry(regs, SP_WR_RELEASE);
}

static int sp_downgrade_pre(struct kprobe *p, struct pt_regs *regs)
{
	return sp_hook_at_entry(regs, SP_WR_DOWNGRADE);
}

#define SP_KRP(sym, ret) {						\
	.kp.symbol_name = sym,						\
	.kp.flags = KPROBE_FLAG_DISABLED,				\
	.entry_handler = sp_rd_entry,					\
	.handler = ret,							\
	.data_size = sizeof(struct sp_rd_data),				\
	.maxactive = 64,						\
}

static struct kretprobe sp_krps[] = {
	SP_KRP("down_read", sp_rd_ret_void),
	SP_KRP("down_read_killable", sp_rd_ret_zero_ok),
	SP_KRP("down_read_interruptible", sp_rd_ret_zero_ok),
	SP_KRP("down_read_trylock", sp_rd_ret_one_ok),
	SP_KRP("down_write", sp_wr_ret_void),
	SP_KRP("down_write_killable", sp_wr_ret_zero_ok),
	SP_KRP("down_write_trylock", sp_wr_ret_one_ok),
};

static struct kprobe sp_kps[] = {
	{ .symbol_name = "up_read", .pre_handler = sp_up_read_pre,
	  .flags = KPROBE_FLAG_DISABLED },
	{ .symbol_name = "up_write", .pre_handler = sp_up_write_pre,
	  .flags = KPROBE_FLAG_DISABLED },
	{ .symbol_name = "downgrade_write", .pre_handler = sp_downgrade_pre,
	  .flags = KPROBE_FLAG_DISABLED },
};

static bool sp_krp_on[ARRAY_SIZE(sp_krps)];
static bool sp_kp_on[ARRAY_SIZE(sp_kps)];

/* Serialises arming (worker thread) against registration and exit. */
static DEFINE_MUTEX(sp_rd_mutex);
static bool sp_rd_registered, sp_rd_armed;
static u64 sp_rd_arms;

static void sp_readers_set_locked(bool on)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sp_krps); i++)
		if (sp_krp_on[i])
			on ? enable_kretprobe(&sp_krps[i]) : disable_kretprobe(&sp_krps[i]);
	for (i = 0; i < ARRAY_SIZE(sp_kps); i++)
		if (sp_kp_on[i])
			on ? enable_kprobe(&sp_kps[i]) : disable_kprobe(&sp_kps[i]);
	sp_rd_armed = on;
	if (on)
		sp_rd_arms++;
}

/* Sleeps (kprobe_mutex, text patching): the worker's arm work only.
 * Returns whether the hooks are armed now. */
bool sp_readers_arm(bool on)
{
	bool armed;

	mutex_lock(&sp_rd_mutex);
	if (sp_rd_registered && on != sp_rd_armed)
		sp_readers_set_locked(on);
	armed = sp_rd_armed;
	mutex_unlock(&sp_rd_mutex);
	return armed;
}

void sp_readers_state(bool *armed, u64 *arms)
{
	*armed = READ_ONCE(sp_rd_armed);
	*arms = READ_ONCE(sp_rd_arms);
}

int sp_readers_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(sp_krps); i++) {
		ret = register_kretprobe(&sp_krps[i]);
		if (ret) {
			pr_err("superpass: kretprobe on %s failed (%d)\n",
			       sp_krps[i].kp.symbol_name, ret);
			goto err;
		}
		sp_krp_on[i] = true;
	}
	for (i = 0; i < ARRAY_SIZE(sp_kps); i++) {
		ret = register_kprobe(&sp_kps[i]);
		if (ret) {
			pr_err("superpass: kprobe on %s failed (%d)\n",
			       sp_kps[i].symbol_name, ret);
			goto err;
		}
		sp_kp_on[i] = true;
	}
	mutex_lock(&sp_rd_mutex);
	sp_rd_registered = true;
	mutex_unlock(&sp_rd_mutex);
	return 0;
err:
	sp_readers_exit();
	return ret;
}

void sp_readers_exit(void)
{
	unsigned int i;

	mutex_lock(&sp_rd_mutex);
	sp_rd_registered = false;
	sp_rd_armed = false;
	mutex_unlock(&sp_rd_mutex);
	/* Unregistering waits for running handlers (synchronize_rcu inside). */
	for (i = 0; i < ARRAY_SIZE(sp_kps); i++) {
		if (sp_kp_on[i])
			unregister_kprobe(&sp_kps[i]);
		sp_kp_on[i] = false;
	}
	for (i = 0; i < ARRAY_SIZE(sp_krps); i++) {
		if (sp_krp_on[i])
			unregister_kretprobe(&sp_krps[i]);
		sp_krp_on[i] = false;
	}
}

u64 sp_readers_missed(void)
{
	u64 n = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sp_krps); i++)
		n += READ_ONCE(sp_krps[i].nmissed);
	for (i = 0; i < ARRAY_SIZE(sp_kps); i++)
		n += READ_ONCE(sp_kps[i].nmissed);
	return n;
}
