// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The table on stdout and the JSON file. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "sp_cli_output.h"
#include "sp_results_table.h"

#define SP_BENCH_UNBOUNDED_K 64u /* the core's maximum: every reader tracked */

void bench_result_init(struct bench_result *r, enum bench_scenario sc, enum bench_policy po,
		       uint32_t k)
{
	memset(r, 0, sizeof(*r));
	sp_hist_init(&r->hist);
	sp_hist_init(&r->boost_hist);
	r->ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	r->scenario = sc;
	r->policy = po;
	r->k = sc == SC_RWLOCK ? k : 0;
}

void bench_result_finish(struct bench_result *r)
{
	if (!r->hist.count)
		return;
	r->p50 = sp_hist_quantile(&r->hist, 50, 100);
	r->p99 = sp_hist_quantile(&r->hist, 99, 100);
	r->p999 = sp_hist_quantile(&r->hist, 999, 1000);
	r->max = r->hist.max;
	r->boost_n = r->boost_hist.count;
	if (r->boost_n) {
		r->boost_p50 = sp_hist_quantile(&r->boost_hist, 50, 100);
		r->boost_p99 = sp_hist_quantile(&r->boost_hist, 99, 100);
	}
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

/*
 * The table has the same columns whatever --repeat is: each cell is the
 * median over the runs of its row, and P99.9 and janky add the least and
 * most in parentheses when there is more than one run.
 */
/* The widths of the columns that carry a range with --repeat. */
#define W999(reps) ((reps) > 1 ? 22 : 9)
#define WJANKY(reps) ((reps) > 1 ? 13 : 6)
#define WHOG(reps) ((reps) > 1 ? 21 : 8)

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
	if (o->repeat > 1)
		fprintf(f, "%d runs of each row: medians, (least-most) for P99.9, janky and hog_lost\n",
			o->repeat);
	fprintf(f, "%-22s %9s %8s %8s %-*s %8s %-*s %-*s %6s %7s %7s %6s %s\n", "policy",
		"blockings", "p50_ms", "p99_ms", W999(o->repeat), "p99.9_ms", "max_ms",
		WJANKY(o->repeat), "janky", WHOG(o->repeat), "hog_lost", "h_wait", "grants",
		"expired", "rt_cpu", "boost_us");
}

static double rt_share(const struct bench_result *r)
{
	double all = r->seconds * (r->ncpus > 0 ? r->ncpus : 1);

	return all > 0 ? 100.0 * r->rt_cpu_s / all : 0.0;
}

static bool sp_row(const struct bench_result *r)
{
	return r->policy == PO_SUPERPASS || r->policy == PO_PRELOAD;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median, min, max of @n values (sorted in place). */
static void mmm(double *v, int n, double *med, double *lo, double *hi)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	*lo = v[0];
	*hi = v[n - 1];
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double median(double *v, int n)
{
	double med, lo, hi;

	mmm(v, n, &med, &lo, &hi);
	return med;
}

/* "MED" for one value, "MED (LO-HI)" for more, left-aligned in @width. */
static void print_mmm(FILE *f, int width, const char *fmt1, const char *fmt, double *v, int n)
{
	char buf[64];
	double med, lo, hi;

	mmm(v, n, &med, &lo, &hi);
	if (n == 1)
		snprintf(buf, sizeof(buf), fmt1, med);
	else
		snprintf(buf, sizeof(buf), fmt, med, lo, hi);
	fprintf(f, " %-*s", width, buf);
}

/* The hog rate lost against `none` in each pass; -1 if unknown. */
static double hog_lost(const struct bench_result *rs, int rows, int rep, int row)
{
	const struct bench_result *r = &rs[rep * rows + row], *none = NULL;

	for (int j = 0; j < rows; j++)
		if (rs[rep * rows + j].policy == PO_NONE)
			none = &rs[rep * rows + j];
	if (r->skipped || !none || none->skipped || !none->hog_iters)
		return -1;
	return -sp_results_pct((double)r->hog_iters / r->seconds,
			       (double)none->hog_iters / none->seconds);
}

/* The medians of one row, for the summary lines against `none`. */
struct bench_medians {
	bool ok;
	double p999, blockings, janky, hog_rate;
};

void bench_print_table(FILE *f, const struct bench_opts *o, const struct bench_result *rs,
		       int rows, int reps)
{
	struct bench_medians md[PO_NR * BENCH_MAX_K] = { 0 };
	const struct bench_result *none0 = NULL;
	double v[100];
	char name[40];
	int n;

	(void)o;
	for (int row = 0; row < rows; row++) {
		const struct bench_result *r0 = &rs[row];

		label(r0, name, sizeof(name));
#define SP_REP_COLLECT(expr)                                                  \
	do {                                                                  \
		n = 0;                                                        \
		for (int rep = 0; rep < reps; rep++) {                        \
			const struct bench_result *r = &rs[rep * rows + row]; \
			if (!r->skipped)                                      \
				v[n++] = (double)(expr);                      \
		}                                                             \
	} while (0)
		SP_REP_COLLECT(r->blockings);
		if (!n) {
			fprintf(f, "%-22s skipped: %s\n", name, r0->note);
			continue;
		}
		fprintf(f, "%-22s", name);
		md[row].ok = true;
		md[row].blockings = median(v, n);
		fprintf(f, " %9.0f", median(v, n));
		SP_REP_COLLECT(r->p50 / 1e6);
		fprintf(f, " %8.2f", median(v, n));
		SP_REP_COLLECT(r->p99 / 1e6);
		fprintf(f, " %8.2f", median(v, n));
		SP_REP_COLLECT(r->p999 / 1e6);
		md[row].p999 = median(v, n);
		print_mmm(f, W999(reps), "%.2f", "%.2f (%.2f-%.2f)", v, n);
		SP_REP_COLLECT(r->max / 1e6);
		fprintf(f, " %8.2f", median(v, n));
		SP_REP_COLLECT(r->janky);
		md[row].janky = median(v, n);
		print_mmm(f, WJANKY(reps), "%.0f", "%.0f (%.0f-%.0f)", v, n);
		SP_REP_COLLECT(r->seconds > 0 ? (double)r->hog_iters / r->seconds : 0);
		md[row].hog_rate = median(v, n);
		if (r0->policy == PO_NONE) {
			none0 = r0;
			fprintf(f, " %-*s", WHOG(reps), "base");
		} else {
			n = 0;
			for (int rep = 0; rep < reps; rep++)
				if (hog_lost(rs, rows, rep, row) != -1)
					v[n++] = hog_lost(rs, rows, rep, row);
			if (n)
				print_mmm(f, WHOG(reps), "%.1f%%", "%.1f%% (%.1f..%.1f)", v, n);
			else
				fprintf(f, " %-*s", WHOG(reps), "-");
		}
		SP_REP_COLLECT(r->blocked_ns ? 100.0 * (double)r->holder_wait_ns /
						       (double)r->blocked_ns : 0.0);
		fprintf(f, " %5.0f%%", median(v, n));
		if (sp_row(r0)) {
			char buf[40];
			double p50;

			SP_REP_COLLECT(r->grants);
			fprintf(f, " %7.0f", median(v, n));
			SP_REP_COLLECT(r->expiries);
			fprintf(f, " %7.0f", median(v, n));
			SP_REP_COLLECT(rt_share(r));
			fprintf(f, " %5.2f%%", median(v, n));
			SP_REP_COLLECT(r->boost_p50 / 1e3);
			p50 = median(v, n);
			SP_REP_COLLECT(r->boost_p99 / 1e3);
			snprintf(buf, sizeof(buf), "%.0f/%.0f", p50, median(v, n));
			fprintf(f, " %s", buf);
		} else {
			fprintf(f, " %7s %7s %6s %s", "-", "-", "-", "-");
		}
#undef SP_REP_COLLECT
		if (r0->note[0])
			fprintf(f, "  (%s)", r0->note);
		fprintf(f, "\n");
	}
	/* One line per policy against `none`, as the paper reports it. */
	if (!none0 || !md[none0 - rs].ok)
		return;
	for (int row = 0; row < rows; row++) {
		const struct bench_medians *m = &md[row], *b = &md[none0 - rs];

		if (!m->ok || &rs[row] == none0)
			continue;
		sp_results_print_vs_none(f, label(&rs[row], name, sizeof(name)),
					 sp_results_pct(m->p999, b->p999),
					 sp_results_pct(m->blockings, b->blockings),
					 sp_results_pct(m->janky, b->janky),
					 sp_results_pct(m->hog_rate, b->hog_rate));
	}
}

void bench_print_steal(FILE *f, const struct bench_result *rs, int n)
{
	const struct bench_result *worst = NULL;
	double all = 0, cpu = 0;
	char name[40];

	for (int i = 0; i < n; i++) {
		const struct bench_result *r = &rs[i];

		if (r->skipped || r->steal_s < 0)
			continue;
		all += r->steal_s;
		cpu += r->seconds * (r->ncpus > 0 ? r->ncpus : 1);
		if (!worst || r->steal_s > worst->steal_s)
			worst = r;
	}
	/* /proc/stat counts in ticks of 10 ms */
	if (!worst || worst->steal_s < 0.005 || cpu <= 0)
		return;
	fprintf(f, "host steal: the hypervisor ran something else for %.0f ms of these runs' CPU "
		   "time (%.2f %%), %.0f ms of it in one run\n(%s, pass %d): a virtual CPU taken "
		   "away stalls what it runs, and a run's longest wait may be the host's\n",
		all * 1e3, 100.0 * all / cpu, worst->steal_s * 1e3,
		label(worst, name, sizeof(name)), worst->rep + 1);
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
	FILE *f = sp_cli_output_open(path);

	if (!f)
		return -1;
	fprintf(f, "{\n  \"options\": {\"duration_s\": %.3f, \"hogs\": %d, \"holders\": %d, "
		   "\"readers\": %d, \"ui_nice\": %d, \"bg_nice\": %d, \"hog_nice\": %d, "
		   "\"cs_us\": %u, \"ui_cs_us\": %u, \"ui_work_us\": %u, \"locks_per_frame\": %u, "
		   "\"gap_us\": %u, \"prio\": %d, \"budget_ms\": %u, \"seed\": %llu, "
		   "\"repeat\": %d},\n"
		   "  \"runs\": [\n",
		o->duration_s, o->hogs, o->holders, o->readers, o->ui_nice, o->bg_nice, o->hog_nice,
		o->cs_us, o->ui_cs_us, o->ui_work_us, o->locks_per_frame, o->gap_us, o->prio,
		o->budget_ms, (unsigned long long)o->seed, o->repeat);
	for (int i = 0; i < n; i++) {
		const struct bench_result *r = &rs[i];

		fprintf(f, "    {\"scenario\": \"%s\", \"policy\": \"%s\", \"k\": %u, "
			   "\"skipped\": %s, \"note\": \"%s\", \"blockings\": %llu, "
			   "\"p50_ns\": %llu, \"p99_ns\": %llu, \"p999_ns\": %llu, \"max_ns\": %llu, "
			   "\"frames\": %llu, \"janky\": %llu, \"hog_iters\": %llu, "
			   "\"seconds\": %.3f, \"cpu_s\": %.3f, \"blocked_ns\": %llu, "
			   "\"holder_wait_ns\": %llu, \"grants\": %llu, \"expiries\": %llu, "
			   "\"fast_tracks\": %llu, \"rep\": %d, \"boost_p50_ns\": %llu, "
			   "\"boost_p99_ns\": %llu, \"boosts_measured\": %llu, \"rt_cpu_s\": %.4f, "
			   "\"steal_s\": %.3f, ",
			bench_scenario_name[r->scenario], bench_policy_name[r->policy], r->k,
			r->skipped ? "true" : "false", r->note, (unsigned long long)r->blockings,
			(unsigned long long)r->p50, (unsigned long long)r->p99,
			(unsigned long long)r->p999, (unsigned long long)r->max,
			(unsigned long long)r->frames, (unsigned long long)r->janky,
			(unsigned long long)r->hog_iters, r->seconds, r->cpu_s,
			(unsigned long long)r->blocked_ns, (unsigned long long)r->holder_wait_ns,
			(unsigned long long)r->grants, (unsigned long long)r->expiries,
			(unsigned long long)r->fast_tracks, r->rep,
			(unsigned long long)r->boost_p50, (unsigned long long)r->boost_p99,
			(unsigned long long)r->boost_n, r->rt_cpu_s, r->steal_s);
		json_stats(f, r);
		fprintf(f, "}%s\n", i + 1 < n ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	return sp_cli_output_close(f) == 0 ? 0 : -1;
}
