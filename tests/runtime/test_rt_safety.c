// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The interposer is safe to preload anywhere (issues 8 and 13): secure-
 * execution mode, no worker thread without a critical wait (unshare -U and
 * setpriv run), credential changes with the worker alive, no fast track
 * across exec, posix_spawn or fork, the files it writes, every bad
 * setting named on stderr once, and a statistics file without %p shared
 * by the processes of one command (a wrapper's). The programs run are tests/runtime/sp_probe
 * (preloaded, or linked to the interposer for the set-user-ID case) and
 * setpriv/unshare from util-linux. Every wait is a bounded poll.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sp_test_run.h"
#include "sp_test_util.h"

#define OUT_CAP 65536

static char dir[64];
static char preload_env[1024];
static char out[OUT_CAP];

static int skip_test(const char *why)
{
	const char *code = getenv("SUPERPASS_SKIP_CODE");

	printf("SKIP: %s\n", why);
	return code ? atoi(code) : 77;
}

/*
 * Runs argv with exactly the environment @env (NULL-terminated), stdout and
 * stderr into out[]; returns the exit status, or 128 + the signal.
 */
static int run(char *const argv[], char *const env_in[])
{
	/* @env_in, and TSAN_OPTIONS (its suppressions) when set. */
	static char tsan[1200];
	char *env[16];
	size_t ne = 0;
	int status;

	while (env_in[ne] && ne < 14) {
		env[ne] = env_in[ne];
		ne++;
	}
	if (getenv("TSAN_OPTIONS")) {
		snprintf(tsan, sizeof(tsan), "TSAN_OPTIONS=%s", getenv("TSAN_OPTIONS"));
		env[ne++] = tsan;
	}
	env[ne] = NULL;
	status = sp_test_run_captured(argv, env, out, OUT_CAP);
	printf("--- %s %s: %s", argv[0], argv[1] ? argv[1] : "", out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The probe (or another program) preloaded, with SUPERPASS_CRITICAL=main
 * and up to four more settings. */
static int run_preloaded(char *const argv[], const char *e1, const char *e2, const char *e3,
			 const char *e4)
{
	char *env[] = { preload_env, "SUPERPASS_CRITICAL=main", "PATH=/usr/bin:/bin",
			(char *)e1, (char *)e2, (char *)e3, (char *)e4, NULL };

	return run(argv, env);
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void put(const char *path, const char *text, uid_t owner, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchown(fd, owner, owner), 0);
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

/* Entries of dir[] named PREFIX*SUFFIX (any if @suffix is NULL); the path
 * of the last in @last. */
static int count_entries(const char *prefix, const char *suffix, char *last, size_t cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		if (suffix && (l < strlen(suffix) || strcmp(e->d_name + l - strlen(suffix), suffix)))
			continue;
		n++;
		if (last)
			snprintf(last, cap, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	return n;
}

static void path_in(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "%s/%s", dir, name);
}

/* ---- 1. secure-execution mode ---- */

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), o = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;

	assert_true(in >= 0 && o >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(o, buf, (size_t)n), n);
	close(in);
	close(o);
}

static void test_secure_mode_takes_nothing_from_environment(void **state)
{
	char probe[128], suid[128], secret[128], log[128], stats[128], log2[128];
	char e_stats[200], e_log[200];
	char *setpriv_argv[] = { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
				 "--clear-groups", suid, "contend", "300", "none", NULL };
	char *plain_argv[] = { probe, "contend", "20000", "none", NULL };
	char *env[] = { "SUPERPASS_CRITICAL=main", "SUPERPASS_PRIO=50", e_stats, e_log, NULL };
	struct stat st;
	const char *s;

	(void)state;
	if (getenv("SP_TEST_EMULATOR")) {
		/* binfmt_misc starts the emulator, not the program: without
		 * its C flag (Debian's qemu-user-static has none) set-user-ID
		 * is not honoured, so there is no secure-execution mode. */
		printf("SKIP test_secure_mode_takes_nothing_from_environment: under %s "
		       "set-user-ID is not honoured (binfmt_misc runs the emulator)\n",
		       getenv("SP_TEST_EMULATOR"));
		skip();
	}
	path_in(probe, sizeof(probe), "probe");
	path_in(suid, sizeof(suid), "probe-suid");
	path_in(secret, sizeof(secret), "root-only");
	path_in(log, sizeof(log), "new.log");
	path_in(stats, sizeof(stats), "stats.json");
	path_in(log2, sizeof(log2), "ok.log");
	/* The probe linked to the interposer: ld.so ignores LD_PRELOAD paths in
	 * secure-execution mode, /etc/ld.so.preload would reach the whole
	 * machine, and a DT_NEEDED is loaded either way. */
	copy_file(SP_PROBE_LINKED_PATH, probe);
	copy_file(SP_PROBE_LINKED_PATH, suid);
	assert_int_equal(chown(suid, 0, 0), 0);
	assert_int_equal(chmod(suid, 04755), 0);
	put(secret, "root's\n", 0, 0600);

	/* As nobody, through the set-user-ID root copy. */
	snprintf(e_stats, sizeof(e_stats), "SUPERPASS_STATS=%s", secret);
	snprintf(e_log, sizeof(e_log), "SUPERPASS_LOG=%s", log);
	assert_int_equal(run(setpriv_argv, env), 0);
	assert_non_null(strstr(out, "secure=1"));
	assert_non_null(strstr(out, "boosted=0")); /* SUPERPASS_CRITICAL ignored */
	assert_int_equal(count(out, "secure-execution mode"), 1);
	s = sp_test_slurp(secret, O_NOFOLLOW);
	assert_string_equal(s ? s : "(gone)", "root's\n");
	assert_int_equal(stat(secret, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(lstat(log, &st), -1);

	/* The same program without set-user-ID takes the same settings. */
	snprintf(e_stats, sizeof(e_stats), "SUPERPASS_STATS=%s", stats);
	snprintf(e_log, sizeof(e_log), "SUPERPASS_LOG=%s", log2);
	assert_int_equal(run(plain_argv, env), 0);
	assert_non_null(strstr(out, "secure=0"));
	assert_non_null(strstr(out, "boosted=1"));
	assert_int_equal(count(out, "secure-execution mode"), 0);
	s = sp_test_slurp(stats, O_NOFOLLOW);
	assert_non_null(s);
	assert_non_null(strstr(s, "\"act_fast_tracks\": "));
	s = sp_test_slurp(log2, O_NOFOLLOW);
	assert_non_null(s);
	assert_non_null(strstr(s, "prio=50")); /* SUPERPASS_PRIO taken */
}

/* ---- 2. the lazy worker, credential changes ---- */

/*
 * Whether this machine's own programs (setpriv, unshare) can load the
 * interposer at all. A cross build's tests run under qemu-user: its
 * interposer is an arm64 object, the loader of the x86 /usr/bin/setpriv
 * ignores it with a message, and a check of setpriv preloaded would pass
 * without the interposer in it.
 */
static bool host_programs_take_preload(void)
{
	char *argv[] = { "/usr/bin/true", NULL };
	char *env[] = { preload_env, "PATH=/usr/bin:/bin", NULL };

	return run(argv, env) == 0 && !strstr(out, "cannot be preloaded");
}

static bool skip_unless_host_programs_take_preload(const char *test)
{
	if (host_programs_take_preload())
		return false;
	printf("SKIP %s: this machine's setpriv and unshare cannot load this build's "
	       "interposer (another architecture: a cross build under qemu-user)\n",
	       test);
	return true;
}

static void test_setpriv_and_unshare_preloaded_without_worker(void **state)
{
	char *setpriv_argv[] = { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
				 "--clear-groups", "/usr/bin/true", NULL };
	char *unshare_argv[] = { "/usr/bin/unshare", "-U", "/usr/bin/true", NULL };
	char *threads_argv[] = { SP_PROBE_PATH, "threads", NULL };

	(void)state;
	if (skip_unless_host_programs_take_preload(__func__))
		skip();
	assert_int_equal(run_preloaded(setpriv_argv, NULL, NULL, NULL, NULL), 0);
	assert_int_equal(run_preloaded(unshare_argv, NULL, NULL, NULL, NULL), 0);
	/* Locks taken, none contended: no worker thread. */
	assert_int_equal(run_preloaded(threads_argv, NULL, NULL, NULL, NULL), 0);
	assert_non_null(strstr(out, "workers=0"));
}

/* What every program gets under /etc/ld.so.preload: no critical thread
 * named, so plain glibc locks, and not a word, even without privilege. */
static void test_no_critical_thread_silent_passthrough(void **state)
{
	char *setpriv_argv[] = { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
				 "--clear-groups", "/usr/bin/true", NULL };
	char *env[] = { preload_env, "PATH=/usr/bin:/bin", NULL };

	(void)state;
	if (skip_unless_host_programs_take_preload(__func__))
		skip();
	assert_int_equal(run(setpriv_argv, env), 0);
	assert_string_equal(out, "");
}

static void test_setpriv_sequence_with_worker_alive(void **state)
{
	char *argv[] = { SP_PROBE_PATH, "contend", "20000", "creds", NULL };

	(void)state;
	if (strstr(SP_SAN_RUNTIME, "tsan")) {
		/* TSan's own background thread (created with the first
		 * pthread_create of the instrumented probe) has just the
		 * per-thread capability problem this test checks for ours:
		 * glibc aborts in it. Plain and ASan builds run it. */
		skip();
	}
	assert_int_equal(run_preloaded(argv, NULL, NULL, NULL, NULL), 0);
	assert_non_null(strstr(out, "boosted=1"));
	assert_non_null(strstr(out, "workers_during_wait=1"));
	assert_non_null(strstr(out, "workers_after_setresuid=0"));
	assert_non_null(strstr(out, "creds uid=65534 gid=65534"));
	assert_int_equal(count(out, "workers_during_wait=1"), 2); /* re-created */
}

static void test_worker_exits_when_idle(void **state)
{
	char *argv[] = { SP_PROBE_PATH, "contend", "20000", "idle", NULL };

	(void)state;
	assert_int_equal(run_preloaded(argv, NULL, NULL, NULL, NULL), 0);
	assert_non_null(strstr(out, "boosted=1"));
	assert_non_null(strstr(out, "workers_during_wait=1"));
	assert_non_null(strstr(out, "workers_after_idle=0"));
}

/* ---- 3. exec, posix_spawn, fork ---- */

static void check_leaves_unboosted(const char *action)
{
	char *argv[] = { SP_PROBE_PATH, "contend", "20000", (char *)action, NULL };

	printf("=== %s\n", action);
	assert_int_equal(run_preloaded(argv, NULL, NULL, NULL, NULL), 0);
	assert_non_null(strstr(out, "boosted=1"));
	assert_non_null(strstr(out, "report policy=0 nice=19 prio=0"));
}

static void test_exec_ends_fast_track(void **state)
{
	static const char *const fns[] = { "execve", "execv", "execvp", "execvpe", "execl",
					   "execlp", "execle", "fexecve", "execveat" };
	char action[32];

	(void)state;
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		/* qemu-user (the arm64 tests) has no execveat: ENOSYS, where a
		 * kernel says EBADF for this fd. (glibc's fexecve falls back
		 * to /proc/self/fd, so that one still runs.) */
		if (!strcmp(fns[i], "execveat") &&
		    syscall(SYS_execveat, -1, "", NULL, NULL, 0) == -1 && errno == ENOSYS) {
			printf("SKIP exec:execveat: execveat is not implemented here (ENOSYS, as "
			       "under qemu-user)\n");
			continue;
		}
		snprintf(action, sizeof(action), "exec:%s", fns[i]);
		check_leaves_unboosted(action);
	}
}

static void test_spawned_and_forked_children_unboosted(void **state)
{
	(void)state;
	check_leaves_unboosted("spawn");
	check_leaves_unboosted("fork");
}

/* ---- 4. files ---- */

static void test_files_never_through_links_or_foreign(void **state)
{
	char target[128], link[128], foreign[128], pathp[128], made[400];
	char e_stats[200], e_log[200];
	char *argv[] = { SP_PROBE_PATH, "contend", "20000", "none", NULL };
	struct stat st;
	const char *s;

	(void)state;
	path_in(target, sizeof(target), "victim-file");
	path_in(link, sizeof(link), "planted.json");
	path_in(foreign, sizeof(foreign), "nobodys.json");
	put(target, "keep\n", 65534, 0644);
	unlink(link);
	assert_int_equal(symlink(target, link), 0);
	put(foreign, "nobody's\n", 65534, 0644);

	/* A planted symbolic link, as stats and as log. */
	snprintf(e_stats, sizeof(e_stats), "SUPERPASS_STATS=%s", link);
	snprintf(e_log, sizeof(e_log), "SUPERPASS_LOG=%s", link);
	assert_int_equal(run_preloaded(argv, e_stats, e_log, NULL, NULL), 0);
	assert_string_equal(sp_test_slurp(target, O_NOFOLLOW), "keep\n");
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_true(count(out, "symbolic link") >= 2);
	assert_non_null(strstr(out, link));

	/* Another user's file, as stats and as log. */
	snprintf(e_stats, sizeof(e_stats), "SUPERPASS_STATS=%s", foreign);
	snprintf(e_log, sizeof(e_log), "SUPERPASS_LOG=%s", foreign);
	assert_int_equal(run_preloaded(argv, e_stats, e_log, NULL, NULL), 0);
	assert_string_equal(sp_test_slurp(foreign, O_NOFOLLOW), "nobody's\n");
	assert_true(count(out, "belongs to uid 65534") >= 2);

	/* A %p path: a new regular file, mode 0600, nothing left beside it. */
	snprintf(pathp, sizeof(pathp), "%s/sp-%%p.json", dir);
	snprintf(e_stats, sizeof(e_stats), "SUPERPASS_STATS=%s", pathp);
	assert_int_equal(run_preloaded(argv, e_stats, NULL, NULL, NULL), 0);
	assert_int_equal(count_entries("sp-", ".json", made, sizeof(made)), 1);
	assert_int_equal(lstat(made, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	s = sp_test_slurp(made, O_NOFOLLOW);
	assert_non_null(s);
	assert_non_null(strstr(s, "\"blocking_ns\""));
	assert_int_equal(count_entries("sp-", NULL, NULL, 0), 1); /* no temporary left */
}

/* ---- 5. bad settings, named on stderr ---- */

static void check_named(const char *setting, const char *expect)
{
	char *argv[] = { SP_PROBE_PATH, "threads", NULL };
	char *wrapped[] = { "/usr/bin/timeout", "120", SP_PROBE_PATH, "threads", NULL };

	static int host = -1;

	if (host < 0) /* a wrapper of this machine's (timeout) takes the interposer */
		host = host_programs_take_preload() && !access(wrapped[0], X_OK);
	assert_int_equal(run_preloaded(argv, setting, NULL, NULL, NULL), 0);
	assert_int_equal(count(out, expect), 1);
	/* once for the command: not again from the program a wrapper runs */
	if (host) {
		assert_int_equal(run_preloaded(wrapped, setting, NULL, NULL, NULL), 0);
		assert_int_equal(count(out, expect), 1);
	}
}

static void test_bad_settings_named(void **state)
{
	static char crit[1100], longname[64], deep[700], e_stats[800];
	char *argv[] = { SP_PROBE_PATH, "contend", "20000", "none", NULL };
	char *env[] = { preload_env, crit, e_stats, NULL };
	struct stat st;
	size_t n;

	(void)state;
	check_named("SUPERPASS_READERS=abc", "SUPERPASS_READERS=abc");
	check_named("SUPERPASS_READERS=0", "SUPERPASS_READERS=0");
	check_named("SUPERPASS_PRIO=99", "SUPERPASS_PRIO=99");
	check_named("SUPERPASS_PRIO=", "SUPERPASS_PRIO=");
	check_named("SUPERPASS_BUDGET_US=-1", "SUPERPASS_BUDGET_US=-1");
	check_named("SUPERPASS_QUIET=2", "SUPERPASS_QUIET=2");
	check_named("SUPERPASS_MODE=turbo", "SUPERPASS_MODE=turbo");
	check_named("SUPERPASS_LOG=/nonexistent/dir/x.log", "/nonexistent/dir/x.log");
	check_named("SUPERPASS_STATS=/nonexistent/dir/x.json", "/nonexistent/dir/x.json");
	check_named("SUPERPASS_STATS=", "SUPERPASS_STATS= (empty)");
	/* a process started with other settings names its own */
	if (host_programs_take_preload()) {
		char *a2[] = { "/bin/sh", "-c", "SUPERPASS_PRIO=0 exec " SP_PROBE_PATH " threads", NULL };

		assert_int_equal(run_preloaded(a2, "SUPERPASS_PRIO=99", NULL, NULL, NULL), 0);
		assert_int_equal(count(out, "SUPERPASS_PRIO=99"), 1);
		assert_int_equal(count(out, "SUPERPASS_PRIO=0"), 1);
	}

	/* A name no thread can have, and a list too long to keep. */
	snprintf(longname, sizeof(longname), "SUPERPASS_CRITICAL=main,%s",
		 "a-name-of-twenty-chars");
	{
		char *a2[] = { SP_PROBE_PATH, "threads", NULL };
		char *e2[] = { preload_env, longname, NULL };

		assert_int_equal(run(a2, e2), 0);
		assert_non_null(strstr(out, "a-name-of-twenty-chars"));
	}
	n = (size_t)snprintf(crit, sizeof(crit), "SUPERPASS_CRITICAL=main");
	while (n + 8 < sizeof(crit) - 1)
		n += (size_t)snprintf(crit + n, sizeof(crit) - n, ",thread%d", (int)(n % 10));
	{
		char *a2[] = { SP_PROBE_PATH, "threads", NULL };
		char *e2[] = { preload_env, crit, NULL };

		assert_int_equal(run(a2, e2), 0);
		assert_non_null(strstr(out, "SUPERPASS_CRITICAL ("));
	}

	/* A statistics path over 511 bytes, valid: written where it says. */
	n = (size_t)snprintf(deep, sizeof(deep), "%s", dir);
	while (n < 560) {
		n += (size_t)snprintf(deep + n, sizeof(deep) - n, "/%s",
				      "a-directory-name-of-some-length");
		assert_true(mkdir(deep, 0755) == 0 || errno == EEXIST);
	}
	snprintf(e_stats, sizeof(e_stats), "SUPERPASS_STATS=%s/s.json", deep);
	snprintf(crit, sizeof(crit), "SUPERPASS_CRITICAL=main");
	assert_int_equal(run(argv, env), 0);
	snprintf(deep + n, sizeof(deep) - n, "/s.json");
	assert_int_equal(stat(deep, &st), 0);
	assert_true(strlen(deep) > 511);
}

/* ---- 6. SUPERPASS_STATS without %p: one file for the whole command ---- */

/* @path's statistics list a thread (a program's), not none (a wrapper's). */
static bool lists_a_thread(const char *path)
{
	const char *s = sp_test_slurp(path, O_NOFOLLOW);

	return s && strstr(s, "\"tid\"");
}

/* @text in @path, last modified an hour from now (@ahead) or ago. */
static void put_dated(const char *path, const char *text, bool ahead)
{
	struct timespec ts[2];

	put(path, text, 0, 0600);
	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec += ahead ? 3600 : -3600;
	ts[1] = ts[0];
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void test_stats_without_pid(void **state)
{
	static const char other[] = "{\n  \"pid\": 1,\n  \"acquires\": 7,\n  \"blocks\": 1,\n"
				    "  \"threads\": [{\"tid\": 1, \"name\": \"x\"}]\n}\n";
	static const char nothing[] = "{\n  \"pid\": 1,\n  \"acquires\": 0,\n  \"blocks\": 0,\n"
				      "  \"threads\": []\n}\n";
	char *wrapped[] = { "/usr/bin/timeout", "120", SP_PROBE_PATH, "contend", "20000", "none",
			    NULL };
	char *probe[] = { SP_PROBE_PATH, "contend", "20000", "none", NULL };
	char *spawn[] = { SP_PROBE_PATH, "contend", "20000", "spawn", NULL };
	char *idle[] = { "/usr/bin/true", NULL };
	char f[128], e_stats[200], beside[400];

	(void)state;
	if (skip_unless_host_programs_take_preload(__func__))
		skip();
	if (access(wrapped[0], X_OK)) {
		printf("SKIP %s: needs /usr/bin/timeout\n", __func__);
		skip();
	}
	path_in(f, sizeof(f), "shared.json");
	snprintf(e_stats, sizeof(e_stats), "SUPERPASS_STATS=%s", f);

	/* timeout exits after its program, with nothing to say: the
	 * program's statistics stay */
	unlink(f);
	assert_int_equal(run_preloaded(wrapped, e_stats, NULL, NULL, NULL), 0);
	assert_true(lists_a_thread(f));
	/* a child that took no lock exits first: its program's replace it */
	unlink(f);
	assert_int_equal(run_preloaded(spawn, e_stats, NULL, NULL, NULL), 0);
	assert_true(lists_a_thread(f));
	/* an earlier run's file is replaced, even by nothing */
	put_dated(f, other, false);
	assert_int_equal(run_preloaded(idle, e_stats, NULL, NULL, NULL), 0);
	assert_false(lists_a_thread(f));
	assert_non_null(strstr(sp_test_slurp(f, O_NOFOLLOW), "\"threads\": []"));
	/* another process's statistics, written while this one ran: kept,
	 * this one's beside them, and said */
	put_dated(f, other, true);
	assert_int_equal(count_entries("shared.", ".json", NULL, 0), 1);
	assert_int_equal(run_preloaded(probe, e_stats, NULL, NULL, NULL), 0);
	assert_string_equal(sp_test_slurp(f, O_NOFOLLOW), other);
	assert_int_equal(count_entries("shared.", ".json", NULL, 0), 2);
	assert_non_null(strstr(out, "was written by another process while this one ran"));
	{
		const char *a = strstr(out, "go to "), *b = a ? strstr(a, " (") : NULL;

		assert_non_null(b);
		snprintf(beside, sizeof(beside), "%.*s", (int)(b - a - 6), a + 6);
		assert_true(lists_a_thread(beside));
		assert_int_equal(strncmp(beside, f, strlen(f) - 5), 0); /* dir/shared.PID.json */
		unlink(beside);
	}
	/* ... and nothing of another process is replaced */
	put_dated(f, nothing, true);
	assert_int_equal(run_preloaded(probe, e_stats, NULL, NULL, NULL), 0);
	assert_true(lists_a_thread(f));
	assert_null(strstr(out, "another process"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_secure_mode_takes_nothing_from_environment),
		cmocka_unit_test(test_setpriv_and_unshare_preloaded_without_worker),
		cmocka_unit_test(test_no_critical_thread_silent_passthrough),
		cmocka_unit_test(test_setpriv_sequence_with_worker_alive),
		cmocka_unit_test(test_worker_exits_when_idle),
		cmocka_unit_test(test_exec_ends_fast_track),
		cmocka_unit_test(test_spawned_and_forked_children_unboosted),
		cmocka_unit_test(test_files_never_through_links_or_foreign),
		cmocka_unit_test(test_bad_settings_named),
		cmocka_unit_test(test_stats_without_pid),
	};
	const char *tmp = getenv("TMPDIR");
	int rc;

	if (geteuid() != 0)
		return skip_test("needs root: set-user-ID copies, other users' files, SCHED_FIFO");
	if (access("/usr/bin/setpriv", X_OK) || access("/usr/bin/unshare", X_OK))
		return skip_test("needs setpriv and unshare (util-linux)");
	sp_test_preload_env(preload_env, sizeof(preload_env), SP_SAN_RUNTIME, SP_PRELOAD_PATH);
	snprintf(dir, sizeof(dir), "%s/sp-safety-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	chmod(dir, 0755); /* nobody runs the set-user-ID copy from here */
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	if (rc == 0) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			return 1;
	}
	return rc;
}
