// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The anchors (lib/hosts/sim/sp_sim_anchors.c): what each keeps a thread
 * running through, seen in the simulator's trace. A thread switched out
 * while it holds a lock and has not blocked, slept or finished was
 * preempted; the tests count such preemptions per policy.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <superpass/sim.h>

#define MS 1000000ull
#define US 1000ull
#define MAXT 8

struct preempts {
	int on_cpu;                 /* one CPU: the thread it runs, -1 */
	int held[MAXT];             /* locks a thread holds */
	bool waited[MAXT];          /* its last acquisition came after a wait */
	uint64_t acquired_at[MAXT];
	bool off_cpu_by_choice[MAXT]; /* it blocked or finished since it last ran */
	int in_section;             /* preemptions of a lock holder */
	int after_wait;             /* of those, within @window of a waited acquisition */
	uint64_t window;
};

static void count_preempts(void *ctx, const struct sp_sim_trace *e)
{
	struct preempts *p = ctx;
	int t = e->thread;

	switch (e->type) {
	case SP_SIM_TR_SWITCH: {
		int prev = p->on_cpu;

		if (prev >= 0 && prev != t && p->held[prev] && !p->off_cpu_by_choice[prev]) {
			p->in_section++;
			if (p->waited[prev] && e->t - p->acquired_at[prev] < p->window)
				p->after_wait++;
		}
		p->on_cpu = t;
		if (t >= 0)
			p->off_cpu_by_choice[t] = false;
		break;
	}
	case SP_SIM_TR_BLOCK:
		p->waited[t] = true;
		p->off_cpu_by_choice[t] = true;
		break;
	case SP_SIM_TR_ACQUIRE:
		p->held[t]++;
		p->acquired_at[t] = e->t;
		p->off_cpu_by_choice[t] = false;
		break;
	case SP_SIM_TR_RELEASE:
		p->held[t]--;
		if (!p->held[t])
			p->waited[t] = false;
		break;
	case SP_SIM_TR_DONE:
		p->off_cpu_by_choice[t] = true;
		break;
	}
}

static struct preempts run_counted(const struct sp_sim_workload *w, enum sp_sim_policy pol,
				   uint64_t rseq_slice_ns, struct sp_sim_result *r)
{
	struct preempts p;
	struct sp_sim_opts o;

	memset(&p, 0, sizeof(p));
	p.on_cpu = -1;
	p.window = SP_SIM_DEFAULT_SLICE_NS;
	sp_sim_opts_default(&o);
	o.policy = pol;
	o.cpus = 1;
	o.duration_ns = 2000 * MS;
	o.rseq_slice_ns = rseq_slice_ns;
	o.trace = count_preempts;
	o.trace_ctx = &p;
	assert_int_equal(sp_sim_run(w, &o, r), 0);
	return p;
}

/* One CPU: "a" takes L for 20 us of CPU in each 230 us, beside a hog. */
static struct sp_sim_workload *short_sections(void)
{
	struct sp_sim_workload *w;
	int l, a, hog;

	assert_int_equal(sp_sim_workload_create("rseq", &w), 0);
	l = sp_sim_lock_add(w, "L", SP_SIM_UMUTEX);
	a = sp_sim_task_add(w, "a", SP_SIM_OTHER, 0, 1);
	hog = sp_sim_task_add(w, "hog", SP_SIM_OTHER, 0, 1);
	sp_sim_task_lock(w, a, l, SP_SIM_EXCL);
	sp_sim_task_run(w, a, 20 * US);
	sp_sim_task_unlock(w, a, l);
	sp_sim_task_run(w, a, 210 * US);
	sp_sim_task_run(w, hog, 10 * MS);
	return w;
}

/* A 20 us section under a 50 us extension is never preempted; under
 * the default 5 us one it still is; without the policy it is. */
static void test_rseq_slice_covers_short_sections(void **state)
{
	struct sp_sim_workload *w = short_sections();
	struct sp_sim_result r;
	struct preempts none, ext5, ext50;

	(void)state;
	none = run_counted(w, SP_SIM_POL_NONE, 0, &r);
	assert_int_equal(r.deferrals, 0);
	sp_sim_result_destroy(&r);
	ext5 = run_counted(w, SP_SIM_POL_RSEQ_SLICE, 0, &r);
	assert_true(r.deferrals > 0);
	sp_sim_result_destroy(&r);
	ext50 = run_counted(w, SP_SIM_POL_RSEQ_SLICE, 50 * US, &r);
	assert_true(r.deferrals > 0);
	sp_sim_result_destroy(&r);
	print_message("preempted in a section: none %d, 5 us %d, 50 us %d\n", none.in_section,
		      ext5.in_section, ext50.in_section);
	assert_true(none.in_section > 0);
	assert_true(ext5.in_section > 0);
	assert_int_equal(ext50.in_section, 0);
	sp_sim_workload_destroy(w);
}

/* An extension is bounded: a 2 ms section is still preempted. */
static void test_rseq_slice_is_bounded(void **state)
{
	struct sp_sim_workload *w;
	struct sp_sim_result r;
	struct preempts p;
	int l, a, hog;

	(void)state;
	assert_int_equal(sp_sim_workload_create("rseq-long", &w), 0);
	l = sp_sim_lock_add(w, "L", SP_SIM_UMUTEX);
	a = sp_sim_task_add(w, "a", SP_SIM_OTHER, 0, 1);
	hog = sp_sim_task_add(w, "hog", SP_SIM_OTHER, 0, 1);
	sp_sim_task_lock(w, a, l, SP_SIM_EXCL);
	sp_sim_task_run(w, a, 20 * MS);
	sp_sim_task_unlock(w, a, l);
	sp_sim_task_run(w, hog, 10 * MS);
	p = run_counted(w, SP_SIM_POL_RSEQ_SLICE, 50 * US, &r);
	assert_true(p.in_section > 0);
	assert_true(r.deferrals > 0);
	sp_sim_result_destroy(&r);
	sp_sim_workload_destroy(w);
}

/* One CPU: "a" and "b" take L for 1 ms in turn, so each often takes it
 * after a wait, beside two threads that wake every 500 us (wakeup
 * preemptions). */
static struct sp_sim_workload *contended(void)
{
	struct sp_sim_workload *w;
	int l, t[2], hog;

	assert_int_equal(sp_sim_workload_create("lavd", &w), 0);
	l = sp_sim_lock_add(w, "L", SP_SIM_UMUTEX);
	t[0] = sp_sim_task_add(w, "a", SP_SIM_OTHER, 0, 1);
	t[1] = sp_sim_task_add(w, "b", SP_SIM_OTHER, 0, 1);
	for (int i = 0; i < 2; i++) {
		sp_sim_task_lock(w, t[i], l, SP_SIM_EXCL);
		sp_sim_task_run(w, t[i], 1 * MS);
		sp_sim_task_unlock(w, t[i], l);
		sp_sim_task_run(w, t[i], 300 * US);
	}
	hog = sp_sim_task_add(w, "waker", SP_SIM_OTHER, 0, 2);
	sp_sim_task_run(w, hog, 200 * US);
	sp_sim_task_sleep(w, hog, 300 * US);
	return w;
}

/* lavd: a thread that took the lock after a wait is not preempted for a
 * slice (until it releases); without the rule it is. */
static void test_lavd_keeps_waited_holder(void **state)
{
	struct sp_sim_workload *w = contended();
	struct sp_sim_result r;
	struct preempts none, lavd;

	(void)state;
	none = run_counted(w, SP_SIM_POL_NONE, 0, &r);
	sp_sim_result_destroy(&r);
	lavd = run_counted(w, SP_SIM_POL_LAVD, 0, &r);
	assert_true(r.deferrals > 0);
	sp_sim_result_destroy(&r);
	print_message("preempted after a waited acquisition: none %d, lavd %d\n",
		      none.after_wait, lavd.after_wait);
	assert_true(none.after_wait > 0);
	assert_int_equal(lavd.after_wait, 0);
	sp_sim_workload_destroy(w);
}

/* lavd without a waited acquisition is the fair class unchanged. */
static void test_lavd_without_waits_changes_nothing(void **state)
{
	struct sp_sim_workload *w = short_sections();
	struct sp_sim_result a, b;

	(void)state;
	run_counted(w, SP_SIM_POL_NONE, 0, &a);
	run_counted(w, SP_SIM_POL_LAVD, 0, &b);
	assert_int_equal(b.deferrals, 0);
	assert_int_equal(a.ctx_switches, b.ctx_switches);
	assert_int_equal(a.threads[0].cpu_ns, b.threads[0].cpu_ns);
	sp_sim_result_destroy(&a);
	sp_sim_result_destroy(&b);
	sp_sim_workload_destroy(w);
}

static void test_anchor_names_and_limits(void **state)
{
	struct sp_sim_workload *w = short_sections();
	struct sp_sim_opts o;
	struct sp_sim_result r;

	(void)state;
	assert_string_equal(sp_sim_policy_name(SP_SIM_POL_RSEQ_SLICE), "rseq-slice");
	assert_string_equal(sp_sim_policy_name(SP_SIM_POL_LAVD), "lavd");
	assert_int_equal(sp_sim_policy_parse("rseq-slice"), SP_SIM_POL_RSEQ_SLICE);
	assert_int_equal(sp_sim_policy_parse("lavd"), SP_SIM_POL_LAVD);
	sp_sim_opts_default(&o);
	o.policy = SP_SIM_POL_RSEQ_SLICE;
	o.rseq_slice_ns = SP_SIM_MAX_RSEQ_SLICE_NS + 1;
	assert_int_equal(sp_sim_run(w, &o, &r), -EINVAL);
	sp_sim_workload_destroy(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rseq_slice_covers_short_sections),
		cmocka_unit_test(test_rseq_slice_is_bounded),
		cmocka_unit_test(test_lavd_keeps_waited_holder),
		cmocka_unit_test(test_lavd_without_waits_changes_nothing),
		cmocka_unit_test(test_anchor_names_and_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
