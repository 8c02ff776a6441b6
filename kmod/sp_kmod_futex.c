// SPDX-License-Identifier: GPL-2.0-only
/*
 * Futex waits and wakes seen in the kernel, as the core's SP_LOCK_FUTEX
 * events: the same events the userspace interposer sends from libc's
 * syscall() (lib/hosts/runtime/sp_instr_futex.c), here for every program,
 * LD_PRELOAD or not (static binaries, Go's raw system calls, glibc-internal
 * waits such as sem_wait, bionic and ART on Android):
 *   - a FUTEX_WAIT/WAIT_BITSET of an interesting task (critical, or
 *     fast-tracked for one: its wait extends a chain) is a block on the
 *     word, an SP_LOCK_FUTEX lock; its return an unblock, acquired unless
 *     it timed out or was interrupted (woken, or the word changed before it
 *     slept: either way it goes back to take the word);
 *   - any other task's wait on a word the core knows (a lookup in its lock
 *     table) is a block too, so that the core never fast-tracks a waiter of
 *     the word as its holder; any task back from a wait on a known word is
 *     a candidate holder (an unblock or an acquire on a futex lock);
 *   - any task's FUTEX_WAKE/WAKE_BITSET of a word in a watched address
 *     space (below) is a release: the word is free, every grant on it
 *     ends, the waker is a candidate. A word the core does not know yet
 *     becomes known (SP_LOCK_FUTEX) at such a wake: the holders of a lock
 *     that contend among themselves are then candidates before the
 *     critical task first waits for it, and that first wait is helped too;
 *   - LOCK_PI/LOCK_PI2 of an interesting task: a block whose owner is the
 *     word's tid, exactly (read with copy_from_user_nofault, which never
 *     faults a page in, and turned from the caller's pid namespace into a
 *     global tid); UNLOCK_PI of a known word is its release.
 *
 * Watched address spaces: those of threads marked critical (from the
 * marking write on, sp_futex_watch) and those in which an interesting task
 * waited, at most SP_FX_SPACES at once. Futex calls of other processes
 * stop at the space lookup.
 *
 * One hook, a kretprobe on do_futex() (its op decides; 6.1 and 6.12, amd64
 * and arm64, both have it as a global function; the individual futex_wait()
 * and futex_wake() exist too, but one hook costs one trip, not two). Not
 * seen: futex_waitv(), and a FUTEX_WAIT restarted after a signal with a
 * timeout (restart_syscall goes to futex_wait_restart, not do_futex): that
 * wait's first part was reported and ended as interrupted.
 *
 * The cost on every futex call of every task: the hook is disarmed while
 * no thread is marked critical (sp_futex_sync), so a system that marks
 * nothing pays nothing. Armed, a call that is no wait or wake returns after
 * the op test; a call from an address space not watched returns after a
 * compare of a few slots; only then is the core's lock table looked at.
 * The entry handler asks for a return hook (a preallocated kretprobe
 * instance, never an allocation) only for a wait in a watched space.
 *
 * The key. A futex word is per address space (a private futex is keyed by
 * mm and address in the kernel too), and the core's keys are 64 bits and
 * shared with kernel locks, whose keys are kernel addresses (bit 63 set on
 * amd64 and arm64). A futex key is (id << 48) | address: the address of the
 * word in its address space (below 2^48: 4-level paging on amd64, 48-bit
 * VA on Debian's arm64; a word above that, only possible with 5-level
 * paging, is ignored and counted) and the id, 1..32767, of the address
 * space in a small table, given when it is first watched, from a counter
 * (skipping the ids of the spaces in the table). So bit 63 is clear (no kernel lock can match), the key is
 * never 0, and two live address spaces never share an id: the key is
 * injective among the spaces in the table. A space is matched by its mm
 * and its thread group, so an mm_struct freed and reused by another
 * process does not inherit the old process's id. Two words can share a key
 * only when an id comes back, after 32767 other spaces took one, while the
 * core still holds an entry of the first: then a wrong candidate may get a
 * grant, which the per-grant budget and the throttle bound; a guess never
 * makes a deadlock report (core.h). A shared futex (one word mapped in two
 * processes) is two keys, one per process: a wake from the other process
 * is not seen as a release.
 *
 * Everything here runs in a kprobe handler, preemption off: nothing sleeps
 * or allocates, except sp_futex_init/exit/sync/watch, which say so.
 */
#include <uapi/linux/futex.h>  /* the ops only: linux/futex.h needs mutex.h first on 6.12 */
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "sp_kmod_futex.h"
#include "sp_kmod_host.h"
#include "sp_kmod_params.h"
#include "sp_kmod_state.h"

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13
#endif

#define SP_FX_ADDR_BITS 48
#define SP_FX_ID_MAX 0x7fffu    /* ids 1..32767: bits 48..62 */
#define SP_FX_SPACES 16u        /* address spaces watched at once */
#define SP_FX_MAXACTIVE 256     /* waits whose return is awaited at once */

struct sp_fx_space {
	const struct mm_struct *mm;  /* compared, never dereferenced */
	pid_t tgid;
	u16 id;
};

static struct {
	raw_spinlock_t lock;           /* writers of the table */
	seqcount_raw_spinlock_t seq;   /* readers: the probes */
	struct sp_fx_space s[SP_FX_SPACES];
	unsigned int used;             /* slots filled, for the fast miss */
	unsigned int next;             /* round-robin victim when full */
	u16 next_id;
} sp_fx = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(sp_fx.lock),
	.seq = SEQCNT_RAW_SPINLOCK_ZERO(sp_fx.seq, &sp_fx.lock),
};

static struct sp_futex_stats sp_fx_st;  /* racy counters */

static inline sp_lock_key_t sp_fx_key(u16 id, unsigned long uaddr)
{
	return ((sp_lock_key_t)id << SP_FX_ADDR_BITS) | uaddr;
}

/* The id of (@mm, @tgid), or 0. */
static u16 sp_fx_space_find(const struct mm_struct *mm, pid_t tgid)
{
	unsigned int seq, i;
	u16 id;

	if (!READ_ONCE(sp_fx.used))
		return 0;
	do {
		seq = read_seqcount_begin(&sp_fx.seq);
		id = 0;
		for (i = 0; i < SP_FX_SPACES; i++) {
			if (sp_fx.s[i].mm == mm && sp_fx.s[i].tgid == tgid) {
				id = sp_fx.s[i].id;
				break;
			}
		}
	} while (read_seqcount_retry(&sp_fx.seq, seq));
	return id;
}

/* The id of (@mm, @tgid), given now if it has none. */
static u16 sp_fx_space_get(const struct mm_struct *mm, pid_t tgid)
{
	struct sp_fx_space *slot = NULL;
	unsigned long flags;
	unsigned int i;
	u16 id = sp_fx_space_find(mm, tgid);

	if (id)
		return id;
	raw_spin_lock_irqsave(&sp_fx.lock, flags);
	write_seqcount_begin(&sp_fx.seq);
	for (i = 0; i < SP_FX_SPACES; i++) {
		if (sp_fx.s[i].mm == mm && sp_fx.s[i].tgid == tgid) {
			id = sp_fx.s[i].id;  /* another thread was first */
			goto out;
		}
		if (!slot && !sp_fx.s[i].mm)
			slot = &sp_fx.s[i];
	}
	if (!slot) {
		slot = &sp_fx.s[sp_fx.next++ % SP_FX_SPACES];
		sp_fx_st.spaces_evicted++;
	} else {
		sp_fx.used++;
	}
	/* The next id no live space has (16 slots, 32767 ids). */
	slot->mm = NULL;
	do {
		if (++sp_fx.next_id > SP_FX_ID_MAX)
			sp_fx.next_id = 1;
		for (i = 0; i < SP_FX_SPACES; i++)
			if (sp_fx.s[i].mm && sp_fx.s[i].id == sp_fx.next_id)
				break;
	} while (i < SP_FX_SPACES);
	slot->mm = mm;
	slot->tgid = tgid;
	slot->id = id = sp_fx.next_id;
out:
	write_seqcount_end(&sp_fx.seq);
	raw_spin_unlock_irqrestore(&sp_fx.lock, flags);
	return id;
}

static void sp_fx_spaces_clear(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&sp_fx.lock, flags);
	write_seqcount_begin(&sp_fx.seq);
	memset(sp_fx.s, 0, sizeof(sp_fx.s));
	sp_fx.used = 0;
	write_seqcount_end(&sp_fx.seq);
	raw_spin_unlock_irqrestore(&sp_fx.lock, flags);
}

/* A tid read from a PI word (the caller's pid namespace) as a global tid. */
static pid_t sp_fx_global_tid(u32 vnr)
{
	struct pid *p;
	pid_t nr = 0;

	if (!vnr)
		return 0;
	rcu_read_lock();
	p = find_vpid((int)vnr);
	if (p)
		nr = pid_nr(p);
	rcu_read_unlock();
	return nr;
}

enum sp_fx_mode {
	SP_FX_BLOCKED = 1,  /* a reported wait: its end is an unblock */
	SP_FX_CAND = 2,     /* another task's wait: back, it is a candidate */
};

struct sp_fx_data {
	sp_lock_key_t key;
	u8 mode;
	bool pi;
};

/* An interesting task's wait, before it sleeps. 0: its return is wanted. */
static int sp_fx_block(struct sp_fx_data *d, pid_t tid, unsigned long uaddr)
{
	sp_tid_t owner;
	u32 word;

	if (d->pi) {
		/* The word names its owner; 0 (free) or the caller itself
		 * (an error return) make no wait. */
		if (copy_from_user_nofault(&word, (const void __user *)uaddr, sizeof(word)))
			return 1;
		owner = sp_fx_global_tid(word & FUTEX_TID_MASK);
		if (!owner || owner == (sp_tid_t)tid)
			return 1;
		sp_lock_blocked_owner(sp_core, tid, d->key, SP_HOLD_EXCL, true, owner);
		sp_fx_st.pi_waits++;
	} else {
		sp_lock_declare(sp_core, d->key, SP_LOCK_FUTEX);
		sp_lock_blocked(sp_core, tid, d->key, SP_HOLD_EXCL);
	}
	sp_fx_st.waits++;
	d->mode = SP_FX_BLOCKED;
	/* The core ticks while a critical task waits: start the ticks. */
	if (test_bit(tid, sp_critical_map))
		sp_host_kick_idle();
	return 0;
}

/* do_futex(uaddr, op, val, timeout, uaddr2, val2, val3). */
static int sp_fx_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned long uaddr = regs_get_kernel_argument(regs, 0);
	int cmd = (int)regs_get_kernel_argument(regs, 1) & FUTEX_CMD_MASK;
	struct sp_fx_data *d = (struct sp_fx_data *)ri->data;
	struct task_struct *t = current;
	bool wait, interesting;
	sp_tid_t owner;
	pid_t tid;
	u16 id;

	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
		wait = true;
		break;
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
	case FUTEX_UNLOCK_PI:
		wait = false;
		break;
	default:
		return 1;
	}
	if (!t->mm || !uaddr)
		return 1;
	tid = t->pid;
	interesting = wait && sp_tid_interesting(tid);
	id = interesting ? sp_fx_space_get(t->mm, t->tgid) : sp_fx_space_find(t->mm, t->tgid);
	if (!id)
		return 1;
	if (uaddr >> SP_FX_ADDR_BITS) {
		sp_fx_st.high_addrs++;
		return 1;
	}
	d->key = sp_fx_key(id, uaddr);
	if (!wait) {
		/* A wake in a watched space: the waker let the word go. A word
		 * the core does not know yet becomes known here, so that its
		 * holders are candidates before a critical task first waits
		 * for it (else that first wait would go unhelped). */
		if (sp_lock_owner(sp_core, d->key, &owner) == -ENOENT) {
			if (sp_lock_declare(sp_core, d->key, SP_LOCK_FUTEX))
				return 1;
			sp_fx_st.words_learned++;
		}
		sp_lock_released(sp_core, tid, d->key, SP_HOLD_EXCL);
		sp_fx_st.wakes++;
		return 1;
	}
	d->pi = cmd == FUTEX_LOCK_PI || cmd == FUTEX_LOCK_PI2;
	if (interesting)
		return sp_fx_block(d, tid, uaddr);
	/* A PI word names its owner whenever a critical task waits on it. */
	if (d->pi)
		return 1;
	/* Another task's wait on a known word is reported too, as the
	 * interposer reports every thread's: a candidate that waits for the
	 * word is no holder, and the core gives it no grant (boosted, it
	 * would also be woken first: futex wakes go by priority). A word
	 * that is not known yet may be by the return: asked again there. */
	if (sp_lock_owner(sp_core, d->key, &owner) == 0) {
		sp_lock_blocked(sp_core, tid, d->key, SP_HOLD_EXCL);
		sp_fx_st.other_waits++;
		d->mode = SP_FX_BLOCKED;
	} else {
		d->mode = SP_FX_CAND;
	}
	return 0;
}

static int sp_fx_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sp_fx_data *d = (struct sp_fx_data *)ri->data;
	long ret = (long)regs_return_value(regs);
	bool acquired = d->pi ? ret == 0 : (ret == 0 || ret == -EAGAIN);
	pid_t tid = current->pid;
	sp_tid_t owner;

	if (d->mode == SP_FX_BLOCKED) {
		sp_lock_unblocked(sp_core, tid, d->key, acquired);
		sp_fx_st.wait_ends++;
		if (acquired)
			sp_fx_st.candidates++;
		else
			sp_fx_st.timeouts++;
	} else if (acquired && sp_lock_owner(sp_core, d->key, &owner) == 0) {
		sp_lock_acquired(sp_core, tid, d->key, SP_HOLD_EXCL);
		sp_fx_st.candidates++;
	}
	return 0;
}

static struct kretprobe sp_fx_krp = {
	.kp.symbol_name = "do_futex",
	.kp.flags = KPROBE_FLAG_DISABLED,
	.entry_handler = sp_fx_entry,
	.handler = sp_fx_ret,
	.data_size = sizeof(struct sp_fx_data),
	.maxactive = SP_FX_MAXACTIVE,
};

/* Serialises arming (worker, marking write) against init and exit. */
static DEFINE_MUTEX(sp_fx_mutex);
static bool sp_fx_registered, sp_fx_armed;

int sp_futex_init(void)
{
	int ret = register_kretprobe(&sp_fx_krp);

	if (ret) {
		pr_err("superpass: kretprobe on do_futex failed (%d); load with futex=0 to go without futex waits\n",
		       ret);
		return ret;
	}
	mutex_lock(&sp_fx_mutex);
	sp_fx_registered = true;
	mutex_unlock(&sp_fx_mutex);
	return 0;
}

void sp_futex_exit(void)
{
	bool was;

	mutex_lock(&sp_fx_mutex);
	was = sp_fx_registered;
	sp_fx_registered = false;
	sp_fx_armed = false;
	mutex_unlock(&sp_fx_mutex);
	/* Waits for running handlers; a pending return hook finds no
	 * handler afterwards (rethook). */
	if (was)
		unregister_kretprobe(&sp_fx_krp);
	sp_fx_spaces_clear();
}

void sp_futex_sync(void)
{
	bool want = atomic_read(&sp_nr_critical) > 0;

	mutex_lock(&sp_fx_mutex);
	if (sp_fx_registered && want != sp_fx_armed) {
		if (want) {
			enable_kretprobe(&sp_fx_krp);
		} else {
			disable_kretprobe(&sp_fx_krp);
			/* Nothing critical: no space needs watching. A return
			 * hook still pending runs and is harmless. */
			sp_fx_spaces_clear();
		}
		sp_fx_armed = want;
	}
	mutex_unlock(&sp_fx_mutex);
}

void sp_futex_watch(pid_t nr)
{
	struct task_struct *t;

	rcu_read_lock();
	t = pid_task(find_vpid(nr), PIDTYPE_PID);
	/* Only compared, never dereferenced: no reference needed. */
	if (t && t->mm && !(t->flags & PF_KTHREAD))
		sp_fx_space_get(t->mm, t->tgid);
	rcu_read_unlock();
}

bool sp_futex_registered(void)
{
	return READ_ONCE(sp_fx_registered);
}

bool sp_futex_armed(void)
{
	return READ_ONCE(sp_fx_armed);
}

void sp_futex_get_stats(struct sp_futex_stats *out)
{
	*out = sp_fx_st;
	out->missed = READ_ONCE(sp_fx_krp.nmissed);
}
