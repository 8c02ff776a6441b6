// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* sp_trace_parse_line: every text form the reader takes, and bad lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <superpass/trace.h>

static int parse(const char *line, struct sp_trace_event *ev)
{
	return sp_trace_parse_line(line, strlen(line), ev, NULL);
}

static void test_kernel_switch(void **state)
{
	struct sp_trace_event ev;

	(void)state;
	assert_int_equal(parse(" qemu-system-x86-19537   [001] d..2.   859.350983: sched_switch: "
			       "prev_comm=qemu-system-x86 prev_pid=19537 prev_prio=120 prev_state=R+ ==> "
			       "next_comm=test stress next_pid=22012 next_prio=100", &ev), 1);
	assert_int_equal(ev.type, SP_TR_SWITCH);
	assert_int_equal(ev.cpu, 1);
	assert_int_equal(ev.pid, 19537);
	assert_string_equal(ev.comm, "qemu-system-x86");
	assert_true(ev.ts_ns == 859350983000ull);
	assert_true(ev.flags & SP_TRACE_EVF_CTX_KNOWN);
	assert_false(ev.flags & SP_TRACE_EVF_IRQ);
	assert_int_equal(ev.u.sw.prev_pid, 19537);
	assert_int_equal(ev.u.sw.prev_state, SP_TRS_RUNNABLE);
	assert_string_equal(ev.u.sw.next_comm, "test stress"); /* a comm with a space */
	assert_int_equal(ev.u.sw.next_pid, 22012);
	assert_int_equal(ev.u.sw.next_prio, 100);
}

static void test_columns(void **state)
{
	struct sp_trace_event ev;

	(void)state;
	/* irq-info off */
	assert_int_equal(parse("  a-b-c-42     [003]    1.000001: sched_waking: comm=x pid=7 prio=120 "
			       "target_cpu=000", &ev), 1);
	assert_string_equal(ev.comm, "a-b-c");
	assert_int_equal(ev.pid, 42);
	assert_int_equal(ev.cpu, 3);
	assert_false(ev.flags & SP_TRACE_EVF_CTX_KNOWN);
	assert_int_equal(ev.u.wake.pid, 7);
	/* record-tgid, both forms */
	assert_int_equal(parse("  t-5 (    120) [000] d.h2.  2.5: sched_waking: comm=x pid=7 prio=1 "
			       "target_cpu=001", &ev), 1);
	assert_int_equal(ev.pid, 5);
	assert_true(ev.flags & SP_TRACE_EVF_IRQ);
	assert_true(ev.ts_ns == 2500000000ull);
	assert_int_equal(parse("  <...>-5 (-------) [000] ....  2.5: sched_process_exit: comm=x pid=5 "
			       "prio=120", &ev), 1);
	assert_int_equal(ev.type, SP_TR_EXIT);
	assert_int_equal(ev.u.exit.pid, 5);
	/* trace-cmd report with an instance name, and -l with the CPU fused */
	assert_int_equal(parse("sptest:         holder-a-27460 [001]   978.131085: contention_begin:"
			       "     0xffff888104f5b2b8 (flags=READ)", &ev), 1);
	assert_string_equal(ev.comm, "holder-a");
	assert_int_equal(ev.type, SP_TR_LOCK_BEGIN);
	assert_true(ev.u.lock.addr == 0xffff888104f5b2b8ull);
	assert_int_equal(ev.u.lock.flags, SP_TRACE_LCB_READ);
	assert_int_equal(parse("    bash-27455   1d.h2.   978.128658: sched_wakeup_new:     "
			       "bash:27458 [120] CPU:001", &ev), 1);
	assert_int_equal(ev.cpu, 1);
	assert_true(ev.flags & SP_TRACE_EVF_IRQ);
	assert_int_equal(ev.type, SP_TR_WAKEUP_NEW);
	assert_int_equal(ev.u.wake.pid, 27458);
	assert_int_equal(ev.u.wake.target_cpu, 1);
	/* nanosecond timestamps (trace-cmd report -t) */
	assert_int_equal(parse("  x-1 [000] 12.123456789: task_rename: pid=1 oldcomm=a newcomm=b c "
			       "oom_score_adj=0", &ev), 1);
	assert_true(ev.ts_ns == 12123456789ull);
	assert_string_equal(ev.u.rename.newcomm, "b c");
}

static void test_plugin_forms(void **state)
{
	struct sp_trace_event ev;

	(void)state;
	assert_int_equal(parse("   holder-a-27460 [001]   978.131090: sched_switch:         "
			       "holder-a:27460 [120] D ==> cont:27461 [139]", &ev), 1);
	assert_int_equal(ev.u.sw.prev_pid, 27460);
	assert_int_equal(ev.u.sw.prev_state, SP_TRS_UNINTERRUPTIBLE);
	assert_string_equal(ev.u.sw.next_comm, "cont");
	assert_int_equal(ev.u.sw.next_prio, 139);
	assert_int_equal(parse("   kworker/u4:1-27 [000]  1.0: sched_switch: kworker/u4:1:27 [120] S ==> "
			       "swapper/0:0 [120]", &ev), 1);
	assert_string_equal(ev.u.sw.prev_comm, "kworker/u4:1");
	assert_int_equal(ev.u.sw.prev_state, SP_TRS_SLEEPING);
	assert_int_equal(ev.u.sw.next_pid, 0);
	assert_int_equal(parse("   w-9 [001]   978.1: sys_enter_futex:      op=FUTEX_WAIT|"
			       "FUTEX_PRIVATE_FLAG uaddr=0x560c3b029080 val=0x00000002 utime=0x0", &ev), 1);
	assert_int_equal(ev.type, SP_TR_FUTEX_ENTER);
	assert_int_equal(ev.u.futex.op, 128);
	assert_true(ev.u.futex.uaddr == 0x560c3b029080ull);
	assert_int_equal(ev.u.futex.val, 2);
	assert_int_equal(parse("   w-9 [001]   978.1: sys_enter_futex: op=FUTEX_WAIT_BITSET|"
			       "FUTEX_CLOCK_REALTIME uaddr=0x10 val=0x1", &ev), 1);
	assert_int_equal(ev.u.futex.op, 9 | 256);
	assert_int_equal(parse("   w-9 [001]   978.1: sys_exit_futex:       0xfffffffffffffff5", &ev), 1);
	assert_int_equal(ev.type, SP_TR_FUTEX_EXIT);
	assert_true(ev.u.futex.ret == -11);
}

static void test_syscalls(void **state)
{
	struct sp_trace_event ev;

	(void)state;
	/* 6.18's own printer, and the older print fmt */
	assert_int_equal(parse("  t-22012 [001] .....  859.350987: sys_futex(uaddr: 0x5631f14490b0, op: "
			       "0x189, val: 2, utime: 0x7f8549327a50, uaddr2: 0, val3: 0xffffffff)", &ev), 1);
	assert_true(ev.u.futex.uaddr == 0x5631f14490b0ull);
	assert_int_equal(ev.u.futex.op, 0x189);
	assert_int_equal(ev.u.futex.val, 2);
	assert_int_equal(parse("  t-1 [000] ....  1.0: sys_futex(uaddr: 0x00007f00, op: 0x00000080, "
			       "val: 0x00000002, utime: 0x00000000, uaddr2: 0x0, val3: 0x0)", &ev), 1);
	assert_int_equal(ev.u.futex.op, 128);
	assert_int_equal(parse("  t-22012 [001] .....  859.350985: sys_futex -> 0xffffffffffffff92", &ev), 1);
	assert_true(ev.u.futex.ret == -110);
	/* raw_syscalls: futex only */
	assert_int_equal(parse("  t-1 [000] ....  1.0: sys_enter: NR 202 (55d5c5d8a0a8, 80, 2, 0, 0, 0)",
			       &ev), 1);
	assert_int_equal(ev.type, SP_TR_FUTEX_ENTER);
	assert_true(ev.u.futex.uaddr == 0x55d5c5d8a0a8ull);
	assert_int_equal(ev.u.futex.op, 0x80);
	assert_int_equal(parse("  t-1 [000] ....  1.0: sys_exit: NR 202 = -11", &ev), 1);
	assert_true(ev.u.futex.ret == -11);
	assert_int_equal(parse("  t-1 [000] ....  1.0: sys_enter: NR 0 (3, 4, 5, 0, 0, 0)", &ev),
			 -(1 + SP_TRSK_UNKNOWN_EVENT));
	/* contention flags */
	assert_int_equal(parse("  t-1 [000] d..4.  1.0: contention_begin: 00000000a7109aaf (flags=SPIN)",
			       &ev), 1);
	assert_int_equal(ev.u.lock.flags, SP_TRACE_LCB_SPIN);
	assert_true(ev.u.lock.addr == 0xa7109aafull);
	assert_int_equal(parse("  t-1 [000] ....  1.0: contention_begin: 0xff (flags=MUTEX|SPIN)", &ev), 1);
	assert_int_equal(ev.u.lock.flags, SP_TRACE_LCB_MUTEX | SP_TRACE_LCB_SPIN);
	assert_int_equal(parse("  t-1 [000] ....  1.0: contention_end: 0xff (ret=-4)", &ev), 1);
	assert_int_equal(ev.u.lock.ret, -4);
}

static void test_headers_and_lost(void **state)
{
	struct sp_trace_event ev;

	(void)state;
	assert_int_equal(parse("# tracer: nop", &ev), 0);
	assert_int_equal(parse("#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION", &ev), 0);
	assert_int_equal(parse("", &ev), 0);
	assert_int_equal(parse("cpus=2", &ev), 0);
	assert_int_equal(parse("CPU 1 is empty", &ev), 0);
	assert_int_equal(parse("CPU:1 [LOST 1234 EVENTS]", &ev), 1);
	assert_int_equal(ev.type, SP_TR_LOST);
	assert_int_equal(ev.cpu, 1);
	assert_true(ev.u.lost.count == 1234);
	assert_int_equal(parse("CPU:0 [55 EVENTS DROPPED]", &ev), 1);
	assert_int_equal(ev.type, SP_TR_LOST);
	assert_true(ev.u.lost.count == 55);
}

static void test_bad_lines(void **state)
{
	static const struct {
		const char *line;
		int rc;
	} bad[] = {
		{ "hello world", -(1 + SP_TRSK_UNPARSABLE) },
		{ "  x-1 [000] ....  1.0", -(1 + SP_TRSK_UNPARSABLE) },
		{ "  x [000] ....  1.0: sched_waking: comm=a pid=1", -(1 + SP_TRSK_UNPARSABLE) },
		{ "  x-zz [000] ....  1.0: sched_waking: comm=a pid=1", -(1 + SP_TRSK_BAD_VALUE) },
		{ "  x-1 [0a0] ....  1.0: sched_waking: comm=a pid=1", -(1 + SP_TRSK_BAD_VALUE) },
		{ "  x-1 [000] ....  1.0: sched_waking: comm=a prio=3", -(1 + SP_TRSK_MISSING_FIELD) },
		{ "  x-1 [000] ....  1.0: sched_waking: comm=a pid=b", -(1 + SP_TRSK_BAD_VALUE) },
		{ "  x-1 [000] ....  1.0: sched_switch: prev_comm=a prev_pid=1", -(1 + SP_TRSK_MISSING_FIELD) },
		{ "  x-1 [000] ....  1.0: sched_waking: comm=a pid=99999999999", -(1 + SP_TRSK_BAD_VALUE) },
		{ "  x-1 [000] ....  1.0: irq_handler_entry: irq=1 name=x", -(1 + SP_TRSK_UNKNOWN_EVENT) },
		{ "  x-1 [000] ....  99999999999999999999.0: sched_waking: comm=a pid=1",
		  -(1 + SP_TRSK_BAD_VALUE) },
		{ "  x-1 [000] ....  1.0: contention_begin: zz (flags=SPIN)", -(1 + SP_TRSK_BAD_VALUE) },
		{ "  x-1 [000] ....  1.0: sys_futex(uaddr: 0x10)", -(1 + SP_TRSK_MISSING_FIELD) },
		{ "  x-1 [000] ....  1.0: sys_exit: NR 202 =", -(1 + SP_TRSK_MISSING_FIELD) },
	};
	struct sp_trace_event ev;
	const char *why;
	char bin[] = "\177ELF\002\001\001 garbage";
	char odd[] = "  x-1 [000] ....  1.0: sched_waking: comm=\001 pid=1";

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = sp_trace_parse_line(bad[i].line, strlen(bad[i].line), &ev, &why);

		if (rc != bad[i].rc)
			fail_msg("line %zu '%s': %d, want %d", i, bad[i].line, rc, bad[i].rc);
		assert_non_null(why);
	}
	assert_int_equal(sp_trace_parse_line(bin, sizeof(bin) - 1, &ev, &why), -(1 + SP_TRSK_BINARY));
	/* an event line with an odd byte in a comm is still an event */
	assert_int_equal(sp_trace_parse_line(odd, sizeof(odd) - 1, &ev, &why), 1);
	/* a length that cuts the line: nothing past it is read */
	assert_int_equal(sp_trace_parse_line("  x-1 [000] ....  1.0: sched_waking: comm=a pid=1", 20,
					     &ev, &why), -(1 + SP_TRSK_UNPARSABLE));
	/* NUL inside the given length */
	assert_int_equal(sp_trace_parse_line("  x-1\0[000]", 11, &ev, &why), -(1 + SP_TRSK_BINARY));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_switch),  cmocka_unit_test(test_columns),
		cmocka_unit_test(test_plugin_forms),   cmocka_unit_test(test_syscalls),
		cmocka_unit_test(test_headers_and_lost), cmocka_unit_test(test_bad_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
