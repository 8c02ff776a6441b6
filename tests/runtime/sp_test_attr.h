/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The calling thread's scheduling attributes by the raw sched_getattr
 * system call, for the test programs that know nothing of superpass
 * (sp_victim.c, sp_probe.c: no library of ours linked).
 */
#ifndef SP_TEST_ATTR_H
#define SP_TEST_ATTR_H

#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct sp_test_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t prio;
	uint64_t rt, dl, per;
	uint32_t umin, umax;
};

/* 0, or -1 with errno set. */
static inline int sp_test_get_attr(struct sp_test_attr *a)
{
	memset(a, 0, sizeof(*a));
	return (int)syscall(SYS_sched_getattr, 0, a, (unsigned)sizeof(*a), 0u);
}

#endif /* SP_TEST_ATTR_H */
