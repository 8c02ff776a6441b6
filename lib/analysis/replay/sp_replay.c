// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A trace turned into a simulator workload (include/superpass/replay.h has
 * the model and its assumptions). One pass over the events collects, per
 * thread, a list of items (CPU, lock wait, wake of a waiter, sleep:
 * sp_replay_feed.c); the finish here turns them into an rt-app program per
 * thread (sp_replay_prog.c, with sp_replay_waits.c, sp_replay_holds.c and
 * sp_replay_frames.c), writes it as JSON (sp_replay_workload.c) and parses
 * that text back with the simulator's own reader, so the file --workload
 * writes is exactly what the replay ran.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_replay_internal.h"

void sp_replay_opts_default(struct sp_replay_opts *o)
{
	memset(o, 0, sizeof(*o));
}

int sp_replay_create(const struct sp_replay_opts *o, struct sp_replay **out)
{
	struct sp_replay *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	if (o)
		r->o = *o;
	sp_hist_init(&r->hist);
	r->merge_ns = 50000;
	*out = r;
	return 0;
}

void sp_replay_destroy(struct sp_replay *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nth; i++) {
		free(r->th[i]->it);
		free(r->th[i]);
	}
	free(r->th);
	free(r->lk);
	free(r->tk);
	free(r->json);
	json_object_put(r->tasks);
	sp_sim_workload_destroy(r->w);
	free(r);
}

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;

	if (err && cap) {
		va_start(ap, fmt);
		vsnprintf(err, cap, fmt, ap);
		va_end(ap);
	}
	return -ENODATA;
}

/* Trace time @ns as seconds with microseconds, as ftrace prints it. */
static const char *secs(char *buf, size_t cap, uint64_t ns)
{
	snprintf(buf, cap, "%llu.%06llu", (unsigned long long)(ns / 1000000000ull),
		 (unsigned long long)(ns % 1000000000ull / 1000));
	return buf;
}

/* The trace's length against what the simulator runs (the workload's
 * global.duration), before the programs are built (their critical
 * sections are cut by time): a trace that long has a timestamp jump more
 * often than hours of recording, so the message says where its largest
 * is. */
static int span_check(const struct sp_replay *r, char *err, size_t errcap)
{
	char a[32], b[32], g[32], at[32];
	uint64_t len;

	if (r->last < r->first)
		return fail(err, errcap, "its timestamps go backwards: it ends at %s s, before its "
			    "first event at %s s", secs(a, sizeof(a), r->last),
			    secs(b, sizeof(b), r->first));
	len = r->last - r->first;
	if (len <= SP_SIM_MAX_DURATION_S * 1000000000ull)
		return 0;
	return fail(err, errcap, "the trace spans %llu s (%s to %s s; a timestamp jump of %s s "
		    "before event %llu, at %s s?): longer than the simulator's limit of %u s",
		    (unsigned long long)(len / 1000000000ull), secs(a, sizeof(a), r->first),
		    secs(b, sizeof(b), r->last), secs(g, sizeof(g), r->gap_ns),
		    (unsigned long long)r->gap_event, secs(at, sizeof(at), r->gap_from + r->gap_ns),
		    SP_SIM_MAX_DURATION_S);
}

int sp_replay_finish(struct sp_replay *r, const char *name, char *err, size_t errcap)
{
	const struct sp_rp_th *late = NULL; /* starts past what a task's delay can say */
	uint64_t late_delay = 0;
	size_t ncrit = 0;
	uint64_t crit_end;
	bool crit_loops = true;
	char perr[512];
	int rc;

	if (r->nomem)
		return -ENOMEM;
	for (size_t i = 0; i < r->nth; i++) {
		struct sp_rp_th *t = r->th[i];

		sp_rp_close_thread(r, t);
		if (!t->in_set || !t->cpu_total) {
			if (t->cpu_total) {
				r->c.outside_threads++;
				r->c.outside_cpu_ns += t->cpu_total;
			}
			continue;
		}
		r->c.replayed_cpu_ns += t->cpu_total;
		t->critical = sp_rp_is_critical(r, t);
		ncrit += t->critical;
	}
	for (size_t i = 0; i < r->nth; i++) {
		if (!r->th[i]->in_set || !r->th[i]->cpu_total)
			continue;
		if (sp_rp_phase_wakes(r, r->th[i]) < 0)
			return -ENOMEM;
		sp_rp_rwsem_wakes(r, r->th[i]);
		sp_rp_mark_tokens(r, r->th[i]);
	}
	if (!r->c.events)
		return fail(err, errcap, "no event to replay");
	if (!ncrit)
		return fail(err, errcap, (r->o.critical_comms || r->o.nr_critical_tids)
					 ? "no replayed thread matches --critical/--tid"
					 : "no replayed thread waited for a lock (nothing to compare)");
	if ((rc = span_check(r, err, errcap)))
		return rc;
	r->c.cpus = r->o.cpus ? r->o.cpus : 2;
	r->c.slice_ns = r->o.slice_ns;
	if (!r->c.slice_ns) { /* sched_update_scaling(): SCHED_TUNABLESCALING_LOG */
		uint32_t f = 1, n = r->c.cpus < 8 ? r->c.cpus : 8;

		while (n >>= 1)
			f++;
		r->c.slice_ns = 750000ull * f;
	}
	/* The tasks first (they tell which locks are taken), then the global
	 * settings around them. */
	crit_end = r->first;
	for (size_t i = 0; i < r->nth; i++) {
		struct sp_rp_th *t = r->th[i];
		struct sp_rp_prog p = { 0 };
		uint64_t delay = 0, period;
		size_t grid = 0;
		bool keep = false;

		if (!t->in_set || !t->cpu_total)
			continue;
		r->c.threads++;
		period = t->critical ? sp_rp_period_of(t, &grid, &keep) : 0;
		sp_rp_build_prog(r, t, &p, &delay, period, grid, keep);
		if (delay / 1000 > SP_RP_US_MAX && !late) {
			late = t;
			late_delay = delay;
		}
		if (t->critical) {
			uint64_t end = t->exited ? t->last_ts : r->last;

			crit_loops &= period != 0 || sp_rp_sleep_loop(t);
			crit_end = end > crit_end ? end : crit_end;
		}
		{
			bool loop = (t->critical && (period || sp_rp_sleep_loop(t))) ||
				    sp_rp_starved(r, t);

			r->c.looped += loop && !t->critical;
			if (!p.nomem)
				sp_rp_workload_task(r, t, &p, delay, loop);
		}
		free(p.op);
		if (p.nomem)
			r->nomem = 1;
	}
	/* A frame loop loops on to the end of the replay; when every critical
	 * thread is one, the replay ends where the last of them ended in the
	 * trace (a program may stop its threads together and go on tracing its
	 * joins and report: looped past that, without the hogs, frame loops
	 * and starved holders would make blockings the trace does not have). */
	r->c.end_ns = crit_loops && crit_end > r->first ? crit_end : r->last;
	if (late) {
		char g[32];

		return fail(err, errcap, "thread %.16s-%d first runs %llu s into the trace (a "
			    "timestamp jump of %s s before event %llu?): later than a task of the "
			    "simulator can start (%llu s)", late->comm, late->tid,
			    (unsigned long long)(late_delay / 1000000000ull),
			    secs(g, sizeof(g), r->gap_ns), (unsigned long long)r->gap_event,
			    (unsigned long long)(SP_RP_US_MAX / 1000000));
	}
	sp_rp_workload_text(r);
	if (r->nomem)
		return -ENOMEM;
	r->c.first_ns = r->first;
	r->c.last_ns = r->last;
	name = name ? name : "replay";
	rc = sp_sim_workload_parse(r->json, name, &r->w, perr, sizeof(perr));
	if (rc && rc != -ENOMEM) {
		/* the reader's "NAME: KEY: ..." is about a file the user did
		 * not write: said as what it is, without the name again */
		const char *m = perr;
		size_t n = strlen(name);

		if (!strncmp(m, name, n) && m[n] == ':' && m[n + 1] == ' ')
			m += n + 2;
		fail(err, errcap, "the simulator refused the workload made of the trace: %s", m);
	}
	return rc;
}

int sp_replay_build(const char *path, const struct sp_replay_opts *o, struct sp_replay **out,
		    struct sp_trace_diag *d, char *err, size_t errcap)
{
	struct sp_trace_diag dd;
	struct sp_replay *r;
	struct sp_replay_opts oo = *o;
	const char *base = strrchr(path, '/');
	int64_t n;
	int rc;

	if (!d)
		d = &dd;
	sp_trace_diag_init(d);
	if ((rc = sp_replay_create(o, &r)))
		return rc;
	n = sp_trace_read_file(path, sp_replay_feed, r, d);
	if (n < 0) {
		sp_trace_read_strerror(n, path, err, errcap);
		sp_replay_destroy(r);
		return (int)n;
	}
	if (!oo.cpus && d->ncpus > 0)
		r->o.cpus = (uint32_t)d->ncpus;
	rc = sp_replay_finish(r, base ? base + 1 : path, err, errcap);
	if (rc) {
		char tmp[512];

		snprintf(tmp, sizeof(tmp), "%s", err);
		snprintf(err, errcap, "%s: %s", path, tmp);
		sp_replay_destroy(r);
		return rc;
	}
	*out = r;
	return 0;
}

const char *sp_replay_json(const struct sp_replay *r)
{
	return r->json;
}

const struct sp_sim_workload *sp_replay_workload(const struct sp_replay *r)
{
	return r->w;
}

void sp_replay_trace_figures(const struct sp_replay *r, struct sp_replay_figures *f)
{
	memset(f, 0, sizeof(*f));
	f->blockings = r->hist.count;
	if (f->blockings) {
		f->p50 = sp_hist_quantile(&r->hist, 50, 100);
		f->p99 = sp_hist_quantile(&r->hist, 99, 100);
		f->p999 = sp_hist_quantile(&r->hist, 999, 1000);
		f->max = r->hist.max;
	}
	f->frames = r->frames;
	f->janky = r->janky;
}

void sp_replay_get_counts(const struct sp_replay *r, struct sp_replay_counts *c)
{
	*c = r->c;
}

void sp_replay_run_figures(const struct sp_sim_result *res, struct sp_replay_figures *f)
{
	memset(f, 0, sizeof(*f));
	f->blockings = res->blockings;
	f->p50 = res->p50;
	f->p99 = res->p99;
	f->p999 = res->p999;
	f->max = res->max;
	f->frames = res->frames;
	f->janky = res->janky;
}
