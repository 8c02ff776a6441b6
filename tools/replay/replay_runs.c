// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * One policy of a replay, run several times: the same workload with its CPU
 * bursts jittered a little under consecutive seeds, and the run of median
 * P99.9 kept as the policy's row.
 *
 * Why more than one run: a replay is a deterministic function of its input,
 * and a chaotic one. On the bench's `none` traces a base slice 1 % longer
 * or shorter moved the replay's blockings by up to 22 %, its P99.9 and
 * janky frames as much, so one run said as much about the trace as one coin
 * toss. The trace itself is one draw too: ten recordings of the same
 * mutex bench had 24-40 blockings. Medians over a few jittered runs put the
 * replay's own spread next to the trace, and a prediction is no longer the
 * one run that found an unlucky balance.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "replay.h"

static int rp_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void rp_run_opts(const struct sp_sim_opts *o, int n, int i, struct sp_sim_opts *so)
{
	*so = *o;
	so->seed = o->seed + (uint64_t)i;
	so->run_jitter_ppm = n > 1 ? RP_RUN_JITTER_PPM : 0;
}

int rp_set_run(const struct sp_sim_workload *w, const struct sp_sim_opts *o, int n,
	       struct rp_set *set)
{
	uint64_t key[RP_MAX_RUNS];

	memset(set, 0, sizeof(*set));
	if (n < 1 || n > RP_MAX_RUNS)
		return -EINVAL;
	set->runs = calloc((size_t)n, sizeof(*set->runs));
	if (!set->runs)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct sp_sim_opts so;
		int rc;

		rp_run_opts(o, n, i, &so);
		rc = sp_sim_run(w, &so, &set->runs[i]);
		if (rc) {
			sp_sim_result_destroy(&set->runs[i]);
			rp_set_free(set);
			return rc;
		}
		set->n = i + 1;
		/* sorted by P99.9, ties by index: the key's low bits */
		key[i] = set->runs[i].p999 * RP_MAX_RUNS + (uint64_t)i;
	}
	qsort(key, (size_t)n, sizeof(key[0]), rp_cmp_u64);
	set->median = (int)(key[(n - 1) / 2] % RP_MAX_RUNS);
	return 0;
}

void rp_set_free(struct rp_set *set)
{
	for (int i = 0; set->runs && i < set->n; i++)
		sp_sim_result_destroy(&set->runs[i]);
	free(set->runs);
	memset(set, 0, sizeof(*set));
}

/* The median, least and most of one figure over the set's runs. */
static void rp_spread(uint64_t *v, int n, uint64_t *med, uint64_t *lo, uint64_t *hi)
{
	qsort(v, (size_t)n, sizeof(v[0]), rp_cmp_u64);
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	*lo = v[0];
	*hi = v[n - 1];
}

void rp_set_figures(const struct rp_set *set, struct sp_replay_figures *med,
		    struct sp_replay_figures *lo, struct sp_replay_figures *hi)
{
	uint64_t v[7][RP_MAX_RUNS];

	for (int i = 0; i < set->n; i++) {
		struct sp_replay_figures f;

		sp_replay_run_figures(&set->runs[i], &f);
		v[0][i] = f.blockings;
		v[1][i] = f.p50;
		v[2][i] = f.p99;
		v[3][i] = f.p999;
		v[4][i] = f.max;
		v[5][i] = f.frames;
		v[6][i] = f.janky;
	}
	rp_spread(v[0], set->n, &med->blockings, &lo->blockings, &hi->blockings);
	rp_spread(v[1], set->n, &med->p50, &lo->p50, &hi->p50);
	rp_spread(v[2], set->n, &med->p99, &lo->p99, &hi->p99);
	rp_spread(v[3], set->n, &med->p999, &lo->p999, &hi->p999);
	rp_spread(v[4], set->n, &med->max, &lo->max, &hi->max);
	rp_spread(v[5], set->n, &med->frames, &lo->frames, &hi->frames);
	rp_spread(v[6], set->n, &med->janky, &lo->janky, &hi->janky);
}

static struct json_object *rp_array(const struct rp_set *set, int what)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; a && i < set->n; i++) {
		const struct sp_sim_result *r = &set->runs[i];
		uint64_t x = what == 0 ? r->blockings : what == 1 ? r->p50 : what == 2 ? r->p999
			: r->janky;

		json_object_array_add(a, json_object_new_uint64(x));
	}
	return a;
}

/* The trace's own figures, in the records' units and names: what the
 * self-check compares the `none` record's runs with. */
static struct json_object *rp_trace_object(const struct sp_replay_figures *t)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "blockings", json_object_new_uint64(t->blockings));
	json_object_object_add(o, "p50_ns", json_object_new_uint64(t->p50));
	json_object_object_add(o, "p99_ns", json_object_new_uint64(t->p99));
	json_object_object_add(o, "p999_ns", json_object_new_uint64(t->p999));
	json_object_object_add(o, "max_ns", json_object_new_uint64(t->max));
	json_object_object_add(o, "frames", json_object_new_uint64(t->frames));
	json_object_object_add(o, "janky", json_object_new_uint64(t->janky));
	return o;
}

/*
 * The simulator's records (sp_sim_write_json) of @rows, each set's median run,
 * each with "replay_runs": how many runs, their seeds and jitter, and the
 * blockings, P50, P99.9 and janky frames of every run, in seed order; and
 * "trace", the critical threads' figures in the trace.
 */
int rp_write_json(FILE *f, const struct sp_sim_result *rows, const struct rp_set *sets,
		  int nsets, uint64_t seed, const struct sp_replay_figures *trace)
{
	struct json_object *root = NULL, *runs, *tr;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	const char *s;
	int rc = -EIO;

	m = open_memstream(&buf, &len);
	if (!m)
		goto out;
	rc = sp_sim_write_json(m, rows, nsets, seed);
	if (fclose(m) && !rc)
		rc = -EIO;
	if (rc)
		goto out;
	rc = -EIO;
	root = json_tokener_parse(buf);
	if (!root || !json_object_object_get_ex(root, "runs", &runs) ||
	    (int)json_object_array_length(runs) != nsets)
		goto out;
	for (int i = 0; i < nsets; i++) {
		struct json_object *o = json_object_new_object();

		if (!o)
			goto out;
		json_object_object_add(o, "n", json_object_new_int(sets[i].n));
		json_object_object_add(o, "first_seed", json_object_new_uint64(seed));
		json_object_object_add(o, "median_run", json_object_new_int(sets[i].median));
		json_object_object_add(o, "run_jitter_ppm",
				       json_object_new_uint64(sets[i].n > 1 ? RP_RUN_JITTER_PPM : 0));
		json_object_object_add(o, "blockings", rp_array(&sets[i], 0));
		json_object_object_add(o, "p50_ns", rp_array(&sets[i], 1));
		json_object_object_add(o, "p999_ns", rp_array(&sets[i], 2));
		json_object_object_add(o, "janky", rp_array(&sets[i], 3));
		json_object_object_add(json_object_array_get_idx(runs, (size_t)i), "replay_runs", o);
	}
	tr = rp_trace_object(trace);
	if (!tr)
		goto out;
	json_object_object_add(root, "trace", tr);
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
	rc = s && fputs(s, f) >= 0 && fputc('\n', f) != EOF ? 0 : -EIO;
out:
	json_object_put(root);
	free(buf);
	return rc;
}
