// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* `superpass bench`: every selected scenario under every selected policy. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <superpass/runtime.h>

#include "bench.h"
#include "sp_cli_msg.h"

int bench_main(int argc, char **argv, int full_argc, char **full_argv);

/* The K a policy runs the rwlock scenario with: the --k list under
 * superpass, and under superpass-preload when --k was given (else the
 * interposer's default, 4); one row (K = 0) for everything else. */
static bool runs_k_list(const struct bench_opts *o, enum bench_policy po)
{
	return po == PO_SUPERPASS || (po == PO_PRELOAD && o->k_given);
}

static int nr_k_of(const struct bench_opts *o, enum bench_scenario sc, enum bench_policy po)
{
	return sc == SC_RWLOCK && runs_k_list(o, po) ? o->nr_k : 1;
}

static uint32_t k_of(const struct bench_opts *o, enum bench_scenario sc, enum bench_policy po,
		     int ki)
{
	if (sc != SC_RWLOCK)
		return 0;
	return runs_k_list(o, po) ? o->k[ki] : 4;
}

static int nr_runs(const struct bench_opts *o, enum bench_scenario sc)
{
	int n = 0;

	for (int p = 0; p < PO_NR; p++)
		if (o->policies & (1u << p))
			n += nr_k_of(o, sc, (enum bench_policy)p);
	return n;
}

/* One row (scenario, policy, K) of one pass. */
static void run_row(const struct bench_opts *o, int full_argc, char **full_argv,
		    enum bench_scenario sc, enum bench_policy po, uint32_t k, int rep,
		    struct bench_result *r)
{
	if (sc == SC_RWLOCK && po == PO_PI) {
		memset(r, 0, sizeof(*r));
		r->scenario = sc;
		r->policy = po;
		r->skipped = true;
		snprintf(r->note, sizeof(r->note), "glibc rwlocks have no priority inheritance");
	} else if (po == PO_PRELOAD) {
		bench_run_preload(o, full_argc, full_argv, sc, k, r);
	} else {
		bench_run(o, sc, po, k, r);
		bench_result_finish(r);
	}
	if (sc == SC_RWLOCK && po != PO_SUPERPASS && po != PO_PRELOAD)
		r->k = 0;
	r->rep = rep;
}

int bench_main(int argc, char **argv, int full_argc, char **full_argv)
{
	struct bench_opts o;
	struct bench_result *rs;
	int total = 0, n = 0, done = 0, rc;
	bool progress;

	rc = bench_parse(argc, argv, &o);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (o.child_scenario >= 0)
		return bench_child_main(&o);
	for (int s = 0; s < SC_NR; s++)
		if (o.scenarios & (1u << s))
			total += nr_runs(&o, (enum bench_scenario)s) * o.repeat;
	rs = calloc((size_t)total, sizeof(*rs));
	if (!rs)
		return 1;
	if (!sp_runtime_has_cap_sys_nice())
		fprintf(stderr, "superpass bench: warning: no CAP_SYS_NICE (run as root): the critical "
				"thread cannot get nice %d, rt-ui cannot use SCHED_FIFO and the fast "
				"track falls back; the figures will not show the effect.\n", o.ui_nice);
	progress = sp_cli_progress(o.quiet);
	if (!o.quiet)
		fprintf(stderr, "superpass bench: %d runs of %.1f s on %ld CPUs (about %.0f s)\n",
			total, o.duration_s, sysconf(_SC_NPROCESSORS_ONLN),
			total * (o.duration_s + 0.25));
	for (int s = 0; s < SC_NR; s++) {
		enum bench_scenario sc = (enum bench_scenario)s;
		int first = n, rows;

		if (!(o.scenarios & (1u << s)))
			continue;
		rows = nr_runs(&o, sc);
		/* Passes alternate the policies, so that a slow stretch of a
		 * shared machine hits every row rather than one. */
		for (int rep = 0; rep < o.repeat; rep++) {
			for (int p = 0; p < PO_NR; p++) {
				enum bench_policy po = (enum bench_policy)p;
				int nk = nr_k_of(&o, sc, po);

				if (!(o.policies & (1u << p)))
					continue;
				for (int ki = 0; ki < nk; ki++) {
					uint32_t k = k_of(&o, sc, po, ki);

					if (progress)
						fprintf(stderr, "\r[%2d/%d] %-7s %-22s", ++done, total,
							bench_scenario_name[sc], bench_policy_name[po]);
					run_row(&o, full_argc, full_argv, sc, po, k, rep, &rs[n++]);
				}
			}
		}
		if (progress)
			fprintf(stderr, "\r%60s\r", "");
		bench_print_header(stdout, &o, sc);
		bench_print_table(stdout, &o, rs + first, rows, o.repeat);
		bench_print_steal(stdout, rs + first, n - first);
		fflush(stdout);
	}
	printf("\nblocking: the critical thread's wait from lock request to acquisition; p50_ms, "
	       "p99_ms, p99.9_ms, max_ms:\nits percentiles and longest (P99.9 of fewer than 1000 "
	       "blockings is the longest); janky: 8.33 ms\ndeadlines passed before the frame's "
	       "work was done; hog_lost: background work lost vs none; h_wait: share\nof blocking "
	       "time the holders spent runnable but waiting for a CPU (/proc/self/task/TID/"
	       "schedstat);\ngrants/expired: fast tracks granted / ended by the budget; rt_cpu: "
	       "the runtime's worker thread's CPU\ntime as a share of all CPUs' time; boost_us: "
	       "from a critical wait to a holder running in SCHED_FIFO\n(P50/P99).\n");
	if (o.repeat > 1)
		printf("Each figure is the median over the %d runs of its row; P99.9, janky and "
		       "hog_lost give the least\nand most in parentheses.\n", o.repeat);
	if (o.json_path && bench_write_json(o.json_path, &o, rs, n) != 0) {
		fprintf(stderr, "superpass bench: cannot write %s\n", o.json_path);
		free(rs);
		return 1;
	}
	free(rs);
	return 0;
}
