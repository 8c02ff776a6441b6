// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The table on stdout and the JSON file. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "bench.h"

#define SP_BENCH_UNBOUNDED_K 64u /* the core's maximum: every reader tracked */

void bench_result_finish(struct bench_result *r)
{
	if (!r->hist.count)
		return;
	r->p50 = sp_hist_quantile(&r->hist, 50, 100);
	r->p99 = sp_hist_quantile(&r->hist, 99, 100);
	r->p999 = sp_hist_quantile(&r->hist, 999, 1000);
	r->max = r->hist.max;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static double pct(double v, double base)
{
	return base > 0 ? 100.0 * (v - base) / base : 0.0;
}

static const char *label(const struct bench_result *r, char *buf, size_t cap)
{
	if (r->k >= SP_BENCH_UNBOUNDED_K && r->policy == PO_SUPERPASS)
		snprintf(buf, cap, "%s K=%u (all)", bench_policy_name[r->policy], r->k);
	else if (r->k && (r->policy == PO_SUPERPASS || r->policy == PO_PRELOAD))
		snprintf(buf, cap, "%s K=%u", bench_policy_name[r->policy], r->k);
	else
		snprintf(buf, cap, "%s", bench_policy_name[r->policy]);
	return buf;
}

void bench_print_header(FILE *f, const struct bench_opts *o, enum bench_scenario sc)
{
	static const char *const what[SC_NR] = {
		"critical thread vs %d mutex holders",
		"critical writer vs %d concurrent readers",
		"critical waits on holder A, which waits on holder B (%d holders)",
	};
	int n = sc == SC_RWLOCK ? o->readers : sc == SC_CHAIN ? (o->holders > 2 ? o->holders : 2)
							      : o->holders;

	fprintf(f, "\n== %s: ", bench_scenario_name[sc]);
	fprintf(f, what[sc], n);
	fprintf(f, " at nice %d, %d hogs at nice %d, critical at nice %d, cs %u us, %.1f s per "
		   "policy\n",
		o->bg_nice, o->hogs, o->hog_nice, o->ui_nice, o->cs_us, o->duration_s);
	fprintf(f, "%-22s %9s %8s %8s %9s %8s %7s %6s %8s %6s %7s %7s %7s\n", "policy", "blockings",
		"p50_ms", "p99_ms", "p99.9_ms", "max_ms", "frames", "janky", "hog_lost", "cpu_s",
		"grants", "expired", "h_wait");
}

void bench_print_row(FILE *f, const struct bench_result *r, const struct bench_result *none)
{
	char name[40];

	label(r, name, sizeof(name));
	if (r->skipped) {
		fprintf(f, "%-22s skipped: %s\n", name, r->note);
		return;
	}
	fprintf(f, "%-22s %9llu %8.2f %8.2f %9.2f %8.2f %7llu %6llu", name,
		(unsigned long long)r->blockings, ms(r->p50), ms(r->p99), ms(r->p999), ms(r->max),
		(unsigned long long)r->frames, (unsigned long long)r->janky);
	if (r == none)
		fprintf(f, " %8s", "base");
	else if (none && !none->skipped && none->hog_iters)
		fprintf(f, " %7.1f%%", -pct((double)r->hog_iters / r->seconds,
					    (double)none->hog_iters / none->seconds));
	else
		fprintf(f, " %8s", "-");
	fprintf(f, " %6.2f", r->cpu_s);
	if (r->policy == PO_SUPERPASS || r->policy == PO_PRELOAD)
		fprintf(f, " %7llu %7llu", (unsigned long long)r->grants,
			(unsigned long long)r->expiries);
	else
		fprintf(f, " %7s %7s", "-", "-");
	fprintf(f, " %6.0f%%", r->blocked_ns ? 100.0 * (double)r->holder_wait_ns /
						       (double)r->blocked_ns : 0.0);
	if (r->note[0])
		fprintf(f, "  (%s)", r->note);
	fprintf(f, "\n");
}

/* One line per policy against `none`, as the paper reports it. */
void bench_print_summary(FILE *f, const struct bench_result *rs, int n, enum bench_scenario sc)
{
	const struct bench_result *none = NULL;
	char name[40];

	for (int i = 0; i < n; i++)
		if (rs[i].scenario == sc && rs[i].policy == PO_NONE && !rs[i].skipped)
			none = &rs[i];
	if (!none)
		return;
	for (int i = 0; i < n; i++) {
		const struct bench_result *r = &rs[i];

		if (r->scenario != sc || r == none || r->skipped)
			continue;
		fprintf(f, "  %-20s vs none: P99.9 %+6.1f%%, blockings %+6.1f%%, janky %+6.1f%%, "
			   "hog work %+5.1f%%\n",
			label(r, name, sizeof(name)), pct((double)r->p999, (double)none->p999),
			pct((double)r->blockings, (double)none->blockings),
			pct((double)r->janky, (double)none->janky),
			pct((double)r->hog_iters / r->seconds,
			    (double)none->hog_iters / none->seconds));
	}
}

/* "core" and "runtime": every counter of both lists, or null for the
 * policies that do not run superpass. */
static void json_stats(FILE *f, const struct bench_result *r)
{
	const char *sep = "";

	if (!r->have_stats) {
		fprintf(f, "\"core\": null, \"runtime\": null");
		return;
	}
	fprintf(f, "\"core\": {");
#define SP_BENCH_CORE(name, kind, help) \
	fprintf(f, "%s\"" #name "\": %llu", sep, (unsigned long long)r->stats.core.name); \
	sep = ", ";
	SP_STATS_FIELDS(SP_BENCH_CORE)
#undef SP_BENCH_CORE
	fprintf(f, "}, \"runtime\": {");
	sep = "";
#define SP_BENCH_RT(name, kind, help) \
	fprintf(f, "%s\"" #name "\": %llu", sep, (unsigned long long)r->stats.name); \
	sep = ", ";
	SP_RUNTIME_STATS_FIELDS(SP_BENCH_RT)
#undef SP_BENCH_RT
	fprintf(f, "}");
}

int bench_write_json(const char *path, const struct bench_opts *o, const struct bench_result *rs,
		     int n)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fprintf(f, "{\n  \"options\": {\"duration_s\": %.3f, \"hogs\": %d, \"holders\": %d, "
		   "\"readers\": %d, \"ui_nice\": %d, \"bg_nice\": %d, \"hog_nice\": %d, "
		   "\"cs_us\": %u, \"ui_cs_us\": %u, \"ui_work_us\": %u, \"locks_per_frame\": %u, "
		   "\"gap_us\": %u, \"prio\": %d, \"budget_ms\": %u, \"seed\": %llu},\n"
		   "  \"runs\": [\n",
		o->duration_s, o->hogs, o->holders, o->readers, o->ui_nice, o->bg_nice, o->hog_nice,
		o->cs_us, o->ui_cs_us, o->ui_work_us, o->locks_per_frame, o->gap_us, o->prio,
		o->budget_ms, (unsigned long long)o->seed);
	for (int i = 0; i < n; i++) {
		const struct bench_result *r = &rs[i];

		fprintf(f, "    {\"scenario\": \"%s\", \"policy\": \"%s\", \"k\": %u, "
			   "\"skipped\": %s, \"note\": \"%s\", \"blockings\": %llu, "
			   "\"p50_ns\": %llu, \"p99_ns\": %llu, \"p999_ns\": %llu, \"max_ns\": %llu, "
			   "\"frames\": %llu, \"janky\": %llu, \"hog_iters\": %llu, "
			   "\"seconds\": %.3f, \"cpu_s\": %.3f, \"blocked_ns\": %llu, "
			   "\"holder_wait_ns\": %llu, \"grants\": %llu, \"expiries\": %llu, "
			   "\"fast_tracks\": %llu, ",
			bench_scenario_name[r->scenario], bench_policy_name[r->policy], r->k,
			r->skipped ? "true" : "false", r->note, (unsigned long long)r->blockings,
			(unsigned long long)r->p50, (unsigned long long)r->p99,
			(unsigned long long)r->p999, (unsigned long long)r->max,
			(unsigned long long)r->frames, (unsigned long long)r->janky,
			(unsigned long long)r->hog_iters, r->seconds, r->cpu_s,
			(unsigned long long)r->blocked_ns, (unsigned long long)r->holder_wait_ns,
			(unsigned long long)r->grants, (unsigned long long)r->expiries,
			(unsigned long long)r->fast_tracks);
		json_stats(f, r);
		fprintf(f, "}%s\n", i + 1 < n ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	return fclose(f) == 0 ? 0 : -1;
}
