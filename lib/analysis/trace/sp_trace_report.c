// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* What an analysis found: a summary for people, JSON, Chrome trace events
 * (the SVG picture: sp_trace_svg.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include <superpass/trace.h>

static const char *const state_name[SP_TST_NR] = { "unknown", "running", "runnable", "sleeping",
						   "blocked" };

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static const struct sp_trace_thread *thr(const struct sp_trace_analysis *a, uint32_t id)
{
	static const struct sp_trace_thread none = { .tid = 0, .comm = "?", .prio = -1 };
	const struct sp_trace_thread *t = sp_trace_thread_get(a, id);

	return t ? t : &none;
}

/* "fair nice 0", "rt 98", "deadline" from a kernel prio. */
static void class_of(int32_t prio, char *out, size_t n)
{
	if (prio < -1 || prio > 139)
		snprintf(out, n, "prio ?");
	else if (prio == -1)
		snprintf(out, n, "deadline");
	else if (prio < 100)
		snprintf(out, n, "rt %d", 99 - prio);
	else
		snprintf(out, n, "fair nice %d", prio - 120);
}

static const char *class_name(int32_t prio)
{
	return prio < 0 ? "deadline" : prio < 100 ? "rt" : prio <= 139 ? "fair" : "unknown";
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0.0;
}

/* The longest episodes of every result's thread, longest first, up to @n
 * each, found in one pass over the episodes (a pass per result would be
 * quadratic). Ties keep the episodes' order. */
struct worst {
	const struct sp_trace_episode **w; /* nr_results * n */
	size_t *k;                         /* how many of each */
	unsigned n;
};

static void worst_init(struct worst *ws, const struct sp_trace_analysis *a, unsigned n)
{
	size_t nr = sp_trace_nr_results(a), nt = sp_trace_nr_threads(a), ne = sp_trace_nr_episodes(a);
	size_t *slot = NULL;

	ws->n = n;
	ws->w = calloc(nr * n + 1, sizeof(*ws->w));
	ws->k = calloc(nr + 1, sizeof(*ws->k));
	if (!ws->w || !ws->k || !n)
		return;
	slot = malloc((nt + 1) * sizeof(*slot));
	if (!slot)
		return;
	for (size_t t = 0; t <= nt; t++)
		slot[t] = SIZE_MAX;
	for (size_t i = 0; i < nr; i++) {
		uint32_t id = sp_trace_result_get(a, i)->thread_id;

		if (id < nt && slot[id] == SIZE_MAX)
			slot[id] = i;
	}
	for (size_t i = 0; i < ne; i++) {
		const struct sp_trace_episode *e = sp_trace_episode_get(a, i);
		uint64_t d = e->end_ns - e->start_ns;
		const struct sp_trace_episode **w;
		size_t j, r;

		if (e->waiter_id >= nt || (r = slot[e->waiter_id]) == SIZE_MAX)
			continue;
		w = ws->w + r * n;
		if (ws->k[r] == n && d <= w[n - 1]->end_ns - w[n - 1]->start_ns)
			continue;
		j = ws->k[r] < n ? ws->k[r]++ : n - 1;
		while (j > 0 && w[j - 1]->end_ns - w[j - 1]->start_ns < d) {
			w[j] = w[j - 1];
			j--;
		}
		w[j] = e;
	}
	free(slot);
}

static size_t worst_get(const struct worst *ws, size_t i, const struct sp_trace_episode ***out)
{
	if (!ws->w || !ws->k) {
		*out = NULL;
		return 0;
	}
	*out = ws->w + i * ws->n;
	return ws->k[i];
}

static void worst_free(struct worst *ws)
{
	free(ws->w);
	free(ws->k);
}

void sp_trace_print_summary(FILE *f, const struct sp_trace_analysis *a, unsigned worst)
{
	struct sp_trace_counts c;
	size_t nr = sp_trace_nr_results(a);
	struct worst ws;

	worst_init(&ws, a, worst);
	sp_trace_analysis_counts(a, &c);
	fprintf(f, "%" PRIu64 " events over %.3f s; %" PRIu64 " lock waits, %" PRIu64
		   " timed out, %" PRIu64 " with no waker seen, %" PRIu64 " open at the end\n",
		c.events, (double)(c.last_ns - c.first_ns) / 1e9, c.waits, c.timeouts, c.no_blocker,
		c.open_at_end);
	if (!nr)
		fprintf(f, "no blocking episode of the selected threads\n");
	for (size_t i = 0; i < nr; i++) {
		const struct sp_trace_result *r = sp_trace_result_get(a, i);
		const struct sp_trace_thread *t = thr(a, r->thread_id);
		struct sp_trace_split tot = { { 0 } };
		const struct sp_trace_episode **w;
		size_t nw;

		for (uint32_t b = 0; b < r->nr_blockers; b++)
			for (int s = 0; s < SP_TST_NR; s++)
				tot.ns[s] += r->blockers[b].split.ns[s];
		fprintf(f, "\n%s (tid %d): %" PRIu64 " blockings, P50 %.3f ms, P99 %.3f ms, "
			   "P99.9 %.3f ms, max %.3f ms, total %.1f ms%s\n",
			t->comm, t->tid, r->blockings, ms(sp_hist_quantile(&r->hist, 1, 2)),
			ms(sp_hist_quantile(&r->hist, 99, 100)),
			ms(sp_hist_quantile(&r->hist, 999, 1000)), ms(r->hist.max), ms(r->blocking_ns),
			r->blockings < 1000 ? " (P99.9 of fewer than 1000 is near the max)" : "");
		fprintf(f, "  its blockers during the blocking time: runnable %.1f %%, running %.1f %%, "
			   "sleeping %.1f %%, blocked %.1f %%, unknown %.1f %%; no blocker %.1f %%\n",
			100 * share(tot.ns[SP_TST_RUNNABLE], r->blocking_ns),
			100 * share(tot.ns[SP_TST_RUNNING], r->blocking_ns),
			100 * share(tot.ns[SP_TST_SLEEPING], r->blocking_ns),
			100 * share(tot.ns[SP_TST_BLOCKED], r->blocking_ns),
			100 * share(tot.ns[SP_TST_UNKNOWN], r->blocking_ns),
			100 * share(r->blocking_ns - r->attributed_ns, r->blocking_ns));
		fprintf(f, "  locks:\n");
		for (uint32_t l = 0; l < r->nr_locks && l < 8; l++)
			fprintf(f, "    %-11s 0x%-16" PRIx64 " %7" PRIu64 " episodes  total %9.3f ms  "
				   "max %8.3f ms\n",
				sp_trace_wait_kind_name(r->locks[l].kind), r->locks[l].lock,
				r->locks[l].episodes, ms(r->locks[l].total_ns), ms(r->locks[l].max_ns));
		if (r->nr_locks > 8)
			fprintf(f, "    ... %u more\n", r->nr_locks - 8);
		fprintf(f, "  blockers (ms):       tid comm              episodes   blocking    "
			   "running   runnable   sleeping    blocked\n");
		for (uint32_t b = 0; b < r->nr_blockers && b < 10; b++) {
			const struct sp_trace_blocker *bl = &r->blockers[b];
			const struct sp_trace_thread *bt = thr(a, bl->thread_id);

			fprintf(f, "    %20d %-16s %9" PRIu64 " %10.3f %10.3f %10.3f %10.3f %10.3f\n",
				bt->tid, bt->comm, bl->episodes, ms(bl->blocking_ns),
				ms(bl->split.ns[SP_TST_RUNNING]), ms(bl->split.ns[SP_TST_RUNNABLE]),
				ms(bl->split.ns[SP_TST_SLEEPING]), ms(bl->split.ns[SP_TST_BLOCKED]));
			if (bl->nr_preemptors) {
				fprintf(f, "      ran while it was runnable:");
				for (uint32_t p = 0; p < bl->nr_preemptors && p < 4; p++) {
					const struct sp_trace_thread *pt = thr(a, bl->preemptors[p].thread_id);
					char cls[24];

					class_of(pt->prio, cls, sizeof(cls));
					fprintf(f, "%s %s (%d, %s) %.3f ms", p ? "," : "", pt->comm, pt->tid,
						cls, ms(bl->preemptors[p].ns));
				}
				fprintf(f, "\n");
			}
		}
		if (r->nr_blockers > 10)
			fprintf(f, "    ... %u more\n", r->nr_blockers - 10);
		nw = worst_get(&ws, i, &w);
		if (nw)
			fprintf(f, "  worst episodes:\n");
		for (size_t k = 0; k < nw; k++) {
			const struct sp_trace_episode *e = w[k];

			fprintf(f, "    %.3f ms at %.6f s, %s 0x%" PRIx64 "%s\n", ms(e->end_ns - e->start_ns),
				(double)e->start_ns / 1e9, sp_trace_wait_kind_name(e->kind), e->lock,
				e->lost ? " (events were lost meanwhile)" : "");
			for (uint32_t s = 0; s < e->nr_segments && s < 8; s++) {
				const struct sp_trace_segment *sg = &e->segments[s];

				fprintf(f, "      +%.3f..%.3f ms ", ms(sg->start_ns - e->start_ns),
					ms(sg->end_ns - e->start_ns));
				if (!sg->blocker_tid) {
					fprintf(f, "no waker seen\n");
					continue;
				}
				fprintf(f, "%s (%d): runnable %.3f, running %.3f, sleeping %.3f, blocked %.3f",
					thr(a, sg->blocker_id)->comm, sg->blocker_tid,
					ms(sg->split.ns[SP_TST_RUNNABLE]), ms(sg->split.ns[SP_TST_RUNNING]),
					ms(sg->split.ns[SP_TST_SLEEPING]), ms(sg->split.ns[SP_TST_BLOCKED]));
				fprintf(f, "\n");
				/* the chain: who the blocker waited on meanwhile, and
				 * how that one spent the stretch */
				for (uint32_t q = 0; q < sg->chain_len; q++) {
					const struct sp_trace_split *cs = &sg->chain_split[q];

					fprintf(f, "        %*s<- %d, +%.3f..%.3f ms: runnable %.3f, running %.3f, "
						   "sleeping %.3f, blocked %.3f\n", (int)(2 * q), "", sg->chain[q],
						ms(sg->chain_start_ns[q] - e->start_ns),
						ms(sg->chain_end_ns[q] - e->start_ns),
						ms(cs->ns[SP_TST_RUNNABLE]), ms(cs->ns[SP_TST_RUNNING]),
						ms(cs->ns[SP_TST_SLEEPING]), ms(cs->ns[SP_TST_BLOCKED]));
				}
			}
			if (e->nr_segments > 8)
				fprintf(f, "      ... %u more waits\n", e->nr_segments - 8);
		}
	}
	worst_free(&ws);
}

/* ---- JSON ---- */
static json_object *jsplit(json_object *o, const struct sp_trace_split *s)
{
	json_object_object_add(o, "running_ns", json_object_new_int64((int64_t)s->ns[SP_TST_RUNNING]));
	json_object_object_add(o, "runnable_ns", json_object_new_int64((int64_t)s->ns[SP_TST_RUNNABLE]));
	json_object_object_add(o, "sleeping_ns", json_object_new_int64((int64_t)s->ns[SP_TST_SLEEPING]));
	json_object_object_add(o, "blocked_ns", json_object_new_int64((int64_t)s->ns[SP_TST_BLOCKED]));
	json_object_object_add(o, "unknown_ns", json_object_new_int64((int64_t)s->ns[SP_TST_UNKNOWN]));
	return o;
}

static json_object *jhex(uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "0x%" PRIx64, v);
	return json_object_new_string(b);
}

static json_object *jthread(const struct sp_trace_analysis *a, uint32_t id)
{
	json_object *o = json_object_new_object();
	const struct sp_trace_thread *t = thr(a, id);

	json_object_object_add(o, "tid", json_object_new_int(t->tid));
	json_object_object_add(o, "comm", json_object_new_string(t->comm));
	return o;
}

int sp_trace_write_json(const struct sp_trace_analysis *a, const struct sp_trace_diag *d,
			FILE *f, unsigned worst)
{
	json_object *root = json_object_new_object(), *threads = json_object_new_array(), *tr;
	struct sp_trace_counts c;
	struct worst ws;
	int rc = 0;

	if (!root || !threads)
		return -ENOMEM;
	worst_init(&ws, a, worst);
	sp_trace_analysis_counts(a, &c);
	json_object_object_add(root, "schema", json_object_new_string("superpass-analyze/1"));
	tr = json_object_new_object();
	json_object_object_add(tr, "events", json_object_new_int64((int64_t)c.events));
	json_object_object_add(tr, "first_ns", json_object_new_int64((int64_t)c.first_ns));
	json_object_object_add(tr, "last_ns", json_object_new_int64((int64_t)c.last_ns));
	json_object_object_add(tr, "waits", json_object_new_int64((int64_t)c.waits));
	json_object_object_add(tr, "timeouts", json_object_new_int64((int64_t)c.timeouts));
	json_object_object_add(tr, "no_waker", json_object_new_int64((int64_t)c.no_blocker));
	json_object_object_add(tr, "open_at_end", json_object_new_int64((int64_t)c.open_at_end));
	json_object_object_add(tr, "pid_reuse", json_object_new_int64((int64_t)c.pid_reuse));
	if (d) {
		json_object *sk = json_object_new_object();

		json_object_object_add(tr, "lines", json_object_new_int64((int64_t)d->lines));
		json_object_object_add(tr, "lost_events", json_object_new_int64((int64_t)d->lost_events));
		json_object_object_add(tr, "overwritten", json_object_new_int64((int64_t)d->overwritten));
		json_object_object_add(tr, "truncated", json_object_new_boolean(d->truncated));
		for (unsigned r = 0; r < SP_TRSK_NR; r++) {
			json_object *e, *lines;

			if (!d->skipped[r])
				continue;
			e = json_object_new_object();
			lines = json_object_new_array();
			json_object_object_add(e, "count", json_object_new_int64((int64_t)d->skipped[r]));
			for (unsigned i = 0; i < SP_TRACE_DIAG_LINES && d->first_line[r][i]; i++)
				json_object_array_add(lines, json_object_new_int64((int64_t)d->first_line[r][i]));
			json_object_object_add(e, "first_lines", lines);
			if (d->first_what[r][0])
				json_object_object_add(e, "first_reason",
						       json_object_new_string(d->first_what[r]));
			json_object_object_add(sk, sp_trace_skip_name(r), e);
		}
		json_object_object_add(tr, "skipped", sk);
	}
	json_object_object_add(root, "trace", tr);
	for (size_t i = 0; i < sp_trace_nr_results(a); i++) {
		const struct sp_trace_result *r = sp_trace_result_get(a, i);
		json_object *o = jthread(a, r->thread_id), *bl = json_object_new_array();
		json_object *lk = json_object_new_array(), *wo = json_object_new_array();
		const struct sp_trace_episode **w;
		size_t nw;

		json_object_object_add(o, "blockings", json_object_new_int64((int64_t)r->blockings));
		json_object_object_add(o, "blocking_ns", json_object_new_int64((int64_t)r->blocking_ns));
		json_object_object_add(o, "p50_ns", json_object_new_int64((int64_t)sp_hist_quantile(&r->hist, 1, 2)));
		json_object_object_add(o, "p99_ns", json_object_new_int64((int64_t)sp_hist_quantile(&r->hist, 99, 100)));
		json_object_object_add(o, "p999_ns", json_object_new_int64((int64_t)sp_hist_quantile(&r->hist, 999, 1000)));
		json_object_object_add(o, "max_ns", json_object_new_int64((int64_t)r->hist.max));
		json_object_object_add(o, "attributed_ns", json_object_new_int64((int64_t)r->attributed_ns));
		json_object_object_add(o, "runnable_share",
				       json_object_new_double(share(r->runnable_ns, r->blocking_ns)));
		for (uint32_t b = 0; b < r->nr_blockers; b++) {
			const struct sp_trace_blocker *x = &r->blockers[b];
			json_object *bo = jthread(a, x->thread_id), *pre = json_object_new_array();

			json_object_object_add(bo, "episodes", json_object_new_int64((int64_t)x->episodes));
			json_object_object_add(bo, "blocking_ns", json_object_new_int64((int64_t)x->blocking_ns));
			jsplit(bo, &x->split);
			for (uint32_t p = 0; p < x->nr_preemptors; p++) {
				const struct sp_trace_thread *pt = thr(a, x->preemptors[p].thread_id);
				json_object *po = jthread(a, x->preemptors[p].thread_id);

				json_object_object_add(po, "prio", json_object_new_int(pt->prio));
				json_object_object_add(po, "class", json_object_new_string(class_name(pt->prio)));
				json_object_object_add(po, "ns", json_object_new_int64((int64_t)x->preemptors[p].ns));
				json_object_array_add(pre, po);
			}
			json_object_object_add(bo, "ran_while_runnable", pre);
			json_object_array_add(bl, bo);
		}
		json_object_object_add(o, "blockers", bl);
		for (uint32_t l = 0; l < r->nr_locks; l++) {
			json_object *lo = json_object_new_object();

			json_object_object_add(lo, "lock", jhex(r->locks[l].lock));
			json_object_object_add(lo, "kind", json_object_new_string(sp_trace_wait_kind_name(r->locks[l].kind)));
			json_object_object_add(lo, "episodes", json_object_new_int64((int64_t)r->locks[l].episodes));
			json_object_object_add(lo, "total_ns", json_object_new_int64((int64_t)r->locks[l].total_ns));
			json_object_object_add(lo, "max_ns", json_object_new_int64((int64_t)r->locks[l].max_ns));
			json_object_array_add(lk, lo);
		}
		json_object_object_add(o, "locks", lk);
		nw = worst_get(&ws, i, &w);
		for (size_t k = 0; k < nw; k++) {
			const struct sp_trace_episode *e = w[k];
			json_object *eo = json_object_new_object(), *segs = json_object_new_array();

			json_object_object_add(eo, "start_ns", json_object_new_int64((int64_t)e->start_ns));
			json_object_object_add(eo, "duration_ns", json_object_new_int64((int64_t)(e->end_ns - e->start_ns)));
			json_object_object_add(eo, "kind", json_object_new_string(sp_trace_wait_kind_name(e->kind)));
			json_object_object_add(eo, "lock", jhex(e->lock));
			json_object_object_add(eo, "lost", json_object_new_boolean(e->lost));
			for (uint32_t s = 0; s < e->nr_segments; s++) {
				const struct sp_trace_segment *sg = &e->segments[s];
				json_object *so = json_object_new_object(), *ch = json_object_new_array();

				json_object_object_add(so, "start_ns", json_object_new_int64((int64_t)sg->start_ns));
				json_object_object_add(so, "end_ns", json_object_new_int64((int64_t)sg->end_ns));
				json_object_object_add(so, "blocker_tid", json_object_new_int(sg->blocker_tid));
				json_object_object_add(so, "blocker_comm", json_object_new_string(
					sg->blocker_tid ? thr(a, sg->blocker_id)->comm : ""));
				jsplit(so, &sg->split);
				for (uint32_t q = 0; q < sg->chain_len; q++)
					json_object_array_add(ch, json_object_new_int(sg->chain[q]));
				json_object_object_add(so, "chain", ch);
				/* each chain member's split over its stretch */
				ch = json_object_new_array();
				for (uint32_t q = 0; q < sg->chain_len; q++) {
					json_object *co = json_object_new_object();

					json_object_object_add(co, "tid", json_object_new_int(sg->chain[q]));
					json_object_object_add(co, "start_ns",
							       json_object_new_int64((int64_t)sg->chain_start_ns[q]));
					json_object_object_add(co, "end_ns",
							       json_object_new_int64((int64_t)sg->chain_end_ns[q]));
					jsplit(co, &sg->chain_split[q]);
					json_object_array_add(ch, co);
				}
				json_object_object_add(so, "chain_split", ch);
				json_object_array_add(segs, so);
			}
			json_object_object_add(eo, "waits", segs);
			json_object_array_add(wo, eo);
		}
		json_object_object_add(o, "worst", wo);
		json_object_array_add(threads, o);
	}
	worst_free(&ws);
	json_object_object_add(root, "threads", threads);
	{
		const char *s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								     JSON_C_TO_STRING_NOSLASHESCAPE);

		if (fputs(s, f) < 0 || fputc('\n', f) < 0)
			rc = -EIO;
	}
	json_object_put(root);
	return rc;
}

/* ---- Chrome trace events ---- */
static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static double us(uint64_t ns)
{
	return (double)ns / 1e3;
}

int sp_trace_write_chrome(const struct sp_trace_analysis *a, FILE *f)
{
	size_t ne = sp_trace_nr_episodes(a), nt = sp_trace_nr_threads(a);
	bool *named;
	uint64_t flow = 0;
	int rc = 0;

	named = calloc(nt ? nt : 1, sizeof(*named));
	if (!named)
		return -ENOMEM;
	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	fprintf(f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"superpass analyze\"}}");
	for (size_t i = 0; i < ne; i++) {
		const struct sp_trace_episode *e = sp_trace_episode_get(a, i);
		uint32_t ids[2] = { e->waiter_id, UINT32_MAX };

		for (uint32_t s = 0; s <= e->nr_segments; s++) {
			uint32_t id = s == 0 ? ids[0] : e->segments[s - 1].blocker_id;

			if (id < nt && !named[id]) {
				named[id] = true;
				fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":",
					thr(a, id)->tid);
				jstr(f, thr(a, id)->comm);
				fprintf(f, "}}");
			}
		}
		fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"blocked\",\"name\":\"blocked on %s 0x%" PRIx64
			   "\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"waits\":%u%s}}",
			sp_trace_wait_kind_name(e->kind), e->lock, thr(a, e->waiter_id)->tid,
			us(e->start_ns), us(e->end_ns - e->start_ns), e->nr_segments,
			e->lost ? ",\"lost_events\":true" : "");
		for (uint32_t s = 0; s < e->nr_segments; s++) {
			const struct sp_trace_segment *sg = &e->segments[s];
			uint64_t fts;

			if (!sg->blocker_tid || sg->end_ns <= sg->start_ns)
				continue;
			fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"blocking\",\"name\":\"blocking ");
			fprintf(f, "%d\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"waiter\":",
				thr(a, e->waiter_id)->tid, sg->blocker_tid, us(sg->start_ns),
				us(sg->end_ns - sg->start_ns));
			jstr(f, thr(a, e->waiter_id)->comm);
			for (int k = 1; k < SP_TST_NR; k++)
				fprintf(f, ",\"%s_ms\":%.3f", state_name[k], ms(sg->split.ns[k]));
			fprintf(f, ",\"chain\":[");
			for (uint32_t q = 0; q < sg->chain_len; q++)
				fprintf(f, "%s%d", q ? "," : "", sg->chain[q]);
			fprintf(f, "]}}");
			/* the wakeup, inside both slices */
			fts = sg->end_ns - 1;
			flow++;
			fprintf(f, ",\n{\"ph\":\"s\",\"cat\":\"wakeup\",\"name\":\"wakeup\",\"id\":%" PRIu64
				   ",\"pid\":1,\"tid\":%d,\"ts\":%.3f}",
				flow, sg->blocker_tid, us(fts));
			fprintf(f, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"wakeup\",\"name\":\"wakeup\",\"id\":%" PRIu64
				   ",\"pid\":1,\"tid\":%d,\"ts\":%.3f}",
				flow, thr(a, e->waiter_id)->tid, us(fts));
		}
	}
	fprintf(f, "\n]}\n");
	free(named);
	if (ferror(f))
		rc = -EIO;
	return rc;
}
