// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* /proc/stat's steal column (host_steal.h says what for). */
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>

#include "host_steal.h"

double sp_host_steal_s(void)
{
	unsigned long long v[8];
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (!f)
		return -1;
	/* cpu  user nice system idle iowait irq softirq steal ... */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	return n == 8 && hz > 0 ? (double)v[7] / (double)hz : -1;
}
