// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * One event into the analysis: the running task, then the step of its
 * type (switch, wake, fork, exit, rename, futex, kernel lock).
 */
#include <stdio.h>
#include <string.h>

#include <superpass/trace.h>

#include "sp_trace_analysis.h"

static uint32_t kind_of(uint32_t f)
{
	if (f & (SP_TRACE_LCB_MUTEX | SP_TRACE_LCB_RT))
		return SP_TWK_MUTEX;
	if (f & SP_TRACE_LCB_SPIN)
		return SP_TWK_SPIN;
	if (f & SP_TRACE_LCB_READ)
		return SP_TWK_RWSEM_READ;
	if (f & SP_TRACE_LCB_WRITE)
		return SP_TWK_RWSEM_WRITE;
	return SP_TWK_OTHER;
}

/* What a futex operation (its command, op & 0x7f) does to the word's
 * lock: waits for it, wakes its waiters, or neither. */
enum { FX_OTHER, FX_WAITS, FX_WAKES };
static const uint8_t futex_role[14] = {
	[0] = FX_WAITS,  /* FUTEX_WAIT */
	[6] = FX_WAITS,  /* FUTEX_LOCK_PI */
	[9] = FX_WAITS,  /* FUTEX_WAIT_BITSET */
	[11] = FX_WAITS, /* FUTEX_WAIT_REQUEUE_PI */
	[13] = FX_WAITS, /* FUTEX_LOCK_PI2 */
	[1] = FX_WAKES,  /* FUTEX_WAKE */
	[4] = FX_WAKES,  /* FUTEX_CMP_REQUEUE */
	[5] = FX_WAKES,  /* FUTEX_WAKE_OP */
	[7] = FX_WAKES,  /* FUTEX_UNLOCK_PI */
	[10] = FX_WAKES, /* FUTEX_WAKE_BITSET */
};

static unsigned futex_role_of(uint32_t op)
{
	op &= 0x7f;
	return op < sizeof(futex_role) ? futex_role[op] : FX_OTHER;
}

/* @rel released the futex word @uaddr: a stretch of every selected
 * thread's wait on it ends with @rel as its holder. */
static void note_release(struct sp_trace_analysis *a, struct sp_trace_thr *rel, uint64_t uaddr,
			 uint64_t ts)
{
	for (size_t i = 0; i < a->crit_ids.n; i++) {
		struct sp_trace_open_wait *w = &a->thr.v[a->crit_ids.v[i]]->fx;

		if (!w->open || !w->is_wait || w->lock != uaddr || a->crit_ids.v[i] == rel->id)
			continue;
		if (w->nr_rels && w->rels[w->nr_rels - 1].id == rel->id) {
			w->rels[w->nr_rels - 1].ts = ts;
		} else if (w->nr_rels < SP_TRACE_MAX_RELS) {
			w->rels[w->nr_rels++] = (struct sp_trace_rel){ ts, rel->id };
		} else {
			w->rels[SP_TRACE_MAX_RELS - 1] = (struct sp_trace_rel){ ts, rel->id };
		}
	}
}

/* A wait opens: every field but the releases (rels[] counts from
 * nr_rels = 0, so its slots need no zeroing on every futex call). */
static void open_wait_init(struct sp_trace_open_wait *w, bool is_wait, uint32_t kind, uint64_t ts,
			   uint64_t lock)
{
	w->open = true;
	w->is_wait = is_wait;
	w->nested = false;
	w->lost = false;
	w->irq_wake = false;
	w->kind = kind;
	w->start = ts;
	w->lock = lock;
	w->op = 0;
	w->waker = SP_TRACE_NO_ID;
	w->waker_from_waking = false;
	w->nr_rels = 0;
}

static void note_waker(struct sp_trace_open_wait *w, uint32_t waker, bool waking, bool irq)
{
	if (!w->open || !w->is_wait)
		return;
	if (!waking && w->waker_from_waking)
		return; /* sched_waking is exact; sched_wakeup may run on the target CPU */
	w->waker = waker;
	w->irq_wake = irq;
	w->waker_from_waking = waking;
}

/* Counts @ev and moves the analysis' clock to it. */
static void feed_clock(struct sp_trace_analysis *a, const struct sp_trace_event *ev)
{
	if (!a->c.events)
		a->c.first_ns = ev->ts_ns;
	a->c.events++;
	a->now = ev->ts_ns;
	a->c.last_ns = ev->ts_ns;
}

/* Lost events: every timeline is unknown until seen again; open waits
 * carry on marked (an exit that was lost shows up as an unmatched enter). */
static void on_lost(struct sp_trace_analysis *a, const struct sp_trace_event *ev)
{
	for (size_t i = 0; i < a->thr.n; i++) {
		struct sp_trace_thr *t = a->thr.v[i];

		if (t->state != SP_TST_UNKNOWN && !t->exited)
			sp_trace_set_state(a, t, ev->ts_ns, SP_TST_UNKNOWN);
		t->fx.lost |= t->fx.open;
		t->kl.lost |= t->kl.open;
	}
	for (size_t c = 0; c < a->cpus.n; c++)
		sp_trace_cpu_set(a, (int32_t)c, ev->ts_ns, SP_TRACE_UNKNOWN_ID, -1);
}

/* The task an event ran in is running (interrupt context included: it
 * was interrupted while on the CPU). */
static struct sp_trace_thr *running_task(struct sp_trace_analysis *a,
					 const struct sp_trace_event *ev)
{
	struct sp_trace_thr *cur;

	if (ev->pid <= 0)
		return NULL;
	cur = sp_trace_thr_get(a, ev->pid, ev->comm[0] && ev->comm[0] != '<' ? ev->comm : NULL);
	if (cur && cur->state != SP_TST_RUNNING)
		sp_trace_set_state(a, cur, ev->ts_ns, SP_TST_RUNNING);
	return cur;
}

static void on_switch(struct sp_trace_analysis *a, const struct sp_trace_event *ev,
		      struct sp_trace_thr *cur)
{
	/* prev is the task the event ran in, almost always: when its tid
	 * and comm are the ones cur was just looked up by, sp_trace_thr_get()
	 * would find cur and change nothing (cur is not dead, its comm is
	 * that one) */
	struct sp_trace_thr *p = cur && ev->u.sw.prev_pid == ev->pid && ev->comm[0] &&
					 ev->comm[0] != '<' &&
					 sp_trace_comm_is(ev->comm, ev->u.sw.prev_comm)
				 ? cur
				 : sp_trace_thr_get(a, ev->u.sw.prev_pid, ev->u.sw.prev_comm);
	struct sp_trace_thr *n = sp_trace_thr_get(a, ev->u.sw.next_pid, ev->u.sw.next_comm);

	if (p) {
		uint32_t st;

		p->pub.prio = ev->u.sw.prev_prio;
		switch (ev->u.sw.prev_state) {
		case SP_TRS_RUNNABLE:
			st = SP_TST_RUNNABLE;
			break;
		case SP_TRS_DEAD:
			st = SP_TST_UNKNOWN;
			p->exited = true;
			p->dead = true;
			sp_trace_thr_retire(a, p);
			break;
		default:
			st = (p->fx.open && p->fx.is_wait) || p->kl.open ? SP_TST_BLOCKED
									 : SP_TST_SLEEPING;
		}
		sp_trace_set_state(a, p, ev->ts_ns, st);
	}
	if (n) {
		n->pub.prio = ev->u.sw.next_prio;
		sp_trace_set_state(a, n, ev->ts_ns, SP_TST_RUNNING);
	}
	sp_trace_cpu_set(a, ev->cpu, ev->ts_ns, n ? n->id : SP_TRACE_NO_ID, ev->u.sw.next_prio);
}

/* sched_waking, sched_wakeup, sched_wakeup_new. */
static void on_wake(struct sp_trace_analysis *a, const struct sp_trace_event *ev,
		    struct sp_trace_thr *cur)
{
	bool irq = ev->flags & SP_TRACE_EVF_IRQ;
	uint32_t waker = SP_TRACE_NO_ID;
	struct sp_trace_thr *t;

	if (ev->type == SP_TR_WAKEUP_NEW) {
		t = sp_trace_thr_lookup(a, ev->u.wake.pid);
		if (!t || t->exited)
			t = sp_trace_thr_new(a, ev->u.wake.pid, ev->u.wake.comm);
	} else {
		t = sp_trace_thr_get(a, ev->u.wake.pid, ev->u.wake.comm);
	}
	if (!t)
		return;
	if (ev->u.wake.prio >= 0)
		t->pub.prio = ev->u.wake.prio;
	if (t->state != SP_TST_RUNNING)
		sp_trace_set_state(a, t, ev->ts_ns, SP_TST_RUNNABLE);
	if (cur && cur != t && !irq)
		waker = cur->id;
	note_waker(&t->fx, waker, ev->type == SP_TR_WAKING, irq);
	note_waker(&t->kl, waker, ev->type == SP_TR_WAKING, irq);
}

static void on_fork(struct sp_trace_analysis *a, const struct sp_trace_event *ev)
{
	struct sp_trace_thr *t = sp_trace_thr_lookup(a, ev->u.fork.child_pid);

	if (!t || t->exited || t->hist.n)
		(void)sp_trace_thr_new(a, ev->u.fork.child_pid, ev->u.fork.child_comm);
	else
		snprintf(t->pub.comm, sizeof(t->pub.comm), "%s", ev->u.fork.child_comm);
}

static void on_task_exit(struct sp_trace_analysis *a, const struct sp_trace_event *ev)
{
	struct sp_trace_thr *t = sp_trace_thr_get(a, ev->u.exit.pid, NULL);

	if (!t)
		return;
	t->exited = true;
	if (t->fx.open)
		t->fx.open = false;
	if (t->kl.open)
		t->kl.open = false;
	sp_trace_flush_episode(a, t);
}

static void on_rename(struct sp_trace_analysis *a, const struct sp_trace_event *ev)
{
	struct sp_trace_thr *t = sp_trace_thr_get(a, ev->u.rename.pid, NULL);

	if (!t)
		return;
	snprintf(t->pub.comm, sizeof(t->pub.comm), "%s", ev->u.rename.newcomm);
	t->crit = -1;
}

static void on_futex_enter(struct sp_trace_analysis *a, const struct sp_trace_event *ev,
			   struct sp_trace_thr *cur)
{
	unsigned role = futex_role_of(ev->u.futex.op);

	if (cur->fx.open) {
		a->c.dropped_lost += cur->fx.is_wait;
		cur->fx.open = false;
	}
	open_wait_init(&cur->fx, role == FX_WAITS, SP_TWK_FUTEX, ev->ts_ns, ev->u.futex.uaddr);
	cur->fx.op = ev->u.futex.op;
	if (cur->fx.is_wait)
		sp_trace_thr_is_critical(a, cur);
	else if (role == FX_WAKES)
		note_release(a, cur, ev->u.futex.uaddr, ev->ts_ns);
}

static void on_futex_exit(struct sp_trace_analysis *a, const struct sp_trace_event *ev,
			  struct sp_trace_thr *cur)
{
	if (!cur->fx.open) {
		a->c.unmatched_exits++;
		return;
	}
	sp_trace_end_wait(a, cur, &cur->fx, ev->ts_ns, ev->u.futex.ret == -110 /* ETIMEDOUT */);
}

static void on_lock_begin(struct sp_trace_analysis *a, const struct sp_trace_event *ev,
			  struct sp_trace_thr *cur)
{
	uint32_t kind = kind_of(ev->u.lock.flags);

	if (kind == SP_TWK_SPIN && !a->o.spin)
		return;
	if (cur->kl.open && cur->kl.lock == ev->u.lock.addr) {
		cur->kl.kind = kind; /* a mutex that spun first, now sleeps */
		return;
	}
	if (cur->kl.open) {
		a->c.dropped_lost++;
		cur->kl.open = false;
	}
	open_wait_init(&cur->kl, true, kind, ev->ts_ns, ev->u.lock.addr);
	cur->kl.nested = cur->fx.open && cur->fx.is_wait;
	sp_trace_thr_is_critical(a, cur);
}

static void on_lock_end(struct sp_trace_analysis *a, const struct sp_trace_event *ev,
			struct sp_trace_thr *cur)
{
	if (!cur->kl.open || cur->kl.lock != ev->u.lock.addr) {
		if (!cur->kl.open && a->o.spin)
			a->c.unmatched_exits++;
		return;
	}
	sp_trace_end_wait(a, cur, &cur->kl, ev->ts_ns, false);
}

/* A futex call or kernel lock wait of the running task @cur. */
static void on_own_wait(struct sp_trace_analysis *a, const struct sp_trace_event *ev,
			struct sp_trace_thr *cur)
{
	if (ev->type == SP_TR_FUTEX_ENTER)
		on_futex_enter(a, ev, cur);
	else if (ev->type == SP_TR_FUTEX_EXIT)
		on_futex_exit(a, ev, cur);
	else if (ev->type == SP_TR_LOCK_BEGIN)
		on_lock_begin(a, ev, cur);
	else
		on_lock_end(a, ev, cur);
}

int sp_trace_analysis_feed(void *analysis, const struct sp_trace_event *ev)
{
	struct sp_trace_analysis *a = analysis;
	struct sp_trace_thr *cur;

	if (a->finished)
		return 0;
	feed_clock(a, ev);
	sp_trace_release_retired(a);
	if (ev->type == SP_TR_LOST) {
		on_lost(a, ev);
		return 0;
	}
	cur = running_task(a, ev);
	switch (ev->type) {
	case SP_TR_SWITCH: on_switch(a, ev, cur); break;
	case SP_TR_WAKING:
	case SP_TR_WAKEUP:
	case SP_TR_WAKEUP_NEW: on_wake(a, ev, cur); break;
	case SP_TR_FORK: on_fork(a, ev); break;
	case SP_TR_EXIT: on_task_exit(a, ev); break;
	case SP_TR_RENAME: on_rename(a, ev); break;
	case SP_TR_FUTEX_ENTER:
	case SP_TR_FUTEX_EXIT:
	case SP_TR_LOCK_BEGIN:
	case SP_TR_LOCK_END:
		if (cur) /* the waits are the running task's own */
			on_own_wait(a, ev, cur);
		break;
	default: break;
	}
	return 0;
}
