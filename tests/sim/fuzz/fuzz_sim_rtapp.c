// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libFuzzer target: arbitrary bytes as an rt-app workload file, through
 * the reader (sp_sim_workload_parse); a file it accepts is copied
 * (sp_sim_workload_vary) and run for 2 simulated ms under one policy
 * (chosen by the input's length, so every policy gets its share) with the
 * reports written to /dev/null, when it has at most 256 threads (4096
 * instances of a task are valid, and only slow). Aborts when a refusal says nothing, or
 * when superpass leaves a thread boosted. Built with tests/fuzz
 * (SUPERPASS_FUZZ), run by tests/fuzz/run-fuzzer.sh.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <superpass/sim.h>

#include "sp_sim_internal.h" /* the workload's size, read from its struct */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run_one(const struct sp_sim_workload *w, enum sp_sim_policy pol)
{
	struct sp_sim_result r;
	struct sp_sim_opts o;
	FILE *out;

	sp_sim_opts_default(&o);
	o.policy = pol;
	o.duration_ns = 2000000;
	o.seed = 1;
	if (sp_sim_run(w, &o, &r))
		return;
	if (pol == SP_SIM_POL_SUPERPASS && r.boosted_at_end) {
		fprintf(stderr, "superpass left %llu threads boosted\n",
			(unsigned long long)r.boosted_at_end);
		abort();
	}
	out = fopen("/dev/null", "w");
	if (out) {
		sp_sim_print_row(out, &r, NULL);
		sp_sim_write_json(out, &r, 1, 1);
		sp_sim_write_svg(out, &r, 1, "fuzz");
		fclose(out);
	}
	sp_sim_result_destroy(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_sim_workload *w = NULL, *c = NULL;
	char err[512], *text = malloc(size + 1);
	int rc;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	rc = sp_sim_workload_parse(text, "fuzz.json", &w, err, sizeof(err));
	if (rc == -EINVAL && (!err[0] || w)) {
		fprintf(stderr, "refused without a message (or with a workload)\n");
		abort();
	}
	if (!rc) {
		uint64_t threads = 0;

		if (!sp_sim_workload_vary(w, "holders", 2, &c))
			sp_sim_workload_destroy(c);
		for (uint32_t i = 0; i < w->ntasks; i++)
			threads += w->tasks[i].instances;
		if (threads <= 256)
			run_one(w, (enum sp_sim_policy)(size % SP_SIM_POL_NR));
	}
	sp_sim_workload_destroy(w);
	free(text);
	return 0;
}
