// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A trace turned into a simulator workload (include/superpass/replay.h has
 * the model and its assumptions). One pass over the events collects, per
 * thread, a list of items (CPU, lock wait, wake of a waiter, sleep); the
 * finish turns them into an rt-app program per thread, writes it as JSON
 * and parses that text back with the simulator's own reader, so the file
 * --workload writes is exactly what the replay ran.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <superpass/replay.h>

enum { IT_CPU, IT_WAIT, IT_WAKE, IT_SLEEP };

struct item {
	uint8_t type;
	uint8_t hold;         /* enum sp_sim_hold */
	bool preempt;         /* CPU: the thread was preempted where it ends */
	int32_t lock;         /* the real lock (WAIT, WAKE) */
	uint32_t tok;         /* the wake that ended the wait (WAIT, WAKE), 1-based */
	uint64_t ns;          /* CPU or wall length */
	uint64_t end;         /* wall time the item ended */
};

/* One wake of a waiter: the dependency the replay keeps. */
struct tok {
	int32_t waiter, waker;   /* thread indexes */
	int32_t lock;
	uint8_t hold;
	bool used;               /* the last wake of an acquisition */
	bool sleep;              /* its waker is not replayed: the wait is a sleep */
	uint64_t req;            /* when the waiter asked (trace time) */
	uint64_t woke;           /* when the waker woke it */
	uint32_t readers;        /* read sections inferred at this (writer's) wait */
};

enum { W_NONE, W_FUTEX, W_KLOCK };

struct th {
	int32_t tid;
	char comm[SP_TRACE_COMM_LEN];
	int32_t prio;
	bool in_set, critical, running, exited;
	uint64_t first_ts, last_ts, run_since, cpu_acc, cpu_total;
	int wait;             /* W_* */
	uint64_t wait_addr, wait_start;
	uint32_t wait_val;    /* a futex wait's expected value */
	uint8_t wait_hold, wait_kind;
	bool wait_slept;
	bool wait_spin;       /* a kernel mutex's wait, still in its optimistic spin */
	uint64_t on_since;    /* it came on its CPU (running) */
	uint64_t wait_left;   /* its last lock wait ended */
	uint32_t wait_tok;
	int32_t idx;
	int32_t waker;        /* -1 none yet, 0 irq/timer */
	bool sleeping, woken;
	uint64_t sleep_start, wake_ts;
	struct item *it;
	size_t n, cap;
	struct th *hnext;
};

struct lk {
	uint64_t addr;
	uint8_t kind;         /* enum sp_sim_lock_kind */
	bool used;            /* a replayed thread takes it */
};

#define HBITS 12

struct sp_replay {
	struct sp_replay_opts o;
	struct th **th;
	size_t nth, capth;
	struct th *hash[1u << HBITS];
	struct lk *lk;
	size_t nlk, caplk;
	struct tok *tk;
	size_t ntk, captk;
	uint64_t merge_ns;
	bool have_root, root_superpass;
	uint64_t first, last;
	struct sp_replay_counts c;
	struct sp_hist hist;
	uint64_t frames, janky;
	/* the critical threads' lock waits replayed, on kernel locks and on
	 * futexes: who applies their fast tracks (sp_waiter_boost) */
	uint64_t crit_kwaits, crit_fwaits;
	int32_t cur[64];      /* the thread each CPU runs, as far as seen */
	char *json;
	size_t jlen, jcap;
	struct sp_sim_workload *w;
	int nomem;
};

void sp_replay_opts_default(struct sp_replay_opts *o)
{
	memset(o, 0, sizeof(*o));
}

int sp_replay_create(const struct sp_replay_opts *o, struct sp_replay **out)
{
	struct sp_replay *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	if (o)
		r->o = *o;
	sp_hist_init(&r->hist);
	r->merge_ns = 50000;
	*out = r;
	return 0;
}

void sp_replay_free(struct sp_replay *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nth; i++) {
		free(r->th[i]->it);
		free(r->th[i]);
	}
	free(r->th);
	free(r->lk);
	free(r->tk);
	free(r->json);
	sp_sim_workload_free(r->w);
	free(r);
}

static struct th *th_get(struct sp_replay *r, int32_t tid, uint64_t ts)
{
	unsigned h = ((uint32_t)tid * 2654435761u) >> (32 - HBITS);
	struct th *t;

	if (tid <= 0)
		return NULL;
	for (t = r->hash[h]; t; t = t->hnext)
		if (t->tid == tid)
			return t;
	if (r->nth == r->capth) {
		size_t cap = r->capth ? 2 * r->capth : 64;
		struct th **v = realloc(r->th, cap * sizeof(*v));

		if (!v) {
			r->nomem = 1;
			return NULL;
		}
		r->th = v;
		r->capth = cap;
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

static void push_tok(struct sp_replay *r, struct th *t, uint8_t type, int32_t lock, uint8_t hold,
		     uint32_t tok, uint64_t ns, uint64_t end)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 32;
		struct item *v = realloc(t->it, cap * sizeof(*v));

		if (!v) {
			r->nomem = 1;
			return;
		}
		t->it = v;
		t->cap = cap;
	}
	t->it[t->n++] = (struct item){ .type = type, .lock = lock, .hold = hold, .tok = tok,
				       .ns = ns, .end = end };
}

static void push(struct sp_replay *r, struct th *t, uint8_t type, int32_t lock, uint8_t hold,
		 uint64_t ns, uint64_t end)
{
	push_tok(r, t, type, lock, hold, 0, ns, end);
}

/* The CPU @t has run up to @ts, added to its cpu_acc. */
static void accrue_cpu(struct th *t, uint64_t ts)
{
	if (t->running && ts > t->run_since) {
		t->cpu_acc += ts - t->run_since;
		t->run_since = ts;
	}
}

/* The CPU @t used up to @ts, as one item. */
static void flush_cpu(struct sp_replay *r, struct th *t, uint64_t ts)
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
 * handoff pending) until need_resched. 6.12's QEMU inode trace: sp-crit
 * spun 4 ms, a tick, at each of its futile wakes. Replayed, a waiter just
 * waits; kept as work, that spin would be done again each time its
 * program loops, whether the replayed wait is long or not. */
static void drop_wait_cpu(struct sp_replay *r, struct th *t, uint64_t ts)
{
	accrue_cpu(t, ts);
	if (t->in_set)
		r->c.spin_ns += t->cpu_acc;
	t->cpu_acc = 0;
}

/* At a blocking point: the CPU since the last item is the thread's work,
 * as an item, unless it ran inside a kernel lock wait (drop_wait_cpu). */
static void settle_cpu(struct sp_replay *r, struct th *t, uint64_t ts)
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
 * stops only at need_resched. 6.12's QEMU inode and populate traces:
 * sp-crit spun 3.9 ms, to the tick, before most requests, while a starved
 * nice-19 waiter held the handoff (its pwrite() up to inode_lock() is
 * microseconds). Where the spin began the trace does not show; taken here
 * as the latest of: the thread came on its CPU, its last lock wait ended,
 * and another thread began waiting for this rwsem (the oldest still
 * queued). With no one queued, a spin on a running owner lasts as long as
 * that owner's section, and the CPU is kept as work. Dropped like a
 * waiter's (drop_wait_cpu): replayed, a writer asks at once and waits.
 */
static void drop_rwsem_spin(struct sp_replay *r, struct th *t, uint64_t addr, uint64_t ts)
{
	uint64_t from = 0, spun;

	if (!t->running)
		return;
	for (size_t i = 0; i < r->nth; i++) {
		const struct th *u = r->th[i];

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
static void preempted(struct sp_replay *r, struct th *t, uint64_t ts)
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
	if (r->nlk == r->caplk) {
		size_t cap = r->caplk ? 2 * r->caplk : 16;
		struct lk *v = realloc(r->lk, cap * sizeof(*v));

		if (!v) {
			r->nomem = 1;
			return -1;
		}
		r->lk = v;
		r->caplk = cap;
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

static void wait_end(struct sp_replay *r, struct th *t, uint64_t ts, bool ok)
{
	settle_cpu(r, t, ts);
	if (ok && t->waker > 0 && t->wait_tok) {
		int l = lock_ref(r, t->wait_addr, t->wait_kind);

		if (l >= 0)
			push_tok(r, t, IT_WAIT, l, t->wait_hold, t->wait_tok, ts - t->wait_start, ts);
	} else if (t->wait_slept) {
		push(r, t, IT_SLEEP, -1, 0, ts - t->wait_start, ts);
	}
	t->wait = W_NONE;
	t->waker = -1;
	t->wait_left = ts;
}

int sp_replay_feed(void *ctx, const struct sp_trace_event *ev)
{
	struct sp_replay *r = ctx;
	uint64_t ts = ev->ts_ns;
	struct th *t, *u;

	if (r->nomem)
		return -ENOMEM;
	r->c.events++;
	if (r->c.events == 1)
		r->first = ts;
	r->last = ts;
	/* An event in a thread's context means it is on that CPU, even when
	 * the trace missed the sched_switch that put it there. */
	if (ev->pid > 0 && ev->cpu >= 0 && ev->cpu < 64 && ev->type != SP_TR_SWITCH &&
	    r->cur[ev->cpu] != ev->pid) {
		struct th *prev = r->cur[ev->cpu] > 0 ? th_get(r, r->cur[ev->cpu], ts) : NULL;

		if (prev && prev->running) {
			prev->cpu_acc += ts > prev->run_since ? ts - prev->run_since : 0;
			prev->running = false;
		}
		r->cur[ev->cpu] = ev->pid;
		if ((t = th_get(r, ev->pid, ts)) && !t->running) {
			if (t->sleeping) {
				uint64_t end = t->woken ? t->wake_ts : ts;

				push(r, t, IT_SLEEP, -1, 0, end - t->sleep_start, end);
				t->sleeping = false;
			}
			t->running = true;
			t->run_since = t->on_since = ts;
			if (!t->comm[0])
				memcpy(t->comm, ev->comm, SP_TRACE_COMM_LEN);
		}
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
			if (t->sleeping) {
				uint64_t end = t->woken ? t->wake_ts : ts;

				push(r, t, IT_SLEEP, -1, 0, end - t->sleep_start, end);
				t->sleeping = false;
			}
			t->running = true;
			t->run_since = t->on_since = ts;
			t->prio = ev->u.sw.next_prio;
			t->last_ts = ts;
			if (!t->comm[0])
				memcpy(t->comm, ev->u.sw.next_comm, SP_TRACE_COMM_LEN);
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

				if (l >= 0 && r->ntk == r->captk) {
					size_t cap = r->captk ? 2 * r->captk : 64;
					struct tok *v = realloc(r->tk, cap * sizeof(*v));

					if (!v)
						return -ENOMEM;
					r->tk = v;
					r->captk = cap;
				}
				if (l >= 0) {
					/* The waker held the other side of an rwlock: a
					 * reader wakes the writer, the writer its readers. */
					uint8_t side = t->wait_kind == SP_SIM_URWLOCK_W &&
						       t->wait_hold == SP_SIM_EXCL ? SP_SIM_SHARED
										   : SP_SIM_EXCL;

					r->tk[r->ntk] = (struct tok){ .waiter = t->idx, .waker = u->idx,
						.lock = l, .hold = t->wait_hold, .req = t->wait_start,
						.woke = ts };
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

/* ---- the JSON text ---- */
__attribute__((format(printf, 2, 3)))
static void jp(struct sp_replay *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = r->jcap - r->jlen;

		va_start(ap, fmt);
		n = vsnprintf(r->json ? r->json + r->jlen : NULL, r->json ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			r->nomem = 1;
			return;
		}
		if (r->json && (size_t)n < room) {
			r->jlen += (size_t)n;
			return;
		}
		size_t cap = r->jcap ? 2 * r->jcap : 65536;

		while (cap < r->jlen + (size_t)n + 1)
			cap *= 2;
		char *v = realloc(r->json, cap);

		if (!v) {
			r->nomem = 1;
			return;
		}
		r->json = v;
		r->jcap = cap;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The name of real lock @l in the workload: futex-ADDR, kmutex-ADDR, rwsem-ADDR. */
static void lock_name(const struct sp_replay *r, int32_t l, char *buf, size_t cap)
{
	static const char *const pre[] = { "futex", "rwlock", "rwlock", "kmutex", "rwsem" };

	snprintf(buf, cap, "%s-%llx", pre[r->lk[l].kind], (unsigned long long)r->lk[l].addr);
}

static void th_name(const struct th *t, char *buf, size_t cap)
{
	char c[SP_TRACE_COMM_LEN];
	size_t i;

	for (i = 0; i < SP_TRACE_COMM_LEN - 1 && t->comm[i]; i++) {
		char ch = t->comm[i];

		c[i] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		       (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.' ? ch : '_';
	}
	c[i] = 0;
	snprintf(buf, cap, "%s-%d", i ? c : "thread", t->tid);
}

/* Microseconds, rounded on the running sum so that rounding does not add up. */
struct us_clock {
	uint64_t ns, us;
};

static uint64_t to_us(struct us_clock *c, uint64_t ns)
{
	uint64_t to;

	c->ns += ns;
	to = (c->ns + 500) / 1000;
	ns = to - c->us;
	c->us = to;
	return ns;
}

/* An output op before JSON: run/sleep in ns, lock/unlock, timer. */
enum { OP_RUN, OP_SLEEP, OP_TIMER, OP_LOCK, OP_UNLOCK, OP_RUNTIME, OP_PREEMPT };
struct op {
	uint8_t type, hold;
	int32_t lock;
	uint64_t ns;
};

struct prog {
	struct op *op;
	size_t n, cap;
	int nomem;
};

static void op_add(struct prog *p, uint8_t type, int32_t lock, uint8_t hold, uint64_t ns)
{
	if (type == OP_RUN && p->n && p->op[p->n - 1].type == OP_RUN) {
		p->op[p->n - 1].ns += ns;
		return;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct op *v = realloc(p->op, cap * sizeof(*v));

		if (!v) {
			p->nomem = 1;
			return;
		}
		p->op = v;
		p->cap = cap;
	}
	p->op[p->n++] = (struct op){ .type = type, .lock = lock, .hold = hold, .ns = ns };
}

#define MAXHELD 14 /* tokens a thread holds at once (the simulator allows 16 locks) */

/* The period of @t's sleeps if they end on a grid, else 0. */
static uint64_t period_of(const struct th *t, size_t *grid, bool *keep)
{
	uint64_t *iv, prev = 0, p = 0;
	size_t n = 0, ok = 0, ns = 0;

	iv = malloc((t->n + 1) * sizeof(*iv));
	if (!iv)
		return 0;
	for (size_t i = 0; i < t->n; i++) {
		if (t->it[i].type != IT_SLEEP)
			continue;
		if (ns++)
			iv[n++] = t->it[i].end - prev;
		prev = t->it[i].end;
	}
	if (n >= 8) {
		uint64_t *s = malloc(n * sizeof(*s));

		if (s) {
			memcpy(s, iv, n * sizeof(*s));
			qsort(s, n, sizeof(*s), cmp_u64);
			p = s[n / 2];
			free(s);
		}
		for (size_t i = 0; p && i < n; i++) {
			uint64_t m = (iv[i] + p / 2) / p, d = iv[i] > m * p ? iv[i] - m * p : m * p - iv[i];

			ok += m >= 1 && d * 10 <= p;
		}
		if (ok * 10 < n * 8)
			p = 0;
	}
	/* The simulated timer counts periods from the thread's start. The
	 * frames start at the first sleep whose next interval is on the grid
	 * (*grid: its item); the sleeps before it (start-up: a barrier, a
	 * first nap) are dropped and the start moved to a period before that
	 * sleep's end, which needs them to hold no lock wait or wake. When
	 * they do (a frame loop blocked from its first frames), they are
	 * kept as they are (*keep) and the frames start at the thread's
	 * start. */
	*grid = 0;
	*keep = false;
	for (size_t i = 0, k = 0; p && i < t->n; i++) {
		uint64_t m, d;

		if (t->it[i].type == IT_WAIT || t->it[i].type == IT_WAKE) {
			*keep = true;
			continue;
		}
		if (t->it[i].type != IT_SLEEP)
			continue;
		if (k >= n) {
			p = 0;
			break;
		}
		m = (iv[k] + p / 2) / p;
		d = iv[k] > m * p ? iv[k] - m * p : m * p - iv[k];
		k++;
		if (m >= 1 && d * 10 <= p) {
			*grid = i;
			break;
		}
	}
	free(iv);
	return p;
}

/* Which wakes matter: a waiter that waited again on the same lock right
 * after a wake (glibc's retry: it lost the race) depends on the last wake
 * only; its blocking runs from its first request. */
static void mark_tokens(struct sp_replay *r, const struct th *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct item *it = &t->it[i];
		uint64_t between = 0;
		size_t j;

		if (it->type != IT_WAIT)
			continue;
		for (j = i + 1; j < t->n; j++) {
			if (t->it[j].type == IT_CPU)
				between += t->it[j].ns;
			else if (t->it[j].type != IT_WAKE)
				break;
		}
		if (j < t->n && t->it[j].type == IT_WAIT && t->it[j].lock == it->lock &&
		    between <= r->merge_ns) {
			r->tk[it->tok - 1].used = false;
			if (r->tk[it->tok - 1].req < r->tk[t->it[j].tok - 1].req)
				r->tk[t->it[j].tok - 1].req = r->tk[it->tok - 1].req;
			continue;
		}
		if (!r->th[r->tk[it->tok - 1].waker]->in_set ||
		    !r->th[r->tk[it->tok - 1].waker]->cpu_total) {
			r->tk[it->tok - 1].sleep = true;
			continue;
		}
		r->tk[it->tok - 1].used = true;
		if (t->critical) {
			uint8_t kind = r->lk[it->lock].kind;

			sp_hist_record(&r->hist, it->end - r->tk[it->tok - 1].req);
			if (kind == SP_SIM_KMUTEX || kind == SP_SIM_RWSEM)
				r->crit_kwaits++;
			else
				r->crit_fwaits++;
		}
		r->c.waits++;
	}
}

/* glibc readers wake readers too: the first reader of a read phase wakes
 * the others waiting on __wrphase_futex. That wake releases nothing (the
 * waker just took the read side), so it is not a release: a reader's
 * (a thread that waited for the lock only as a reader) wakes of readers
 * become nothing (an empty CPU item); a reader is a thread that waited
 * as one or woke a writer, and never waited as a writer. Returns -1 on no
 * memory. */
static int phase_wakes(struct sp_replay *r, struct th *t)
{
	uint8_t *role = calloc(r->nlk + 1, 1); /* bit 0: waited shared, bit 1: exclusive */

	if (!role)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		if (t->it[i].type == IT_WAIT && t->it[i].lock >= 0)
			role[t->it[i].lock] |= t->it[i].hold == SP_SIM_SHARED ? 1 : 2;
		else if (t->it[i].type == IT_WAKE && t->it[i].hold == SP_SIM_SHARED)
			role[t->it[i].lock] |= 1; /* woke a writer: the last reader out */
	}
	for (size_t i = 0; i < t->n; i++) {
		struct item *it = &t->it[i];

		if (it->type == IT_WAKE && r->lk[it->lock].kind == SP_SIM_URWLOCK_W &&
		    it->hold == SP_SIM_EXCL && role[it->lock] == 1) {
			*it = (struct item){ .type = IT_CPU, .lock = -1, .end = it->end };
			r->c.phase_wakes++;
		}
	}
	free(role);
	return 0;
}

/* A lock or unlock of a real lock placed in a thread's items: before item
 * @at, or @off ns into it when it is CPU time. */
struct ins {
	size_t at;
	uint64_t off;
	uint32_t seq;  /* order at one position: releases first, then the lock
			  released last is taken first (nesting) */
	uint8_t type;  /* OP_LOCK, OP_UNLOCK */
	uint8_t hold;
	int32_t lock;
};

static int cmp_ins(const void *a, const void *b)
{
	const struct ins *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The CPU time between two wakes of one unlock at most: glibc's unlock of
 * a writer wakes its queued readers in one futex call, and a kernel
 * rwsem's release wakes them from one wake queue, each sched_waking 1-3 us
 * of the waker's CPU after the one before (the bench's writer: 1-2 us).
 * No thread releases, takes and releases one lock again in that time. */
#define RELEASE_GAP_NS 10000

/* The wake items from @i on that are one release of @lock (one unlock
 * that woke several waiters, RELEASE_GAP_NS of CPU apart at most): the
 * last one. Taken as two, the replay's waker let the lock go, took it back
 * at once and let it go again, so a writer that had just handed the read
 * side to its readers waited for them (the bench's rwlock writer: 78 such
 * waits in one 5 s replay). */
static size_t release_end(const struct th *t, size_t i, int32_t lock)
{
	size_t j = i;

	for (size_t k = i + 1; k < t->n; k++) {
		const struct item *x = &t->it[k];
		uint64_t gap = 0;

		if (x->type == IT_WAKE && x->lock == lock) {
			j = k;
			continue;
		}
		if (x->type != IT_CPU || x->preempt)
			break;
		for (; k < t->n && t->it[k].type == IT_CPU && !t->it[k].preempt; k++)
			gap += t->it[k].ns;
		if (gap > RELEASE_GAP_NS || k == t->n || t->it[k].type != IT_WAKE ||
		    t->it[k].lock != lock)
			break;
		j = k;
	}
	return j;
}

/* What the wait at item @i becomes: the first wait of an acquisition (a
 * lock), a retry merged into it (nothing), or a sleep (its waker is not
 * replayed). */
enum { WAIT_NONE, WAIT_LOCK, WAIT_SLEEP };

static int wait_op(const struct sp_replay *r, const struct th *t, size_t i)
{
	const struct tok *tk = &r->tk[t->it[i].tok - 1];
	size_t j;

	if (tk->sleep)
		return WAIT_SLEEP;
	/* A retry (the earlier wait of the same acquisition is not used and
	 * ran into this one): already asked for at the first. */
	for (j = i; j > 0; j--) {
		const struct item *b = &t->it[j - 1];

		if (b->type == IT_WAIT) {
			if (b->lock == t->it[i].lock && !r->tk[b->tok - 1].used &&
			    !r->tk[b->tok - 1].sleep)
				return WAIT_NONE;
			break;
		}
		if (b->type != IT_CPU && b->type != IT_WAKE)
			break;
	}
	/* The first of a group: a lock if the group's last wait is used. */
	for (j = i; j < t->n; j++) {
		const struct item *x = &t->it[j];

		if (x->type != IT_WAIT || x->lock != t->it[i].lock)
			continue;
		if (r->tk[x->tok - 1].used)
			return WAIT_LOCK;
		if (r->tk[x->tok - 1].sleep)
			return WAIT_SLEEP;
	}
	return WAIT_NONE;
}

/* The side of rwlock @lock that @t holds: shared if it ever waited for it
 * as a reader or released it as one (woke a writer). */
static uint8_t side_of(const struct sp_replay *r, const struct th *t, int32_t lock)
{
	if (r->lk[lock].kind == SP_SIM_RWSEM) {
		size_t sh = 0, ex = 0;

		for (size_t i = 0; i < t->n; i++)
			if (t->it[i].type == IT_WAIT && t->it[i].lock == lock)
				t->it[i].hold == SP_SIM_SHARED ? sh++ : ex++;
		return sh > ex ? SP_SIM_SHARED : SP_SIM_EXCL;
	}
	if (r->lk[lock].kind != SP_SIM_URWLOCK_W)
		return SP_SIM_EXCL;
	for (size_t i = 0; i < t->n; i++)
		if ((t->it[i].type == IT_WAIT || t->it[i].type == IT_WAKE) &&
		    t->it[i].lock == lock && t->it[i].hold == SP_SIM_SHARED)
			return SP_SIM_SHARED;
	return SP_SIM_EXCL;
}

/* A boundary of a critical section: a sleep (a holder is assumed not to
 * sleep with a lock held) or a wait for @lock. */
static bool cs_boundary(const struct sp_replay *r, const struct item *x, int32_t lock)
{
	/* Only mutex sections nest (a chain: A held while waiting for B). */
	return x->type == IT_SLEEP ||
	       (x->type == IT_WAIT && (x->lock == lock || r->lk[lock].kind != SP_SIM_UMUTEX));
}

/* A kernel rwsem's wake is recorded as an exclusive release; the waker's
 * side is the one it waited for since its last boundary, else the side
 * most of its waits for that rwsem took. */
static void rwsem_wakes(struct sp_replay *r, struct th *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct item *it = &t->it[i];
		size_t j;

		if (it->type != IT_WAKE || r->lk[it->lock].kind != SP_SIM_RWSEM)
			continue;
		for (j = i; j > 0; j--) {
			const struct item *b = &t->it[j - 1];

			if (b->type == IT_WAIT && b->lock == it->lock)
				break;
			if (cs_boundary(r, b, it->lock))
				break;
		}
		if (j > 0 && t->it[j - 1].type == IT_WAIT && t->it[j - 1].lock == it->lock)
			it->hold = t->it[j - 1].hold;
		else
			it->hold = side_of(r, t, it->lock);
	}
}

/* Whether item @j of @t is a retry of an acquisition of @lock already
 * asked for (wait_op merged it into the first wait: WAIT_NONE): a glibc
 * reader that found a writer waiting in a read phase waits unregistered
 * (RWAITING, on __readers); the last reader out wakes it, it retries,
 * finds the lock write-held or a writer queued again and waits again (on
 * __readers, or on __wrphase_futex for the writer's unlock); only after
 * the last of these waits does it hold the read side and run its section
 * (the bench's readers: 500 us). A mutex waiter whose lock was taken
 * between its wake and its retry waits again the same way. A retry is no
 * boundary of the section the first wait opened: taken as one, the
 * section ended at the retry, a few us after the first wait, and the
 * reader ran its 500 us outside the lock. */
static bool is_retry(const struct item *x, int8_t op, int32_t lock)
{
	return x->type == IT_WAIT && x->lock == lock && op == WAIT_NONE;
}

/* The end of a section of @lock held from a wait: a boundary that is not
 * a retry of the same acquisition. */
static bool cs_end(const struct sp_replay *r, const struct th *t, const int8_t *wop, size_t j,
		   int32_t lock)
{
	return cs_boundary(r, &t->it[j], lock) && !is_retry(&t->it[j], wop[j], lock);
}

/* The CPU time @t ran from after item @from to before item @to. */
static uint64_t cpu_between(const struct th *t, size_t from, size_t to)
{
	uint64_t ns = 0;

	for (size_t j = from + 1; j < to; j++)
		if (t->it[j].type == IT_CPU)
			ns += t->it[j].ns;
	return ns;
}

/* A glibc reader's sections, which a trace shows whole only when the
 * reader waited for the lock and then was the last one out with a writer
 * waiting: seldom. Each burst of CPU between two sleeps that shows one
 * side of a read section (a wait for the read side that got it, or a wake
 * of the writer: the release) bounds that section: from the wait, or the
 * burst's start, to the wake, or the burst's end. Their lower quartile if
 * at least 3; *whole when most of them span their burst (less than 10 %
 * of its CPU before the wait and after the wake), as a reader that takes
 * the lock once each time it wakes and lets it go before it sleeps. */
static uint64_t read_len(const struct th *t, const int8_t *wop, int32_t lock, bool *whole)
{
	uint64_t *v = calloc(t->n + 1, sizeof(*v)), med = 0;
	size_t n = 0, nwhole = 0;

	*whole = false;
	if (!v)
		return 0;
	for (size_t i = 0, j; i < t->n; i = j + 1) {
		uint64_t cpu = 0, before = 0, upto = 0;
		bool acq = false, rel = false, other = false;

		for (j = i; j < t->n && t->it[j].type != IT_SLEEP; j++) {
			const struct item *x = &t->it[j];

			if (x->type == IT_CPU) {
				cpu += x->ns;
			} else if (x->type == IT_WAIT && x->lock == lock && wop[j] == WAIT_LOCK && !acq &&
				   !rel) {
				acq = true;
				before = cpu;
			} else if (x->type == IT_WAKE && x->lock == lock && x->hold == SP_SIM_SHARED) {
				rel = true;
				upto = cpu;
			} else if (x->type == IT_WAIT || x->type == IT_WAKE) {
				other |= x->lock != lock || x->type == IT_WAKE;
			}
		}
		if (other || (!acq && !rel))
			continue;
		if (!rel)
			upto = cpu;
		if (upto <= before)
			continue;
		v[n++] = upto - before;
		nwhole += before * 10 <= upto - before && (cpu - upto) * 10 <= upto - before;
	}
	if (n >= 3) {
		qsort(v, n, sizeof(*v), cmp_u64);
		med = v[n / 4];
		*whole = nwhole * 2 >= n;
	}
	free(v);
	return med;
}

/* The length (CPU time) of @t's critical sections of @lock the trace
 * shows whole: acquired by a wait, released with a wake before the next
 * boundary. Their median, 0 if fewer than 3; *whole: whether they span
 * their burst of CPU (from the wait to a sleep right after the release),
 * as a thread that does nothing else between its sleeps. */
static uint64_t cs_len(const struct sp_replay *r, const struct th *t, const int8_t *wop,
		       int32_t lock, bool *whole)
{
	uint64_t *v = NULL, med = 0;
	size_t n = 0, nwhole = 0;

	*whole = false;
	for (size_t i = 0; i < t->n; i++) {
		if (t->it[i].type != IT_WAIT || t->it[i].lock != lock || wop[i] != WAIT_LOCK)
			continue;
		for (size_t j = i + 1; j < t->n; j++) {
			const struct item *x = &t->it[j];

			if (cs_end(r, t, wop, j, lock))
				break;
			if (x->type == IT_WAKE && x->lock == lock) {
				size_t e = release_end(t, j, lock), k;
				uint64_t after = 0;

				if (!v && !(v = calloc(t->n, sizeof(*v))))
					return 0;
				v[n++] = cpu_between(t, i, j);
				for (k = e + 1; k < t->n && t->it[k].type == IT_CPU; k++)
					after += t->it[k].ns;
				nwhole += (k == t->n || t->it[k].type == IT_SLEEP) &&
					  after * 10 <= v[n - 1];
				break;
			}
		}
	}
	if (n < 3 && r->lk[lock].kind == SP_SIM_URWLOCK_W && side_of(r, t, lock) == SP_SIM_SHARED) {
		free(v);
		return read_len(t, wop, lock, whole);
	}
	if (n >= 3) {
		qsort(v, n, sizeof(*v), cmp_u64);
		med = v[n / 4];
		*whole = nwhole * 2 >= n;
		if (r->lk[lock].kind == SP_SIM_KMUTEX || r->lk[lock].kind == SP_SIM_RWSEM) {
			uint64_t sum = 0, acc = 0;

			for (size_t q = 0; q < n; q++)
				sum += v[q];
			for (size_t q = 0; q < n; q++) {
				acc += v[q];
				if (2 * acc >= sum) {
					med = v[q];
					break;
				}
			}
		}
	}
	free(v);
	return med;
}

/* The position @ns of CPU time before item @to (not before item @from):
 * *at, *off. */
static void back_cpu(const struct th *t, size_t from, size_t to, uint64_t ns, size_t *at,
		     uint64_t *off)
{
	for (size_t j = to; j > from + 1; j--) {
		const struct item *x = &t->it[j - 1];

		if (x->type != IT_CPU)
			continue;
		if (x->ns >= ns) {
			*at = j - 1;
			*off = x->ns - ns;
			return;
		}
		ns -= x->ns;
	}
	*at = from + 1;
	*off = 0;
}

/* The position @ns of CPU time after item @from (not past item @to). */
static void fwd_cpu(const struct th *t, size_t from, size_t to, uint64_t ns, size_t *at,
		    uint64_t *off)
{
	for (size_t j = from + 1; j < to; j++) {
		const struct item *x = &t->it[j];

		if (x->type != IT_CPU)
			continue;
		if (x->ns > ns) {
			*at = j;
			*off = ns;
			return;
		}
		ns -= x->ns;
	}
	*at = to;
	*off = 0;
}

struct locklen {
	int32_t lock;
	uint64_t len;
	bool whole;
};

static uint64_t len_of(const struct locklen *ll, size_t n, int32_t lock)
{
	for (size_t k = 0; k < n; k++)
		if (ll[k].lock == lock)
			return ll[k].len;
	return 0;
}

static bool ins_before(const struct ins *x, size_t at, uint64_t off)
{
	return x->at < at || (x->at == at && x->off < off);
}

/* The first of @t's items that ends after @ts (t->n if none). */
static size_t item_at(const struct th *t, uint64_t ts)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->it[mid].end > ts)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The readers a trace does not show. A glibc rwlock's writer that waits
 * is woken by the last reader out only; the other readers that held the
 * lock when it asked leave no event (an uncontended rdlock and its unlock
 * make no syscall). Assumed here: a known reader of the lock (one that
 * elsewhere waited for it as a reader or woke a writer) that, when the
 * writer asked, was inside a burst of CPU (it had run since its last
 * sleep or wait, and was not asleep) held the read side from the start of
 * that burst until the writer was woken, or until its burst ended if that
 * came first. @v (sorted) gets those sections where @t does not hold the
 * lock already; 0, or -1 on no memory. */
static int infer_readers(struct sp_replay *r, const struct th *t, const int8_t *wop,
			 struct ins **vp, size_t *np, size_t *capp, uint32_t *seq)
{
	/* @t's side of each lock, once (side_of walks all its items) */
	uint8_t *side = calloc(r->nlk + 1, 1);

	if (!side)
		return -1;
	for (size_t l = 0; l < r->nlk; l++)
		side[l] = r->lk[l].kind == SP_SIM_URWLOCK_W || r->lk[l].kind == SP_SIM_RWSEM
			  ? 1 + side_of(r, t, (int32_t)l) : 0;
	for (size_t x = 0; x < r->ntk; x++) {
		struct tok *tk = &r->tk[x];
		int32_t l = tk->lock;
		size_t i, b, e, j, at;
		bool ran = false;
		int depth = 0;

		if (!tk->used || (r->lk[l].kind != SP_SIM_URWLOCK_W && r->lk[l].kind != SP_SIM_RWSEM) ||
		    tk->hold != SP_SIM_EXCL ||
		    tk->waiter == t->idx || tk->waker == t->idx || side[l] != 1 + SP_SIM_SHARED)
			continue;
		i = item_at(t, tk->req);
		if (i >= t->n || t->it[i].type == IT_WAIT ||
		    (t->it[i].type == IT_SLEEP && t->it[i].end - t->it[i].ns <= tk->req))
			continue; /* waiting, asleep or gone when the writer asked */
		for (b = i; b > 0 && !cs_boundary(r, &t->it[b - 1], l); b--)
			ran |= t->it[b - 1].type == IT_CPU && t->it[b - 1].ns;
		ran |= t->it[i].type == IT_CPU && t->it[i].end - t->it[i].ns < tk->req;
		if (!ran)
			continue; /* woken, not yet run: it would have queued */
		for (e = i; e < t->n && !cs_boundary(r, &t->it[e], l); e++)
			;
		for (j = i; j < e && t->it[j].end <= tk->woke; j++)
			;
		at = j < e && t->it[j].type == IT_CPU && t->it[j].end - t->it[j].ns < tk->woke ? j + 1
											       : j;
		if (at <= b)
			continue;
		/* Not where @t holds the lock already (nested read holds of a
		 * writer-preferring rwlock deadlock behind a waiting writer):
		 * its acquisitions by a wait and the placed ones, against the
		 * placed releases. */
		for (size_t k = 0; k < b; k++)
			depth += t->it[k].type == IT_WAIT && t->it[k].lock == l && wop[k] == WAIT_LOCK;
		for (size_t k = 0; k < *np; k++) {
			const struct ins *y = &(*vp)[k];

			if (y->lock != l)
				continue;
			if (ins_before(y, b, 0))
				depth += y->type == OP_LOCK ? 1 : y->type == OP_UNLOCK ? -1 : 0;
			else if (ins_before(y, at, 1))
				depth = 1000; /* one inside */
		}
		if (depth > 0)
			continue;
		if (*np + 2 > *capp) {
			size_t cap = 2 * *capp + 4;
			struct ins *nv = realloc(*vp, cap * sizeof(*nv));

			if (!nv) {
				free(side);
				return -1;
			}
			*vp = nv;
			*capp = cap;
		}
		(*vp)[(*np)++] = (struct ins){ .at = b, .seq = UINT32_MAX / 2 + 1, .type = OP_LOCK,
					       .hold = SP_SIM_SHARED, .lock = l };
		(*vp)[(*np)++] = (struct ins){ .at = at, .seq = (*seq)++ & 0xffff, .type = OP_UNLOCK,
					       .hold = SP_SIM_SHARED, .lock = l };
		qsort(*vp, *np, sizeof(**vp), cmp_ins);
		r->c.readers++;
		if (++tk->readers > r->c.readers_max)
			r->c.readers_max = tk->readers;
	}
	free(side);
	return 0;
}

/* A mutex holder's release the trace shows (its unlock woke a waiter)
 * after CPU of its own since its last boundary (a sleep, a wait): a thread
 * behind its schedule runs its sections back to back (the bench's
 * holders: unlock, lock again at once, uncontended, so the trace shows
 * nothing), and the CPU before the section that ends in the release,
 * from the boundary's item @from to the inferred lock at (@at, @off), is
 * its earlier sections, of its section length @len each. The replay ran
 * that CPU outside the lock (a holder woke, ran 1.05 ms, then took the
 * lock for its 503 us), in the fair class under any policy: nice 19, 72
 * ms of virtual time it was then behind when glibc's wake-one handed it
 * the lock, and it waited 60-110 ms for its CPU behind a nice 0 hog. Only
 * a run of CPU with nothing else in it, at least 3/4 of a section.
 * The same for the kernel's locks (a kernel mutex, either side of an
 * rwsem): superpass.ko's QEMU holders run 64 KiB pwrite()s or madvise()s
 * back to back, each one section, and a starved one's 8 ms of CPU between
 * two releases it shows was a thousand 7 us sections of f_pos_lock;
 * not glibc rwlocks, whose readers' bursts infer_readers places. The
 * placements grow *@vp (one pair per section). Returns 0, or -1 on no
 * memory. */
static int back_to_back(struct sp_replay *r, const struct th *t, int32_t lock, uint8_t hold,
			uint64_t len, size_t from, size_t at, uint64_t off, struct ins **vp,
			size_t *np, size_t *capp, uint32_t *seq)
{
	uint8_t kind = r->lk[lock].kind;
	uint64_t cpu = off, m;

	if (t->critical || at < from ||
	    (kind != SP_SIM_UMUTEX && kind != SP_SIM_KMUTEX && kind != SP_SIM_RWSEM))
		return 0;
	for (size_t k = from; k < at; k++) {
		if (t->it[k].type != IT_CPU)
			return 0;
		cpu += t->it[k].ns;
	}
	if (t->it[at].type != IT_CPU || cpu * 4 < len * 3)
		return 0;
	m = (cpu + len / 2) / len; /* >= 1: cpu is at least 3/4 of len */
	if (*np + 2 * m + 2 > *capp) {
		size_t cap = *np + 2 * m + 2 + *capp;
		struct ins *nv = realloc(*vp, cap * sizeof(*nv));

		if (!nv)
			return -1;
		*vp = nv;
		*capp = cap;
	}
	for (uint64_t k = 0; k < m; k++) {
		size_t a0 = from, a1 = at;
		uint64_t o0 = 0, o1 = off;

		if (k)
			fwd_cpu(t, from - 1, at + 1, cpu * k / m, &a0, &o0);
		if (k + 1 < m)
			fwd_cpu(t, from - 1, at + 1, cpu * (k + 1) / m, &a1, &o1);
		(*vp)[(*np)++] = (struct ins){ .at = a0, .off = o0, .seq = UINT32_MAX / 2 + 1,
					       .type = OP_LOCK, .hold = hold, .lock = lock };
		(*vp)[(*np)++] = (struct ins){ .at = a1, .off = o1, .seq = (*seq)++ & 0xffff,
					       .type = OP_UNLOCK, .hold = hold, .lock = lock };
		r->c.inferred++;
	}
	return 0;
}

/* The same inside a section acquired by a wait and released by a wake
 * (from item @i to item @rel): more than 1.5 sections' CPU between them
 * is sections back to back, the holder letting the lock go and taking it
 * again uncontended between them. Held as one, the bench's holders held
 * 1.0 and 1.5 ms where they hold 500 us, and a fast-tracked holder ran
 * three sections before the critical waiter got the lock (mutex-none-1:
 * 5 of 50 such sections, its replay's longest wait 1.2 ms). Only a run of
 * CPU with nothing else in it. The extra placements grow *@vp. */
static int split_held(struct sp_replay *r, const struct th *t, int32_t lock, uint8_t hold,
		      uint64_t len, size_t i, size_t rel, struct ins **vp, size_t *np,
		      size_t *capp, uint32_t *seq)
{
	uint8_t kind = r->lk[lock].kind;
	uint64_t cpu = 0, m;

	/* glibc mutexes only: a kernel lock's sections vary more (a 2 MiB
	 * madvise under mmap_lock: 53 ms under TCG), and its length is the
	 * CPU-weighted one (cs_len); split, the QEMU predictions fell
	 * (populate 0.29 -> 0.18x of the module's P99.9) */
	if (t->critical || !len || kind != SP_SIM_UMUTEX)
		return 0;
	for (size_t k = i + 1; k < rel; k++) {
		if (t->it[k].type != IT_CPU)
			return 0;
		cpu += t->it[k].ns;
	}
	if (cpu * 2 <= len * 3)
		return 0;
	m = (cpu + len / 2) / len; /* >= 2 */
	if (*np + 2 * m + 2 > *capp) {
		size_t cap = *np + 2 * m + 2 + *capp;
		struct ins *nv = realloc(*vp, cap * sizeof(*nv));

		if (!nv)
			return -1;
		*vp = nv;
		*capp = cap;
	}
	for (uint64_t k = 1; k < m; k++) {
		size_t a;
		uint64_t o;

		/* the unlock sorts before the lock at the same point (seq) */
		fwd_cpu(t, i, rel, cpu * k / m, &a, &o);
		(*vp)[(*np)++] = (struct ins){ .at = a, .off = o, .seq = (*seq)++ & 0xffff,
					       .type = OP_UNLOCK, .hold = hold, .lock = lock };
		(*vp)[(*np)++] = (struct ins){ .at = a, .off = o, .seq = UINT32_MAX / 2 + 1,
					       .type = OP_LOCK, .hold = hold, .lock = lock };
		r->c.inferred++;
	}
	return 0;
}

/* @t's critical sections of the real locks, as lock/unlock placements. A
 * trace shows a critical section only where it was contended; its length
 * (cs_len) comes from the ones it shows whole:
 *  - acquired by a wait (the wait's first request is the lock): held up to
 *    its next visible release (a wake of that lock) if one comes before
 *    the next boundary, else for the thread's critical-section length (or
 *    to the boundary when it has none);
 *  - released with a wake but not acquired by a wait (an uncontended
 *    acquisition leaves no trace): taken that long before the release, not
 *    before @t's last boundary (its last sleep, its last wait for that lock,
 *    its previous release of it);
 *  - a thread whose whole critical sections are whole bursts of CPU
 *    between sleeps (a background thread that wakes, takes the lock, works
 *    and sleeps) is taken to hold the lock in every burst at least 3/4 that
 *    long: the ones nobody waited for left no trace.
 * Waits for other locks inside stay inside (a chain: A held while waiting
 * for B). Returns the count (in *out), or -1 on no memory. */
static ssize_t place_holds(struct sp_replay *r, const struct th *t, const int8_t *wop,
			   struct ins **out)
{
	struct ins *v;
	struct locklen ll[16];
	size_t n = 0, nll = 0, cap = 8 * t->n + 16;
	uint32_t seq = 0;

	v = calloc(cap, sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < t->n && nll < 16; i++) {
		size_t k;

		if (t->it[i].type != IT_WAIT && t->it[i].type != IT_WAKE)
			continue;
		for (k = 0; k < nll && ll[k].lock != t->it[i].lock; k++)
			;
		if (k == nll) {
			ll[nll].lock = t->it[i].lock;
			/* A critical thread's mutex sections are let go at once
			 * (its own are short, and what it shows whole are waits);
			 * as an rwlock's writer it shows its sections whole, from
			 * its wait to its wake of the readers that queued. */
			ll[nll].len = t->critical && r->lk[t->it[i].lock].kind == SP_SIM_UMUTEX
				      ? 0 : cs_len(r, t, wop, t->it[i].lock, &ll[nll].whole);
			if (t->critical)
				ll[nll].whole = false;
			nll++;
		}
	}
	for (size_t i = 0; i < t->n && n + 2 <= cap; i++) {
		const struct item *it = &t->it[i];
		size_t j, e, at;
		uint64_t off, len;
		uint8_t hold;

		if (it->type == IT_WAIT && wop[i] == WAIT_LOCK) {
			/* Held up to a release before the next boundary, else for
			 * the thread's section length. */
			size_t rel = t->n, bnd = t->n;
			uint8_t kind = r->lk[it->lock].kind;

			/* A kernel lock's holder whose request waited after a run
			 * of CPU since its release (or sleep) ran sections back to
			 * back in it, as before a release it shows: 6.12's QEMU
			 * inode holders, 64 KiB pwrite()s, showed 100-230 us
			 * sections and 4-16 ms of CPU between a release and their
			 * next wait, which the replay ran outside the lock (the
			 * critical thread found it free where it had waited a
			 * second). The sections the trace shows whole are its
			 * length. */
			if ((kind == SP_SIM_KMUTEX || kind == SP_SIM_RWSEM) && i &&
			    t->it[i - 1].type == IT_CPU && (len = len_of(ll, nll, it->lock))) {
				for (j = i; j > 0; j--) {
					const struct item *b = &t->it[j - 1];

					if (cs_boundary(r, b, it->lock) ||
					    (b->type == IT_WAKE && b->lock == it->lock))
						break;
				}
				if ((!j || t->it[j - 1].type == IT_SLEEP || t->it[j - 1].type == IT_WAKE) &&
				    back_to_back(r, t, it->lock, it->hold, len, j, i - 1,
						 t->it[i - 1].ns, &v, &n, &cap, &seq)) {
					free(v);
					return -1;
				}
			}

			for (j = i + 1; j < t->n; j++) {
				const struct item *x = &t->it[j];

				if (cs_end(r, t, wop, j, it->lock)) {
					bnd = j;
					break;
				}
				if (x->type == IT_WAKE && x->lock == it->lock) {
					rel = release_end(t, j, it->lock);
					break;
				}
			}
			if (rel < t->n) {
				at = rel + 1;
				off = 0;
				if (split_held(r, t, it->lock, it->hold, len_of(ll, nll, it->lock), i,
					       rel, &v, &n, &cap, &seq)) {
					free(v);
					return -1;
				}
			} else if ((len = len_of(ll, nll, it->lock)) || !t->critical) {
				fwd_cpu(t, i, bnd, len ? len : UINT64_MAX, &at, &off);
			} else { /* a critical thread's unknown section: let go at once */
				at = i + 1;
				off = 0;
			}
			v[n++] = (struct ins){ .at = at, .off = off, .seq = seq++ & 0xffff,
					       .type = OP_UNLOCK, .hold = it->hold, .lock = it->lock };
			continue;
		}
		if (it->type != IT_WAKE)
			continue;
		e = release_end(t, i, it->lock);
		/* Acquired by a wait since the last boundary: its unlock is
		 * placed already. */
		for (j = i; j > 0; j--) {
			const struct item *b = &t->it[j - 1];

			if (cs_boundary(r, b, it->lock) || (b->type == IT_WAKE && b->lock == it->lock))
				break;
		}
		if (j > 0 && t->it[j - 1].type == IT_WAIT && t->it[j - 1].lock == it->lock &&
		    wop[j - 1] != WAIT_SLEEP) {
			i = e;
			continue;
		}
		hold = it->hold;
		len = len_of(ll, nll, it->lock);
		if (len)
			back_cpu(t, j ? j - 1 : 0, i, len, &at, &off);
		else {
			at = j;
			off = 0;
		}
		if (!j && !len)
			at = 0;
		if (len && back_to_back(r, t, it->lock, hold, len, j, at, off, &v, &n, &cap, &seq)) {
			free(v);
			return -1;
		}
		v[n++] = (struct ins){ .at = at, .off = off,
				       .seq = UINT32_MAX / 2 + 1 + (uint32_t)(t->n - e),
				       .type = OP_LOCK, .hold = hold, .lock = it->lock };
		v[n++] = (struct ins){ .at = e + 1, .seq = seq++ & 0xffff, .type = OP_UNLOCK,
				       .hold = hold, .lock = it->lock };
		i = e;
	}
	/* Bursts of a thread whose sections are whole bursts. */
	for (size_t k = 0; k < nll; k++) {
		if (!ll[k].whole || !ll[k].len)
			continue;
		for (size_t i = 0, j; i < t->n; i = j + 1) {
			uint64_t cpu = 0;
			bool other = false;
			uint8_t hold;

			for (j = i; j < t->n && t->it[j].type != IT_SLEEP; j++) {
				if (t->it[j].type == IT_CPU)
					cpu += t->it[j].ns;
				else
					other = true; /* a wait or a wake: placed above */
			}
			if (other || cpu * 4 < ll[k].len * 3 || n + 2 > cap)
				continue;
			hold = side_of(r, t, ll[k].lock);
			v[n++] = (struct ins){ .at = i, .seq = UINT32_MAX / 2 + 1, .type = OP_LOCK,
					       .hold = hold, .lock = ll[k].lock };
			v[n++] = (struct ins){ .at = j, .seq = seq++ & 0xffff, .type = OP_UNLOCK,
					       .hold = hold, .lock = ll[k].lock };
			r->c.inferred++;
		}
	}
	qsort(v, n, sizeof(*v), cmp_ins);
	if (infer_readers(r, t, wop, &v, &n, &cap, &seq) < 0) {
		free(v);
		return -1;
	}
	*out = v;
	return (ssize_t)n;
}

/* A lock a periodic critical thread takes at the same point of its frames:
 * the CPU time from the frame's start at which it asks for it, and how far
 * from it a wait of a frame still is that point. */
struct point {
	int32_t lock;
	uint64_t off, tol;
	size_t frame;         /* (while collecting) the frame of the wait */
};

static int cmp_point(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	if (x->lock != y->lock)
		return x->lock < y->lock ? -1 : 1;
	return (x->off > y->off) - (x->off < y->off);
}

#define PT_MAX_STEPS 12 /* the most acquisitions of one lock a frame, filled in */

/* Whether offset @x is grid point @at of step @d: at most 30 % of a step
 * later (a point drifts later in a frame that waited before it: the CPU of
 * the wait and its retry) or 10 % earlier. */
static bool on_step(uint64_t x, uint64_t at, uint64_t d)
{
	return x >= at ? (x - at) * 100 <= d * 30 : (at - x) * 100 <= d * 10;
}

/*
 * The points of one lock (@c[0..n), sorted) as a frame loop that asks at
 * evenly spaced points of its CPU time: the first point plus k steps. A
 * point shows only in the frames where it was contended, and under `none`
 * the later points of a frame seldom are (the first wait gave the starved
 * holder the time to finish; mutex-none-1 of this session: 26 waits at the
 * first point of four, 5 at the second, none at the third, 2 at the
 * fourth). The longest step that puts every point on the grid (on_step),
 * no shorter than 80 % of the points' own smallest spacing and fewer than
 * PT_MAX_STEPS steps from the first to the last, gives the points that
 * did not show between them (nothing past the last one seen). Adds them
 * to @c (room for PT_MAX_STEPS more); returns the new count.
 */
static size_t fill_steps(struct point *c, size_t n)
{
	uint64_t span, gap = UINT64_MAX;

	if (n < 3)
		return n;
	span = c[n - 1].off - c[0].off;
	for (size_t i = 1; i < n; i++)
		gap = c[i].off - c[i - 1].off < gap ? c[i].off - c[i - 1].off : gap;
	for (uint64_t k = n - 1; k < PT_MAX_STEPS; k++) {
		uint64_t d = span / k;
		bool fits = d > 0;
		size_t m = n;

		/* No grid finer than the points seen: with steps of a third of
		 * their spacing any three points fit one (a development trace's
		 * 280, 650 and 890 us fitted steps of 122 us: six requests a
		 * frame where the bench makes four). */
		if (d * 10 < gap * 8)
			break;
		for (size_t i = 1; fits && i + 1 < n; i++) {
			uint64_t x = c[i].off - c[0].off, q = (x + d / 2) / d;

			fits = q >= 1 && q < k && on_step(x, q * d, d);
		}
		if (!fits)
			continue;
		if (k + 1 == n)
			return n;
		for (uint64_t q = 1; q < k; q++) {
			uint64_t at = c[0].off + q * d;
			bool have = false;

			for (size_t i = 1; i + 1 < n && !have; i++)
				have = on_step(c[i].off - c[0].off, q * d, d);
			if (!have)
				c[m++] = (struct point){ .lock = c[0].lock, .off = at, .tol = c[0].tol };
		}
		return m;
	}
	return n;
}

/*
 * A frame's CPU offsets are taken in a median frame's CPU: an offset times
 * the median frame's CPU over its own frame's. A frame that waited does
 * more CPU than one that did not (the bench's rwlock writer: 330-410 us
 * between two waits of a frame where its work and section are 300, the
 * futex_wake of its unlock for the queued readers and the wait's own
 * path), so its later points drift: the writer's fourth point showed at
 * 1.19-1.45 ms in frames of 1.26 ms, past the end of the frames that did
 * not wait, which then asked three times, not four. Scaled, a point is as
 * far into a frame that waited as into one that did not.
 */
static uint64_t frame_norm(uint64_t off, uint64_t frame, uint64_t median)
{
	return frame && median ? (uint64_t)((unsigned __int128)off * median / frame) : off;
}

static uint64_t frame_denorm(uint64_t noff, uint64_t frame, uint64_t median)
{
	return frame && median ? (uint64_t)((unsigned __int128)noff * frame / median) : noff;
}

/* @ft[i]: the CPU of the frame item @i (from @grid on) is in, a frame
 * being the items up to and with a sleep. */
static void frame_totals(const struct th *t, size_t grid, uint64_t *ft)
{
	size_t from = grid;
	uint64_t cpu = 0;

	for (size_t i = grid; i <= t->n; i++) {
		if (i < t->n && t->it[i].type == IT_CPU)
			cpu += t->it[i].ns;
		if (i == t->n || t->it[i].type == IT_SLEEP) {
			for (size_t j = from; j <= i && j < t->n; j++)
				ft[j] = cpu;
			from = i + 1;
			cpu = 0;
		}
	}
}

/* The median CPU of @t's frames that ended in a sleep and ran (@ft, from
 * frame_totals); 0 with fewer than three. */
static uint64_t frame_median(const struct th *t, size_t grid, const uint64_t *ft)
{
	uint64_t *fr = calloc(t->n + 1, sizeof(*fr)), m = 0;
	size_t frames = 0;

	if (!fr)
		return 0;
	for (size_t i = grid; i < t->n; i++)
		if (t->it[i].type == IT_SLEEP && ft[i])
			fr[frames++] = ft[i];
	if (frames >= 3) {
		qsort(fr, frames, sizeof(*fr), cmp_u64);
		m = fr[frames / 2];
	}
	free(fr);
	return m;
}

/* A trace shows a thread's contended acquisitions only. A frame loop
 * (period) that waited for a lock at the same point of its frames (the
 * CPU time since the frame started, scaled by frame_norm @ft and @fcpu,
 * within 10 % of the frame's CPU) in at
 * least two frames is taken to ask for it there in every frame: the frames
 * where it found the lock free left no trace; and at the points between
 * that the spacing of those says (fill_steps). (Before, a point needed
 * waits in 5 % of the frames, which under `none` only the first point of
 * the bench's four reaches.) Returns the points (sorted by lock, offset)
 * and their count. */
static size_t frame_points(const struct th *t, size_t grid, const uint64_t *ft, uint64_t fcpu,
			   struct point **out)
{
	struct point *v, *c;
	size_t n = 0, nc = 0, frames = 0;
	uint64_t off = 0;

	*out = NULL;
	v = calloc(t->n + 1, sizeof(*v));
	/* A lock's points: one per two waits at least, and when fill_steps
	 * adds to them, fewer than PT_MAX_STEPS in all, which needs six waits
	 * of that lock: never more than two per wait. */
	c = calloc(2 * (t->n + 1) + PT_MAX_STEPS, sizeof(*c));
	if (!v || !c || !fcpu)
		goto out;
	for (size_t i = grid; i < t->n; i++) {
		const struct item *it = &t->it[i];

		if (it->type == IT_CPU) {
			off += it->ns;
		} else if (it->type == IT_WAIT) {
			v[n++] = (struct point){ .lock = it->lock, .off = frame_norm(off, ft[i], fcpu),
						 .frame = frames };
		} else if (it->type == IT_SLEEP) {
			frames += off != 0;
			off = 0;
		}
	}
	if (frames < 3 || n < 2)
		goto out;
	qsort(v, n, sizeof(*v), cmp_point);
	for (size_t i = 0, j, first = 0; i < n; i = j) {
		uint64_t sum = 0;
		size_t nfr = 0;

		/* A cluster: offsets each within a tenth of the frame's CPU of
		 * the one before, and within a quarter of it of the first (a
		 * point drifts later in a frame that waited before it: the
		 * rwlock writer's second point, 590-746 us in rwlock-none-4) */
		for (j = i; j < n && v[j].lock == v[i].lock &&
			    (j == i || v[j].off - v[j - 1].off <= fcpu / 10) &&
			    v[j].off - v[i].off <= fcpu / 4;
		     j++) {
			bool again = false; /* a retry in a frame counted already */

			for (size_t k = i; k < j && !again; k++)
				again = v[k].frame == v[j].frame;
			nfr += !again;
			sum += v[j].off;
		}
		if (nfr >= 2) {
			uint64_t mid = sum / (j - i), lo = mid - v[i].off, hi = v[j - 1].off - mid;

			/* a frame's wait is this point if it is as near as the
			 * cluster's own are */
			c[nc++] = (struct point){ .lock = v[i].lock, .off = mid,
						  .tol = fcpu / 10 > (lo > hi ? lo : hi)
							 ? fcpu / 10 : (lo > hi ? lo : hi) };
		}
		if (j == n || v[j].lock != v[i].lock) { /* the lock's last cluster */
			nc = first + fill_steps(c + first, nc - first);
			first = nc;
		}
	}
	if (nc) {
		qsort(c, nc, sizeof(*c), cmp_point);
		*out = c;
		c = NULL;
	}
out:
	free(v);
	free(c);
	return *out ? nc : 0;
}

/* Whether the program so far holds @lock. */
static bool holding(const struct prog *p, int32_t lock)
{
	int depth = 0;

	for (size_t i = p->n; i > 0; i--) {
		const struct op *o = &p->op[i - 1];

		if (o->lock != lock)
			continue;
		if (o->type == OP_UNLOCK)
			depth--;
		else if (o->type == OP_LOCK && ++depth > 0)
			return true;
		if (o->type == OP_LOCK && depth == 0)
			return false;
	}
	return false;
}

/* Whether the frame around item @i has a wait of its own for point @pt
 * (for its lock, within the point's reach of its offset: then the point is
 * that wait, not an inferred request). @foff: each item's CPU offset in
 * its frame. (Before, any wait for the lock in the frame stood for all its
 * points: a frame that waited at its first point asked at no other.) */
static bool seen_pt(const struct th *t, const uint64_t *foff, size_t i, const struct point *pt)
{
	for (size_t j = i; j > 0 && t->it[j - 1].type != IT_SLEEP; j--) {
		const struct item *x = &t->it[j - 1];

		if (x->type == IT_WAIT && x->lock == pt->lock &&
		    (foff[j - 1] > pt->off ? foff[j - 1] - pt->off : pt->off - foff[j - 1]) <= pt->tol)
			return true;
	}
	for (size_t j = i; j < t->n && t->it[j].type != IT_SLEEP; j++) {
		const struct item *x = &t->it[j];

		if (x->type == IT_WAIT && x->lock == pt->lock &&
		    (foff[j] > pt->off ? foff[j] - pt->off : pt->off - foff[j]) <= pt->tol)
			return true;
	}
	return false;
}

/* Places lock/unlock @k of @ins in the program (a lock over the
 * simulator's limit is dropped with its unlock, and counted). */
static void put_ins(struct sp_replay *r, struct prog *p, struct ins *ins, size_t nins, size_t k,
		    size_t *nheld)
{
	if (ins[k].type == OP_LOCK) {
		if (*nheld >= MAXHELD) {
			r->c.dropped++;
			for (size_t m = k + 1; m < nins; m++)
				if (ins[m].type == OP_UNLOCK && ins[m].lock == ins[k].lock) {
					ins[m].type = 0xff;
					break;
				}
			return;
		}
		(*nheld)++;
		r->lk[ins[k].lock].used = true;
		op_add(p, OP_LOCK, ins[k].lock, ins[k].hold, 0);
	} else if (ins[k].type == OP_UNLOCK) {
		(*nheld)--;
		op_add(p, OP_UNLOCK, ins[k].lock, ins[k].hold, 0);
	}
}

/* @t's program: its CPU time, sleeps (or frames) and its critical sections
 * of the real locks (place_holds). A waiter's wait ends when the thread
 * holding the lock in the replay lets it go: when that thread, replayed,
 * reaches the point where it woke the waiter in the trace. */
static void build_prog(struct sp_replay *r, struct th *t, struct prog *p, uint64_t *delay,
		       uint64_t period, size_t grid, bool keep)
{
	struct ins *ins = NULL;
	int8_t *wop;
	ssize_t nins;
	size_t k = 0, nheld = 0, npts = 0;
	uint64_t first_sleep_end = 0, last_sleep_end = 0, sleeps = 0, foff = 0;
	struct point *pts = NULL;
	uint64_t *pfoff = NULL; /* a frame loop's items' CPU offsets in their frames */
	uint64_t *ftot = NULL, fcpu = 0; /* their frames' CPU, the median frame's */
	bool locks = false;

	wop = calloc(t->n + 1, 1);
	if (!wop) {
		p->nomem = 1;
		return;
	}
	for (size_t i = 0; i < t->n; i++) {
		if (t->it[i].type == IT_WAIT)
			wop[i] = (int8_t)wait_op(r, t, i);
		locks |= t->it[i].type == IT_WAIT || t->it[i].type == IT_WAKE;
	}
	/* A thread that never waited nor woke a waiter, was asleep for less
	 * than 1 % of its life and ran for at least 10 % of it (a CPU hog)
	 * wanted the CPU all along: what it got is not its demand. From its
	 * last sleep on it is busy until it ended (rt-app runtime), whatever
	 * share the replayed scheduler gives it. */
	{
		uint64_t off = 0, life = (t->exited ? t->last_ts : r->last) - t->first_ts;
		size_t last_sleep = 0;
		bool hog = !locks && life > 10 * 1000000ull;

		for (size_t i = 0; hog && i < t->n; i++) {
			if (t->it[i].type == IT_SLEEP) {
				off += t->it[i].ns;
				last_sleep = i + 1;
			}
		}
		/* ... and was seen running (a filtered trace may just have lost
		 * sight of a thread). */
		if (hog && off * 100 < life && t->cpu_total * 10 >= life) {
			uint64_t from = last_sleep ? t->it[last_sleep - 1].end : t->first_ts;
			uint64_t end = t->exited ? t->last_ts : r->last;

			for (size_t i = 0; i < last_sleep; i++) {
				if (t->it[i].type == IT_CPU)
					op_add(p, OP_RUN, -1, 0, t->it[i].ns);
				else if (t->it[i].type == IT_SLEEP)
					op_add(p, OP_SLEEP, -1, 0, t->it[i].ns);
			}
			if (end > from)
				op_add(p, OP_RUNTIME, -1, 0, end - from);
			r->c.hogs++;
			free(wop);
			*delay = t->first_ts > r->first ? t->first_ts - r->first : 0;
			return;
		}
	}
	nins = place_holds(r, t, wop, &ins);
	if (nins < 0) {
		free(wop);
		p->nomem = 1;
		return;
	}
	if (period) {
		pfoff = calloc(t->n + 1, sizeof(*pfoff));
		ftot = calloc(t->n + 1, sizeof(*ftot));
		if (!pfoff || !ftot) {
			free(ins);
			free(wop);
			free(pfoff);
			free(ftot);
			p->nomem = 1;
			return;
		}
		frame_totals(t, grid, ftot);
		fcpu = frame_median(t, grid, ftot);
		npts = frame_points(t, grid, ftot, fcpu, &pts);
		for (size_t i = grid; i < t->n; i++) {
			pfoff[i] = frame_norm(foff, ftot[i], fcpu);
			foff = t->it[i].type == IT_SLEEP ? 0
				: foff + (t->it[i].type == IT_CPU ? t->it[i].ns : 0);
		}
		foff = 0;
	}
	for (size_t i = 0; i <= t->n; i++) {
		const struct item *it = i < t->n ? &t->it[i] : NULL;

		for (; k < (size_t)nins && ins[k].at == i && !ins[k].off; k++)
			put_ins(r, p, ins, (size_t)nins, k, &nheld);
		if (!it)
			break;
		switch (it->type) {
		case IT_CPU: {
			uint64_t done = 0;
			size_t m = 0;

			/* Split at the placements inside this stretch of CPU and at
			 * the frame's points where it left no wait of its own
			 * (asked, found the lock free), in order. */
			for (;;) {
				uint64_t a = UINT64_MAX, b = UINT64_MAX;

				for (; period && i >= grid && m < npts; m++) {
					uint64_t lo = frame_norm(foff, ftot[i], fcpu);
					uint64_t hi = frame_norm(foff + it->ns, ftot[i], fcpu);

					if (pts[m].off > lo && pts[m].off <= hi &&
					    !seen_pt(t, pfoff, i, &pts[m]) && !holding(p, pts[m].lock)) {
						uint64_t at = frame_denorm(pts[m].off, ftot[i], fcpu);

						a = at > foff ? at - foff : 0;
						a = a < it->ns ? a : it->ns;
						break;
					}
				}
				if (k < (size_t)nins && ins[k].at == i)
					b = ins[k].off;
				if (a == UINT64_MAX && b == UINT64_MAX)
					break;
				if (b <= a) {
					if (b > done)
						op_add(p, OP_RUN, -1, 0, b - done);
					done = b > done ? b : done;
					put_ins(r, p, ins, (size_t)nins, k++, &nheld);
					continue;
				}
				if (a > done)
					op_add(p, OP_RUN, -1, 0, a - done);
				done = a > done ? a : done;
				r->lk[pts[m].lock].used = true;
				op_add(p, OP_LOCK, pts[m].lock, SP_SIM_EXCL, 0);
				op_add(p, OP_UNLOCK, pts[m].lock, SP_SIM_EXCL, 0);
				r->c.inferred++;
				m++;
			}
			if (it->ns > done)
				op_add(p, OP_RUN, -1, 0, it->ns - done);
			if (it->preempt && !(p->n && p->op[p->n - 1].type == OP_PREEMPT))
				op_add(p, OP_PREEMPT, -1, 0, 0);
			foff += it->ns;
			break;
		}
		case IT_WAIT:
			if (wop[i] == WAIT_LOCK) {
				if (nheld >= MAXHELD) {
					r->c.dropped++;
					for (size_t m = k; m < (size_t)nins; m++)
						if (ins[m].type == OP_UNLOCK && ins[m].lock == it->lock) {
							ins[m].type = 0xff;
							break;
						}
					break;
				}
				nheld++;
				r->lk[it->lock].used = true;
				op_add(p, OP_LOCK, it->lock, it->hold, 0);
			} else if (wop[i] == WAIT_SLEEP) {
				op_add(p, OP_SLEEP, -1, 0, it->ns);
				r->c.sleeps++;
			}
			break;
		case IT_WAKE:
			break;
		case IT_SLEEP:
			if (period && i < grid) { /* start-up, before the frames */
				if (keep) {
					op_add(p, OP_SLEEP, -1, 0, it->ns);
					r->c.sleeps++;
				}
				break;
			}
			if (period) {
				/* As the bench and the simulator count them: the
				 * periods the work spanned are janky, the periods to
				 * the sleep's end are frames (with the start-up kept,
				 * from the thread's start, as the simulated timer). */
				if (sleeps || keep) {
					uint64_t from = sleeps ? last_sleep_end : t->first_ts;
					uint64_t work = it->end - it->ns - from;

					r->janky += work / period;
					r->frames += (it->end - from + period / 2) / period;
				}
				if (!sleeps)
					first_sleep_end = it->end;
				last_sleep_end = it->end;
				op_add(p, OP_TIMER, -1, 0, period);
				r->c.timers++;
				foff = 0;
			} else {
				op_add(p, OP_SLEEP, -1, 0, it->ns);
				r->c.sleeps++;
			}
			sleeps++;
			break;
		}
	}
	free(ins);
	free(wop);
	free(pts);
	free(pfoff);
	free(ftot);
	*delay = t->first_ts > r->first ? t->first_ts - r->first : 0;
	if (period && sleeps) {
		/* The schedule starts a period before the first deadline (see
		 * period_of). */
		uint64_t origin = first_sleep_end - period;

		if (origin > t->first_ts && !keep)
			*delay = origin - r->first;
		if (!keep)
			r->frames++; /* the first */
	}
}

/*
 * A thread that takes locks and waited for a CPU (its life less its CPU
 * time, its sleeps and its lock waits: runnable, not running) more than
 * ten times as long as it ran, and for a tenth of its life at least, was
 * starved: its work was bounded by the CPU it got, not by what it had to
 * do (a nice-19 background holder behind CPU hogs, behind its schedule).
 * The trace shows only the work it got through; a policy that gives it
 * more CPU would see it go on working, not stop early. Its program loops
 * until the replay ends: the work it would have done next is taken to be
 * more of what it did. A thread that got the CPU it asked for (a fixed
 * amount of work, then its exit) keeps one pass.
 */
/* A critical thread that is not a frame loop but a loop all the same:
 * it slept between its lock waits (an operation, a relative sleep, the
 * next: superpass.ko's QEMU workload, whose 2 ms nanosleep() ends 2.9-3.7
 * ms later on 6.1, on no grid) until the trace's end or its exit. Its
 * program is the operations the trace saw it do; it loops on to the end
 * of the replay as a frame loop does, since a policy that makes its waits
 * shorter would see it do more of them in that time, not stop once the
 * traced ones are done (6.1's inode trace: eleven waits of 0.4-1.1 s in
 * 6.6 s; replayed once, the eleven operations took 40 ms, before the
 * replayed holders got to their first section, and none waited). */
static bool sleep_loop(const struct th *t)
{
	unsigned sleeps = 0, waits = 0;

	if (!t->critical || t->last_ts - t->first_ts < 100 * 1000000ull)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		sleeps += t->it[i].type == IT_SLEEP;
		waits += t->it[i].type == IT_WAIT;
	}
	return sleeps >= 2 && waits >= 1;
}

static bool starved(const struct sp_replay *r, const struct th *t)
{
	uint64_t life = (t->exited ? t->last_ts : r->last) - t->first_ts, off = t->cpu_total;
	uint64_t runnable;
	bool locks = false;

	if (t->critical || life < 10 * 1000000ull)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		if (t->it[i].type == IT_SLEEP || t->it[i].type == IT_WAIT)
			off += t->it[i].ns;
		locks |= t->it[i].type == IT_WAIT || t->it[i].type == IT_WAKE;
	}
	runnable = life > off ? life - off : 0;
	return locks && runnable > 10 * t->cpu_total && runnable * 10 > life;
}

static bool is_critical(const struct sp_replay *r, const struct th *t)
{
	bool sel = r->o.critical_comms || r->o.nr_critical_tids;

	if (!sel) {
		for (size_t i = 0; i < t->n; i++)
			if (t->it[i].type == IT_WAIT)
				return true;
		return false;
	}
	for (size_t i = 0; i < r->o.nr_critical_tids; i++)
		if (r->o.critical_tids[i] == t->tid)
			return true;
	for (size_t i = 0; r->o.critical_comms && r->o.critical_comms[i]; i++)
		if (!fnmatch(r->o.critical_comms[i], t->comm, 0))
			return true;
	return false;
}

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;

	if (err && cap) {
		va_start(ap, fmt);
		vsnprintf(err, cap, fmt, ap);
		va_end(ap);
	}
	return -ENODATA;
}

static void json_prog(struct sp_replay *r, const struct th *t, const struct prog *p,
		      uint64_t delay, bool loop)
{
	struct us_clock run = { 0 }, slp = { 0 };
	unsigned n = 0;
	char nm[48], ln[48];
	bool rt = t->prio >= 0 && t->prio < 100;

	th_name(t, nm, sizeof(nm));
	/* A frame loop loops on: a critical thread that the trace shows
	 * starved did few frames of work, and a policy that serves it sooner
	 * must not see it stop early (its requests repeat, its waits are
	 * requests, not tokens). Everything else is one pass of the trace. */
	jp(r, "%s\n\t\t\"%s\": {\n\t\t\t\"loop\": %d,\n", r->jlen && r->json[r->jlen - 1] == '}'
		? "," : "", nm, loop ? -1 : 1);
	if (rt)
		jp(r, "\t\t\t\"policy\": \"SCHED_FIFO\", \"priority\": %d,\n", 99 - t->prio);
	else
		jp(r, "\t\t\t\"priority\": %d,\n",
		   t->prio >= 100 && t->prio < 140 ? t->prio - 120 : 0);
	if (t->critical)
		jp(r, "\t\t\t\"sp_critical\": true,\n");
	if (delay / 1000)
		jp(r, "\t\t\t\"delay\": %llu,\n", (unsigned long long)(delay / 1000));
	/* One pass of one phase: a task-level event list would repeat. */
	jp(r, "\t\t\t\"phases\": { \"trace\": {\n\t\t\t\t\"loop\": 1,\n");
	for (size_t i = 0; i < p->n; i++) {
		const struct op *o = &p->op[i];
		uint64_t us;

		switch (o->type) {
		case OP_RUN:
			if ((us = to_us(&run, o->ns)))
				jp(r, "\t\t\t\t\"run%u\": %llu,\n", ++n, (unsigned long long)us);
			break;
		case OP_RUNTIME:
			if ((us = to_us(&slp, o->ns)))
				jp(r, "\t\t\t\t\"runtime%u\": %llu,\n", ++n, (unsigned long long)us);
			break;
		case OP_SLEEP:
			if ((us = to_us(&slp, o->ns)))
				jp(r, "\t\t\t\t\"sleep%u\": %llu,\n", ++n, (unsigned long long)us);
			break;
		case OP_TIMER:
			/* sp_skip: a late frame's successor starts at the next
			 * point of the grid, as a frame loop on vsync does (the
			 * bench's: "the next frame starts at the next deadline
			 * after the work ends"); period_of found the sleeps
			 * ending on that grid, late frames included (their
			 * intervals whole periods). Relative, as before, started
			 * it at once: after a long wait the critical thread ran
			 * its next frame straight into the readers it had held
			 * up, which the traced one, asleep to the next deadline,
			 * did not meet (rwlock self-check blockings +62 %). */
			jp(r, "\t\t\t\t\"timer%u\": { \"ref\": \"unique\", \"period\": %llu, "
			      "\"mode\": \"absolute\", \"sp_skip\": true },\n", ++n,
			   (unsigned long long)((o->ns + 500) / 1000));
			break;
		case OP_PREEMPT:
			jp(r, "\t\t\t\t\"sp_preempt%u\": true,\n", ++n);
			break;
		case OP_LOCK:
			lock_name(r, o->lock, ln, sizeof(ln));
			if (r->lk[o->lock].kind == SP_SIM_UMUTEX)
				jp(r, "\t\t\t\t\"lock%u\": \"%s\",\n", ++n, ln);
			else
				jp(r, "\t\t\t\t\"sp_%slock%u\": \"%s\",\n",
				   o->hold == SP_SIM_SHARED ? "rd" : "wr", ++n, ln);
			break;
		case OP_UNLOCK:
			lock_name(r, o->lock, ln, sizeof(ln));
			jp(r, "\t\t\t\t\"%sunlock%u\": \"%s\",\n",
			   r->lk[o->lock].kind == SP_SIM_UMUTEX ? "" : "sp_", ++n, ln);
			break;
		}
	}
	if (!n)
		jp(r, "\t\t\t\"run1\": 1,\n");
	r->jlen -= 2; /* the last event's ",\n" */
	r->json[r->jlen] = 0;
	jp(r, "\n\t\t\t} }\n\t\t}");
}

int sp_replay_finish(struct sp_replay *r, const char *name, char *err, size_t errcap)
{
	size_t ncrit = 0;
	char *tasks;
	uint64_t crit_end;
	bool crit_loops = true;
	int rc;

	if (r->nomem)
		return -ENOMEM;
	for (size_t i = 0; i < r->nth; i++) {
		struct th *t = r->th[i];

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
		if (!t->in_set || !t->cpu_total) {
			if (t->cpu_total) {
				r->c.outside_threads++;
				r->c.outside_cpu_ns += t->cpu_total;
			}
			continue;
		}
		r->c.replayed_cpu_ns += t->cpu_total;
		t->critical = is_critical(r, t);
		ncrit += t->critical;
	}
	for (size_t i = 0; i < r->nth; i++) {
		if (!r->th[i]->in_set || !r->th[i]->cpu_total)
			continue;
		if (phase_wakes(r, r->th[i]) < 0)
			return -ENOMEM;
		rwsem_wakes(r, r->th[i]);
		mark_tokens(r, r->th[i]);
	}
	if (!r->c.events)
		return fail(err, errcap, "no event to replay");
	if (!ncrit)
		return fail(err, errcap, (r->o.critical_comms || r->o.nr_critical_tids)
					 ? "no replayed thread matches --critical/--tid"
					 : "no replayed thread waited for a lock (nothing to compare)");
	r->c.cpus = r->o.cpus ? r->o.cpus : 2;
	r->c.slice_ns = r->o.slice_ns;
	if (!r->c.slice_ns) { /* sched_update_scaling(): SCHED_TUNABLESCALING_LOG */
		uint32_t f = 1, n = r->c.cpus < 8 ? r->c.cpus : 8;

		while (n >>= 1)
			f++;
		r->c.slice_ns = 750000ull * f;
	}
	/* The tasks first (they tell which locks are taken), then the file. */
	crit_end = r->first;
	for (size_t i = 0; i < r->nth; i++) {
		struct th *t = r->th[i];
		struct prog p = { 0 };
		uint64_t delay = 0, period;
		size_t grid = 0;
		bool keep = false;

		if (!t->in_set || !t->cpu_total)
			continue;
		r->c.threads++;
		period = t->critical ? period_of(t, &grid, &keep) : 0;
		build_prog(r, t, &p, &delay, period, grid, keep);
		if (t->critical) {
			uint64_t end = t->exited ? t->last_ts : r->last;

			crit_loops &= period != 0 || sleep_loop(t);
			crit_end = end > crit_end ? end : crit_end;
		}
		{
			bool loop = (t->critical && (period || sleep_loop(t))) || starved(r, t);

			r->c.looped += loop && !t->critical;
			if (!p.nomem)
				json_prog(r, t, &p, delay, loop);
		}
		free(p.op);
		if (p.nomem)
			r->nomem = 1;
	}
	/* A frame loop loops on to the end of the replay; when every critical
	 * thread is one, the replay ends where the last of them ended in the
	 * trace (the bench stops its threads together, and its trace goes on
	 * for the joins and the report: frame loops and starved holders
	 * looped past that, without the hogs, made 20 short blockings in the
	 * last 80 ms of mutex-none-1, and frames the trace does not have). */
	r->c.end_ns = crit_loops && crit_end > r->first ? crit_end : r->last;
	tasks = r->json;
	r->json = NULL;
	r->jlen = r->jcap = 0;
	jp(r, "{\n\t\"global\": {\n\t\t\"duration\": %llu,\n\t\t\"default_policy\": "
	      "\"SCHED_OTHER\",\n\t\t\"calibration\": \"CPU0\",\n\t\t\"sp_cpus\": %u,\n"
	      "\t\t\"sp_duration_ms\": %llu,\n"
	      "\t\t\"sp_base_slice_us\": %llu,\n\t\t\"sp_sched_model\": \"%s\",\n"
	      /* the runtime the traces record: a critical waiter applies its
	       * fast tracks itself (fa0d86e); but a trace whose critical waits
	       * are all on kernel locks is superpass.ko's case, whose probes
	       * only queue the fast track for its worker kthread (sp_kmod_act.c:
	       * sched_setattr_nocheck may sleep), as the simulator's worker
	       * does it */
	      "\t\t\"sp_waiter_boost\": %s",
	   (unsigned long long)((r->c.end_ns - r->first) / 1000000000ull + 1), r->c.cpus,
	   (unsigned long long)((r->c.end_ns - r->first + 999999) / 1000000 ?: 1),
	   (unsigned long long)(r->c.slice_ns / 1000), r->o.classic ? "classic" : "linux",
	   r->crit_kwaits && !r->crit_fwaits ? "false" : "true");
	{
		bool any = false;
		char ln[48];

		for (size_t l = 0; l < r->nlk; l++) {
			uint8_t kind = r->lk[l].kind;

			if (!r->lk[l].used)
				continue;
			r->c.locks++;
			if (kind == SP_SIM_UMUTEX)
				continue;
			lock_name(r, (int32_t)l, ln, sizeof(ln));
			jp(r, "%s\"%s\": \"%s\"", any ? ", " : ",\n\t\t\"sp_locks\": { ", ln,
			   kind == SP_SIM_RWSEM ? "rwsem" : kind == SP_SIM_URWLOCK_W ? "rwlock-writer"
			   : "kmutex");
			any = true;
		}
		if (any)
			jp(r, " }");
	}
	jp(r, "\n\t},\n\t\"tasks\": {%s\n\t}\n}\n", tasks ? tasks : "");
	free(tasks);
	if (r->nomem)
		return -ENOMEM;
	r->c.first_ns = r->first;
	r->c.last_ns = r->last;
	rc = sp_sim_workload_parse(r->json, name ? name : "replay", &r->w, err, errcap);
	return rc;
}

int sp_replay_build(const char *path, const struct sp_replay_opts *o, struct sp_replay **out,
		    struct sp_trace_diag *d, char *err, size_t errcap)
{
	struct sp_trace_diag dd;
	struct sp_replay *r;
	struct sp_replay_opts oo = *o;
	const char *base = strrchr(path, '/');
	int64_t n;
	int rc;

	if (!d)
		d = &dd;
	sp_trace_diag_init(d);
	if ((rc = sp_replay_create(o, &r)))
		return rc;
	n = sp_trace_read_file(path, sp_replay_feed, r, d);
	if (n < 0) {
		if (n == -EINVAL)
			snprintf(err, errcap, "%s: not a trace (neither ftrace text nor a trace-cmd .dat)",
				 path);
		else
			snprintf(err, errcap, "%s: %s", path, strerror((int)-n));
		sp_replay_free(r);
		return (int)n;
	}
	if (!oo.cpus && d->ncpus > 0)
		r->o.cpus = (uint32_t)d->ncpus;
	rc = sp_replay_finish(r, base ? base + 1 : path, err, errcap);
	if (rc) {
		char tmp[512];

		snprintf(tmp, sizeof(tmp), "%s", err);
		snprintf(err, errcap, "%s: %s", path, tmp);
		sp_replay_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

const char *sp_replay_json(const struct sp_replay *r)
{
	return r->json;
}

const struct sp_sim_workload *sp_replay_workload(const struct sp_replay *r)
{
	return r->w;
}

void sp_replay_trace_figures(const struct sp_replay *r, struct sp_replay_figures *f)
{
	memset(f, 0, sizeof(*f));
	f->blockings = r->hist.count;
	if (f->blockings) {
		f->p50 = sp_hist_quantile(&r->hist, 50, 100);
		f->p99 = sp_hist_quantile(&r->hist, 99, 100);
		f->p999 = sp_hist_quantile(&r->hist, 999, 1000);
		f->max = r->hist.max;
	}
	f->frames = r->frames;
	f->janky = r->janky;
}

void sp_replay_get_counts(const struct sp_replay *r, struct sp_replay_counts *c)
{
	*c = r->c;
}

void sp_replay_run_figures(const struct sp_sim_result *res, struct sp_replay_figures *f)
{
	memset(f, 0, sizeof(*f));
	f->blockings = res->blockings;
	f->p50 = res->p50;
	f->p99 = res->p99;
	f->p999 = res->p999;
	f->max = res->max;
	f->frames = res->frames;
	f->janky = res->janky;
}
