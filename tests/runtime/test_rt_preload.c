// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The interposer on an unmodified program: sp_victim is run under
 * LD_PRELOAD=libsuperpass-preload.so with SUPERPASS_CRITICAL=main. The
 * victim itself checks, with sched_getattr on its own threads, that each
 * lock holder was boosted and then exactly restored; here we also check the
 * SUPERPASS_STATS JSON and the actuator log it leaves behind.
 * Under ASan/TSan the sanitizer runtime is preloaded first (SP_SAN_RUNTIME).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sp_test_run.h"
#include "sp_test_util.h"

static long json_num(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(json, pat);
	return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

/* Runs @argv under the interposer with SUPERPASS_CRITICAL=main and the
 * settings @extra (up to 4); returns its exit status, output in @out. */
static int run_preloaded(char *const argv[], char *const extra[], char *out, size_t cap)
{
	char preload[1024];
	char *envp[7] = { preload, "SUPERPASS_CRITICAL=main" };
	int status;

	sp_test_preload_env(preload, sizeof(preload), SP_SAN_RUNTIME, SP_PRELOAD_PATH);
	for (int i = 0; i < 4 && extra && extra[i]; i++)
		envp[2 + i] = extra[i];
	status = sp_test_run_captured(argv, envp, out, cap);
	printf("%s", out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Runs the victim; returns its exit status, output in @out. */
static int run_victim(const char *polls, const char *extra_env, const char *stats, const char *log, char *out,
		      size_t cap)
{
	char st[600], lg[600];
	char *extra[] = { st, lg, (char *)extra_env, NULL };
	char *argv[] = { SP_VICTIM_PATH, (char *)polls, NULL };

	snprintf(st, sizeof(st), "SUPERPASS_STATS=%s", stats);
	snprintf(lg, sizeof(lg), "SUPERPASS_LOG=%s", log);
	return run_preloaded(argv, extra, out, cap);
}

/* A library whose constructor runs before the interposer's (ld.so starts
 * the program's libraries first) takes and releases a mutex and a read
 * lock: the interposer has not resolved glibc's functions yet, and its
 * stand-ins must do it (lib/hosts/preload/sp_real_next.c). */
static void test_lock_before_interposer_constructor(void **state)
{
	char out[4096];
	char *argv[] = { SP_EARLY_PATH, NULL };

	(void)state;
	assert_int_equal(run_preloaded(argv, NULL, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "sp_early: constructor locks rc=0"));
	assert_non_null(strstr(out, "sp_early: main locks rc=0"));
}

static void test_unmodified_program_boosted_and_restored(void **state)
{
	char stats[] = "/tmp/sp-stats-XXXXXX", log[] = "/tmp/sp-log-XXXXXX";
	char out[8192];
	const char *json, *lg;
	int fd1 = mkstemp(stats), fd2 = mkstemp(log);

	(void)state;
	assert_true(fd1 >= 0 && fd2 >= 0);
	close(fd1);
	close(fd2);
	assert_int_equal(run_victim("30000", "SUPERPASS_QUIET=0", stats, log, out, sizeof(out)), 0);
	/* the victim saw its three holders boosted and restored */
	assert_non_null(strstr(out, "holder tid="));
	assert_non_null(strstr(out, "failures=0"));
	json = sp_test_slurp(stats, 0);
	assert_non_null(json);
	printf("%s", json ? json : "");
	assert_non_null(strstr(json, "\"mode\": \"fifo\""));
	assert_true(json_num(json, "act_fast_tracks") >= 3);
	assert_int_equal(json_num(json, "act_fast_tracks"), json_num(json, "act_restores"));
	assert_int_equal(json_num(json, "act_boosted_now"), 0);
	assert_int_equal(json_num(json, "boosted_now"), 0);
	assert_true(json_num(json, "blockings") >= 2);
	lg = sp_test_slurp(log, 0);
	assert_non_null(lg);
	printf("%s", lg ? lg : "");
	assert_non_null(strstr(lg, "fast_track"));
	assert_non_null(strstr(lg, "restore"));
	unlink(stats);
	unlink(log);
}

/* Runs @prog (a victim that checks its holders itself) under the
 * interposer with its statistics in a temporary file: asserts it passed
 * and that every fast track was restored; returns the statistics
 * (sp_test_slurp's buffer) and, in @out, its output. */
static const char *run_victim_checked(const char *prog, char *out, size_t cap)
{
	char stats[] = "/tmp/sp-stats-XXXXXX";
	char st[600];
	char *extra[] = { st, NULL };
	char *argv[] = { (char *)prog, "30000", NULL };
	const char *json;
	int fd = mkstemp(stats);

	assert_true(fd >= 0);
	close(fd);
	snprintf(st, sizeof(st), "SUPERPASS_STATS=%s", stats);
	assert_int_equal(run_preloaded(argv, extra, out, cap), 0);
	assert_non_null(strstr(out, "failures=0"));
	json = sp_test_slurp(stats, 0);
	unlink(stats);
	assert_non_null(json);
	assert_int_equal(json_num(json, "act_fast_tracks"), json_num(json, "act_restores"));
	assert_int_equal(json_num(json, "boosted_now"), 0);
	return json;
}

/* C11 threads: mtx_lock() reaches the runtime, the holder is fast-tracked
 * and restored, and trylock/timedlock keep their C11 results. */
static void test_c11_threads_boosted_and_restored(void **state)
{
	char out[8192];
	const char *json;

	(void)state;
	json = run_victim_checked(SP_VICTIM_C11_PATH, out, sizeof(out));
	assert_non_null(strstr(out, "holder tid="));
	assert_true(json_num(json, "blockings") >= 1);
	assert_true(json_num(json, "act_fast_tracks") >= 1);
}

/* Futex words driven through syscall(): a 0/1/2 word's holder is boosted
 * once it is a candidate (its second wait), a PI word's at once. */
static void test_futex_words_boosted_and_restored(void **state)
{
	char out[8192];
	const char *json;

	(void)state;
	json = run_victim_checked(SP_VICTIM_FUTEX_PATH, out, sizeof(out));
	assert_non_null(strstr(out, "round 0 (0/1/2 word): boosted=0 restored=1"));
	assert_non_null(strstr(out, "round 1 (0/1/2 word): boosted=1 restored=1"));
	assert_non_null(strstr(out, "round 2 (PI word): boosted=1 restored=1"));
	assert_true(json_num(json, "blockings") >= 3);
	assert_true(json_num(json, "act_fast_tracks") >= 2);
}

static void test_observe_mode_boosts_nobody(void **state)
{
	char stats[] = "/tmp/sp-stats-XXXXXX", log[] = "/tmp/sp-log-XXXXXX";
	char out[8192];
	const char *json;
	int fd1 = mkstemp(stats), fd2 = mkstemp(log);

	(void)state;
	close(fd1);
	close(fd2);
	/* nobody boosted: the victim reports failure after its bounded wait */
	assert_int_equal(run_victim("500", "SUPERPASS_MODE=observe", stats, log, out, sizeof(out)), 1);
	json = sp_test_slurp(stats, 0);
	assert_non_null(json);
	assert_non_null(strstr(json, "\"mode\": \"observe\""));
	assert_true(json_num(json, "blockings") >= 2);
	assert_true(json_num(json, "grants") >= 2);
	unlink(stats);
	unlink(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unmodified_program_boosted_and_restored),
		cmocka_unit_test(test_c11_threads_boosted_and_restored),
		cmocka_unit_test(test_futex_words_boosted_and_restored),
		cmocka_unit_test(test_observe_mode_boosts_nobody),
		cmocka_unit_test(test_lock_before_interposer_constructor),
	};

	if (geteuid() != 0) {
		printf("SKIP: needs CAP_SYS_NICE (root) to grant SCHED_FIFO\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
