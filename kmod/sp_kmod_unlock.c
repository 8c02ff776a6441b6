// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mutex release hook. mutex_unlock() emits no event, so without this the
 * detector learns that a watched mutex changed hands only when a reported
 * waiter takes it (contention_end) or when the worker reads the owner word
 * again (every tick, 1 ms). Meanwhile the old holder keeps its fast track,
 * and the waiter the unlock wakes, often another low-priority task that
 * must get a CPU before it can take the lock, has none: the tail of the
 * critical thread's wait.
 *
 * __mutex_unlock_slowpath() runs only when the lock has waiters (the
 * WAITERS flag is set while any task sleeps on it), so an uncontended
 * release costs nothing and every release of a mutex a reported task
 * waits on comes here. It is a noinline static function in
 * kernel/locking/mutex.c, probed by name: GCC's specialised copy in
 * Debian's 6.1 and 6.12 is "__mutex_unlock_slowpath.constprop.0" (their
 * /proc/kallsyms), so the names below are tried in turn. The mutex stays
 * its first argument, regs_get_kernel_argument(regs, 0) on x86-64 and
 * arm64; the handler compares it with the detector's watched mutexes
 * before anything else, so a pointer that is not one is ignored.
 */
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/string.h>

#include "sp_kmod_detect_hooks.h"
#include "sp_kmod_unlock.h"

static int sp_unlock_pre(struct kprobe *p, struct pt_regs *regs)
{
	void *lock = (void *)regs_get_kernel_argument(regs, 0);

	if (sp_detect_waited((unsigned long)lock))
		sp_detect_release(lock, SP_LOCK_MUTEX);
	return 0;
}

static const char *const sp_unlock_names[] = {
	"__mutex_unlock_slowpath",
	"__mutex_unlock_slowpath.constprop.0",
	"__mutex_unlock_slowpath.isra.0",
};
static struct kprobe sp_unlock_kp;
static bool sp_unlock_on;

int sp_unlock_init(void)
{
	unsigned int i;
	int ret = -ENOENT;

	for (i = 0; i < ARRAY_SIZE(sp_unlock_names); i++) {
		/* A failed registration may leave fields set: start clean. */
		memset(&sp_unlock_kp, 0, sizeof(sp_unlock_kp));
		sp_unlock_kp.symbol_name = sp_unlock_names[i];
		sp_unlock_kp.pre_handler = sp_unlock_pre;
		ret = register_kprobe(&sp_unlock_kp);
		if (ret != -ENOENT && ret != -EINVAL)
			break;
	}
	if (ret) {
		pr_warn("superpass: kprobe on __mutex_unlock_slowpath failed (%d): mutex releases seen at the next tick only\n",
			ret);
		return ret;
	}
	sp_unlock_on = true;
	return 0;
}

void sp_unlock_exit(void)
{
	/* Waits for running handlers. */
	if (sp_unlock_on)
		unregister_kprobe(&sp_unlock_kp);
	sp_unlock_on = false;
}

bool sp_unlock_registered(void)
{
	return sp_unlock_on;
}

u64 sp_unlock_missed(void)
{
	return sp_unlock_on ? READ_ONCE(sp_unlock_kp.nmissed) : 0;
}
