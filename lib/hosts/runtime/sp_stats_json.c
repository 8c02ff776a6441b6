// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Statistics of the runtime as one JSON object (SUPERPASS_STATS, tests):
 * every field of SP_STATS_FIELDS and SP_RUNTIME_STATS_FIELDS, flat. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sp_handoff.h"
#include "sp_rt.h"

static void sp_json_thread(void *arg, sp_tid_t tid, const char *name, int crit)
{
	FILE *f = arg;
	static int first; /* serialised by the registry lock */

	if (tid == 0) { /* reset marker */
		first = 1;
		return;
	}
	fprintf(f, "%s{\"tid\": %llu, \"name\": \"", first ? "" : ", ", (unsigned long long)tid);
	for (const char *p = name; *p; p++)
		if (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
			fputc(*p, f);
	fprintf(f, "\", \"critical\": %s}", crit ? "true" : "false");
	first = 0;
}

/* "names_seen" and "critical_names_matched": two JSON arrays of strings. */
struct sp_json_seen {
	FILE *f;
	int matched; /* the list being written */
	int first;
};

static void sp_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const char *p = s; *p; p++)
		if (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
			fputc(*p, f);
	fputc('"', f);
}

static void sp_json_seen_name(void *arg, const char *name, int matched)
{
	struct sp_json_seen *x = arg;

	if (matched != x->matched)
		return;
	if (!x->first)
		fputs(", ", x->f);
	sp_json_str(x->f, name);
	x->first = 0;
}

static void sp_json_seen(FILE *f)
{
	struct sp_json_seen x = { .f = f, .first = 1 };
	uint32_t more;

	fprintf(f, "  \"names_seen\": [");
	sp_rt_registry_seen(sp_json_seen_name, &x, &more);
	fprintf(f, "],\n  \"names_seen_more\": %u,\n  \"critical_names_matched\": [", more);
	x.matched = 1;
	x.first = 1;
	sp_rt_registry_seen(sp_json_seen_name, &x, &more);
	fprintf(f, "],\n");
}

int sp_runtime_write_json(FILE *f)
{
	struct sp_runtime_stats st;
	struct sp_hist *h;
	struct sp_core *core;

	sp_rt_enter();
	core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE);
	h = malloc(sizeof(*h));
	if (!h) {
		sp_rt_leave();
		return -ENOMEM;
	}
	sp_hist_init(h);
	sp_runtime_stats(&st); /* zeroes st when there is no core */
	if (core)
		sp_core_blocking_hist(core, h);
	fprintf(f, "{\n  \"pid\": %d,\n  \"mode\": \"%s\",\n  \"core\": %s,\n", (int)getpid(),
		sp_act_mode_name((enum sp_act_mode)st.mode), core ? "true" : "false");
	/* Every counter, from the lists: none can be left out by hand. */
#define SP_JSON_CORE(name, kind, help) \
	fprintf(f, "  \"" #name "\": %llu,\n", (unsigned long long)st.core.name);
#define SP_JSON_RT(name, kind, help) \
	fprintf(f, "  \"" #name "\": %llu,\n", (unsigned long long)st.name);
	SP_STATS_FIELDS(SP_JSON_CORE)
	SP_RUNTIME_STATS_FIELDS(SP_JSON_RT)
#undef SP_JSON_CORE
#undef SP_JSON_RT
	{
		/* Not in struct sp_runtime_stats: a new member would change
		 * its size under programs built against the released header. */
		uint64_t yields, timeouts, unpublished;

		sp_ho_counts(&yields, &timeouts, &unpublished);
		fprintf(f, "  \"handoff_yields\": %llu,\n  \"handoff_timeouts\": %llu,\n"
			   "  \"handoff_unpublished\": %llu,\n",
			(unsigned long long)yields, (unsigned long long)timeouts,
			(unsigned long long)unpublished);
	}
	fprintf(f, "  \"blocking_ns\": {\"count\": %llu, \"p50\": %llu, \"p99\": %llu, "
		   "\"p999\": %llu, \"max\": %llu},\n",
		(unsigned long long)h->count, (unsigned long long)sp_hist_quantile(h, 50, 100),
		(unsigned long long)sp_hist_quantile(h, 99, 100),
		(unsigned long long)sp_hist_quantile(h, 999, 1000), (unsigned long long)h->max);
	sp_json_seen(f);
	fprintf(f, "  \"threads\": [");
	sp_json_thread(f, 0, NULL, 0);
	sp_rt_registry_each(sp_json_thread, f);
	fprintf(f, "]\n}\n");
	free(h);
	sp_rt_leave();
	return ferror(f) ? -EIO : 0;
}

/* The statistics file of SUPERPASS_STATS: never through a link, never
 * another user's file (sp_rt_files.c), replaced whole. */
int sp_rt_write_stats_file(const char *path)
{
	char tmp[PATH_MAX + 8];
	FILE *f;
	int fd, rc;

	fd = sp_rt_file_begin("statistics", path, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	f = fdopen(fd, "w");
	if (!f) {
		rc = -errno;
		close(fd);
		return sp_rt_file_commit(tmp, path, rc);
	}
	rc = sp_runtime_write_json(f);
	if (fclose(f) != 0 && !rc)
		rc = -errno;
	return sp_rt_file_commit(tmp, path, rc);
}
