// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The fixed-offset prefix parser of the kernel's exact layout (x86 SSE2).
 */
#include <superpass/trace.h>

#include "sp_trace_parse.h"
#include "sp_trace_prefix_simd.h"
#include "sp_trace_scan.h"

#if defined(__SSE2__)
/* The value of the first @n (1 to 8) bytes of @x, digits, byte 0 first. */
static inline uint64_t lead_digits8(uint64_t x, unsigned n)
{
	return sp_trace_digits_top8((x ^ 0x3030303030303030ull) << (8 * (8 - n)));
}

static inline uint64_t load8(const char *p)
{
	uint64_t x;

	memcpy(&x, p, 8);
	return x;
}

/*
 * The prefix of a line in the kernel's exact layout, irq-info on
 * (trace_print_context: "%16s-%-7d [%03d] FLAGS %5lu.%06lu: "), read at
 * its fixed offsets rather than searched for: the comm right-aligned in
 * bytes 0-15 (a space before it, none in it), '-' at 16, the pid's 1 to 7
 * digits from 17 padded with spaces to 24, "[ddd] " at 25, five flag bytes
 * at 31 and a space, then spaces, 1 to 10 digits of seconds, '.', 6 digits
 * and ": ". Most lines of a recording are so; sp_trace_prefix_masked takes the rest
 * (wider seconds or CPUs, tabs, no flags...), and on the lines this takes
 * it gives what sp_trace_prefix_general gives, field for field: no ": " can come
 * before the timestamp's (no space in the comm, none of the fixed bytes
 * is a colon), the last dash before the pid is byte 16, the flags are
 * flags_token's without fused CPU digits, and the values cannot overflow.
 * 0 (and @ev untouched) for any other line.
 */
int sp_trace_prefix_kernel(const char *line, const char *e, struct sp_trace_event *ev,
			   const char **name_out, const char **ne_out)
{
	const __m128i sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t');
	const __m128i lo = _mm_set1_epi8('0' - 1), hi = _mm_set1_epi8('9' + 1);
	const __m128i idx = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	__m128i x;
	unsigned sm, dm, p, n, dot, k, r, lowbits, at;
	uint64_t w, nd, secs, usec;
	int32_t pid, cpu;
	const char *name;
	char c;

	if (e - line < 64) /* every load below lies in the first 64 bytes */
		return 0;
	x = _mm_loadu_si128((const __m128i *)line);
	sm = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, sp), _mm_cmpeq_epi8(x, tab)));
	/* spaces [0, p), 1 ≤ p ≤ 15, then none up to byte 16 */
	if (!(sm & 1) || (sm & (sm + 1)) || (sm >> 15))
		return 0;
	p = (unsigned)__builtin_ctz(~sm);
	/* a comment, a marker or a header is parse_line's */
	c = line[p];
	if (c == '#' || c == 'C' || c == 'c' || c == 'v' || line[16] != '-')
		return 0;
	/* the pid: bytes 17-24, 1 to 7 digits and then only spaces */
	w = load8(line + 17);
	nd = sp_trace_nondigits8(w);
	if (!nd || !(n = (unsigned)__builtin_ctzll(nd) / 8) ||
	    (w ^ 0x2020202020202020ull) >> (8 * n))
		return 0;
	pid = (int32_t)lead_digits8(w, n);
	/* "[ddd] " at 25-30 */
	w = load8(line + 25);
	if ((w & 0x0000ffff000000ffull) != 0x0000205d0000005bull ||
	    (sp_trace_nondigits8(w) & 0x0000000080808000ull))
		return 0;
	cpu = (int32_t)lead_digits8(w >> 8, 3);
	/* the flags at 31-35, not trace-cmd -l's fused CPU digits */
	if (line[36] != ' ' || is_digit(line[31]) || !flags_token(line + 31, line + 36))
		return 0;
	/* from 37: k spaces, r digits of seconds, the dot */
	x = _mm_loadu_si128((const __m128i *)(line + 37));
	dm = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('.')));
	if (!dm || !(dot = (unsigned)__builtin_ctz(dm)))
		return 0;
	lowbits = (1u << dot) - 1;
	sm = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, sp)) & lowbits;
	k = (unsigned)__builtin_ctz(~sm);
	r = dot - k;
	if (sm != (1u << k) - 1 || !r || r > 10 ||
	    ((unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpgt_epi8(x, lo), _mm_cmplt_epi8(x, hi))) &
	     lowbits) != (lowbits & ~sm))
		return 0;
	at = 37 + dot; /* the dot: six digits and ": " after it */
	w = load8(line + at + 1);
	if ((w & 0xffff000000000000ull) != 0x203a000000000000ull ||
	    (sp_trace_nondigits8(w) & 0x0000808080808080ull))
		return 0;
	usec = lead_digits8(w, 6);
	secs = r <= 8 ? swar8(line + at, r)
		      : swar8(line + at - 8, r - 8) * 100000000ull + swar8(line + at, 8);

	ev->ts_ns = secs * 1000000000ull + usec * 1000u;
	ev->cpu = cpu;
	ev->flags |= SP_TRACE_EVF_CTX_KNOWN | irq_flag[(unsigned char)line[33]];
	ev->pid = pid;
	/* the comm, [p, 16): its 16 - p bytes, the rest zeros (copy_comm's) */
	x = _mm_loadu_si128((const __m128i *)(line + p));
	x = _mm_and_si128(x, _mm_cmplt_epi8(idx, _mm_set1_epi8((char)(16 - p))));
	_mm_storeu_si128((__m128i *)ev->comm, x);
	name = line + at + 9;
	while (name < e && is_space(*name))
		name++;
	*name_out = name;
	*ne_out = word_end(name, e);
	return 1;
}
#endif
