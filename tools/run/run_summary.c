// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The summary `superpass run` prints: for each process of the command
 * that wrote statistics (the interposer's JSON, lib/hosts/runtime/sp_stats_json.c,
 * read with json-c), its critical threads' blockings and their P50, P99,
 * P99.9 and maximum, what the fast track did (grants, budget expiries,
 * throttles, refusals, readers beyond K), and every overflow, limit or
 * suspicion counter that is not zero, with what it means and what to change
 * (tools/common/sp_cli_advice.c, shared with `superpass kmod stats`).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "sp_cli_advice.h"
#include "sp_cli_json.h"

#include "run.h"

#define RUN_MAX_FILES 4096

struct run_proc {
	pid_t pid;
	char path[PATH_MAX];
};

static void run_ms(FILE *out, const char *label, uint64_t ns)
{
	fprintf(out, "%s %.3f ms", label, (double)ns / 1e6);
}

static bool run_json_get(void *ctx, const char *name, uint64_t *value)
{
	json_object *v;

	if (!json_object_object_get_ex(ctx, name, &v))
		return false;
	*value = (uint64_t)json_object_get_int64(v);
	return true;
}

/* Any overflow, limit or suspicion counter of @j that is not zero. */
static bool run_has_alarms(json_object *j)
{
	return sp_cli_advice_print(NULL, "", SP_CLI_HOST_RUN, run_json_get, j) > 0;
}

/* The critical threads still registered at exit (those that exited are
 * gone from the list), after the names asked for. */
static void run_print_proc(FILE *out, json_object *j)
{
	json_object *threads, *hist, *mode;
	uint64_t n;

	if (json_object_object_get_ex(j, "threads", &threads) &&
	    json_object_is_type(threads, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(threads); i++) {
			json_object *t = json_object_array_get_idx(threads, i), *name, *crit;

			if (json_object_object_get_ex(t, "name", &name) &&
			    json_object_object_get_ex(t, "critical", &crit) &&
			    json_object_get_boolean(crit))
				fprintf(out, " %s (tid %llu)", json_object_get_string(name),
					(unsigned long long)sp_cli_json_u64(t, "tid"));
		}
	}
	fprintf(out, "\n");
	n = sp_cli_json_u64(j, "blockings");
	fprintf(out, "    blockings %llu", (unsigned long long)n);
	if (n && json_object_object_get_ex(j, "blocking_ns", &hist)) {
		run_ms(out, ": P50", sp_cli_json_u64(hist, "p50"));
		run_ms(out, ", P99", sp_cli_json_u64(hist, "p99"));
		run_ms(out, ", P99.9", sp_cli_json_u64(hist, "p999"));
		run_ms(out, ", max", sp_cli_json_u64(hist, "max"));
		if (n < 1000)
			fprintf(out, "\n    (fewer than 1000 blockings: P99.9 is the maximum of "
				     "a few)");
	}
	fprintf(out, "\n    fast track (%s): grants %llu, budget expiries %llu, throttles %llu, "
		     "refused %llu, readers beyond K %llu\n",
		json_object_object_get_ex(j, "mode", &mode) ? json_object_get_string(mode) : "?",
		(unsigned long long)sp_cli_json_u64(j, "grants"), (unsigned long long)sp_cli_json_u64(j, "expiries"),
		(unsigned long long)sp_cli_json_u64(j, "throttles"),
		(unsigned long long)sp_cli_json_u64(j, "grants_refused"),
		(unsigned long long)sp_cli_json_u64(j, "reader_overflows"));
	if (run_has_alarms(j)) {
		fprintf(out, "    limits hit and suspicions (what it means; what to change):\n");
		sp_cli_advice_print(out, "      ", SP_CLI_HOST_RUN, run_json_get, j);
	}
}

static const char *run_comm(json_object *j, pid_t pid)
{
	json_object *threads;

	if (!json_object_object_get_ex(j, "threads", &threads) ||
	    !json_object_is_type(threads, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(threads); i++) {
		json_object *t = json_object_array_get_idx(threads, i), *name;

		if ((pid_t)sp_cli_json_u64(t, "tid") == pid && json_object_object_get_ex(t, "name", &name))
			return json_object_get_string(name);
	}
	return NULL;
}

static int run_cmp(const void *a, const void *b)
{
	const struct run_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The pid in @name = @prefix<digits>@suffix; -1 if it does not match. */
static pid_t run_match(const char *name, const char *prefix, const char *suffix)
{
	size_t lp = strlen(prefix), ls = strlen(suffix), l = strlen(name);
	long pid = 0;

	if (l <= lp + ls || strncmp(name, prefix, lp) || strcmp(name + l - ls, suffix))
		return -1;
	for (size_t i = lp; i < l - ls; i++) {
		if (!isdigit((unsigned char)name[i]) || pid > 1000000000)
			return -1;
		pid = pid * 10 + (name[i] - '0');
	}
	return (pid_t)pid;
}

void run_clock_start(struct timespec *since)
{
	/* The clock the kernel dates a file's writes with (coarse): a file
	 * written after this call never has an older mtime. */
	clock_gettime(CLOCK_REALTIME_COARSE, since);
}

/* Written since @since: not a file an earlier run left under that name. */
static bool run_fresh(const char *path, const struct timespec *since)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return false;
	return st.st_mtim.tv_sec > since->tv_sec ||
	       (st.st_mtim.tv_sec == since->tv_sec && st.st_mtim.tv_nsec >= since->tv_nsec);
}

int run_summary(FILE *out, const char *dir, const char *prefix, const char *suffix, pid_t top,
		const char *critical, const struct timespec *since, bool remove,
		struct run_seen *seen)
{
	static struct run_proc procs[RUN_MAX_FILES];
	int n = 0, quiet = 0, nread = 0, stale = 0;
	DIR *d;
	struct dirent *e;

	if (!suffix) {
		procs[0].pid = top;
		snprintf(procs[0].path, sizeof(procs[0].path), "%s/%s", dir, prefix);
		n = access(procs[0].path, R_OK) == 0;
		if (n && !run_fresh(procs[0].path, since)) {
			n = 0;
			stale++;
		}
	} else if ((d = opendir(dir))) {
		while ((e = readdir(d)) && n < RUN_MAX_FILES) {
			pid_t pid = run_match(e->d_name, prefix, suffix);

			if (pid < 0)
				continue;
			procs[n].pid = pid;
			snprintf(procs[n].path, sizeof(procs[n].path), "%s/%s", dir, e->d_name);
			if (!run_fresh(procs[n].path, since)) {
				stale++; /* --stats' name matched a file of an earlier run */
				continue;
			}
			n++;
		}
		closedir(d);
	}
	qsort(procs, (size_t)n, sizeof(procs[0]), run_cmp);
	/* The command itself first, then its descendants that exec'd. */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n; i++) {
			json_object *j;

			if ((pass == 0) != (procs[i].pid == top))
				continue;
			j = json_object_from_file(procs[i].path);
			if (remove)
				unlink(procs[i].path);
			if (!j) {
				if (out)
					fprintf(out, "  %s: not valid JSON\n", procs[i].path);
				continue;
			}
			nread++;
			if (seen)
				run_seen_add(seen, j);
			if (out && !sp_cli_json_u64(j, "blockings") && !run_has_alarms(j) &&
			    pass == 1) {
				quiet++; /* a descendant with nothing to say */
			} else if (out) {
				const char *comm = run_comm(j, procs[i].pid);

				fprintf(out, "  pid %d%s%s%s, critical threads %s:", (int)procs[i].pid,
					comm ? " (" : "", comm ? comm : "", comm ? ")" : "", critical);
				run_print_proc(out, j);
			}
			json_object_put(j);
		}
	}
	if (out && quiet)
		fprintf(out, "  %d more process%s of the command: no critical blocking\n", quiet,
			quiet > 1 ? "es" : "");
	if (out && stale)
		fprintf(out, "  (%d statistics file%s of that name from before this run: not read)\n",
			stale, stale > 1 ? "s" : "");
	return nread;
}
