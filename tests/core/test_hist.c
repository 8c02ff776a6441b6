// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The log-linear histogram: bucket arithmetic, quantiles against exact
 * sorted values, edge cases and merging.
 */
#include "sp_test_core.h"

#include <stdlib.h>
#include <string.h>

#include "sp_hist_index.h"

/* ---- helpers ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, seeded per test */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static struct sp_hist *hist_new(void)
{
	struct sp_hist *h = malloc(sizeof(*h));

	assert_non_null(h);
	sp_hist_init(h);
	return h;
}

/* The exact value at quantile num/den with the histogram's definition:
 * the ceil(n * num / den)-th smallest value (at least the first). */
static uint64_t exact_quantile(const uint64_t *sorted, size_t n, uint64_t num, uint64_t den)
{
	uint64_t rank;

	if (num >= den)
		return sorted[n - 1];
	rank = ((uint64_t)n * num + den - 1) / den;
	if (rank == 0)
		rank = 1;
	return sorted[rank - 1];
}

/* |got - want| <= want / 128, which is what hist.h promises (and < 1 %). */
static void assert_close(uint64_t got, uint64_t want)
{
	uint64_t d = got > want ? got - want : want - got;

	if (d * 128 > want) {
		print_error("quantile %llu vs exact %llu: error %llu > 1/128\n",
			    (unsigned long long)got, (unsigned long long)want,
			    (unsigned long long)d);
		fail();
	}
	/* The bound, spelled out. */
	assert_true(d * 100 <= want);
}

static const uint64_t qs[][2] = {
	{ 0, 1 },     { 1, 1000 }, { 1, 100 },   { 1, 10 },      { 1, 4 },
	{ 1, 2 },     { 2, 3 },    { 3, 4 },     { 9, 10 },      { 99, 100 },
	{ 999, 1000 }, { 9999, 10000 }, { 99999, 100000 }, { 1, 1 },
};

/* Records @vals, then checks every quantile in qs against the sorted copy. */
static void check_distribution(uint64_t *vals, size_t n)
{
	struct sp_hist *h = hist_new();
	size_t i;

	for (i = 0; i < n; i++)
		sp_hist_record(h, vals[i]);
	qsort(vals, n, sizeof(*vals), cmp_u64);
	assert_int_equal(h->count, n);
	assert_int_equal(h->min, vals[0]);
	assert_int_equal(h->max, vals[n - 1]);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
		assert_close(sp_hist_quantile(h, qs[i][0], qs[i][1]),
			     exact_quantile(vals, n, qs[i][0], qs[i][1]));
	assert_int_equal(sp_hist_quantile(h, 1, 1), vals[n - 1]);
	free(h);
}

#define NVALS 200000

/* ---- bucket arithmetic ---- */

static void test_index_small_values_exact(void **state)
{
	uint64_t v;

	(void)state;
	for (v = 0; v < 2 * SP_HIST_SUB_COUNT; v++) {
		assert_int_equal(sp_hist_index(v), v);
		assert_int_equal(sp_hist_bucket_value((uint32_t)v), v);
	}
}

static void test_index_monotonic_dense(void **state)
{
	uint32_t prev = sp_hist_index(0), idx;
	uint64_t v;

	(void)state;
	/* Every value up to 2^22: the index never decreases and never skips
	 * a bucket. */
	for (v = 1; v < (1ull << 22); v++) {
		idx = sp_hist_index(v);
		assert_true(idx == prev || idx == prev + 1);
		prev = idx;
	}
}

static void test_index_monotonic_boundaries(void **state)
{
	uint32_t bit, prev = 0, idx;
	int64_t d;

	(void)state;
	/* Around every power of two and every sub-bucket edge, up to 2^63. */
	for (bit = 7; bit < 64; bit++) {
		uint64_t base = 1ull << bit;

		for (d = -3; d <= 3; d++) {
			uint64_t v = base + (uint64_t)d;

			idx = sp_hist_index(v);
			assert_true(idx >= prev);
			assert_true(idx < SP_HIST_BUCKETS);
			prev = idx;
		}
	}
	assert_int_equal(sp_hist_index(UINT64_MAX), SP_HIST_BUCKETS - 1);
	assert_int_equal(sp_hist_index(1ull << SP_HIST_MAX_BITS), SP_HIST_BUCKETS - 1);
	assert_int_equal(sp_hist_index((1ull << SP_HIST_MAX_BITS) - 1), SP_HIST_BUCKETS - 1);
}

static void test_bucket_value_consistent(void **state)
{
	uint64_t prev = 0, v;
	uint32_t i;

	(void)state;
	for (i = 0; i < SP_HIST_BUCKETS; i++) {
		v = sp_hist_bucket_value(i);
		/* The value reported for a bucket belongs to that bucket... */
		assert_int_equal(sp_hist_index(v), i);
		/* ...and buckets are ordered. */
		if (i)
			assert_true(v > prev);
		prev = v;
	}
	/* Out-of-range indices are clamped to the last bucket. */
	assert_int_equal(sp_hist_bucket_value(SP_HIST_BUCKETS),
			 sp_hist_bucket_value(SP_HIST_BUCKETS - 1));
	assert_int_equal(sp_hist_bucket_value(UINT32_MAX),
			 sp_hist_bucket_value(SP_HIST_BUCKETS - 1));
}

static void test_bucket_value_error_bound(void **state)
{
	uint32_t i;

	(void)state;
	/* Dense over the first groups, then random up to 2^40. */
	for (uint64_t v = 1; v < (1ull << 20); v++)
		assert_close(sp_hist_bucket_value(sp_hist_index(v)), v);
	rng_state = 12345;
	for (i = 0; i < 1000000; i++) {
		uint64_t v = rnd() >> (64 - SP_HIST_MAX_BITS);

		if (v)
			assert_close(sp_hist_bucket_value(sp_hist_index(v)), v);
	}
	/* Both ends of every sub-bucket below 2^40. */
	for (i = 2 * SP_HIST_SUB_COUNT; i < SP_HIST_BUCKETS; i++) {
		uint64_t mid = sp_hist_bucket_value(i), lo = mid, hi = mid;

		/* Exact edges: step down/up by halving distances. */
		for (uint64_t step = 1ull << 40; step; step >>= 1)
			if (lo >= step && sp_hist_index(lo - step) == i)
				lo -= step;
		for (uint64_t step = 1ull << 40; step; step >>= 1)
			if (hi + step < (1ull << SP_HIST_MAX_BITS) && sp_hist_index(hi + step) == i)
				hi += step;
		assert_int_equal(sp_hist_index(lo), i);
		assert_int_not_equal(sp_hist_index(lo - 1), i);
		assert_int_equal(sp_hist_index(hi), i);
		assert_close(mid, lo);
		assert_close(mid, hi);
	}
}

/* ---- quantiles against exact values ---- */

static void test_quantile_uniform(void **state)
{
	uint64_t *vals = malloc(NVALS * sizeof(*vals));
	size_t i;

	(void)state;
	assert_non_null(vals);
	rng_state = 1;
	for (i = 0; i < NVALS; i++)
		vals[i] = rnd() % 1000000;
	check_distribution(vals, NVALS);
	/* Wide uniform: up to 2^40 - 1 */
	for (i = 0; i < NVALS; i++)
		vals[i] = rnd() >> 24;
	check_distribution(vals, NVALS);
	free(vals);
}

static void test_quantile_log_uniform(void **state)
{
	const uint64_t ten_s = 10ull * 1000 * 1000 * 1000;
	uint64_t *vals = malloc(NVALS * sizeof(*vals));
	size_t i = 0;

	(void)state;
	assert_non_null(vals);
	rng_state = 2;
	/* 1 ns .. 10 s: a uniform exponent, then a uniform mantissa. */
	while (i < NVALS) {
		uint32_t e = (uint32_t)(rnd() % 34);
		uint64_t v = (1ull << e) + (rnd() & ((1ull << e) - 1));

		if (v <= ten_s)
			vals[i++] = v;
	}
	check_distribution(vals, NVALS);
	free(vals);
}

static void test_quantile_constant(void **state)
{
	static const uint64_t consts[] = { 0, 1, 127, 128, 129, 1000, 123456789,
					   (1ull << 40) - 1 };
	uint64_t *vals = malloc(1000 * sizeof(*vals));
	size_t i, c;

	(void)state;
	assert_non_null(vals);
	for (c = 0; c < sizeof(consts) / sizeof(consts[0]); c++) {
		for (i = 0; i < 1000; i++)
			vals[i] = consts[c];
		check_distribution(vals, 1000);
	}
	/* A constant is reported exactly: min == max clamps the midpoint. */
	{
		struct sp_hist *h = hist_new();

		for (i = 0; i < 10; i++)
			sp_hist_record(h, 123456789);
		assert_int_equal(sp_hist_quantile(h, 1, 2), 123456789);
		assert_int_equal(sp_hist_quantile(h, 999, 1000), 123456789);
		free(h);
	}
	free(vals);
}

static void test_quantile_two_point(void **state)
{
	uint64_t *vals = malloc(NVALS * sizeof(*vals));
	struct sp_hist *h = hist_new();
	size_t i;

	(void)state;
	assert_non_null(vals);
	/* 99 % fast, 1 % slow: P50 and P98 are fast, P99.9 slow. */
	for (i = 0; i < 10000; i++) {
		vals[i] = i % 100 == 0 ? 50000000 : 20000;
		sp_hist_record(h, vals[i]);
	}
	check_distribution(vals, 10000);
	assert_close(sp_hist_quantile(h, 1, 2), 20000);
	assert_close(sp_hist_quantile(h, 98, 100), 20000);
	assert_close(sp_hist_quantile(h, 99, 100), 20000);   /* rank 9900 of 9900 fast */
	assert_close(sp_hist_quantile(h, 991, 1000), 50000000);
	assert_close(sp_hist_quantile(h, 999, 1000), 50000000);
	assert_int_equal(sp_hist_quantile(h, 1, 1), 50000000);

	/* Half and half, far apart. */
	rng_state = 3;
	for (i = 0; i < NVALS; i++)
		vals[i] = (rnd() & 1) ? 3 : 7000000000ull;
	check_distribution(vals, NVALS);
	free(vals);
	free(h);
}

static void test_quantile_known_data(void **state)
{
	struct sp_hist *h = hist_new();
	uint64_t v;

	(void)state;
	/* 1..100: all exact buckets. */
	for (v = 1; v <= 100; v++)
		sp_hist_record(h, v);
	assert_int_equal(sp_hist_quantile(h, 1, 2), 50);
	assert_int_equal(sp_hist_quantile(h, 99, 100), 99);
	assert_int_equal(sp_hist_quantile(h, 999, 1000), 100);
	assert_int_equal(sp_hist_quantile(h, 1, 1), 100);
	assert_int_equal(sp_hist_quantile(h, 0, 1), 1);
	assert_int_equal(h->sum, 5050);

	/* 1..1000 us in ns: P50 = 500 us, P99 = 990 us, P99.9 = 999 us. */
	sp_hist_init(h);
	for (v = 1; v <= 1000; v++)
		sp_hist_record(h, v * 1000);
	assert_close(sp_hist_quantile(h, 1, 2), 500000);
	assert_close(sp_hist_quantile(h, 99, 100), 990000);
	assert_close(sp_hist_quantile(h, 999, 1000), 999000);
	assert_int_equal(sp_hist_quantile(h, 1, 1), 1000000);
	assert_int_equal(h->min, 1000);
	assert_int_equal(h->max, 1000000);
	assert_int_equal(h->count, 1000);
	assert_int_equal(h->sum, 500500000ull);
	free(h);
}

static void test_quantile_max_exact(void **state)
{
	struct sp_hist *h = hist_new();
	uint64_t max = 0;
	int i;

	(void)state;
	rng_state = 4;
	for (i = 0; i < 100000; i++) {
		uint64_t v = rnd() >> (rnd() % 64);

		if (v > max)
			max = v;
		sp_hist_record(h, v);
		if (i % 997 == 0)
			assert_int_equal(sp_hist_quantile(h, 1, 1), max);
	}
	assert_int_equal(sp_hist_quantile(h, 1, 1), max);
	/* num > den is the max too. */
	assert_int_equal(sp_hist_quantile(h, 7, 3), max);
	assert_int_equal(sp_hist_quantile(h, UINT64_MAX, UINT64_MAX), max);
	free(h);
}

static void test_empty(void **state)
{
	struct sp_hist *h = hist_new();
	size_t i;

	(void)state;
	assert_int_equal(h->count, 0);
	assert_int_equal(h->sum, 0);
	assert_int_equal(h->min, UINT64_MAX);
	assert_int_equal(h->max, 0);
	for (i = 0; i < SP_HIST_BUCKETS; i++)
		assert_int_equal(h->buckets[i], 0);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
		assert_int_equal(sp_hist_quantile(h, qs[i][0], qs[i][1]), 0);
	free(h);
}

static void test_bad_den(void **state)
{
	struct sp_hist *h = hist_new();

	(void)state;
	sp_hist_record(h, 42);
	sp_hist_record(h, 4200);
	assert_int_equal(sp_hist_quantile(h, 1, 0), 0);
	assert_int_equal(sp_hist_quantile(h, 0, 0), 0);
	/* Large num and den (count * num < 2^64) keep the rank right. */
	assert_int_equal(sp_hist_quantile(h, 1ull << 31, 1ull << 32), 42);
	assert_close(sp_hist_quantile(h, (1ull << 32) - 1, 1ull << 32), 4200);
	assert_int_equal(sp_hist_quantile(h, 1, 1ull << 40), 42);
	free(h);
}

static void test_huge_values(void **state)
{
	const uint64_t cap = 1ull << SP_HIST_MAX_BITS;
	struct sp_hist *h = hist_new();
	uint64_t low_edge = sp_hist_bucket_value(SP_HIST_BUCKETS - 1) - (1ull << 32);
	uint64_t q;
	int i;

	(void)state;
	sp_hist_record(h, cap);
	sp_hist_record(h, cap * 2);
	sp_hist_record(h, UINT64_MAX);
	assert_int_equal(h->count, 3);
	assert_int_equal(h->buckets[SP_HIST_BUCKETS - 1], 3);
	assert_int_equal(h->min, cap);
	assert_int_equal(h->max, UINT64_MAX);
	assert_int_equal(sp_hist_quantile(h, 1, 1), UINT64_MAX);
	/* Inside the saturated bucket the answer is at least that bucket's
	 * lower edge and never beyond what was recorded. */
	q = sp_hist_quantile(h, 1, 2);
	assert_true(q >= low_edge);
	assert_true(q >= h->min && q <= h->max);

	/* Mixed with ordinary values, low quantiles stay accurate. */
	sp_hist_init(h);
	for (i = 0; i < 999; i++)
		sp_hist_record(h, 5000000);
	sp_hist_record(h, UINT64_MAX - 1);
	assert_close(sp_hist_quantile(h, 1, 2), 5000000);
	assert_close(sp_hist_quantile(h, 999, 1000), 5000000);
	assert_int_equal(sp_hist_quantile(h, 1, 1), UINT64_MAX - 1);
	q = sp_hist_quantile(h, 9999, 10000);
	assert_true(q >= low_edge && q <= UINT64_MAX - 1);
	free(h);
}

static void test_merge_equals_union(void **state)
{
	struct sp_hist *a = hist_new(), *b = hist_new(), *u = hist_new(), *e = hist_new();
	int i;

	(void)state;
	rng_state = 5;
	for (i = 0; i < 100000; i++) {
		uint64_t v = rnd() >> (rnd() % 64);

		sp_hist_record((i % 3) ? a : b, v);
		sp_hist_record(u, v);
	}
	sp_hist_merge(a, b);
	assert_int_equal(a->count, u->count);
	assert_int_equal(a->sum, u->sum);
	assert_int_equal(a->min, u->min);
	assert_int_equal(a->max, u->max);
	assert_memory_equal(a->buckets, u->buckets, sizeof(u->buckets));
	for (i = 0; i < (int)(sizeof(qs) / sizeof(qs[0])); i++)
		assert_int_equal(sp_hist_quantile(a, qs[i][0], qs[i][1]),
				 sp_hist_quantile(u, qs[i][0], qs[i][1]));

	/* Merging an empty histogram changes nothing (min stays). */
	sp_hist_merge(a, e);
	assert_memory_equal(a, u, sizeof(*u));
	/* Merging into an empty one copies. */
	sp_hist_merge(e, u);
	assert_memory_equal(e, u, sizeof(*u));
	/* Merging two empties stays empty. */
	sp_hist_init(a);
	sp_hist_init(b);
	sp_hist_merge(a, b);
	assert_int_equal(a->min, UINT64_MAX);
	assert_int_equal(a->count, 0);
	assert_int_equal(sp_hist_quantile(a, 1, 2), 0);
	free(a);
	free(b);
	free(u);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_small_values_exact),
		cmocka_unit_test(test_index_monotonic_dense),
		cmocka_unit_test(test_index_monotonic_boundaries),
		cmocka_unit_test(test_bucket_value_consistent),
		cmocka_unit_test(test_bucket_value_error_bound),
		cmocka_unit_test(test_quantile_uniform),
		cmocka_unit_test(test_quantile_log_uniform),
		cmocka_unit_test(test_quantile_constant),
		cmocka_unit_test(test_quantile_two_point),
		cmocka_unit_test(test_quantile_known_data),
		cmocka_unit_test(test_quantile_max_exact),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_bad_den),
		cmocka_unit_test(test_huge_values),
		cmocka_unit_test(test_merge_equals_union),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
