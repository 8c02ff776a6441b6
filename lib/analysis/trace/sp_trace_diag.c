// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * What every reader hands on: the diagnostics of what it skipped, and the
 * sink that puts events in time order before the caller's callback.
 */
#include <stdio.h>
#include <string.h>

#include <superpass/trace.h>

#include "sp_trace_internal.h"

const char *sp_trace_type_name(unsigned int type)
{
	static const char *const names[SP_TR_NR] = {
		[SP_TR_NONE] = "none",
		[SP_TR_SWITCH] = "sched_switch",
		[SP_TR_WAKING] = "sched_waking",
		[SP_TR_WAKEUP] = "sched_wakeup",
		[SP_TR_WAKEUP_NEW] = "sched_wakeup_new",
		[SP_TR_FORK] = "sched_process_fork",
		[SP_TR_EXIT] = "sched_process_exit",
		[SP_TR_RENAME] = "task_rename",
		[SP_TR_LOCK_BEGIN] = "contention_begin",
		[SP_TR_LOCK_END] = "contention_end",
		[SP_TR_FUTEX_ENTER] = "sys_enter_futex",
		[SP_TR_FUTEX_EXIT] = "sys_exit_futex",
		[SP_TR_LOST] = "lost events",
	};

	return type < SP_TR_NR ? names[type] : NULL;
}

void sp_trace_diag_init(struct sp_trace_diag *d)
{
	memset(d, 0, sizeof(*d));
}

void sp_trace_diag_note(struct sp_trace_diag *d, unsigned reason, uint64_t line, const char *what)
{
	uint64_t n;

	if (reason >= SP_TRSK_NR)
		return;
	n = d->skipped[reason]++;
	if (n < SP_TRACE_DIAG_LINES)
		d->first_line[reason][n] = line;
	if (n == 0 && what)
		snprintf(d->first_what[reason], sizeof(d->first_what[reason]), "%s", what);
}

void sp_trace_diag_print(FILE *f, const char *path, const struct sp_trace_diag *d)
{
	for (unsigned r = 0; r < SP_TRSK_NR; r++) {
		if (!d->skipped[r])
			continue;
		fprintf(f, "%s: %s: %llu (first at line", path, sp_trace_skip_name(r),
			(unsigned long long)d->skipped[r]);
		for (unsigned i = 0; i < SP_TRACE_DIAG_LINES && d->first_line[r][i]; i++)
			fprintf(f, "%s %llu", i ? "," : (d->skipped[r] > 1 ? "s" : ""),
				(unsigned long long)d->first_line[r][i]);
		fprintf(f, "%s%s)\n", d->first_what[r][0] ? ": " : "", d->first_what[r]);
	}
	if (d->lost_events)
		fprintf(f, "%s: the kernel lost %llu events; episodes across them are marked lost\n", path,
			(unsigned long long)d->lost_events);
	if (d->overwritten)
		fprintf(f, "%s: the ring buffer overwrote its oldest %llu events before it was read "
			   "(a larger buffer_size_kb keeps them)\n",
			path, (unsigned long long)d->overwritten);
	if (d->truncated)
		fprintf(f, "%s: the file ends inside a line or record (truncated?)\n", path);
}

int sp_trace_sink_put(struct sp_trace_sink *s, struct sp_trace_event *ev, uint64_t line)
{
	if (ev->type == SP_TR_LOST) {
		sp_trace_diag_note(s->d, SP_TRSK_LOST, line, NULL);
		s->d->lost_events += ev->u.lost.count;
		if (!ev->ts_ns) /* a text marker has no time: it is where it is */
			ev->ts_ns = s->last_ts;
	}
	if (ev->ts_ns < s->last_ts) {
		sp_trace_diag_note(s->d, SP_TRSK_OUT_OF_ORDER, line, "kept at the previous time");
		ev->ts_ns = s->last_ts;
	}
	s->last_ts = ev->ts_ns;
	s->d->events++;
	s->stop = s->fn(s->ctx, ev);
	return s->stop;
}
