// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Proxy execution: a donor blocked on a kernel mutex lends its scheduling
 * context to the owner it waits for.
 */
#include "sp_sim_sched.h"

/* Proxy execution: @d (blocked on a kernel mutex, still queued on @c) was
 * picked. Returns the owner to run in its place, or NULL after taking @d
 * off @c (deactivated, or migrated to its owner's CPU). */
struct sp_sim_thread *sp_sim_proxy(struct sp_sim *s, struct sp_sim_cpu *c, struct sp_sim_thread *d)
{
	struct sp_sim_thread *cur = d, *o = NULL;

	for (int depth = 0; depth < 16; depth++) {
		struct sp_sim_lock *l;

		if (cur->wait_lock < 0)
			break;
		l = &s->lk[cur->wait_lock];
		if (l->kind != SP_SIM_KMUTEX || l->owner < 0) {
			o = NULL;
			break;
		}
		o = &s->th[l->owner];
		if (o->state == SP_TS_BLOCKED && o->wait_lock >= 0 &&
		    s->lk[o->wait_lock].kind == SP_SIM_KMUTEX) {
			cur = o;
			continue;
		}
		break;
	}
	if (o && o->state == SP_TS_RUNNABLE && o->on_rq && o->cpu == c->id)
		return o;
	if (o && s->migrate && o->state == SP_TS_RUNNABLE && o->on_rq && sp_sim_allowed(d, o->cpu)) {
		s->r->proxy_migrations++;
		sp_sim_migrate(s, d, &s->cpus[o->cpu]);
		return NULL;
	}
	sp_sim_sched_dequeue(s, d);
	return NULL;
}
