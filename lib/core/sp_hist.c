// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "sp_os.h"

#include "sp_hist_index.h"

static uint32_t sp_msb64(uint64_t v)
{
	return 63u - (uint32_t)__builtin_clzll(v);
}

uint32_t sp_hist_index(uint64_t value)
{
	uint32_t shift;

	if (value < 2u * SP_HIST_SUB_COUNT)
		return (uint32_t)value;
	if (value >> SP_HIST_MAX_BITS)
		return SP_HIST_BUCKETS - 1;
	/* value >> shift lands in [SUB_COUNT, 2 * SUB_COUNT) */
	shift = sp_msb64(value) - SP_HIST_SUB_BITS;
	return shift * SP_HIST_SUB_COUNT + (uint32_t)(value >> shift);
}

uint64_t sp_hist_bucket_value(uint32_t index)
{
	uint32_t shift;
	uint64_t low;

	if (index < 2u * SP_HIST_SUB_COUNT)
		return index;
	if (index >= SP_HIST_BUCKETS)
		index = SP_HIST_BUCKETS - 1;
	shift = index / SP_HIST_SUB_COUNT - 1;
	low = (uint64_t)(index - shift * SP_HIST_SUB_COUNT) << shift;
	return low + (1ull << (shift - 1));
}

void sp_hist_init(struct sp_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void sp_hist_record(struct sp_hist *h, uint64_t value)
{
	h->buckets[sp_hist_index(value)]++;
	h->count++;
	h->sum += value;
	if (value < h->min)
		h->min = value;
	if (value > h->max)
		h->max = value;
}

void sp_hist_merge(struct sp_hist *dst, const struct sp_hist *src)
{
	uint32_t i;

	for (i = 0; i < SP_HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t sp_hist_quantile(const struct sp_hist *h, uint64_t num, uint64_t den)
{
	uint64_t rank, seen = 0, v;
	uint32_t i;

	if (!h->count || !den)
		return 0;
	if (num >= den)
		return h->max;
	/* Keep den below 2^32 so that the remainder product cannot overflow;
	 * the quantile loses nothing a caller could mean. */
	while (den >> 32) {
		num >>= 1;
		den >>= 1;
	}
	/* rank = ceil(count * num / den) without overflowing the product */
	rank = h->count / den * num + (h->count % den * num + den - 1) / den;
	if (rank == 0)
		rank = 1;
	for (i = 0; i < SP_HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank) {
			v = sp_hist_bucket_value(i);
			/* The bucket middle may lie outside what was seen. */
			if (v > h->max)
				v = h->max;
			if (v < h->min)
				v = h->min;
			return v;
		}
	}
	return h->max;
}
