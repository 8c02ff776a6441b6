/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The hypervisor's steal time, for the commands that measure (bench) or
 * record (record) on a machine that may be a virtual one. */
#ifndef SP_TOOLS_HOST_STEAL_H
#define SP_TOOLS_HOST_STEAL_H

/* CPU time the hypervisor gave to others so far, all CPUs, in seconds
 * (/proc/stat steal, counted in ticks of 1/USER_HZ); -1 if unknown. */
double sp_host_steal_s(void);

#endif
