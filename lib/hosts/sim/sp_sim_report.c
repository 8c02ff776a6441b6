// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Reports in the shape of `superpass bench` (tools/bench/bench_report.c):
 * the same columns and summary lines (lib/util/sp_results_table.h prints
 * both) and the same JSON record keys, so one script reads both. Simulated figures: hog_lost compares the
 * background CPU work with the `none` run of the same length; cpu_s is
 * the simulated CPU time used; nothing here reads a real clock, so the
 * output of a run is a function of its input and seed.
 */
#include <errno.h>
#include <string.h>

#include <json-c/json.h>

#include "sp_results_table.h"
#include "sp_sim_internal.h"

#define SP_UNBOUNDED_K 64u

const char *sp_sim_policy_label(const struct sp_sim_result *r, char *buf, size_t cap)
{
	if (r->policy == SP_SIM_POL_SUPERPASS && r->k >= SP_UNBOUNDED_K)
		snprintf(buf, cap, "superpass K=%u (all)", r->k);
	else if (r->policy == SP_SIM_POL_SUPERPASS)
		snprintf(buf, cap, "superpass K=%u", r->k);
	else
		snprintf(buf, cap, "%s", sp_sim_policy_name(r->policy));
	return buf;
}

void sp_sim_print_header(FILE *f, const char *scenario, uint32_t cpus, uint64_t duration_ns)
{
	fprintf(f, "\n== %s: simulated, %u CPUs, %.1f s per policy\n", scenario, cpus,
		(double)duration_ns / 1e9);
	sp_results_print_columns(f);
	fprintf(f, "\n");
}

void sp_sim_print_row(FILE *f, const struct sp_sim_result *r, const struct sp_sim_result *none)
{
	char name[40];
	struct sp_results_row row = {
		.label = sp_sim_policy_label(r, name, sizeof(name)),
		.blockings = r->blockings, .p50 = r->p50, .p99 = r->p99, .p999 = r->p999,
		.max = r->max, .frames = r->frames, .janky = r->janky,
		.base = r == none,
		.has_hog_lost = none && none->bg_work_ns,
		.cpu_s = (double)r->busy_ns / 1e9,
		.has_grants = r->policy == SP_SIM_POL_SUPERPASS || r->policy == SP_SIM_POL_UX_WRITER,
		.grants = r->grants, .expiries = r->expiries,
		.blocked_ns = r->blocked_ns, .holder_wait_ns = r->holder_wait_ns,
	};

	if (row.has_hog_lost)
		row.hog_lost_pct = -sp_results_pct((double)r->bg_work_ns, (double)none->bg_work_ns);
	sp_results_print_row(f, &row);
	if (r->stalled)
		fprintf(f, "  (%llu threads stalled)", (unsigned long long)r->stalled);
	if (r->blockings && r->blockings < 1000)
		fprintf(f, "  (P99.9 of %llu: near the max)", (unsigned long long)r->blockings);
	fprintf(f, "\n");
}

void sp_sim_print_summary(FILE *f, const struct sp_sim_result *rs, int n)
{
	const struct sp_sim_result *none = NULL;
	char name[40];

	for (int i = 0; i < n; i++)
		if (rs[i].policy == SP_SIM_POL_NONE)
			none = &rs[i];
	if (!none)
		return;
	for (int i = 0; i < n; i++) {
		const struct sp_sim_result *r = &rs[i];

		if (r == none)
			continue;
		sp_results_print_vs_none(f, sp_sim_policy_label(r, name, sizeof(name)),
					 sp_results_pct((double)r->p999, (double)none->p999),
					 sp_results_pct((double)r->blockings, (double)none->blockings),
					 sp_results_pct((double)r->janky, (double)none->janky),
					 sp_results_pct((double)r->bg_work_ns, (double)none->bg_work_ns));
	}
}

static void sp_add_u(struct json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static void sp_add_d(struct json_object *o, const char *k, double v)
{
	char buf[32];

	/* Fixed decimals, as the bench writes them (and the same bytes on
	 * every run). */
	snprintf(buf, sizeof(buf), "%.3f", v);
	json_object_object_add(o, k, json_object_new_double_s(v, buf));
}

int sp_sim_write_json(FILE *f, const struct sp_sim_result *rs, int n, uint64_t seed)
{
	struct json_object *root = json_object_new_object(), *runs = json_object_new_array();
	struct json_object *opts = json_object_new_object();
	const char *s;
	int rc;

	if (!root || !runs || !opts)
		return -ENOMEM;
	json_object_object_add(opts, "simulated", json_object_new_boolean(1));
	sp_add_u(opts, "seed", seed);
	json_object_object_add(root, "options", opts);
	for (int i = 0; i < n; i++) {
		const struct sp_sim_result *r = &rs[i];
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "scenario", json_object_new_string(r->scenario));
		json_object_object_add(o, "policy", json_object_new_string(sp_sim_policy_name(r->policy)));
		sp_add_u(o, "k", r->k);
		json_object_object_add(o, "skipped", json_object_new_boolean(0));
		json_object_object_add(o, "note", json_object_new_string(""));
		sp_add_u(o, "blockings", r->blockings);
		sp_add_u(o, "p50_ns", r->p50);
		sp_add_u(o, "p99_ns", r->p99);
		sp_add_u(o, "p999_ns", r->p999);
		sp_add_u(o, "max_ns", r->max);
		sp_add_u(o, "frames", r->frames);
		sp_add_u(o, "janky", r->janky);
		/* the bench counts hog loop iterations; here one is 1 us of work */
		sp_add_u(o, "hog_iters", r->bg_work_ns / 1000);
		sp_add_d(o, "seconds", (double)r->sim_ns / 1e9);
		sp_add_d(o, "cpu_s", (double)r->busy_ns / 1e9);
		sp_add_u(o, "blocked_ns", r->blocked_ns);
		sp_add_u(o, "holder_wait_ns", r->holder_wait_ns);
		sp_add_u(o, "grants", r->grants);
		sp_add_u(o, "expiries", r->expiries);
		sp_add_u(o, "fast_tracks", r->fast_tracks);
		/* the simulator's own */
		sp_add_u(o, "cpus", r->cpus);
		sp_add_u(o, "restores", r->restores);
		sp_add_u(o, "boosted_at_end", r->boosted_at_end);
		sp_add_u(o, "bg_work_ns", r->bg_work_ns);
		sp_add_u(o, "proxy_runs", r->proxy_runs);
		sp_add_u(o, "proxy_migrations", r->proxy_migrations);
		sp_add_u(o, "pi_boosts", r->pi_boosts);
		sp_add_u(o, "deferrals", r->deferrals);
		sp_add_u(o, "handoff_yields", r->handoffs);
		sp_add_u(o, "handoff_timeouts", r->handoff_timeouts);
		sp_add_u(o, "events", r->events);
		sp_add_u(o, "ctx_switches", r->ctx_switches);
		sp_add_u(o, "stalled", r->stalled);
		json_object_array_add(runs, o);
	}
	json_object_object_add(root, "runs", runs);
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
	rc = s && fputs(s, f) >= 0 && fputc('\n', f) != EOF ? 0 : -EIO;
	json_object_put(root);
	return rc;
}
