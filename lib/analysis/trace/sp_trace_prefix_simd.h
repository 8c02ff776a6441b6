/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the two vector prefix parsers (masked, kernel) share: digits by
 * SWAR, the end of an event name, the interrupt-context flag.
 */
#ifndef SP_TRACE_PREFIX_SIMD_H
#define SP_TRACE_PREFIX_SIMD_H

#include "sp_trace_scan.h"

#if defined(__SSE2__)

/* The n ≤ 8 digits that end at @end as a number, from one 8-byte load
 * of [end - 8, end) (which the caller makes sure it may read): the bytes
 * before the digits masked to zeros, then sp_trace_digits_top8. */
static inline __attribute__((always_inline)) uint64_t swar8(const char *end, unsigned n)
{
	uint64_t x;

	if (!n)
		return 0;
	memcpy(&x, end - 8, 8);
	/* little-endian: the last digit is the top byte */
	return sp_trace_digits_top8((x ^ 0x3030303030303030ull) & (~0ull << (8 * (8 - n))));
}

/* Where the event name that starts at @p ends (word bytes, CL_WORD): sixteen
 * bytes at a time while they lie before @e. */
static inline const char *word_end(const char *p, const char *e)
{
	const __m128i lo = _mm_set1_epi8('0' - 1), hi = _mm_set1_epi8('9' + 1);
	const __m128i alo = _mm_set1_epi8('a' - 1), ahi = _mm_set1_epi8('z' + 1);
	const __m128i up = _mm_set1_epi8(0x20), us = _mm_set1_epi8('_');

	for (; e - p >= 16; p += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)p), l = _mm_or_si128(x, up);
		/* [0-9], [A-Za-z] (a letter with 0x20 set is lower case), '_' */
		__m128i w = _mm_or_si128(
			_mm_or_si128(_mm_and_si128(_mm_cmpgt_epi8(x, lo), _mm_cmplt_epi8(x, hi)),
				     _mm_and_si128(_mm_cmpgt_epi8(l, alo), _mm_cmplt_epi8(l, ahi))),
			_mm_cmpeq_epi8(x, us));
		unsigned m = (unsigned)_mm_movemask_epi8(w) ^ 0xffffu;

		if (m)
			return p + __builtin_ctz(m);
	}
	while (p < e && (cls[(unsigned char)*p] & CL_WORD))
		p++;
	return p;
}

/* The third flag, interrupt context: SP_TRACE_EVF_IRQ. */
static const uint8_t irq_flag[256] = {
	['h'] = SP_TRACE_EVF_IRQ, ['H'] = SP_TRACE_EVF_IRQ, ['s'] = SP_TRACE_EVF_IRQ,
	['S'] = SP_TRACE_EVF_IRQ, ['z'] = SP_TRACE_EVF_IRQ, ['Z'] = SP_TRACE_EVF_IRQ,
};

#endif

#endif /* SP_TRACE_PREFIX_SIMD_H */
