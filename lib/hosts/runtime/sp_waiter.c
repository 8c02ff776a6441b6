// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The critical waiter's own attributes during and after its wait: the fast
 * tracks it applies itself, the raise that keeps it from being preempted
 * by them, and its short EEVDF slice.
 *
 *  - A critical waiter applies its holders' fast tracks itself, on its
 *    way out of the core: through the worker, a boost is two cross-CPU
 *    wakeups (the worker's, then the holder's) before the holder runs.
 *  - Where the holder is comes from its rseq cpu_id (sp_where.c). A holder
 *    that last ran on another CPU is boosted there at once.
 *  - A holder on our CPU would preempt us before we sleep (a writer not
 *    yet queued in glibc lets readers in; a waiter that never slept stays
 *    behind the hogs it shares the CPU with). So would one of two holders
 *    on one other CPU: raised, they cannot both run there, and the
 *    kernel's RT push moves the one that waits to the CPU running the
 *    lowest priority, ours.
 *  - So the waiter first raises itself to the fast tracks' own priority
 *    (SCHED_FIFO fifo_prio, reset-on-fork): an equal priority neither
 *    preempts it nor is pushed to its CPU, and the boosted holder runs when
 *    the waiter sleeps. One above would be too much: a waiter woken before
 *    its holder lowered itself would preempt it.
 *  - It stays raised while it sleeps and, if its wait took the lock, until
 *    it releases that lock (or the plan's raise_hold_ns, whichever is
 *    first). Raised, it queues behind the releasing holder at its own
 *    priority and runs the moment that holder lowers itself, or at once
 *    on a CPU running fair tasks.
 *  - Whether to raise, for how long and how many at once, and the slice
 *    otherwise, is the core's decision (sp_core_wait_plan,
 *    lib/core/sp_wait_policy.c says why); this file carries it out.
 *  - Only where the raise is ours to make: SCHED_FIFO mode and a waiter in
 *    a normal policy (a waiter fast-tracked itself, or real-time, is left
 *    alone and its holders on its CPU go to the worker, as do holders
 *    whose CPU is unknown and any the actuator's lock, busy, refuses). Up to
 *    the plan's raise_max critical threads of a process are raised at once
 *    (each with its own bound); one more waits unraised, with the wait's
 *    slice. Lowered only if it still has the
 *    raised attributes: a change the program made meanwhile wins. A fast
 *    track of the waiter while raised finds it already as urgent and sets
 *    nothing. An exec or exit while raised lowers it (sp_rt_thread_leave),
 *    a fork's child starts with its parent's own attributes.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>

#include "sp_rt.h"
#include "sp_sched_attr.h"

/* Slots for raised critical threads (the plan's raise_max of them in use);
 * each slot is one bound the worker keeps. */
#define SP_WT_RAISED_MAX SP_MAX_WAIT_RAISED

struct sp_wt_slot {
	sp_tid_t tid;                /* atomic: the raised critical thread, 0 none */
	struct sp_sched_attr saved;  /* its own attributes */
	uint32_t prio;               /* the raised priority */
	uint64_t until;              /* atomic; holding: the worker lowers it then; 0 waiting */
};

static struct {
	pthread_mutex_t lock;        /* every field but the atomics' reads */
	uint32_t slots;              /* in use: SP_WT_RAISED_MAX (sp_wk_raise_slots) */
	struct sp_wt_slot slot[SP_WT_RAISED_MAX];
} sp_wt_raised = { .lock = PTHREAD_MUTEX_INITIALIZER, .slots = SP_WT_RAISED_MAX };

static SP_TLS uint32_t sp_wt_my_slot; /* while sp_wt_my_raised */

static SP_TLS struct sp_sched_attr sp_wt_my_saved;
static SP_TLS int sp_wt_my_raised;
static SP_TLS int sp_wt_my_saved_live; /* sp_wt_my_saved is this wait's (or its raise's) */
static SP_TLS const void *sp_wt_my_held; /* the lock whose release lowers us */
static SP_TLS struct sp_wait_plan sp_wt_my_plan; /* the core's, for the wait in progress */

/*
 * The wait's EEVDF slice, the plan's slice_ns (sched_runtime of a
 * fair-class thread: Linux 6.12's custom slices). Only for the wait: the
 * slice is its own again when the wait ends, unless the program changed
 * its attributes meanwhile. A kernel that ignores the field (before 6.12)
 * or refuses it is asked once. The kernel reports a thread's slice whether
 * or not it chose one (the base slice), so the one put back is the length
 * it had, from then on kept as the thread's own. In SCHED_FIFO mode the
 * raise stands in for it where it can be made (one sched_setattr, not
 * two).
 */
static int sp_wt_slice_state; /* atomic: 0 untried, 1 works, -1 not here */
static SP_TLS int sp_wt_my_sliced;
/* The slice this thread's last sliced wait set (0 none): what a leftover
 * of ours looks like (sp_wt_own_slice, sp_wk_before_exec_guarded). */
static SP_TLS uint64_t sp_wt_my_slice_ns;

/* @own: the thread's attributes, with sp_wt_own_slice's correction. */
static void sp_wt_slice_begin(const struct sp_sched_attr *own, uint64_t slice)
{
	int state = __atomic_load_n(&sp_wt_slice_state, __ATOMIC_RELAXED);
	struct sp_sched_attr sliced, now;

	if (state < 0 || !slice)
		return;
	if (own->sched_runtime != 0 && own->sched_runtime < slice)
		return; /* its own is shorter still */
	sliced = *own;
	sliced.sched_runtime = slice;
	if (sp_sched_setattr(0, &sliced) != 0) {
		__atomic_store_n(&sp_wt_slice_state, -1, __ATOMIC_RELAXED);
		return;
	}
	sp_wt_my_slice_ns = slice;
	if (state == 0) {
		/* Before 6.12 the field is ignored for this class: reads 0. */
		state = sp_sched_getattr(0, &now) == 0 && now.sched_runtime == slice
				? 1 : -1;
		__atomic_store_n(&sp_wt_slice_state, state, __ATOMIC_RELAXED);
		if (state < 0)
			return; /* nothing changed that needs putting back */
	}
	sp_wt_my_sliced = 1;
}

/* The thread's own slice: none if it is exactly ours, left by a wait
 * whose end could not restore it (as when the actuator had the thread
 * boosted then and restored our slice later). */
static void sp_wt_own_slice(struct sp_sched_attr *own)
{
	if (sp_wt_my_slice_ns && own->sched_runtime == sp_wt_my_slice_ns)
		own->sched_runtime = 0;
}

/* The wait is over: our own slice back, if the wait's is still in force. */
static void sp_wt_slice_end(void)
{
	struct sp_sched_attr now;

	sp_wt_my_sliced = 0;
	if (sp_sched_getattr(0, &now) == 0 && now.sched_policy == sp_wt_my_saved.sched_policy &&
	    now.sched_nice == sp_wt_my_saved.sched_nice &&
	    now.sched_runtime == sp_wt_my_slice_ns)
		sp_sched_setattr(0, &sp_wt_my_saved);
}

void sp_wk_direct_begin(struct sp_core *core)
{
	struct sp_rt_thread *self = &sp_rt_self_state;
	enum sp_act_mode mode = sp_act_mode_now();
	struct sp_sched_attr a;

	self->direct_on = 1;
	self->direct_n = 0;
	self->direct_same = 0;
	self->direct_worker = 0;
	self->direct_raise = 0;
	/* Observe mode changes nobody; a real-time waiter (raised already,
	 * holding a lock its last wait took) is left alone. */
	if (mode == SP_ACT_OBSERVE || sp_sched_getattr(0, &a) != 0 || !sp_sched_policy_fair(a.sched_policy))
		return;
	/* The raise is ours to make in SCHED_FIFO mode only; the slice in
	 * any (a kernel without it is found out once). */
	if (sp_core_wait_plan(core, self->tid, (mode == SP_ACT_FIFO ? SP_WAIT_CAN_RAISE : 0) |
						     SP_WAIT_CAN_SLICE,
			      &sp_wt_my_plan) != 1)
		return;
	sp_wt_own_slice(&a);
	sp_wt_my_saved = a;
	/* The copy before the flag, for a handler on this thread: pairs
	 * with its reading of the flag first (sp_wk_before_exec_guarded). */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	sp_wt_my_saved_live = 1;
	/* The raise replaces the slice; the slice only if the raise cannot
	 * be made (sp_wk_direct_end). */
	if (sp_wt_my_plan.raise)
		self->direct_raise = 1;
	else
		sp_wt_slice_begin(&sp_wt_my_saved, sp_wt_my_plan.slice_ns);
}

/* Lowers @tid to @saved if it still has the raise (@prio) we gave it. */
static void sp_wt_unraise(sp_tid_t tid, const struct sp_sched_attr *saved, uint32_t prio)
{
	struct sp_sched_attr now;

	if (sp_sched_getattr((pid_t)tid, &now) == 0 && now.sched_policy == SCHED_FIFO &&
	    now.sched_priority == prio)
		sp_sched_setattr((pid_t)tid, saved);
}

/* At most @max raised at once (and no more than the slots tests left). */
static bool sp_wt_raise_self(uint32_t max)
{
	sp_tid_t me = sp_rt_self_state.tid;
	struct sp_sched_attr hi = sp_wt_my_saved;
	bool ok = false;
	uint32_t i;

	hi.sched_policy = SCHED_FIFO;
	hi.sched_priority = (uint32_t)sp_wk_fifo_prio();
	hi.sched_nice = 0;
	hi.sched_runtime = 0;
	hi.sched_flags = SP_SCHED_FLAG_RESET_ON_FORK;
	sp_rt_lock(&sp_wt_raised.lock);
	if (max > sp_wt_raised.slots)
		max = sp_wt_raised.slots;
	for (i = 0; i < max; i++)
		if (sp_wt_raised.slot[i].tid == 0)
			break;
	if (i < max && sp_sched_setattr(0, &hi) == 0) {
		struct sp_wt_slot *s = &sp_wt_raised.slot[i];

		s->saved = sp_wt_my_saved;
		s->prio = hi.sched_priority;
		__atomic_store_n(&s->until, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&s->tid, me, __ATOMIC_RELAXED);
		ok = true;
	}
	sp_rt_unlock(&sp_wt_raised.lock);
	if (ok) {
		sp_wt_my_slot = i;
		sp_wt_my_raised = 1;
		sp_wt_my_held = NULL;
	}
	return ok;
}

/* Our own attributes back, unless the worker lowered us already (its
 * bound: the slot is no longer ours) or the program changed them. */
static void sp_wt_lower_self(void)
{
	sp_tid_t me = sp_rt_self_state.tid;
	struct sp_wt_slot *s;

	sp_wt_my_raised = 0;
	sp_wt_my_held = NULL;
	if (!sp_wt_my_sliced)
		sp_wt_my_saved_live = 0;
	sp_rt_lock(&sp_wt_raised.lock);
	s = &sp_wt_raised.slot[sp_wt_my_slot];
	if (s->tid == me) {
		__atomic_store_n(&s->tid, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&s->until, 0, __ATOMIC_RELAXED);
		sp_wt_unraise(me, &sp_wt_my_saved, s->prio);
	}
	sp_rt_unlock(&sp_wt_raised.lock);
}

void sp_wk_direct_end(struct sp_core *core)
{
	struct sp_rt_thread *self = &sp_rt_self_state;
	int n = self->direct_n;
	uint32_t same = self->direct_same, worker = self->direct_worker;
	bool raised = false;

	self->direct_on = 0;
	self->direct_n = 0;
	self->direct_same = 0;
	self->direct_worker = 0;
	if (self->direct_raise) {
		raised = sp_wt_raise_self(sp_wt_my_plan.raise_max);
		if (!raised)
			sp_wt_slice_begin(&sp_wt_my_saved, sp_wt_my_plan.slice_ns);
	}
	if (!(sp_wt_my_raised | sp_wt_my_sliced))
		sp_wt_my_saved_live = 0;
	for (int i = 0; i < n; i++) {
		if (((worker >> i) & 1) || (((same >> i) & 1) && !raised))
			sp_wk_queue(self->direct[i]);
		else if (!sp_act_reconcile_try(core, self->direct[i]))
			sp_wk_queue(self->direct[i]);
	}
}

/*
 * Any wait of this thread ended (under the guard). Raised by it: kept if
 * the wait took @lock and a worker is there to bound it, else lowered now.
 * A wait of a thread that holds its raise (real-time, so the wait neither
 * raised nor sliced it) changes nothing.
 */
void sp_wk_wait_done(const void *lock, bool acquired)
{
	if (__builtin_expect(!(sp_wt_my_raised | sp_wt_my_sliced), 1))
		return;
	if (sp_wt_my_raised && !sp_wt_my_held) {
		bool kept = false;

		if (acquired && sp_wt_my_plan.raise_hold_ns && sp_wk_can_bound()) {
			struct sp_wt_slot *s = &sp_wt_raised.slot[sp_wt_my_slot];

			sp_rt_lock(&sp_wt_raised.lock);
			if (s->tid == sp_rt_self_state.tid) {
				__atomic_store_n(&s->until,
						 sp_rt_now_ns(NULL) + sp_wt_my_plan.raise_hold_ns,
						 __ATOMIC_RELAXED);
				kept = true;
			}
			sp_rt_unlock(&sp_wt_raised.lock);
		}
		if (kept) {
			sp_wt_my_held = lock;
			sp_wk_poke_bound(); /* a worker asleep till later must see the bound */
		} else {
			sp_wt_lower_self();
		}
	}
	if (sp_wt_my_sliced)
		sp_wt_slice_end();
	if (!sp_wt_my_raised)
		sp_wt_my_saved_live = 0;
}

/* A release of this thread (under the guard): the lock its raise was kept
 * for ends the raise. */
void sp_wk_released(const void *lock)
{
	if (__builtin_expect(!sp_wt_my_raised, 1))
		return;
	if (sp_wt_my_held == lock)
		sp_wt_lower_self();
}

/* The thread execs or exits: neither the raise nor the wait's slice may
 * outlive it (an exec from a signal handler comes in the middle of a
 * wait: the new program would start with our short wait slice as its own). */
void sp_wk_thread_leave(void)
{
	if (sp_wt_my_raised)
		sp_wt_lower_self();
	if (sp_wt_my_sliced)
		sp_wt_slice_end();
}

/*
 * An exec from a signal handler that interrupted this thread inside the
 * runtime (sp_thread_before_exec, guarded): the locks the leave takes may
 * be held by the very code interrupted, so only the thread's own
 * attributes are put back, with the two syscalls, both async-signal-safe.
 * Only while sp_wt_my_saved is this wait's copy (sp_wt_my_saved_live:
 * from its report until neither raise nor slice is left), written before
 * the flag (the signal fence orders the two for a handler here). If
 * the exec fails, the runtime finds the attributes not its own and leaves
 * them (sp_wt_unraise, sp_wt_slice_end: a change of the program's wins).
 */
void sp_wk_before_exec_guarded(void)
{
	struct sp_sched_attr now;
	bool ours;

	if (!sp_wt_my_saved_live || sp_sched_getattr(0, &now) != 0)
		return;
	ours = (sp_sched_policy_fair(now.sched_policy) && sp_wt_my_slice_ns &&
		now.sched_runtime == sp_wt_my_slice_ns) ||
	       (now.sched_policy == SCHED_FIFO && now.sched_priority == (uint32_t)sp_wk_fifo_prio());
	if (ours)
		sp_sched_setattr(0, &sp_wt_my_saved);
}

/* The worker, going to sleep: a bound is set (the read pairs with
 * sp_wk_poke_bound's fence through the one in sp_wk_sleep). */
bool sp_wk_raise_pending(void)
{
	for (uint32_t i = 0; i < SP_WT_RAISED_MAX; i++) {
		const struct sp_wt_slot *s = &sp_wt_raised.slot[i];

		if (__atomic_load_n(&s->until, __ATOMIC_RELAXED) != 0 &&
		    __atomic_load_n(&s->tid, __ATOMIC_RELAXED) != 0)
			return true;
	}
	return false;
}

/* The worker: lowers a raised thread whose bound passed; returns the next
 * bound to wake for (0 none). */
uint64_t sp_wk_bound_raised(uint64_t now)
{
	uint64_t next = 0;

	sp_rt_lock(&sp_wt_raised.lock);
	for (uint32_t i = 0; i < SP_WT_RAISED_MAX; i++) {
		struct sp_wt_slot *s = &sp_wt_raised.slot[i];

		if (!s->tid || !s->until)
			continue;
		if (now >= s->until) {
			sp_wt_unraise(s->tid, &s->saved, s->prio);
			__atomic_store_n(&s->tid, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&s->until, 0, __ATOMIC_RELAXED);
		} else if (!next || s->until < next) {
			next = s->until;
		}
	}
	sp_rt_unlock(&sp_wt_raised.lock);
	return next;
}

/* In a fork's child: the forking thread is the only one; if it was raised,
 * reset-on-fork gave it SCHED_OTHER nice 0, not its own attributes. */
void sp_wk_waiter_atfork_child(void)
{
	pthread_mutex_init(&sp_wt_raised.lock, NULL);
	for (uint32_t i = 0; i < SP_WT_RAISED_MAX; i++) {
		sp_wt_raised.slot[i].tid = 0;
		sp_wt_raised.slot[i].until = 0;
	}
	if (sp_wt_my_raised)
		sp_sched_setattr(0, &sp_wt_my_saved); /* best effort: a negative nice needs the privilege */
	sp_wt_my_raised = 0;
	sp_wt_my_held = NULL;
	sp_wt_my_saved_live = 0;
}

/* For tests: raise at most @n (1..SP_WT_RAISED_MAX) critical threads at
 * once, so that one test can fill every slot; returns the number before. */
uint32_t sp_wk_raise_slots(uint32_t n)
{
	uint32_t was;

	if (n < 1)
		n = 1;
	if (n > SP_WT_RAISED_MAX)
		n = SP_WT_RAISED_MAX;
	sp_rt_lock(&sp_wt_raised.lock);
	was = sp_wt_raised.slots;
	sp_wt_raised.slots = n;
	sp_rt_unlock(&sp_wt_raised.lock);
	return was;
}
