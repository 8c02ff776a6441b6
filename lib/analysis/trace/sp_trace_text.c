// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ftrace text, one line at a time. The forms read here:
 *
 *   tracefs trace / trace_pipe:
 *     "  comm-123     [001] d..2.  859.350983: sched_switch: prev_comm=..."
 *     irq-info off:     "  comm-123     [001]   859.350983: ..."
 *     record-tgid on:   "  comm-123     (    120) [001] ...."  or "(-------)"
 *     lost events:      "CPU:1 [LOST 1234 EVENTS]"
 *   trace-cmd report:
 *     "sptest:   comm-123 [000]   978.131088: sched_switch:   a:1 [120] S ==> b:2 [120]"
 *     -l:               "  comm-123   0d..2.   978.128658: ..."
 *     plugin formats of sched_switch, sched_wakeup*, sys_enter_futex
 *   Perfetto `traceconv systrace`: the kernel's form with a tgid column.
 *
 * A comm may contain spaces and dashes: the pid is the number after the
 * last dash before the CPU column. Every access is bounded by the line's
 * length; nothing is assumed NUL-terminated.
 */
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <superpass/trace.h>

#include "sp_trace_internal.h"

struct span {
	const char *p, *e;
};

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

/* *ev = (struct sp_trace_event){ 0 }, as vector stores (the compiler's
 * rep stos for it was a sixth of the line's time). */
static inline void zero_event(struct sp_trace_event *ev)
{
#if defined(__SSE2__)
	/* Written out rather than a loop: GCC turns the loop back into the
	 * rep stos (-ftree-loop-distribute-patterns). */
	const __m128i z = _mm_setzero_si128();

	_Static_assert(sizeof(*ev) % 16 == 0 && sizeof(*ev) <= 128,
		       "zero_event stores 16 bytes a step, at most 128");
#define SPTR_Z16(o)                                                                      \
	do {                                                                             \
		if (sizeof(*ev) > (o))                                                   \
			_mm_storeu_si128((__m128i *)((char *)ev + (o)), z);              \
	} while (0)
	SPTR_Z16(0); SPTR_Z16(16); SPTR_Z16(32); SPTR_Z16(48);
	SPTR_Z16(64); SPTR_Z16(80); SPTR_Z16(96); SPTR_Z16(112);
#undef SPTR_Z16
#else
	memset(ev, 0, sizeof(*ev));
#endif
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int hexval(char c)
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
#define SPTR_SAME_W(T)                                                              \
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
			SPTR_SAME_W(uint64_t);
		if (n >= 4)
			SPTR_SAME_W(uint32_t);
		if (n >= 2)
			SPTR_SAME_W(uint16_t);
		return a[0] == b[0];
	}
#undef SPTR_SAME_W
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
static inline __attribute__((always_inline)) int parse_dec(const char **pp, const char *e, int64_t *out)
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
static int parse_num(const char **pp, const char *e, uint64_t *out)
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

static inline __attribute__((always_inline)) int parse_i32(const char **pp, const char *e, int32_t *out)
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
		t = x ^ 0x3030303030303030ull; /* digits: bytes 0 to 9 */
		/* bit 7 of each byte that is not a digit: 9 + 0x76 < 0x80, and
		 * no carry crosses a byte (at most 0x7f + 0x76) */
		nd = (((t & 0x7f7f7f7f7f7f7f7full) + 0x7676767676767676ull) | t) &
		     0x8080808080808080ull;
		n = nd ? (unsigned)__builtin_ctzll(nd) / 8 : 8;
		if (n >= 1 && n <= 7) {
			t <<= 8 * (8 - n); /* the digits to the top bytes, zeros below */
			t = ((t & 0x0f0f0f0f0f0f0f0full) * 2561) >> 8;
			t = ((t & 0x00ff00ff00ff00ffull) * 6553601) >> 16;
			*out = (int32_t)(((t & 0x0000ffff0000ffffull) * 42949672960001ull) >> 32);
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
	/* memcpy of a variable n under 16 was rep movsb: two overlapping
	 * moves of a word instead, the bytes [0, n) as memcpy would */
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

static uint32_t prev_state_of(const char *p, const char *e)
{
	bool d = false;

	if (p < e && *p == 'R')
		return SP_TRS_RUNNABLE;
	for (; p < e && !is_space(*p); p++) {
		if (*p == 'X' || *p == 'Z')
			return SP_TRS_DEAD;
		if (*p == 'D')
			d = true;
	}
	return d ? SP_TRS_UNINTERRUPTIBLE : SP_TRS_SLEEPING;
}

/* trace-cmd's plugin form of a task: "comm:pid [prio]" ending at e. */
static int plugin_task(const char *p, const char *e, char *comm, int32_t *pid, int32_t *prio,
		       const char **after)
{
	const char *br = NULL, *colon = NULL, *q;

	while (p < e && is_space(*p))
		p++;
	for (q = p; q + 1 < e; q++)
		if (q[0] == ' ' && q[1] == '[') {
			br = q;
			break;
		}
	if (!br)
		return -SP_TRSK_MISSING_FIELD;
	for (q = br - 1; q >= p; q--)
		if (*q == ':') {
			colon = q;
			break;
		}
	if (!colon)
		return -SP_TRSK_MISSING_FIELD;
	copy_comm(comm, p, colon);
	q = colon + 1;
	if (parse_i32(&q, br, pid))
		return -SP_TRSK_BAD_VALUE;
	q = br + 2;
	if (parse_i32(&q, e, prio) || q >= e || *q != ']')
		return -SP_TRSK_BAD_VALUE;
	*after = q + 1;
	return 0;
}

/* One side of a sched_switch in the kernel's key=value form, "X_comm=C
 * X_pid=N X_prio=N" with X "prev" or "next" (@k: "prev_comm=", " prev_pid=",
 * " prev_prio=" or the next ones): in that order from @p in one pass (the
 * kernel's format), else found key by key. */
/* The keys are literals (kc "X_comm=", kp " X_pid=", kr " X_prio="), so
 * that their lengths and compares fold. */
static inline __attribute__((always_inline)) int
sw_side(const char *p, const char *e, const char *kc, const char *kp, const char *kr, char *comm,
	int32_t *pid, int32_t *prio, const char **after)
{
	size_t nc = strlen(kc), np = strlen(kp), nr = strlen(kr);
	const char *q, *v;
	int rc;

	if ((size_t)(e - p) > nc && same(p, kc, nc) && (v = find(p + nc, e, kp))) {
		copy_comm(comm, p + nc, v);
		q = v + np;
		if (i32_fast(&q, e, pid))
			return -SP_TRSK_BAD_VALUE;
		if ((size_t)(e - q) >= nr && same(q, kr, nr)) {
			q += nr;
			*after = q;
			return i32_fast(after, e, prio) ? -SP_TRSK_BAD_VALUE : 0;
		}
	}
	*after = NULL;
	if ((rc = kv_comm(p, e, kc, kp, comm)) || (rc = kv_i32(p, e, kp + 1, pid)) ||
	    (rc = kv_i32(p, e, kr + 1, prio)))
		return rc;
	return 0;
}

static int parse_switch(const char *p, const char *e, struct sp_trace_event *ev)
{
	const char *arrow = find(p, e, " ==> ");
	int rc;

	if (!arrow)
		return -SP_TRSK_MISSING_FIELD;
	if ((e - p > 10 && same(p, "prev_comm=", 10)) || kv(p, arrow, "prev_pid=")) {
		const char *st, *after;

		if ((rc = sw_side(p, arrow, "prev_comm=", " prev_pid=", " prev_prio=",
				  ev->u.sw.prev_comm, &ev->u.sw.prev_pid, &ev->u.sw.prev_prio,
				  &after)))
			return rc;
		/* the kernel's order puts prev_state right after prev_prio */
		st = after && arrow - after >= 12 && same(after, " prev_state=", 12)
		     ? after + 12 : kv(p, arrow, "prev_state=");
		if (!st)
			return -SP_TRSK_MISSING_FIELD;
		ev->u.sw.prev_state = prev_state_of(st, arrow);
		if ((rc = sw_side(arrow + 5, e, "next_comm=", " next_pid=", " next_prio=",
				  ev->u.sw.next_comm, &ev->u.sw.next_pid, &ev->u.sw.next_prio,
				  &after)))
			return rc;
	} else {
		const char *after;

		rc = plugin_task(p, arrow, ev->u.sw.prev_comm, &ev->u.sw.prev_pid,
				 &ev->u.sw.prev_prio, &after);
		if (rc)
			return rc;
		while (after < arrow && is_space(*after))
			after++;
		ev->u.sw.prev_state = prev_state_of(after, arrow);
		rc = plugin_task(arrow + 5, e, ev->u.sw.next_comm, &ev->u.sw.next_pid,
				 &ev->u.sw.next_prio, &after);
		if (rc)
			return rc;
	}
	if (ev->u.sw.prev_pid < 0 || ev->u.sw.next_pid < 0)
		return -SP_TRSK_BAD_VALUE;
	return 0;
}

/* The kernel's "comm=C pid=N prio=N target_cpu=N" in that order, with no
 * '=' in C (so that no key can hide in it): what the general case below
 * finds, in one pass. 0 when it did, else -1 (the general case decides). */
static int wake_fast(const char *p, const char *e, struct sp_trace_event *ev)
{
	const char *q = p + 5, *c;

	if (e - p < 5 || !same(p, "comm=", 5))
		return -1;
	c = find_byte(q, e, '=');
	/* c: the '=' of " pid=" (the first '=' after comm=) */
	if (!c || c - q < 4 || !same(c - 4, " pid", 4))
		return -1;
	copy_comm(ev->u.wake.comm, q, c - 4);
	q = c + 1;
	if (i32_fast(&q, e, &ev->u.wake.pid))
		return -1;
	if (e - q < 6 || !same(q, " prio=", 6))
		return -1;
	q += 6;
	if (i32_fast(&q, e, &ev->u.wake.prio))
		return -1;
	if (e - q < 12 || !same(q, " target_cpu=", 12))
		return -1;
	q += 12;
	if (i32_fast(&q, e, &ev->u.wake.target_cpu))
		return -1;
	for (; q < e; q++) /* nothing after but spaces: no later key */
		if (!is_space(*q))
			return -1;
	return 0;
}

static int parse_wake(const char *p, const char *e, struct sp_trace_event *ev)
{
	int rc;

	if (!wake_fast(p, e, ev))
		return ev->u.wake.pid < 0 ? -SP_TRSK_BAD_VALUE : 0;
	memset(&ev->u.wake, 0, sizeof(ev->u.wake));
	ev->u.wake.target_cpu = -1;
	if (kv(p, e, "pid=")) {
		const char *t;

		if ((rc = kv_comm(p, e, "comm=", " pid=", ev->u.wake.comm)) ||
		    (rc = kv_i32(p, e, "pid=", &ev->u.wake.pid)))
			return rc;
		if (kv(p, e, "prio=") && kv_i32(p, e, "prio=", &ev->u.wake.prio))
			return -SP_TRSK_BAD_VALUE;
		t = kv(p, e, "target_cpu=");
		if (t && parse_i32(&t, e, &ev->u.wake.target_cpu))
			return -SP_TRSK_BAD_VALUE;
	} else {
		const char *after, *c;

		rc = plugin_task(p, e, ev->u.wake.comm, &ev->u.wake.pid, &ev->u.wake.prio, &after);
		if (rc)
			return rc;
		c = find(after, e, "CPU:");
		if (c) {
			c += 4;
			if (parse_i32(&c, e, &ev->u.wake.target_cpu))
				return -SP_TRSK_BAD_VALUE;
		}
	}
	return ev->u.wake.pid < 0 ? -SP_TRSK_BAD_VALUE : 0;
}

static int parse_fork(const char *p, const char *e, struct sp_trace_event *ev)
{
	int rc;

	if ((rc = kv_i32(p, e, "pid=", &ev->u.fork.parent_pid)) ||
	    (rc = kv_comm(p, e, "child_comm=", " child_pid=", ev->u.fork.child_comm)) ||
	    (rc = kv_i32(p, e, "child_pid=", &ev->u.fork.child_pid)))
		return rc;
	return ev->u.fork.child_pid <= 0 ? -SP_TRSK_BAD_VALUE : 0;
}

static int parse_exit(const char *p, const char *e, struct sp_trace_event *ev)
{
	int rc = kv_i32(p, e, "pid=", &ev->u.exit.pid);

	ev->u.exit.prio = -1;
	if (rc)
		return rc;
	if (kv(p, e, "prio=") && kv_i32(p, e, "prio=", &ev->u.exit.prio))
		return -SP_TRSK_BAD_VALUE;
	return ev->u.exit.pid <= 0 ? -SP_TRSK_BAD_VALUE : 0;
}

static int parse_rename(const char *p, const char *e, struct sp_trace_event *ev)
{
	int rc;

	if ((rc = kv_i32(p, e, "pid=", &ev->u.rename.pid)) ||
	    (rc = kv_comm(p, e, "newcomm=", " oom_score_adj=", ev->u.rename.newcomm)))
		return rc;
	return ev->u.rename.pid <= 0 ? -SP_TRSK_BAD_VALUE : 0;
}

static const struct {
	const char *name;
	uint32_t bit;
} lcb_names[] = {
	{ "SPIN", SP_TRACE_LCB_SPIN },	   { "READ", SP_TRACE_LCB_READ },
	{ "WRITE", SP_TRACE_LCB_WRITE },   { "RT", SP_TRACE_LCB_RT },
	{ "PERCPU", SP_TRACE_LCB_PERCPU }, { "MUTEX", SP_TRACE_LCB_MUTEX },
};

static int parse_lock(const char *p, const char *e, struct sp_trace_event *ev, bool begin)
{
	const char *v;

	if (parse_hex(&p, e, &ev->u.lock.addr))
		return -SP_TRSK_BAD_VALUE;
	if (begin) {
		v = kv(p, e, "(flags=");
		if (!v)
			return -SP_TRSK_MISSING_FIELD;
		if (v < e && is_digit(*v)) {
			uint64_t f;

			if (parse_num(&v, e, &f))
				return -SP_TRSK_BAD_VALUE;
			ev->u.lock.flags = (uint32_t)f;
			return 0;
		}
		while (v < e && *v != ')') {
			const char *t = v;
			size_t i, n;

			while (t < e && *t != '|' && *t != ')')
				t++;
			n = (size_t)(t - v);
			for (i = 0; i < sizeof(lcb_names) / sizeof(lcb_names[0]); i++)
				if (strlen(lcb_names[i].name) == n && !memcmp(v, lcb_names[i].name, n))
					ev->u.lock.flags |= lcb_names[i].bit;
			v = t < e && *t == '|' ? t + 1 : t;
		}
		return 0;
	}
	v = kv(p, e, "(ret=");
	if (!v)
		return -SP_TRSK_MISSING_FIELD;
	return parse_i32(&v, e, &ev->u.lock.ret) ? -SP_TRSK_BAD_VALUE : 0;
}

/* "FUTEX_WAIT|FUTEX_PRIVATE_FLAG" (trace-cmd's futex plugin). */
static int futex_op_names(const char *p, const char *e, uint32_t *op)
{
	static const char *const cmds[] = {
		"FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_FD", "FUTEX_REQUEUE", "FUTEX_CMP_REQUEUE",
		"FUTEX_WAKE_OP", "FUTEX_LOCK_PI", "FUTEX_UNLOCK_PI", "FUTEX_TRYLOCK_PI",
		"FUTEX_WAIT_BITSET", "FUTEX_WAKE_BITSET", "FUTEX_WAIT_REQUEUE_PI",
		"FUTEX_CMP_REQUEUE_PI", "FUTEX_LOCK_PI2",
	};
	bool any = false;

	*op = 0;
	while (p < e && !is_space(*p)) {
		const char *t = p;
		size_t n;

		while (t < e && *t != '|' && !is_space(*t))
			t++;
		n = (size_t)(t - p);
		if (n == 18 && !memcmp(p, "FUTEX_PRIVATE_FLAG", n)) {
			*op |= 128;
		} else if (n == 20 && !memcmp(p, "FUTEX_CLOCK_REALTIME", n)) {
			*op |= 256;
		} else {
			for (uint32_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
				if (strlen(cmds[i]) == n && !memcmp(p, cmds[i], n)) {
					*op |= i;
					any = true;
				}
		}
		p = t < e && *t == '|' ? t + 1 : t;
	}
	return any || *op ? 0 : -1;
}

static int parse_futex_enter(const char *p, const char *e, struct sp_trace_event *ev)
{
	const char *v;
	uint64_t x;

	/* kernel: "uaddr: 0x..., op: 0x..., val: ..."; trace-cmd: "op=NAME uaddr=0x... val=0x..." */
	if ((v = kv(p, e, "uaddr: ")) != NULL || (v = kv(p, e, "(uaddr: ")) != NULL) {
		if (parse_num(&v, e, &ev->u.futex.uaddr))
			return -SP_TRSK_BAD_VALUE;
		v = kv(p, e, "op: ");
		if (!v)
			return -SP_TRSK_MISSING_FIELD;
		if (parse_num(&v, e, &x))
			return -SP_TRSK_BAD_VALUE;
		ev->u.futex.op = (uint32_t)x;
		v = kv(p, e, "val: ");
		if (v && !parse_num(&v, e, &x))
			ev->u.futex.val = (uint32_t)x;
		return 0;
	}
	v = kv(p, e, "uaddr=");
	if (!v)
		return -SP_TRSK_MISSING_FIELD;
	if (parse_num(&v, e, &ev->u.futex.uaddr))
		return -SP_TRSK_BAD_VALUE;
	v = kv(p, e, "op=");
	if (!v)
		return -SP_TRSK_MISSING_FIELD;
	if (is_digit(*v)) {
		if (parse_num(&v, e, &x))
			return -SP_TRSK_BAD_VALUE;
		ev->u.futex.op = (uint32_t)x;
	} else if (futex_op_names(v, e, &ev->u.futex.op)) {
		return -SP_TRSK_BAD_VALUE;
	}
	v = kv(p, e, "val=");
	if (v && !parse_num(&v, e, &x))
		ev->u.futex.val = (uint32_t)x;
	return 0;
}

static int parse_futex_exit(const char *p, const char *e, struct sp_trace_event *ev)
{
	uint64_t x;

	while (p < e && is_space(*p))
		p++;
	if (p + 1 < e && p[0] == '0' && p[1] == 'x') {
		if (parse_hex(&p, e, &x))
			return -SP_TRSK_BAD_VALUE;
		ev->u.futex.ret = (int64_t)x;
		return 0;
	}
	return parse_dec(&p, e, &ev->u.futex.ret) ? -SP_TRSK_BAD_VALUE : 0;
}

/* raw_syscalls: "NR 202 (a0, a1, a2, ...)" and "NR 202 = ret". */
static int parse_raw_syscall(const char *p, const char *e, struct sp_trace_event *ev, bool enter)
{
	int64_t nr;
	uint64_t a[3];

	while (p < e && is_space(*p))
		p++;
	if (e - p < 3 || memcmp(p, "NR ", 3))
		return -SP_TRSK_MISSING_FIELD;
	p += 3;
	if (parse_dec(&p, e, &nr))
		return -SP_TRSK_BAD_VALUE;
	if (nr != SP_TRACE_NR_FUTEX)
		return -SP_TRSK_UNKNOWN_EVENT;
	if (!enter) {
		const char *v = find(p, e, "= ");

		if (!v)
			return -SP_TRSK_MISSING_FIELD;
		v += 2;
		ev->type = SP_TR_FUTEX_EXIT;
		return parse_dec(&v, e, &ev->u.futex.ret) ? -SP_TRSK_BAD_VALUE : 0;
	}
	while (p < e && (is_space(*p) || *p == '('))
		p++;
	for (int i = 0; i < 3; i++) {
		if (parse_hex(&p, e, &a[i]))
			return -SP_TRSK_BAD_VALUE;
		while (p < e && (*p == ',' || is_space(*p)))
			p++;
	}
	ev->type = SP_TR_FUTEX_ENTER;
	ev->u.futex.uaddr = a[0];
	ev->u.futex.op = (uint32_t)a[1];
	ev->u.futex.val = (uint32_t)a[2];
	return 0;
}

static bool span_is(const char *p, const char *e, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(e - p) == n && !memcmp(p, s, n);
}

/* The event's name [n, ne) and its arguments [a, e): dispatch. */
static int parse_event(const char *n, const char *ne, const char *a, const char *e,
		       struct sp_trace_event *ev)
{
	size_t len = (size_t)(ne - n);
	uint32_t type = SP_TR_NR; /* none of these */

	/* by length first, so that each compare is of a literal: a word or
	 * two, not a loop a byte */
#define IS(s, t) (same(n, s, sizeof(s) - 1) ? (type = (t), true) : false)
	switch (len) {
	case 8: IS("sys_exit", SP_TR_NONE); break;
	case 9: IS("sys_enter", SP_TR_NONE); break;
	case 11: IS("task_rename", SP_TR_RENAME); break;
	case 12:
		(void)(IS("sched_switch", SP_TR_SWITCH) || IS("sched_waking", SP_TR_WAKING) ||
		       IS("sched_wakeup", SP_TR_WAKEUP));
		break;
	case 14:
		(void)(IS("sys_exit_futex", SP_TR_FUTEX_EXIT) || IS("contention_end", SP_TR_LOCK_END));
		break;
	case 15: IS("sys_enter_futex", SP_TR_FUTEX_ENTER); break;
	case 16:
		(void)(IS("sched_wakeup_new", SP_TR_WAKEUP_NEW) ||
		       IS("contention_begin", SP_TR_LOCK_BEGIN));
		break;
	case 18:
		(void)(IS("sched_process_fork", SP_TR_FORK) || IS("sched_process_exit", SP_TR_EXIT));
		break;
	default: break;
	}
#undef IS
	if (type == SP_TR_NR)
		return -SP_TRSK_UNKNOWN_EVENT;
	ev->type = type;
	switch (type) {
	case SP_TR_SWITCH: return parse_switch(a, e, ev);
	case SP_TR_WAKING:
	case SP_TR_WAKEUP:
	case SP_TR_WAKEUP_NEW: return parse_wake(a, e, ev);
	case SP_TR_FORK: return parse_fork(a, e, ev);
	case SP_TR_EXIT: return parse_exit(a, e, ev);
	case SP_TR_RENAME: return parse_rename(a, e, ev);
	case SP_TR_LOCK_BEGIN: return parse_lock(a, e, ev, true);
	case SP_TR_LOCK_END: return parse_lock(a, e, ev, false);
	case SP_TR_FUTEX_ENTER: return parse_futex_enter(a, e, ev);
	case SP_TR_FUTEX_EXIT: return parse_futex_exit(a, e, ev);
	default: /* raw_syscalls */
		return parse_raw_syscall(a, e, ev, len == 9);
	}
}

static const char *skip_why[SP_TRSK_NR] = {
	[SP_TRSK_UNPARSABLE] = "not an event line",
	[SP_TRSK_UNKNOWN_EVENT] = "an event the analysis does not use",
	[SP_TRSK_MISSING_FIELD] = "a field is missing",
	[SP_TRSK_BAD_VALUE] = "a field has a bad value",
	[SP_TRSK_BINARY] = "control or NUL bytes",
	[SP_TRSK_TOO_LONG] = "line too long",
	[SP_TRSK_OUT_OF_ORDER] = "timestamp before the previous one",
	[SP_TRSK_LOST] = "lost events",
};

/* "CPU:1 [LOST 1234 EVENTS]" or trace-cmd's "CPU:1 [1234 EVENTS DROPPED]". */
static int parse_lost(const char *p, const char *e, struct sp_trace_event *ev)
{
	const char *q = p + 4;
	int64_t v;

	if (!find(p, e, "LOST") && !find(p, e, "DROPPED"))
		return 0;
	ev->type = SP_TR_LOST;
	ev->cpu = -1;
	if (!parse_dec(&q, e, &v) && v >= 0 && v < INT32_MAX)
		ev->cpu = (int32_t)v;
	/* the count is the first number after the '[' */
	q = find(p, e, "[");
	ev->u.lost.count = 0;
	if (q) {
		while (q < e && !is_digit(*q))
			q++;
		if (!parse_dec(&q, e, &v) && v > 0)
			ev->u.lost.count = (uint64_t)v;
	}
	return 1;
}

/* Control bytes other than tab: a binary file, not text. */
static bool has_control(const char *p, const char *e)
{
	for (; p < e; p++)
		if ((unsigned char)*p < 0x20 && *p != '\t')
			return true;
	return false;
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

static int parse_line(const char *line, size_t len, struct sp_trace_event *ev, const char **why,
		      int nul, bool masked);

int sp_trace_parse_line(const char *line, size_t len, struct sp_trace_event *ev,
			const char **why)
{
	return sptr_parse_line(line, len, ev, why, -1);
}

static int parse_line_checked(const char *line, size_t len, struct sp_trace_event *ev,
			      const char **why, int nul, bool masked)
{
	const char *dummy;
	int rc;

	if (!why)
		why = &dummy;
	rc = parse_line(line, len, ev, why, nul, masked);
	/* Other control bytes are looked for only in lines that did not
	 * parse (the common case pays nothing): binary data, not a bad line. */
	if (rc < 0 && rc != -(1 + SP_TRSK_BINARY) && has_control(line, line + len)) {
		*why = skip_why[SP_TRSK_BINARY];
		return -(1 + SP_TRSK_BINARY);
	}
	return rc;
}

int sptr_parse_line(const char *line, size_t len, struct sp_trace_event *ev, const char **why,
		    int nul)
{
	return parse_line_checked(line, len, ev, why, nul, true);
}

int sptr_parse_line_scalar(const char *line, size_t len, struct sp_trace_event *ev,
			   const char **why, int nul)
{
	return parse_line_checked(line, len, ev, why, nul, false);
}

/* The prefix of an event line, [p, e) with p at its first non-space byte:
 * the timestamp, CPU, flags, pid and comm into @ev, and the event's name
 * [*name, *ne). 1 when there is one, else parse_line's value for the line
 * (*why set). Byte by byte: every form the reader takes. */
static int prefix_general(const char *p, const char *e, struct sp_trace_event *ev,
			  const char **why, const char **name_out, const char **ne_out)
{
	const char *ts = NULL, *te = NULL, *q, *cpu_tok = NULL;
	const char *name, *ne, *pre_e, *tok, *tok_e, *dash;
	uint64_t secs = 0, frac = 0;
	int fd = 0;
	int64_t v;

	/* The timestamp: the first " SECS[.FRAC]: " */
	for (q = p; q + 1 < e; q++) {
		const char *d;

		q = find_byte(q, e - 1, ':');
		if (!q)
			break;
		if (q[1] != ' ')
			continue;
		d = q;
		while (d > p && is_digit(d[-1]))
			d--;
		if (d < q && d > p && d[-1] == '.') {
			const char *s = d - 1;

			while (s > p && is_digit(s[-1]))
				s--;
			if (s < d - 1 && s > p && is_space(s[-1])) {
				ts = s;
				te = q;
				break;
			}
		} else if (d < q && d > p && is_space(d[-1])) {
			ts = d;
			te = q;
			break;
		}
	}
	if (!ts) {
		*why = "no timestamp";
		return -(1 + SP_TRSK_UNPARSABLE);
	}
	for (q = ts; q < te && *q != '.'; q++) {
		if (secs > UINT64_MAX / 10 - 10)
			goto bad_ts;
		secs = secs * 10 + (uint64_t)(*q - '0');
	}
	if (q < te) {
		for (q++; q < te; q++, fd++)
			if (fd < 9)
				frac = frac * 10 + (uint64_t)(*q - '0');
		for (; fd < 9; fd++)
			frac *= 10;
		if (secs > (UINT64_MAX - frac) / 1000000000ull)
			goto bad_ts;
		ev->ts_ns = secs * 1000000000ull + frac;
	} else {
		ev->ts_ns = secs; /* a counter clock: raw units */
	}

	/* The prefix, right to left: [flags] [CPU] [(tgid)] comm-pid */
	ev->cpu = -1;
	pre_e = ts;
	while (pre_e > p && is_space(pre_e[-1]))
		pre_e--;
	tok_e = pre_e;
	tok = tok_e;
	while (tok > p && !is_space(tok[-1]))
		tok--;
	if (tok < tok_e && tok[0] == '[' && tok_e[-1] == ']') {
		cpu_tok = tok;
	} else if (flags_token(tok, tok_e)) {
		const char *c = tok, *f;

		while (c < tok_e && is_digit(*c))
			c++;
		f = c;
		if (c > tok && tok_e - f >= 4) { /* trace-cmd -l: CPU digits fused */
			q = tok;
			if (!parse_dec(&q, c, &v) && v < INT32_MAX)
				ev->cpu = (int32_t)v;
		}
		ev->flags |= SP_TRACE_EVF_CTX_KNOWN;
		if (tok_e - f >= 3 && (f[2] == 'h' || f[2] == 'H' || f[2] == 's' || f[2] == 'S' ||
				       f[2] == 'z' || f[2] == 'Z'))
			ev->flags |= SP_TRACE_EVF_IRQ;
		pre_e = tok;
		while (pre_e > p && is_space(pre_e[-1]))
			pre_e--;
		tok_e = pre_e;
		tok = tok_e;
		while (tok > p && !is_space(tok[-1]))
			tok--;
		if (ev->cpu < 0 && tok < tok_e && tok[0] == '[' && tok_e[-1] == ']')
			cpu_tok = tok;
	}
	if (cpu_tok) {
		q = cpu_tok + 1;
		if (parse_dec(&q, tok_e - 1, &v) || q != tok_e - 1 || v < 0 || v > 1 << 20) {
			*why = "bad CPU column";
			return -(1 + SP_TRSK_BAD_VALUE);
		}
		ev->cpu = (int32_t)v;
		pre_e = cpu_tok;
		while (pre_e > p && is_space(pre_e[-1]))
			pre_e--;
	} else if (ev->cpu < 0) {
		*why = "no CPU column";
		return -(1 + SP_TRSK_UNPARSABLE);
	}
	/* "(  123)" or "(-----)" */
	if (pre_e > p && pre_e[-1] == ')') {
		q = pre_e - 1;
		while (q > p && *q != '(')
			q--;
		if (*q != '(') {
			*why = "unbalanced tgid column";
			return -(1 + SP_TRSK_UNPARSABLE);
		}
		pre_e = q;
		while (pre_e > p && is_space(pre_e[-1]))
			pre_e--;
	}
	/* trace-cmd's instance name: "sptest:   comm-pid" */
	q = find_space(p, pre_e, true);
	if (q > p && q < pre_e && q[-1] == ':') {
		while (q < pre_e && is_space(*q))
			q++;
		p = q;
	}
	dash = NULL;
	for (q = pre_e - 1; q > p; q--)
		if (*q == '-') {
			dash = q;
			break;
		}
	if (!dash || dash + 1 >= pre_e) {
		*why = "no comm-pid";
		return -(1 + SP_TRSK_UNPARSABLE);
	}
	q = dash + 1;
	if (parse_i32(&q, pre_e, &ev->pid) || q != pre_e || ev->pid < 0) {
		*why = "bad pid";
		return -(1 + SP_TRSK_BAD_VALUE);
	}
	copy_comm(ev->comm, p, dash);

	name = te + 2;
	while (name < e && is_space(*name))
		name++;
	ne = name;
	while (ne < e && (cls[(unsigned char)*ne] & CL_WORD))
		ne++;
	*name_out = name;
	*ne_out = ne;
	return 1;

bad_ts:
	*why = "timestamp out of range";
	return -(1 + SP_TRSK_BAD_VALUE);
}

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

/* The n ≤ 8 digits that end at @end as a number, from one 8-byte load
 * of [end - 8, end) (which the caller makes sure it may read): the bytes
 * before the digits masked to zeros, then pairs, fours and eights of
 * digits combined by multiplies (SWAR). */
static inline __attribute__((always_inline)) uint64_t swar8(const char *end, unsigned n)
{
	uint64_t x;

	if (!n)
		return 0;
	memcpy(&x, end - 8, 8);
	/* little-endian: the last digit is the top byte */
	x = (x ^ 0x3030303030303030ull) & (~0ull << (8 * (8 - n)));
	x = ((x & 0x0f0f0f0f0f0f0f0full) * 2561) >> 8;
	x = ((x & 0x00ff00ff00ff00ffull) * 6553601) >> 16;
	return ((x & 0x0000ffff0000ffffull) * 42949672960001ull) >> 32;
}

/* swar8 for n ≤ 4 digits, from [end - 4, end): one multiply less. */
static inline __attribute__((always_inline)) uint32_t swar4(const char *end, unsigned n)
{
	uint32_t x;

	if (!n)
		return 0;
	memcpy(&x, end - 4, 4);
	x = (x ^ 0x30303030u) & (~0u << (8 * (4 - n)));
	x = ((x & 0x0f0f0f0fu) * 2561) >> 8;
	return ((x & 0x00ff00ffu) * 6553601) >> 16;
}

/* Digits [line + at, line + at + n) as a number; n ≤ 19. */
static inline __attribute__((always_inline)) uint64_t digits_value(const char *line, unsigned at, unsigned n)
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

static int prefix_masked(const char *line, const char *e, struct sp_trace_event *ev,
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

/* Bit 7 of each byte of @x that is not an ASCII digit (i32_fast's test). */
static inline uint64_t nondigits8(uint64_t x)
{
	uint64_t t = x ^ 0x3030303030303030ull;

	return (((t & 0x7f7f7f7f7f7f7f7full) + 0x7676767676767676ull) | t) & 0x8080808080808080ull;
}

/* The value of the first @n (1 to 8) bytes of @x, digits, byte 0 first. */
static inline uint64_t lead_digits8(uint64_t x, unsigned n)
{
	uint64_t t = (x ^ 0x3030303030303030ull) << (8 * (8 - n)); /* to the top bytes */

	t = ((t & 0x0f0f0f0f0f0f0f0full) * 2561) >> 8;
	t = ((t & 0x00ff00ff00ff00ffull) * 6553601) >> 16;
	return ((t & 0x0000ffff0000ffffull) * 42949672960001ull) >> 32;
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
 * and ": ". Most lines of a recording are so; prefix_masked takes the rest
 * (wider seconds or CPUs, tabs, no flags...), and on the lines this takes
 * it gives what prefix_general gives, field for field: no ": " can come
 * before the timestamp's (no space in the comm, none of the fixed bytes
 * is a colon), the last dash before the pid is byte 16, the flags are
 * flags_token's without fused CPU digits, and the values cannot overflow.
 * 0 (and @ev untouched) for any other line.
 */
static inline __attribute__((always_inline)) int prefix_kernel(const char *line, const char *e,
							       struct sp_trace_event *ev,
							       const char **name_out,
							       const char **ne_out)
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
	nd = nondigits8(w);
	if (!nd || !(n = (unsigned)__builtin_ctzll(nd) / 8) ||
	    (w ^ 0x2020202020202020ull) >> (8 * n))
		return 0;
	pid = (int32_t)lead_digits8(w, n);
	/* "[ddd] " at 25-30 */
	w = load8(line + 25);
	if ((w & 0x0000ffff000000ffull) != 0x0000205d0000005bull ||
	    (nondigits8(w) & 0x0000000080808000ull))
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
	    (nondigits8(w) & 0x0000808080808080ull))
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

static int parse_line(const char *line, size_t len, struct sp_trace_event *ev, const char **why,
		      int nul, bool masked)
{
	const char *p = line, *e = line + len, *name, *ne, *args;
	int rc;

	*why = NULL;
	zero_event(ev);
	while (e > p && (e[-1] == '\r' || e[-1] == '\n'))
		e--;
	if (nul < 0 ? memchr(p, '\0', (size_t)(e - p)) != NULL : nul > 0) {
		*why = skip_why[SP_TRSK_BINARY];
		return -(1 + SP_TRSK_BINARY);
	}
#if defined(__SSE2__)
	if (!masked ||
	    !(prefix_kernel(p, e, ev, &name, &ne) || prefix_masked(p, e, ev, &name, &ne)))
#else
	(void)masked;
#endif
	{
		p = find_space(p, e, false);
		if (p == e || *p == '#')
			return 0;
		if (e - p >= 4 && !memcmp(p, "CPU:", 4) && find(p, e, "EVENTS"))
			return parse_lost(p, e, ev) ? 1 : 0;
		if ((e - p >= 5 && !memcmp(p, "cpus=", 5)) || (e - p >= 4 && !memcmp(p, "CPU ", 4)) ||
		    (e - p >= 8 && !memcmp(p, "version ", 8)))
			return 0;
		rc = prefix_general(p, e, ev, why, &name, &ne);
		if (rc != 1)
			return rc;
	}

	/* The event: "name: args", or the kernel's "sys_futex(...)" and
	 * "sys_futex -> 0x..." */
	if (ne == name) {
		*why = "no event name";
		return -(1 + SP_TRSK_UNPARSABLE);
	}
	if (span_is(name, ne, "sys_futex")) {
		if (ne < e && *ne == '(') {
			ev->type = SP_TR_FUTEX_ENTER;
			rc = parse_futex_enter(ne, e, ev);
		} else if (e - ne >= 4 && !memcmp(ne, " -> ", 4)) {
			ev->type = SP_TR_FUTEX_EXIT;
			rc = parse_futex_exit(ne + 4, e, ev);
		} else {
			rc = -SP_TRSK_UNKNOWN_EVENT;
		}
	} else if (ne < e && *ne == ':') {
		args = ne + 1;
		while (args < e && is_space(*args))
			args++;
		rc = parse_event(name, ne, args, e, ev);
	} else {
		rc = -SP_TRSK_UNKNOWN_EVENT;
	}
	if (rc < 0) {
		*why = skip_why[-rc];
		return -(1 - rc);
	}
	return 1;
}

const char *sp_trace_skip_name(unsigned int reason)
{
	static const char *const names[SP_TRSK_NR] = {
		[SP_TRSK_UNPARSABLE] = "unparsable line",
		[SP_TRSK_UNKNOWN_EVENT] = "unknown event",
		[SP_TRSK_MISSING_FIELD] = "missing field",
		[SP_TRSK_BAD_VALUE] = "bad value",
		[SP_TRSK_BINARY] = "binary data",
		[SP_TRSK_TOO_LONG] = "line too long",
		[SP_TRSK_OUT_OF_ORDER] = "timestamp out of order",
		[SP_TRSK_LOST] = "lost-event marker",
	};

	return reason < SP_TRSK_NR ? names[reason] : NULL;
}
