// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The vector-mask prefix parser of the kernel's lines (x86 SSE2).
 */
#include <superpass/trace.h>

#include "sp_trace_parse.h"
#include "sp_trace_prefix_simd.h"
#include "sp_trace_scan.h"

#if defined(__SSE2__)
/*
 * The prefix of the kernel's own lines, "comm-pid [CPU] flags SECS.FRAC:
 * name", found with bit masks of its first 64 bytes (which bytes are
 * spaces, digits, colons, dashes) and bit scans instead of a loop a byte:
 * the same steps as prefix_general, each walk over a run of spaces or
 * digits one scan of a mask. It takes only lines of at least 64 bytes
 * whose prefix lies within them, in the kernel's form (with or without
 * the flags column, no tgid column, no trace-cmd instance name or fused
 * CPU digits), and whose values prefix_general would accept; for any other
 * line it returns 0 and leaves @ev alone, and prefix_general decides. On
 * the lines it takes it gives what prefix_general gives, field for field
 * (test_trace_masked and the fuzzer compare the two).
 */
struct masks64 {
	uint64_t blank; /* ' ' */
	uint64_t space; /* ' ' or '\t' (is_space) */
	uint64_t digit, colon;
};

static inline void masks_of(const char *p, struct masks64 *m)
{
	const __m128i sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t');
	const __m128i lo = _mm_set1_epi8('0' - 1), hi = _mm_set1_epi8('9' + 1);
	const __m128i colon = _mm_set1_epi8(':');

	*m = (struct masks64){ 0 };
#pragma GCC unroll 4
	for (int i = 0; i < 4; i++) {
		__m128i x = _mm_loadu_si128((const __m128i *)(p + 16 * i));
		__m128i b = _mm_cmpeq_epi8(x, sp);

		m->colon |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, colon)) << (16 * i);
		/* signed compares: bytes of 0x80 and above are below '0' */
		unsigned d = (unsigned)_mm_movemask_epi8(
			_mm_and_si128(_mm_cmpgt_epi8(x, lo), _mm_cmplt_epi8(x, hi)));

		m->blank |= (uint64_t)(unsigned)_mm_movemask_epi8(b) << (16 * i);
		m->space |= (uint64_t)(unsigned)_mm_movemask_epi8(
				    _mm_or_si128(b, _mm_cmpeq_epi8(x, tab)))
			    << (16 * i);
		m->digit |= (uint64_t)d << (16 * i);
	}
}

/* How many bits of @m are set from bit @j down, without a gap (0 when
 * @j < 0): a backward walk over a run of such bytes. */
static inline unsigned run_down(uint64_t m, int j)
{
	uint64_t x;

	if (j < 0)
		return 0;
	x = ~(m << (63 - j)); /* the bits shifted in below read as unset */
	return x ? (unsigned)__builtin_clzll(x) : 64u;
}

/* swar8 for n ≤ 4 digits, from [end - 4, end): the four bytes to the top
 * of a word, zeros below. */
static inline __attribute__((always_inline)) uint32_t swar4(const char *end, unsigned n)
{
	uint32_t x;

	if (!n)
		return 0;
	memcpy(&x, end - 4, 4);
	x = (x ^ 0x30303030u) & (~0u << (8 * (4 - n)));
	return (uint32_t)sp_trace_digits_top8((uint64_t)x << 32);
}

/* Digits [line + at, line + at + n) as a number; n ≤ 19. */
static inline __attribute__((always_inline)) uint64_t digits_value(const char *line, unsigned at,
								   unsigned n)
{
	const char *p = line + at;
	uint64_t v = 0;

	/* each load ends at p + n (or 8 before it) and may not start before
	 * the line */
	if (n <= 4 && at + n >= 4)
		return swar4(p + n, n);
	if (n <= 8 && at + n >= 8)
		return swar8(p + n, n);
	if (n <= 16 && at + n >= 16)
		return swar8(p + n - 8, n - 8) * 100000000ull + swar8(p + n, 8);
	for (unsigned i = 0; i < n; i++)
		v = v * 10 + (uint64_t)(p[i] - '0');
	return v;
}

/* Whether bits [a, b) of @m are all set (a < b ≤ 64). */
static inline bool all_set(uint64_t m, unsigned a, unsigned b)
{
	uint64_t want = (b - a == 64 ? ~0ull : ((1ull << (b - a)) - 1)) << a;

	return (m & want) == want;
}

int sp_trace_prefix_masked(const char *line, const char *e, struct sp_trace_event *ev,
			 const char **name_out, const char **ne_out)
{
	static const uint64_t pow10[10] = { 1,	    10,	     100,      1000,	  10000,
					    100000, 1000000, 10000000, 100000000, 1000000000 };
	struct masks64 m;
	uint64_t cand, nonspace, bits;
	unsigned p, ts = 0, te = 0, dot = 0, pre_e, tok, tok_e, cpu_tok, dash, nsecs, npid, ncpu;
	uint32_t flags = 0;
	uint64_t secs;
	int64_t v;
	int32_t pid;
	const char *q, *name;
	bool found = false;

	if (e - line < 64)
		return 0;
	masks_of(line, &m);
	nonspace = ~m.space;
	if (!nonspace)
		return 0;
	p = (unsigned)__builtin_ctzll(nonspace);
	/* what parse_line takes for a comment, a marker or a header, and the
	 * trace-cmd forms, are prefix_general's */
	if (line[p] == '#' || (line[p] == 'C' && e - (line + p) >= 4 &&
			       (same(line + p, "CPU:", 4) || same(line + p, "CPU ", 4))) ||
	    (line[p] == 'c' && e - (line + p) >= 5 && same(line + p, "cpus=", 5)) ||
	    (line[p] == 'v' && e - (line + p) >= 8 && same(line + p, "version ", 8)))
		return 0;

	/* The timestamp: the first ':' followed by ' ' with DIGITS[.DIGITS]
	 * before it and a space before those. prefix_general looks at every
	 * ": " and goes on at once when a digit is not before it: so only
	 * the ": " after a digit (cand) can be it, tried in order; in the
	 * kernel's lines the first is (one a line: a branch that predicts). */
	for (cand = m.colon & (m.digit << 1) & (m.blank >> 1); cand; cand &= cand - 1) {
		unsigned i = (unsigned)__builtin_ctzll(cand), r, d;

		r = run_down(m.digit, (int)i - 1);
		if ((d = i - r) <= p)
			continue;
		if (line[d - 1] == '.') {
			unsigned r2 = run_down(m.digit, (int)d - 2), s = d - 1 - r2;

			if (r2 && s > p && (m.space >> (s - 1) & 1)) {
				ts = s;
				dot = d - 1;
				te = i;
				found = true;
				break;
			}
		} else if (m.space >> (d - 1) & 1) {
			ts = d;
			te = i;
			found = true;
			break;
		}
	}
	if (!found)
		return 0;
	nsecs = (dot ? dot : te) - ts;
	if (nsecs > 18) /* prefix_general's overflow checks */
		return 0;
	secs = digits_value(line, ts, nsecs);
	if (dot) {
		unsigned n = te - dot - 1 < 9 ? te - dot - 1 : 9;
		uint64_t frac = digits_value(line, dot + 1, n) * pow10[9 - n];

		/* 9 digits of seconds or fewer cannot overflow */
		if (nsecs > 9 && secs > (UINT64_MAX - frac) / 1000000000ull)
			return 0;
		secs = secs * 1000000000ull + frac;
	}

	/* [flags] [CPU] comm-pid, right to left; ts - 1 is a space and p,
	 * before it, is not: runs of spaces stop after p */
	pre_e = ts - run_down(m.space, (int)ts - 1);
	tok_e = pre_e;
	tok = tok_e - run_down(nonspace, (int)tok_e - 1);
	if (line[tok] == '[' && line[tok_e - 1] == ']') {
		cpu_tok = tok;
	} else if (flags_token(line + tok, line + tok_e)) {
		if (is_digit(line[tok])) /* trace-cmd -l's CPU digits */
			return 0;
		/* a table, not compares: the byte changes line to line (a
		 * branch on it would miss often); the token has ≥ 4 bytes */
		flags = SP_TRACE_EVF_CTX_KNOWN | irq_flag[(unsigned char)line[tok + 2]];
		pre_e = tok > p ? tok - run_down(m.space, (int)tok - 1) : tok;
		tok_e = pre_e;
		tok = tok_e > p ? tok_e - run_down(nonspace, (int)tok_e - 1) : tok_e;
		if (!(tok < tok_e && line[tok] == '[' && line[tok_e - 1] == ']'))
			return 0;
		cpu_tok = tok;
	} else {
		return 0;
	}
	/* up to 6 digits are a CPU parse_dec takes whole and below 1 << 20 */
	ncpu = tok_e - 1 - (cpu_tok + 1); /* "[" and "]" are distinct bytes: ≥ 0 */
	if (ncpu >= 1 && ncpu <= 6 && all_set(m.digit, cpu_tok + 1, tok_e - 1)) {
		v = (int64_t)digits_value(line, cpu_tok + 1, ncpu);
	} else {
		q = line + cpu_tok + 1;
		if (parse_dec(&q, line + tok_e - 1, &v) || q != line + tok_e - 1 || v < 0 ||
		    v > 1 << 20)
			return 0;
	}
	pre_e = cpu_tok > p ? cpu_tok - run_down(m.space, (int)cpu_tok - 1) : cpu_tok;
	/* The pid: digits ending at pre_e after a '-', which is then the last
	 * '-' in (p, pre_e) that prefix_general looks for. Not so (a tgid
	 * column's ')', a sign, no digits): prefix_general's. Up to 9 digits
	 * are a pid parse_i32 takes whole. */
	npid = run_down(m.digit, (int)pre_e - 1);
	if (!npid || npid > 9 || npid + 1 > pre_e) /* the digits may start the line */
		return 0;
	dash = pre_e - npid - 1;
	if (dash <= p || line[dash] != '-')
		return 0;
	/* pids of 1 to 8 digits one way (digits_value would branch on it) */
	pid = (int32_t)(npid <= 8 && pre_e >= 8 ? swar8(line + pre_e, npid)
						 : digits_value(line, dash + 1, npid));
	/* the first space in [p, pre_e) ends an instance name if a ':' is
	 * before it */
	bits = m.space & (~0ull << p) & ((1ull << pre_e) - 1);
	if (bits && line[__builtin_ctzll(bits) - 1] == ':')
		return 0;

	ev->ts_ns = secs;
	ev->cpu = (int32_t)v;
	ev->flags |= flags;
	ev->pid = pid;
	if (p + 16 <= 64) { /* [p, p + 16) is in the line: its first dash - p bytes */
		const __m128i idx = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
		__m128i c = _mm_loadu_si128((const __m128i *)(line + p));
		unsigned n = dash - p < SP_TRACE_COMM_LEN - 1 ? dash - p : SP_TRACE_COMM_LEN - 1;

		_Static_assert(SP_TRACE_COMM_LEN == 16, "a comm is 16 bytes");
		/* the bytes from n on zero, as ev's were (copy_comm's NUL and
		 * the zeroed rest) */
		c = _mm_and_si128(c, _mm_cmplt_epi8(idx, _mm_set1_epi8((char)n)));
		_mm_storeu_si128((__m128i *)ev->comm, c);
	} else {
		copy_comm(ev->comm, line + p, line + dash);
	}
	name = line + te + 2;
	while (name < e && is_space(*name))
		name++;
	*name_out = name;
	*ne_out = word_end(name, e);
	return 1;
}

#endif
