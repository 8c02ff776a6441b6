// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * `superpass bench micro`: ns per uncontended lock+unlock on one thread for
 * glibc, sp_mutex_t / sp_rwlock_t, and glibc under the interposer (the same
 * loops re-executed with LD_PRELOAD and SUPERPASS_CRITICAL set, so that the
 * runtime is live as in a real use, not in passthrough), as ratios to glibc.
 *
 * A shared machine's speed moves by tens of percent within a second, so
 * every figure is compared with glibc measured in the same process, in
 * rounds that interleave the loops (glibc, ours, glibc, ours, ...), and
 * each loop keeps its best round, in thread CPU time. Under the interposer
 * glibc's own functions are reached through dlsym on libc itself.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <superpass/runtime.h>

#include "bench.h"
#include "sp_cli_msg.h"
#include "sp_cli_output.h"
#include "sp_cli_parse.h"
#include "sp_cli_preload.h"

#define MICRO_CMD "superpass bench micro"

#define ROUNDS 15
#define NLOOPS 4

static long iters = 1000000;

struct micro_loop {
	void (*fn)(void *arg);
	void *arg;
	double best; /* ns per lock+unlock */
};

/* Runs every loop once per round; keeps each one's best round. */
static void run_rounds(struct micro_loop *l, int n)
{
	for (int i = 0; i < n; i++)
		l[i].best = 1e30;
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < n; i++) {
			/* thread CPU time: robust to preemption on a busy machine */
			uint64_t t0 = bench_thread_cpu_ns();
			double ns;

			l[i].fn(l[i].arg);
			ns = (double)(bench_thread_cpu_ns() - t0) / (double)iters;
			if (ns < l[i].best)
				l[i].best = ns;
		}
	}
}

static void glibc_mutex(void *arg)
{
	pthread_mutex_t *m = arg;

	for (long i = 0; i < iters; i++) {
		pthread_mutex_lock(m);
		pthread_mutex_unlock(m);
	}
}

static void glibc_rdlock(void *arg)
{
	pthread_rwlock_t *rw = arg;

	for (long i = 0; i < iters; i++) {
		pthread_rwlock_rdlock(rw);
		pthread_rwlock_unlock(rw);
	}
}

static void sp_mutex_loop(void *arg)
{
	sp_mutex_t *m = arg;

	for (long i = 0; i < iters; i++) {
		sp_mutex_lock(m);
		sp_mutex_unlock(m);
	}
}

static void sp_rdlock_loop(void *arg)
{
	sp_rwlock_t *rw = arg;

	for (long i = 0; i < iters; i++) {
		sp_rwlock_rdlock(rw);
		sp_rwlock_unlock(rw);
	}
}

/* glibc's own functions, past the interposer (in the child). */
static int (*libc_mutex_lock)(pthread_mutex_t *);
static int (*libc_mutex_unlock)(pthread_mutex_t *);
static int (*libc_rdlock)(pthread_rwlock_t *);
static int (*libc_rw_unlock)(pthread_rwlock_t *);

/* A program reaches glibc through its PLT: a call, then a jump through a
 * pointer. These are that jump (a sibling call), so that the baseline is
 * what the program pays without the interposer, not one jump less. */
__attribute__((noinline)) static int plt_mutex_lock(pthread_mutex_t *m)
{
	return libc_mutex_lock(m);
}

__attribute__((noinline)) static int plt_mutex_unlock(pthread_mutex_t *m)
{
	return libc_mutex_unlock(m);
}

__attribute__((noinline)) static int plt_rdlock(pthread_rwlock_t *rw)
{
	return libc_rdlock(rw);
}

__attribute__((noinline)) static int plt_rw_unlock(pthread_rwlock_t *rw)
{
	return libc_rw_unlock(rw);
}

static void libc_mutex(void *arg)
{
	pthread_mutex_t *m = arg;

	for (long i = 0; i < iters; i++) {
		plt_mutex_lock(m);
		plt_mutex_unlock(m);
	}
}

static void libc_rdlock_loop(void *arg)
{
	pthread_rwlock_t *rw = arg;

	for (long i = 0; i < iters; i++) {
		plt_rdlock(rw);
		plt_rw_unlock(rw);
	}
}

static int libc_resolve(void)
{
	void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);

	if (!h)
		return -1;
	libc_mutex_lock = (int (*)(pthread_mutex_t *))dlsym(h, "pthread_mutex_lock");
	libc_mutex_unlock = (int (*)(pthread_mutex_t *))dlsym(h, "pthread_mutex_unlock");
	libc_rdlock = (int (*)(pthread_rwlock_t *))dlsym(h, "pthread_rwlock_rdlock");
	libc_rw_unlock = (int (*)(pthread_rwlock_t *))dlsym(h, "pthread_rwlock_unlock");
	return libc_mutex_lock && libc_mutex_unlock && libc_rdlock && libc_rw_unlock ? 0 : -1;
}

/* The child, under the interposer: prints glibc's and the interposed
 * mutex, then rwlock figures. */
static int micro_child(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
	struct micro_loop l[NLOOPS] = {
		{ libc_mutex, &m, 0 }, { glibc_mutex, &m, 0 },
		{ libc_rdlock_loop, &rw, 0 }, { glibc_rdlock, &rw, 0 },
	};

	if (libc_resolve() != 0) {
		fprintf(stderr, "superpass bench micro: cannot find glibc's pthread functions\n");
		return 1;
	}
	run_rounds(l, NLOOPS);
	printf("%.3f %.3f %.3f %.3f\n", l[0].best, l[1].best, l[2].best, l[3].best);
	return 0;
}

/* Runs the glibc loops again under the interposer; -1 if unavailable.
 * out: glibc mutex, interposed mutex, glibc rwlock, interposed rwlock. */
static int preload_run(char **argv, double out[NLOOPS])
{
	const char *lib = sp_cli_preload_find();
	char iters_s[32], pre[4200];
	int fds[2], status;
	char buf[256] = { 0 };
	pid_t pid;

	if (!lib || pipe(fds) != 0)
		return -1;
	snprintf(iters_s, sizeof(iters_s), "%ld", iters);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		char *args[] = { argv[0], "bench", "micro", "--internal-child", "--iters", iters_s,
				 NULL };

		sp_cli_preload_env(pre, sizeof(pre), lib);
		setenv("LD_PRELOAD", pre, 1);
		/* The runtime live, as under `superpass run`: a critical name
		 * (no thread of the child has it), so every lock call takes the
		 * instrumented path rather than passthrough. */
		setenv("SUPERPASS_CRITICAL", "sp-micro-ui", 1);
		setenv("SUPERPASS_QUIET", "1", 1);
		unsetenv("SUPERPASS_STATS");
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	close(fds[1]);
	if (read(fds[0], buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    sscanf(buf, "%lf %lf %lf %lf", &out[0], &out[1], &out[2], &out[3]) != 4)
		return -1;
	return 0;
}

static void row(const char *name, double ns, double base)
{
	printf("%-34s %9.1f %8.2fx\n", name, ns, ns / base);
}

static void json_row(json_object *a, const char *name, double ns, double base)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "ns", json_object_new_double(ns));
	json_object_object_add(o, "vs_glibc", json_object_new_double(ns / base));
	json_object_array_add(a, o);
}

/* --json: the table's rows, each loop's best round and its ratio to the
 * glibc loop timed beside it; "interposer" is null when it was not found. */
static int write_json(FILE *f, const struct micro_loop *l, const double *pre)
{
	json_object *root = json_object_new_object();
	json_object *own = json_object_new_array();
	json_object *ip = pre ? json_object_new_array() : NULL;
	int rc;

	json_object_object_add(root, "iters", json_object_new_int64(iters));
	json_object_object_add(root, "rounds", json_object_new_int(ROUNDS));
	json_row(own, "glibc pthread_mutex", l[0].best, l[0].best);
	json_row(own, "sp_mutex_t", l[1].best, l[0].best);
	json_row(own, "glibc pthread_rwlock (read)", l[2].best, l[2].best);
	json_row(own, "sp_rwlock_t (read)", l[3].best, l[2].best);
	json_object_object_add(root, "loops", own);
	if (ip) {
		json_row(ip, "glibc pthread_mutex", pre[0], pre[0]);
		json_row(ip, "pthread_mutex + interposer", pre[1], pre[0]);
		json_row(ip, "glibc pthread_rwlock (read)", pre[2], pre[2]);
		json_row(ip, "pthread_rwlock (read) + interposer", pre[3], pre[2]);
	}
	json_object_object_add(root, "interposer", ip);
	rc = fprintf(f, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY)) < 0;
	json_object_put(root);
	rc |= sp_cli_output_close(f) != 0;
	return rc ? -1 : 0;
}

int bench_micro_main(int argc, char **argv_full)
{
	static const struct option lo[] = {
		{ "iters", required_argument, NULL, 'n' },
		{ "internal-child", no_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	sp_mutex_t m = SP_MUTEX_INITIALIZER;
	sp_rwlock_t rw = SP_RWLOCK_INITIALIZER;
	pthread_mutex_t gm = PTHREAD_MUTEX_INITIALIZER;
	pthread_rwlock_t grw = PTHREAD_RWLOCK_INITIALIZER;
	struct micro_loop l[NLOOPS] = {
		{ glibc_mutex, &gm, 0 }, { sp_mutex_loop, &m, 0 },
		{ glibc_rdlock, &grw, 0 }, { sp_rdlock_loop, &rw, 0 },
	};
	double pre[NLOOPS];
	int child = 0, c, have_pre;
	bool quiet = false;
	const char *json_path = NULL;
	FILE *json = NULL;
	char **argv = argv_full + 2; /* after "superpass bench" */

	argc -= 2;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
		{
			int64_t v;

			if (sp_cli_int(MICRO_CMD, "--iters", optarg, 1, LONG_MAX, &v))
				return SP_EXIT_USAGE;
			iters = (long)v;
			break;
		}
		case 'c': child = 1; break;
		case 'q': quiet = true; break;
		case 'j': json_path = optarg; break;
		case 'h':
			printf("usage: superpass bench micro [options]\n"
			       "\n"
			       "ns per uncontended lock+unlock: glibc, superpass's own locks, and glibc's\n"
			       "under the interposer.\n"
			       "\n"
			       "      --iters N         iterations per round (default 1000000)\n"
			       "      --json FILE       also write the table's rows as JSON (- for stdout)\n"
			       SP_CLI_HELP_QUIET
			       "  -h, --help\n"
			       "\n"
			       SP_CLI_HELP_EXIT);
			return SP_EXIT_OK;
		default:
			sp_cli_bad_option(MICRO_CMD, c, argv);
			return SP_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		sp_cli_error(MICRO_CMD, "unexpected argument '%s' (see " MICRO_CMD " --help)",
			     argv[optind]);
		return SP_EXIT_USAGE;
	}
	if (child)
		return micro_child();
	/* an unwritable --json is found before the rounds, not after them */
	if (json_path && !(json = sp_cli_output_open(json_path))) {
		sp_cli_error(MICRO_CMD, "--json: cannot write %s: %s", json_path, strerror(errno));
		return SP_EXIT_USAGE;
	}
	run_rounds(l, NLOOPS);
	have_pre = preload_run(argv_full, pre) == 0;
	printf("uncontended lock+unlock, one thread, best of %d interleaved rounds x %ld "
	       "iterations (thread CPU time)\n", ROUNDS, iters);
	printf("%-34s %9s %9s\n", "", "ns/op", "vs glibc");
	row("glibc pthread_mutex", l[0].best, l[0].best);
	row("sp_mutex_t", l[1].best, l[0].best);
	row("glibc pthread_rwlock (read)", l[2].best, l[2].best);
	row("sp_rwlock_t (read)", l[3].best, l[2].best);
	if (!have_pre) {
		if (!quiet)
			printf("(interposer not found: set SUPERPASS_PRELOAD)\n");
	} else {
		printf("under the interposer (glibc measured in the same process):\n");
		row("glibc pthread_mutex", pre[0], pre[0]);
		row("pthread_mutex + interposer", pre[1], pre[0]);
		row("glibc pthread_rwlock (read)", pre[2], pre[2]);
		row("pthread_rwlock (read) + interposer", pre[3], pre[2]);
	}
	if (json && write_json(json, l, have_pre ? pre : NULL) != 0) {
		sp_cli_error(MICRO_CMD, "cannot write %s", json_path);
		return SP_EXIT_FAIL;
	}
	return 0;
}
