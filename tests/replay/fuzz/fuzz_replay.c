// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libFuzzer target: arbitrary bytes as an ftrace text trace, replayed
 * (superpass::replay: the reader, the replay's model, the workload's JSON
 * and its reading back by the rt-app reader), the workload then run for
 * 2 simulated ms under superpass. Aborts when superpass leaves a thread
 * boosted, and when the replay writes a workload that the simulator
 * refuses: the two must agree (SP_FUZZ_REPLAY_AGREE=0 in the environment
 * turns that check off). seeds/ holds inputs that once broke it. Built
 * with tests/fuzz (SUPERPASS_FUZZ), run by tests/fuzz/run-fuzzer.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <superpass/replay.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run_one(const struct sp_sim_workload *w)
{
	struct sp_replay_figures f;
	struct sp_sim_result r;
	struct sp_sim_opts o;

	sp_sim_opts_default(&o);
	o.policy = SP_SIM_POL_SUPERPASS;
	o.duration_ns = 2000000;
	if (sp_sim_run(w, &o, &r))
		return;
	if (r.boosted_at_end) {
		fprintf(stderr, "superpass left %llu threads boosted\n",
			(unsigned long long)r.boosted_at_end);
		abort();
	}
	sp_replay_run_figures(&r, &f);
	sp_sim_result_destroy(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int agree = -1;
	struct sp_replay_opts o;
	struct sp_replay_counts k;
	struct sp_replay_figures f;
	struct sp_trace_diag d;
	struct sp_replay *r;
	char err[512];
	FILE *in;
	int rc;

	if (agree < 0) {
		const char *e = getenv("SP_FUZZ_REPLAY_AGREE");

		agree = !e || strcmp(e, "0");
	}
	if (!size)
		return 0;
	in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	sp_replay_opts_default(&o);
	if (sp_replay_create(&o, &r)) {
		fclose(in);
		return 0;
	}
	sp_trace_diag_init(&d);
	sp_trace_read_text(in, sp_replay_feed, r, &d);
	fclose(in);
	err[0] = 0;
	rc = sp_replay_finish(r, "fuzz", err, sizeof(err));
	if (rc == -EINVAL && agree) {
		/* the replay wrote JSON that the simulator's reader refuses */
		fprintf(stderr, "replay's workload refused: %s\n", err);
		abort();
	}
	if (!rc) {
		sp_replay_get_counts(r, &k);
		sp_replay_trace_figures(r, &f);
		if (!sp_replay_json(r) || !sp_replay_workload(r))
			abort();
		run_one(sp_replay_workload(r));
	}
	sp_replay_destroy(r);
	return 0;
}
