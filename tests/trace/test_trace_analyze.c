// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The analysis on hand-made traces whose every figure is known. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <superpass/trace.h>

#define SW(cpu, ts, pc, pp, ppr, st, nc, np, npr)                                            \
	"  " pc "-" #pp " [00" #cpu "] d..2. " ts ": sched_switch: prev_comm=" pc " prev_pid=" #pp \
	" prev_prio=" #ppr " prev_state=" st " ==> next_comm=" nc " next_pid=" #np             \
	" next_prio=" #npr "\n"
#define FX(cpu, ts, c, p, addr, op)                                                        \
	"  " c "-" #p " [00" #cpu "] ..... " ts ": sys_futex(uaddr: " addr ", op: " op          \
	", val: 2, utime: 0, uaddr2: 0, val3: 0)\n"
#define FXR(cpu, ts, c, p, ret) "  " c "-" #p " [00" #cpu "] ..... " ts ": sys_futex -> " ret "\n"
#define WK(cpu, ts, c, p, wc, wp)                                                          \
	"  " c "-" #p " [00" #cpu "] d..2. " ts ": sched_waking: comm=" wc " pid=" #wp         \
	" prio=120 target_cpu=000\n"

struct run {
	struct sp_trace_analysis *a;
	struct sp_trace_diag d;
};

static void analyse(struct run *r, const char *text, const char *const *comms)
{
	struct sp_trace_opts o;
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	sp_trace_opts_default(&o);
	o.critical_comms = comms;
	assert_int_equal(sp_trace_analysis_create(&o, &r->a), 0);
	sp_trace_diag_init(&r->d);
	assert_true(sp_trace_read_text(f, sp_trace_analysis_feed, r->a, &r->d) > 0);
	fclose(f);
	assert_int_equal(sp_trace_analysis_finish(r->a), 0);
}

/* Each test's analysis, destroyed after it whatever its outcome. */
static int run_setup(void **state)
{
	struct run *r = calloc(1, sizeof(*r));

	*state = r;
	return r ? 0 : -1;
}

static int run_teardown(void **state)
{
	struct run *r = *state;

	sp_trace_analysis_destroy(r->a);
	free(r);
	return 0;
}

static const struct sp_trace_result *result_of(struct run *r, const char *comm)
{
	for (size_t i = 0; i < sp_trace_nr_results(r->a); i++) {
		const struct sp_trace_result *res = sp_trace_result_get(r->a, i);

		if (!strcmp(sp_trace_thread_get(r->a, res->thread_id)->comm, comm))
			return res;
	}
	fail_msg("no result for %s", comm);
	return NULL;
}

static int32_t tid_of(struct run *r, uint32_t id)
{
	return sp_trace_thread_get(r->a, id)->tid;
}

static const char *const ui_only[] = { "ui", NULL };

/* @text analysed with ui selected: ui's result, which has @blockings. */
static const struct sp_trace_result *ui_blockings(struct run *r, const char *text,
						  uint64_t blockings)
{
	const struct sp_trace_result *res;

	analyse(r, text, ui_only);
	res = result_of(r, "ui");
	assert_int_equal(res->blockings, blockings);
	return res;
}

/* ui waits 5.1 ms; its holder h is runnable 4 ms behind a hog, then runs. */
static void test_runnable_holder(void **state)
{
	static const char trace[] =
		"# tracer: nop\n"
		SW(0, "0.999000", "h", 200, 139, "R+", "hog", 300, 120)
		FX(1, "1.000000", "ui", 100, "0x10", "0x80")
		SW(1, "1.000010", "ui", 100, 110, "S", "swapper/1", 0, 120)
		SW(0, "1.004000", "hog", 300, 120, "R", "h", 200, 139)
		FX(0, "1.005000", "h", 200, "0x10", "0x81")
		WK(0, "1.005001", "h", 200, "ui", 100)
		FXR(0, "1.005002", "h", 200, "0x1")
		SW(1, "1.005010", "swapper/1", 0, 120, "R", "ui", 100, 110)
		FXR(1, "1.005100", "ui", 100, "0x0");
	struct run *r = *state;
	const struct sp_trace_result *res;
	const struct sp_trace_blocker *b;
	const struct sp_trace_episode *e;

	res = ui_blockings(r, trace, 1);
	assert_int_equal(sp_trace_nr_results(r->a), 1);
	assert_int_equal(res->hist.max, 5100000);
	assert_int_equal(res->blocking_ns, 5100000);
	assert_int_equal(res->runnable_ns, 4000000);
	assert_int_equal(res->nr_blockers, 1);
	b = &res->blockers[0];
	assert_int_equal(tid_of(r, b->thread_id), 200);
	assert_int_equal(b->episodes, 1);
	assert_int_equal(b->blocking_ns, 5100000);
	assert_int_equal(b->split.ns[SP_TST_RUNNABLE], 4000000);
	assert_int_equal(b->split.ns[SP_TST_RUNNING], 1100000);
	assert_int_equal(b->split.ns[SP_TST_UNKNOWN], 0);
	/* who ran instead: the hog for all 4 ms, first */
	assert_true(b->nr_preemptors >= 1);
	assert_int_equal(tid_of(r, b->preemptors[0].thread_id), 300);
	assert_int_equal(b->preemptors[0].ns, 4000000);
	assert_int_equal(sp_trace_nr_episodes(r->a), 1);
	e = sp_trace_episode_get(r->a, 0);
	assert_int_equal(e->kind, SP_TWK_FUTEX);
	assert_int_equal(e->lock, 0x10);
	assert_int_equal(e->nr_segments, 1);
	assert_int_equal(e->segments[0].blocker_tid, 200);
	assert_int_equal(e->segments[0].chain_len, 0);
}

/* ui waits on 0x20 held by b1, which waits on 0x30 held by b2. */
static void test_chain(void **state)
{
	static const char trace[] =
		FX(1, "2.000000", "ui", 100, "0x20", "0x80")
		SW(1, "2.000005", "ui", 100, 110, "S", "b1", 201, 120)
		FX(1, "2.000010", "b1", 201, "0x30", "0x80")
		SW(1, "2.000020", "b1", 201, 120, "S", "swapper/1", 0, 120)
		FX(0, "2.003000", "b2", 202, "0x30", "0x81")
		WK(0, "2.003001", "b2", 202, "b1", 201)
		FXR(0, "2.003002", "b2", 202, "0x1")
		SW(1, "2.003010", "swapper/1", 0, 120, "R", "b1", 201, 120)
		FXR(1, "2.003020", "b1", 201, "0x0")
		FX(1, "2.004000", "b1", 201, "0x20", "0x81")
		WK(1, "2.004001", "b1", 201, "ui", 100)
		FXR(1, "2.004002", "b1", 201, "0x1")
		SW(1, "2.004010", "b1", 201, 120, "S", "ui", 100, 110)
		FXR(1, "2.004020", "ui", 100, "0x0");
	struct run *r = *state;
	const struct sp_trace_result *res;
	const struct sp_trace_blocker *b;
	const struct sp_trace_episode *e;

	res = ui_blockings(r, trace, 1);
	assert_int_equal(res->hist.max, 4020000);
	b = &res->blockers[0];
	assert_int_equal(tid_of(r, b->thread_id), 201);
	assert_int_equal(b->split.ns[SP_TST_UNKNOWN], 5000);
	assert_int_equal(b->split.ns[SP_TST_RUNNING], 15000 + 1000000);
	assert_int_equal(b->split.ns[SP_TST_BLOCKED], 2981000);
	assert_int_equal(b->split.ns[SP_TST_RUNNABLE], 9000);
	assert_int_equal(b->split.ns[SP_TST_SLEEPING], 10000);
	e = sp_trace_episode_get(r->a, 0);
	assert_int_equal(e->segments[0].chain_len, 1);
	assert_int_equal(e->segments[0].chain[0], 202);
	/* b2, behind b1, over b1's wait on it (2.000010..2.003020): first
	 * seen at 2.003000, running from there (its futex calls). */
	assert_int_equal(e->segments[0].chain_start_ns[0], 2000010000ull);
	assert_int_equal(e->segments[0].chain_end_ns[0], 2003020000ull);
	assert_int_equal(e->segments[0].chain_split[0].ns[SP_TST_RUNNING], 20000);
	assert_int_equal(e->segments[0].chain_split[0].ns[SP_TST_UNKNOWN], 2990000);
	assert_int_equal(e->segments[0].chain_split[0].ns[SP_TST_RUNNABLE], 0);
}

/* One acquisition waits twice (EAGAIN, then a real wait) while the lock
 * passes from h1 to h2; a timed-out wait is no episode. */
static void test_merge_handoff_timeout(void **state)
{
	static const char trace[] =
		FX(1, "3.000000", "ui", 100, "0x40", "0x80")
		FXR(1, "3.000002", "ui", 100, "0xfffffffffffffff5")
		FX(1, "3.000010", "ui", 100, "0x40", "0x80")
		SW(1, "3.000020", "ui", 100, 110, "S", "swapper/1", 0, 120)
		FX(0, "3.001000", "h1", 301, "0x40", "0x81")
		WK(0, "3.001001", "h1", 301, "h2", 302)
		FXR(0, "3.001002", "h1", 301, "0x1")
		SW(0, "3.001010", "h1", 301, 120, "S", "h2", 302, 120)
		FX(0, "3.003000", "h2", 302, "0x40", "0x81")
		WK(0, "3.003001", "h2", 302, "ui", 100)
		FXR(0, "3.003002", "h2", 302, "0x1")
		SW(1, "3.003010", "swapper/1", 0, 120, "R", "ui", 100, 110)
		FXR(1, "3.003020", "ui", 100, "0x0")
		/* a later timed wait that times out */
		FX(1, "3.100000", "ui", 100, "0x50", "0x189")
		FXR(1, "3.110000", "ui", 100, "0xffffffffffffff92");
	struct run *r = *state;
	const struct sp_trace_result *res;
	const struct sp_trace_episode *e;
	struct sp_trace_counts c;

	res = ui_blockings(r, trace, 1);
	assert_int_equal(res->hist.max, 3020000);
	e = sp_trace_episode_get(r->a, 0);
	/* the EAGAIN try (no waker), then h1 up to its release, then h2 */
	assert_int_equal(e->nr_segments, 3);
	assert_int_equal(e->segments[0].blocker_tid, 0);
	assert_int_equal(e->segments[1].blocker_tid, 301);
	assert_int_equal(e->segments[1].start_ns, 3000010000ull);
	assert_int_equal(e->segments[1].end_ns, 3001000000ull);
	assert_int_equal(e->segments[2].blocker_tid, 302);
	assert_int_equal(e->segments[2].end_ns, 3003020000ull);
	assert_int_equal(res->nr_blockers, 2);
	assert_int_equal(tid_of(r, res->blockers[0].thread_id), 302); /* 2.02 ms > 0.99 ms */
	assert_int_equal(res->blockers[0].blocking_ns, 2020000);
	assert_int_equal(res->blockers[1].blocking_ns, 990000);
	sp_trace_analysis_counts(r->a, &c);
	assert_int_equal(c.timeouts, 1);
}

/* Kernel locks: a mutex wait is an episode, spinlocks are off by default,
 * and the rt_mutex inside FUTEX_LOCK_PI is not counted twice. */
static void test_kernel_locks(void **state)
{
	static const char trace[] =
		"  ui-100 [001] ..... 4.000000: contention_begin: 0xffff0001 (flags=MUTEX|SPIN)\n"
		"  ui-100 [001] ..... 4.000005: contention_begin: 0xffff0001 (flags=MUTEX)\n"
		SW(1, "4.000010", "ui", 100, 110, "D", "swapper/1", 0, 120)
		WK(0, "4.002000", "k", 400, "ui", 100)
		SW(1, "4.002010", "swapper/1", 0, 120, "R", "ui", 100, 110)
		"  ui-100 [001] ..... 4.002020: contention_end: 0xffff0001 (ret=0)\n"
		"  ui-100 [001] d..1. 4.003000: contention_begin: 0xffff0002 (flags=SPIN)\n"
		"  ui-100 [001] d..1. 4.003100: contention_end: 0xffff0002 (ret=0)\n"
		FX(1, "4.010000", "ui", 100, "0x60", "0x86")
		"  ui-100 [001] ..... 4.010005: contention_begin: 0xffff0003 (flags=RT)\n"
		SW(1, "4.010010", "ui", 100, 110, "S", "swapper/1", 0, 120)
		FX(0, "4.011000", "p", 401, "0x60", "0x87")
		WK(0, "4.011001", "p", 401, "ui", 100)
		FXR(0, "4.011002", "p", 401, "0x0")
		SW(1, "4.011010", "swapper/1", 0, 120, "R", "ui", 100, 110)
		"  ui-100 [001] ..... 4.011015: contention_end: 0xffff0003 (ret=0)\n"
		FXR(1, "4.011020", "ui", 100, "0x0");
	struct run *r = *state;
	const struct sp_trace_result *res;

	res = ui_blockings(r, trace, 2);
	assert_int_equal(res->nr_locks, 2);
	assert_int_equal(res->locks[0].kind, SP_TWK_MUTEX);
	assert_int_equal(res->locks[0].total_ns, 2020000);
	assert_int_equal(res->locks[1].kind, SP_TWK_FUTEX);
	assert_int_equal(res->locks[1].total_ns, 1020000);
	assert_int_equal(tid_of(r, res->blockers[0].thread_id), 400);
}

/* Lost events, a reused pid, a timestamp out of order, a bad line, an
 * unknown event: counted, never fatal. */
static void test_damage(void **state)
{
	static const char trace[] =
		FX(1, "5.000000", "ui", 100, "0x70", "0x80")
		"CPU:0 [LOST 17 EVENTS]\n"
		WK(0, "5.001000", "h", 200, "ui", 100)
		FXR(1, "5.001100", "ui", 100, "0x0")
		"  x-1 [000] ..... 4.000000: sched_waking: comm=y pid=2 prio=120 target_cpu=000\n"
		"this is not a trace line\n"
		"  x-1 [000] ..... 5.002000: irq_handler_entry: irq=3 name=eth0\n"
		"  x-1 [000] ..... 5.002001: sched_waking: comm=y prio=120\n"
		"  ui-100 [001] ..... 5.003000: sched_process_exit: comm=ui pid=100 prio=120\n"
		SW(1, "5.003010", "ui", 100, 110, "X", "swapper/1", 0, 120)
		"  p-7 [000] ..... 5.004000: sched_process_fork: comm=p pid=7 child_comm=p child_pid=100\n"
		FX(1, "5.005000", "ui", 100, "0x80", "0x80")
		WK(0, "5.006000", "h", 200, "ui", 100)
		FXR(1, "5.006100", "ui", 100, "0x0");
	struct run *r = *state;
	struct sp_trace_counts c;
	const struct sp_trace_episode *e;
	size_t nr;

	analyse(r, trace, ui_only);
	assert_int_equal(r->d.skipped[SP_TRSK_LOST], 1);
	assert_int_equal(r->d.lost_events, 17);
	assert_int_equal(r->d.skipped[SP_TRSK_OUT_OF_ORDER], 1);
	assert_int_equal(r->d.first_line[SP_TRSK_OUT_OF_ORDER][0], 5);
	assert_int_equal(r->d.skipped[SP_TRSK_UNPARSABLE], 1);
	assert_int_equal(r->d.first_line[SP_TRSK_UNPARSABLE][0], 6);
	assert_int_equal(r->d.skipped[SP_TRSK_UNKNOWN_EVENT], 1);
	assert_int_equal(r->d.skipped[SP_TRSK_MISSING_FIELD], 1);
	assert_int_equal(r->d.first_line[SP_TRSK_MISSING_FIELD][0], 8);
	sp_trace_analysis_counts(r->a, &c);
	assert_int_equal(c.pid_reuse, 1);
	/* two threads with tid 100, one episode each; the first saw lost events */
	nr = sp_trace_nr_results(r->a);
	assert_int_equal(nr, 2);
	assert_int_equal(sp_trace_nr_episodes(r->a), 2);
	e = sp_trace_episode_get(r->a, 0);
	assert_true(e->lost);
	assert_int_not_equal(sp_trace_episode_get(r->a, 0)->waiter_id,
			     sp_trace_episode_get(r->a, 1)->waiter_id);
	assert_false(sp_trace_episode_get(r->a, 1)->lost);
}

/* A line over the reader's limit and a last line without its newline. */
static void test_long_and_truncated(void **state)
{
	size_t big = 100 * 1024;
	char *text = malloc(big + 512);
	struct run *r = *state;

	assert_non_null(text);
	strcpy(text, FX(1, "6.000000", "ui", 100, "0x90", "0x80"));
	memset(text + strlen(text), 'x', big);
	strcpy(text + strlen(text) - 0, "\n" WK(0, "6.001000", "h", 200, "ui", 100));
	strcat(text, "  ui-100 [001] ..... 6.001100: sys_futex -> 0x0");
	analyse(r, text, ui_only);
	assert_int_equal(r->d.skipped[SP_TRSK_TOO_LONG], 1);
	assert_int_equal(r->d.first_line[SP_TRSK_TOO_LONG][0], 2);
	assert_true(r->d.truncated);
	assert_int_equal(result_of(r, "ui")->blockings, 1);
	free(text);
}

/* No selection: every thread that waits. */
static void test_select_all_and_tids(void **state)
{
	static const char trace[] =
		FX(1, "7.000000", "a", 10, "0x10", "0x80")
		FX(0, "7.000001", "b", 11, "0x20", "0x80")
		WK(0, "7.001000", "c", 12, "a", 10)
		FXR(1, "7.001100", "a", 10, "0x0")
		WK(1, "7.002000", "c", 12, "b", 11)
		FXR(0, "7.002100", "b", 11, "0x0");
	struct sp_trace_opts o;
	struct sp_trace_analysis *a;
	int32_t tid = 11;
	FILE *f;
	struct run *r = *state;

	analyse(r, trace, NULL);
	assert_int_equal(sp_trace_nr_results(r->a), 2);
	/* sorted by blocking time: b (2.1 ms) first */
	assert_int_equal(tid_of(r, sp_trace_result_get(r->a, 0)->thread_id), 11);
	sp_trace_analysis_destroy(r->a);
	r->a = NULL;

	sp_trace_opts_default(&o);
	o.critical_tids = &tid;
	o.nr_critical_tids = 1;
	assert_int_equal(sp_trace_analysis_create(&o, &a), 0);
	f = fmemopen((void *)trace, sizeof(trace) - 1, "r");
	sp_trace_diag_init(&r->d);
	assert_true(sp_trace_read_text(f, sp_trace_analysis_feed, a, &r->d) > 0);
	fclose(f);
	sp_trace_analysis_finish(a);
	assert_int_equal(sp_trace_nr_results(a), 1);
	assert_int_equal(sp_trace_thread_get(a, sp_trace_result_get(a, 0)->thread_id)->tid, 11);
	sp_trace_analysis_destroy(a);
}

/* Appends one line of text to a growing trace. */
struct text {
	char *s;
	size_t n, cap;
};

static void __attribute__((format(printf, 2, 3))) add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
		va_end(ap);
		assert_true(n >= 0);
		if ((size_t)n < t->cap - t->n)
			break;
		t->cap = t->cap * 2 + (size_t)n + 1;
		t->s = realloc(t->s, t->cap);
		assert_non_null(t->s);
	}
	t->n += (size_t)n;
}

static void add_sw(struct text *t, int cpu, double ts, const char *pc, int pp, const char *st,
		   const char *nc, int np)
{
	add(t, "  %s-%d [%03d] d..2. %.6f: sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 "
	       "prev_state=%s ==> next_comm=%s next_pid=%d next_prio=120\n",
	    pc, pp, cpu, ts, pc, pp, st, nc, np);
}

static void add_fx(struct text *t, int cpu, double ts, const char *c, int p, const char *op)
{
	add(t, "  %s-%d [%03d] ..... %.6f: sys_futex(uaddr: 0x10, op: %s, val: 2, utime: 0, "
	       "uaddr2: 0, val3: 0)\n", c, p, cpu, ts, op);
}

static void add_fxr(struct text *t, int cpu, double ts, const char *c, int p)
{
	add(t, "  %s-%d [%03d] ..... %.6f: sys_futex -> 0x0\n", c, p, cpu, ts);
}

static void add_wk(struct text *t, int cpu, double ts, const char *c, int p, const char *wc,
		   int wp)
{
	add(t, "  %s-%d [%03d] d..2. %.6f: sched_waking: comm=%s pid=%d prio=120 "
	       "target_cpu=001\n", c, p, cpu, ts, wc, wp);
}

/* x and y take turns on CPU 0 every 10 us from @from: @n events that
 * age the history (the analysis prunes it as it grows). */
static double add_filler(struct text *t, double from, int n)
{
	for (int i = 0; i < n; i++, from += 0.00001)
		add_sw(t, 0, from, i & 1 ? "y" : "x", i & 1 ? 302 : 301, "R", i & 1 ? "x" : "y",
		       i & 1 ? 301 : 302);
	return from;
}

/* ui's wait on 0x10 from @t0, ended by h's release at @t0 + 0.9 ms, ui
 * back at @t0 + 1.01 ms. */
static void add_wait(struct text *t, double t0)
{
	add_fx(t, 1, t0, "ui", 100, "0x80");
	add_sw(t, 1, t0 + 0.00001, "ui", 100, "S", "hog", 300);
	add_fx(t, 0, t0 + 0.0009, "h", 200, "0x81");
	add_wk(t, 0, t0 + 0.000901, "h", 200, "ui", 100);
	add_sw(t, 1, t0 + 0.001, "hog", 300, "R", "ui", 100);
	add_fxr(t, 1, t0 + 0.00101, "ui", 100);
}

/* Two waits of ui on one word 39 ms apart, ui running 10 ms between them:
 * two acquisitions, whatever the history between them went through (here:
 * 2000 other events, then ui preempted 10 times, which grows its timeline
 * until it is pruned). The pruning once dropped the 10 ms of running
 * that part them, and the two were merged into one 41 ms episode. */
static void test_no_merge_across_pruned_history(void **state)
{
	struct text t = { 0 };
	struct run *r = *state;
	const struct sp_trace_result *res;
	double ts;

	add_wait(&t, 1.0);
	add_sw(&t, 1, 1.011, "ui", 100, "R", "hog", 300); /* ran 10 ms */
	ts = add_filler(&t, 1.0111, 2000);
	for (int i = 0; i < 10; i++, ts += 0.00002) { /* 1 us on the CPU each */
		add_sw(&t, 1, ts, "hog", 300, "R", "ui", 100);
		add_sw(&t, 1, ts + 0.000001, "ui", 100, "R", "hog", 300);
	}
	add_sw(&t, 1, 1.03999, "hog", 300, "R", "ui", 100);
	add_wait(&t, 1.04);
	res = ui_blockings(r, t.s, 2);
	assert_int_equal(res->hist.max, 1010000);
	free(t.s);
}

/* ui's blocker exits during the wait and 10000 events pass before ui gets
 * the lock: the dead blocker's history is still there for the split. */
static void test_dead_blocker_history_kept(void **state)
{
	struct text t = { 0 };
	struct run *r = *state;
	const struct sp_trace_result *res;
	const struct sp_trace_blocker *b;
	double ts;

	add_sw(&t, 0, 0.9, "h", 200, "R", "hog", 300); /* h runnable from 0.9 */
	add_fx(&t, 1, 1.0, "ui", 100, "0x80");
	add_sw(&t, 1, 1.00001, "ui", 100, "S", "swapper/1", 0);
	add_sw(&t, 0, 1.004, "hog", 300, "R", "h", 200); /* 4 ms runnable */
	add_wk(&t, 0, 1.005, "h", 200, "ui", 100);       /* 1 ms running */
	add_sw(&t, 0, 1.005001, "h", 200, "X", "hog", 300);
	ts = add_filler(&t, 1.0051, 10000);
	add_sw(&t, 1, ts, "swapper/1", 0, "R", "ui", 100);
	add_fxr(&t, 1, ts + 0.00001, "ui", 100);
	res = ui_blockings(r, t.s, 1);
	assert_int_equal(res->nr_blockers, 1);
	b = &res->blockers[0];
	assert_int_equal(tid_of(r, b->thread_id), 200);
	assert_int_equal(b->split.ns[SP_TST_RUNNABLE], 4000000);
	assert_int_equal(b->split.ns[SP_TST_RUNNING], 1001000);
	free(t.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_runnable_holder, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(test_chain, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(test_merge_handoff_timeout, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(test_kernel_locks, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(test_damage, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(test_long_and_truncated, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(test_select_all_and_tids, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(test_no_merge_across_pruned_history, run_setup, run_teardown),
		cmocka_unit_test_setup_teardown(test_dead_blocker_history_kept, run_setup, run_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
