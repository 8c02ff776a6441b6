// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The rt-app reader at scale and its lookups (cmocka): 100,000 tasks and
 * 100,000 events in one task parse (a reader quadratic in its input does
 * not finish within the test's timeout), a repeated key is still found and
 * told as before wherever it is, and the name index behind the task, lock
 * and timer lookups (sp_sim_names.c, compiled in) finds what was added,
 * forgets on clear and keeps working in a copy of the workload.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <superpass/sim.h>

#include "sp_sim_names.h"

#define BIG 100000

/* A workload of @n tasks (t0..), each locking a mutex of its own (m0..);
 * with @dup, task "t5" once more at the end. */
static char *tasks_text(int n, bool dup)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fprintf(f, "{\"tasks\": {\n");
	for (int i = 0; i < n; i++)
		fprintf(f, "\"t%d\": {\"lock\": \"m%d\", \"run\": 10, \"unlock\": \"m%d\"}%s\n", i, i,
			i, i + 1 < n || dup ? "," : "");
	if (dup)
		fprintf(f, "\"t5\": {\"run\": 10}\n");
	fprintf(f, "}}\n");
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* One task with @n events: lock/unlock pairs, a mutex per pair. */
static char *events_text(int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fprintf(f, "{\"tasks\": {\"t\": {\n");
	for (int i = 0; i < n; i += 2)
		fprintf(f, "\"lock%d\": \"m%d\", \"unlock%d\": \"m%d\"%s\n", i, i, i + 1, i,
			i + 2 < n ? "," : "");
	fprintf(f, "}}}\n");
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_many_tasks(void **state)
{
	struct sp_sim_workload *w;
	char err[256], *text = tasks_text(BIG, false);

	assert_int_equal(sp_sim_workload_parse(text, "big.json", &w, err, sizeof(err)), 0);
	assert_int_equal(sp_sim_task_find(w, "t0"), 0);
	assert_int_equal(sp_sim_task_find(w, "t99999"), BIG - 1);
	assert_int_equal(sp_sim_task_find(w, "t100000"), -ENOENT);
	assert_int_equal(sp_sim_lock_find(w, "m4242"), 4242);
	assert_string_equal(sp_sim_lock_name(w, BIG - 1), "m99999");
	sp_sim_workload_destroy(w);
	free(text);
}

static void test_many_events(void **state)
{
	struct sp_sim_workload *w;
	char err[256], *text = events_text(BIG);

	assert_int_equal(sp_sim_workload_parse(text, "events.json", &w, err, sizeof(err)), 0);
	assert_int_equal(sp_sim_task_find(w, "t"), 0);
	assert_int_equal(sp_sim_lock_find(w, "m99998"), BIG / 2 - 1);
	sp_sim_workload_destroy(w);
	free(text);
}

/* The repeated task key at the end of 100,000: the message of
 * tests/sim/bad/dup-key, with its line. */
static void test_dup_key_at_scale(void **state)
{
	struct sp_sim_workload *w;
	char err[512], *text = tasks_text(BIG, true);

	assert_int_equal(sp_sim_workload_parse(text, "dup.json", &w, err, sizeof(err)), -EINVAL);
	assert_null(w);
	assert_string_equal(err, "dup.json: line 100002: \"t5\": key repeated in one object: json-c "
				 "(and so rt-app) keeps only one value; number repeated events (run1, "
				 "run2, lock1, ...)");
	free(text);
}

static int parse_rc(const char *text, char *err, size_t cap)
{
	struct sp_sim_workload *w;
	int rc = sp_sim_workload_parse(text, "x.json", &w, err, cap);

	sp_sim_workload_destroy(w);
	return rc;
}

/* Which keys count as repeated: only two in one object, whatever the
 * objects before it at the same depth, around it or inside it held. */
static void test_dup_key_scope(void **state)
{
	char err[512];

	/* sibling objects, parent and child, a phase after a phase */
	assert_int_equal(parse_rc("{\"tasks\": {\"a\": {\"run\": 1, \"sleep\": 1}, "
				  "\"b\": {\"run\": 1, \"sleep\": 1}}}", err, sizeof(err)), 0);
	assert_int_equal(parse_rc("{\"tasks\": {\"a\": {\"loop\": 1, \"phases\": {"
				  "\"p1\": {\"loop\": 2, \"run\": 1}, \"p2\": {\"loop\": 2, \"run\": 1}}}}}",
				  err, sizeof(err)), 0);
	/* a key of the object that an inner object interrupted */
	assert_int_equal(parse_rc("{\"tasks\": {\"a\": {\"run\": 1, \"timer\": {\"ref\": \"x\", "
				  "\"period\": 100}, \"run\": 2}}}", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 1: \"run\": key repeated in one object"));
	/* objects in an array: each its own */
	assert_int_equal(parse_rc("{\"tasks\": {\"a\": {\"run\": 1, \"cpus\": [{\"k\": 1}, "
				  "{\"k\": 1}]}}}", err, sizeof(err)), -EINVAL);
	assert_null(strstr(err, "repeated"));
	assert_int_equal(parse_rc("{\"tasks\": {\"a\": {\"run\": 1, \"cpus\": [{\"k\": 1, "
				  "\"k\": 2}]}}}", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "\"k\": key repeated in one object"));
	/* a value equal to a key is no key; the line is the repeated key's */
	assert_int_equal(parse_rc("{\"tasks\": {\"run\": {\"lock\": \"run\", \"unlock\": \"run\"}}}",
				  err, sizeof(err)), 0);
	assert_int_equal(parse_rc("{\"tasks\": {\"a\": {\"run\": 1,\n\n\"run\": 2}}}", err,
				  sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "x.json: line 3: \"run\": key repeated"));
}

/* The index itself: tags apart, growth, clear, and a thousand clears of a
 * grown set (each O(1)) leaving nothing behind. */
static void test_names_index(void **state)
{
	struct sp_sim_names ix = { 0 };
	char names[2000][8];

	assert_int_equal(sp_sim_names_find(&ix, "a", 1, 0), -ENOENT);
	for (int i = 0; i < 2000; i++) {
		snprintf(names[i], sizeof(names[i]), "n%d", i);
		assert_int_equal(sp_sim_names_find(&ix, names[i], strlen(names[i]), 0), -ENOENT);
		assert_int_equal(sp_sim_names_add(&ix, names[i], strlen(names[i]), 0, i), 0);
	}
	assert_int_equal(sp_sim_names_add(&ix, "n7", 2, 1, 7777), 0);
	for (int i = 0; i < 2000; i++)
		assert_int_equal(sp_sim_names_find(&ix, names[i], strlen(names[i]), 0), i);
	assert_int_equal(sp_sim_names_find(&ix, "n7", 2, 1), 7777);
	assert_int_equal(sp_sim_names_find(&ix, "n7x", 2, 0), 7); /* by length, not NUL */
	assert_int_equal(sp_sim_names_find(&ix, "n7", 3, 0), -ENOENT);
	for (int round = 0; round < 1000; round++) {
		sp_sim_names_clear(&ix);
		assert_int_equal(sp_sim_names_find(&ix, names[round], strlen(names[round]), 0),
				 -ENOENT);
		assert_int_equal(sp_sim_names_add(&ix, names[round], strlen(names[round]), 0, round),
				 0);
		assert_int_equal(sp_sim_names_find(&ix, names[round], strlen(names[round]), 0),
				 round);
		if (round)
			assert_int_equal(sp_sim_names_find(&ix, names[round - 1],
							   strlen(names[round - 1]), 0), -ENOENT);
	}
	sp_sim_names_free(&ix);
	assert_int_equal(sp_sim_names_find(&ix, "n1", 2, 0), -ENOENT);
}

/* A copy (sp_sim_workload_vary) has lookups of its own: they work after
 * the original is gone (ASan: no index shared with it). */
static void test_copy_lookups(void **state)
{
	struct sp_sim_workload *w, *c;
	char err[256], *text = tasks_text(100, false);

	assert_int_equal(sp_sim_workload_parse(text, "copy.json", &w, err, sizeof(err)), 0);
	assert_int_equal(sp_sim_workload_vary(w, "holders", 2, &c), 0);
	sp_sim_workload_destroy(w);
	assert_int_equal(sp_sim_task_find(c, "t99"), 99);
	assert_int_equal(sp_sim_lock_find(c, "m42"), 42);
	assert_int_equal(sp_sim_lock_add(c, "m42", SP_SIM_UMUTEX), -EEXIST);
	assert_int_equal(sp_sim_lock_add(c, "new", SP_SIM_UMUTEX), 100);
	assert_int_equal(sp_sim_lock_find(c, "new"), 100);
	assert_int_equal(sp_sim_task_add(c, "t7", SP_SIM_OTHER, 0, 1), -EEXIST);
	sp_sim_workload_destroy(c);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_tasks),
		cmocka_unit_test(test_many_events),
		cmocka_unit_test(test_dup_key_at_scale),
		cmocka_unit_test(test_dup_key_scope),
		cmocka_unit_test(test_names_index),
		cmocka_unit_test(test_copy_lookups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
