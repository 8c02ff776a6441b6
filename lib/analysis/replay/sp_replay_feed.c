// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The trace read into items: per thread, its CPU time between blocking
 * points (sched_switch accounting), its lock waits with the wake that
 * ended each, its wakes of waiters and its sleeps, in one pass over the
 * events (sp_replay_feed, the sp_trace_read_file callback).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sp_vec.h"
#include "sp_replay_internal.h"

static struct sp_rp_th *th_get(struct sp_replay *r, int32_t tid, uint64_t ts)
{
	unsigned h = ((uint32_t)tid * 2654435761u) >> (32 - HBITS);
	struct sp_rp_th *t;

	if (tid <= 0)
		return NULL;
	for (t = r->hash[h]; t; t = t->hnext)
		if (t->tid == tid)
			return t;
	if (r->nth == r->capth && sp_grow((void **)&r->th, &r->capth, sizeof(*r->th), r->capth + 1, 64)) {
		r->nomem = 1;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		r->nomem = 1;
		return NULL;
	}
	t->tid = tid;
	t->prio = 120;
	t->first_ts = t->last_ts = ts;
	t->waker = -1;
	t->idx = (int32_t)r->nth;
	/* Without a recorded command (no fork seen yet), every thread is in. */
	t->in_set = r->o.all_threads || !r->have_root || !r->root_superpass;
	t->hnext = r->hash[h];
	r->hash[h] = t;
	r->th[r->nth++] = t;
	return t;
}

static void push_tok(struct sp_replay *r, struct sp_rp_th *t, uint8_t type, int32_t lock,
		     uint8_t hold, uint32_t tok, uint64_t ns, uint64_t end)
{
	if (t->n == t->cap && sp_grow((void **)&t->it, &t->cap, sizeof(*t->it), t->cap + 1, 32)) {
		r->nomem = 1;
		return;
	}
	t->it[t->n++] = (struct sp_rp_item){ .type = type, .lock = lock, .hold = hold, .tok = tok,
				       .ns = ns, .end = end };
}

static void push(struct sp_replay *r, struct sp_rp_th *t, uint8_t type, int32_t lock, uint8_t hold,
		 uint64_t ns, uint64_t end)
{
	push_tok(r, t, type, lock, hold, 0, ns, end);
}

/* The CPU @t has run up to @ts, added to its cpu_acc. */
static void accrue_cpu(struct sp_rp_th *t, uint64_t ts)
{
	if (t->running && ts > t->run_since) {
		t->cpu_acc += ts - t->run_since;
		t->run_since = ts;
	}
}

/* The CPU @t used up to @ts, as one item. */
static void flush_cpu(struct sp_replay *r, struct sp_rp_th *t, uint64_t ts)
{
	accrue_cpu(t, ts);
	if (t->cpu_acc) {
		t->cpu_total += t->cpu_acc;
		push(r, t, IT_CPU, -1, 0, t->cpu_acc, ts);
		t->cpu_acc = 0;
	}
}

/* CPU @t ran inside a kernel lock wait, up to @ts, is the lock's, not its
 * program's: a kernel mutex's or rwsem's waiter, woken and finding the
 * lock still not its own, spins on the owner (the first waiter, with the
 * handoff pending) until need_resched, up to a tick at each futile wake.
 * Replayed, a waiter just waits; kept as work, that spin would be done again each time its
 * program loops, whether the replayed wait is long or not. */
static void drop_wait_cpu(struct sp_replay *r, struct sp_rp_th *t, uint64_t ts)
{
	accrue_cpu(t, ts);
	if (t->in_set)
		r->c.spin_ns += t->cpu_acc;
	t->cpu_acc = 0;
}

/* At a blocking point: the CPU since the last item is the thread's work,
 * as an item, unless it ran inside a kernel lock wait (drop_wait_cpu). */
static void settle_cpu(struct sp_replay *r, struct sp_rp_th *t, uint64_t ts)
{
	if (t->wait == W_KLOCK)
		drop_wait_cpu(r, t, ts);
	else
		flush_cpu(r, t, ts);
}

/*
 * An rwsem writer spins before it asks: rwsem_optimistic_spin() runs
 * before contention_begin, while the owner runs, or while the lock is free
 * with a handoff pending to its first waiter, and then a non-RT spinner
 * stops only at need_resched: up to a tick before a request, while a
 * starved waiter holds the handoff. Where the spin began the trace does not show; taken here
 * as the latest of: the thread came on its CPU, its last lock wait ended,
 * and another thread began waiting for this rwsem (the oldest still
 * queued). With no one queued, a spin on a running owner lasts as long as
 * that owner's section, and the CPU is kept as work. Dropped like a
 * waiter's (drop_wait_cpu): replayed, a writer asks at once and waits.
 */
static void drop_rwsem_spin(struct sp_replay *r, struct sp_rp_th *t, uint64_t addr, uint64_t ts)
{
	uint64_t from = 0, spun;

	if (!t->running)
		return;
	for (size_t i = 0; i < r->nth; i++) {
		const struct sp_rp_th *u = r->th[i];

		if (u != t && u->wait == W_KLOCK && u->wait_addr == addr &&
		    (!from || u->wait_start < from))
			from = u->wait_start;
	}
	if (!from)
		return;
	from = from > t->on_since ? from : t->on_since;
	from = from > t->wait_left ? from : t->wait_left;
	from = from > t->run_since ? from : t->run_since;
	if (ts <= from)
		return;
	spun = ts - from;
	/* the CPU before @from stays work: an item of its own */
	flush_cpu(r, t, from);
	t->run_since = ts;
	if (t->in_set)
		r->c.spin_ns += spun;
}

/* @t was switched out runnable at @ts: a preemption point at this point
 * of its CPU time (a CPU item that ends there, empty if it had run nothing
 * since its last item). */
static void preempted(struct sp_replay *r, struct sp_rp_th *t, uint64_t ts)
{
	size_t n = t->n;

	flush_cpu(r, t, ts);
	if (t->n == n || t->it[t->n - 1].type != IT_CPU)
		push(r, t, IT_CPU, -1, 0, 0, ts);
	if (t->n && t->it[t->n - 1].type == IT_CPU) {
		t->it[t->n - 1].preempt = true;
		r->c.preemptions++;
	}
}

/* The futex words of one glibc pthread_rwlock_t (__readers at 0,
 * __wrphase_futex at 8, __writers_futex at 12; the type is 56 bytes) are
 * one rwlock, named after its lowest word seen. */
#define RW_SPAN 16

static int lock_ref(struct sp_replay *r, uint64_t addr, uint8_t kind)
{
	for (size_t i = 0; i < r->nlk; i++) {
		if (r->lk[i].kind != kind)
			continue;
		if (r->lk[i].addr == addr)
			return (int)i;
		if (kind == SP_SIM_URWLOCK_W &&
		    (addr > r->lk[i].addr ? addr - r->lk[i].addr : r->lk[i].addr - addr) < RW_SPAN) {
			if (addr < r->lk[i].addr)
				r->lk[i].addr = addr;
			return (int)i;
		}
	}
	if (r->nlk == r->caplk && sp_grow((void **)&r->lk, &r->caplk, sizeof(*r->lk), r->caplk + 1, 16)) {
		r->nomem = 1;
		return -1;
	}
	memset(&r->lk[r->nlk], 0, sizeof(r->lk[0]));
	r->lk[r->nlk].addr = addr;
	r->lk[r->nlk].kind = kind;
	return (int)r->nlk++;
}

static bool futex_is_wait(uint32_t op)
{
	uint32_t cmd = op & 0x7f; /* without FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME */

	return cmd == 0 || cmd == 9 || cmd == 6 || cmd == 13; /* WAIT, WAIT_BITSET, LOCK_PI(2) */
}

static void wait_end(struct sp_replay *r, struct sp_rp_th *t, uint64_t ts, bool ok)
{
	settle_cpu(r, t, ts);
	if (ok && t->waker > 0 && t->wait_tok) {
		int l = lock_ref(r, t->wait_addr, t->wait_kind);

		if (l >= 0)
			push_tok(r, t, IT_WAIT, l, t->wait_hold, t->wait_tok, ts - t->wait_start,
				 ts);
	} else if (t->wait_slept) {
		push(r, t, IT_SLEEP, -1, 0, ts - t->wait_start, ts);
	}
	t->wait = W_NONE;
	t->waker = -1;
	t->wait_left = ts;
}

/* @t came on a CPU at @ts: the sleep it was in ends (where the trace
 * showed its wake, else now) and it runs from @ts. */
static void came_on(struct sp_replay *r, struct sp_rp_th *t, uint64_t ts, const char *comm)
{
	if (t->sleeping) {
		uint64_t end = t->woken ? t->wake_ts : ts;

		push(r, t, IT_SLEEP, -1, 0, end - t->sleep_start, end);
		t->sleeping = false;
	}
	t->running = true;
	t->run_since = t->on_since = ts;
	if (!t->comm[0])
		memcpy(t->comm, comm, SP_TRACE_COMM_LEN);
}

int sp_replay_feed(void *ctx, const struct sp_trace_event *ev)
{
	struct sp_replay *r = ctx;
	uint64_t ts = ev->ts_ns;
	struct sp_rp_th *t, *u;

	if (r->nomem)
		return -ENOMEM;
	r->c.events++;
	if (r->c.events == 1) {
		r->first = ts;
	} else if (ts > r->last && ts - r->last > r->gap_ns) {
		r->gap_ns = ts - r->last;
		r->gap_from = r->last;
		r->gap_event = r->c.events;
	}
	r->last = ts;
	/* An event in a thread's context means it is on that CPU, even when
	 * the trace missed the sched_switch that put it there. */
	if (ev->pid > 0 && ev->cpu >= 0 && ev->cpu < 64 && ev->type != SP_TR_SWITCH &&
	    r->cur[ev->cpu] != ev->pid) {
		struct sp_rp_th *prev = r->cur[ev->cpu] > 0 ? th_get(r, r->cur[ev->cpu], ts) : NULL;

		if (prev && prev->running) {
			prev->cpu_acc += ts > prev->run_since ? ts - prev->run_since : 0;
			prev->running = false;
		}
		r->cur[ev->cpu] = ev->pid;
		if ((t = th_get(r, ev->pid, ts)) && !t->running)
			came_on(r, t, ts, ev->comm);
	}
	switch (ev->type) {
	case SP_TR_SWITCH:
		/* A filtered trace (set_event_pid) misses the switches between
		 * tasks it does not follow: whatever this CPU ran before stops. */
		if (ev->cpu >= 0 && ev->cpu < 64 && r->cur[ev->cpu] > 0 &&
		    r->cur[ev->cpu] != ev->u.sw.prev_pid &&
		    (u = th_get(r, r->cur[ev->cpu], ts)) && u->running) {
			u->cpu_acc += ts > u->run_since ? ts - u->run_since : 0;
			u->running = false;
		}
		if ((t = th_get(r, ev->u.sw.prev_pid, ts))) {
			if (t->running && ts > t->run_since)
				t->cpu_acc += ts - t->run_since;
			if (t->running && ev->u.sw.prev_state == SP_TRS_RUNNABLE && !t->wait) {
				t->running = false;
				preempted(r, t, ts);
			}
			t->running = false;
			t->prio = ev->u.sw.prev_prio;
			t->last_ts = ts;
			memcpy(t->comm, ev->u.sw.prev_comm, SP_TRACE_COMM_LEN);
			if (ev->u.sw.prev_state != SP_TRS_RUNNABLE) {
				settle_cpu(r, t, ts);
				if (t->wait) {
					t->wait_slept = true;
				} else if (ev->u.sw.prev_state != SP_TRS_DEAD) {
					t->sleeping = true;
					t->woken = false;
					t->sleep_start = ts;
				}
			}
		}
		if (ev->cpu >= 0 && ev->cpu < 64)
			r->cur[ev->cpu] = ev->u.sw.next_pid;
		if ((t = th_get(r, ev->u.sw.next_pid, ts))) {
			if (t->running && ts > t->run_since) /* on two CPUs: a missed switch-out */
				t->cpu_acc += ts - t->run_since;
			came_on(r, t, ts, ev->u.sw.next_comm);
			t->prio = ev->u.sw.next_prio;
			t->last_ts = ts;
		}
		break;
	case SP_TR_WAKING:
	case SP_TR_WAKEUP:
		if (!(t = th_get(r, ev->u.wake.pid, ts)))
			break;
		if (t->wait && t->waker < 0) {
			bool irq = (ev->flags & SP_TRACE_EVF_IRQ) || ev->pid <= 0;

			u = irq ? NULL : th_get(r, ev->pid, ts);
			/* A futex wait for the value of its waker's tid is a join
			 * (pthread_join waits on the tid word the kernel clears and
			 * wakes when that thread exits): not a lock, the waiter
			 * sleeps through it. */
			if (u && t->wait == W_FUTEX && (int32_t)t->wait_val == u->tid) {
				u = NULL;
				r->c.joins++;
			}
			t->waker = u ? u->tid : 0;
			t->wait_tok = 0;
			if (u && u != t) {
				int l = lock_ref(r, t->wait_addr, t->wait_kind);

				if (l >= 0 && r->ntk == r->captk &&
				    sp_grow((void **)&r->tk, &r->captk, sizeof(*r->tk), r->captk + 1, 64))
					return -ENOMEM;
				if (l >= 0) {
					/* The waker held the other side of an rwlock: a
					 * reader wakes the writer, the writer its readers. */
					uint8_t side = t->wait_kind == SP_SIM_URWLOCK_W &&
						       t->wait_hold == SP_SIM_EXCL ? SP_SIM_SHARED
										   : SP_SIM_EXCL;

					r->tk[r->ntk] = (struct sp_rp_tok){
						.waiter = t->idx, .waker = u->idx, .lock = l,
						.hold = t->wait_hold, .req = t->wait_start, .woke = ts };
					t->wait_tok = (uint32_t)++r->ntk;
					flush_cpu(r, u, ts);
					push_tok(r, u, IT_WAKE, l, side, t->wait_tok, 0, ts);
				}
			}
		} else if (t->sleeping && !t->woken) {
			t->woken = true;
			t->wake_ts = ts;
		}
		break;
	case SP_TR_FUTEX_ENTER:
		if (!(t = th_get(r, ev->pid, ts)) || !futex_is_wait(ev->u.futex.op))
			break;
		flush_cpu(r, t, ts);
		t->wait = W_FUTEX;
		t->wait_addr = ev->u.futex.uaddr;
		t->wait_val = ev->u.futex.val;
		/* glibc's mutex waits with FUTEX_WAIT for the value 2 (or
		 * LOCK_PI); its rwlocks (and anything else) wait for other
		 * values, with WAIT_BITSET: replayed as an rwlock. Which side
		 * the waiter takes comes from the value glibc waits for: a
		 * writer waits for the readers to leave on __wrphase_futex
		 * while it is 0 | FUTEX_USED (0 or 2); a reader waits for a
		 * writer on __wrphase_futex at 1 | FUTEX_USED (3) or on
		 * __readers with RWAITING (4) set. (A writer waiting for
		 * another writer, __writers_futex at 3, reads as a reader.) */
		t->wait_kind = ((ev->u.futex.op & 0x7f) == 0 && ev->u.futex.val == 2) ||
			       (ev->u.futex.op & 0x7f) == 6 || (ev->u.futex.op & 0x7f) == 13
			       ? SP_SIM_UMUTEX : SP_SIM_URWLOCK_W;
		t->wait_hold = t->wait_kind == SP_SIM_URWLOCK_W && ev->u.futex.val != 0 &&
			       ev->u.futex.val != 2 ? SP_SIM_SHARED : SP_SIM_EXCL;
		t->wait_start = ts;
		t->wait_slept = false;
		t->waker = -1;
		break;
	case SP_TR_FUTEX_EXIT:
		if ((t = th_get(r, ev->pid, ts)) && t->wait == W_FUTEX)
			wait_end(r, t, ts, ev->u.futex.ret == 0);
		break;
	case SP_TR_LOCK_BEGIN: {
		uint32_t f = ev->u.lock.flags;
		bool mutex_spin = (f & (SP_TRACE_LCB_SPIN | SP_TRACE_LCB_MUTEX)) ==
				  (SP_TRACE_LCB_SPIN | SP_TRACE_LCB_MUTEX);

		if (((f & SP_TRACE_LCB_SPIN) && !mutex_spin) || !(t = th_get(r, ev->pid, ts)))
			break;
		if (t->wait == W_KLOCK && t->wait_spin && t->wait_addr == ev->u.lock.addr &&
		    !mutex_spin) {
			/* The spin gave up and the waiter sleeps: the wait began
			 * when it asked, at the spin, and the CPU it spun is not
			 * its own work (replayed, a waiter just waits). */
			drop_wait_cpu(r, t, ts);
			t->wait_spin = false;
			break;
		}
		if (t->wait)
			break;
		/* A kernel mutex's request is its first contention_begin, the
		 * one with SPIN (mutex_optimistic_spin follows it), as `superpass
		 * analyze` counts it; a spinlock's own begins are no wait. */
		if (f & SP_TRACE_LCB_WRITE)
			drop_rwsem_spin(r, t, ev->u.lock.addr, ts);
		flush_cpu(r, t, ts);
		t->wait_spin = mutex_spin;
		t->wait = W_KLOCK;
		t->wait_addr = ev->u.lock.addr;
		t->wait_kind = (f & (SP_TRACE_LCB_READ | SP_TRACE_LCB_WRITE)) ? SP_SIM_RWSEM
									      : SP_SIM_KMUTEX;
		t->wait_hold = (f & SP_TRACE_LCB_READ) ? SP_SIM_SHARED : SP_SIM_EXCL;
		t->wait_start = ts;
		t->wait_slept = false;
		t->waker = -1;
		break;
	}
	case SP_TR_LOCK_END:
		if ((t = th_get(r, ev->pid, ts)) && t->wait == W_KLOCK &&
		    t->wait_addr == ev->u.lock.addr)
			wait_end(r, t, ts, ev->u.lock.ret == 0);
		break;
	case SP_TR_FORK:
		u = th_get(r, ev->u.fork.parent_pid, ts);
		if (u && !u->comm[0] && ev->pid == u->tid)
			memcpy(u->comm, ev->comm, SP_TRACE_COMM_LEN);
		t = th_get(r, ev->u.fork.child_pid, ts);
		if (!t)
			break;
		memcpy(t->comm, ev->u.fork.child_comm, SP_TRACE_COMM_LEN);
		if (!r->have_root && !r->o.all_threads) {
			/* `superpass record` forks the command first: its tree is
			 * the replay; any other trace replays every thread. */
			r->have_root = true;
			r->root_superpass = u && !strcmp(u->comm, "superpass");
			if (r->root_superpass) {
				for (size_t i = 0; i < r->nth; i++)
					r->th[i]->in_set = false;
				t->in_set = true;
			}
		} else {
			t->in_set = r->o.all_threads || !r->root_superpass || (u && u->in_set);
		}
		break;
	case SP_TR_EXIT:
		if ((t = th_get(r, ev->u.exit.pid, ts))) {
			flush_cpu(r, t, ts);
			t->exited = true;
		}
		break;
	case SP_TR_RENAME:
		if ((t = th_get(r, ev->u.rename.pid, ts)))
			memcpy(t->comm, ev->u.rename.newcomm, SP_TRACE_COMM_LEN);
		break;
	case SP_TR_LOST:
		r->c.lost++;
		break;
	default:
		break;
	}
	return r->nomem ? -ENOMEM : 0;
}

/* At the trace's end: @t's CPU up to the last event is an item, a sleep it
 * was in ends there, and a wait still open is dropped (and counted). */
void sp_rp_close_thread(struct sp_replay *r, struct sp_rp_th *t)
{
	if (t->running) {
		if (r->last > t->run_since)
			t->cpu_acc += r->last - t->run_since;
		t->running = false;
	}
	flush_cpu(r, t, r->last);
	if (t->sleeping && r->last > t->sleep_start) { /* asleep at the end */
		push(r, t, IT_SLEEP, -1, 0, r->last - t->sleep_start, r->last);
		t->sleeping = false;
	}
	if (t->wait) { /* open at the end: dropped, and said */
		if (t->in_set)
			r->c.open_waits++;
		wait_end(r, t, r->last, false);
	}
}
