// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A program built against an installed libsuperpass-sim: a workload
 * read from JSON (json-c, inside the library) and a policy's name. */
#include <stdio.h>

#include <superpass/sim.h>

int main(void)
{
	struct sp_sim_workload *w;
	char err[256] = "";

	if (sp_sim_workload_create("installed", &w)) {
		fprintf(stderr, "use_sim: sp_sim_workload_create failed\n");
		return 1;
	}
	printf("sim: workload %s, policy %s\n", sp_sim_workload_name(w),
	       sp_sim_policy_name(SP_SIM_POL_SUPERPASS));
	sp_sim_workload_destroy(w);
	if (sp_sim_workload_parse("not json", "bad", &w, err, sizeof(err)) == 0) {
		fprintf(stderr, "use_sim: a bad workload was accepted\n");
		return 1;
	}
	return 0;
}
