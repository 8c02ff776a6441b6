/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * sched_getattr / sched_setattr as raw system calls: glibc 2.36 has no
 * wrapper, and <linux/sched/types.h> clashes with <sched.h>, so the ABI
 * struct is declared here (it is stable: sizes 48 (VER0) and 56 (VER1)).
 */
#ifndef SP_SCHED_ATTR_H
#define SP_SCHED_ATTR_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct sp_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

#define SP_SCHED_FLAG_RESET_ON_FORK 0x01ull

/* The fair class: SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE. */
static inline bool sp_sched_policy_fair(uint32_t policy)
{
	return policy == SCHED_OTHER || policy == SCHED_BATCH || policy == SCHED_IDLE;
}

/* Return 0 or -errno. tid 0 means the calling thread. */
int sp_sched_getattr(pid_t tid, struct sp_sched_attr *attr);
int sp_sched_setattr(pid_t tid, const struct sp_sched_attr *attr);
/* Same policy, reset-on-fork flag, and RT priority (RT policies) or nice
 * value (the others), as sched_getattr reports them. */
int sp_sched_attr_same(const struct sp_sched_attr *a, const struct sp_sched_attr *b);

#endif /* SP_SCHED_ATTR_H */
