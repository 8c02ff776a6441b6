/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The byte scanners the text parser's pieces share: byte classes, bounded
 * searches, numbers and "key=value" fields of one line. Every access is
 * bounded by [p, e); nothing is assumed NUL-terminated.
 */
#ifndef SP_TRACE_SCAN_H
#define SP_TRACE_SCAN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <superpass/trace.h>


/* Byte classes, one load a byte in the loops of every line. */
#define CL_DIGIT 1u
#define CL_SPACE 2u /* ' ' and '\t' */
#define CL_WORD 4u  /* [0-9A-Za-z_]: an event name */
static const unsigned char cls[256] = {
	['0' ... '9'] = CL_DIGIT | CL_WORD,
	['a' ... 'z'] = CL_WORD, ['A' ... 'Z'] = CL_WORD, ['_'] = CL_WORD,
	[' '] = CL_SPACE, ['\t'] = CL_SPACE,
};

static inline bool is_digit(char c)
{
	return cls[(unsigned char)c] & CL_DIGIT;
}

static inline bool is_space(char c)
{
	return cls[(unsigned char)c] & CL_SPACE;
}

/* The first byte in [p, e) that is (@want true) or is not (false) a space
 * or tab, else e: the padding of the comm column, the first word of a
 * line. SSE2 sixteen bytes a step where there is one; a byte loop else. */
static inline __attribute__((always_inline)) const char *find_space(const char *p, const char *e,
								    bool want)
{
#if defined(__SSE2__)
	const __m128i sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t');

	for (; e - p >= 16; p += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_cmpeq_epi8(x, sp), _mm_cmpeq_epi8(x, tab)));

		if (!want)
			m ^= 0xffffu;
		if (m)
			return p + __builtin_ctz(m);
	}
#endif
	while (p < e && is_space(*p) != want)
		p++;
	return p;
}

/* *ev = (struct sp_trace_event){ 0 }, as vector stores: the compiler's
 * rep stos costs more than the parse of a short line. */
static inline void zero_event(struct sp_trace_event *ev)
{
#if defined(__SSE2__)
	/* Written out rather than a loop: GCC turns the loop back into the
	 * rep stos (-ftree-loop-distribute-patterns). */
	const __m128i z = _mm_setzero_si128();

	_Static_assert(sizeof(*ev) % 16 == 0 && sizeof(*ev) <= 128,
		       "zero_event stores 16 bytes a step, at most 128");
#define SP_TRACE_Z16(o)                                                                      \
	do {                                                                             \
		if (sizeof(*ev) > (o))                                                   \
			_mm_storeu_si128((__m128i *)((char *)ev + (o)), z);              \
	} while (0)
	SP_TRACE_Z16(0); SP_TRACE_Z16(16); SP_TRACE_Z16(32); SP_TRACE_Z16(48);
	SP_TRACE_Z16(64); SP_TRACE_Z16(80); SP_TRACE_Z16(96); SP_TRACE_Z16(112);
#undef SP_TRACE_Z16
#else
	memset(ev, 0, sizeof(*ev));
#endif
}

static inline bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline int hexval(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return c - 'A' + 10;
}

/* The first @c in [p, e), or NULL: memchr for the short spans of one line
 * (tens of bytes), where a call and its setup cost more than the scan.
 * SSE2 (baseline x86-64) sixteen bytes a step, the last step overlapping
 * the one before rather than going past e; elsewhere libc's memchr. */
static inline __attribute__((always_inline)) const char *find_byte(const char *p, const char *e,
								   char c)
{
#if defined(__SSE2__)
	const __m128i v = _mm_set1_epi8(c);
	unsigned m;

	if (e - p < 16) {
		for (; p < e; p++)
			if (*p == c)
				return p;
		return NULL;
	}
	for (; e - p > 16; p += 16) {
		m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), v));
		if (m)
			return p + __builtin_ctz(m);
	}
	/* the last 16 bytes, of which those before p were looked at */
	m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(e - 16)), v));
	m &= ~0u << (p - (e - 16));
	return m ? e - 16 + __builtin_ctz(m) : NULL;
#else
	return p < e ? memchr(p, c, (size_t)(e - p)) : NULL;
#endif
}

/* memcmp(a, b, n) == 0 for the few bytes compared here, inline. */
static inline __attribute__((always_inline)) bool same(const char *a, const char *b, size_t n)
{
	/* A literal of up to 16 bytes: two loads of a word each, overlapping,
	 * against constants (GCC calls memcmp for 10 bytes and more). Reads
	 * only [a, a + n). */
#define SP_TRACE_SAME_W(T)                                                              \
	do {                                                                        \
		T x, y, u, v;                                                       \
		memcpy(&x, a, sizeof(T));                                           \
		memcpy(&y, b, sizeof(T));                                           \
		memcpy(&u, a + n - sizeof(T), sizeof(T));                           \
		memcpy(&v, b + n - sizeof(T), sizeof(T));                           \
		return ((x ^ y) | (u ^ v)) == 0;                                    \
	} while (0)
	if (__builtin_constant_p(n) && n >= 1 && n <= 16) {
		if (n >= 8)
			SP_TRACE_SAME_W(uint64_t);
		if (n >= 4)
			SP_TRACE_SAME_W(uint32_t);
		if (n >= 2)
			SP_TRACE_SAME_W(uint16_t);
		return a[0] == b[0];
	}
#undef SP_TRACE_SAME_W
	if (__builtin_constant_p(n))
		return !memcmp(a, b, n);
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* The first @needle in [p, e). Needles here are short and the lines too:
 * memchr on the needle's last byte that is not a space (spaces are the
 * commonest byte of a line: " ==> " looks for '>') and a compare beats
 * memmem's setup. Inlined, so that strlen of the literal needles folds. */
static inline __attribute__((always_inline)) const char *find(const char *p, const char *e,
							      const char *needle)
{
	size_t n = strlen(needle), k;
	const char *q;

	if (!n || e - p < (ptrdiff_t)n)
		return NULL;
	for (k = n - 1; k > 0 && needle[k] == ' '; k--)
		;
	/* the needle's byte k at q: it starts at q - k and must end by e */
	for (q = p + k; q + (n - k) <= e; q++) {
		q = find_byte(q, e, needle[k]);
		if (!q || q + (n - k) > e)
			return NULL;
		if (same(q - k, needle, n))
			return q - k;
	}
	return NULL;
}

/* Parses a decimal (optionally negative) at *pp; 0 on success. */
static inline __attribute__((always_inline)) int parse_dec(const char **pp, const char *e,
							   int64_t *out)
{
	const char *p = *pp;
	bool neg = false;
	uint64_t v = 0;

	if (p < e && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	if (p >= e || !is_digit(*p))
		return -1;
	for (; p < e && is_digit(*p); p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v > (uint64_t)INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	*pp = p;
	return 0;
}

/* Hex digits (0x optional) at *pp. */
static inline int parse_hex(const char **pp, const char *e, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int n = 0;

	if (p + 1 < e && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; p < e && is_hex(*p); p++, n++) {
		if (n >= 16)
			return -1;
		v = v << 4 | (uint64_t)hexval(*p);
	}
	if (!n)
		return -1;
	*out = v;
	*pp = p;
	return 0;
}

/* "0x..." hex, else decimal (a negative decimal wraps). */
static inline int parse_num(const char **pp, const char *e, uint64_t *out)
{
	const char *p = *pp;
	int64_t d;

	if (p + 1 < e && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return parse_hex(pp, e, out);
	if (parse_dec(&p, e, &d))
		return -1;
	*out = (uint64_t)d;
	*pp = p;
	return 0;
}

/* Bit 7 of each byte of @x that is not an ASCII digit: each byte XOR '0'
 * is 0 to 9 for a digit, 9 + 0x76 < 0x80, and no carry crosses a byte (at
 * most 0x7f + 0x76). */
static inline uint64_t sp_trace_nondigits8(uint64_t x)
{
	uint64_t t = x ^ 0x3030303030303030ull;

	return (((t & 0x7f7f7f7f7f7f7f7full) + 0x7676767676767676ull) | t) & 0x8080808080808080ull;
}

/* The number whose digit values (0 to 9, not ASCII) are the top bytes of
 * little-endian @t, the last digit its top byte, zeros below them: pairs,
 * fours and eights of digits combined by multiplies (SWAR). */
static inline uint64_t sp_trace_digits_top8(uint64_t t)
{
	t = ((t & 0x0f0f0f0f0f0f0f0full) * 2561) >> 8;
	t = ((t & 0x00ff00ff00ff00ffull) * 6553601) >> 16;
	return ((t & 0x0000ffff0000ffffull) * 42949672960001ull) >> 32;
}

static inline __attribute__((always_inline)) int parse_i32(const char **pp, const char *e,
							   int32_t *out)
{
	int64_t v;

	if (parse_dec(pp, e, &v) || v < INT32_MIN || v > INT32_MAX)
		return -1;
	*out = (int32_t)v;
	return 0;
}

/* parse_i32, the same in every case, and without a loop a digit for the
 * pids and priorities of the events' fields: when 8 bytes from *pp lie
 * before e and start with 1 to 7 digits, their value by SWAR (the digit
 * count from a mask of the bytes that are not digits); else parse_i32. */
static inline __attribute__((always_inline)) int i32_fast(const char **pp, const char *e,
							   int32_t *out)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (e - *pp >= 8) {
		uint64_t x, t, nd;
		unsigned n;

		memcpy(&x, *pp, 8);
		nd = sp_trace_nondigits8(x);
		n = nd ? (unsigned)__builtin_ctzll(nd) / 8 : 8;
		if (n >= 1 && n <= 7) {
			/* the digits to the top bytes, zeros below */
			t = (x ^ 0x3030303030303030ull) << (8 * (8 - n));
			*out = (int32_t)sp_trace_digits_top8(t);
			*pp += n;
			return 0;
		}
	}
#endif
	return parse_i32(pp, e, out);
}

static inline void copy_comm(char *dst, const char *p, const char *e)
{
	size_t n = (size_t)(e - p);

	if (n > SP_TRACE_COMM_LEN - 1)
		n = SP_TRACE_COMM_LEN - 1;
	/* two overlapping moves of a word rather than a memcpy of a
	 * variable n (a byte loop or rep movsb): the bytes [0, n) */
	if (n >= 8) {
		memcpy(dst, p, 8);
		memcpy(dst + n - 8, p + n - 8, 8);
	} else if (n >= 4) {
		memcpy(dst, p, 4);
		memcpy(dst + n - 4, p + n - 4, 4);
	} else {
		for (size_t i = 0; i < n; i++)
			dst[i] = p[i];
	}
	dst[n] = '\0';
}

/* The value of "key=" that starts at the beginning of [p, e) or after a
 * space. */
static inline __attribute__((always_inline)) const char *kv(const char *p, const char *e,
							    const char *key)
{
	size_t n = strlen(key);
	const char *s = p;

	while ((s = find(s, e, key)) != NULL) {
		if (s == p || is_space(s[-1]))
			return s + n;
		s++;
	}
	return NULL;
}

static inline __attribute__((always_inline)) int kv_i32(const char *p, const char *e,
							 const char *key, int32_t *out)
{
	const char *v = kv(p, e, key);

	if (!v)
		return -SP_TRSK_MISSING_FIELD;
	return parse_i32(&v, e, out) ? -SP_TRSK_BAD_VALUE : 0;
}

/* A comm value: from "key=" up to " next=" (comms may hold spaces). */
static inline __attribute__((always_inline)) int kv_comm(const char *p, const char *e,
							  const char *key, const char *next,
							  char *out)
{
	const char *v = kv(p, e, key), *end;

	if (!v)
		return -SP_TRSK_MISSING_FIELD;
	end = next ? find(v, e, next) : NULL;
	if (!end) {
		end = v;
		while (end < e && !is_space(*end))
			end++;
	}
	copy_comm(out, v, end);
	return 0;
}

static inline bool span_is(const char *p, const char *e, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(e - p) == n && !memcmp(p, s, n);
}

/* Context flags "d..2." (or trace-cmd -l's "0d..2." after the CPU digits):
 * the third is h/s/H/z/Z in interrupt context. */
static inline __attribute__((always_inline)) bool flags_token(const char *p, const char *e)
{
	/* the bytes of a flags column */
	static const bool flag_byte[256] = {
		['.'] = true, ['0' ... '9'] = true, ['a' ... 'f'] = true,
		['D'] = true, ['X'] = true, ['n'] = true, ['N'] = true, ['p'] = true, ['B'] = true,
		['h'] = true, ['H'] = true, ['s'] = true, ['S'] = true, ['z'] = true, ['Z'] = true,
	};
	size_t n = (size_t)(e - p);

	if (n < 4 || n > 6)
		return false;
	for (; p < e; p++)
		if (!flag_byte[(unsigned char)*p])
			return false;
	return true;
}

#endif /* SP_TRACE_SCAN_H */
