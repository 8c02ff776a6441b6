/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The calling thread's scheduling attributes by the raw sched_getattr
 * system call, for the test programs that know nothing of superpass
 * (sp_victim.c, sp_probe.c: no library of ours linked).
 */
#ifndef SP_TEST_ATTR_H
#define SP_TEST_ATTR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
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

static inline bool sp_test_attr_same(const struct sp_test_attr *a, const struct sp_test_attr *b)
{
	return a->policy == b->policy && a->nice == b->nice && a->prio == b->prio &&
	       a->flags == b->flags;
}

/* Polls (every 100 us, at most @polls times) until the caller's policy or
 * nice differ from @before: someone fast-tracked it. 1 if so, else 0. */
static inline int sp_test_wait_boost(const struct sp_test_attr *before, int polls)
{
	struct timespec ts = { 0, 100000 };
	struct sp_test_attr a;

	for (int i = 0; i < polls; i++) {
		sp_test_get_attr(&a);
		if (a.policy != before->policy || a.nice != before->nice)
			return 1;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* The boost may be withdrawn by the thread that granted it a moment after
 * the caller's release (the core validates a new grant after publishing
 * it), so "restored" means: back to exactly @before within a bounded wait
 * (3 s). The attributes last read are left in @after. */
static inline int sp_test_wait_restored(const struct sp_test_attr *before,
					struct sp_test_attr *after)
{
	struct timespec ts = { 0, 100000 };

	for (int i = 0; i < 30000; i++) {
		sp_test_get_attr(after);
		if (sp_test_attr_same(after, before))
			return 1;
		nanosleep(&ts, NULL);
	}
	return 0;
}

#endif /* SP_TEST_ATTR_H */
