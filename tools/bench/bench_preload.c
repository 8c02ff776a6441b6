// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The `superpass-preload` policy: the very workload of `none` (plain pthread
 * locks, no call into superpass), re-executed under
 * LD_PRELOAD=libsuperpass-preload.so with SUPERPASS_CRITICAL=sp-ui. The
 * child writes its figures to a file; the interposer writes its statistics
 * (grants, expiries) to SUPERPASS_STATS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static int file_exists(const char *p)
{
	return p && access(p, R_OK) == 0;
}

const char *bench_preload_path(void)
{
	static char buf[4096];
	const char *env = getenv("SUPERPASS_PRELOAD");
	ssize_t n;
	char *slash;

	if (env && *env)
		return file_exists(env) ? env : NULL;
	if (file_exists(SP_BUILD_PRELOAD))
		return SP_BUILD_PRELOAD;
	if (file_exists(SP_INSTALL_PRELOAD))
		return SP_INSTALL_PRELOAD;
	/* relocated install: <prefix>/bin/superpass next to <prefix>/lib */
	n = readlink("/proc/self/exe", buf, sizeof(buf) - 64);
	if (n > 0) {
		buf[n] = 0;
		slash = strrchr(buf, '/');
		if (slash) {
			strcpy(slash, "/../lib/libsuperpass-preload.so");
			if (file_exists(buf))
				return buf;
		}
	}
	return NULL;
}

static int find_san(struct dl_phdr_info *info, size_t size, void *arg)
{
	char *out = arg;

	(void)size;
	if (info->dlpi_name && (strstr(info->dlpi_name, "/libasan.so") ||
				strstr(info->dlpi_name, "/libtsan.so"))) {
		snprintf(out, 1024, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

/* The LD_PRELOAD value for a re-executed child: a sanitizer runtime this
 * very binary uses must come first (sanitized builds), then the interposer. */
void bench_preload_env(char *out, size_t cap, const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	char san[1024] = "";

	dl_iterate_phdr(find_san, san);
	snprintf(out, cap, "%s%s%s%s%s", san, san[0] ? ":" : "", old && *old ? old : "",
		 old && *old ? ":" : "", lib);
}

/* The number after "key": in the interposer's flat JSON; 0 if absent. */
static uint64_t json_u64(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(json, pat);
	return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

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
	const char *lib = bench_preload_path();
	char scbuf[8], kbuf[16], prio[16], budget[32], pre[4200], *json;
	char **args;
	int fd1, fd2, status = 0;
	pid_t pid;
	FILE *f;

	memset(r, 0, sizeof(*r));
	sp_hist_init(&r->hist);
	sp_hist_init(&r->boost_hist);
	r->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	r->scenario = sc;
	r->policy = PO_PRELOAD;
	r->k = sc == SC_RWLOCK ? k : 0;
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
		bench_preload_env(pre, sizeof(pre), lib);
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
	f = fopen(st, "r");
	if (f) {
		json = calloc(1, 1 << 16);
		if (json && fread(json, 1, (1 << 16) - 1, f) > 0) {
			/* The interposer writes every field of both lists. */
#define SP_BENCH_CORE(name, kind, help) r->stats.core.name = json_u64(json, #name);
#define SP_BENCH_RT(name, kind, help) r->stats.name = json_u64(json, #name);
			SP_STATS_FIELDS(SP_BENCH_CORE)
			SP_RUNTIME_STATS_FIELDS(SP_BENCH_RT)
#undef SP_BENCH_CORE
#undef SP_BENCH_RT
			r->have_stats = true;
			r->grants = r->stats.core.grants;
			r->expiries = r->stats.core.expiries;
			r->fast_tracks = r->stats.act_fast_tracks;
			if (!strstr(json, "\"mode\": \"fifo\""))
				snprintf(r->note, sizeof(r->note), "interposer not in fifo mode");
		}
		free(json);
		fclose(f);
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
