/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Core tests run on the recording host (include/superpass/rec_host.h): a
 * clock the test moves by hand and an actuator that records what it is
 * asked and counts every call that would be wrong on a real system. A
 * test file may run its cases under both actuator models (sp_test_model).
 */
#ifndef SP_TEST_CORE_H
#define SP_TEST_CORE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <superpass/core.h>
#include <superpass/rec_host.h>

#define SP_TEST_MAX_TIDS 4096

/* The model sp_test_core() gives its host. */
static enum sp_rec_model sp_test_model __attribute__((unused)) = SP_REC_DIRECT;

/* Frees what a previous sp_test_core() made (destroying its core if the
 * test has not). */
static inline void sp_test_end(struct sp_rec_host *h)
{
	if (h->boosted)
		sp_rec_host_destroy(h);
	memset(h, 0, sizeof(*h));
}

/* A core with @cfg (NULL: defaults) on a fresh recording host. Fails the
 * test on error. */
static inline struct sp_core *sp_test_core(struct sp_rec_host *h, const struct sp_config *cfg)
{
	sp_test_end(h);
	assert_int_equal(sp_rec_host_create(h, sp_test_model, SP_TEST_MAX_TIDS, cfg), 0);
	assert_non_null(h->core);
	return h->core;
}

/* Destroys the core but keeps what the host recorded, for assertions. */
static inline void sp_test_destroy(struct sp_rec_host *h)
{
	sp_core_destroy(h->core);
	h->core = NULL;
	sp_rec_host_run(h);
}

/* The recording host of a file's cases, which the fixtures below give a
 * core: each case finds that core in *state. */
static struct sp_rec_host sp_test_host __attribute__((unused));

/* Setup fixture's body: a core with @cfg (NULL: defaults) in *state. */
static inline struct sp_core *sp_test_setup_config(void **state, const struct sp_config *cfg)
{
	*state = sp_test_core(&sp_test_host, cfg);
	return *state;
}

static inline int sp_test_setup(void **state)
{
	sp_test_setup_config(state, NULL);
	return 0;
}

/* Destroys the case's core unless the case did; what the host recorded
 * stays for the next fixture's assertions. */
static inline int sp_test_teardown(void **state)
{
	*state = NULL;
	if (sp_test_host.core)
		sp_test_destroy(&sp_test_host);
	return 0;
}

/* Group teardown: frees what the last case's host made. */
static inline int sp_test_group_teardown(void **state)
{
	(void)state;
	sp_test_end(&sp_test_host);
	return 0;
}

/* A case on the core @setup made (sp_test_setup: defaults), destroyed after. */
#define SP_TEST_CASE(f, setup) cmocka_unit_test_setup_teardown(f, setup, sp_test_teardown)

/* Tasks the host holds boosted once its worker has run. */
static inline unsigned sp_test_boosted_count(struct sp_rec_host *h)
{
	sp_rec_host_run(h);
	return sp_rec_host_boosted_count(h);
}

/* Asserts that print both operands (cmocka's do), after the worker ran. */
#define sp_assert_boosted(h, tid)                                                       \
	do {                                                                            \
		sp_rec_host_run(h);                                                     \
		assert_int_equal(sp_rec_host_is_boosted((h), (tid)), 1);                \
	} while (0)
#define sp_assert_not_boosted(h, tid)                                                   \
	do {                                                                            \
		sp_rec_host_run(h);                                                     \
		assert_int_equal(sp_rec_host_is_boosted((h), (tid)), 0);                \
	} while (0)

/* Valid ops for tests of sp_core_create's argument checks. */
static uint64_t sp_test_ops_now(void *ctx)
{
	(void)ctx;
	return 1;
}

static int sp_test_ops_act(void *ctx, sp_tid_t tid)
{
	(void)ctx;
	(void)tid;
	return 0;
}

static const struct sp_host_ops sp_test_ops __attribute__((unused)) = {
	.now_ns = sp_test_ops_now,
	.fast_track = sp_test_ops_act,
	.restore = sp_test_ops_act,
};

#endif /* SP_TEST_CORE_H */
