/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `superpass sim`: the simulator's command (tools/sim). */
#ifndef SP_TOOLS_SIM_H
#define SP_TOOLS_SIM_H

#include <stdint.h>
#include <stdio.h>

#include <superpass/sim.h>

int sim_main(int argc, char **argv);

/* sim_sweep.c: P99.9 per swept value (rows) and policy (columns); @vidx[i]
 * is the value index of run i. */
void sim_print_sweep(FILE *f, const char *scenario, const char *param, const int64_t *vals,
		     int nv, const struct sp_sim_result *rs, const int *vidx, int n);
int sim_write_sweep_svg(FILE *f, const char *title, const char *param, const int64_t *vals,
			int nv, const struct sp_sim_result *rs, const int *vidx, int n);

#endif /* SP_TOOLS_SIM_H */
