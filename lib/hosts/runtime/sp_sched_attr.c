// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Raw sched_getattr/sched_setattr (no glibc wrapper before 2.41). */
#define _GNU_SOURCE
#include "sp_sched_attr.h"
#include "sp_os.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

_Static_assert(sizeof(struct sp_sched_attr) == 56, "SCHED_ATTR_SIZE_VER1 is 56 bytes");

int sp_sched_getattr(pid_t tid, struct sp_sched_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	if (sp_os_sys(SYS_sched_getattr, (long)tid, (long)attr, (long)sizeof(*attr), 0) != 0)
		return -errno;
	return 0;
}

int sp_sched_setattr(pid_t tid, const struct sp_sched_attr *attr)
{
	struct sp_sched_attr a = *attr;

	/* Utilisation clamps are left alone: only policy, nice, priority and
	 * reset-on-fork are ours to change or restore. */
	a.size = sizeof(a);
	a.sched_flags &= SP_SCHED_FLAG_RESET_ON_FORK;
	a.sched_util_min = 0;
	a.sched_util_max = 0;
	if (sp_os_sys(SYS_sched_setattr, (long)tid, (long)&a, 0, 0) != 0)
		return -errno;
	return 0;
}

int sp_sched_attr_same(const struct sp_sched_attr *a, const struct sp_sched_attr *b)
{
	bool rt = a->sched_policy == SCHED_FIFO || a->sched_policy == SCHED_RR;

	/* sched_getattr reports the RT priority of an RT thread and the nice
	 * value of any other (the other field reads 0), so only the field in
	 * effect is compared. */
	return a->sched_policy == b->sched_policy &&
	       (rt ? a->sched_priority == b->sched_priority : a->sched_nice == b->sched_nice) &&
	       (a->sched_flags & SP_SCHED_FLAG_RESET_ON_FORK) ==
		       (b->sched_flags & SP_SCHED_FLAG_RESET_ON_FORK);
}
