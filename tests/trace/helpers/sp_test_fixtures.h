/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Paths for tests that read the recorded traces of tests/trace/fixtures
 * (ctest passes their folder in SP_TRACE_FIXTURES) and write scratch files.
 * Used by the trace and the replay tests; include after <cmocka.h>.
 */
#ifndef SP_TEST_FIXTURES_H
#define SP_TEST_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The fixture @name, malloc'd. */
static inline char *fixture(const char *name)
{
	const char *dir = getenv("SP_TRACE_FIXTURES");
	char *p;

	assert_non_null(dir);
	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

/* A scratch path of this process in $TMPDIR (or /tmp), malloc'd. */
static inline char *tmp_path(const char *name)
{
	const char *dir = getenv("TMPDIR");
	char *p;

	assert_true(asprintf(&p, "%s/%s.%d", dir ? dir : "/tmp", name, (int)getpid()) > 0);
	return p;
}

/* @path opened for writing; the test fails if it cannot be. */
static inline FILE *open_w(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	return f;
}

#endif /* SP_TEST_FIXTURES_H */
