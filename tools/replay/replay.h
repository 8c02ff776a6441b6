/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `superpass replay TRACE`: a trace replayed in the simulator (superpass::replay). */
#ifndef SP_TOOLS_REPLAY_H
#define SP_TOOLS_REPLAY_H

#include <stdint.h>
#include <stdio.h>

#include <superpass/replay.h>

/* A policy's runs (replay_runs.c): --runs caps at RP_MAX_RUNS. */
#define RP_MAX_RUNS 99
/* Each run op's CPU time +- 1 % when a policy runs more than once: small
 * next to the trace's own spread from one recording to the next (24-40
 * blockings over ten recordings of one mutex bench), and enough to draw
 * another trajectory of the same workload. */
#define RP_RUN_JITTER_PPM 10000u

struct rp_set {
	struct sp_sim_result *runs;  /* @n runs, seeds o->seed + 0 .. n - 1 */
	int n;
	int median;                  /* the run of median P99.9 */
};

int rp_set_run(const struct sp_sim_workload *w, const struct sp_sim_opts *o, int n,
	       struct rp_set *set);
/* *@so: run @i of @n on @o (its seed, its jitter), as rp_set_run runs it. */
void rp_run_opts(const struct sp_sim_opts *o, int n, int i, struct sp_sim_opts *so);
void rp_set_free(struct rp_set *set);
/* Each figure's median, least and most over the runs. */
void rp_set_figures(const struct rp_set *set, struct sp_replay_figures *med,
		    struct sp_replay_figures *lo, struct sp_replay_figures *hi);
/* @rows[i]: sets[i]'s median run, the record written for it; @trace: the
 * trace's own figures, written beside "runs" as "trace" */
int rp_write_json(FILE *f, const struct sp_sim_result *rows, const struct rp_set *sets,
		  int nsets, uint64_t seed, const struct sp_replay_figures *trace);

/* replay_select.c: warns of each --critical pattern and --tid that no
 * replayed thread of @r has, listing those it has. */
void rp_check_selection(const struct sp_replay *r, const char *const *comms,
			const int32_t *tids, int nt);

/* --events (replay_events.c): @o's run (its seed) again, its simulated
 * events written to @f one a line. 0, or -errno. */
int rp_write_events(FILE *f, const struct sp_sim_workload *w, const struct sp_sim_opts *o,
		    const char *policy);

/* Exit codes: 0 done, 1 an output failed, 2 bad usage or an unusable trace. */
int replay_main(int argc, char **argv);

#endif
