// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The text parser's fast prefixes (x86: prefix_kernel, the kernel's fixed
 * layout, and prefix_masked, vector masks) against its byte-by-byte
 * parser: on the lines of the recorded fixtures, lines made to sit at the
 * prefixes' edges, and every one-byte change, deletion and insertion in
 * their first 72 bytes, the two give the same verdict, reason and event,
 * byte for byte. Linked with the parser's internal object library (white
 * box, sp_trace_parse.h): the fast prefixes must also take the kernel's
 * lines (prefix_kernel most of them), or the test would compare the scalar
 * parser with itself.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include <superpass/trace.h>

#include "sp_parse_agree.h"
#include "sp_test_fixtures.h"
#include "sp_trace_parse.h"

static unsigned long compared, taken, taken_kernel;

/* The line [l, l + n) by both parsers: the same rc, reason and event. */
static void same_both_ways(const char *l, size_t n)
{
	const char *wa, *wb;
	/* a copy of exactly n bytes, so that a read past the line is ASan's */
	char *c = malloc(n ? n : 1);
	int ra, rb;

	assert_non_null(c);
	memcpy(c, l, n);
	if (!sp_parsers_agree(c, n, &ra, &rb, &wa, &wb))
		fail_msg("masked and scalar differ on '%.*s': %d '%s' / %d '%s'", (int)n, l, ra,
			 wa ? wa : "", rb, wb ? wb : "");
#if defined(__SSE2__)
	{
		struct sp_trace_event ev;
		const char *nm, *ne, *e = c + n;

		while (e > c && (e[-1] == '\r' || e[-1] == '\n'))
			e--;
		memset(&ev, 0, sizeof(ev));
		taken += (unsigned long)sp_trace_prefix_masked(c, e, &ev, &nm, &ne);
		memset(&ev, 0, sizeof(ev));
		taken_kernel += (unsigned long)sp_trace_prefix_kernel(c, e, &ev, &nm, &ne);
	}
#endif
	compared++;
	free(c);
}

static void mutations(const char *l, size_t n)
{
	static const char bytes[] = "0123456789:. -[]()\t#xCcv_=>/";
	char buf[4096];

	if (n + 1 > sizeof(buf))
		return;
	same_both_ways(l, n);
	for (size_t i = 0; i < n && i < 72; i++) {
		for (size_t k = 0; k < sizeof(bytes) - 1; k++) {
			memcpy(buf, l, n);
			buf[i] = bytes[k];
			same_both_ways(buf, n);
			/* inserted before byte i */
			memcpy(buf, l, i);
			buf[i] = bytes[k];
			memcpy(buf + i + 1, l + i, n - i);
			same_both_ways(buf, n + 1);
		}
		memcpy(buf, l, i); /* byte i deleted */
		memcpy(buf + i, l + i + 1, n - i - 1);
		same_both_ways(buf, n - 1);
		same_both_ways(l, i); /* cut before byte i */
	}
}

static void test_edges(void **state)
{
	static const char *const lines[] = {
		"       superpass-3769    [000] d..2. 43666.743305: sched_switch: prev_comm=superpass "
		"prev_pid=3769 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
		"          <idle>-0       [000] d.s3. 43666.744057: sched_waking: comm=rcu_preempt pid=15 "
		"prio=120 target_cpu=001",
		"           sp-ui-3777    [000] ..... 43668.928742: sys_futex -> 0x0",
		"           sp-ui-3777    [000] ..... 43668.928855: sys_futex(uaddr: 0x55d21b802f58, op: "
		"0x81, val: 1, utime: 0, uaddr2: 0, val3: 0)",
		"       superpass-3769    [000] 43666.743247: sched_wakeup_new: comm=superpass pid=3770 "
		"prio=120 target_cpu=001",
		/* a comm with dashes, spaces, a colon and digits */
		"  a-b: 1.5: c-d-12      [001] d..2. 43666.743305: sched_waking: comm=x pid=1 prio=1 "
		"target_cpu=0",
		"\t\tmemfd:sealed-91-31840   [001] dNh2. 43668.950284: sched_switch: prev_comm=a "
		"prev_pid=1 prev_prio=120 prev_state=R+ ==> next_comm=b next_pid=2 next_prio=120",
		/* the timestamp at the window's end, and past it */
		"                                 x-1 [000] d..2. 43666.74: sched_waking: comm=a pid=1",
		"                                     x-1 [000] d..2. 43666.743: sched_waking: comm=a pid=1",
		"                                       x-1 [000] d..2. 43666.743: sched_waking: comm=a pid=1",
		/* long numbers: secs of 18, 19 and 20 digits, fractions of 9 and 12 */
		"  x-1 [000] d..2. 123456789012345678.123456789: sched_waking: comm=a pid=1 prio=1",
		"  x-1 [000] d..2. 1234567890123456789.1: sched_waking: comm=a pid=1 prio=1 target_cpu=1",
		"  x-1 [000] d..2. 18446744073.709551615999: sched_waking: comm=a pid=1 prio=1 target_c",
		"  x-1 [000] d..2. 18446744074.709551615: sched_waking: comm=a pid=1 prio=1 target_cpu=1",
		"  x-1 [000] d..2. 98765432109876543210: sched_waking: comm=a pid=1 prio=1 target_cpu=1",
		"  x-1 [000] d..2. 12345: sched_waking: comm=a pid=1 prio=1 target_cpu=1 and more text",
		/* digits from the line's first byte: a pid with no room for its
		 * dash, seconds whose loads would start before the line */
		"12345678 [000] d..2. 43666.743305: sched_waking: comm=a pid=1 prio=1 target_cpu=1 pad",
		"1 123456789012.5: sched_waking: comm=a pid=1 prio=1 target_cpu=1 padding padding pad",
		"x-1 [000] 1234567890123.5: sched_waking: comm=a pid=1 prio=1 target_cpu=1 padding p",
		/* pid and CPU at their limits */
		"  x-2147483647 [1048576] d..2. 1.000001: sched_waking: comm=a pid=1 prio=1 target_cpu=1",
		"  x-2147483648 [1048577] d..2. 1.000001: sched_waking: comm=a pid=1 prio=1 target_cpu=1",
		"  x-+5 [-0] d..2. 1.000001: sched_waking: comm=a pid=1 prio=1 target_cpu=1 padding pad",
		/* no flags, no CPU, a tgid column, an instance name, fused CPU digits */
		"  x-1 d..2. 1.000001: sched_waking: comm=a pid=1 prio=1 target_cpu=1 padding padding",
		"  x-1 (    1) [000] d..2. 1.000001: sched_waking: comm=a pid=1 prio=1 target_cpu=1 pa",
		"inst:   x-1 [000] d..2. 1.000001: sched_waking: comm=a pid=1 prio=1 target_cpu=1 padd",
		"  x-1   0d..2. 1.000001: sched_waking: comm=a pid=1 prio=1 target_cpu=1 padding paddi",
		"  x-1 [000] d..2.   1.000001:   sched_waking:   comm=a pid=1 prio=1 target_cpu=1 padd",
		"  x-1 [000] d..2. 1.000001: a_very_long_event_name_of_more_than_sixteen: x=1 padding",
		"CPU:1 [LOST 1234 EVENTS] and then some more text to pass sixty-four bytes of line..",
		"CPU 1 is empty and then some more text to pass sixty-four bytes of this line......",
		"cpus=2 and then some more text to pass sixty-four bytes of this line..............",
		"version = 6 and then some more text to pass sixty-four bytes of this line.........",
		"# tracer: nop and then some more text to pass sixty-four bytes of this line.......",
		"                                                                                  ",
		"  x-1 [000] d..2. 1.000001: sched_waking: comm=a pid=1 prio=1 target_cpu=1 padding\r\n",
		/* prefix_kernel's layout and its edges: a comm of 15 and 16
		 * bytes, pids of 7 and 8 digits, seconds of 1, 10 and 11
		 * digits and unpadded, fractions of 5 and 7 digits, tabs, a
		 * space in the comm, a comm that starts like a header, a
		 * 4-digit CPU, fused CPU digits, 4 flags */
		" abcdefghijklmno-16375   [001] d..2.   250.701977: sched_switch: prev_comm=a "
		"prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=b next_pid=2 next_prio=120",
		"abcdefghijklmnop-16375   [001] d..2.   250.701977: sched_switch: prev_comm=a "
		"prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=b next_pid=2 next_prio=120",
		"       superpass-1234567 [000] dNh2.     1.000001: sched_waking: comm=a pid=1 prio=1",
		"       superpass-12345678 [000] d..2.   250.701977: sched_waking: comm=a pid=1 prio=1",
		"       superpass-5       [000] d..2. 1234567890.701977: sched_waking: comm=a pid=1 p",
		"       superpass-5       [000] d..2. 12345678901.701977: sched_waking: comm=a pid=1 ",
		"       superpass-5       [000] d..2. 123456.701977: sched_waking: comm=a pid=1 prio=",
		"       superpass-5       [000] d..2.   250.70197: sched_waking: comm=a pid=1 prio=1 ",
		"       superpass-5       [000] d..2.   250.7019771: sched_waking: comm=a pid=1 prio=1",
		"\t      superpass-5     \t [000] d..2.   250.701977: sched_waking: comm=a pid=1 prio=",
		"       super pass-5      [000] d..2.   250.701977: sched_waking: comm=a pid=1 prio=1",
		"        #uperpass-5      [000] d..2.   250.701977: sched_waking: comm=a pid=1 prio=1",
		"        CPU:pass-5       [000] d..2.   250.701977: sched_waking: comm=a pid=1 prio=1",
		"       superpass-5       [1000] d..2.   250.701977: sched_waking: comm=a pid=1 prio=",
		"       superpass-5       [000] 0d..2   250.701977: sched_waking: comm=a pid=1 prio=1",
		"       superpass-5       [000] d..2    250.701977: sched_waking: comm=a pid=1 prio=1",
		" memfd:sealed-91-1231    [000] .....   250.702044: sys_futex -> 0xffffffffffffff92",
	};

	(void)state;
	taken = 0;
	taken_kernel = 0;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		mutations(lines[i], strlen(lines[i]));
#if defined(__SSE2__)
	assert_true(taken > compared / 5);
	assert_true(taken_kernel > compared / 20);
#endif
}

/* Every line of a gzip'd fixture, and the mutations of its first @mutate. */
static void fixture_lines(const char *name, unsigned mutate, bool kernel_form)
{
	char *path = fixture(name), line[8192];
	gzFile gz = gzopen(path, "rb");
	unsigned n = 0;
	unsigned long taken0 = taken, compared0 = compared, kernel_lines = 0;

	assert_non_null(gz);
	while (gzgets(gz, line, sizeof(line))) {
		size_t len = strlen(line);
		unsigned long k0 = taken_kernel;

		if (len && line[len - 1] == '\n')
			len--;
		same_both_ways(line, len);
		kernel_lines += taken_kernel - k0;
		if (n++ < mutate)
			mutations(line, len);
	}
	gzclose(gz);
	free(path);
	assert_true(n > 100);
#if defined(__SSE2__)
	/* the kernel's own lines go the fast ways, trace-cmd's not */
	if (kernel_form) {
		assert_true(taken - taken0 > (compared - compared0) / 2);
		/* of the lines as recorded (their mutations are mostly not
		 * in the layout) */
		assert_true(kernel_lines > n / 2);
	}
#else
	(void)kernel_form;
	(void)taken0;
	(void)kernel_lines;
	(void)compared0;
#endif
}

static void test_fixtures(void **state)
{
	(void)state;
	fixture_lines("lockpair-record.trace.gz", 60, true);
	fixture_lines("lockpair-report.txt.gz", 20, false);
	fixture_lines("lockpair-report-l.txt.gz", 20, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_fixtures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
