// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The `superpass-preload` policy: the very workload of `none` (plain pthread
 * locks, no call into superpass), re-executed under
 * LD_PRELOAD=libsuperpass-preload.so with SUPERPASS_CRITICAL=sp-ui. The
 * child writes its figures to a file; the interposer writes its statistics
 * (grants, expiries) to SUPERPASS_STATS, read with json-c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "bench.h"
#include "sp_cli_json.h"
#include "sp_cli_preload.h"

/* The child's result fields in seconds (the others are counts). */
static double *child_seconds_field(struct bench_result *r, const char *key)
{
	if (!strcmp(key, "seconds"))
		return &r->seconds;
	if (!strcmp(key, "cpu_s"))
		return &r->cpu_s;
	if (!strcmp(key, "rt_cpu_s"))
		return &r->rt_cpu_s;
	if (!strcmp(key, "steal_s"))
		return &r->steal_s;
	return NULL;
}

int bench_run_preload(const struct bench_opts *o, int argc, char **argv,
		      enum bench_scenario sc, uint32_t k, struct bench_result *r)
{
	char res[] = "/tmp/superpass-bench-resXXXXXX", st[] = "/tmp/superpass-bench-statsXXXXXX";
	const char *lib = sp_cli_preload_find();
	char scbuf[8], kbuf[16], prio[16], budget[32], pre[4200];
	json_object *stats;
	char **args;
	int fd1, fd2, status = 0;
	pid_t pid;
	FILE *f;

	bench_result_init(r, sc, PO_PRELOAD, k);
	if (!lib) {
		r->skipped = true;
		snprintf(r->note, sizeof(r->note),
			 "libsuperpass-preload.so not found (set SUPERPASS_PRELOAD)");
		return 0;
	}
	fd1 = mkstemp(res);
	fd2 = mkstemp(st);
	if (fd1 < 0 || fd2 < 0)
		return -errno;
	close(fd1);
	close(fd2);
	args = calloc((size_t)argc + 8, sizeof(*args));
	if (!args)
		return -ENOMEM;
	for (int i = 0; i < argc; i++)
		args[i] = argv[i];
	snprintf(scbuf, sizeof(scbuf), "%d", (int)sc);
	args[argc] = "--internal-child";
	args[argc + 1] = scbuf;
	args[argc + 2] = "--internal-result";
	args[argc + 3] = res;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		sp_cli_preload_env(pre, sizeof(pre), lib);
		snprintf(kbuf, sizeof(kbuf), "%u", k ? k : 4u);
		snprintf(prio, sizeof(prio), "%d", o->prio);
		snprintf(budget, sizeof(budget), "%u", o->budget_ms * 1000u);
		setenv("LD_PRELOAD", pre, 1);
		setenv("SUPERPASS_CRITICAL", "sp-ui", 1);
		setenv("SUPERPASS_STATS", st, 1);
		setenv("SUPERPASS_READERS", kbuf, 1);
		setenv("SUPERPASS_PRIO", prio, 1);
		setenv("SUPERPASS_BUDGET_US", budget, 1);
		/* The row's note says when the interposer could not boost. */
		setenv("SUPERPASS_QUIET", "1", 1);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	free(args);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		r->skipped = true;
		snprintf(r->note, sizeof(r->note), "child failed (status %d)", status);
		goto out;
	}
	f = fopen(res, "r");
	if (f) {
		char key[32];
		unsigned long long v;

		while (fscanf(f, "%31s", key) == 1) {
			double *d = child_seconds_field(r, key);

			if (d) {
				if (fscanf(f, "%lf", d) != 1)
					break;
				continue;
			}
			if (fscanf(f, "%llu", &v) != 1)
				break;
#define K(x) if (!strcmp(key, #x)) r->x = v;
			K(blockings) K(frames) K(janky) K(hog_iters) K(blocked_ns)
			K(holder_wait_ns) K(p50) K(p99) K(p999) K(max)
			K(boost_p50) K(boost_p99) K(boost_n)
#undef K
		}
		fclose(f);
	}
	stats = json_object_from_file(st);
	if (stats) {
		json_object *mode;
		const char *m;

		/* The interposer writes every field of both lists. */
#define SP_BENCH_CORE(name, kind, help) r->stats.core.name = sp_cli_json_u64(stats, #name);
#define SP_BENCH_RT(name, kind, help) r->stats.name = sp_cli_json_u64(stats, #name);
		SP_STATS_FIELDS(SP_BENCH_CORE)
		SP_RUNTIME_STATS_FIELDS(SP_BENCH_RT)
#undef SP_BENCH_CORE
#undef SP_BENCH_RT
		r->have_stats = true;
		r->grants = r->stats.core.grants;
		r->expiries = r->stats.core.expiries;
		r->fast_tracks = r->stats.act_fast_tracks;
		m = json_object_object_get_ex(stats, "mode", &mode) ? json_object_get_string(mode)
								    : NULL;
		if (!m || strcmp(m, "fifo"))
			snprintf(r->note, sizeof(r->note), "interposer not in fifo mode");
		json_object_put(stats);
	}
out:
	unlink(res);
	unlink(st);
	return 0;
}

/* In the re-executed child: run `none` (plain pthread locks) and report. */
int bench_child_main(const struct bench_opts *o)
{
	struct bench_result *r = calloc(1, sizeof(*r));
	FILE *f;

	if (!r)
		return 1;
	bench_run(o, (enum bench_scenario)o->child_scenario, PO_NONE, 0, r);
	bench_result_finish(r);
	f = fopen(o->child_result, "w");
	if (!f)
		return 1;
	fprintf(f, "blockings %llu\nframes %llu\njanky %llu\nhog_iters %llu\nblocked_ns %llu\n"
		   "holder_wait_ns %llu\np50 %llu\np99 %llu\np999 %llu\nmax %llu\nseconds %f\n"
		   "cpu_s %f\nboost_p50 %llu\nboost_p99 %llu\nboost_n %llu\nrt_cpu_s %f\n"
		   "steal_s %f\n",
		(unsigned long long)r->blockings, (unsigned long long)r->frames,
		(unsigned long long)r->janky, (unsigned long long)r->hog_iters,
		(unsigned long long)r->blocked_ns, (unsigned long long)r->holder_wait_ns,
		(unsigned long long)r->p50, (unsigned long long)r->p99,
		(unsigned long long)r->p999, (unsigned long long)r->max, r->seconds, r->cpu_s,
		(unsigned long long)r->boost_p50, (unsigned long long)r->boost_p99,
		(unsigned long long)r->boost_n, r->rt_cpu_s, r->steal_s);
	fclose(f);
	free(r);
	return 0;
}
