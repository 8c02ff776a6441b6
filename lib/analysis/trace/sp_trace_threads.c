// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The analysis' threads: a table by tid (open addressing), a thread retired
 * when it dies or its tid is reused, and whether it is selected.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <superpass/trace.h>

#include "sp_trace_analysis.h"

static size_t slot_of(const struct sp_trace_analysis *a, int32_t tid)
{
	return ((uint32_t)tid * 2654435761u) & (a->map_cap - 1);
}

struct sp_trace_thr *sp_trace_thr_lookup(struct sp_trace_analysis *a, int32_t tid)
{
	for (size_t s = slot_of(a, tid);; s = (s + 1) & (a->map_cap - 1)) {
		const struct sp_trace_map_ent *m = &a->map[s];

		if (m->id == SP_TRACE_NO_ID)
			return NULL;
		if (m->tid == tid)
			return a->thr.v[m->id];
	}
}

static int map_set(struct sp_trace_analysis *a, int32_t tid, uint32_t id)
{
	size_t s;

	if ((a->map_used + 1) * 2 > a->map_cap) {
		struct sp_trace_map_ent *old = a->map;
		size_t oc = a->map_cap;

		a->map = malloc(oc * 2 * sizeof(*a->map));
		if (!a->map) {
			a->map = old;
			return -ENOMEM;
		}
		a->map_cap = oc * 2;
		memset(a->map, 0xff, a->map_cap * sizeof(*a->map));
		for (size_t i = 0; i < oc; i++)
			if (old[i].id != SP_TRACE_NO_ID) {
				for (s = slot_of(a, old[i].tid); a->map[s].id != SP_TRACE_NO_ID;
				     s = (s + 1) & (a->map_cap - 1))
					;
				a->map[s] = old[i];
			}
		free(old);
	}
	for (s = slot_of(a, tid);; s = (s + 1) & (a->map_cap - 1)) {
		if (a->map[s].id == SP_TRACE_NO_ID) {
			a->map[s] = (struct sp_trace_map_ent){ tid, id };
			a->map_used++;
			return 0;
		}
		if (a->map[s].tid == tid) {
			a->map[s].id = id;
			return 0;
		}
	}
}

/* @t will see no event of its own again (it died, or its tid now names a
 * new thread): its history is kept only while a wait still open may look
 * at it, then released (release_retired). Memory then grows with the
 * threads alive, not with every thread the trace ever had. */
void sp_trace_thr_retire(struct sp_trace_analysis *a, struct sp_trace_thr *t)
{
	if (t->retired)
		return;
	t->retired = true;
	(void)SP_TRACE_VEC_PUSH(a->retired, t->id); /* out of memory: kept whole, nothing lost */
	/* What it has open now stays open (no event of its own can close it:
	 * finish does); with nothing open, sp_trace_horizon() and note_release() have
	 * nothing to find in it ever again. */
	if (t->pub.critical && !t->fx.open && !t->kl.open && !t->ep_open) {
		for (size_t i = 0; i < a->crit_ids.n; i++)
			if (a->crit_ids.v[i] == t->id) {
				a->crit_ids.v[i] = a->crit_ids.v[--a->crit_ids.n];
				break;
			}
		free(t->fx.rels);
		t->fx.rels = NULL;
	}
}

struct sp_trace_thr *sp_trace_thr_new(struct sp_trace_analysis *a, int32_t tid, const char *comm)
{
	struct sp_trace_thr *t = calloc(1, sizeof(*t)), *old = sp_trace_thr_lookup(a, tid);

	if (!t)
		return NULL;
	if (old) {
		old->pub.reused = true;
		a->c.pid_reuse++;
		sp_trace_thr_retire(a, old);
	}
	t->id = (uint32_t)a->thr.n;
	t->pub.tid = tid;
	t->pub.prio = -1;
	t->crit = -1;
	t->result = -1;
	if (comm)
		snprintf(t->pub.comm, sizeof(t->pub.comm), "%s", comm);
	if (SP_TRACE_VEC_PUSH(a->thr, t) || map_set(a, tid, t->id)) {
		if (a->thr.n && a->thr.v[a->thr.n - 1] == t)
			a->thr.n--;
		free(t);
		return NULL;
	}
	return t;
}


struct sp_trace_thr *sp_trace_thr_get(struct sp_trace_analysis *a, int32_t tid, const char *comm)
{
	struct sp_trace_thr *t;

	if (tid <= 0)
		return NULL;
	t = sp_trace_thr_lookup(a, tid);
	if (!t || t->dead) /* a dead thread's tid seen again: reused */
		t = sp_trace_thr_new(a, tid, comm);
	else if (comm && comm[0] && !sp_trace_comm_is(t->pub.comm, comm) && strcmp(comm, "<...>")) {
		snprintf(t->pub.comm, sizeof(t->pub.comm), "%s", comm);
		t->crit = -1;
	}
	return t;
}

bool sp_trace_thr_is_critical(struct sp_trace_analysis *a, struct sp_trace_thr *t)
{
	if (t->crit < 0) {
		bool c = a->select_all;

		for (size_t i = 0; !c && i < a->o.nr_critical_tids; i++)
			c = a->tids[i] == t->pub.tid;
		for (size_t i = 0; !c && a->comms[i]; i++)
			c = !fnmatch(a->comms[i], t->pub.comm, 0);
		t->crit = c;
		if (c && !t->pub.critical &&
		    (t->fx.rels = calloc(SP_TRACE_MAX_RELS, sizeof(struct sp_trace_rel)))) {
			if (!SP_TRACE_VEC_PUSH(a->crit_ids, t->id)) {
				t->pub.critical = true;
			} else {
				free(t->fx.rels);
				t->fx.rels = NULL;
			}
		}
	}
	return t->crit > 0;
}
