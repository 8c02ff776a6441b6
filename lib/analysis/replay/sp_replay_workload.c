// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The derived workload as the simulator's JSON (rt-app's format with the
 * simulator's sp_* keys; include/superpass/sim.h), built with json-c: a
 * task object per replayed thread as its program is built, then the
 * global object around them. The text is what --workload writes and what
 * the replay parses back with the simulator's own reader, so the file is
 * exactly what the replay ran.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_replay_internal.h"

/* The name of real lock @l in the workload: futex-ADDR, kmutex-ADDR, rwsem-ADDR. */
static void lock_name(const struct sp_replay *r, int32_t l, char *buf, size_t cap)
{
	static const char *const pre[] = { "futex", "rwlock", "rwlock", "kmutex", "rwsem" };

	snprintf(buf, cap, "%s-%llx", pre[r->lk[l].kind], (unsigned long long)r->lk[l].addr);
}

static void th_name(const struct sp_rp_th *t, char *buf, size_t cap)
{
	char c[SP_TRACE_COMM_LEN];
	size_t i;

	for (i = 0; i < SP_TRACE_COMM_LEN - 1 && t->comm[i]; i++) {
		char ch = t->comm[i];

		c[i] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		       (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.' ? ch : '_';
	}
	c[i] = 0;
	snprintf(buf, cap, "%s-%d", i ? c : "thread", t->tid);
}

/* Microseconds, rounded on the running sum so that rounding does not add up. */
struct sp_rp_us_clock {
	uint64_t ns, us;
};

static uint64_t to_us(struct sp_rp_us_clock *c, uint64_t ns)
{
	uint64_t to;

	c->ns += ns;
	to = (c->ns + 500) / 1000;
	ns = to - c->us;
	c->us = to;
	return ns;
}

/* json-c's constructors and adds fail only on no memory; @v is @o's then. */
static void put(struct sp_replay *r, struct json_object *o, const char *key,
		struct json_object *v)
{
	if (!o || !v || json_object_object_add(o, key, v)) {
		json_object_put(v);
		r->nomem = 1;
	}
}

/* An event of a phase: rt-app runs a phase's events in the order of their
 * keys, which rt-app (and the simulator) tell apart by a numeric suffix. */
static void put_event(struct sp_replay *r, struct json_object *ph, const char *kind, unsigned n,
		      struct json_object *v)
{
	char key[32];

	snprintf(key, sizeof(key), "%s%u", kind, n);
	put(r, ph, key, v);
}

/* A run, runtime or sleep of @us microseconds: in pieces the reader takes
 * (an int of microseconds), one after the other. */
static void put_us(struct sp_replay *r, struct json_object *ph, const char *kind, unsigned *n,
		   uint64_t us)
{
	while (us) {
		uint64_t part = us < SP_RP_US_MAX ? us : SP_RP_US_MAX;

		put_event(r, ph, kind, ++*n, json_object_new_int64((int64_t)part));
		us -= part;
	}
}

static void put_lock_event(struct sp_replay *r, struct json_object *ph, const struct sp_rp_op *o,
			   unsigned n)
{
	const char *kind;
	char ln[48];

	lock_name(r, o->lock, ln, sizeof(ln));
	if (r->lk[o->lock].kind == SP_SIM_UMUTEX)
		kind = o->type == OP_LOCK ? "lock" : "unlock";
	else if (o->type == OP_UNLOCK)
		kind = "sp_unlock";
	else
		kind = o->hold == SP_SIM_SHARED ? "sp_rdlock" : "sp_wrlock";
	put_event(r, ph, kind, n, json_object_new_string(ln));
}

/* The timer of a frame loop. sp_skip: a late frame's successor starts at
 * the next point of the grid, as a frame loop on vsync does (the next
 * frame starts at the next deadline after the work ends); sp_rp_period_of
 * found the sleeps ending on that grid, late frames included (their
 * intervals whole periods). A relative timer would start it at once, and
 * after a long wait run the next frame straight into the readers it had
 * held up, which the traced thread, asleep to the next deadline, did not
 * meet. */
static struct json_object *timer_event(struct sp_replay *r, uint64_t period_ns)
{
	struct json_object *tm = json_object_new_object();

	put(r, tm, "ref", json_object_new_string("unique"));
	put(r, tm, "period", json_object_new_int64((int64_t)((period_ns + 500) / 1000)));
	put(r, tm, "mode", json_object_new_string("absolute"));
	put(r, tm, "sp_skip", json_object_new_boolean(1));
	return tm;
}

void sp_rp_workload_task(struct sp_replay *r, const struct sp_rp_th *t, const struct sp_rp_prog *p,
			 uint64_t delay, bool loop)
{
	struct sp_rp_us_clock run = { 0 }, slp = { 0 };
	struct json_object *task = json_object_new_object(), *phases = json_object_new_object();
	struct json_object *ph = json_object_new_object();
	unsigned n = 0;
	char nm[48];
	bool rt = t->prio >= 0 && t->prio < 100;

	if (!r->tasks)
		r->tasks = json_object_new_object();
	/* A frame loop loops on: a critical thread that the trace shows
	 * starved did few frames of work, and a policy that serves it sooner
	 * must not see it stop early (its requests repeat, its waits are
	 * requests, not tokens). Everything else is one pass of the trace. */
	put(r, task, "loop", json_object_new_int(loop ? -1 : 1));
	if (rt)
		put(r, task, "policy", json_object_new_string("SCHED_FIFO"));
	put(r, task, "priority", json_object_new_int(rt ? 99 - t->prio
					: t->prio >= 100 && t->prio < 140 ? t->prio - 120 : 0));
	if (t->critical)
		put(r, task, "sp_critical", json_object_new_boolean(1));
	if (delay / 1000)
		put(r, task, "delay", json_object_new_int64((int64_t)(delay / 1000)));
	/* One pass of one phase: a task-level event list would repeat. */
	put(r, ph, "loop", json_object_new_int(1));
	for (size_t i = 0; i < p->n; i++) {
		const struct sp_rp_op *o = &p->op[i];

		switch (o->type) {
		case OP_RUN:
			put_us(r, ph, "run", &n, to_us(&run, o->ns));
			break;
		case OP_RUNTIME:
			put_us(r, ph, "runtime", &n, to_us(&slp, o->ns));
			break;
		case OP_SLEEP:
			put_us(r, ph, "sleep", &n, to_us(&slp, o->ns));
			break;
		case OP_TIMER:
			put_event(r, ph, "timer", ++n, timer_event(r, o->ns));
			break;
		case OP_PREEMPT:
			put_event(r, ph, "sp_preempt", ++n, json_object_new_boolean(1));
			break;
		case OP_LOCK:
		case OP_UNLOCK:
			put_lock_event(r, ph, o, ++n);
			break;
		}
	}
	if (!n)
		put(r, ph, "run1", json_object_new_int(1));
	put(r, phases, "trace", ph);
	put(r, task, "phases", phases);
	th_name(t, nm, sizeof(nm));
	put(r, r->tasks, nm, task);
}

/* The workload's global settings: what the simulator needs to replay the
 * trace's machine (its CPUs, base slice, scheduler model), how long, and
 * the kinds of the locks that are not mutexes. */
static struct json_object *global_object(struct sp_replay *r)
{
	struct json_object *g = json_object_new_object(), *locks = NULL;
	uint64_t len = r->c.end_ns - r->first;

	/* whole seconds for rt-app, within the reader's limit; the
	 * simulator runs sp_duration_ms */
	put(r, g, "duration", json_object_new_int64((int64_t)(len / 1000000000ull + 1 <
							     SP_SIM_MAX_DURATION_S
							     ? len / 1000000000ull + 1
							     : SP_SIM_MAX_DURATION_S)));
	put(r, g, "default_policy", json_object_new_string("SCHED_OTHER"));
	put(r, g, "calibration", json_object_new_string("CPU0"));
	put(r, g, "sp_cpus", json_object_new_int((int32_t)r->c.cpus));
	put(r, g, "sp_duration_ms", json_object_new_int64((int64_t)((len + 999999) / 1000000 ?: 1)));
	put(r, g, "sp_base_slice_us", json_object_new_int64((int64_t)(r->c.slice_ns / 1000)));
	put(r, g, "sp_sched_model", json_object_new_string(r->o.classic ? "classic" : "linux"));
	/* the runtime the traces record: a critical waiter applies its fast
	 * tracks itself; but a trace whose critical waits are all
	 * on kernel locks is superpass.ko's case, whose probes only queue the
	 * fast track for its worker kthread (sp_kmod_act.c:
	 * sched_setattr_nocheck may sleep), as the simulator's worker does it */
	put(r, g, "sp_waiter_boost", json_object_new_boolean(!(r->crit_kwaits && !r->crit_fwaits)));
	for (size_t l = 0; l < r->nlk; l++) {
		uint8_t kind = r->lk[l].kind;
		char ln[48];

		if (!r->lk[l].used)
			continue;
		r->c.locks++;
		if (kind == SP_SIM_UMUTEX)
			continue;
		if (!locks)
			locks = json_object_new_object();
		lock_name(r, (int32_t)l, ln, sizeof(ln));
		put(r, locks, ln, json_object_new_string(kind == SP_SIM_RWSEM ? "rwsem"
						   : kind == SP_SIM_URWLOCK_W ? "rwlock-writer"
						   : "kmutex"));
	}
	if (locks)
		put(r, g, "sp_locks", locks);
	return g;
}

int sp_rp_workload_text(struct sp_replay *r)
{
	struct json_object *root = json_object_new_object();
	const char *s;

	put(r, root, "global", global_object(r));
	put(r, root, "tasks", r->tasks ? r->tasks : json_object_new_object());
	r->tasks = NULL; /* root's now */
	s = r->nomem ? NULL
	    : json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						   JSON_C_TO_STRING_PRETTY_TAB |
						   JSON_C_TO_STRING_NOSLASHESCAPE);
	free(r->json);
	r->json = s ? strdup(s) : NULL;
	json_object_put(root);
	if (!r->json)
		r->nomem = 1;
	return r->nomem ? -ENOMEM : 0;
}
