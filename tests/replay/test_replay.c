// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * superpass::replay: the recorded fixtures of tests/trace replayed under
 * `none` reproduce their own figures; a hand-made trace whose wait only the
 * dependency on the waker explains (two CPUs instead of one: the waker
 * runs sooner, the wait shrinks); damaged and incomplete traces give an
 * error or a stated partial replay. Simulated time only: no wall clock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include <superpass/replay.h>

#include "sp_test_fixtures.h"

/* The events of task @task's phase in workload text @j, in order, as
 * "key=value;" (a JSON value as json-c prints it): the program, whatever
 * the text's layout. */
static void task_events(const char *j, const char *task, char *buf, size_t cap)
{
	struct json_object *root = json_tokener_parse(j), *tasks, *t, *phases, *ph;
	size_t n = 0;

	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "tasks", &tasks));
	assert_true(json_object_object_get_ex(tasks, task, &t));
	assert_true(json_object_object_get_ex(t, "phases", &phases));
	assert_true(json_object_object_get_ex(phases, "trace", &ph));
	buf[0] = 0;
	json_object_object_foreach(ph, key, val) {
		int w = snprintf(buf + n, cap - n, "%s=%s;", key,
				 json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN));

		assert_true(w > 0 && (size_t)w < cap - n);
		n += (size_t)w;
	}
	json_object_put(root);
}

/* The workload's global "sp_locks" in @j as json-c prints it plainly. */
static void global_locks(const char *j, char *buf, size_t cap)
{
	struct json_object *root = json_tokener_parse(j), *g, *locks;

	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "global", &g));
	assert_true(json_object_object_get_ex(g, "sp_locks", &locks));
	snprintf(buf, cap, "%s", json_object_to_json_string_ext(locks, JSON_C_TO_STRING_PLAIN));
	json_object_put(root);
}

static void run(const struct sp_sim_workload *w, enum sp_sim_policy pol, uint32_t cpus,
		struct sp_sim_result *res)
{
	struct sp_sim_opts so;

	sp_sim_opts_default(&so);
	so.policy = pol;
	so.cpus = cpus;
	so.seed = 1;
	assert_int_equal(sp_sim_run(w, &so, res), 0);
}

static bool within20(uint64_t got, uint64_t want)
{
	uint64_t d = got > want ? got - want : want - got;

	return d * 5 <= want;
}

static void check_fixture(const char *name)
{
	static const char *const comms[] = { "waiter", NULL };
	char *path = fixture(name), err[512] = "";
	struct sp_replay_opts o;
	struct sp_replay *r = NULL;
	struct sp_replay_figures tf, nf;
	struct sp_replay_counts c;
	struct sp_sim_result res;
	struct sp_sim_workload *again = NULL;

	sp_replay_opts_default(&o);
	o.critical_comms = comms;
	assert_int_equal(sp_replay_build(path, &o, &r, NULL, err, sizeof(err)), 0);
	sp_replay_trace_figures(r, &tf);
	sp_replay_get_counts(r, &c);
	/* lockpair: the waiter blocked 9 times (its .blockings file), about
	 * 3.5 ms each (one holder's 2 ms section and part of the other's). */
	assert_int_equal(tf.blockings, 9);
	assert_in_range(tf.p999, 3000000, 4000000);
	assert_true(c.threads >= 3);
	assert_true(c.waits >= 9);
	run(sp_replay_workload(r), SP_SIM_POL_NONE, 0, &res);
	sp_replay_run_figures(&res, &nf);
	if (!within20(nf.blockings, tf.blockings) || !within20(nf.p999, tf.p999))
		fail_msg("%s: replay none %llu blockings P99.9 %llu ns, trace %llu, %llu ns", name,
			 (unsigned long long)nf.blockings, (unsigned long long)nf.p999,
			 (unsigned long long)tf.blockings, (unsigned long long)tf.p999);
	assert_int_equal(nf.janky, tf.janky);
	sp_sim_result_destroy(&res);
	/* The JSON is what the simulator reads back, name for name. */
	assert_int_equal(sp_sim_workload_parse(sp_replay_json(r), "again", &again, err,
					       sizeof(err)), 0);
	sp_sim_workload_destroy(again);
	sp_replay_destroy(r);
	free(path);
}

static void test_record_fixture(void **state)
{
	(void)state;
	check_fixture("lockpair-record.trace.gz");
}

static void test_report_fixture(void **state)
{
	(void)state;
	check_fixture("lockpair-report.txt.gz");
}

static void test_dat_fixture(void **state)
{
	(void)state;
	check_fixture("lockpair.dat.gz");
}

static void test_workload_file(void **state)
{
	static const char *const comms[] = { "waiter", NULL };
	char *path = fixture("lockpair-record.trace.gz"), *out = tmp_path("replay.json");
	char err[512] = "";
	struct sp_replay_opts o;
	struct sp_replay *r = NULL;
	struct sp_sim_workload *w = NULL;
	struct sp_sim_result a, b;
	FILE *f;

	(void)state;
	sp_replay_opts_default(&o);
	o.critical_comms = comms;
	assert_int_equal(sp_replay_build(path, &o, &r, NULL, err, sizeof(err)), 0);
	f = fopen(out, "w");
	assert_non_null(f);
	assert_true(fputs(sp_replay_json(r), f) >= 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(sp_sim_workload_load(out, &w, err, sizeof(err)), 0);
	/* The file runs as the replay ran: same figures, bit for bit. */
	run(w, SP_SIM_POL_SUPERPASS, 0, &a);
	run(sp_replay_workload(r), SP_SIM_POL_SUPERPASS, 0, &b);
	assert_int_equal(a.blockings, b.blockings);
	assert_int_equal(a.p999, b.p999);
	assert_int_equal(a.events, b.events);
	sp_sim_result_destroy(&a);
	sp_sim_result_destroy(&b);
	sp_sim_workload_destroy(w);
	sp_replay_destroy(r);
	unlink(out);
	free(out);
	free(path);
}

/* ---- hand-made events ---- */
#define MS 1000000ull
#define US 1000ull

static void feed(struct sp_replay *r, struct sp_trace_event *e)
{
	assert_int_equal(sp_replay_feed(r, e), 0);
}

static void sw_on(struct sp_replay *r, int cpu, uint64_t t, int prev, int prev_prio,
		  uint32_t state, int next, int next_prio)
{
	struct sp_trace_event e = { .ts_ns = t, .type = SP_TR_SWITCH, .cpu = cpu, .pid = prev };

	e.u.sw.prev_pid = prev;
	e.u.sw.prev_prio = prev_prio;
	e.u.sw.prev_state = state;
	e.u.sw.next_pid = next;
	e.u.sw.next_prio = next_prio;
	snprintf(e.u.sw.prev_comm, sizeof(e.u.sw.prev_comm), "t%d", prev);
	snprintf(e.u.sw.next_comm, sizeof(e.u.sw.next_comm), "t%d", next);
	feed(r, &e);
}

static void sw(struct sp_replay *r, uint64_t t, int prev, int prev_prio, uint32_t state,
	       int next, int next_prio)
{
	sw_on(r, 0, t, prev, prev_prio, state, next, next_prio);
}

static void futex(struct sp_replay *r, uint64_t t, int pid, bool enter, uint32_t op, int64_t ret)
{
	struct sp_trace_event e = { .ts_ns = t, .cpu = 0, .pid = pid };

	e.type = enter ? SP_TR_FUTEX_ENTER : SP_TR_FUTEX_EXIT;
	e.u.futex.uaddr = 0x1000;
	e.u.futex.op = op;
	e.u.futex.val = 2; /* glibc's mutex waits for 2 (locked, waiters) */
	e.u.futex.ret = ret;
	feed(r, &e);
}

static void waking(struct sp_replay *r, uint64_t t, int waker, int target)
{
	struct sp_trace_event e = { .ts_ns = t, .type = SP_TR_WAKING, .cpu = 0, .pid = waker };

	e.u.wake.pid = target;
	feed(r, &e);
}

/* A replay of a hand-made trace whose critical thread is tid 200: on
 * @cpus CPUs (0: the default), in the classic scheduler model if asked. */
static struct sp_replay *replay_of_200(uint32_t cpus, bool classic)
{
	static const int32_t crit[] = { 200 };
	struct sp_replay_opts o;
	struct sp_replay *r;

	sp_replay_opts_default(&o);
	o.critical_tids = crit;
	o.nr_critical_tids = 1;
	if (cpus)
		o.cpus = cpus;
	o.classic = classic;
	assert_int_equal(sp_replay_create(&o, &r), 0);
	return r;
}

/* Where @task's object starts in @r's workload JSON (there is one). */
static const char *task_json(struct sp_replay *r, const char *task)
{
	const char *t = strstr(sp_replay_json(r), task);

	assert_non_null(t);
	return t;
}

/* sp_replay_finish(@r, @name), a failure with its message if it fails. */
static void finish_or_fail(struct sp_replay *r, const char *name)
{
	char err[256] = "";

	if (sp_replay_finish(r, name, err, sizeof(err)))
		fail_msg("%s", err);
}

/* One CPU. H (tid 100, nice 19) holds the lock from its start; W (200,
 * nice -10) asks for it at 1.1 ms; X (300, nice 0) runs 8 ms while H is
 * runnable; H wakes W at 10.1 ms after 2 ms of its own CPU. The wall gap
 * is 9 ms; the dependency is "H's 2 ms of CPU". */
static struct sp_replay *handmade(uint32_t cpus, bool truncate)
{
	struct sp_replay *r;
	char err[256] = "";
	uint64_t t;

	/* The classic scheduler model, whose slices end on time: in the
	 * linux one (slice ends seen at the 4 ms tick) X, arriving fresh,
	 * runs to the tick and W asks only after it, when H runs at once;
	 * the dependency is the same, the one-CPU wait not much longer. */
	r = replay_of_200(cpus, true);
	sw(r, 0, 0, 120, SP_TRS_RUNNABLE, 100, 139);
	sw(r, 1 * MS, 100, 139, SP_TRS_RUNNABLE, 200, 110);
	futex(r, 1 * MS + 100000, 200, true, 0x80, 0);
	sw(r, 1 * MS + 100000, 200, 110, SP_TRS_SLEEPING, 300, 120);
	sw(r, 9 * MS + 100000, 300, 120, SP_TRS_RUNNABLE, 100, 139);
	futex(r, 10 * MS + 100000, 100, true, 0x81, 0);
	waking(r, 10 * MS + 100000, 100, 200);
	futex(r, 10 * MS + 101000, 100, false, 0x81, 1);
	if (truncate) { /* the trace ends inside W's wait: a partial replay, said */
		struct sp_replay_counts c;
		struct sp_replay_figures f;

		assert_int_equal(sp_replay_finish(r, "cut", err, sizeof(err)), 0);
		sp_replay_get_counts(r, &c);
		sp_replay_trace_figures(r, &f);
		assert_int_equal(c.open_waits, 1);
		assert_int_equal(f.blockings, 0);
		assert_non_null(sp_replay_workload(r));
		sp_replay_destroy(r);
		return NULL;
	}
	sw(r, 10 * MS + 102000, 100, 139, SP_TRS_RUNNABLE, 200, 110);
	futex(r, 10 * MS + 110000, 200, false, 0x80, 0);
	t = 10 * MS + 200000;
	sw(r, t, 200, 110, SP_TRS_SLEEPING, 300, 120);
	sw(r, t + 2 * MS, 300, 120, SP_TRS_RUNNABLE, 100, 139);
	sw(r, t + 3 * MS, 100, 139, SP_TRS_SLEEPING, 300, 120);
	sw(r, t + 4 * MS, 300, 120, SP_TRS_SLEEPING, 0, 120);
	finish_or_fail(r, "handmade");
	return r;
}

static void test_dependency_not_gap(void **state)
{
	struct sp_replay *r1 = handmade(1, false), *r2 = handmade(2, false);
	struct sp_replay_figures tf;
	struct sp_sim_result one, two, sp;

	(void)state;
	sp_replay_trace_figures(r1, &tf);
	assert_int_equal(tf.blockings, 1);
	assert_int_equal(tf.max, 9 * MS + 10000);
	/* a futex wait: the runtime's critical waiter applies its fast tracks */
	assert_non_null(strstr(sp_replay_json(r1), "\"sp_waiter_boost\": true"));
	run(sp_replay_workload(r1), SP_SIM_POL_NONE, 0, &one);
	run(sp_replay_workload(r2), SP_SIM_POL_NONE, 0, &two);
	run(sp_replay_workload(r1), SP_SIM_POL_SUPERPASS, 0, &sp);
	assert_int_equal(one.cpus, 1);
	assert_int_equal(two.cpus, 2);
	assert_int_equal(one.blockings, 1);
	assert_int_equal(two.blockings, 1);
	/* One CPU: H still competes with X and W, the wait stays long. */
	assert_true(one.max > 4 * MS);
	/* Two CPUs: nothing delays H, W waits for the rest of H's 2 ms only. */
	assert_true(two.max < 2 * MS);
	assert_true(two.max > 0);
	/* SuperPass fast-tracks H on one CPU: shorter than none. */
	assert_true(sp.max < one.max / 2);
	sp_sim_result_destroy(&one);
	sp_sim_result_destroy(&two);
	sp_sim_result_destroy(&sp);
	sp_replay_destroy(r1);
	sp_replay_destroy(r2);
}

static void test_truncated_wait(void **state)
{
	(void)state;
	assert_null(handmade(1, true));
}

static void klock_on(struct sp_replay *r, int cpu, uint64_t t, int pid, bool begin,
		     uint32_t flags)
{
	struct sp_trace_event e = { .ts_ns = t, .cpu = cpu, .pid = pid };

	e.type = begin ? SP_TR_LOCK_BEGIN : SP_TR_LOCK_END;
	e.u.lock.addr = 0xffff888000001000ull;
	e.u.lock.flags = flags;
	feed(r, &e);
}

static void klock(struct sp_replay *r, uint64_t t, int pid, bool begin, uint32_t flags)
{
	klock_on(r, 0, t, pid, begin, flags);
}

/* Kernel locks: a rwsem read wait ended by the writer is an rwsem token
 * (a reader's wait), a mutex wait a kernel mutex one; spinlocks are not
 * waits. */
static void test_kernel_locks(void **state)
{
	struct sp_replay *r;
	struct sp_replay_figures f;
	const char *j;

	(void)state;
	r = replay_of_200(0, false);
	sw(r, 0, 0, 120, SP_TRS_RUNNABLE, 100, 120);
	sw(r, 1 * MS, 100, 120, SP_TRS_RUNNABLE, 200, 120);
	klock(r, 1 * MS + 1000, 200, true, SP_TRACE_LCB_SPIN);
	klock(r, 1 * MS + 2000, 200, false, 0);
	klock(r, 1 * MS + 10000, 200, true, SP_TRACE_LCB_READ);
	sw(r, 1 * MS + 11000, 200, 120, SP_TRS_UNINTERRUPTIBLE, 100, 120);
	waking(r, 3 * MS, 100, 200);
	sw(r, 3 * MS + 1000, 100, 120, SP_TRS_RUNNABLE, 200, 120);
	klock(r, 3 * MS + 2000, 200, false, 0);
	klock(r, 3 * MS + 3000, 200, true, SP_TRACE_LCB_MUTEX);
	sw(r, 3 * MS + 4000, 200, 120, SP_TRS_UNINTERRUPTIBLE, 100, 120);
	waking(r, 5 * MS, 100, 200);
	sw(r, 5 * MS + 1000, 100, 120, SP_TRS_SLEEPING, 200, 120);
	klock(r, 5 * MS + 2000, 200, false, 0);
	sw(r, 6 * MS, 200, 120, SP_TRS_SLEEPING, 0, 120);
	finish_or_fail(r, "klocks");
	sp_replay_trace_figures(r, &f);
	assert_int_equal(f.blockings, 2);
	j = sp_replay_json(r);
	assert_non_null(strstr(j, "\"rwsem-ffff888000001000\": \"rwsem\""));
	assert_non_null(strstr(j, "\"kmutex-ffff888000001000\": \"kmutex\""));
	assert_non_null(strstr(j, "\"sp_rdlock"));
	assert_non_null(strstr(j, "\"sp_wrlock"));
	/* only kernel locks waited for: superpass.ko's worker applies every
	 * fast track, not the waiter (the runtime's sp_waiter_boost) */
	assert_non_null(strstr(j, "\"sp_waiter_boost\": false"));
	assert_true(sp_sim_workload_has_rw(sp_replay_workload(r)));
	sp_replay_destroy(r);
}

/* The replay's scheduler model ("linux"): a nice-19 thread that sleeps
 * 50 us after each 500 us burst keeps the debt of each burst across its
 * sleep (DELAY_DEQUEUE), so beside two nice-0 hogs on one CPU it gets its
 * weight's share (15 / 2063, 0.7 %), not the 14 % the classic model
 * gives it by forgiving the debt at every sleep. */
static void test_sched_model(void **state)
{
	static const char *const fmt =
		"{ \"global\": { \"duration\": 5, \"sp_cpus\": 1, \"sp_base_slice_us\": 1500, "
		"\"sp_sched_model\": \"%s\" }, \"tasks\": { "
		"\"hog\": { \"instance\": 2, \"loop\": -1, \"run\": 100000 }, "
		"\"bg\": { \"loop\": -1, \"priority\": 19, \"run\": 500, \"sleep\": 50 } } }";
	uint64_t bg[2];

	(void)state;
	for (int m = 0; m < 2; m++) {
		char text[512], err[256] = "";
		struct sp_sim_workload *w;
		struct sp_sim_result res;

		snprintf(text, sizeof(text), fmt, m ? "linux" : "classic");
		assert_int_equal(sp_sim_workload_parse(text, "model", &w, err, sizeof(err)), 0);
		run(w, SP_SIM_POL_NONE, 0, &res);
		bg[m] = 0;
		for (uint32_t i = 0; i < res.nthreads; i++)
			if (!strcmp(res.threads[i].name, "bg"))
				bg[m] = res.threads[i].cpu_ns;
		sp_sim_result_destroy(&res);
		sp_sim_workload_destroy(w);
	}
	/* 5 s: linux within 0.5-1 % of the CPU, classic above 10 %. */
	assert_in_range(bg[1], 25 * MS, 50 * MS);
	assert_true(bg[0] > 500 * MS);
	{
		struct sp_sim_workload *w;
		char err[256] = "";

		assert_int_equal(sp_sim_workload_parse("{ \"global\": { \"sp_sched_model\": \"cfs\" }, "
						       "\"tasks\": { \"a\": { \"run\": 1 } } }", "bad",
						       &w, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "sp_sched_model"));
	}
}

/* A thread switched out runnable (preempted) gets a preemption point at
 * that point of its CPU time (sp_preempt: its fair slice ends there in the
 * replay); one switched out asleep or inside a futex wait does not. A
 * futex wait for its waker's tid (pthread_join, woken by the exit) is a
 * sleep, not a lock: no rwlock appears in a mutex workload. */
static void test_preempt_and_join(void **state)
{
	struct sp_replay *r;
	struct sp_replay_counts c;
	struct sp_trace_event e = { .cpu = 0 };
	char ev[1024];
	const char *j;

	(void)state;
	r = replay_of_200(0, false);
	sw(r, 0, 0, 120, SP_TRS_RUNNABLE, 100, 139);
	sw(r, 1 * MS, 100, 139, SP_TRS_RUNNABLE, 200, 110);   /* H preempted: a point */
	futex(r, 1 * MS + 100000, 200, true, 0x80, 0);        /* W waits for H's mutex */
	sw(r, 1 * MS + 100000, 200, 110, SP_TRS_SLEEPING, 100, 139);
	futex(r, 2 * MS, 100, true, 0x81, 0);
	waking(r, 2 * MS, 100, 200);
	futex(r, 2 * MS + 1000, 100, false, 0x81, 1);
	sw(r, 2 * MS + 2000, 100, 139, SP_TRS_SLEEPING, 200, 110); /* asleep: no point */
	futex(r, 2 * MS + 3000, 200, false, 0x80, 0);
	/* W joins X (tid 300): FUTEX_WAIT_BITSET for the value 300, woken by
	 * X's exit. */
	e.ts_ns = 3 * MS;
	e.type = SP_TR_FUTEX_ENTER;
	e.pid = 200;
	e.u.futex.uaddr = 0x2000;
	e.u.futex.op = 0x109;
	e.u.futex.val = 300;
	feed(r, &e);
	sw(r, 3 * MS + 1000, 200, 110, SP_TRS_SLEEPING, 300, 120);
	e = (struct sp_trace_event){ .ts_ns = 4 * MS, .type = SP_TR_EXIT, .cpu = 0, .pid = 300 };
	e.u.exit.pid = 300;
	feed(r, &e);
	waking(r, 4 * MS + 1000, 300, 200);
	sw(r, 4 * MS + 2000, 300, 120, SP_TRS_DEAD, 200, 110);
	e = (struct sp_trace_event){ .ts_ns = 4 * MS + 3000, .type = SP_TR_FUTEX_EXIT, .cpu = 0,
				     .pid = 200 };
	feed(r, &e);
	sw(r, 5 * MS, 200, 110, SP_TRS_SLEEPING, 0, 120);
	finish_or_fail(r, "points");
	sp_replay_get_counts(r, &c);
	assert_int_equal(c.preemptions, 1);
	assert_int_equal(c.joins, 1);
	j = sp_replay_json(r);
	task_events(j, "t100-100", ev, sizeof(ev));
	/* H: its section (inferred from its wake), 1 ms of CPU, the point, the rest. */
	assert_non_null(strstr(ev, "run2=1000;sp_preempt3=true;"));
	assert_false(sp_sim_workload_has_rw(sp_replay_workload(r)));
	assert_null(strstr(j, "rwlock"));
	sp_replay_destroy(r);
}

/* A glibc rwlock: the writer W (200, critical) waits twice for the
 * readers to leave (value 2, on __wrphase_futex and, the second time, on
 * another word of the same rwlock), woken each time by the last reader
 * out (R2, then R1). The other reader had run since its last sleep when W
 * asked and left no event: the replay assumes it held the read side too
 * (an inferred read section), so W's wait depends on both readers. */
static void rwfutex(struct sp_replay *r, uint64_t t, int pid, bool enter, uint64_t addr,
		    uint32_t val)
{
	struct sp_trace_event e = { .ts_ns = t, .cpu = 0, .pid = pid };

	e.type = enter ? SP_TR_FUTEX_ENTER : SP_TR_FUTEX_EXIT;
	e.u.futex.uaddr = addr;
	e.u.futex.op = enter && val != 0x7fffffff ? 0x189 : 0x81; /* WAIT_BITSET, WAKE */
	e.u.futex.val = val;
	feed(r, &e);
}

struct readers_at {
	int writer, readers, at_first_block;
	bool blocked;
};

static void count_readers(void *ctx, const struct sp_sim_trace *e)
{
	struct readers_at *rd = ctx;

	if (e->type == SP_SIM_TR_ACQUIRE && e->arg == SP_SIM_SHARED)
		rd->readers++;
	else if (e->type == SP_SIM_TR_RELEASE && e->arg == SP_SIM_SHARED)
		rd->readers--;
	else if (e->type == SP_SIM_TR_BLOCK && e->thread == rd->writer && !rd->blocked) {
		rd->blocked = true;
		rd->at_first_block = rd->readers;
	}
}

static void test_rwlock_readers(void **state)
{
	struct sp_replay *r;
	struct sp_replay_counts c;
	struct sp_replay_figures tf;
	struct sp_sim_result res;
	char ev[256];
	const char *j;

	(void)state;
	r = replay_of_200(1, false);
	/* R1 (100) runs, is preempted by R2 (101), which is preempted by W. */
	sw(r, 0, 0, 120, SP_TRS_RUNNABLE, 100, 139);
	sw(r, 1 * MS, 100, 139, SP_TRS_RUNNABLE, 101, 139);
	sw(r, MS + MS / 2, 101, 139, SP_TRS_RUNNABLE, 200, 110);
	rwfutex(r, 2 * MS, 200, true, 0x3008, 2);
	sw(r, 2 * MS, 200, 110, SP_TRS_SLEEPING, 100, 139);
	sw(r, 3 * MS, 100, 139, SP_TRS_SLEEPING, 101, 139);  /* R1 done, asleep */
	rwfutex(r, 4 * MS, 101, true, 0x3008, 0x7fffffff);  /* R2: the last out */
	waking(r, 4 * MS, 101, 200);
	rwfutex(r, 4 * MS + 1000, 101, false, 0, 1);
	sw(r, 4 * MS + 10000, 101, 139, SP_TRS_SLEEPING, 200, 110);
	rwfutex(r, 4 * MS + 20000, 200, false, 0, 0);
	/* The same the other way round, W waiting on __writers_futex. */
	sw(r, 5 * MS, 200, 110, SP_TRS_SLEEPING, 101, 139);
	sw(r, 5 * MS + MS / 2, 101, 139, SP_TRS_RUNNABLE, 100, 139);
	sw(r, 6 * MS, 100, 139, SP_TRS_RUNNABLE, 200, 110);
	rwfutex(r, 6 * MS + 200000, 200, true, 0x300c, 2);
	sw(r, 6 * MS + 200000, 200, 110, SP_TRS_SLEEPING, 101, 139);
	sw(r, 7 * MS, 101, 139, SP_TRS_SLEEPING, 100, 139);  /* R2 done, asleep */
	rwfutex(r, 8 * MS, 100, true, 0x3008, 0x7fffffff);  /* R1: the last out */
	waking(r, 8 * MS, 100, 200);
	rwfutex(r, 8 * MS + 1000, 100, false, 0, 1);
	sw(r, 8 * MS + 10000, 100, 139, SP_TRS_SLEEPING, 200, 110);
	rwfutex(r, 8 * MS + 20000, 200, false, 0, 0);
	/* R3 (102) waits as a reader; R1, a reader, wakes it (glibc's first
	 * reader of a read phase wakes the others): that releases nothing. */
	sw(r, 8 * MS + 100000, 200, 110, SP_TRS_SLEEPING, 102, 139);
	rwfutex(r, 8 * MS + 110000, 102, true, 0x3008, 3);
	sw(r, 8 * MS + 110000, 102, 139, SP_TRS_SLEEPING, 100, 139);
	rwfutex(r, 8 * MS + 200000, 100, true, 0x3008, 0x7fffffff);
	waking(r, 8 * MS + 200000, 100, 102);
	rwfutex(r, 8 * MS + 201000, 100, false, 0, 1);
	sw(r, 8 * MS + 210000, 100, 139, SP_TRS_SLEEPING, 102, 139);
	rwfutex(r, 8 * MS + 220000, 102, false, 0, 0);
	sw(r, 8 * MS + 500000, 102, 139, SP_TRS_SLEEPING, 0, 120);
	finish_or_fail(r, "rwlock");
	sp_replay_get_counts(r, &c);
	sp_replay_trace_figures(r, &tf);
	assert_int_equal(tf.blockings, 2);
	assert_int_equal(c.readers, 2);
	j = sp_replay_json(r);
	/* One rwlock, named after its lowest word, its readers shared. */
	global_locks(j, ev, sizeof(ev));
	assert_string_equal(ev, "{\"rwlock-3008\":\"rwlock-writer\"}");
	assert_null(strstr(j, "rwlock-300c"));
	assert_non_null(strstr(strstr(j, "\"t100-100\""), "\"sp_rdlock"));
	assert_non_null(strstr(strstr(j, "\"t101-101\""), "\"sp_rdlock"));
	assert_non_null(strstr(strstr(j, "\"t200-200\""), "\"sp_wrlock"));
	/* No reader holds the write side: R1's wake of R3 is no release. */
	assert_int_equal(c.phase_wakes, 1);
	{
		const char *r1 = strstr(j, "\"t100-100\""), *r2 = strstr(j, "\"t101-101\"");
		const char *wr = strstr(r1, "\"sp_wrlock");

		assert_true(r2 > r1);
		assert_true(!wr || wr > r2);
	}
	{
		struct readers_at rd = { .writer = 2 }; /* t200: the third task */
		struct sp_sim_opts so;

		sp_sim_opts_default(&so);
		so.trace = count_readers;
		so.trace_ctx = &rd;
		assert_int_equal(sp_sim_run(sp_replay_workload(r), &so, &res), 0);
		/* W's first request finds both readers inside. */
		assert_true(res.blockings >= 1);
		assert_int_equal(rd.at_first_block, 2);
		sp_sim_result_destroy(&res);
	}
	sp_replay_destroy(r);
}

static size_t count_in(const char *from, const char *to, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(from, what); p && (!to || p < to); p = strstr(p + 1, what))
		n++;
	return n;
}

/* A kernel rwsem's readers, as the QEMU mmap and populate scenarios have
 * them (nice-19 threads in madvise under mmap_read_lock, the critical
 * thread an mmap_lock writer). R1 (100) and R2 (101) each wait once for
 * the read side that W (200) holds, so both are readers; then W asks for
 * the write side while both are inside a burst, and R2, the last out,
 * wakes it. R2's release is a read hold (the rwsem's wake names no side;
 * R2's waits do), and R1, which leaves nothing, held the read side too
 * when W asked (infer_readers, as for a glibc rwlock). Without the sides,
 * R2's section was a write hold and R1 held nothing. */
static void test_rwsem_readers(void **state)
{
	struct sp_replay *r;
	struct sp_replay_counts c;
	struct sp_replay_figures tf;
	struct sp_sim_result res;
	const char *j, *r1, *r2, *w;

	(void)state;
	r = replay_of_200(1, false);
	/* W holds it; the readers queue; W's release wakes both. */
	sw(r, 0, 0, 120, SP_TRS_RUNNABLE, 200, 110);
	sw(r, 500 * US, 200, 110, SP_TRS_RUNNABLE, 100, 139);
	klock(r, 600 * US, 100, true, SP_TRACE_LCB_READ);
	sw(r, 600 * US, 100, 139, SP_TRS_UNINTERRUPTIBLE, 101, 139);
	klock(r, 700 * US, 101, true, SP_TRACE_LCB_READ);
	sw(r, 700 * US, 101, 139, SP_TRS_UNINTERRUPTIBLE, 200, 110);
	waking(r, 1 * MS, 200, 100);
	waking(r, 1 * MS + 1 * US, 200, 101);
	sw(r, 1 * MS + 100 * US, 200, 110, SP_TRS_SLEEPING, 100, 139);
	klock(r, 1 * MS + 110 * US, 100, false, 0);
	sw(r, 1 * MS + 500 * US, 100, 139, SP_TRS_SLEEPING, 101, 139);
	klock(r, 1 * MS + 510 * US, 101, false, 0);
	sw(r, 2 * MS, 101, 139, SP_TRS_SLEEPING, 0, 120);
	/* Both readers inside a burst when W asks; R2 wakes it. */
	sw(r, 3 * MS, 0, 120, SP_TRS_RUNNABLE, 100, 139);
	sw(r, 3 * MS + 500 * US, 100, 139, SP_TRS_RUNNABLE, 101, 139);
	sw(r, 4 * MS, 101, 139, SP_TRS_RUNNABLE, 200, 110);
	klock(r, 4 * MS + 100 * US, 200, true, SP_TRACE_LCB_WRITE);
	sw(r, 4 * MS + 100 * US, 200, 110, SP_TRS_UNINTERRUPTIBLE, 100, 139);
	sw(r, 4 * MS + 600 * US, 100, 139, SP_TRS_SLEEPING, 101, 139);
	waking(r, 5 * MS, 101, 200);
	sw(r, 5 * MS + 10 * US, 101, 139, SP_TRS_SLEEPING, 200, 110);
	klock(r, 5 * MS + 20 * US, 200, false, 0);
	sw(r, 5 * MS + 500 * US, 200, 110, SP_TRS_SLEEPING, 0, 120);
	finish_or_fail(r, "rwsem");
	sp_replay_get_counts(r, &c);
	sp_replay_trace_figures(r, &tf);
	assert_int_equal(tf.blockings, 1);
	assert_int_equal(c.readers, 1);
	j = sp_replay_json(r);
	/* the tasks in the order the trace first saw them: W, R1, R2 */
	w = strstr(j, "\"t200-200\"");
	r1 = strstr(j, "\"t100-100\"");
	r2 = strstr(j, "\"t101-101\"");
	if (!(w && r1 && r2 && w < r1 && r1 < r2))
		fail_msg("tasks: %s", j);
	if (count_in(r1, NULL, "\"sp_wrlock") != 0)
		fail_msg("a reader holds the rwsem's write side: %s", r1);
	/* R1: its wait, and the read hold inferred at W's wait */
	assert_int_equal(count_in(r1, r2, "\"sp_rdlock"), 2);
	/* R2: its wait, and the read hold that its wake of W releases */
	assert_int_equal(count_in(r2, NULL, "\"sp_rdlock"), 2);
	{
		struct readers_at rd = { .writer = 0 }; /* t200: the first task */
		struct sp_sim_opts so;

		sp_sim_opts_default(&so);
		so.trace = count_readers;
		so.trace_ctx = &rd;
		assert_int_equal(sp_sim_run(sp_replay_workload(r), &so, &res), 0);
		/* W's request finds both readers inside, as in the trace (R1's
		 * read hold inferred; R2 inside its burst since 3.5 ms). */
		assert_true(res.blockings >= 1);
		assert_int_equal(rd.at_first_block, 2);
		sp_sim_result_destroy(&res);
	}
	sp_replay_destroy(r);
}

/* One unlock that wakes several waiters is one release: a writer's
 * unlock of a glibc rwlock wakes its queued readers in one futex call, a
 * sched_waking each, 1-3 us of the waker's CPU apart. W (200) holds the
 * lock, R1 (100) and R2 (101) queue for the read side, W's unlock wakes
 * them 2 us apart. Taken as two releases, W let the lock go, took it back
 * at once for the 2 us and let it go again: replayed, a writer that had
 * just handed the read side to its readers waited for them (the bench's
 * rwlock writer: 78 such waits in one 5 s replay). */
static void test_one_release_many_wakes(void **state)
{
	struct sp_replay *r;
	const char *w, *end;

	(void)state;
	r = replay_of_200(1, false);
	sw(r, 0, 0, 120, SP_TRS_RUNNABLE, 200, 110);
	sw(r, 500 * US, 200, 110, SP_TRS_RUNNABLE, 100, 139);
	rwfutex(r, 600 * US, 100, true, 0x3008, 3);
	sw(r, 600 * US, 100, 139, SP_TRS_SLEEPING, 101, 139);
	rwfutex(r, 700 * US, 101, true, 0x3008, 3);
	sw(r, 700 * US, 101, 139, SP_TRS_SLEEPING, 200, 110);
	rwfutex(r, 1 * MS, 200, true, 0x3008, 0x7fffffff);
	waking(r, 1 * MS + 1 * US, 200, 100);
	waking(r, 1 * MS + 3 * US, 200, 101);
	rwfutex(r, 1 * MS + 4 * US, 200, false, 0, 2);
	sw(r, 1 * MS + 300 * US, 200, 110, SP_TRS_SLEEPING, 100, 139);
	rwfutex(r, 1 * MS + 310 * US, 100, false, 0, 0);
	sw(r, 1 * MS + 800 * US, 100, 139, SP_TRS_SLEEPING, 101, 139);
	rwfutex(r, 1 * MS + 810 * US, 101, false, 0, 0);
	sw(r, 2 * MS + 300 * US, 101, 139, SP_TRS_SLEEPING, 0, 120);
	finish_or_fail(r, "wakes");
	w = task_json(r, "\"t200-200\"");
	end = strstr(w + 1, "\n\t\t\"t");
	if (count_in(w, end, "\"sp_wrlock") != 1)
		fail_msg("W's write holds: %.*s", (int)(end ? end - w : (long)strlen(w)), w);
	assert_int_equal(count_in(w, end, "\"sp_unlock"), 1);
	sp_replay_destroy(r);
}

/* A reader whose sections the trace shows from one side only: three of
 * its five bursts (0.5 ms of CPU between sleeps) wait for the read side
 * at their start and get it from the writer; the other two show nothing.
 * Each burst is one read section (read_len: the waits bound them), so the
 * two silent bursts are read sections too, 0.5 ms each, not CPU outside
 * the lock. */
static void test_reader_bursts(void **state)
{
	struct sp_replay *r;
	const char *r1, *end;

	(void)state;
	r = replay_of_200(1, false);
	for (uint64_t k = 0; k < 5; k++) {
		uint64_t t = 10 * k * MS;

		if (k < 3) {
			sw(r, t, 0, 120, SP_TRS_RUNNABLE, 200, 120);
			sw(r, t + 200000, 200, 120, SP_TRS_RUNNABLE, 100, 139);
			rwfutex(r, t + 210000, 100, true, 0x3008, 3); /* a reader's wait */
			sw(r, t + 210000, 100, 139, SP_TRS_SLEEPING, 200, 120);
			rwfutex(r, t + 500000, 200, true, 0x3008, 0x7fffffff);
			waking(r, t + 500000, 200, 100);
			rwfutex(r, t + 501000, 200, false, 0, 1);
			sw(r, t + 510000, 200, 120, SP_TRS_SLEEPING, 100, 139);
			rwfutex(r, t + 520000, 100, false, 0, 0);
			sw(r, t + 1020000, 100, 139, SP_TRS_SLEEPING, 0, 120);
		} else {
			sw(r, t, 0, 120, SP_TRS_RUNNABLE, 100, 139);
			sw(r, t + 500000, 100, 139, SP_TRS_SLEEPING, 0, 120);
		}
	}
	finish_or_fail(r, "reader");
	r1 = task_json(r, "\"t100-100\"");
	end = strstr(r1 + 1, "\"t200-200\"");
	/* Every burst a read section: 3 from the waits, 2 silent ones. */
	assert_int_equal(count_in(r1, end, "\"sp_rdlock"), 5);
	/* The silent ones hold the lock for their whole burst. */
	{
		const char *last = r1, *p;
		long run = -1;

		for (p = strstr(r1, "\"sp_rdlock"); p && (!end || p < end); p = strstr(p + 1, "\"sp_rdlock"))
			last = p;
		p = strstr(last, "\"run");
		assert_non_null(p);
		assert_int_equal(sscanf(strchr(p, ':') + 1, " %ld", &run), 1);
		assert_in_range(run, 490, 510);
		{ /* and let go right after it */
			const char *u = strstr(p, "\"sp_unlock"), *n = strstr(p + 1, "\"run");

			assert_true(u && (!n || u < n));
		}
	}
	sp_replay_destroy(r);
}

/* A lock holder starved on one CPU: H (nice 19) runs 0.5 ms in each 10 ms
 * beside a nice-0 hog X and is runnable the rest of the time; it releases
 * the lock W waited for once. What it got through is not what it had to
 * do: its program loops to the end of the replay, so with a CPU of its own
 * (2 CPUs) it takes the lock again and again instead of stopping after
 * one pass. The same holder that sleeps instead of waiting for the CPU
 * keeps one pass. */
static struct sp_replay *holder_trace(bool starved)
{
	struct sp_replay *r;
	int other = starved ? 300 : 0;
	uint32_t hstate = starved ? SP_TRS_RUNNABLE : SP_TRS_SLEEPING;

	r = replay_of_200(1, false);
	sw(r, 0, 0, 120, SP_TRS_RUNNABLE, 200, 110);
	futex(r, 200000, 200, true, 0x80, 0);
	sw(r, 200000, 200, 110, SP_TRS_SLEEPING, other, 120);
	sw(r, 9 * MS, other, 120, SP_TRS_RUNNABLE, 100, 139);
	futex(r, 9 * MS + 300000, 100, true, 0x81, 0);
	waking(r, 9 * MS + 300000, 100, 200);
	futex(r, 9 * MS + 301000, 100, false, 0x81, 1);
	sw(r, 9 * MS + 310000, 100, 139, hstate, 200, 110);
	futex(r, 9 * MS + 320000, 200, false, 0x80, 0);
	sw(r, 9 * MS + 400000, 200, 110, SP_TRS_SLEEPING, other, 120);
	for (uint64_t k = 1; k < 5; k++) {
		sw(r, (10 * k + 9) * MS, other, 120, SP_TRS_RUNNABLE, 100, 139);
		sw(r, (10 * k + 9) * MS + MS / 2, 100, 139, hstate, other, 120);
	}
	finish_or_fail(r, "holder");
	return r;
}

struct acquires {
	int thread, n;
};

static void count_acquires(void *ctx, const struct sp_sim_trace *e)
{
	struct acquires *a = ctx;

	a->n += e->type == SP_SIM_TR_ACQUIRE && e->thread == a->thread;
}

/* @w run under `none` on 2 CPUs: the acquisitions by its thread @comm,
 * and (when @frames) the frames the run counted. */
static int sim_acquires_of(const struct sp_sim_workload *w, const char *comm, uint64_t *frames)
{
	struct acquires a = { .thread = sp_sim_task_find(w, comm) };
	struct sp_sim_opts so;
	struct sp_sim_result res;

	assert_true(a.thread >= 0);
	sp_sim_opts_default(&so);
	so.cpus = 2;
	so.trace = count_acquires;
	so.trace_ctx = &a;
	assert_int_equal(sp_sim_run(w, &so, &res), 0);
	if (frames)
		*frames = res.frames;
	sp_sim_result_destroy(&res);
	return a.n;
}

static void test_starved_holder_loops(void **state)
{
	(void)state;
	for (int starved = 0; starved < 2; starved++) {
		struct sp_replay *r = holder_trace(starved);
		struct sp_replay_counts c;
		int n;

		sp_replay_get_counts(r, &c);
		assert_int_equal(c.looped, (uint64_t)starved);
		n = sim_acquires_of(sp_replay_workload(r), "t100-100", NULL);
		if (starved)
			assert_true(n >= 10);
		else
			assert_int_equal(n, 1);
		sp_replay_destroy(r);
	}
}

/* A glibc reader's retry: R (100) asks for the read side while the writer
 * W (200) waits in a read phase, so it waits unregistered (RWAITING, on
 * __readers at 0x3000); the last reader out, R2 (101), wakes it with W;
 * R runs 4 us, finds W holding the lock and waits again, now on
 * __wrphase_futex (0x3008) for W's unlock, which wakes it; then it runs its
 * 500 us section (preempted once, while W asks again and R2, the other
 * reader inside, is the last out) and sleeps. That is one acquisition and
 * one section: the retry is no boundary. (Taken as one, the section ended
 * 4 us after the first wait and the replay inferred a second one for the
 * 500 us burst, from W's second wait.) */
static void test_reader_retry(void **state)
{
	struct sp_replay *r;
	const char *r1, *end, *u, *p;
	long run = -1;

	(void)state;
	r = replay_of_200(1, false);
	sw(r, 0, 0, 120, SP_TRS_RUNNABLE, 101, 139);               /* R2 reads, silent */
	sw(r, 100 * US, 101, 139, SP_TRS_RUNNABLE, 200, 110);
	rwfutex(r, 200 * US, 200, true, 0x3008, 2);                 /* W waits for R2 */
	sw(r, 200 * US, 200, 110, SP_TRS_SLEEPING, 100, 139);
	rwfutex(r, 300 * US, 100, true, 0x3000, 0xe);               /* R: RWAITING */
	sw(r, 300 * US, 100, 139, SP_TRS_SLEEPING, 101, 139);
	rwfutex(r, 1000 * US, 101, true, 0x3008, 0x7fffffff);      /* R2 last out */
	waking(r, 1000 * US, 101, 200);
	rwfutex(r, 1001 * US, 101, false, 0, 1);
	rwfutex(r, 1002 * US, 101, true, 0x3000, 0x7fffffff);
	waking(r, 1002 * US, 101, 100);
	rwfutex(r, 1003 * US, 101, false, 0, 1);
	sw(r, 1010 * US, 101, 139, SP_TRS_SLEEPING, 200, 110);
	rwfutex(r, 1020 * US, 200, false, 0, 0);                    /* W holds it */
	sw(r, 1050 * US, 200, 110, SP_TRS_RUNNABLE, 100, 139);
	rwfutex(r, 1060 * US, 100, false, 0, 0);                    /* R woken ... */
	rwfutex(r, 1064 * US, 100, true, 0x3008, 3);                /* ... waits again */
	sw(r, 1064 * US, 100, 139, SP_TRS_SLEEPING, 200, 110);
	rwfutex(r, 1100 * US, 200, true, 0x3008, 0x7fffffff);      /* W's unlock */
	waking(r, 1100 * US, 200, 100);
	rwfutex(r, 1101 * US, 200, false, 0, 1);
	sw(r, 1120 * US, 200, 110, SP_TRS_SLEEPING, 100, 139);
	rwfutex(r, 1130 * US, 100, false, 0, 0);                    /* R reads */
	sw(r, 1300 * US, 100, 139, SP_TRS_RUNNABLE, 101, 139);
	sw(r, 1350 * US, 101, 139, SP_TRS_RUNNABLE, 200, 110);      /* R2 reads again */
	rwfutex(r, 1360 * US, 200, true, 0x3008, 2);                /* W asks again */
	sw(r, 1360 * US, 200, 110, SP_TRS_SLEEPING, 100, 139);
	sw(r, 1690 * US, 100, 139, SP_TRS_SLEEPING, 101, 139);      /* R done, asleep */
	rwfutex(r, 2000 * US, 101, true, 0x3008, 0x7fffffff);      /* R2 last out */
	waking(r, 2000 * US, 101, 200);
	rwfutex(r, 2001 * US, 101, false, 0, 1);
	sw(r, 2010 * US, 101, 139, SP_TRS_SLEEPING, 200, 110);
	rwfutex(r, 2020 * US, 200, false, 0, 0);
	sw(r, 2200 * US, 200, 110, SP_TRS_SLEEPING, 0, 120);
	finish_or_fail(r, "retry");
	r1 = task_json(r, "\"t100-100\"");
	end = strstr(r1 + 1, "\"t101-101\"");
	if (!end)
		end = strstr(r1 + 1, "\"t200-200\"");
	/* one section: one read lock, one unlock */
	assert_int_equal(count_in(r1, end, "\"sp_rdlock"), 1);
	assert_int_equal(count_in(r1, end, "\"sp_unlock"), 1);
	/* ... that holds R's burst: the CPU inside is its 4 + 550 us */
	p = strstr(r1, "\"sp_rdlock");
	u = strstr(p, "\"sp_unlock");
	run = 0;
	for (const char *q = strstr(p, "\"run"); q && q < u; q = strstr(q + 1, "\"run")) {
		long x = 0;

		assert_int_equal(sscanf(strchr(q, ':') + 1, " %ld", &x), 1);
		run += x;
	}
	assert_in_range(run, 500, 600);
	assert_int_equal(sim_acquires_of(sp_replay_workload(r), "t100-100", NULL), 1);
	sp_replay_destroy(r);
}

/* One contended hand-off of the mutex: @holder, preempted 10 us before
 * @ask, lets @waiter run, which waits for the lock at @ask; @holder runs
 * again until its unlock wakes @waiter at @release, sleeps 10 us later,
 * and @waiter returns with the lock 20 us after the release. */
static void handoff(struct sp_replay *r, int waiter, int wprio, int holder, int hprio,
		    uint64_t ask, uint64_t release)
{
	sw(r, ask - 10000, holder, hprio, SP_TRS_RUNNABLE, waiter, wprio);
	futex(r, ask, waiter, true, 0x80, 0);
	sw(r, ask, waiter, wprio, SP_TRS_SLEEPING, holder, hprio);
	futex(r, release, holder, true, 0x81, 0);
	waking(r, release, holder, waiter);
	futex(r, release + 1000, holder, false, 0x81, 1);
	sw(r, release + 10000, holder, hprio, SP_TRS_SLEEPING, waiter, wprio);
	futex(r, release + 20000, waiter, false, 0x80, 0);
}

/* handoff() or its kernel form, khandoff(). */
typedef void sp_test_handoff_fn(struct sp_replay *r, int waiter, int wprio, int holder, int hprio,
				uint64_t ask, uint64_t release);

/* H (100, nice 19) and W (200) hand the lock to each other three times,
 * 3 ms apart, each section shown whole: H waits for W from 110 us to
 * 300 us, W for H from @w_ask_us to @w_release_us. */
static void three_sections_whole(struct sp_replay *r, sp_test_handoff_fn *hand,
				 uint64_t w_ask_us, uint64_t w_release_us)
{

	for (uint64_t k = 0; k < 3; k++) {
		const uint64_t A = 3 * k * MS;

		sw(r, A, 0, 120, SP_TRS_RUNNABLE, 200, 110);
		hand(r, 100, 139, 200, 110, A + 110 * US, A + 300 * US); /* H waits for W */
		hand(r, 200, 110, 100, 139, A + w_ask_us * US, A + w_release_us * US);
		sw(r, A + 900 * US, 200, 110, SP_TRS_SLEEPING, 0, 120);
	}
}

/* Finishes @r as @name and frees it: thread 100 of its workload locks and
 * unlocks @n times, and takes the lock @n times in the simulator. */
static void h100_sections_are(struct sp_replay *r, const char *name, int n)
{
	const char *h, *end;

	finish_or_fail(r, name);
	h = task_json(r, "\"t100-100\"");
	end = strstr(h + 1, "\"t200-200\"");
	if (end < h)
		end = NULL;
	assert_int_equal(count_in(h, end, "\"lock"), n);
	assert_int_equal(count_in(h, end, "\"unlock"), n);
	assert_int_equal(sim_acquires_of(sp_replay_workload(r), "t100-100", NULL), n);
	sp_replay_destroy(r);
}

/* A mutex holder behind its schedule runs its sections back to back
 * (unlock, lock again at once: uncontended, so the trace shows nothing).
 * H (100, nice 19) shows three 0.5 ms sections whole (a wait that got the
 * lock from W, then its release woke W, who waited meanwhile); later it
 * wakes, runs 1 ms of CPU and then the 0.5 ms section whose release wakes
 * W. The 1 ms before is two more of its sections, not CPU outside the
 * lock: replayed, H takes the lock six times, once per section. */
static void test_back_to_back_sections(void **state)
{
	struct sp_replay *r;
	const uint64_t B = 10 * MS;

	(void)state;
	r = replay_of_200(1, false);
	three_sections_whole(r, handoff, 410, 830);
	/* H behind: 1 ms, W asks, H's last 0.5 ms and the release */
	sw(r, B, 0, 120, SP_TRS_RUNNABLE, 100, 139);
	handoff(r, 200, 110, 100, 139, B + 1010 * US, B + 1510 * US);
	sw(r, B + 1600 * US, 200, 110, SP_TRS_SLEEPING, 0, 120);
	/* the waits' three, the two back to back, the one the release ends */
	h100_sections_are(r, "b2b", 6);
}

/* The same inside a section the trace shows from both ends: H's wait
 * for W gives it the lock, it runs three of its 0.5 ms sections back to
 * back (unlocking and locking again uncontended, which leaves nothing),
 * and the release of the third wakes W. Held as one 1.5 ms section, a
 * waiter that came during the first waited for all three, and a
 * fast-tracked H ran all three before W got the lock, where the runtime's
 * longest waits are one 0.5 ms section. */
static void test_held_sections_back_to_back(void **state)
{
	struct sp_replay *r;
	const uint64_t B = 10 * MS;

	(void)state;
	r = replay_of_200(1, false);
	three_sections_whole(r, handoff, 410, 830);
	/* H gets it from W, runs 1 ms, W asks, H's last 0.5 ms and the release */
	sw(r, B, 0, 120, SP_TRS_RUNNABLE, 200, 110);
	handoff(r, 100, 139, 200, 110, B + 110 * US, B + 300 * US);
	handoff(r, 200, 110, 100, 139, B + 1320 * US, B + 1820 * US);
	sw(r, B + 1900 * US, 200, 110, SP_TRS_SLEEPING, 0, 120);
	/* the three whole ones, and the last wait's three */
	h100_sections_are(r, "held", 6);
}

/* handoff()'s kernel form: @waiter waits for @holder on an rwsem (write
 * side) from @ask; @holder's release wakes it at @release. */
static void khandoff(struct sp_replay *r, int waiter, int wprio, int holder, int hprio,
		     uint64_t ask, uint64_t release)
{
	sw(r, ask - 10000, holder, hprio, SP_TRS_RUNNABLE, waiter, wprio);
	klock(r, ask, waiter, true, SP_TRACE_LCB_WRITE);
	sw(r, ask, waiter, wprio, SP_TRS_UNINTERRUPTIBLE, holder, hprio);
	waking(r, release, holder, waiter);
	sw(r, release + 10000, holder, hprio, SP_TRS_SLEEPING, waiter, wprio);
	klock(r, release + 20000, waiter, false, 0);
}

/* The same for a kernel lock, and more sections than the placements had
 * room for: superpass.ko's QEMU holders run 64 KiB writes back to back,
 * each one section of i_rwsem or f_pos_lock, and a starved one showed a
 * release after 8 ms of CPU since its last. H (100, nice 19) shows three
 * 70 us rwsem sections whole, then runs 10 ms of CPU and the section
 * whose release wakes W: about 140 sections back to back, not 10 ms of
 * CPU outside the lock (without it: 4 sections; with the kernel lock but
 * the placements' old fixed room, 8 per item: 4 too). */
/* H shows three 70 us rwsem sections whole, then runs 10 ms of CPU from a
 * sleep and ends it with the release that wakes W (@h_waits false) or with
 * a request of its own that waits for W: its 10 ms are sections back to
 * back, about 144 in all. */
static void check_kernel_b2b(bool h_waits)
{
	struct sp_replay *r;
	const char *h, *end;
	const uint64_t B = 10 * MS;
	int n;

	r = replay_of_200(1, false);
	three_sections_whole(r, khandoff, 340, 390);
	sw(r, B, 0, 120, SP_TRS_RUNNABLE, 100, 139);
	if (h_waits) {
		khandoff(r, 100, 139, 200, 110, B + 10 * MS + 10 * US, B + 10 * MS + 80 * US);
		sw(r, B + 10 * MS + 900 * US, 100, 139, SP_TRS_SLEEPING, 0, 120);
	} else {
		khandoff(r, 200, 110, 100, 139, B + 10 * MS + 10 * US, B + 10 * MS + 80 * US);
		sw(r, B + 10 * MS + 900 * US, 200, 110, SP_TRS_SLEEPING, 0, 120);
	}
	finish_or_fail(r, "kb2b");
	h = task_json(r, "\"t100-100\"");
	end = strstr(h + 1, "\n\t\t\"t"); /* the next task, if any */
	if (!end)
		end = h + strlen(h);
	n = count_in(h, end, "\"sp_wrlock");
	if (n < 100 || n > 200)
		fail_msg("H's rwsem sections: %d, want about 144", n);
	assert_int_equal(count_in(h, end, "\"sp_unlock"), n);
	sp_replay_destroy(r);
}

static void test_kernel_back_to_back(void **state)
{
	(void)state;
	check_kernel_b2b(false);
}

/* The same before a wait: H shows three 70 us rwsem sections whole, then
 * runs 10 ms of CPU from a sleep and asks again, and waits. Its CPU before
 * that request is sections back to back too (6.12's QEMU inode holders:
 * 4-16 ms of CPU between a release and their next wait, run outside the
 * lock, and the replayed critical thread found it free where the traced
 * one had waited a second); without it, H has its four sections. */
static void test_kernel_back_to_back_before_wait(void **state)
{
	(void)state;
	check_kernel_b2b(true);
}

/* A kernel mutex's wait begins at its first contention_begin, the one
 * with SPIN that mutex_optimistic_spin follows, as `superpass analyze`
 * and superpass.ko count it: W (200) asks at 1.2 ms, spins 3 ms, sleeps
 * at 4.2 ms and is woken by H's release at 5.2 ms. Its blocking is 4.1
 * ms, not the 1.1 ms from the second begin, and the spin is not W's work:
 * replayed, W runs 200 us and then asks (taken as work, it ran 3.2 ms
 * before asking, and a frame loop's points drifted by the spin). */
static void test_kernel_mutex_spin(void **state)
{
	struct sp_replay *r;
	struct sp_replay_figures f;
	const char *w;

	(void)state;
	r = replay_of_200(1, false);
	sw(r, 0, 0, 120, SP_TRS_RUNNABLE, 100, 139);
	sw(r, 1 * MS, 100, 139, SP_TRS_RUNNABLE, 200, 110);
	klock(r, 1 * MS + 200 * US, 200, true, SP_TRACE_LCB_SPIN | SP_TRACE_LCB_MUTEX);
	klock(r, 4 * MS + 200 * US, 200, true, SP_TRACE_LCB_MUTEX);
	sw(r, 4 * MS + 200 * US, 200, 110, SP_TRS_UNINTERRUPTIBLE, 100, 139);
	waking(r, 5 * MS + 200 * US, 100, 200);
	sw(r, 5 * MS + 300 * US, 100, 139, SP_TRS_SLEEPING, 200, 110);
	klock(r, 5 * MS + 310 * US, 200, false, 0);
	/* a spin that gets the lock: no wait at all */
	klock(r, 5 * MS + 400 * US, 200, true, SP_TRACE_LCB_SPIN | SP_TRACE_LCB_MUTEX);
	klock(r, 5 * MS + 401 * US, 200, false, 0);
	sw(r, 6 * MS, 200, 110, SP_TRS_SLEEPING, 0, 120);
	finish_or_fail(r, "kspin");
	sp_replay_trace_figures(r, &f);
	assert_int_equal(f.blockings, 1);
	assert_int_equal(f.max, 4 * MS + 110 * US);
	w = task_json(r, "\"t200-200\"");
	if (!strstr(w, "\"run1\": 200,")) /* the 10 us it ran woken, before its end, spun too */
		fail_msg("W's work before its request: %s", w);
	sp_replay_destroy(r);
}

/* The CPU a kernel lock's waiter spins is the lock's, not the waiter's
 * work. W (200, CPU 1) runs 1 ms, then spins 3 ms before it asks, as
 * rwsem_optimistic_spin() does while the lock is free with a handoff
 * pending or its owner runs: X (300, CPU 0) has queued for the rwsem at
 * 1 ms. In its wait W is woken and spins 2 ms more (a first waiter on its
 * owner). Replayed, W runs 1 ms and asks; the 5 ms are counted as spun,
 * not replayed (kept, a looped program burned them again at every pass,
 * the 6.12 QEMU populate replay's 30-300 blockings against 6 traced). */
static void test_kernel_rwsem_spin(void **state)
{
	struct sp_replay *r;
	struct sp_replay_counts c;
	const char *w;

	(void)state;
	r = replay_of_200(2, false);
	sw_on(r, 1, 0, 0, 120, SP_TRS_RUNNABLE, 200, 110);
	sw_on(r, 0, 0, 0, 120, SP_TRS_RUNNABLE, 100, 139);
	sw_on(r, 0, 100 * US, 100, 139, SP_TRS_RUNNABLE, 300, 120);
	klock_on(r, 0, 1 * MS, 300, true, SP_TRACE_LCB_WRITE);
	sw_on(r, 0, 1 * MS, 300, 120, SP_TRS_UNINTERRUPTIBLE, 100, 139);
	klock_on(r, 1, 4 * MS, 200, true, SP_TRACE_LCB_WRITE);
	sw_on(r, 1, 4 * MS, 200, 110, SP_TRS_UNINTERRUPTIBLE, 0, 120);
	sw_on(r, 1, 4 * MS + 500 * US, 0, 120, SP_TRS_RUNNABLE, 200, 110);
	sw_on(r, 1, 6 * MS + 500 * US, 200, 110, SP_TRS_UNINTERRUPTIBLE, 0, 120);
	waking(r, 7 * MS, 100, 300);
	sw_on(r, 0, 7 * MS + 10 * US, 100, 139, SP_TRS_SLEEPING, 300, 120);
	klock_on(r, 0, 7 * MS + 20 * US, 300, false, 0);
	waking(r, 8 * MS, 300, 200);
	sw_on(r, 0, 8 * MS + 50 * US, 300, 120, SP_TRS_SLEEPING, 0, 120);
	sw_on(r, 1, 8 * MS + 200 * US, 0, 120, SP_TRS_RUNNABLE, 200, 110);
	klock_on(r, 1, 8 * MS + 210 * US, 200, false, 0);
	sw_on(r, 1, 8 * MS + 300 * US, 200, 110, SP_TRS_SLEEPING, 0, 120);
	finish_or_fail(r, "rwspin");
	sp_replay_get_counts(r, &c);
	/* and the 10 us that W and X each ran woken before their ends */
	assert_int_equal(c.spin_ns, 5 * MS + 20 * US);
	w = task_json(r, "\"t200-200\"");
	if (!strstr(w, "\"run1\": 1000,"))
		fail_msg("W's work before its request: %s", w);
	sp_replay_destroy(r);
}

/* A kernel lock holder whose sections are of two kinds, as superpass.ko's
 * fpos holders: lseek() holds f_pos_lock 5-10 us, the 64 KiB write() that
 * follows holds it 2-10 ms. H (100) shows three 70 us and three 2.02 ms
 * sections whole, then 20 ms of CPU and the release that wakes W. Its CPU
 * between releases is the long sections back to back (the lock is held
 * nearly all of it): about ten of 2 ms, the length that holds half of its
 * sections' CPU, not three hundred of 70 us (the lower quartile of their
 * count), which let a waiter in after 70 us where the trace's waited ms. */
static void test_kernel_section_mix(void **state)
{
	struct sp_replay *r;
	const char *h, *end;
	uint64_t a = 0, b;
	int n;

	(void)state;
	r = replay_of_200(1, false);
	for (int k = 0; k < 6; k++) {
		const uint64_t len = k % 2 ? 2 * MS : 50 * US;

		sw(r, a, 0, 120, SP_TRS_RUNNABLE, 200, 110);
		khandoff(r, 100, 139, 200, 110, a + 110 * US, a + 300 * US); /* H waits for W */
		khandoff(r, 200, 110, 100, 139, a + 340 * US, a + 340 * US + len); /* W for H */
		sw(r, a + 340 * US + len + 500 * US, 200, 110, SP_TRS_SLEEPING, 0, 120);
		a += 340 * US + len + 1 * MS;
	}
	b = a + 1 * MS;
	sw(r, b, 0, 120, SP_TRS_RUNNABLE, 100, 139);
	khandoff(r, 200, 110, 100, 139, b + 20 * MS + 10 * US, b + 20 * MS + 80 * US);
	sw(r, b + 20 * MS + 900 * US, 200, 110, SP_TRS_SLEEPING, 0, 120);
	finish_or_fail(r, "kmix");
	h = task_json(r, "\"t100-100\"");
	end = strstr(h + 1, "\n\t\t\"t"); /* the next task, if any */
	if (!end)
		end = h + strlen(h);
	n = count_in(h, end, "\"sp_wrlock");
	/* its own six, about ten back to back, the last release's */
	if (n < 12 || n > 24)
		fail_msg("H's sections: %d, want about 17", n);
	sp_replay_destroy(r);
}

/* A critical thread that sleeps between its operations on no grid (a
 * relative 2 ms sleep that ends 2.5-4.5 ms later, as on 6.1 under QEMU),
 * two of whose operations waited for a kernel lock, is no frame loop (no
 * timers) but loops its program to the end of the replay all the same:
 * replayed once, its 40 operations were over long before the trace's
 * end, whatever the waits became. */
static void test_sleep_loop(void **state)
{
	struct sp_replay *r;
	struct sp_replay_counts c;
	const char *j;
	uint64_t t = 1 * MS;

	(void)state;
	r = replay_of_200(2, false);
	sw(r, 0, 0, 120, SP_TRS_RUNNABLE, 100, 139);
	for (int k = 0; k < 40; k++) {
		if (k == 5 || k == 20) {
			khandoff(r, 200, 110, 100, 139, t + 10000, t + 1 * MS);
			t += 1 * MS + 30000;
		} else {
			sw(r, t, 0, 120, SP_TRS_RUNNABLE, 200, 110);
		}
		sw(r, t + 50000, 200, 110, SP_TRS_SLEEPING, 0, 120);
		t += 50000 + 2500000 + (uint64_t)((k * 7919) % 2000) * 1000;
	}
	sw(r, t, 0, 120, SP_TRS_SLEEPING, 0, 120);
	finish_or_fail(r, "sleeps");
	sp_replay_get_counts(r, &c);
	assert_int_equal(c.timers, 0);
	j = sp_replay_json(r);
	if (!strstr(j, "\"t200-200\": {\n\t\t\t\"loop\": -1,"))
		fail_msg("the critical thread does not loop: %s", strstr(j, "\"t200-200\""));
	sp_replay_destroy(r);
}

/* A frame loop (8 ms grid) whose first frame waits for a lock keeps its
 * period (its start-up is kept as it is) and loops on to the end of the
 * replay, which lasts as long as the trace, to the ms. */
static void test_frame_loop(void **state)
{
	struct sp_replay *r;
	struct sp_replay_counts c;
	struct sp_replay_figures tf;
	const char *j;

	(void)state;
	r = replay_of_200(1, false);
	sw(r, 0, 0, 120, SP_TRS_RUNNABLE, 200, 110);
	futex(r, MS / 10, 200, true, 0x80, 0);
	sw(r, MS / 10, 200, 110, SP_TRS_SLEEPING, 100, 139);
	futex(r, 1 * MS, 100, true, 0x81, 0);
	waking(r, 1 * MS, 100, 200);
	futex(r, 1 * MS + 1000, 100, false, 0x81, 1);
	sw(r, 1 * MS + 10000, 100, 139, SP_TRS_SLEEPING, 200, 110);
	futex(r, 1 * MS + 20000, 200, false, 0x80, 0);
	sw(r, MS + MS / 2, 200, 110, SP_TRS_SLEEPING, 0, 120);
	for (uint64_t k = 1; k <= 10; k++) {
		sw(r, 8 * k * MS, 0, 120, SP_TRS_RUNNABLE, 200, 110);
		sw(r, 8 * k * MS + MS / 2, 200, 110, SP_TRS_SLEEPING, 0, 120);
	}
	finish_or_fail(r, "frames");
	sp_replay_get_counts(r, &c);
	sp_replay_trace_figures(r, &tf);
	assert_int_equal(tf.blockings, 1);
	assert_true(c.timers >= 9);
	assert_true(tf.frames >= 10);
	j = sp_replay_json(r);
	assert_non_null(strstr(j, "\"t200-200\": {\n\t\t\t\"loop\": -1,"));
	assert_non_null(strstr(j, "\"t100-100\": {\n\t\t\t\"loop\": 1,"));
	assert_int_equal(sp_sim_workload_duration_ns(sp_replay_workload(r)), 81 * MS);
	sp_replay_destroy(r);
}

/* A frame loop of 24 frames (8 ms, 1.3 ms of CPU) that asks for a lock at
 * @pts (CPU offsets, 0 ends the list) and waits at point p in frame k when
 * bit p of @waits[k] is set; it exits 30 ms before the trace ends. The
 * replay's acquisitions by it under `none` on 2 CPUs, its frames and the
 * replay's length. */
static int frame_acquires(const uint64_t *pts, const uint8_t *waits, uint64_t extra,
			  uint64_t *frames, uint64_t *dur)
{
	struct sp_replay *r;
	const struct sp_sim_workload *w;
	int n;

	r = replay_of_200(1, false);
	sw(r, 0, 0, 120, SP_TRS_RUNNABLE, 0, 120);
	for (uint64_t k = 0; k < 24; k++) {
		uint64_t t = 8 * k * MS, cpu = 0;

		sw(r, t, 0, 120, SP_TRS_SLEEPING, 200, 110);
		for (int p = 0; p < 4 && pts[p]; p++) {
			if (!(waits[k] & (1u << p)))
				continue;
			t += pts[p] - cpu;
			cpu = pts[p];
			/* 200 waits; holder 100 runs 100 us, unlocks, wakes it */
			futex(r, t, 200, true, 0x80, 0);
			sw(r, t, 200, 110, SP_TRS_SLEEPING, 100, 139);
			futex(r, t + 100000, 100, true, 0x81, 0);
			waking(r, t + 100000, 100, 200);
			futex(r, t + 101000, 100, false, 0x81, 1);
			sw(r, t + 102000, 100, 139, SP_TRS_SLEEPING, 200, 110);
			t += 102000;
			futex(r, t + 1000, 200, false, 0x80, 0);
			/* @extra more CPU after each wait (the unlock's wake of
			 * the queued): the frame's later points come later */
			t += extra;
		}
		t += 1300000 - cpu;
		sw(r, t, 200, 110, SP_TRS_SLEEPING, 0, 120);
	}
	{ /* it exits; the trace goes on 30 ms (a program's joins, its report) */
		struct sp_trace_event e = { .ts_ns = 8 * 24 * MS, .type = SP_TR_EXIT, .cpu = 0 };

		e.u.exit.pid = 200;
		feed(r, &e);
	}
	sw(r, 8 * 24 * MS + 30 * MS, 0, 120, SP_TRS_RUNNABLE, 0, 120);
	finish_or_fail(r, "points");
	w = sp_replay_workload(r);
	*dur = sp_sim_workload_duration_ns(w);
	n = sim_acquires_of(w, "t200-200", frames);
	sp_replay_destroy(r);
	return n;
}

/* A frame loop that takes a lock four times a frame (at 300, 600, 900 and
 * 1200 us of its 1.3 ms of CPU) but, as under `none`, waits mostly at the
 * first point: in 10 frames of 24 there, in two at the second (one of them
 * after a wait at the first), in two at the fourth, never at the third.
 * The replay asks at all four in every frame: the second and fourth from
 * their waits in two frames each, the third from their spacing; and a
 * frame that waited at one point still asks at the others. (Before, a
 * point needed waits in 5 % of the frames and any wait in a frame stood
 * for all its points: one request a frame.) It exits 30 ms before the
 * trace ends: the replay ends there, not with the trace. And three points,
 * the second drifted later, stay three a frame. */
static void test_frame_points(void **state)
{
	static const uint64_t four[] = { 300000, 600000, 900000, 1200000 };
	/* three points, the second drifted late: no grid of steps finer than
	 * their spacing (before, 122 us steps made six requests a frame) */
	static const uint64_t three[] = { 300000, 670000, 910000, 0 };
	uint8_t waits[24] = { 0 };
	uint64_t frames, dur;
	int n;

	(void)state;
	for (int k = 0; k < 10; k++)
		waits[k] |= 1;
	waits[3] |= 2;
	waits[15] |= 2;
	waits[12] |= 8;
	waits[18] |= 8;
	n = frame_acquires(four, waits, 0, &frames, &dur);
	/* the replay ends where its only critical thread, a frame loop, did */
	assert_in_range(dur, 184 * MS, 8 * 24 * MS + MS);
	if (frames < 20 || (uint64_t)n < 4 * frames - 4)
		fail_msg("%d acquisitions in %llu frames, not 4 a frame", n,
			 (unsigned long long)frames);
	waits[12] = (uint8_t)(waits[12] & ~8) | 4;
	waits[18] = (uint8_t)(waits[18] & ~8) | 4;
	n = frame_acquires(three, waits, 0, &frames, &dur);
	if (frames < 20 || (uint64_t)n < 3 * frames - 4 || (uint64_t)n > 3 * frames + 4)
		fail_msg("%d acquisitions in %llu frames, not 3 a frame", n,
			 (unsigned long long)frames);
}

/* A frame that waited runs longer than one that did not: the bench's
 * rwlock writer does 330-410 us of CPU between two waits of a frame where
 * its work and section are 300 (its unlock's futex_wake of the queued
 * readers). Ten frames of 24 wait at all four points and run 100 us more
 * after each wait, so their fourth wait is at 1.5 ms of CPU, past the end
 * of the 1.3 ms frames that did not wait. Taken in each frame's own CPU,
 * the points are where the unwaited frames have them too: four requests
 * in every frame (before, those frames asked three times). */
static void test_frame_points_drift(void **state)
{
	static const uint64_t four[] = { 300000, 600000, 900000, 1200000 };
	uint8_t waits[24] = { 0 };
	uint64_t frames, dur;
	int n;

	(void)state;
	for (int k = 0; k < 10; k++)
		waits[k] = 0xf;
	n = frame_acquires(four, waits, 100000, &frames, &dur);
	if (frames < 20 || (uint64_t)n < 4 * frames - 4 || (uint64_t)n > 4 * frames + 4)
		fail_msg("%d acquisitions in %llu frames, not 4 a frame", n,
			 (unsigned long long)frames);
}

/* An rwlock writer asks at four points of its frames (300, 600, 900 and
 * 1200 us of CPU). Its sections show whole in five frames of 24 (it waits
 * at its first point, and 60 us later its unlock wakes reader 101, which
 * queued meanwhile); in ten more it waits there and its unlock wakes
 * nobody, so its section ends 60 us into the CPU after the wait (the
 * length of the whole ones); in four it waits at its second or fourth.
 * The later points of a frame that waited at its first lie in the stretch
 * of CPU after the wait, after the inferred unlock: the replay asks at all
 * four in every frame. (Before, the points were tested against the
 * section still open at the stretch's start, taken as held and dropped:
 * the bench's writer asked once in a frame that waited at its first.) */
static void test_frame_points_after_section(void **state)
{
	static const uint64_t pts[] = { 300000, 600000, 900000, 1200000 };
	const uint64_t W = 0x3008, CS = 60000;
	struct sp_replay *r;
	uint64_t frames;
	int n;

	(void)state;
	r = replay_of_200(1, false);
	sw(r, 0, 0, 120, SP_TRS_RUNNABLE, 0, 120);
	for (uint64_t k = 0; k < 24; k++) {
		uint64_t at = pts[k < 15 ? 0 : k < 17 ? 1 : 3], t = 8 * k * MS + at;

		sw(r, 8 * k * MS, 0, 120, SP_TRS_SLEEPING, 200, 110);
		if (k < 19) {
			rwfutex(r, t, 200, true, W, 2); /* the writer waits for reader 100 */
			sw(r, t, 200, 110, SP_TRS_SLEEPING, k < 5 ? 101 : 100, 139);
			if (k < 5) { /* reader 101 queues behind the writer */
				rwfutex(r, t + 10000, 101, true, W, 3);
				sw(r, t + 10000, 101, 139, SP_TRS_SLEEPING, 100, 139);
			}
			rwfutex(r, t + 100000, 100, true, W, 0x7fffffff);
			waking(r, t + 100000, 100, 200);
			rwfutex(r, t + 101000, 100, false, W, 1);
			sw(r, t + 102000, 100, 139, SP_TRS_SLEEPING, 200, 110);
			t += 103000;
			rwfutex(r, t, 200, false, W, 0);
			if (k < 5) { /* its unlock, CS later, wakes the queued reader */
				rwfutex(r, t + CS, 200, true, W, 0x7fffffff);
				waking(r, t + CS, 200, 101);
				rwfutex(r, t + CS + 1000, 200, false, W, 1);
				t += 1000;
			}
		}
		sw(r, t + 1300000 - at, 200, 110, SP_TRS_SLEEPING, 0, 120);
	}
	finish_or_fail(r, "section");
	n = sim_acquires_of(sp_replay_workload(r), "t200-200", &frames);
	if (frames < 20 || (uint64_t)n < 4 * frames - 4 || (uint64_t)n > 4 * frames + 4)
		fail_msg("%d acquisitions in %llu frames, not 4 a frame", n,
			 (unsigned long long)frames);
	sp_replay_destroy(r);
}

/* W (200) waits for H's (100) mutex, H lets it go; then, @jump ns later,
 * @late (400) starts if asked, and H runs on across the jump (its CPU
 * time then longer than one event of the workload holds). */
static struct sp_replay *jumped(uint64_t jump, bool late)
{
	struct sp_replay *r = replay_of_200(1, true);

	sw(r, 0, 0, 120, SP_TRS_RUNNABLE, 100, 139);
	sw(r, 1 * MS, 100, 139, SP_TRS_RUNNABLE, 200, 110);
	futex(r, 1 * MS + 100000, 200, true, 0x80, 0);
	sw(r, 1 * MS + 100000, 200, 110, SP_TRS_SLEEPING, 100, 139);
	futex(r, 2 * MS, 100, true, 0x81, 0);
	waking(r, 2 * MS, 100, 200);
	futex(r, 2 * MS + 1000, 100, false, 0x81, 1);
	sw(r, 2 * MS + 2000, 100, 139, SP_TRS_RUNNABLE, 200, 110);
	futex(r, 2 * MS + 10000, 200, false, 0x80, 0);
	sw(r, 2 * MS + 20000, 200, 110, SP_TRS_SLEEPING, 100, 139);
	if (late) {
		sw(r, jump + 3 * MS, 100, 139, SP_TRS_RUNNABLE, 400, 120);
		sw(r, jump + 4 * MS, 400, 120, SP_TRS_SLEEPING, 100, 139);
	}
	sw(r, jump + 5 * MS, 100, 139, SP_TRS_SLEEPING, 0, 120);
	return r;
}

/* A timestamp jump: refused with what is wrong with the trace (how long,
 * where it jumps, the limit), never with a key of the workload the replay
 * makes of it; a long gap the simulator can run is replayed. */
static void test_timestamp_jump(void **state)
{
	struct sp_replay *r;
	char err[512] = "";
	const char *j;

	(void)state;
	r = jumped(2000000ull * 1000 * MS, false);
	assert_int_equal(sp_replay_finish(r, "jump", err, sizeof(err)), -ENODATA);
	printf("%s\n", err);
	assert_non_null(strstr(err, "the trace spans 2000000 s (0.000000 to 2000000.005000 s; a "
				    "timestamp jump of 2000000.00"));
	assert_non_null(strstr(err, "longer than the simulator's limit of 1000000 s"));
	assert_null(strstr(err, "jump:"));
	assert_null(strstr(err, "global"));
	sp_replay_destroy(r);

	r = jumped(3000ull * 1000 * MS, true);
	assert_int_equal(sp_replay_finish(r, "late", err, sizeof(err)), -ENODATA);
	printf("%s\n", err);
	assert_non_null(strstr(err, "thread t400-400 first runs 3000 s into the trace (a "
				    "timestamp jump of 3000.00"));
	assert_non_null(strstr(err, "later than a task of the simulator can start (2147 s)"));
	sp_replay_destroy(r);

	/* H's 3000 s of CPU: run events of at most 2^31 - 1 us each */
	r = jumped(3000ull * 1000 * MS, false);
	finish_or_fail(r, "long");
	j = task_json(r, "t100-100");
	assert_non_null(strstr(j, "2147483647"));
	sp_replay_destroy(r);
}

static void test_bad_files(void **state)
{
	struct sp_replay_opts o;
	struct sp_replay *r = NULL;
	char err[512], *junk = tmp_path("junk.trace"), *cut = tmp_path("cut.trace");
	FILE *f;
	int rc;

	(void)state;
	sp_replay_opts_default(&o);
	rc = sp_replay_build("/nonexistent/trace", &o, &r, NULL, err, sizeof(err));
	assert_int_equal(rc, -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/trace"));
	assert_null(r);

	f = fopen(junk, "w");
	assert_non_null(f);
	fputs("hello\nthis is not a trace\n\x01\x02\n", f);
	fclose(f);
	rc = sp_replay_build(junk, &o, &r, NULL, err, sizeof(err));
	assert_true(rc == -EINVAL || rc == -ENODATA);
	assert_non_null(strstr(err, junk));
	assert_null(r);

	/* The first 40 lines of a real trace: a partial replay or a stated
	 * refusal, never a crash. */
	{
		char *cmd, *fx = fixture("lockpair-record.trace.gz");

		assert_true(asprintf(&cmd, "zcat '%s' | head -n 40 > '%s'", fx, cut) > 0);
		assert_int_equal(system(cmd), 0);
		free(cmd);
		free(fx);
	}
	rc = sp_replay_build(cut, &o, &r, NULL, err, sizeof(err));
	if (rc) {
		assert_int_equal(rc, -ENODATA);
		assert_non_null(strstr(err, cut));
	} else {
		sp_replay_destroy(r);
	}
	unlink(junk);
	unlink(cut);
	free(junk);
	free(cut);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_fixture),
		cmocka_unit_test(test_report_fixture),
		cmocka_unit_test(test_dat_fixture),
		cmocka_unit_test(test_workload_file),
		cmocka_unit_test(test_dependency_not_gap),
		cmocka_unit_test(test_truncated_wait),
		cmocka_unit_test(test_kernel_locks),
		cmocka_unit_test(test_sched_model),
		cmocka_unit_test(test_preempt_and_join),
		cmocka_unit_test(test_rwlock_readers),
		cmocka_unit_test(test_rwsem_readers),
		cmocka_unit_test(test_one_release_many_wakes),
		cmocka_unit_test(test_frame_loop),
		cmocka_unit_test(test_frame_points),
		cmocka_unit_test(test_frame_points_drift),
		cmocka_unit_test(test_frame_points_after_section),
		cmocka_unit_test(test_reader_bursts),
		cmocka_unit_test(test_starved_holder_loops),
		cmocka_unit_test(test_back_to_back_sections),
		cmocka_unit_test(test_held_sections_back_to_back),
		cmocka_unit_test(test_kernel_back_to_back),
		cmocka_unit_test(test_kernel_back_to_back_before_wait),
		cmocka_unit_test(test_kernel_mutex_spin),
		cmocka_unit_test(test_kernel_rwsem_spin),
		cmocka_unit_test(test_kernel_section_mix),
		cmocka_unit_test(test_sleep_loop),
		cmocka_unit_test(test_reader_retry),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_timestamp_jump),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
