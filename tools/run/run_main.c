// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * superpass run -c NAME,... [options] -- CMD [ARGS]
 *
 * Like `perf stat -- CMD` or `chrt`: runs CMD under libsuperpass-preload.so
 * with the options turned into SUPERPASS_* settings, waits for it, prints
 * a summary of what the interposer saw (from the statistics JSON every
 * process of CMD writes at exit) and exits with CMD's status, or 128 + N
 * if a signal N killed it.
 *
 * The library is found by sp_cli_preload_find (tools/common). An LD_PRELOAD
 * already set is kept, in front of ours (sp_cli_preload_env).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"
#include "sp_cli_msg.h"
#include "sp_cli_parse.h"
#include "sp_cli_preload.h"

struct run_opts {
	const char *critical;
	const char *k, *prio, *budget_us, *mode, *stats;
	bool quiet;
};

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: superpass run -c NAME[,NAME...] [options] -- CMD [ARGS]\n"
		"\n"
		"Runs an unmodified program under the interposer (libsuperpass-preload.so):\n"
		"when one of the named threads waits for a pthread mutex or rwlock, the\n"
		"threads holding it get a fast track until they release it. Prints a\n"
		"summary on stderr when CMD exits, and exits with CMD's status (128 + N\n"
		"if signal N killed it).\n"
		"\n"
		"  -c, --critical LIST   critical threads: thread names (pthread_setname_np,\n"
		"                        1-15 bytes) or \"main\", comma-separated (required)\n"
		"      --k N             tracked readers per rwlock, 1-64 (default 4)\n"
		"      --prio N          SCHED_FIFO priority of a fast track, 1-98 (default 1)\n"
		"      --budget-us N     per-grant budget in us, 0 = none (default 20000)\n"
		"      --mode MODE       auto, fifo, nice or observe (default auto)\n"
		"      --stats FILE      keep the statistics JSON there (\"%%p\" becomes each\n"
		"                        process's pid; default: a temporary file). Without\n"
		"                        %%p a wrapper that takes no lock (timeout, sh) leaves\n"
		"                        FILE to its program\n"
		SP_CLI_HELP_QUIET
		"  -h, --help\n"
		"\n"
		"The library is SUPERPASS_PRELOAD if set, else the one in ../lib next to\n"
		"this binary (build tree or install), else the installed or build tree one\n"
		"it was built for. An existing LD_PRELOAD is kept.\n"
		"\n"
		"A -c name that no thread had, critical threads without one lock wait seen,\n"
		"and a command that left no statistics are warned of, with the names seen\n"
		"and the likely reasons.\n"
		"\n"
		"Exit status: CMD's (128 + N if signal N killed it); 125 superpass itself\n"
		"failed (bad usage included), 126 CMD cannot be run, 127 CMD not found.\n");
}

static int run_fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "superpass run: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	return RUN_EXIT_FAIL;
}

#define RUN_CMD "superpass run"

/* An integer option in [min, max], kept as text (it goes into the environment). */
static int run_check_int(const char *opt, const char *v, int64_t min, int64_t max)
{
	int64_t n;

	return sp_cli_int(RUN_CMD, opt, v, min, max, &n);
}

static int run_check_name(const char *tok, void *ctx)
{
	(void)ctx;
	if (strlen(tok) > 15) {
		fprintf(stderr, RUN_CMD ": -c: a name is too long: '%s' (a thread name has 1 to 15 "
				"bytes)\n", tok);
		return -1;
	}
	return 0;
}

static int run_check_critical(const char *v)
{
	if (strlen(v) > 1021) {
		fprintf(stderr, RUN_CMD ": -c: the list has %zu bytes, at most 1021\n", strlen(v));
		return -1;
	}
	return sp_cli_list(RUN_CMD, "-c", v, 1022, run_check_name, NULL);
}

static int run_parse(int argc, char **argv, struct run_opts *o)
{
	static const struct option lo[] = {
		{ "critical", required_argument, NULL, 'c' },
		{ "k", required_argument, NULL, 'k' },
		{ "prio", required_argument, NULL, 'P' },
		{ "budget-us", required_argument, NULL, 'b' },
		{ "mode", required_argument, NULL, 'm' },
		{ "stats", required_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	/* "+": stop at the first non-option, CMD's own options are its. */
	while ((c = getopt_long(argc, argv, "+:c:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'c': o->critical = optarg; break;
		case 'k': o->k = optarg; break;
		case 'P': o->prio = optarg; break;
		case 'b': o->budget_us = optarg; break;
		case 'm': o->mode = optarg; break;
		case 's': o->stats = optarg; break;
		case 'q': o->quiet = true; break;
		case 'h': run_usage(stdout); return 1;
		default:
			sp_cli_bad_option(RUN_CMD, c, argv);
			return -1;
		}
	}
	if (!o->critical) {
		fprintf(stderr, "superpass run: -c NAME,... is required: which threads are "
				"critical (see --help)\n");
		return -1;
	}
	if (run_check_critical(o->critical) ||
	    (o->k && run_check_int("--k", o->k, 1, 64)) ||
	    (o->prio && run_check_int("--prio", o->prio, 1, 98)) ||
	    (o->budget_us && run_check_int("--budget-us", o->budget_us, 0, 10000000)))
		return -1;
	if (o->mode && strcmp(o->mode, "auto") && strcmp(o->mode, "fifo") &&
	    strcmp(o->mode, "nice") && strcmp(o->mode, "observe")) {
		fprintf(stderr, "superpass run: --mode '%s': expected auto, fifo, nice or observe\n",
			o->mode);
		return -1;
	}
	if (optind >= argc) {
		fprintf(stderr, "superpass run: no command given (superpass run -c NAME -- CMD)\n");
		return -1;
	}
	return 0;
}

/* Splits a stats path with at most one "%p" into directory, prefix and
 * suffix, for run_summary. */
static int run_split_stats(const char *path, char *dir, char *prefix, char *suffix)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	const char *pp = strstr(base, "%p");

	if (slash)
		snprintf(dir, PATH_MAX, "%.*s", (int)(slash == path ? 1 : slash - path), path);
	else
		snprintf(dir, PATH_MAX, ".");
	if (strstr(path, "%p") && (!pp || strstr(pp + 2, "%p")))
		return -1; /* %p in a directory, or twice */
	snprintf(prefix, NAME_MAX + 1, "%.*s", (int)(pp ? pp - base : (long)strlen(base)), base);
	snprintf(suffix, NAME_MAX + 1, "%s", pp ? pp + 2 : "");
	return pp ? 1 : 0;
}

static void run_setenv(const char *name, const char *v)
{
	if (v)
		setenv(name, v, 1);
}

int run_main(int argc, char **argv)
{
	char tmpdir[PATH_MAX], stats[PATH_MAX + 16], preload[8192];
	char sdir[PATH_MAX], sprefix[NAME_MAX + 1], ssuffix[NAME_MAX + 1];
	const char *lib, *tmp = getenv("TMPDIR");
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	struct run_opts o;
	int rc, status, err_pipe[2], child_errno = 0, has_p;
	struct timespec since;
	static struct run_seen seen;
	pid_t pid;

	rc = run_parse(argc, argv, &o);
	if (rc)
		return rc > 0 ? 0 : RUN_EXIT_FAIL;
	lib = sp_cli_preload_find();
	if (!lib)
		return run_fail("libsuperpass-preload.so not found (not in the build tree, not "
				"installed in %s): set SUPERPASS_PRELOAD=/path/to/it",
				SP_INSTALL_PRELOAD);
	/* A sanitizer runtime this binary uses first (sanitized builds: the
	 * library is instrumented too), then LD_PRELOAD as it was, then ours. */
	sp_cli_preload_env(preload, sizeof(preload), lib);
	tmpdir[0] = 0;
	if (o.stats) {
		snprintf(stats, sizeof(stats), "%s", o.stats);
	} else {
		snprintf(tmpdir, sizeof(tmpdir), "%s/superpass-run-XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(tmpdir))
			return run_fail("cannot create a temporary directory: %s", strerror(errno));
		snprintf(stats, sizeof(stats), "%s/stats-%%p.json", tmpdir);
	}
	has_p = run_split_stats(stats, sdir, sprefix, ssuffix);
	if (has_p < 0)
		return run_fail("--stats '%s': \"%%p\" may appear once, in the file name", stats);

	/* exec failures come back through a close-on-exec pipe. */
	if (pipe2(err_pipe, O_CLOEXEC) != 0)
		return run_fail("pipe: %s", strerror(errno));
	fflush(NULL);
	run_clock_start(&since);
	pid = fork();
	if (pid < 0)
		return run_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		close(err_pipe[0]);
		setenv("LD_PRELOAD", preload, 1);
		setenv("SUPERPASS_CRITICAL", o.critical, 1);
		setenv("SUPERPASS_STATS", stats, 1);
		run_setenv("SUPERPASS_READERS", o.k);
		run_setenv("SUPERPASS_PRIO", o.prio);
		run_setenv("SUPERPASS_BUDGET_US", o.budget_us);
		run_setenv("SUPERPASS_MODE", o.mode);
		execvp(argv[optind], argv + optind);
		child_errno = errno;
		if (write(err_pipe[1], &child_errno, sizeof(child_errno)) < 0)
			_exit(RUN_EXIT_FAIL);
		_exit(child_errno == ENOENT ? RUN_EXIT_NOTFOUND : RUN_EXIT_CANNOT);
	}
	close(err_pipe[1]);
	/* ^C and ^\ are for CMD (same process group); we print the summary. */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	if (read(err_pipe[0], &child_errno, sizeof(child_errno)) != sizeof(child_errno))
		child_errno = 0;
	close(err_pipe[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (child_errno) {
		fprintf(stderr, "superpass run: cannot run %s: %s\n", argv[optind],
			strerror(child_errno));
		rc = child_errno == ENOENT ? RUN_EXIT_NOTFOUND : RUN_EXIT_CANNOT;
		goto out;
	}
	if (WIFSIGNALED(status))
		rc = 128 + WTERMSIG(status);
	else
		rc = WEXITSTATUS(status);
	/* The summary is the result: printed with -q too, after a note of how
	 * the command ended unless -q. */
	if (!o.quiet && WIFSIGNALED(status))
		fprintf(stderr, "\nsuperpass run: %s (pid %d) killed by signal %d (%s)\n",
			argv[optind], (int)pid, WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (!o.quiet)
		fprintf(stderr, "\nsuperpass run: %s (pid %d) exited with status %d\n",
			argv[optind], (int)pid, rc);
	memset(&seen, 0, sizeof(seen));
	run_summary(stderr, sdir, sprefix, has_p ? ssuffix : NULL, pid, o.critical, &since, false,
		    &seen);
	run_seen_warn(&seen, o.critical, argv[optind]);
out:
	if (tmpdir[0]) {
		/* Only our stats-<pid>.json files are in there. */
		run_summary(NULL, sdir, sprefix, ssuffix, pid, o.critical, &since, true, NULL);
		rmdir(tmpdir);
	}
	return rc;
}
