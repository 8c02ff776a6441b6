// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The events' arguments, "name: args" after a line's prefix: every field
 * the analysis uses of the sched, lock, futex and raw_syscalls events, in
 * the kernel's formats and trace-cmd's plugin ones, and the lost-event
 * markers.
 */
#include <string.h>

#include <superpass/trace.h>

#include "sp_trace_parse.h"
#include "sp_trace_scan.h"

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

int sp_trace_parse_futex_enter(const char *p, const char *e, struct sp_trace_event *ev)
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

int sp_trace_parse_futex_exit(const char *p, const char *e, struct sp_trace_event *ev)
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

/* The event's name [n, ne) and its arguments [a, e): dispatch. */
int sp_trace_parse_event(const char *n, const char *ne, const char *a, const char *e,
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
	case SP_TR_FUTEX_ENTER: return sp_trace_parse_futex_enter(a, e, ev);
	case SP_TR_FUTEX_EXIT: return sp_trace_parse_futex_exit(a, e, ev);
	default: /* raw_syscalls */
		return parse_raw_syscall(a, e, ev, len == 9);
	}
}

/* "CPU:1 [LOST 1234 EVENTS]" or trace-cmd's "CPU:1 [1234 EVENTS DROPPED]". */
int sp_trace_parse_lost(const char *p, const char *e, struct sp_trace_event *ev)
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

