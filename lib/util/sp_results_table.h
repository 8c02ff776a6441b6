/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The results table that `superpass bench` (tools/bench/bench_report.c) and
 * the simulator (lib/hosts/sim/sp_sim_report.c) print: the same columns and
 * the same summary line, so that one script reads both. Each caller fills
 * a row from its own result type and prints its own trailing columns.
 */
#ifndef SP_RESULTS_TABLE_H
#define SP_RESULTS_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* One policy's figures; times in ns. */
struct sp_results_row {
	const char *label;
	uint64_t blockings, p50, p99, p999, max;
	uint64_t frames, janky;
	bool base;                /* the `none` row the others compare with */
	bool has_hog_lost;        /* hog_lost_pct is known (not for the base) */
	double hog_lost_pct;      /* background work lost against the base */
	double cpu_s;
	bool has_grants;          /* a policy that grants fast tracks */
	uint64_t grants, expiries;
	uint64_t blocked_ns, holder_wait_ns;
};

static inline double sp_results_ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* @v against @base in percent; 0 without a base. */
static inline double sp_results_pct(double v, double base)
{
	return base > 0 ? 100.0 * (v - base) / base : 0.0;
}

/* The shared column names, without the line's end. */
static inline void sp_results_print_columns(FILE *f)
{
	fprintf(f, "%-22s %9s %8s %8s %9s %8s %7s %6s %8s %6s %7s %7s %7s", "policy", "blockings",
		"p50_ms", "p99_ms", "p99.9_ms", "max_ms", "frames", "janky", "hog_lost", "cpu_s",
		"grants", "expired", "h_wait");
}

/* The shared columns of @r, without the line's end. */
static inline void sp_results_print_row(FILE *f, const struct sp_results_row *r)
{
	fprintf(f, "%-22s %9llu %8.2f %8.2f %9.2f %8.2f %7llu %6llu", r->label,
		(unsigned long long)r->blockings, sp_results_ms(r->p50), sp_results_ms(r->p99),
		sp_results_ms(r->p999), sp_results_ms(r->max), (unsigned long long)r->frames,
		(unsigned long long)r->janky);
	if (r->base)
		fprintf(f, " %8s", "base");
	else if (r->has_hog_lost)
		fprintf(f, " %7.1f%%", r->hog_lost_pct);
	else
		fprintf(f, " %8s", "-");
	fprintf(f, " %6.2f", r->cpu_s);
	if (r->has_grants)
		fprintf(f, " %7llu %7llu", (unsigned long long)r->grants,
			(unsigned long long)r->expiries);
	else
		fprintf(f, " %7s %7s", "-", "-");
	fprintf(f, " %6.0f%%", r->blocked_ns ? 100.0 * (double)r->holder_wait_ns /
						       (double)r->blocked_ns : 0.0);
}

/* One summary line: a policy against `none`, each figure in percent. */
static inline void sp_results_print_vs_none(FILE *f, const char *label, double p999_pct,
					    double blockings_pct, double janky_pct,
					    double hog_work_pct)
{
	fprintf(f, "  %-20s vs none: P99.9 %+6.1f%%, blockings %+6.1f%%, janky %+6.1f%%, "
		   "hog work %+5.1f%%\n",
		label, p999_pct, blockings_pct, janky_pct, hog_work_pct);
}

#endif /* SP_RESULTS_TABLE_H */
