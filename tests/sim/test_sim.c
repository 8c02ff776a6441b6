// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The simulator's behaviour (cmocka): the classes, the locks, the policies
 * and determinism. Every check is on simulated time or on the trace; no
 * test reads a real clock.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <superpass/sim.h>

#define MS 1000000ull
#define US 1000ull

/* ---- a trace checker: who holds what, at every event ---- */
#define MAXT 64
#define MAXL 8

struct checker {
	int excl[MAXL];              /* exclusive holder, -1 */
	int readers[MAXL];
	bool writer_waiting[MAXL];   /* some writer is blocked on it */
	int waiting[MAXT];           /* lock a thread waits for, -1 */
	uint8_t wait_hold[MAXT];
	int violations;
	int reader_while_writer_waits;
	int excl_past_waiter;        /* exclusive acquires while another thread waits */
	int proxy_runs, proxy_cross_cpu;
	int cpu_of[MAXT];            /* CPU a thread last ran on */
	int on_cpu[64];              /* thread a CPU runs, -1 */
	int max_prio[MAXT];
	int prio[MAXT];
	uint64_t frames;
};

static void chk_init(struct checker *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < MAXL; i++)
		c->excl[i] = -1;
	for (int i = 0; i < MAXT; i++) {
		c->waiting[i] = -1;
		c->cpu_of[i] = -1;
	}
	for (int i = 0; i < 64; i++)
		c->on_cpu[i] = -1;
}

static void chk_writer_waiting(struct checker *c, int l)
{
	c->writer_waiting[l] = false;
	for (int t = 0; t < MAXT; t++)
		if (c->waiting[t] == l && c->wait_hold[t] == SP_SIM_EXCL)
			c->writer_waiting[l] = true;
}

static void chk_trace(void *ctx, const struct sp_sim_trace *e)
{
	struct checker *c = ctx;
	int t = e->thread, l = e->lock;

	switch (e->type) {
	case SP_SIM_TR_SWITCH:
		if (e->cpu >= 0 && e->cpu < 64)
			c->on_cpu[e->cpu] = t;
		if (t >= 0 && t < MAXT)
			c->cpu_of[t] = e->cpu;
		break;
	case SP_SIM_TR_BLOCK:
		c->waiting[t] = l;
		c->wait_hold[t] = (uint8_t)e->arg;
		chk_writer_waiting(c, l);
		break;
	case SP_SIM_TR_ACQUIRE:
		if (e->arg == SP_SIM_EXCL) {
			if (c->excl[l] >= 0 || c->readers[l])
				c->violations++;
			c->excl[l] = t;
			for (int u = 0; u < MAXT; u++)
				if (u != t && c->waiting[u] == l && c->waiting[t] != l) {
					c->excl_past_waiter++;
					break;
				}
		} else {
			if (c->excl[l] >= 0)
				c->violations++;
			/* A new reader (not one handed the lock) while a writer waits. */
			if (c->writer_waiting[l] && c->waiting[t] != l)
				c->reader_while_writer_waits++;
			c->readers[l]++;
		}
		if (c->waiting[t] == l) {
			c->waiting[t] = -1;
			chk_writer_waiting(c, l);
		}
		break;
	case SP_SIM_TR_RELEASE:
		if (e->arg == SP_SIM_EXCL) {
			if (c->excl[l] != t)
				c->violations++;
			c->excl[l] = -1;
		} else {
			if (c->readers[l] <= 0)
				c->violations++;
			c->readers[l]--;
		}
		break;
	case SP_SIM_TR_PRIO:
		c->prio[t] = e->arg;
		if (e->arg > c->max_prio[t])
			c->max_prio[t] = e->arg;
		break;
	case SP_SIM_TR_PROXY:
		c->proxy_runs++;
		/* the owner runs from the run queue of the CPU that picked the
		 * donor: never from another CPU's */
		if (e->cpu < 0 || e->rq != e->cpu)
			c->proxy_cross_cpu++;
		break;
	case SP_SIM_TR_FRAME:
		c->frames++;
		break;
	}
}

typedef void trace_fn(void *ctx, const struct sp_sim_trace *e);

/* The default options but @pol, @dur and the trace callback @fn (NULL:
 * none) with @ctx. */
static struct sp_sim_opts traced_opts(enum sp_sim_policy pol, uint64_t dur, trace_fn *fn, void *ctx)
{
	struct sp_sim_opts o;

	sp_sim_opts_default(&o);
	o.policy = pol;
	o.duration_ns = dur;
	o.trace = fn;
	o.trace_ctx = ctx;
	return o;
}

/* Runs @w under traced_opts(@pol, @dur, @fn, @ctx) into @r. */
static void run_traced(const struct sp_sim_workload *w, enum sp_sim_policy pol, uint64_t dur,
		       trace_fn *fn, void *ctx, struct sp_sim_result *r)
{
	struct sp_sim_opts o = traced_opts(pol, dur, fn, ctx);

	assert_int_equal(sp_sim_run(w, &o, r), 0);
}

static struct sp_sim_result *run(const struct sp_sim_workload *w, enum sp_sim_policy pol,
				 uint32_t cpus, uint64_t dur, struct checker *c)
{
	struct sp_sim_result *r = calloc(1, sizeof(*r));
	struct sp_sim_opts o;

	assert_non_null(r);
	if (c)
		chk_init(c);
	o = traced_opts(pol, dur, c ? chk_trace : NULL, c);
	o.cpus = cpus;
	assert_int_equal(sp_sim_run(w, &o, r), 0);
	return r;
}

static void done(struct sp_sim_result *r)
{
	sp_sim_result_destroy(r);
	free(r);
}

static struct sp_sim_workload *wl(const char *name)
{
	struct sp_sim_workload *w;

	assert_int_equal(sp_sim_workload_create(name, &w), 0);
	return w;
}

/* The workload of the JSON text that @fmt and its arguments print, named
 * @name; a text the parser refuses fails the test with its message. */
__attribute__((format(printf, 2, 3)))
static struct sp_sim_workload *parse(const char *name, const char *fmt, ...)
{
	struct sp_sim_workload *w;
	char text[2048], err[256] = "";
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	assert_in_range(n, 0, sizeof(text) - 1);
	if (sp_sim_workload_parse(text, name, &w, err, sizeof(err)))
		fail_msg("%s: %s", name, err);
	return w;
}

/* ---- the fair class follows the weight table ---- */
static void test_fair_shares(void **state)
{
	static const int nices[] = { -10, -5, 0, 0, 5, 10, 19 };
	static const uint32_t weight[] = { 9548, 3121, 1024, 1024, 335, 110, 15 };
	struct sp_sim_workload *w = wl("shares");
	struct sp_sim_result *r;
	uint64_t total = 0, wsum = 0;

	(void)state;
	for (int i = 0; i < 7; i++) {
		char name[16];
		int t;

		snprintf(name, sizeof(name), "hog%d", i);
		t = sp_sim_task_add(w, name, SP_SIM_OTHER, nices[i], 1);
		assert_true(t >= 0);
		sp_sim_task_run(w, t, 100 * MS);
		wsum += weight[i];
	}
	r = run(w, SP_SIM_POL_NONE, 1, 300000 * MS, NULL);
	for (int i = 0; i < 7; i++)
		total += r->threads[i].cpu_ns;
	assert_int_equal(total, 300000 * MS);
	for (int i = 0; i < 7; i++) {
		double want = (double)weight[i] / (double)wsum;
		double got = (double)r->threads[i].cpu_ns / (double)total;

		if (got < want * 0.99 || got > want * 1.01)
			fail_msg("nice %d: share %.5f, the weight table says %.5f", nices[i], got, want);
	}
	done(r);
	sp_sim_workload_destroy(w);
}

/* Two CPUs, four equal hogs: the balancer spreads them, each gets half. */
static void test_fair_two_cpus(void **state)
{
	struct sp_sim_workload *w = wl("spread");
	struct sp_sim_result *r;
	int t = sp_sim_task_add(w, "hog", SP_SIM_OTHER, 0, 4);

	(void)state;
	sp_sim_task_run(w, t, 10 * MS);
	r = run(w, SP_SIM_POL_NONE, 2, 4000 * MS, NULL);
	for (int i = 0; i < 4; i++) {
		double got = (double)r->threads[i].cpu_ns / (4000.0 * MS);

		if (got < 0.49 || got > 0.51)
			fail_msg("hog %d got %.4f of a CPU, not a half", i, got);
	}
	done(r);
	sp_sim_workload_destroy(w);
}

/* ---- run_jitter_ppm: each run op's length drawn within +- the jitter ----
 * One thread runs 1 ms and sleeps 1 ms, 100 times. Exact, it uses 100 ms
 * of CPU; with 1 % jitter each burst is 0.99-1.01 ms, so the total is
 * within 1 % of it but not it, another seed draws other lengths, and the
 * same seed the same ones (superpass replay's runs are reproducible). */
static uint64_t jittered_cpu(uint32_t ppm, uint64_t seed, int *rc)
{
	struct sp_sim_workload *w = wl("jitter");
	int t = sp_sim_task_add(w, "t", SP_SIM_OTHER, 0, 1);
	struct sp_sim_opts o;
	struct sp_sim_result r;
	uint64_t cpu;

	sp_sim_task_set_loop(w, t, 100);
	sp_sim_task_run(w, t, 1 * MS);
	sp_sim_task_sleep(w, t, 1 * MS);
	o = traced_opts(SP_SIM_POL_NONE, 1000 * MS, NULL, NULL);
	o.cpus = 1;
	o.seed = seed;
	o.run_jitter_ppm = ppm;
	*rc = sp_sim_run(w, &o, &r);
	cpu = *rc ? 0 : r.threads[0].cpu_ns;
	sp_sim_result_destroy(&r);
	sp_sim_workload_destroy(w);
	return cpu;
}

static void test_run_jitter(void **state)
{
	uint64_t exact, a, b, a2;
	int rc;

	(void)state;
	exact = jittered_cpu(0, 1, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(exact, 100 * MS);
	a = jittered_cpu(10000, 1, &rc);
	b = jittered_cpu(10000, 2, &rc);
	a2 = jittered_cpu(10000, 1, &rc);
	assert_int_equal(rc, 0);
	assert_in_range(a, 99 * MS, 101 * MS);
	assert_in_range(b, 99 * MS, 101 * MS);
	assert_int_not_equal(a, exact);
	assert_int_not_equal(a, b);
	assert_int_equal(a, a2);
	jittered_cpu(SP_SIM_MAX_RUN_JITTER_PPM + 1, 1, &rc);
	assert_int_equal(rc, -EINVAL);
}

/* ---- the linux model's balancer moves a hog that is more than half the gap ----
 * Four nice-0 hogs start three on CPU 0 and one on CPU 1 (CPU 1 is idle
 * when the second starts, neither when the last two do), beside eight
 * nice-19 threads bound to CPU 1 that run and nap (a bench's readers).
 * CPU 0's load is 3072 and CPU 1's 1024 and a little: a hog (1024) is more
 * than half the gap, and Linux moves one all the same after a failed try
 * (detach_tasks() halves a task's load per nr_balance_failed). Without it
 * the lone hog would have a CPU to itself and the readers beside it twice
 * their share. */
static void test_linux_balance_after_failure(void **state)
{
	static const char *const text =
		"{ \"global\": { \"duration\": 4, \"sp_cpus\": 2, \"sp_sched_model\": \"linux\" }, "
		"\"tasks\": { "
		"\"a\": { \"run\": 10000 }, \"b\": { \"delay\": 10, \"run\": 10000 }, "
		"\"c\": { \"delay\": 20, \"run\": 10000 }, \"d\": { \"delay\": 20, \"run\": 10000 }, "
		"\"reader\": { \"instance\": 8, \"priority\": 19, \"cpus\": [1], "
		"\"run\": 500, \"sleep\": 50 } } }";
	struct sp_sim_workload *w = parse("balance", "%s", text);
	struct sp_sim_result *r;

	(void)state;
	r = run(w, SP_SIM_POL_NONE, 2, 4000 * MS, NULL);
	for (uint32_t i = 0; i < r->nthreads; i++) {
		double got = (double)r->threads[i].cpu_ns / (4000.0 * MS);

		if (strncmp(r->threads[i].name, "reader", 6) && (got < 0.45 || got > 0.52))
			fail_msg("hog %s got %.4f of a CPU, not a half", r->threads[i].name, got);
	}
	done(r);
	sp_sim_workload_destroy(w);
}

/* ---- kernel locks (linux model): a running thread may take them first ----
 *
 * mutex_unlock leaves the mutex free and wakes the head waiter; a thread
 * that locks it before the waiter runs takes it, and the woken waiter,
 * losing it, stays at the head and sets MUTEX_FLAG_HANDOFF, so a later
 * unlock hands it over. An rwsem writer may take the lock past its waiters
 * the same way; the head writer asks for the handoff once it has waited a
 * 4 ms tick (RWSEM_WAIT_TIMEOUT). Here a SCHED_FIFO holder takes the lock
 * again as soon as it lets it go (four 1 ms sections back to back, then a
 * sleep) on CPU 0, and the critical waiter, asking 0.5 ms in on CPU 1,
 * cannot run before 2.6 ms (a real-time task runs there from 0.6 ms). The classic model
 * hands the lock to the waiter at the release (no acquire past a waiter);
 * the linux one lets the holder take it back, and the waiter still gets it
 * (the handoff: without it the holder would keep it to the end).
 */
static void test_linux_kernel_lock_taken_first(void **state)
{
	static const char *const fmt =
		"{ \"global\": { \"duration\": 1, \"sp_cpus\": 2, \"sp_sched_model\": \"%s\", "
		"\"sp_locks\": { \"k\": \"%s\" }, \"sp_critical\": [\"waiter\"] }, "
		"\"tasks\": { "
		"\"holder\": { \"cpus\": [0], \"policy\": \"SCHED_FIFO\", \"priority\": 10, "
		"\"%s\": \"k\", \"run\": 1000, \"sp_unlock\": \"k\", "
		"\"%s1\": \"k\", \"run1\": 1000, \"sp_unlock1\": \"k\", "
		"\"%s2\": \"k\", \"run2\": 1000, \"sp_unlock2\": \"k\", "
		"\"%s3\": \"k\", \"run3\": 1000, \"sp_unlock3\": \"k\", \"sleep\": 100000 }, "
		"\"busy\": { \"cpus\": [1], \"policy\": \"SCHED_FIFO\", \"priority\": 20, "
		"\"delay\": 600, \"run\": 2000, \"sleep\": 1000000 }, "
		"\"waiter\": { \"cpus\": [1], \"delay\": 500, \"%s\": \"k\", \"run\": 10, "
		"\"sp_unlock\": \"k\", \"sleep\": 1000000 } } }";
	static const struct {
		const char *kind, *lock;
	} k[] = { { "kmutex", "lock" }, { "rwsem", "sp_wrlock" } };

	(void)state;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		for (int linux_model = 0; linux_model < 2; linux_model++) {
			struct checker *c = calloc(1, sizeof(*c));
			struct sp_sim_workload *w =
				parse("taken-first", fmt, linux_model ? "linux" : "classic", k[i].kind,
				      k[i].lock, k[i].lock, k[i].lock, k[i].lock, k[i].lock);
			struct sp_sim_result *r;

			r = run(w, SP_SIM_POL_NONE, 2, 200 * MS, c);
			assert_int_equal(c->violations, 0);
			/* the waiter gets the lock (its one wait ends) */
			if (r->blockings != 1)
				fail_msg("%s %s: %llu blockings", k[i].kind,
					 linux_model ? "linux" : "classic",
					 (unsigned long long)r->blockings);
			/* classic: handed over at 1 ms; linux: taken back at 1 and
			 * 2 ms, the waiter's retry at 2.6 ms fails, and at 3 ms it
			 * has the lock (a mutex handed over, MUTEX_FLAG_HANDOFF; an
			 * rwsem's waiter, running by then, first to it): 2.5 ms */
			if (c->excl_past_waiter != (linux_model ? 2 : 0) ||
			    (linux_model && (r->max < 2450 * US || r->max > 2550 * US)))
				fail_msg("%s %s: %d acquires past the waiter, waited %llu us", k[i].kind,
					 linux_model ? "linux" : "classic", c->excl_past_waiter,
					 (unsigned long long)(r->max / US));
			done(r);
			free(c);
			sp_sim_workload_destroy(w);
		}
	}
}

/* ---- glibc's RWAITING readers (linux model) ----
 * r0 holds the read side 3 ms; w asks for the write side at 0.5 ms and
 * waits; r1 asks for the read side at 1 ms, finds a writer waiting in a
 * read phase, and waits on __readers (RWAITING), not registered. glibc's
 * last reader out wakes it (it retries and waits again, now for the
 * writer's phase); the classic model hands it the read side only at the
 * writer's unlock. */
struct rwaiting {
	uint64_t r1_first_wake, w_release;
	int r1_blocks;
};

static void rwaiting_trace(void *ctx, const struct sp_sim_trace *e)
{
	struct rwaiting *x = ctx;

	if (e->type == SP_SIM_TR_BLOCK && e->thread == 2)
		x->r1_blocks++;
	if (e->type == SP_SIM_TR_WAKE && e->thread == 2 && x->r1_blocks && !x->r1_first_wake)
		x->r1_first_wake = e->t;
	if (e->type == SP_SIM_TR_RELEASE && e->thread == 1 && !x->w_release)
		x->w_release = e->t;
}

static void test_glibc_rwaiting_readers(void **state)
{
	static const char *const fmt =
		"{ \"global\": { \"duration\": 1, \"sp_cpus\": 2, \"sp_sched_model\": \"%s\", "
		"\"sp_locks\": { \"rw\": \"rwlock-writer\" } }, \"tasks\": { "
		"\"r0\": { \"loop\": 1, \"sp_rdlock\": \"rw\", \"run\": 3000, \"sp_unlock\": \"rw\", "
		"\"sleep\": 100000 }, "
		"\"w\": { \"loop\": 1, \"delay\": 500, \"sp_wrlock\": \"rw\", \"run\": 100, "
		"\"sp_unlock\": \"rw\", \"sleep\": 100000 }, "
		"\"r1\": { \"loop\": 1, \"delay\": 1000, \"sp_rdlock\": \"rw\", \"run\": 100, "
		"\"sp_unlock\": \"rw\", \"sleep\": 100000 } } }";

	(void)state;
	for (int linux_model = 0; linux_model < 2; linux_model++) {
		struct sp_sim_workload *w = parse("rwaiting", fmt, linux_model ? "linux" : "classic");
		struct rwaiting x = { 0 };
		struct sp_sim_result r;

		run_traced(w, SP_SIM_POL_NONE, 50 * MS, rwaiting_trace, &x, &r);
		assert_true(x.w_release > 3 * MS);
		assert_true(x.r1_first_wake > 0);
		if (linux_model) /* woken by r0's unlock, before the writer's */
			assert_true(x.r1_first_wake < x.w_release);
		else /* handed the read side at the writer's unlock */
			assert_int_equal(x.r1_first_wake, x.w_release);
		sp_sim_result_destroy(&r);
		sp_sim_workload_destroy(w);
	}
}

/* ---- the linux model's superpass worker occupies a CPU ----
 * The bench's mutex scenario (examples/workloads/mutex.json) under the
 * linux model: the runtime's worker is an RT thread that runs on the CPU
 * the critical thread is not on, so the fast-tracked holder runs on the
 * critical thread's CPU, and its release wakes the critical thread there,
 * as the runtime's do. Without the worker, the holder would be boosted
 * wherever it was queued, often on the other CPU. */
struct wk_cpu {
	int crit_cpu, waiting;
	int same, other, worker_runs;
	uint32_t worker;
};

static void wk_cpu_trace(void *ctx, const struct sp_sim_trace *e)
{
	struct wk_cpu *x = ctx;

	if (e->type == SP_SIM_TR_SWITCH && e->thread == 0)
		x->crit_cpu = e->cpu;
	if (e->type == SP_SIM_TR_SWITCH && e->thread == (int32_t)x->worker)
		x->worker_runs++;
	if (e->type == SP_SIM_TR_BLOCK && e->thread == 0)
		x->waiting = 1;
	if (e->type == SP_SIM_TR_ACQUIRE && e->thread == 0)
		x->waiting = 0;
	if (e->type == SP_SIM_TR_RELEASE && x->waiting && (e->thread == 1 || e->thread == 2)) {
		if (e->cpu == x->crit_cpu)
			x->same++;
		else
			x->other++;
	}
}

static void test_linux_worker_cpu(void **state)
{
	static const char *const text =
		"{ \"global\": { \"duration\": 10, \"sp_cpus\": 2, \"sp_sched_model\": \"linux\" }, "
		"\"tasks\": { "
		"\"sp-ui\": { \"priority\": -10, \"sp_critical\": true, "
		"\"run1\": 250, \"lock1\": \"a\", \"run2\": 50, \"unlock1\": \"a\", "
		"\"run3\": 250, \"lock2\": \"a\", \"run4\": 50, \"unlock2\": \"a\", "
		"\"timer\": { \"ref\": \"unique\", \"period\": 8333, \"mode\": \"relative\" } }, "
		"\"sp-bg\": { \"instance\": 2, \"priority\": 19, "
		"\"lock\": \"a\", \"run\": 500, \"unlock\": \"a\", "
		"\"timer\": { \"ref\": \"unique\", \"period\": 4000, \"mode\": \"absolute\" } }, "
		"\"sp-hog\": { \"instance\": 4, \"run\": 10000 } } }";
	struct sp_sim_workload *w = parse("worker", "%s", text);
	struct wk_cpu x = { .crit_cpu = -1, .worker = 7 };
	struct sp_sim_result r;

	(void)state;
	run_traced(w, SP_SIM_POL_SUPERPASS, 0, wk_cpu_trace, &x, &r);
	assert_int_equal(r.nthreads, x.worker); /* the worker is no workload thread */
	assert_true(x.worker_runs > 10);
	if (x.same + x.other < 20)
		fail_msg("%d releases during critical waits (%d blockings)", x.same + x.other, (int)r.blockings);
	if (x.same < 9 * (x.same + x.other) / 10)
		fail_msg("the holder released on the critical thread's CPU %d times of %d", x.same,
			 x.same + x.other);
	assert_int_equal(r.boosted_at_end, 0);
	sp_sim_result_destroy(&r);
	sp_sim_workload_destroy(w);
}

/* ---- RUN_TO_PARITY (linux model): a fair wakeup waits for the slice ---- */
struct parity {
	uint64_t wait_sum;
	int n;
	uint64_t woke[8];
	bool ran[8];
};

static void parity_trace(void *ctx, const struct sp_sim_trace *e)
{
	struct parity *x = ctx;

	/* tasks 1-4: the wakers (task 0 is the hog) */
	if (e->thread < 1 || e->thread > 4)
		return;
	if (e->type == SP_SIM_TR_WAKE && !x->woke[e->thread]) {
		x->woke[e->thread] = e->t;
	} else if (e->type == SP_SIM_TR_SWITCH && !x->ran[e->thread]) {
		x->ran[e->thread] = true;
		x->wait_sum += e->t - x->woke[e->thread];
		x->n++;
	}
}

/* One CPU, a 3.9 ms base slice: a nice 0 hog and four nice -10 threads
 * that start (fresh: no lag, the earlier deadline) in the middle of the
 * hog's slice, at 5.0, 9.5, 13.2 and 17.7 ms, and run 100 us. The classic
 * model preempts the hog when their deadline is the earlier (0.66 ms of
 * waiting on average); the linux one (RUN_TO_PARITY) keeps it running,
 * eligible and short of its deadline, to its slice's end, seen at a 4 ms
 * tick (3.65 ms; 0.70 without RUN_TO_PARITY). */
static void test_linux_run_to_parity(void **state)
{
	static const char *const fmt =
		"{ \"global\": { \"duration\": 1, \"sp_cpus\": 1, \"sp_base_slice_us\": 3900, "
		"\"sp_sched_model\": \"%s\" }, \"tasks\": { "
		"\"hog\": { \"run\": 100000 }, "
		"\"w1\": { \"priority\": -10, \"delay\": 5000, \"run\": 100 }, "
		"\"w2\": { \"priority\": -10, \"delay\": 9500, \"run\": 100 }, "
		"\"w3\": { \"priority\": -10, \"delay\": 13200, \"run\": 100 }, "
		"\"w4\": { \"priority\": -10, \"delay\": 17700, \"run\": 100 } } }";
	uint64_t mean[2];

	(void)state;
	for (int m = 0; m < 2; m++) {
		struct sp_sim_workload *w = parse("parity", fmt, m ? "linux" : "classic");
		struct parity x = { 0 };
		struct sp_sim_result r;

		run_traced(w, SP_SIM_POL_NONE, 30 * MS, parity_trace, &x, &r);
		assert_int_equal(x.n, 4);
		mean[m] = x.wait_sum / 4;
		sp_sim_result_destroy(&r);
		sp_sim_workload_destroy(w);
	}
	if (mean[1] < mean[0] + 2 * MS)
		fail_msg("start to run: classic %llu ns, linux %llu ns", (unsigned long long)mean[0],
			 (unsigned long long)mean[1]);
}

/* ---- sp_waiter_boost: the critical waiter applies its fast tracks ---- */
struct wb {
	uint64_t block_t, lat_sum;
	int crit, worker, boosts, worker_runs, blocks;
	int block_cpu, delayed, pushed, pushed_here;
	bool waiting;
	int crit_prio, crit_raises, crit_lowers, raised_at_release;
};

static void wb_trace(void *ctx, const struct sp_sim_trace *e)
{
	struct wb *x = ctx;

	if (e->thread == x->crit && e->type == SP_SIM_TR_PRIO) {
		x->crit_raises += e->arg > 0 && x->crit_prio == 0;
		x->crit_lowers += e->arg == 0 && x->crit_prio > 0;
		x->crit_prio = e->arg;
	}
	if (e->thread == x->crit && e->type == SP_SIM_TR_RELEASE && x->crit_prio > 0)
		x->raised_at_release++;

	if (e->type == SP_SIM_TR_BLOCK && e->thread == x->crit) {
		x->block_t = e->t;
		x->block_cpu = e->cpu;
		x->waiting = true;
		x->blocks++;
	} else if (e->type == SP_SIM_TR_ACQUIRE && e->thread == x->crit) {
		x->waiting = false;
	} else if (e->type == SP_SIM_TR_PRIO && e->arg > 0 && e->thread != x->crit &&
		   e->thread != x->worker && x->waiting) {
		x->boosts++;
		if (e->t == x->block_t) {
			/* at once: a holder queued on the waiter's CPU, pushed */
			x->pushed++;
			x->pushed_here += e->rq == x->block_cpu;
		} else {
			x->delayed++;
			x->lat_sum += e->t - x->block_t;
		}
		x->waiting = false; /* the first fast track of this wait */
	} else if (e->type == SP_SIM_TR_SWITCH && e->thread == x->worker) {
		x->worker_runs++;
	}
}

/* With sp_waiter_boost (the runtime's sp_waiter.c) the holder a critical
 * wait finds is fast-tracked 20 us after the wait, not after the worker's
 * 75 us or more; the worker still runs (for its ticks). A holder queued on
 * the raised waiter's own CPU is fast-tracked at once, and the RT push puts
 * it on another CPU (sp_waiter_push_holder). And the waiter is
 * raised to the fast tracks' priority for its wait and until it releases
 * the lock its wait took (sp_waiter.c too). */
static void test_waiter_boost(void **state)
{
	static const char *const fmt =
		"{ \"global\": { \"duration\": 2, \"sp_cpus\": 2, \"sp_sched_model\": \"linux\"%s }, "
		"\"tasks\": { "
		"\"sp-ui\": { \"priority\": -10, \"sp_critical\": true, "
		"\"run1\": 250, \"lock1\": \"a\", \"run2\": 50, \"unlock1\": \"a\", "
		"\"timer\": { \"ref\": \"unique\", \"period\": 8333, \"mode\": \"relative\" } }, "
		"\"sp-bg\": { \"instance\": 2, \"priority\": 19, "
		"\"lock\": \"a\", \"run\": 500, \"unlock\": \"a\", "
		"\"timer\": { \"ref\": \"unique\", \"period\": 4000, \"mode\": \"absolute\" } }, "
		"\"sp-hog\": { \"instance\": 4, \"run\": 10000 } } }";
	static const char *const on[] = { ", \"sp_waiter_boost\": true", "" };
	const uint64_t want[] = { 20000, 75000 };

	(void)state;
	for (int m = 0; m < 2; m++) {
		struct sp_sim_workload *w = parse("wb", fmt, on[m]);
		struct wb x = { .crit = 0, .worker = 7 };
		struct sp_sim_result r;

		run_traced(w, SP_SIM_POL_SUPERPASS, 0, wb_trace, &x, &r);
		assert_int_equal(r.nthreads, x.worker);
		if (x.boosts < 10)
			fail_msg("%d first fast tracks in %d critical waits", x.boosts, x.blocks);
		/* with it every first fast track acts 20 us after its wait;
		 * through the worker at least its 75 us (more when the worker
		 * is busy or queued) */
		if (m) {
			assert_int_equal(x.pushed, 0);
			assert_true(x.lat_sum / (uint64_t)x.delayed >= want[m]);
		} else {
			if (x.pushed < 1 || x.delayed < 1)
				fail_msg("%d fast tracks pushed at once, %d after 20 us", x.pushed,
					 x.delayed);
			assert_int_equal(x.pushed_here, 0);
			assert_int_equal(x.lat_sum / (uint64_t)x.delayed, want[m]);
		}
		assert_true(x.worker_runs >= x.boosts);
		if (m) {
			assert_int_equal(x.crit_raises, 0);
		} else {
			if (x.crit_raises < x.blocks - 1 || x.crit_lowers < x.crit_raises - 1 ||
			    x.raised_at_release < x.blocks - 1)
				fail_msg("%d waits: raised %d, lowered %d, raised at %d releases",
					 x.blocks, x.crit_raises, x.crit_lowers, x.raised_at_release);
		}
		sp_sim_result_destroy(&r);
		sp_sim_workload_destroy(w);
	}
}

/* ---- sp_waiter_boost: at most the core's wait_raise_max raised at once ----
 * Six critical threads wait for one mutex at once: the first four raise
 * themselves (sp_core_wait_plan's raise_max, the runtime's four slots),
 * the others wait in the fair class (with the plan's slice). */
struct raised {
	int prio[8];
	int now, most, crit;
};

static void raised_trace(void *ctx, const struct sp_sim_trace *e)
{
	struct raised *x = ctx;

	if (e->type != SP_SIM_TR_PRIO || e->thread < 0 || e->thread >= x->crit)
		return;
	x->now += (e->arg > 0) - (x->prio[e->thread] > 0);
	x->prio[e->thread] = e->arg;
	x->most = x->now > x->most ? x->now : x->most;
}

static void test_waiter_raise_cap(void **state)
{
	static const char *const text =
		"{ \"global\": { \"duration\": 1, \"sp_cpus\": 2, \"sp_sched_model\": \"linux\", "
		"\"sp_waiter_boost\": true }, \"tasks\": { "
		"\"ui\": { \"instance\": 6, \"priority\": -10, \"sp_critical\": true, "
		"\"run1\": 300, \"lock1\": \"a\", \"run2\": 50, \"unlock1\": \"a\", "
		"\"timer\": { \"ref\": \"unique\", \"period\": 8333, \"mode\": \"relative\" } }, "
		"\"bg\": { \"delay\": 100, \"priority\": 19, \"lock\": \"a\", \"run\": 10000, \"unlock\": \"a\", "
		"\"timer\": { \"ref\": \"unique\", \"period\": 8333, \"mode\": \"relative\" } } } }";
	struct sp_sim_workload *w = parse("raise-cap", "%s", text);
	struct raised x = { .crit = 6 };
	struct sp_sim_result r;

	(void)state;
	run_traced(w, SP_SIM_POL_SUPERPASS, 0, raised_trace, &x, &r);
	assert_string_equal(r.threads[5].name, "ui-5");
	if (x.most != 4)
		fail_msg("at most %d critical waiters raised at once, not 4", x.most);
	sp_sim_result_destroy(&r);
	sp_sim_workload_destroy(w);
}

/* ---- the core's hand-off of a mutex to a critical waiter (linux model) ----
 *
 * ui (critical, CPU 0) takes a that bg (nice 19, CPU 1) takes back to back;
 * an RT task on CPU 0 keeps ui from running for a while when bg's release
 * wakes it. bg, lowered by its release and still on CPU 1, takes a again
 * before ui has run, and ui waits behind a new fast-tracked section: the
 * runtime's barging. With the hand-off (superpass, the core's
 * sp_core_handoff_wanted) bg gives a back and sleeps until ui's wait ends:
 * nobody takes a past ui, and each of ui's waits is fast-tracked once.
 * Not under none (no core), nor in the classic model (the textbook
 * scheduler, no runtime mechanism but the fast track). */
static void test_handoff(void **state)
{
	static const char *const fmt =
		"{ \"global\": { \"duration\": 10, \"sp_cpus\": 2, \"sp_sched_model\": \"%s\" }, "
		"\"tasks\": { "
		"\"ui\": { \"priority\": -10, \"sp_critical\": true, \"cpus\": [0], "
		"\"run1\": 250, \"lock1\": \"a\", \"run2\": 50, \"unlock1\": \"a\", "
		"\"timer\": { \"ref\": \"unique\", \"period\": 8333, \"mode\": \"relative\" } }, "
		"\"bg\": { \"priority\": 19, \"cpus\": [1], "
		"\"lock\": \"a\", \"run\": 500, \"unlock\": \"a\" }, "
		"\"rt\": { \"policy\": \"SCHED_FIFO\", \"priority\": 50, \"cpus\": [0], \"run\": 1000, "
		"\"timer\": { \"ref\": \"unique\", \"period\": 3100, \"mode\": \"relative\" } } } }";

	(void)state;
	for (int m = 0; m < 2; m++) {
		struct sp_sim_workload *w = parse("handoff", fmt, m ? "classic" : "linux");
		struct checker c, cn;
		struct sp_sim_result *r = run(w, SP_SIM_POL_SUPERPASS, 0, 0, &c);
		struct sp_sim_result *none = run(w, SP_SIM_POL_NONE, 0, 0, &cn);

		assert_int_equal(c.violations, 0);
		assert_int_equal(none->handoffs, 0);
		if (m) {
			assert_int_equal(r->handoffs, 0);
		} else {
			/* bg found a free while ui waited at least 50 times in
			 * 10 s; it never took it past ui, and slept till ui had
			 * it, never to the bound */
			if (r->handoffs < 50 || c.excl_past_waiter || r->handoff_timeouts ||
			    r->grants != r->blockings)
				fail_msg("%llu hand-offs (%llu to the bound), %d takes past ui, "
					 "%llu grants in %llu waits",
					 (unsigned long long)r->handoffs,
					 (unsigned long long)r->handoff_timeouts, c.excl_past_waiter,
					 (unsigned long long)r->grants, (unsigned long long)r->blockings);
			/* without it bg barges in: none has no fast track, so it
			 * shows the barging */
			assert_true(cn.excl_past_waiter > 0);
		}
		done(r);
		done(none);
		sp_sim_workload_destroy(w);
	}
}

/* ---- sp_skip: a late frame loop skips the periods it missed ---- */
static void count_frames(void *ctx, const struct sp_sim_trace *e)
{
	int *n = ctx;

	*n += e->type == SP_SIM_TR_FRAME;
}

/* 25 ms of work a frame on a 10 ms timer, alone on one CPU, 300 ms. With
 * sp_skip (a frame loop on vsync, as the bench's critical thread) each
 * frame starts at the first 10 ms point after the last one ended: at 0,
 * 30, 60 ms ..., 10 timers reached in 300 ms, each 2 periods late (3
 * frames, 2 janky). Relative starts the next frame at once: 11 (25, 50 ...
 * 275 ms). */
static void test_timer_skip(void **state)
{
	static const char *const fmt =
		"{ \"global\": { \"duration\": 1, \"sp_cpus\": 1 }, \"tasks\": { "
		"\"ui\": { \"sp_critical\": true, \"run\": 25000, "
		"\"timer\": { \"ref\": \"unique\", \"period\": 10000, %s } } } }";
	static const char *const modes[] = { "\"mode\": \"absolute\", \"sp_skip\": true",
					     "\"mode\": \"relative\"" };
	int want[] = { 10, 11 };

	(void)state;
	for (int m = 0; m < 2; m++) {
		struct sp_sim_workload *w = parse("skip", fmt, modes[m]);
		struct sp_sim_result r;
		int n = 0;

		run_traced(w, SP_SIM_POL_NONE, 300 * MS, count_frames, &n, &r);
		assert_int_equal(n, want[m]);
		if (!m) {
			assert_int_equal(r.frames, 30);
			assert_int_equal(r.janky, 20);
		}
		sp_sim_result_destroy(&r);
		sp_sim_workload_destroy(w);
	}
	{ /* only with absolute mode */
		struct sp_sim_workload *w;
		char err[256] = "";

		assert_int_equal(sp_sim_workload_parse(
			"{ \"tasks\": { \"a\": { \"run\": 1, \"timer\": { \"ref\": \"t\", "
			"\"period\": 10, \"sp_skip\": true } } } }", "bad", &w, err, sizeof(err)),
			-EINVAL);
		assert_non_null(strstr(err, "sp_skip"));
	}
}

/* ---- rt-app's frames: one per timer reached, janky if reached late ---- */
struct frame_count {
	int reached, late;
};

static void count_late_frames(void *ctx, const struct sp_sim_trace *e)
{
	struct frame_count *n = ctx;

	if (e->type == SP_SIM_TR_FRAME) {
		n->reached++;
		n->late += e->arg;
	}
}

/* 25 ms of work on a 10 ms timer, rt-app's absolute and relative modes:
 * every timer is reached late and counts once, as rt-app logs it (one row,
 * slack < 0), however many periods it missed. */
static void test_rtapp_frames(void **state)
{
	static const char *const fmt =
		"{ \"global\": { \"duration\": 1, \"sp_cpus\": 1 }, \"tasks\": { "
		"\"ui\": { \"sp_critical\": true, \"run\": 25000, "
		"\"timer\": { \"ref\": \"unique\", \"period\": 10000, \"mode\": \"%s\" } } } }";
	static const char *const modes[] = { "absolute", "relative" };

	(void)state;
	for (int m = 0; m < 2; m++) {
		struct sp_sim_workload *w = parse("rtapp-frames", fmt, modes[m]);
		struct frame_count n = { 0, 0 };
		struct sp_sim_result r;

		run_traced(w, SP_SIM_POL_NONE, 300 * MS, count_late_frames, &n, &r);
		assert_int_equal(n.reached, 11); /* at 25, 50 ... 275 ms */
		assert_int_equal(r.frames, n.reached);
		assert_int_equal(r.janky, n.late);
		assert_int_equal(r.janky, 11);
		sp_sim_result_destroy(&r);
		sp_sim_workload_destroy(w);
	}
}

/* ---- FIFO always beats fair, and preempts it at once ---- */
static void test_fifo_preempts_fair(void **state)
{
	struct sp_sim_workload *w = wl("fifo");
	struct sp_sim_result *r;
	int hog = sp_sim_task_add(w, "hog", SP_SIM_OTHER, -20, 1);
	int rt = sp_sim_task_add(w, "rt", SP_SIM_FIFO, 1, 1);

	(void)state;
	sp_sim_task_run(w, hog, 100 * MS);
	/* 1 ms of work every 10 ms, on a timer: a frame, late if not served */
	sp_sim_task_set_critical(w, rt, true);
	sp_sim_task_run(w, rt, 1 * MS);
	sp_sim_task_timer(w, rt, "unique", 10 * MS, 0, true, 0, true);
	r = run(w, SP_SIM_POL_NONE, 1, 1000 * MS, NULL);
	assert_int_equal(r->threads[1].cpu_ns, 100 * MS);   /* every frame's work done */
	assert_int_equal(r->threads[1].wait_ns, 0);         /* never waited for the CPU */
	assert_int_equal(r->janky, 0);
	assert_int_equal(r->frames, 100);
	assert_int_equal(r->threads[0].cpu_ns, 900 * MS);
	done(r);
	sp_sim_workload_destroy(w);
}

/* ---- a preemption point (what a trace replay puts where the recorded
 * thread was preempted) ends a fair slice there, and nothing else ---- */
static void done_at(void *ctx, const struct sp_sim_trace *e)
{
	uint64_t *at = ctx;

	if (e->type == SP_SIM_TR_DONE && e->thread == 0)
		*at = e->t;
}

static uint64_t preempt_done(int sched, bool point)
{
	struct sp_sim_workload *w = wl("preempt");
	struct sp_sim_result r;
	struct sp_sim_opts o;
	uint64_t at = 0;
	int a = sp_sim_task_add(w, "a", sched, sched == SP_SIM_OTHER ? 0 : 1, 1);
	int b = sp_sim_task_add(w, "b", SP_SIM_OTHER, 0, 1);

	sp_sim_task_set_loop(w, a, 1);
	sp_sim_task_run(w, a, MS / 2);
	if (point)
		assert_true(sp_sim_task_preempt(w, a) >= 0);
	sp_sim_task_run(w, a, MS / 2);
	sp_sim_task_run(w, b, 100 * MS);
	o = traced_opts(SP_SIM_POL_NONE, 50 * MS, done_at, &at);
	o.cpus = 1;
	assert_int_equal(sp_sim_run(w, &o, &r), 0);
	sp_sim_result_destroy(&r);
	sp_sim_workload_destroy(w);
	return at;
}

static void test_preempt_point(void **state)
{
	(void)state;
	/* a (picked first: the lower index) runs its 1 ms inside its first
	 * slice (half of 3 ms, a new task's); with the point, b gets the CPU
	 * after a's first 0.5 ms, for a slice. */
	assert_int_equal(preempt_done(SP_SIM_OTHER, false), 1 * MS);
	assert_true(preempt_done(SP_SIM_OTHER, true) > 2 * MS);
	/* In the RT class the point is not a preemption. */
	assert_int_equal(preempt_done(SP_SIM_FIFO, true), 1 * MS);
	{
		/* A yield is a preemption point that renews the deadline
		 * further: the program goes on after it. */
		struct sp_sim_workload *w = wl("yield");
		struct sp_sim_result *r;
		int t = sp_sim_task_add(w, "a", SP_SIM_OTHER, 0, 1);
		int b = sp_sim_task_add(w, "b", SP_SIM_OTHER, 0, 1);

		sp_sim_task_set_loop(w, t, 1);
		sp_sim_task_run(w, t, MS / 2);
		sp_sim_task_yield(w, t);
		sp_sim_task_run(w, t, MS / 2);
		sp_sim_task_set_loop(w, b, 1);
		sp_sim_task_run(w, b, 5 * MS);
		r = run(w, SP_SIM_POL_NONE, 1, 100 * MS, NULL);
		assert_int_equal(r->threads[0].cpu_ns, 1 * MS);
		assert_int_equal(r->busy_ns, 6 * MS);
		done(r);
		sp_sim_workload_destroy(w);
	}
	{
		struct sp_sim_workload *w;
		char err[256] = "";

		assert_int_equal(sp_sim_workload_parse("{ \"tasks\": { \"a\": { \"run\": 1, "
						       "\"sp_preempt\": 1 } } }", "bad", &w, err,
						       sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "sp_preempt"));
	}
}

/* ---- locks ---- */

/* Many threads on one mutex and one writer-preferring rwlock, two CPUs:
 * never two owners, never a reader with a writer, never a new reader
 * while a writer waits, and nobody left waiting on a free lock. */
static void test_mutual_exclusion_and_writer_preference(void **state)
{
	static const int kinds[] = { SP_SIM_UMUTEX, SP_SIM_KMUTEX, SP_SIM_URWLOCK_W, SP_SIM_RWSEM };
	(void)state;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct sp_sim_workload *w = wl("excl");
		struct checker *c = calloc(1, sizeof(*c));
		struct sp_sim_result *r;
		bool rw = kinds[k] == SP_SIM_URWLOCK_W || kinds[k] == SP_SIM_RWSEM;
		int l = sp_sim_lock_add(w, "l", (enum sp_sim_lock_kind)kinds[k]);
		int rd = sp_sim_task_add(w, "reader", SP_SIM_OTHER, 5, 6);
		int wr = sp_sim_task_add(w, "writer", SP_SIM_OTHER, 0, 2);
		int hog = sp_sim_task_add(w, "hog", SP_SIM_OTHER, 0, 2);

		assert_non_null(c);
		sp_sim_task_lock(w, rd, l, rw ? SP_SIM_SHARED : SP_SIM_EXCL);
		sp_sim_task_run(w, rd, 300 * US);
		sp_sim_task_unlock(w, rd, l);
		sp_sim_task_sleep(w, rd, 200 * US);
		sp_sim_task_lock(w, wr, l, SP_SIM_EXCL);
		sp_sim_task_run(w, wr, 100 * US);
		sp_sim_task_unlock(w, wr, l);
		sp_sim_task_sleep(w, wr, 1 * MS);
		sp_sim_task_run(w, hog, 5 * MS);
		r = run(w, SP_SIM_POL_NONE, 2, 2000 * MS, c);
		assert_int_equal(c->violations, 0);
		if (rw)
			assert_int_equal(c->reader_while_writer_waits, 0);
		/* progress: writers got the lock many times */
		assert_true(r->threads[6].cpu_ns > 20 * MS);
		assert_true(r->threads[7].cpu_ns > 20 * MS);
		/* no lost wakeup: a thread still waiting at the end waits for a
		 * lock that is held, or behind someone who was just handed it */
		for (int t = 0; t < 10; t++)
			if (c->waiting[t] >= 0)
				assert_true(c->excl[l] >= 0 || c->readers[l] > 0);
		done(r);
		free(c);
		sp_sim_workload_destroy(w);
	}
}

/* A reader-preferring rwlock lets new readers in while a writer waits. */
static void test_reader_preference(void **state)
{
	struct sp_sim_workload *w = wl("rdpref");
	struct checker *c = calloc(1, sizeof(*c));
	struct sp_sim_result *r;
	int l = sp_sim_lock_add(w, "l", SP_SIM_URWLOCK);
	int rd = sp_sim_task_add(w, "reader", SP_SIM_OTHER, 0, 2);
	int rd2 = sp_sim_task_add(w, "reader2", SP_SIM_OTHER, 0, 2);
	int wr = sp_sim_task_add(w, "writer", SP_SIM_OTHER, 0, 1);

	(void)state;
	sp_sim_task_lock(w, rd, l, SP_SIM_SHARED);
	sp_sim_task_run(w, rd, 300 * US);
	sp_sim_task_unlock(w, rd, l);
	sp_sim_task_sleep(w, rd, 50 * US);
	sp_sim_task_lock(w, rd2, l, SP_SIM_SHARED);
	sp_sim_task_run(w, rd2, 170 * US);
	sp_sim_task_unlock(w, rd2, l);
	sp_sim_task_sleep(w, rd2, 30 * US);
	sp_sim_task_lock(w, wr, l, SP_SIM_EXCL);
	sp_sim_task_run(w, wr, 100 * US);
	sp_sim_task_unlock(w, wr, l);
	r = run(w, SP_SIM_POL_NONE, 4, 200 * MS, c);
	assert_int_equal(c->violations, 0);
	assert_true(c->reader_while_writer_waits > 0);
	done(r);
	free(c);
	sp_sim_workload_destroy(w);
}

/* A mutex released with a waiter always wakes it: with every thread
 * sleeping between sections, each gets the lock over and over. */
static void test_no_lost_wakeup(void **state)
{
	static const int kinds[] = { SP_SIM_UMUTEX, SP_SIM_KMUTEX, SP_SIM_URWLOCK, SP_SIM_RWSEM };
	(void)state;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct sp_sim_workload *w = wl("wake");
		struct checker *c = calloc(1, sizeof(*c));
		struct sp_sim_result *r;
		int l = sp_sim_lock_add(w, "l", (enum sp_sim_lock_kind)kinds[k]);
		int t = sp_sim_task_add(w, "t", SP_SIM_OTHER, 0, 8);

		sp_sim_task_lock(w, t, l, SP_SIM_EXCL);
		sp_sim_task_run(w, t, 100 * US);
		sp_sim_task_unlock(w, t, l);
		sp_sim_task_sleep(w, t, 10 * US);
		r = run(w, SP_SIM_POL_NONE, 2, 500 * MS, c);
		assert_int_equal(c->violations, 0);
		/* the lock is busy all the time (8 threads, 100 us each, 10 us
		 * pauses): 500 ms of sections minus a wake cost per handover */
		uint64_t busy = 0;

		for (int i = 0; i < 8; i++) {
			busy += r->threads[i].cpu_ns;
			assert_true(r->threads[i].cpu_ns > 20 * MS);
		}
		assert_true(busy > 450 * MS);
		done(r);
		free(c);
		sp_sim_workload_destroy(w);
	}
}

/* ---- policies ---- */

/* A holder at nice 19 behind nice-0 hogs; the critical thread waits. */
static struct sp_sim_workload *inversion(const char *name, enum sp_sim_lock_kind kind,
					 enum sp_sim_sched crit_sched, int crit_prio, int holders)
{
	struct sp_sim_workload *w = wl(name);
	int l = sp_sim_lock_add(w, "a", kind);
	int ui = sp_sim_task_add(w, "ui", crit_sched, crit_prio, 1);
	int bg = sp_sim_task_add(w, "bg", SP_SIM_OTHER, 19, (uint32_t)holders);
	int hog = sp_sim_task_add(w, "hog", SP_SIM_OTHER, 0, 4);
	enum sp_sim_hold h = kind == SP_SIM_UMUTEX || kind == SP_SIM_KMUTEX ? SP_SIM_EXCL
									    : SP_SIM_SHARED;

	sp_sim_task_set_critical(w, ui, true);
	for (int i = 0; i < 4; i++) {
		sp_sim_task_run(w, ui, 250 * US);
		sp_sim_task_lock(w, ui, l, SP_SIM_EXCL);
		sp_sim_task_run(w, ui, 50 * US);
		sp_sim_task_unlock(w, ui, l);
	}
	sp_sim_task_timer(w, ui, "unique", 8333 * US, 0, false, 0, true);
	sp_sim_task_lock(w, bg, l, h);
	sp_sim_task_run(w, bg, 500 * US);
	sp_sim_task_unlock(w, bg, l);
	sp_sim_task_timer(w, bg, "unique", 4 * MS, 2 * MS, true, 20, true);
	sp_sim_task_run(w, hog, 10 * MS);
	sp_sim_workload_set_cpus(w, 2);
	return w;
}

static void test_pi_fair_waiter_gives_nothing(void **state)
{
	struct sp_sim_workload *w = inversion("pi-fair", SP_SIM_UMUTEX, SP_SIM_OTHER, -10, 2);
	struct checker *c = calloc(1, sizeof(*c));
	struct sp_sim_result *r;

	(void)state;
	r = run(w, SP_SIM_POL_PI, 0, 1000 * MS, c);
	assert_true(r->blockings > 10);
	assert_int_equal(r->pi_boosts, 0);
	for (int t = 0; t < 7; t++)
		assert_int_equal(c->max_prio[t], 0);
	done(r);
	free(c);
	sp_sim_workload_destroy(w);
}

static void test_pi_rt_waiter_boosts(void **state)
{
	struct sp_sim_workload *w = inversion("pi-rt", SP_SIM_UMUTEX, SP_SIM_FIFO, 10, 2);
	struct checker *c = calloc(1, sizeof(*c));
	struct sp_sim_result *r, *none;

	(void)state;
	r = run(w, SP_SIM_POL_PI, 0, 1000 * MS, c);
	assert_true(r->pi_boosts > 0);
	/* the holders (threads 1, 2) inherited the waiter's priority 10, and
	 * nobody kept it */
	assert_int_equal(c->max_prio[1] > c->max_prio[2] ? c->max_prio[1] : c->max_prio[2], 10);
	assert_int_equal(c->prio[1], 0);
	assert_int_equal(c->prio[2], 0);
	none = run(w, SP_SIM_POL_NONE, 0, 1000 * MS, NULL);
	assert_true(r->p999 < none->p999);
	done(none);
	done(r);
	free(c);
	sp_sim_workload_destroy(w);
}

static void test_rtui_puts_critical_in_fifo(void **state)
{
	struct sp_sim_workload *w = inversion("rtui", SP_SIM_UMUTEX, SP_SIM_OTHER, -10, 2);
	struct sp_sim_result *r;

	(void)state;
	r = run(w, SP_SIM_POL_RTUI, 0, 1000 * MS, NULL);
	/* the critical thread never waits for a CPU: it is RT */
	assert_int_equal(r->threads[0].wait_ns, 0);
	done(r);
	sp_sim_workload_destroy(w);
}

/* proxy-exec runs the owner for a donor only from the donor's own run
 * queue, only for kernel mutexes. */
static void test_proxy_same_rq_kmutex_only(void **state)
{
	struct sp_sim_workload *wk = inversion("proxy-k", SP_SIM_KMUTEX, SP_SIM_OTHER, -10, 2);
	struct sp_sim_workload *wu = inversion("proxy-u", SP_SIM_UMUTEX, SP_SIM_OTHER, -10, 2);
	struct checker *c = calloc(1, sizeof(*c));
	struct sp_sim_result *r;

	(void)state;
	r = run(wk, SP_SIM_POL_PROXY, 0, 1000 * MS, c);
	assert_true(r->proxy_runs > 0);
	assert_int_equal(r->proxy_migrations, 0);
	assert_int_equal(c->proxy_cross_cpu, 0);
	done(r);
	r = run(wk, SP_SIM_POL_PROXY_MIGRATE, 0, 1000 * MS, c);
	assert_true(r->proxy_runs > 0);
	assert_true(r->proxy_migrations > 0);
	done(r);
	/* a futex: no proxy, byte for byte the `none` run */
	r = run(wu, SP_SIM_POL_PROXY, 0, 1000 * MS, c);
	assert_int_equal(r->proxy_runs, 0);
	assert_int_equal(c->proxy_runs, 0);
	{
		struct sp_sim_result *n = run(wu, SP_SIM_POL_NONE, 0, 1000 * MS, NULL);

		assert_int_equal(n->blockings, r->blockings);
		assert_int_equal(n->p999, r->p999);
		assert_int_equal(n->bg_work_ns, r->bg_work_ns);
		done(n);
	}
	done(r);
	free(c);
	sp_sim_workload_destroy(wk);
	sp_sim_workload_destroy(wu);
}

/* One proxy step on one CPU, checked on the trace: the owner runs on the
 * CPU where the donor was picked. */
static void test_proxy_runs_owner_on_donor_cpu(void **state)
{
	struct sp_sim_workload *w = wl("proxy-1cpu");
	int l = sp_sim_lock_add(w, "k", SP_SIM_KMUTEX);
	int ow = sp_sim_task_add(w, "owner", SP_SIM_OTHER, 19, 1);
	int ui = sp_sim_task_add(w, "ui", SP_SIM_OTHER, -10, 1);
	int hog = sp_sim_task_add(w, "hog", SP_SIM_OTHER, 0, 1);
	struct checker *c = calloc(1, sizeof(*c));
	struct sp_sim_result *r, *n;

	(void)state;
	sp_sim_task_lock(w, ow, l, SP_SIM_EXCL);
	sp_sim_task_run(w, ow, 5 * MS);
	sp_sim_task_unlock(w, ow, l);
	sp_sim_task_sleep(w, ow, 20 * MS);
	sp_sim_task_set_critical(w, ui, true);
	sp_sim_task_set_delay(w, ui, 1 * MS);
	sp_sim_task_lock(w, ui, l, SP_SIM_EXCL);
	sp_sim_task_run(w, ui, 100 * US);
	sp_sim_task_unlock(w, ui, l);
	sp_sim_task_sleep(w, ui, 10 * MS);
	sp_sim_task_run(w, hog, 100 * MS);
	r = run(w, SP_SIM_POL_PROXY, 1, 500 * MS, c);
	n = run(w, SP_SIM_POL_NONE, 1, 500 * MS, NULL);
	assert_true(r->proxy_runs > 0);
	assert_int_equal(c->proxy_cross_cpu, 0);
	/* the donor's CPU time made the owner finish sooner */
	assert_true(r->max < n->max);
	done(r);
	done(n);
	free(c);
	sp_sim_workload_destroy(w);
}

static void test_ux_writer_boosts_owner_not_readers(void **state)
{
	struct sp_sim_workload *wm = inversion("ux-m", SP_SIM_UMUTEX, SP_SIM_OTHER, -10, 2);
	struct sp_sim_workload *wr = inversion("ux-r", SP_SIM_URWLOCK_W, SP_SIM_OTHER, -10, 4);
	struct checker *c = calloc(1, sizeof(*c));
	struct sp_sim_result *r;

	(void)state;
	r = run(wm, SP_SIM_POL_UX_WRITER, 0, 1000 * MS, c);
	assert_true(r->grants > 0);
	assert_int_equal(r->grants, r->restores + (c->prio[1] > 0) + (c->prio[2] > 0));
	done(r);
	r = run(wr, SP_SIM_POL_UX_WRITER, 0, 1000 * MS, c);
	/* readers own nothing exclusively: never boosted */
	for (int t = 1; t <= 4; t++)
		assert_int_equal(c->max_prio[t], 0);
	done(r);
	free(c);
	sp_sim_workload_destroy(wm);
	sp_sim_workload_destroy(wr);
}

/* superpass: the real core; every fast track is restored, nobody is left
 * boosted, and it beats `none` on the inversion. */
static void test_superpass_restores_everything(void **state)
{
	static const int kinds[] = { SP_SIM_UMUTEX, SP_SIM_URWLOCK_W, SP_SIM_RWSEM, SP_SIM_KMUTEX };
	(void)state;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct sp_sim_workload *w = inversion("sp", (enum sp_sim_lock_kind)kinds[k],
						      SP_SIM_OTHER, -10, 4);
		struct checker *c = calloc(1, sizeof(*c));
		struct sp_sim_result *r = run(w, SP_SIM_POL_SUPERPASS, 0, 1000 * MS, c);
		struct sp_sim_result *n = run(w, SP_SIM_POL_NONE, 0, 1000 * MS, NULL);

		assert_true(r->grants > 0);
		assert_true(r->fast_tracks > 0);
		assert_int_equal(r->fast_tracks, r->restores);
		assert_int_equal(r->boosted_at_end, 0);
		assert_int_equal(r->core.fast_tracks, r->core.restores + r->core.boosted_now);
		assert_int_equal(r->core.bad_events, 0);
		assert_int_equal(r->core.stale_events, 0);
		assert_true(r->p999 < n->p999);
		assert_int_equal(c->violations, 0);
		done(r);
		done(n);
		free(c);
		sp_sim_workload_destroy(w);
	}
}

/* ---- glibc's wake of one waiter, which must still take the lock ---- */
struct free_gap {
	int lock_owner, boosted, ui_blocked;
	uint64_t since, longest;
};

static void gap_check(struct free_gap *g, uint64_t t)
{
	bool gap = g->ui_blocked && g->lock_owner < 0 && !g->boosted;

	if (gap && !g->since)
		g->since = t ? t : 1;
	else if (!gap && g->since) {
		if (t - g->since > g->longest)
			g->longest = t - g->since;
		g->since = 0;
	}
}

static void free_trace(void *ctx, const struct sp_sim_trace *e)
{
	struct free_gap *g = ctx;

	if (e->type == SP_SIM_TR_BLOCK && e->thread == 0)
		g->ui_blocked = 1;
	else if (e->type == SP_SIM_TR_ACQUIRE) {
		g->lock_owner = e->thread;
		if (e->thread == 0)
			g->ui_blocked = 0;
	} else if (e->type == SP_SIM_TR_RELEASE)
		g->lock_owner = -1;
	else if (e->type == SP_SIM_TR_PRIO && e->thread != 0)
		g->boosted += e->arg > 0 ? 1 : -1;
	else
		return;
	gap_check(g, e->t);
}

/* Two CPUs. B0 (nice 19) holds a glibc mutex for 2 ms of CPU; B1 (nice
 * 19) asks for it, then four nice-0 hogs start and the critical U asks.
 * Under superpass B0 is fast-tracked; its unlock frees the word and wakes
 * one waiter, B1 (the first to wait), not U: the lock is free, nobody
 * holds it, nothing is boosted, and U waits while B1 waits for a CPU
 * behind the hogs before it can take the lock. A kernel mutex hands the
 * lock to B1 at the unlock: B1 is the owner at once and is fast-tracked,
 * and the gap does not exist. */
static void test_wake_one_leaves_lock_free(void **state)
{
	static const int kinds[] = { SP_SIM_UMUTEX, SP_SIM_KMUTEX };
	uint64_t longest[2], wait[2];

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct sp_sim_workload *w = wl("wake-one");
		int l = sp_sim_lock_add(w, "m", (enum sp_sim_lock_kind)kinds[k]);
		int u = sp_sim_task_add(w, "u", SP_SIM_OTHER, -10, 1);
		int b0 = sp_sim_task_add(w, "b0", SP_SIM_OTHER, 19, 1);
		int b1 = sp_sim_task_add(w, "b1", SP_SIM_OTHER, 19, 1);
		int hog = sp_sim_task_add(w, "hog", SP_SIM_OTHER, 0, 4);
		struct free_gap g = { .lock_owner = -1 };
		struct sp_sim_opts o;
		struct sp_sim_result r;

		sp_sim_task_set_critical(w, u, true);
		sp_sim_task_set_loop(w, u, 1);
		sp_sim_task_set_delay(w, u, 1 * MS);
		sp_sim_task_lock(w, u, l, SP_SIM_EXCL);
		sp_sim_task_unlock(w, u, l);
		sp_sim_task_set_loop(w, b0, 1);
		sp_sim_task_lock(w, b0, l, SP_SIM_EXCL);
		sp_sim_task_run(w, b0, 2 * MS);
		sp_sim_task_unlock(w, b0, l);
		sp_sim_task_set_loop(w, b1, 1);
		sp_sim_task_set_delay(w, b1, 100 * US);
		sp_sim_task_lock(w, b1, l, SP_SIM_EXCL);
		sp_sim_task_run(w, b1, 100 * US);
		sp_sim_task_unlock(w, b1, l);
		sp_sim_task_set_delay(w, hog, 900 * US);
		sp_sim_task_run(w, hog, 10 * MS);
		sp_sim_workload_set_cpus(w, 2);
		o = traced_opts(SP_SIM_POL_SUPERPASS, 2000 * MS, free_trace, &g);
		o.boost_latency_ns = 0;
		assert_int_equal(sp_sim_run(w, &o, &r), 0);
		assert_int_equal(r.blockings, 1);
		longest[k] = g.longest;
		wait[k] = r.max;
		sp_sim_result_destroy(&r);
		sp_sim_workload_destroy(w);
	}
	/* glibc: B1, woken, waits for a CPU with the lock free and unboosted */
	assert_true(longest[0] > MS);
	assert_true(wait[0] > longest[0]);
	/* handoff: B1 owns the lock as it is woken, and is fast-tracked */
	assert_int_equal(longest[1], 0);
	assert_true(wait[1] + MS < wait[0]);
}

/* ---- the linux model sees a used slice when it accounts the task ---- */
struct switches {
	uint64_t last, n, off_tick, runs_ns;
	int prev;
};

static void sw_trace(void *ctx, const struct sp_sim_trace *e)
{
	struct switches *w = ctx;

	if (e->type != SP_SIM_TR_SWITCH || e->thread == w->prev)
		return;
	if (w->prev == 0 || w->prev == 1) { /* a hog's turn ends */
		w->n++;
		w->runs_ns += e->t - w->last;
		w->off_tick += e->t % (4 * MS) != 0;
	}
	w->last = e->t;
	w->prev = e->thread;
}

/* Two nice-0 hogs on one CPU, 1.5 ms slices. Linux without HRTICK (the
 * replay's "linux" model) sees a used slice at the next 4 ms tick, or
 * sooner when something else makes it account the running task (a
 * wakeup on that CPU); the classic model ends it on time. */
static void test_linux_slice_at_tick(void **state)
{
	static const char *const fmt =
		"{ \"global\": { \"duration\": 1, \"sp_cpus\": 1, \"sp_base_slice_us\": 1500, "
		"\"sp_sched_model\": \"%s\" }, \"tasks\": { "
		"\"hog\": { \"instance\": 2, \"run\": 10000 }%s } }";
	static const char *const sleeper = ", \"nap\": { \"run\": 10, \"sleep\": 990 }";

	(void)state;
	for (int k = 0; k < 3; k++) {
		struct sp_sim_workload *w =
			parse("tick", fmt, k ? "linux" : "classic", k == 2 ? sleeper : "");
		struct switches sw = { .prev = -1 };
		struct sp_sim_result r;

		run_traced(w, SP_SIM_POL_NONE, 400 * MS, sw_trace, &sw, &r);
		assert_true(sw.n > 20);
		if (k == 0) { /* on time: 1.5 ms turns */
			assert_in_range(sw.runs_ns / sw.n, 1400 * US, 1600 * US);
		} else if (k == 1) { /* every turn ends at a tick: 4 ms turns */
			assert_int_equal(sw.off_tick, 0);
			assert_in_range(sw.runs_ns / sw.n, 3900 * US, 4100 * US);
		} else { /* the napper's wakeups end turns between ticks */
			assert_true(sw.off_tick > sw.n / 2);
			assert_true(sw.runs_ns / sw.n < 3 * MS);
		}
		sp_sim_result_destroy(&r);
		sp_sim_workload_destroy(w);
	}
}

/* A thread that enters the kernel (here: a 10 us sleep every 20 ms of
 * work) beside a hog on one CPU, in the linux model with the kernel's
 * base slice for 2 CPUs (0.70 ms * (1 + ilog2(2)) = 1.4 ms, no
 * sp_base_slice_us). Its turns end at its slice's end, 1.4 ms after it was
 * picked (or whole slices later, when EEVDF picks it again), at any phase
 * of the tick, as a bench holder's do in a trace of this kernel; the hog's
 * end at a tick (test_linux_slice_at_tick), but where w's wake cut one
 * short. */
struct turns {
	uint64_t last, n[2], off_tick[2];
	uint64_t len[64];
	int nlen, prev;
};

static void turns_trace(void *ctx, const struct sp_sim_trace *e)
{
	struct turns *x = ctx;

	if (e->type != SP_SIM_TR_SWITCH || e->cpu != 0 || e->thread == x->prev)
		return;
	if (x->prev == 0 || x->prev == 1) {
		x->n[x->prev]++;
		x->off_tick[x->prev] += e->t % (4 * MS) != 0;
		if (x->prev == 0 && x->nlen < 64)
			x->len[x->nlen++] = e->t - x->last;
	}
	x->last = e->t;
	x->prev = e->thread;
}

static void test_linux_slice_of_a_sleeper(void **state)
{
	static const char *const text =
		"{ \"global\": { \"duration\": 1, \"sp_cpus\": 2, \"sp_sched_model\": \"linux\" }, "
		"\"tasks\": { "
		"\"w\": { \"cpus\": [0], \"run\": 20000, \"sleep\": 10 }, "
		"\"hog\": { \"cpus\": [0], \"run\": 100000 } } }";
	struct sp_sim_workload *w = parse("sleeper", "%s", text);
	struct turns x = { .prev = -1 };
	struct sp_sim_result r;
	int whole = 0;

	(void)state;
	run_traced(w, SP_SIM_POL_NONE, 400 * MS, turns_trace, &x, &r);
	assert_true(x.nlen >= 40);
	/* a turn is whole slices (EEVDF may pick it again), each seen as it ends */
	for (int i = 0; i < x.nlen; i++)
		whole += x.len[i] % (1400 * US) == 0;
	assert_true(whole >= x.nlen * 8 / 10);
	assert_true(x.off_tick[0] > x.n[0] / 2);
	assert_true(x.off_tick[1] <= x.n[1] / 5);
	sp_sim_result_destroy(&r);
	sp_sim_workload_destroy(w);
}

/* ---- linux model: where a wakeup puts a fair thread ----
 *
 * Thread 0 ("t") sleeps on CPU 0 waiting for a mutex that "w", pinned to
 * CPU 1, holds; w unlocks and runs on. Where t's wake queues it (the
 * WAKE event's rq) is select_task_rq_fair()'s answer. */
struct wake_rq {
	int n, rq[8];
};

static void wake_rq_trace(void *ctx, const struct sp_sim_trace *e)
{
	struct wake_rq *x = ctx;

	if (e->type == SP_SIM_TR_WAKE && e->thread == 0 && x->n < 8)
		x->rq[x->n++] = e->rq;
}

/* The CPU thread 0's @k-th wake queued it on (its first is its start). */
static int wake_rq_of(const char *text, int k)
{
	struct sp_sim_workload *w = parse("wake", "%s", text);
	struct wake_rq x = { 0 };
	struct sp_sim_result r;

	run_traced(w, SP_SIM_POL_NONE, 100 * MS, wake_rq_trace, &x, &r);
	sp_sim_result_destroy(&r);
	sp_sim_workload_destroy(w);
	if (x.n <= k)
		fail_msg("thread 0 woke %d times, not %d", x.n, k + 1);
	return x.rq[k];
}

/* wake_affine(): the unlock comes from CPU 1. With three hogs on CPU 0 and
 * only w on CPU 1, t goes to the waker's CPU (its load with t's, times
 * 100, is below CPU 0's times 108); with one hog on CPU 0 and two more
 * beside w, it stays on CPU 0. The classic model never moves it. */
static void test_linux_wake_affine(void **state)
{
	static const char *const fmt =
		"{ \"global\": { \"duration\": 1, \"sp_cpus\": 2, \"sp_sched_model\": \"%s\" }, "
		"\"tasks\": { "
		"\"t\": { \"loop\": 1, \"run\": 100, \"sleep\": 1000, \"lock\": \"m\", \"run1\": 100, "
		"\"unlock\": \"m\", \"sleep1\": 1000000 }, "
		"\"w\": { \"cpus\": [1], \"delay\": 1000, \"loop\": 1, \"lock\": \"m\", \"run\": 10000, "
		"\"unlock\": \"m\", \"run1\": 5000, \"sleep\": 1000000 }, "
		"\"h\": { \"instance\": %d, \"cpus\": [0], \"delay\": 1500, \"run\": 100000 }%s } }";
	static const char *const two_beside_w =
		", \"g\": { \"instance\": 2, \"cpus\": [1], \"delay\": 1500, \"run\": 100000 }";
	char text[1024];

	(void)state;
	/* its first wake is its start, the second its timer on CPU 0 (no
	 * other CPU asks: the wake comes from where it slept), the third
	 * w's unlock */
	snprintf(text, sizeof(text), fmt, "linux", 3, "");
	assert_int_equal(wake_rq_of(text, 1), 0);
	assert_int_equal(wake_rq_of(text, 2), 1);
	snprintf(text, sizeof(text), fmt, "linux", 1, two_beside_w);
	assert_int_equal(wake_rq_of(text, 2), 0);
	snprintf(text, sizeof(text), fmt, "classic", 3, "");
	assert_int_equal(wake_rq_of(text, 2), 0);
}

/* wake_wide(): w first unlocks three other mutexes with a waiter each
 * (four wakees in a row: four flips), and t has woken the waiters of its
 * own two mutexes (two flips): a waker of many and a wakee of several, so
 * t is woken where it was, though w's CPU is the lighter. Without w's
 * other wakes (one flip) it goes to w's CPU as above. */
static void test_linux_wake_wide(void **state)
{
	static const char *const fmt =
		"{ \"global\": { \"duration\": 1, \"sp_cpus\": 2, \"sp_sched_model\": \"linux\" }, "
		"\"tasks\": { "
		"\"t\": { \"loop\": 1, \"lock\": \"m1\", \"lock1\": \"m2\", \"sleep\": 1500, "
		"\"unlock\": \"m1\", \"unlock1\": \"m2\", \"lock2\": \"m\", \"run\": 100, "
		"\"unlock2\": \"m\", \"sleep1\": 1000000 }, "
		"\"x\": { \"cpus\": [0], \"delay\": 100, \"loop\": 1, \"lock\": \"m1\", \"unlock\": \"m1\", "
		"\"sleep\": 1000000 }, "
		"\"y\": { \"cpus\": [0], \"delay\": 100, \"loop\": 1, \"lock\": \"m2\", \"unlock\": \"m2\", "
		"\"sleep\": 1000000 }, "
		"\"w\": { \"cpus\": [1], \"delay\": 1000, \"loop\": 1, \"lock\": \"m\", %s \"run\": 10000, "
		"%s \"unlock3\": \"m\", \"run1\": 5000, \"sleep\": 1000000 }, "
		"\"u1\": { \"cpus\": [1], \"delay\": 2000, \"loop\": 1, \"lock\": \"n1\", \"unlock\": \"n1\", "
		"\"sleep\": 1000000 }, "
		"\"u2\": { \"cpus\": [1], \"delay\": 2000, \"loop\": 1, \"lock\": \"n2\", \"unlock\": \"n2\", "
		"\"sleep\": 1000000 }, "
		"\"u3\": { \"cpus\": [1], \"delay\": 2000, \"loop\": 1, \"lock\": \"n3\", \"unlock\": \"n3\", "
		"\"sleep\": 1000000 }, "
		"\"h\": { \"instance\": 3, \"cpus\": [0], \"delay\": 2500, \"run\": 100000 } } }";
	char text[2048];

	(void)state;
	snprintf(text, sizeof(text), fmt, "\"lock1\": \"n1\", \"lock2\": \"n2\", \"lock3\": \"n3\",",
		 "\"unlock\": \"n1\", \"unlock1\": \"n2\", \"unlock2\": \"n3\",");
	assert_int_equal(wake_rq_of(text, 1), 0);
	assert_int_equal(wake_rq_of(text, 2), 0);
	snprintf(text, sizeof(text), fmt, "", "");
	assert_int_equal(wake_rq_of(text, 2), 1);
}

/* DELAY_DEQUEUE: t runs 2 ms at once (in its first slice, half a 5 ms one) beside three hogs
 * on CPU 0 and waits for w's mutex in debt. At nice 19 its deadline lies
 * 68 base slices past its vruntime, so 18 ms later it is still queued on
 * CPU 0 and w's unlock requeues it there (ttwu_runnable: no CPU is
 * chosen); at nice 0 it left its queue once its debt was paid, and
 * wake_affine() sends it to w's lighter CPU (w's load and t's, 2048,
 * against CPU 0's three hogs and t's decayed blocked load less t's, about
 * 2700, times 108 %). */
static void test_linux_delayed_sleeper_wakes_in_place(void **state)
{
	static const char *const fmt =
		"{ \"global\": { \"duration\": 1, \"sp_cpus\": 2, \"sp_sched_model\": \"linux\", "
		"\"sp_base_slice_us\": 5000 }, "
		"\"tasks\": { "
		"\"t\": { \"priority\": %d, \"loop\": 1, \"run\": 2000, \"lock\": \"m\", \"run1\": 100, "
		"\"unlock\": \"m\", \"sleep1\": 1000000 }, "
		"\"w\": { \"cpus\": [1], \"loop\": 1, \"lock\": \"m\", \"run\": 20000, \"unlock\": \"m\", "
		"\"run1\": 5000, \"sleep\": 1000000 }, "
		"\"h\": { \"instance\": 3, \"cpus\": [0], \"run\": 100000 } } }";
	char text[1024];

	(void)state;
	snprintf(text, sizeof(text), fmt, 19);
	assert_int_equal(wake_rq_of(text, 1), 0);
	snprintf(text, sizeof(text), fmt, 0);
	assert_int_equal(wake_rq_of(text, 1), 1);
}

/* wake_affine() reads the wakee's load as of its sleep (task_h_load():
 * select_task_rq_fair() does not update it). t, nice -10, starts with a
 * full load, its weight (9548), runs 100 us on CPU 0 and waits 90 ms for
 * w's mutex beside two hogs there, its load decaying to 14 % of that.
 * w's unlock on CPU 1, where only w runs, leaves t on CPU 0: CPU 1's load
 * with t's 9548 is far above CPU 0's less it. Read decayed, t would go to
 * the lighter CPU 1. */
static void test_linux_wake_affine_reads_load_at_sleep(void **state)
{
	static const char *const text =
		"{ \"global\": { \"duration\": 1, \"sp_cpus\": 2, \"sp_sched_model\": \"linux\" }, "
		"\"tasks\": { "
		"\"t\": { \"priority\": -10, \"delay\": 100, \"loop\": 1, \"run\": 100, "
		"\"lock\": \"m\", \"run1\": 100, \"unlock\": \"m\", \"sleep1\": 1000000 }, "
		"\"w\": { \"cpus\": [1], \"loop\": 1, \"lock\": \"m\", \"run\": 90000, "
		"\"unlock\": \"m\", \"run1\": 5000, \"sleep\": 1000000 }, "
		"\"h\": { \"instance\": 2, \"cpus\": [0], \"delay\": 1000, \"run\": 1000000 } } }";

	(void)state;
	assert_int_equal(wake_rq_of(text, 0), 0);
	assert_int_equal(wake_rq_of(text, 1), 0);
}

/* ---- superpass: the runtime's boost latency ---- */
struct boost_gap {
	uint64_t block_t, min_gap;
	bool pending;
	int raises;
};

/* From each blocking of the critical thread (thread 0) to the first
 * fast track the simulator applies for it. */
static void gap_trace(void *ctx, const struct sp_sim_trace *e)
{
	struct boost_gap *g = ctx;

	if (e->type == SP_SIM_TR_BLOCK && e->thread == 0) {
		g->block_t = e->t;
		g->pending = true;
	} else if (e->type == SP_SIM_TR_ACQUIRE && e->thread == 0) {
		g->pending = false;
	} else if (e->type == SP_SIM_TR_PRIO && e->thread != 0 && e->arg > 0) {
		g->raises++;
		if (g->pending && e->t - g->block_t < g->min_gap)
			g->min_gap = e->t - g->block_t;
		g->pending = false;
	}
}

/* A fast track acts boost_latency_ns after the core asks for it: never
 * sooner after a critical wait began, and not at all when the wait ended
 * first (the core withdrew it); with no latency it acts at the wait. The
 * waits that needed a boost grow by about the latency. */
static void test_superpass_boost_latency(void **state)
{
	struct sp_sim_workload *w = inversion("lat", SP_SIM_UMUTEX, SP_SIM_OTHER, -10, 2);
	static const uint64_t lat[] = { 0, 2 * MS };
	struct sp_sim_result r[2];

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct boost_gap g = { .min_gap = UINT64_MAX };
		struct sp_sim_opts o;

		o = traced_opts(SP_SIM_POL_SUPERPASS, 1000 * MS, gap_trace, &g);
		assert_int_equal(o.boost_latency_ns, SP_SIM_DEFAULT_BOOST_LATENCY_NS);
		o.boost_latency_ns = lat[i];
		assert_int_equal(sp_sim_run(w, &o, &r[i]), 0);
		assert_true(r[i].blockings > 10);
		assert_true(g.raises > 0);
		if (lat[i])
			assert_true(g.min_gap >= lat[i]);
		else
			assert_int_equal(g.min_gap, 0);
		/* every boost the core asked for acts at once without latency;
		 * with it, those withdrawn within 2 ms never do */
		if (lat[i])
			assert_true((uint64_t)g.raises < r[i].fast_tracks);
		else
			assert_int_equal((uint64_t)g.raises, r[i].fast_tracks);
		assert_int_equal(r[i].boosted_at_end, 0);
	}
	/* (most waits end before a boost is needed: the P50 moves less) */
	assert_true(r[1].p999 > r[0].p999 + MS);
	assert_true(r[1].blocked_ns > 2 * r[0].blocked_ns);
	for (int i = 0; i < 2; i++)
		sp_sim_result_destroy(&r[i]);
	sp_sim_workload_destroy(w);
}

/* ---- determinism ---- */
static char *report(const struct sp_sim_workload *w, uint64_t seed, size_t *len)
{
	struct sp_sim_result rs[3];
	static const enum sp_sim_policy pols[3] = { SP_SIM_POL_NONE, SP_SIM_POL_PI,
						    SP_SIM_POL_SUPERPASS };
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	for (int i = 0; i < 3; i++) {
		struct sp_sim_opts o = traced_opts(pols[i], 500 * MS, NULL, NULL);

		o.seed = seed;
		assert_int_equal(sp_sim_run(w, &o, &rs[i]), 0);
	}
	sp_sim_print_header(f, "det", 2, 500 * MS);
	for (int i = 0; i < 3; i++)
		sp_sim_print_row(f, &rs[i], &rs[0]);
	assert_int_equal(sp_sim_write_json(f, rs, 3, seed), 0);
	assert_int_equal(sp_sim_write_svg(f, rs, 3, "det"), 0);
	for (int i = 0; i < 3; i++) {
		fwrite(rs[i].threads, sizeof(*rs[i].threads), rs[i].nthreads, f);
		sp_sim_result_destroy(&rs[i]);
	}
	fclose(f);
	return buf;
}

static void test_deterministic(void **state)
{
	struct sp_sim_workload *w = inversion("det", SP_SIM_UMUTEX, SP_SIM_OTHER, -10, 2);
	size_t l1, l2, l3;
	char *a, *b, *c;

	(void)state;
	a = report(w, 7, &l1);
	b = report(w, 7, &l2);
	c = report(w, 8, &l3);
	assert_int_equal(l1, l2);
	assert_memory_equal(a, b, l1);
	/* the seed matters (the jittered timers) */
	assert_true(l1 != l3 || memcmp(a, c, l1) != 0);
	free(a);
	free(b);
	free(c);
	sp_sim_workload_destroy(w);
}

/* ---- the checks of a workload's locks (sp_sim_validate.c) ---- */

/* More nested locks than a thread holds: refused whole, with nothing left
 * allocated (the result is empty after a failure). */
static void test_nesting_limit(void **state)
{
	struct sp_sim_workload *w = wl("deep");
	struct sp_sim_result r;
	struct sp_sim_opts o;
	int t, l[SP_SIM_MAX_HELD + 1];

	(void)state;
	t = sp_sim_task_add(w, "deep", SP_SIM_OTHER, 0, 1);
	for (int i = 0; i <= (int)SP_SIM_MAX_HELD; i++) {
		char name[8];

		snprintf(name, sizeof(name), "m%d", i);
		l[i] = sp_sim_lock_add(w, name, SP_SIM_UMUTEX);
		assert_true(sp_sim_task_lock(w, t, l[i], SP_SIM_EXCL) >= 0);
	}
	sp_sim_task_run(w, t, 10 * US);
	for (int i = (int)SP_SIM_MAX_HELD; i >= 0; i--)
		sp_sim_task_unlock(w, t, l[i]);
	sp_sim_task_sleep(w, t, 100 * US);
	o = traced_opts(SP_SIM_POL_SUPERPASS, 10 * MS, NULL, NULL);
	assert_int_equal(sp_sim_run(w, &o, &r), -E2BIG);
	assert_null(r.threads);
	assert_int_equal(r.nthreads, 0);
	/* one fewer is within the limit */
	sp_sim_workload_destroy(w);
	w = wl("limit");
	t = sp_sim_task_add(w, "limit", SP_SIM_OTHER, 0, 1);
	for (int i = 0; i < (int)SP_SIM_MAX_HELD; i++) {
		char name[8];

		snprintf(name, sizeof(name), "m%d", i);
		l[i] = sp_sim_lock_add(w, name, SP_SIM_UMUTEX);
		sp_sim_task_lock(w, t, l[i], SP_SIM_EXCL);
	}
	sp_sim_task_run(w, t, 10 * US);
	for (int i = (int)SP_SIM_MAX_HELD - 1; i >= 0; i--)
		sp_sim_task_unlock(w, t, l[i]);
	sp_sim_task_sleep(w, t, 100 * US);
	assert_int_equal(sp_sim_run(w, &o, &r), 0);
	sp_sim_result_destroy(&r);
	sp_sim_workload_destroy(w);
}

/* @text refused with a message that has @want. */
static void refused(const char *text, const char *want)
{
	struct sp_sim_workload *w = NULL;
	char err[512] = "";

	assert_int_equal(sp_sim_workload_parse(text, "f.json", &w, err, sizeof(err)), -EINVAL);
	assert_null(w);
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
}

/* The warnings of @text: as many as @n, the first with @want. */
static void warned(const char *text, uint32_t n, const char *want)
{
	struct sp_sim_workload *w = parse("f.json", "%s", text);
	uint32_t i = 0;

	while (sp_sim_workload_warning(w, i))
		i++;
	if (i != n)
		fail_msg("%u warnings, not %u (first: %s)", i, n,
			 i ? sp_sim_workload_warning(w, 0) : "none");
	if (want && !strstr(sp_sim_workload_warning(w, 0), want))
		fail_msg("warning '%s' lacks '%s'", sp_sim_workload_warning(w, 0), want);
	sp_sim_workload_destroy(w);
}

static void test_lock_checks(void **state)
{
	char big[2048];
	size_t n;

	(void)state;
	/* errors: the file, the key, the lock, what was expected */
	refused("{ \"tasks\": { \"a\": { \"lock1\": \"m\", \"lock2\": \"m\", \"unlock1\": \"m\" } } }",
		"f.json: tasks.a.lock2: takes \"m\", which the task already holds (taken at "
		"tasks.a.lock1)");
	refused("{ \"tasks\": { \"a\": { \"phases\": { \"p\": { \"loop\": 2, \"lock\": \"m\", "
		"\"run\": 1 } } } } }", "tasks.a.phases.p.lock: takes \"m\", which the task already "
		"holds (taken at tasks.a.phases.p.lock, in the phase's previous loop)");
	refused("{ \"tasks\": { \"a\": { \"phases\": { \"p\": { \"lock\": \"m\", \"run\": 1 } } } } }",
		"(taken at tasks.a.phases.p.lock, in the task's previous loop)");
	refused("{ \"tasks\": { \"a\": { \"run\": 1, \"unlock\": \"m\" } } }",
		"f.json: tasks.a.unlock: unlocks \"m\", which the task does not hold there; "
		"expected a lock of \"m\" before it");
	refused("{ \"tasks\": { \"a\": { \"phases\": { \"p\": { \"lock\": \"m\", \"unlock\": \"m\", "
		"\"unlock2\": \"m\" } } } } }", "tasks.a.phases.p.unlock2: unlocks \"m\"");
	refused("{ \"global\": { \"sp_locks\": { \"r\": \"rwsem\" } }, \"tasks\": { \"a\": { "
		"\"sp_rdlock\": \"r\", \"sp_wrlock\": \"r\" } } }",
		"tasks.a.sp_wrlock: takes \"r\", which the task already holds");
	n = (size_t)snprintf(big, sizeof(big), "{ \"tasks\": { \"a\": {");
	for (int i = 1; i <= 17; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, " \"lock%d\": \"m%d\",", i, i);
	snprintf(big + n, sizeof(big) - n, " \"run\": 1 } } }");
	refused(big, "tasks.a.lock17: takes \"m17\" while holding 16 locks: the simulator holds at "
		"most 16 at once per thread (SP_SIM_MAX_HELD); expected at most 16 nested locks");

	/* warnings */
	warned("{ \"tasks\": { \"a\": { \"loop\": 1, \"phases\": { \"p\": { \"lock\": \"m\", "
	       "\"run\": 1 } } } } }", 1, "f.json: tasks.a: its program ends holding \"m\" "
	       "(taken at tasks.a.phases.p.lock)");
	warned("{ \"tasks\": { \"x\": { \"lock\": \"a\", \"lock2\": \"b\", \"unlock\": \"b\", "
	       "\"unlock2\": \"a\" }, \"y\": { \"phases\": { \"q\": { \"lock\": \"b\", \"run\": 5, "
	       "\"lock2\": \"a\", \"unlock\": \"a\", \"unlock2\": \"b\" } } } } }", 1,
	       "f.json: tasks.x.lock2 takes \"b\" while holding \"a\", and tasks.y.phases.q.lock2 "
	       "takes \"a\" while holding \"b\": a lock-order inversion");
	/* two instances of one task that takes the locks both ways */
	warned("{ \"tasks\": { \"x\": { \"instance\": 2, \"phases\": { \"p\": { \"lock\": \"a\", "
	       "\"lock2\": \"b\", \"unlock\": \"b\", \"unlock2\": \"a\" }, \"q\": { \"lock\": \"b\", "
	       "\"lock2\": \"a\", \"unlock\": \"a\", \"unlock2\": \"b\" } } } } }", 1,
	       "two instances of the task can deadlock");
	/* no false alarm: one thread both ways, one order everywhere, read
	 * holds of a reader-preferring rwlock, balanced loops */
	warned("{ \"tasks\": { \"x\": { \"phases\": { \"p\": { \"lock\": \"a\", "
	       "\"lock2\": \"b\", \"unlock\": \"b\", \"unlock2\": \"a\" }, \"q\": { \"lock\": \"b\", "
	       "\"lock2\": \"a\", \"unlock\": \"a\", \"unlock2\": \"b\" } } } } }", 0, NULL);
	warned("{ \"tasks\": { \"x\": { \"instance\": 3, \"lock\": \"a\", \"lock2\": \"b\", "
	       "\"lock3\": \"c\", \"unlock\": \"c\", \"unlock2\": \"b\", \"unlock3\": \"a\" }, "
	       "\"y\": { \"lock\": \"a\", \"lock2\": \"c\", \"unlock\": \"c\", \"unlock2\": \"a\", "
	       "\"lock3\": \"b\", \"unlock3\": \"b\" } } }", 0, NULL);
	warned("{ \"global\": { \"sp_locks\": { \"a\": \"rwlock\", \"b\": \"rwlock\" } }, "
	       "\"tasks\": { \"x\": { \"sp_rdlock\": \"a\", \"sp_rdlock2\": \"b\", \"sp_unlock\": "
	       "\"b\", \"sp_unlock2\": \"a\" }, \"y\": { \"sp_rdlock\": \"b\", \"sp_rdlock2\": \"a\", "
	       "\"sp_unlock\": \"a\", \"sp_unlock2\": \"b\" } } }", 0, NULL);
	/* ... but a writer on one side of it can deadlock */
	warned("{ \"global\": { \"sp_locks\": { \"a\": \"rwlock\", \"b\": \"rwlock\" } }, "
	       "\"tasks\": { \"x\": { \"sp_rdlock\": \"a\", \"sp_rdlock2\": \"b\", \"sp_unlock\": "
	       "\"b\", \"sp_unlock2\": \"a\" }, \"y\": { \"sp_wrlock\": \"b\", \"sp_wrlock2\": \"a\", "
	       "\"sp_unlock\": \"a\", \"sp_unlock2\": \"b\" } } }", 1, "lock-order inversion");
	warned("{ \"tasks\": { \"x\": { \"phases\": { \"p\": { \"lock\": \"m\" }, "
	       "\"q\": { \"loop\": 5, \"run\": 1 }, \"r\": { \"unlock\": \"m\", \"sleep\": 1 } } } } }",
	       0, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fair_shares),
		cmocka_unit_test(test_fair_two_cpus),
		cmocka_unit_test(test_linux_balance_after_failure),
		cmocka_unit_test(test_run_jitter),
		cmocka_unit_test(test_linux_kernel_lock_taken_first),
		cmocka_unit_test(test_linux_worker_cpu),
		cmocka_unit_test(test_glibc_rwaiting_readers),
		cmocka_unit_test(test_fifo_preempts_fair),
		cmocka_unit_test(test_mutual_exclusion_and_writer_preference),
		cmocka_unit_test(test_reader_preference),
		cmocka_unit_test(test_no_lost_wakeup),
		cmocka_unit_test(test_pi_fair_waiter_gives_nothing),
		cmocka_unit_test(test_pi_rt_waiter_boosts),
		cmocka_unit_test(test_rtui_puts_critical_in_fifo),
		cmocka_unit_test(test_proxy_same_rq_kmutex_only),
		cmocka_unit_test(test_proxy_runs_owner_on_donor_cpu),
		cmocka_unit_test(test_ux_writer_boosts_owner_not_readers),
		cmocka_unit_test(test_superpass_restores_everything),
		cmocka_unit_test(test_superpass_boost_latency),
		cmocka_unit_test(test_linux_slice_at_tick),
		cmocka_unit_test(test_linux_slice_of_a_sleeper),
		cmocka_unit_test(test_linux_wake_affine),
		cmocka_unit_test(test_linux_wake_wide),
		cmocka_unit_test(test_linux_delayed_sleeper_wakes_in_place),
		cmocka_unit_test(test_linux_wake_affine_reads_load_at_sleep),
		cmocka_unit_test(test_wake_one_leaves_lock_free),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_preempt_point),
		cmocka_unit_test(test_timer_skip),
		cmocka_unit_test(test_rtapp_frames),
		cmocka_unit_test(test_waiter_boost),
		cmocka_unit_test(test_linux_run_to_parity),
		cmocka_unit_test(test_handoff),
		cmocka_unit_test(test_waiter_raise_cap),
		cmocka_unit_test(test_nesting_limit),
		cmocka_unit_test(test_lock_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
