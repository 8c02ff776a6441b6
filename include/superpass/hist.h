/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Log-linear (HDR-style) histogram of durations in nanoseconds.
 *
 * Values below 128 are exact. Above, each power of two is split in 64
 * equal sub-buckets and a value is reported as the middle of its
 * sub-bucket, so the relative error is at most 1/128 (< 0.8 %). Values at or
 * above 2^40 ns (about 18 minutes) land in the last bucket; the exact maximum
 * is kept apart. Integer arithmetic only; no allocation. The struct is about
 * 18 KiB: do not put it on a kernel stack.
 */
#ifndef SUPERPASS_HIST_H
#define SUPERPASS_HIST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_HIST_SUB_BITS 6u
#define SP_HIST_SUB_COUNT (1u << SP_HIST_SUB_BITS)
#define SP_HIST_MAX_BITS 40u
/* (max shift + 2) groups of SUB_COUNT buckets */
#define SP_HIST_BUCKETS ((SP_HIST_MAX_BITS - SP_HIST_SUB_BITS + 1u) * SP_HIST_SUB_COUNT)

struct sp_hist {
	uint64_t count;
	uint64_t sum;     /* wraps silently past 2^64 ns */
	uint64_t min;     /* UINT64_MAX while empty */
	uint64_t max;
	uint64_t buckets[SP_HIST_BUCKETS];
};

void sp_hist_init(struct sp_hist *h);
void sp_hist_record(struct sp_hist *h, uint64_t value);
/* dst += src; both must be initialised. */
void sp_hist_merge(struct sp_hist *dst, const struct sp_hist *src);
/* The value at quantile num/den (for P99.9: 999, 1000), 0 if empty. The
 * answer is within 1/128 of a recorded value; 1/1 gives the exact max. */
uint64_t sp_hist_quantile(const struct sp_hist *h, uint64_t num, uint64_t den);

/* The value reported for buckets[@index]: its middle (for reading the
 * buckets, e.g. to draw a distribution). */
uint64_t sp_hist_bucket_value(uint32_t index);

#ifdef __cplusplus
}
#endif

#endif /* SUPERPASS_HIST_H */
