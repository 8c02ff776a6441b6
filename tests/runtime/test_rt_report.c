// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The boost invariant the core checks at destruction (always on, reported
 * on stderr, never asserted): a line for each broken part, and nothing
 * when it holds, as after a real fast track and restore.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <superpass/core.h>
#include <superpass/stats.h>

/* lib/core/sp_internal.h: the check sp_core_destroy makes. */
int sp_core_report_boosts(const struct sp_stats *st);

#define HOLDER 101
#define WAITER 102
#define LOCK 0x1000

static int fast_tracks, restores;

static uint64_t fake_now(void *ctx)
{
	static uint64_t t;

	(void)ctx;
	return t += 1000;
}

static int fake_fast_track(void *ctx, sp_tid_t tid)
{
	(void)ctx;
	assert_int_equal(tid, HOLDER);
	fast_tracks++;
	return 0;
}

static int fake_restore(void *ctx, sp_tid_t tid)
{
	(void)ctx;
	assert_int_equal(tid, HOLDER);
	restores++;
	return 0;
}

/* What was written to stderr between stderr_begin and stderr_end. */
static int saved_fd = -1;
static FILE *capture;
static char captured[1024];

static void stderr_begin(void)
{
	fflush(stderr);
	capture = tmpfile();
	assert_non_null(capture);
	saved_fd = dup(STDERR_FILENO);
	assert_true(saved_fd >= 0);
	assert_true(dup2(fileno(capture), STDERR_FILENO) >= 0);
}

static const char *stderr_end(void)
{
	size_t n;

	fflush(stderr);
	assert_true(dup2(saved_fd, STDERR_FILENO) >= 0);
	close(saved_fd);
	rewind(capture);
	n = fread(captured, 1, sizeof(captured) - 1, capture);
	captured[n] = '\0';
	fclose(capture);
	return captured;
}

static void test_broken_counts_are_reported(void **state)
{
	struct sp_stats st = { 0 };
	const char *out;
	int n;

	(void)state;
	st.fast_tracks = 3;
	st.restores = 1;
	st.boosted_now = 1;
	stderr_begin();
	n = sp_core_report_boosts(&st);
	out = stderr_end();
	assert_int_equal(n, 2);
	assert_non_null(strstr(out, "superpass: boost counts do not add up: fast_tracks 3 != "
				    "restores 1 + boosted_now 1\n"));
	assert_non_null(strstr(out, "superpass: 1 tasks still fast-tracked after the last "
				    "restore\n"));

	/* Balanced but one still boosted: only the second line. */
	st.fast_tracks = 2;
	stderr_begin();
	n = sp_core_report_boosts(&st);
	out = stderr_end();
	assert_int_equal(n, 1);
	assert_null(strstr(out, "do not add up"));
	assert_non_null(strstr(out, "superpass: 1 tasks still fast-tracked"));
}

static void test_sound_counts_are_silent(void **state)
{
	struct sp_stats st = { 0 };

	(void)state;
	st.fast_tracks = st.restores = 7;
	stderr_begin();
	assert_int_equal(sp_core_report_boosts(&st), 0);
	assert_string_equal(stderr_end(), "");
}

/* A real fast track, still in force when the core goes: its destruction
 * restores it, and then the check has nothing to say. */
static void test_destroy_after_a_boost_is_silent(void **state)
{
	struct sp_host_ops ops = { .now_ns = fake_now, .fast_track = fake_fast_track,
				   .restore = fake_restore };
	struct sp_core *core;
	struct sp_stats st;

	(void)state;
	fast_tracks = restores = 0;
	assert_int_equal(sp_core_create(NULL, &ops, NULL, &core), 0);
	assert_int_equal(sp_task_set_critical(core, WAITER, true), 0);
	assert_int_equal(sp_lock_acquired(core, HOLDER, LOCK, SP_HOLD_EXCL), 0);
	assert_int_equal(sp_lock_blocked(core, WAITER, LOCK, SP_HOLD_EXCL), 0);
	sp_core_stats(core, &st);
	assert_int_equal(st.boosted_now, 1);
	assert_int_equal(fast_tracks, 1);
	stderr_begin();
	sp_core_destroy(core);
	assert_string_equal(stderr_end(), "");
	assert_int_equal(restores, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_broken_counts_are_reported),
		cmocka_unit_test(test_sound_counts_are_silent),
		cmocka_unit_test(test_destroy_after_a_boost_is_silent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
