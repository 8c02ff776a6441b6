// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The event loop and the threads' programs.
 *
 * Time advances to the earliest of: a queued event (a thread's start or
 * timer wakeup, the core's tick, the balancer) and each CPU's next local
 * event (its running task's work ends, or its slice does). Ties go to CPUs
 * in index order, then to queued events in the order they were queued, so
 * a run is a pure function of the workload, the options and the seed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sp_sim_engine.h"
#include "sp_vec.h"

#define SP_ZERO_OPS_MAX 100000u /* ops in a row that use no time: a stall */

void sp_sim_trace_emit(struct sp_sim *s, int type, int cpu, int th, int lock, int arg)
{
	struct sp_sim_trace ev;

	ev.t = s->now;
	ev.type = (uint16_t)type;
	ev.cpu = (int16_t)cpu;
	ev.rq = (int16_t)(th >= 0 && s->th[th].on_rq ? s->th[th].cpu : -1);
	ev.pad = 0;
	ev.thread = th;
	ev.lock = lock;
	ev.arg = arg;
	s->o->trace(s->o->trace_ctx, &ev);
}

/* ---- the event heap: (t, seq) order ---- */
static bool sp_ev_less(const struct sp_sim_event *a, const struct sp_sim_event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void sp_sim_push(struct sp_sim *s, uint64_t t, uint32_t type, int a, uint32_t gen)
{
	uint32_t i;

	if (sp_grow((void **)&s->heap, &s->heapcap, sizeof(*s->heap), (size_t)s->nheap + 1, 64)) {
		s->err = true;
		return;
	}
	/* (t, seq) keys are unique: any heap pops them in the same order. The
	 * sifts move a hole and write the entry once. */
	{
		struct sp_sim_event e = { .t = t, .seq = ++s->evseq, .type = type, .gen = gen, .a = a };
		struct sp_sim_event *h = s->heap;

		i = s->nheap++;
		while (i && sp_ev_less(&e, &h[(i - 1) / 2])) {
			h[i] = h[(i - 1) / 2];
			i = (i - 1) / 2;
		}
		h[i] = e;
	}
}

static struct sp_sim_event sp_pop(struct sp_sim *s)
{
	struct sp_sim_event *h = s->heap, top = h[0], last = h[--s->nheap];
	uint32_t i = 0, n = s->nheap;

	for (;;) {
		uint32_t l = 2 * i + 1, m;

		if (l >= n)
			break;
		m = l + 1 < n && sp_ev_less(&h[l + 1], &h[l]) ? l + 1 : l;
		if (!sp_ev_less(&h[m], &last))
			break;
		h[i] = h[m];
		i = m;
	}
	if (n)
		h[i] = last;
	return top;
}

/* ---- randomness: one xorshift64* stream per thread ---- */
static uint64_t sp_splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t sp_rand(struct sp_sim_thread *t)
{
	uint64_t x = t->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	t->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

uint64_t sp_sim_wait_now(struct sp_sim *s, const struct sp_sim_thread *t)
{
	return t->wait_ns + (t->waiting ? s->now - t->wait_since : 0);
}

/* ---- the threads' programs ---- */

/* The op @t is at, moving over ends of phases and loops; NULL when the
 * program is over. */
static const struct sp_sim_op *sp_cur_op(struct sp_sim_thread *t)
{
	const struct sp_sim_task *k = t->task;

	for (uint32_t guard = 0; guard < 2 * k->nphases + 4; guard++) {
		const struct sp_sim_phase *p;

		if (t->phase >= k->nphases) {
			if (t->task_left > 0 && --t->task_left == 0)
				return NULL;
			t->phase = 0;
			t->op = 0;
			t->phase_left = k->phases[0].loop;
		}
		p = &k->phases[t->phase];
		if (t->op < p->nops)
			return &p->ops[t->op];
		t->op = 0;
		if (--t->phase_left <= 0) {
			t->phase++;
			if (t->phase < k->nphases)
				t->phase_left = k->phases[t->phase].loop;
		}
	}
	return NULL; /* only empty phases */
}

static void sp_sleep_until(struct sp_sim *s, struct sp_sim_thread *t, uint64_t when)
{
	sp_sim_sched_set_state(s, t, SP_TS_SLEEP);
	sp_sim_sched_dequeue(s, t);
	t->gen++;
	sp_sim_push(s, when, SP_SIM_EV_WAKE, t->idx, t->gen);
}

/* A run op's CPU time under sp_sim_opts.run_jitter_ppm; never 0 for a
 * run that has length (the jitter is at most 10 %). */
static uint64_t sp_run_length(struct sp_sim *s, struct sp_sim_thread *t, uint64_t ns)
{
	uint64_t j = s->o->run_jitter_ppm, r;

	if (!j || !ns)
		return ns;
	r = sp_rand(t) % (2 * j + 1);
	/* ns * (1e6 - j + r) / 1e6, in 128 bits: a run may be seconds long */
	return (uint64_t)((unsigned __int128)ns * (1000000u - j + r) / 1000000u);
}

static void sp_done(struct sp_sim *s, struct sp_sim_thread *t)
{
	sp_sim_sched_set_state(s, t, SP_TS_DONE);
	sp_sim_sched_dequeue(s, t);
	sp_sim_trace_event(s, SP_SIM_TR_DONE, t->cpu, t->idx, -1, 0);
	sp_sim_pol_exit(s, t);
}

static void sp_timer(struct sp_sim *s, struct sp_sim_thread *t, const struct sp_sim_op *op)
{
	const struct sp_sim_timerdef *d = &s->w->timers[op->ref];
	struct sp_sim_timer *tm =
		&s->timers[(size_t)op->ref * s->nth + (d->unique ? (uint32_t)t->idx : 0)];
	uint64_t period = op->ns;
	bool late;

	if (op->jitter) {
		uint64_t r = sp_rand(t) % (2 * op->jitter + 1);

		period = period - op->jitter + r;
	}
	if (!tm->init) {
		tm->init = true;
		tm->next = t->t_first;
	}
	tm->next += period;
	late = s->now > tm->next;
	if (t->critical && op->absolute == SP_TM_SKIP) {
		/* The bench's frame loop (sp_skip): a frame late by L has
		 * missed L / period + 1 deadlines, as the bench counts them;
		 * the periods it spanned are frames. */
		uint64_t missed = late ? (s->now - tm->next) / op->ns + 1 : 0;

		s->r->frames += missed + 1;
		s->r->janky += missed;
		t->last_tm = tm;
		t->last_period = op->ns;
		sp_sim_trace_event(s, SP_SIM_TR_FRAME, t->cpu, t->idx, -1, late);
	} else if (t->critical) {
		/* rt-app's timer: one log row per timer reached, late when its
		 * slack (the time left to the timer when reached) is below 0. */
		s->r->frames++;
		s->r->janky += late;
		sp_sim_trace_event(s, SP_SIM_TR_FRAME, t->cpu, t->idx, -1, late);
	}
	t->op++;
	if (late && op->absolute == SP_TM_SKIP)
		tm->next += ((s->now - tm->next) / op->ns + 1) * op->ns;
	if (s->now < tm->next) {
		sp_sleep_until(s, t, tm->next);
		return;
	}
	if (op->absolute == SP_TM_RELATIVE ||
	    (op->backlog && s->now - tm->next > op->backlog * op->ns))
		tm->next = s->now;
}

/* Runs @t's zero-time ops until one takes time (work, a sleep, a wait).
 * @t is executing on a CPU. */
void sp_sim_run_program(struct sp_sim *s, struct sp_sim_thread *t)
{
	if (t == s->wk) {
		sp_sim_pol_wk_step(s);
		return;
	}
	for (uint32_t n = 0; t->state == SP_TS_RUNNABLE; n++) {
		const struct sp_sim_op *op;

		if (n > SP_ZERO_OPS_MAX) {
			s->r->stalled++;
			sp_done(s, t);
			return;
		}
		if (t->sys_left)
			return;
		op = sp_cur_op(t);
		if (!op) {
			sp_done(s, t);
			return;
		}
		switch (op->type) {
		case SP_OP_RUN:
			if (!t->op_started) {
				t->op_started = SP_OP_RUN;
				t->op_left = sp_run_length(s, t, op->ns);
			}
			if (t->op_left) {
				n = 0;
				return;
			}
			t->op_started = 0;
			t->op++;
			break;
		case SP_OP_RUNTIME:
			if (!t->op_started) {
				t->op_started = SP_OP_RUNTIME;
				t->op_left = s->now + op->ns;
			}
			if (s->now < t->op_left)
				return;
			t->op_started = 0;
			t->op++;
			break;
		case SP_OP_SLEEP:
			t->op++;
			if (op->ns) {
				sp_sleep_until(s, t, s->now + op->ns);
				return;
			}
			break;
		case SP_OP_TIMER:
			sp_timer(s, t, op);
			break;
		case SP_OP_LOCK:
			if (t->granted) {
				sp_sim_lock_finish(s, t);
				t->op++;
			} else if (sp_sim_handoff_yield(s, t, op->ref)) {
				return; /* gave it to a critical waiter, asleep */
			} else if (sp_sim_lock_try(s, t, op->ref, op->hold)) {
				sp_sim_lock_finish(s, t);
				t->op++;
			} else {
				sp_sim_lock_block(s, t, op->ref, op->hold);
				return;
			}
			break;
		case SP_OP_UNLOCK:
			t->op++;
			if (sp_sim_lock_release(s, t, op->ref) && t->state == SP_TS_RUNNABLE) {
				t->sys_left = SP_WAKE_COST_NS;
				t->needs_sys_done = true;
				return;
			}
			break;
		case SP_OP_YIELD:
			t->op++;
			sp_sim_sched_yield(s, t);
			return;
		case SP_OP_PREEMPT:
			t->op++;
			if (sp_sim_sched_slice_end(s, t))
				return;
			break;
		case SP_OP_SETSCHED:
			t->op++;
			t->policy = op->sched;
			if (op->sched == SP_SIM_OTHER) {
				t->nice = op->prio;
				t->rtprio = 0;
				sp_sim_sched_set_weight(s, t);
			} else {
				t->rtprio = op->prio;
			}
			sp_sim_sched_set_eff(s, t);
			break;
		default:
			t->op++;
		}
	}
}

/* ---- one run ---- */

void sp_sim_opts_default(struct sp_sim_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->boost_latency_ns = SP_SIM_DEFAULT_BOOST_LATENCY_NS;
}

static const char *const sp_policy_names[SP_SIM_POL_NR] = {
	"none", "pi", "rt-ui", "proxy-exec", "proxy-exec-migrate", "ux-writer", "superpass",
	"rseq-slice", "lavd",
};

const char *sp_sim_policy_name(enum sp_sim_policy p)
{
	return (unsigned)p < SP_SIM_POL_NR ? sp_policy_names[p] : NULL;
}

int sp_sim_policy_parse(const char *name)
{
	for (int i = 0; i < SP_SIM_POL_NR; i++)
		if (!strcmp(name, sp_policy_names[i]))
			return i;
	return -EINVAL;
}

static bool sp_named_critical(const struct sp_sim_opts *o, const char *name)
{
	if (!o->critical)
		return false;
	for (const char *const *p = o->critical; *p; p++)
		if (!strcmp(*p, name))
			return true;
	return false;
}

static void sp_sim_free(struct sp_sim *s)
{
	if (s->lk)
		for (uint32_t i = 0; i < s->w->nlocks; i++) {
			free(s->lk[i].readers);
			free(s->lk[i].wq);
		}
	if (s->cpus)
		for (uint32_t i = 0; i < s->ncpus; i++)
			free(s->cpus[i].rq);
	free(s->lk);
	free(s->cpus);
	free(s->th);
	free(s->timers);
	free(s->heap);
}

static int sp_sim_setup(struct sp_sim *s)
{
	const struct sp_sim_workload *w = s->w;
	const struct sp_sim_opts *o = s->o;
	uint32_t n = 0;
	bool any_hog = false;

	for (uint32_t i = 0; i < w->ntasks; i++)
		n += w->tasks[i].instances;
	if (!n || n > 65536)
		return -EINVAL;
	if (o->critical)
		for (const char *const *p = o->critical; *p; p++)
			if (sp_sim_task_find(w, *p) < 0)
				return -ENOENT;
	s->nth = n;
	/* one more: the superpass worker of the linux model (sp_sim_pol_init) */
	s->th = calloc(n + 1, sizeof(*s->th));
	s->cpus = calloc(s->ncpus, sizeof(*s->cpus));
	s->lk = calloc(w->nlocks ? w->nlocks : 1, sizeof(*s->lk));
	s->timers = calloc((size_t)(w->ntimers ? w->ntimers : 1) * n, sizeof(*s->timers));
	s->r->threads = calloc(n, sizeof(*s->r->threads));
	if (!s->th || !s->cpus || !s->lk || !s->timers || !s->r->threads)
		return -ENOMEM;
	s->r->nthreads = n;
	for (uint32_t i = 0; i < s->ncpus; i++) {
		s->cpus[i].id = (int)i;
		s->cpus[i].rq = calloc(n + 1, sizeof(int));
		s->cpus[i].next_local = SP_INF;
		if (!s->cpus[i].rq)
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < w->nlocks; i++) {
		struct sp_sim_lock *l = &s->lk[i];

		l->kind = w->locks[i].kind;
		l->pi = l->kind == SP_SIM_UMUTEX && (s->pol == SP_SIM_POL_PI || w->pi_enabled);
		l->owner = -1;
		l->readers = calloc(n, sizeof(int));
		l->wq = calloc(n, sizeof(int));
		if (!l->readers || !l->wq)
			return -ENOMEM;
	}
	n = 0;
	for (uint32_t i = 0; i < w->ntasks; i++) {
		const struct sp_sim_task *k = &w->tasks[i];
		bool crit = k->critical || sp_named_critical(o, k->name);
		bool hog = !crit && !sp_sim_task_takes_locks(k);

		any_hog |= hog;
		for (uint32_t j = 0; j < k->instances; j++, n++) {
			struct sp_sim_thread *t = &s->th[n];
			struct sp_sim_thread_stats *ts = &s->r->threads[n];

			t->idx = (int)n;
			t->task = k;
			t->inst = j;
			t->cpu = -1;
			t->critical = crit;
			t->hog = hog;
			t->tick_slice = sp_sim_task_only_runs(k);
			t->affinity = k->affinity;
			if (s->ncpus < 64 && t->affinity && !(t->affinity & ((1ull << s->ncpus) - 1)))
				t->affinity = 0; /* names no CPU that exists: any */
			t->policy = k->sched;
			t->rtprio = k->sched == SP_SIM_OTHER ? 0 : k->prio;
			t->nice = k->sched == SP_SIM_OTHER ? k->prio : 0;
			if (s->pol == SP_SIM_POL_RTUI && crit && t->rtprio < s->fifo_prio) {
				t->policy = SP_SIM_FIFO;
				t->rtprio = s->fifo_prio;
			}
			t->eff = t->policy == SP_SIM_OTHER ? 0 : t->rtprio;
			t->rr = t->policy == SP_SIM_RR;
			t->weight = sp_sim_sched_weight(t->nice);
			t->fresh = true;
			t->pelt = t->pelt_sleep = 1024;
			t->last_wakee = -1;
			t->wait_lock = -1;
			t->task_left = k->loop;
			t->phase_left = k->nphases ? k->phases[0].loop : 1;
			t->rng = sp_splitmix(o->seed * 0x100000001b3ull + n);
			if (!t->rng)
				t->rng = 1;
			if (j)
				snprintf(ts->name, sizeof(ts->name), "%s-%u", k->name, j);
			else
				snprintf(ts->name, sizeof(ts->name), "%s", k->name);
			ts->task = (int)i;
			ts->critical = crit;
			ts->hog = hog;
		}
	}
	if (!any_hog)
		for (uint32_t i = 0; i < s->nth; i++)
			s->th[i].hog = s->r->threads[i].hog = !s->th[i].critical;
	for (uint32_t i = 0; i < s->nth; i++)
		sp_sim_push(s, s->th[i].task->delay_ns, SP_SIM_EV_START, (int)i, 0);
	if (s->ncpus > 1)
		sp_sim_push(s, SP_BALANCE_NS, SP_SIM_EV_BALANCE, 0, 0);
	return s->err ? -ENOMEM : 0;
}

static void sp_event(struct sp_sim *s, const struct sp_sim_event *e)
{
	struct sp_sim_thread *t;

	switch (e->type) {
	case SP_SIM_EV_START:
		t = &s->th[e->a];
		if (!t->task->nphases) {
			t->state = SP_TS_DONE;
			break;
		}
		t->t_first = s->now;
		sp_sim_sched_wake(s, t);
		break;
	case SP_SIM_EV_WAKE:
		t = &s->th[e->a];
		if (t->state == SP_TS_SLEEP && t->gen == e->gen)
			sp_sim_sched_wake(s, t);
		break;
	case SP_SIM_EV_TICK:
		sp_sim_pol_tick(s);
		break;
	case SP_SIM_EV_BOOST:
		sp_sim_pol_boost_due(s, &s->th[e->a], e->gen);
		break;
	case SP_SIM_EV_WK_KICK:
		sp_sim_pol_wk_kick(s, &s->th[e->a], e->gen);
		break;
	case SP_SIM_EV_WT_LOWER:
		sp_sim_pol_waiter_bound(s, &s->th[e->a], e->gen);
		break;
	case SP_SIM_EV_DEFER_END:
		sp_sim_pol_defer_due(s, e->a, e->gen);
		break;
	case SP_SIM_EV_BALANCE:
		sp_sim_sched_balance(s);
		sp_sim_push(s, s->now + SP_BALANCE_NS, SP_SIM_EV_BALANCE, 0, 0);
		break;
	}
}

static void sp_resched_all(struct sp_sim *s)
{
	struct sp_sim_cpu *cpus = s->cpus;
	uint32_t n = s->ncpus;

	for (int round = 0; round < 64; round++) {
		bool any = false;

		for (uint32_t i = 0; i < n; i++) {
			if (cpus[i].resched) {
				/* a deferral may step the program, which may ask
				 * for a pick again: another round */
				if (!sp_sim_pol_defer_resched(s, &cpus[i]))
					sp_sim_sched_schedule(s, &cpus[i]);
				any = true;
			}
		}
		if (!any)
			return;
	}
}

static void sp_finish(struct sp_sim *s)
{
	struct sp_sim_result *r = s->r;

	s->now = s->end;
	for (uint32_t i = 0; i < s->ncpus; i++)
		sp_sim_sched_update_curr(s, &s->cpus[i]);
	for (uint32_t i = 0; i < s->nth; i++) {
		struct sp_sim_thread *t = &s->th[i];
		struct sp_sim_thread_stats *ts = &r->threads[i];

		ts->cpu_ns = t->cpu_ns;
		ts->wait_ns = sp_sim_wait_now(s, t);
		ts->blocked_ns = t->blocked_ns + (t->wait_lock >= 0 ? s->now - t->block_since : 0);
		if (t->hog)
			r->bg_work_ns += t->cpu_ns;
		if (t->critical && t->last_tm && t->state != SP_TS_DONE) {
			/* the bench's frame in progress, if its deadline has
			 * passed (rt-app logs only the timers it reached) */
			uint64_t d = t->last_tm->next + t->last_period;

			if (s->now > d) {
				r->janky += (s->now - d) / t->last_period + 1;
				r->frames += (s->now - d) / t->last_period + 1;
			}
		}
	}
	r->sim_ns = s->end;
	if (r->hist.count) {
		r->p50 = sp_hist_quantile(&r->hist, 50, 100);
		r->p99 = sp_hist_quantile(&r->hist, 99, 100);
		r->p999 = sp_hist_quantile(&r->hist, 999, 1000);
		r->max = r->hist.max;
	}
}

/* The linux model's base slice when neither the options nor the file give
 * one: the kernel's, sysctl_sched_base_slice = 0.70 ms * (1 + ilog2(CPUs,
 * at most 8)) (SCHED_TUNABLESCALING_LOG; 0.75 ms before 6.15): 1.4 ms on
 * 2 CPUs, the slice a trace of the bench shows its holders preempted at. */
static uint64_t sp_linux_base_slice(uint32_t ncpus)
{
	uint32_t n = ncpus < 8 ? ncpus : 8, f = 1;

	while (n >>= 1)
		f++;
	return 700000ull * f;
}

int sp_sim_run(const struct sp_sim_workload *w, const struct sp_sim_opts *o,
	       struct sp_sim_result *r)
{
	struct sp_sim s;
	int rc;

	memset(r, 0, sizeof(*r));
	sp_hist_init(&r->hist);
	if (!w || !o || (unsigned)o->policy >= SP_SIM_POL_NR || o->k > SP_MAX_READERS_PER_LOCK ||
	    o->fifo_prio < 0 || o->fifo_prio > 99 || o->run_jitter_ppm > SP_SIM_MAX_RUN_JITTER_PPM ||
	    o->rseq_slice_ns > SP_SIM_MAX_RSEQ_SLICE_NS)
		return -EINVAL;
	memset(&s, 0, sizeof(s));
	s.w = w;
	s.o = o;
	s.r = r;
	s.pol = o->policy;
	s.ncpus = o->cpus ? o->cpus : w->cpus ? w->cpus : SP_SIM_DEFAULT_CPUS;
	s.end = o->duration_ns ? o->duration_ns
		: w->duration_ns ? w->duration_ns : SP_SIM_DEFAULT_DURATION_NS;
	s.slice = o->base_slice_ns ? o->base_slice_ns
		: w->base_slice_ns ? w->base_slice_ns
		: w->linux_model ? sp_linux_base_slice(s.ncpus) : SP_SIM_DEFAULT_SLICE_NS;
	s.linux_model = w->linux_model;
	s.waker = -1;
	s.waiter_boost = w->waiter_boost;
	s.in_waiter_cpu = -1;
	s.fifo_prio = o->fifo_prio ? o->fifo_prio : 1;
	s.tick_ns = o->tick_ns ? o->tick_ns : 1000000ull;
	s.proxy = s.pol == SP_SIM_POL_PROXY || s.pol == SP_SIM_POL_PROXY_MIGRATE;
	s.migrate = s.pol == SP_SIM_POL_PROXY_MIGRATE;
	if (s.ncpus > 64)
		return -EINVAL;
	/* a thread's held locks are a fixed array: a deeper nesting is
	 * refused whole rather than found part-way through the run */
	if ((rc = sp_sim_check_depth(w)))
		return rc;
	snprintf(r->scenario, sizeof(r->scenario), "%s", w->name);
	r->policy = o->policy;
	r->k = s.pol == SP_SIM_POL_SUPERPASS ? (o->k ? o->k : 4) : 0;
	r->cpus = s.ncpus;
	rc = sp_sim_setup(&s);
	if (!rc)
		rc = sp_sim_pol_init(&s);
	if (rc) {
		sp_sim_free(&s);
		sp_sim_result_destroy(r);
		return rc;
	}
	for (;;) {
		uint64_t t = s.nheap ? s.heap[0].t : SP_INF;
		struct sp_sim_cpu *c = NULL, *cpus = s.cpus;

		for (uint32_t i = 0, n = s.ncpus; i < n; i++) {
			if (cpus[i].next_local <= t && (!c || cpus[i].next_local < t)) {
				t = cpus[i].next_local;
				c = &cpus[i];
			}
		}
		if (t >= s.end || t == SP_INF || s.err)
			break;
		s.now = t;
		r->events++;
		if (c) {
			sp_sim_sched_cpu_event(&s, c);
		} else {
			struct sp_sim_event e = sp_pop(&s);

			sp_event(&s, &e);
		}
		sp_resched_all(&s);
	}
	sp_finish(&s);
	sp_sim_pol_fini(&s);
	rc = s.err ? -ENOMEM : 0;
	sp_sim_free(&s);
	if (rc)
		sp_sim_result_destroy(r);
	return rc;
}

void sp_sim_result_destroy(struct sp_sim_result *r)
{
	free(r->threads);
	r->threads = NULL;
	r->nthreads = 0;
}
