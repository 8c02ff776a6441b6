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
	bool held;               /* the waker holds it in the program */
	bool sleep;              /* its waker is not replayed: the wait is a sleep */
	uint64_t req;            /* when the waiter asked (trace time) */
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
	uint8_t wait_hold, wait_kind;
	bool wait_slept;
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

/* The CPU @t used up to @ts, as one item. */
static void flush_cpu(struct sp_replay *r, struct th *t, uint64_t ts)
{
	if (t->running && ts > t->run_since) {
		t->cpu_acc += ts - t->run_since;
		t->run_since = ts;
	}
	if (t->cpu_acc) {
		t->cpu_total += t->cpu_acc;
		push(r, t, IT_CPU, -1, 0, t->cpu_acc, ts);
		t->cpu_acc = 0;
	}
}

static int lock_ref(struct sp_replay *r, uint64_t addr, uint8_t kind)
{
	for (size_t i = 0; i < r->nlk; i++)
		if (r->lk[i].addr == addr && r->lk[i].kind == kind)
			return (int)i;
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
	flush_cpu(r, t, ts);
	if (ok && t->waker > 0 && t->wait_tok) {
		int l = lock_ref(r, t->wait_addr, t->wait_kind);

		if (l >= 0)
			push_tok(r, t, IT_WAIT, l, t->wait_hold, t->wait_tok, ts - t->wait_start, ts);
	} else if (t->wait_slept) {
		push(r, t, IT_SLEEP, -1, 0, ts - t->wait_start, ts);
	}
	t->wait = W_NONE;
	t->waker = -1;
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
			t->run_since = ts;
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
			t->running = false;
			t->prio = ev->u.sw.prev_prio;
			t->last_ts = ts;
			memcpy(t->comm, ev->u.sw.prev_comm, SP_TRACE_COMM_LEN);
			if (ev->u.sw.prev_state != SP_TRS_RUNNABLE) {
				flush_cpu(r, t, ts);
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
			t->run_since = ts;
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
					r->tk[r->ntk] = (struct tok){ .waiter = t->idx, .waker = u->idx,
						.lock = l, .hold = t->wait_hold, .req = t->wait_start };
					t->wait_tok = (uint32_t)++r->ntk;
					flush_cpu(r, u, ts);
					push_tok(r, u, IT_WAKE, l, t->wait_hold, t->wait_tok, 0, ts);
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
		t->wait_kind = SP_SIM_UMUTEX;
		t->wait_hold = SP_SIM_EXCL;
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

		if ((f & SP_TRACE_LCB_SPIN) || !(t = th_get(r, ev->pid, ts)) || t->wait)
			break;
		flush_cpu(r, t, ts);
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

/* The lock a token stands for, and which wake it is. */
static void tok_name(const struct sp_replay *r, int32_t tok, char *buf, size_t cap)
{
	static const char *const pre[] = { "futex", "rwlock", "rwlock", "kmutex", "rwsem" };
	const struct lk *l = &r->lk[r->tk[tok - 1].lock];

	snprintf(buf, cap, "%s-%llx-%d", pre[l->kind], (unsigned long long)l->addr, tok);
}

static uint8_t tok_kind(const struct sp_replay *r, int32_t tok)
{
	return r->lk[r->tk[tok - 1].lock].kind;
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
enum { OP_RUN, OP_SLEEP, OP_TIMER, OP_LOCK, OP_UNLOCK, OP_RUNTIME };
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

#define WINDOW 12  /* wakes a waker holds ahead */
#define MAXHELD 14 /* tokens a thread holds at once (the simulator allows 16 locks) */

/* The period of @t's sleeps if they end on a grid, else 0. */
static uint64_t period_of(const struct th *t, size_t *grid)
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
	 * sleep's end, which needs them to hold no lock wait or wake. */
	*grid = 0;
	for (size_t i = 0, k = 0; p && i < t->n; i++) {
		uint64_t m, d;

		if (t->it[i].type == IT_WAIT || t->it[i].type == IT_WAKE) {
			p = 0;
			break;
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
		if (t->critical)
			sp_hist_record(&r->hist, it->end - r->tk[it->tok - 1].req);
		r->c.waits++;
	}
}

struct ins {
	size_t at;    /* before this item */
	uint32_t tok;
};

static int cmp_ins(const void *a, const void *b)
{
	const struct ins *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at ? 1 : (x->tok > y->tok) - (x->tok < y->tok);
}

/* @t's program. As a waker it holds the token of each wake it makes from
 * its previous wake (or its start, or earlier if the waiter asked earlier)
 * to the wake itself: a waiter asking for it in the replay waits until @t,
 * replayed, reaches the point where it woke that waiter in the trace. */
static void build_prog(struct sp_replay *r, struct th *t, struct prog *p, uint64_t *delay,
		       uint64_t period, size_t grid)
{
	struct ins *ins = NULL;
	size_t *wakes, nins = 0, k = 0, nheld = 0;
	size_t win = r->o.lead && r->o.lead < WINDOW ? r->o.lead : WINDOW;
	uint64_t first_sleep_end = 0, last_sleep_end = 0, sleeps = 0;

	ins = calloc(t->n + 1, sizeof(*ins));
	if (!ins) {
		p->nomem = 1;
		return;
	}
	/* The token of wake j is taken at wake j - WINDOW of this thread
	 * (before that one is let go), or at its start, or where it was when
	 * the waiter asked if that is earlier: it always holds its next
	 * WINDOW wakes, so a waiter that asks early in the replay still waits
	 * for the point where this thread woke it (with one wake of lead
	 * instead, the fixtures' replays lose all their waits for some
	 * slices), and it holds at most WINDOW + 1 tokens at once. */
	wakes = calloc(t->n + 1, sizeof(*wakes));
	if (!wakes) {
		free(ins);
		p->nomem = 1;
		return;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct item *it = &t->it[i];
		size_t at = nins >= win ? wakes[nins - win] : 0, q;

		if (it->type != IT_WAKE || !r->tk[it->tok - 1].used)
			continue;
		for (q = 0; q < i && t->it[q].end <= r->tk[it->tok - 1].req; q++)
			;
		if (q < at)
			at = q;
		ins[nins] = (struct ins){ .at = at, .tok = it->tok };
		wakes[nins++] = i;
	}
	free(wakes);
	qsort(ins, nins, sizeof(*ins), cmp_ins);
	/* A thread that never waited, was asleep for less than 1 % of its
	 * life and ran for at least 10 % of it (a CPU hog) wanted the CPU all along: what it got is not its
	 * demand. From its last sleep on it is busy until it ended (rt-app
	 * runtime), whatever share the replayed scheduler gives it. */
	{
		uint64_t off = 0, life = (t->exited ? t->last_ts : r->last) - t->first_ts;
		size_t last_sleep = 0;
		bool hog = !nins && life > 10 * 1000000ull;

		for (size_t i = 0; hog && i < t->n; i++) {
			if (t->it[i].type == IT_WAIT)
				hog = false;
			else if (t->it[i].type == IT_SLEEP) {
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
			free(ins);
			*delay = t->first_ts > r->first ? t->first_ts - r->first : 0;
			return;
		}
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct item *it = &t->it[i];
		struct tok *tk = it->tok ? &r->tk[it->tok - 1] : NULL;

		for (; k < nins && ins[k].at == i; k++) {
			if (nheld >= MAXHELD) {
				r->c.dropped++;
				continue;
			}
			r->tk[ins[k].tok - 1].held = true;
			nheld++;
			op_add(p, OP_LOCK, (int32_t)ins[k].tok, SP_SIM_EXCL, 0);
		}
		switch (it->type) {
		case IT_CPU:
			op_add(p, OP_RUN, -1, 0, it->ns);
			break;
		case IT_WAIT:
			if (tk->used) {
				op_add(p, OP_LOCK, (int32_t)it->tok, tk->hold, 0);
				op_add(p, OP_UNLOCK, (int32_t)it->tok, tk->hold, 0);
			} else if (tk->sleep) {
				op_add(p, OP_SLEEP, -1, 0, it->ns);
				r->c.sleeps++;
			}
			break;
		case IT_WAKE:
			if (tk->used && tk->held) {
				op_add(p, OP_UNLOCK, (int32_t)it->tok, SP_SIM_EXCL, 0);
				nheld--;
			}
			break;
		case IT_SLEEP:
			if (period && i < grid)
				break; /* start-up, before the frames */
			if (period) {
				/* As the bench and the simulator count them: the
				 * periods the work spanned are janky, the periods to
				 * the sleep's end are frames. */
				if (sleeps) {
					uint64_t work = it->end - it->ns - last_sleep_end;

					r->janky += work / period;
					r->frames += (it->end - last_sleep_end + period / 2) / period;
				}
				if (!sleeps)
					first_sleep_end = it->end;
				last_sleep_end = it->end;
				op_add(p, OP_TIMER, -1, 0, period);
				r->c.timers++;
			} else {
				op_add(p, OP_SLEEP, -1, 0, it->ns);
				r->c.sleeps++;
			}
			sleeps++;
			break;
		}
	}
	free(ins);
	*delay = t->first_ts > r->first ? t->first_ts - r->first : 0;
	if (period && sleeps) {
		/* The schedule starts a period before the first deadline (see
		 * period_of). */
		uint64_t origin = first_sleep_end - period;

		if (origin > t->first_ts)
			*delay = origin - r->first;
		r->frames++; /* the first */
	}
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
		      uint64_t delay)
{
	struct us_clock run = { 0 }, slp = { 0 };
	unsigned n = 0;
	char nm[48], ln[48];
	bool rt = t->prio >= 0 && t->prio < 100;

	th_name(t, nm, sizeof(nm));
	jp(r, "%s\n\t\t\"%s\": {\n\t\t\t\"loop\": 1,\n", r->jlen && r->json[r->jlen - 1] == '}' ? ","
										      : "", nm);
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
			/* relative: a late frame restarts the schedule from
			 * then, as the bench's frame loop does, instead of
			 * catching up. */
			jp(r, "\t\t\t\t\"timer%u\": { \"ref\": \"unique\", \"period\": %llu, "
			      "\"mode\": \"relative\" },\n", ++n,
			   (unsigned long long)((o->ns + 500) / 1000));
			break;
		case OP_LOCK:
			tok_name(r, o->lock, ln, sizeof(ln));
			if (tok_kind(r, o->lock) == SP_SIM_UMUTEX)
				jp(r, "\t\t\t\t\"lock%u\": \"%s\",\n", ++n, ln);
			else
				jp(r, "\t\t\t\t\"sp_%slock%u\": \"%s\",\n",
				   o->hold == SP_SIM_SHARED ? "rd" : "wr", ++n, ln);
			break;
		case OP_UNLOCK:
			tok_name(r, o->lock, ln, sizeof(ln));
			jp(r, "\t\t\t\t\"%sunlock%u\": \"%s\",\n",
			   tok_kind(r, o->lock) == SP_SIM_UMUTEX ? "" : "sp_", ++n, ln);
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
	for (size_t i = 0; i < r->nth; i++)
		if (r->th[i]->in_set && r->th[i]->cpu_total)
			mark_tokens(r, r->th[i]);
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
	jp(r, "{\n\t\"global\": {\n\t\t\"duration\": %llu,\n\t\t\"default_policy\": "
	      "\"SCHED_OTHER\",\n\t\t\"calibration\": \"CPU0\",\n\t\t\"sp_cpus\": %u,\n"
	      "\t\t\"sp_base_slice_us\": %llu",
	   (unsigned long long)((r->last - r->first) / 1000000000ull + 1), r->c.cpus,
	   (unsigned long long)(r->c.slice_ns / 1000));
	{
		bool any = false;
		char ln[48];

		for (size_t k = 0; k < r->ntk; k++) {
			uint8_t kind = tok_kind(r, (int32_t)k + 1);

			if (kind == SP_SIM_UMUTEX || !r->tk[k].used)
				continue;
			tok_name(r, (int32_t)k + 1, ln, sizeof(ln));
			jp(r, "%s\"%s\": \"%s\"", any ? ", " : ",\n\t\t\"sp_locks\": { ", ln,
			   kind == SP_SIM_RWSEM ? "rwsem" : "kmutex");
			any = true;
		}
		if (any)
			jp(r, " }");
	}
	jp(r, "\n\t},\n\t\"tasks\": {");
	for (size_t i = 0; i < r->nth; i++) {
		struct th *t = r->th[i];
		struct prog p = { 0 };
		uint64_t delay = 0, period;
		size_t grid = 0;

		if (!t->in_set || !t->cpu_total)
			continue;
		r->c.threads++;
		period = t->critical ? period_of(t, &grid) : 0;
		build_prog(r, t, &p, &delay, period, grid);
		if (!p.nomem)
			json_prog(r, t, &p, delay);
		free(p.op);
		if (p.nomem)
			r->nomem = 1;
	}
	jp(r, "\n\t}\n}\n");
	if (r->nomem)
		return -ENOMEM;
	for (size_t l = 0; l < r->nlk; l++)
		r->c.locks++;
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
