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

#include "sp_trace_parse.h"
#include "sp_trace_scan.h"

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

/* Control bytes other than tab: a binary file, not text. */
static bool has_control(const char *p, const char *e)
{
	for (; p < e; p++)
		if ((unsigned char)*p < 0x20 && *p != '\t')
			return true;
	return false;
}

static int parse_line(const char *line, size_t len, struct sp_trace_event *ev, const char **why,
		      int nul, bool masked);

int sp_trace_parse_line(const char *line, size_t len, struct sp_trace_event *ev,
			const char **why)
{
	return sp_trace_parse_line_nul(line, len, ev, why, -1);
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

int sp_trace_parse_line_nul(const char *line, size_t len, struct sp_trace_event *ev,
			    const char **why, int nul)
{
	return parse_line_checked(line, len, ev, why, nul, true);
}

int sp_trace_parse_line_scalar(const char *line, size_t len, struct sp_trace_event *ev,
			   const char **why, int nul)
{
	return parse_line_checked(line, len, ev, why, nul, false);
}


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
	    !(sp_trace_prefix_kernel(p, e, ev, &name, &ne) ||
	      sp_trace_prefix_masked(p, e, ev, &name, &ne)))
#else
	(void)masked;
#endif
	{
		p = find_space(p, e, false);
		if (p == e || *p == '#')
			return 0;
		if (e - p >= 4 && !memcmp(p, "CPU:", 4) && find(p, e, "EVENTS"))
			return sp_trace_parse_lost(p, e, ev) ? 1 : 0;
		if ((e - p >= 5 && !memcmp(p, "cpus=", 5)) || (e - p >= 4 && !memcmp(p, "CPU ", 4)) ||
		    (e - p >= 8 && !memcmp(p, "version ", 8)))
			return 0;
		rc = sp_trace_prefix_general(p, e, ev, why, &name, &ne);
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
			rc = sp_trace_parse_futex_enter(ne, e, ev);
		} else if (e - ne >= 4 && !memcmp(ne, " -> ", 4)) {
			ev->type = SP_TR_FUTEX_EXIT;
			rc = sp_trace_parse_futex_exit(ne + 4, e, ev);
		} else {
			rc = -SP_TRSK_UNKNOWN_EVENT;
		}
	} else if (ne < e && *ne == ':') {
		args = ne + 1;
		while (args < e && is_space(*args))
			args++;
		rc = sp_trace_parse_event(name, ne, args, e, ev);
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
