// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The checks of a workload's locks, run once when a file is read
 * (sp_sim_workload_parse): what the simulator cannot run as written is an
 * error, what may be meant but usually is not is a warning.
 *
 * Errors: a task that takes a lock it holds (it waits for itself for
 * ever; a second read hold is refused too: the simulator keeps one hold
 * per lock and thread, and a recursive read lock deadlocks behind a
 * waiting writer), an unlock of a lock the task does not hold, and more
 * than SP_SIM_MAX_HELD locks held at once (the engine's limit).
 * Warnings: a lock still held when a task's program ends (its waiters
 * wait for ever), and a lock-order inversion, two tasks (or two instances
 * of one) that take two locks in opposite orders and can deadlock.
 *
 * Each task's program is walked abstractly, with the set of locks it
 * holds. One pass of a phase maps a held set to the same set wherever the
 * pass is valid (every lock it touches ends as its last operation leaves
 * it), so a second pass either fails or changes nothing: two passes of
 * each phase and two of the task's list of phases see everything a longer
 * run would. Linear in the number of events.
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "sp_sim_engine.h"
#include "sp_vec.h"

_Static_assert(SP_SIM_MAX_HELD == SP_MAX_HELD, "sim.h's limit is the engine's");

/* Warnings kept in a workload; the rest are counted in one more line. */
#define SP_V_MAX_WARNINGS 16u

/* A lock held in the walk, and where it was taken. */
struct sp_vheld {
	int32_t lock;
	uint8_t hold;
	uint32_t phase, op;
	uint32_t pass, iter;
};

/* "lock @from held while lock @to is taken", with up to two tasks that do
 * it (an inversion needs two threads) and the modes it is done in. */
struct sp_vedge {
	int32_t from, to;
	int32_t task[2];             /* -1: none */
	uint32_t phase[2], op[2];
	bool strong_held, strong_want; /* a hold that excludes the other side */
};

struct sp_vctx {
	struct sp_sim_workload *w;
	const char *file;
	struct json_object *root;
	char *err;
	size_t errcap;
	bool strict;                 /* errors and warnings; else the depth only */
	bool too_deep;
	uint64_t dropped;            /* warnings past SP_V_MAX_WARNINGS */
	struct sp_vec edges;         /* of struct sp_vedge, in the order met */
	uint32_t *slot;              /* hash of edges: index + 1, 0 free */
	size_t nslot;
	int nomem;
};

struct sp_vwalk {
	uint32_t task;
	struct sp_vheld held[SP_SIM_MAX_HELD];
	uint32_t nheld;
	uint32_t pass, iter;
};

/* ---- names in messages ---- */

static const char *const sp_v_task_keys[] = { "loop", "instance", "policy", "priority", "cpus",
					       "delay", "sp_critical" };

static bool sp_v_is_task_key(const char *k)
{
	for (size_t i = 0; i < sizeof(sp_v_task_keys) / sizeof(sp_v_task_keys[0]); i++)
		if (!strcmp(k, sp_v_task_keys[i]))
			return true;
	return false;
}

/* The key of event @o in @obj (a phase, or a task without phases): the
 * rt-app reader makes one operation per event key, in file order,
 * skipping the phase's loop and a task's own settings. */
static const char *sp_v_event_key(struct json_object *obj, bool task_level, uint32_t o)
{
	uint32_t i = 0;

	json_object_object_foreach(obj, k, v) {
		(void)v;
		if (!strcmp(k, "loop") || (task_level && sp_v_is_task_key(k)))
			continue;
		if (i++ == o)
			return k;
	}
	return NULL;
}

/* Where event @o of phase @p of task @t is: "tasks.T.phases.P.KEY" (or
 * "tasks.T.KEY") from the file's JSON, else by number. */
static void sp_v_where(const struct sp_vctx *c, uint32_t t, uint32_t p, uint32_t o, char *buf,
		       size_t cap)
{
	const char *name = c->w->tasks[t].name, *ek = NULL, *pk = NULL;
	struct json_object *tasks, *task, *phases;

	if (c->root && json_object_object_get_ex(c->root, "tasks", &tasks) &&
	    json_object_object_get_ex(tasks, name, &task) &&
	    json_object_is_type(task, json_type_object)) {
		if (!json_object_object_get_ex(task, "phases", &phases)) {
			if (p == 0)
				ek = sp_v_event_key(task, true, o);
		} else if (json_object_is_type(phases, json_type_object)) {
			uint32_t i = 0;

			json_object_object_foreach(phases, k, v) {
				if (i++ == p) {
					pk = k;
					if (json_object_is_type(v, json_type_object))
						ek = sp_v_event_key(v, false, o);
					break;
				}
			}
		}
	}
	if (ek && pk)
		snprintf(buf, cap, "tasks.%s.phases.%s.%s", name, pk, ek);
	else if (ek)
		snprintf(buf, cap, "tasks.%s.%s", name, ek);
	else
		snprintf(buf, cap, "tasks.%s, phase %u, event %u", name, p + 1, o + 1);
}

__attribute__((format(printf, 3, 4)))
static int sp_v_fail(struct sp_vctx *c, const char *key, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->err && c->errcap)
		snprintf(c->err, c->errcap, "%s: %s: %s", c->file, key, msg);
	return -EINVAL;
}

/* A warning kept in the workload ("FILE: what"), up to SP_V_MAX_WARNINGS
 * (@last: the line that counts the others). */
static void sp_v_keep(struct sp_vctx *c, const char *msg, bool last)
{
	struct sp_sim_workload *w = c->w;
	char **wv;

	if (w->nwarnings >= SP_V_MAX_WARNINGS && !last) {
		c->dropped++;
		return;
	}
	wv = realloc(w->warnings, sizeof(*wv) * (w->nwarnings + 2));
	if (!wv) {
		c->nomem = 1;
		return;
	}
	w->warnings = wv;
	if (asprintf(&wv[w->nwarnings], "%s: %s", c->file, msg) < 0) {
		c->nomem = 1;
		return;
	}
	wv[++w->nwarnings] = NULL;
}

/* No room for another warning: counted instead (before its keys are
 * looked up, which costs a walk of their objects). */
static bool sp_v_full(struct sp_vctx *c)
{
	if (c->w->nwarnings < SP_V_MAX_WARNINGS)
		return false;
	c->dropped++;
	return true;
}

__attribute__((format(printf, 2, 3)))
static void sp_v_warn(struct sp_vctx *c, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (sp_v_full(c))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sp_v_keep(c, msg, false);
}

/* ---- the lock-order edges ---- */

static size_t sp_v_hash(int32_t from, int32_t to, size_t n)
{
	uint64_t x = ((uint64_t)(uint32_t)from << 32 | (uint32_t)to) * 0x9e3779b97f4a7c15ull;

	return (size_t)(x >> 17) & (n - 1);
}

static struct sp_vedge *sp_v_find(const struct sp_vctx *c, int32_t from, int32_t to)
{
	struct sp_vedge *e = c->edges.data;

	if (!c->nslot)
		return NULL;
	for (size_t i = sp_v_hash(from, to, c->nslot);; i = (i + 1) & (c->nslot - 1)) {
		uint32_t s = c->slot[i];

		if (!s)
			return NULL;
		if (e[s - 1].from == from && e[s - 1].to == to)
			return &e[s - 1];
	}
}

static int sp_v_rehash(struct sp_vctx *c)
{
	size_t n = c->nslot ? c->nslot * 2 : 64;
	uint32_t *s = calloc(n, sizeof(*s));
	const struct sp_vedge *e = c->edges.data;

	if (!s)
		return -ENOMEM;
	for (size_t k = 0; k < c->edges.n; k++) {
		size_t i = sp_v_hash(e[k].from, e[k].to, n);

		while (s[i])
			i = (i + 1) & (n - 1);
		s[i] = (uint32_t)k + 1;
	}
	free(c->slot);
	c->slot = s;
	c->nslot = n;
	return 0;
}

/* A hold that keeps the other thread out: any but a read hold of a
 * reader-preferring rwlock (a rwsem's or writer-preferring rwlock's reader
 * waits behind a queued writer). */
static bool sp_v_strong(const struct sp_sim_workload *w, int32_t lock, uint8_t hold)
{
	return hold == SP_SIM_EXCL || w->locks[lock].kind != SP_SIM_URWLOCK;
}

static void sp_v_edge(struct sp_vctx *c, const struct sp_vwalk *s, const struct sp_vheld *h,
		      int32_t to, uint8_t hold, uint32_t phase, uint32_t op)
{
	struct sp_vedge *e = sp_v_find(c, h->lock, to);

	if (!e) {
		if ((c->edges.n + 1) * 2 > c->nslot && sp_v_rehash(c)) {
			c->nomem = 1;
			return;
		}
		e = sp_vec_push(&c->edges, sizeof(*e));
		if (!e) {
			c->nomem = 1;
			return;
		}
		memset(e, 0, sizeof(*e));
		e->from = h->lock;
		e->to = to;
		e->task[0] = (int32_t)s->task;
		e->task[1] = -1;
		e->phase[0] = phase;
		e->op[0] = op;
		{
			size_t i = sp_v_hash(e->from, e->to, c->nslot);

			while (c->slot[i])
				i = (i + 1) & (c->nslot - 1);
			c->slot[i] = (uint32_t)c->edges.n;
		}
	} else if (e->task[1] < 0 && e->task[0] != (int32_t)s->task) {
		e->task[1] = (int32_t)s->task;
		e->phase[1] = phase;
		e->op[1] = op;
	}
	e->strong_held |= sp_v_strong(c->w, h->lock, h->hold);
	e->strong_want |= sp_v_strong(c->w, to, hold);
}

/* Two edges a->b and b->a that two threads can be in at once. */
static void sp_v_inversions(struct sp_vctx *c)
{
	const struct sp_vedge *ev = c->edges.data;

	for (size_t k = 0; k < c->edges.n; k++) {
		const struct sp_vedge *e = &ev[k], *r;
		int i = 0, j = 0;
		char ka[256], kb[256];

		if (e->from > e->to || !(r = sp_v_find(c, e->to, e->from)))
			continue;
		/* each thread blocks on the other's hold */
		if (!((r->strong_held || e->strong_want) && (e->strong_held || r->strong_want)))
			continue;
		if (e->task[0] == r->task[0]) {
			if (e->task[1] >= 0)
				i = 1;
			else if (r->task[1] >= 0)
				j = 1;
			else if (c->w->tasks[e->task[0]].instances < 2)
				continue; /* one thread: it cannot wait for itself this way */
		}
		if (sp_v_full(c))
			continue;
		sp_v_where(c, (uint32_t)e->task[i], e->phase[i], e->op[i], ka, sizeof(ka));
		sp_v_where(c, (uint32_t)r->task[j], r->phase[j], r->op[j], kb, sizeof(kb));
		sp_v_warn(c, "%s takes \"%s\" while holding \"%s\", and %s takes \"%s\" while "
			  "holding \"%s\": a lock-order inversion, %s can deadlock (take the two "
			  "locks in one order)",
			  ka, c->w->locks[e->to].name, c->w->locks[e->from].name, kb,
			  c->w->locks[r->to].name, c->w->locks[r->from].name,
			  e->task[i] == r->task[j] ? "two instances of the task" : "the two tasks");
	}
}

/* ---- the walk ---- */

/* ", in the phase's previous loop" when @h was taken in an earlier pass. */
static const char *sp_v_when(const struct sp_vwalk *s, const struct sp_vheld *h, uint32_t phase)
{
	if (h->pass != s->pass)
		return ", in the task's previous loop";
	if (h->phase == phase && h->iter != s->iter)
		return ", in the phase's previous loop";
	return "";
}

/* One operation. 0, 1 (lenient walk: the thread waits for ever here, the
 * rest of its program never runs), or -EINVAL with the message. */
static int sp_v_op(struct sp_vctx *c, struct sp_vwalk *s, uint32_t p, uint32_t o)
{
	const struct sp_sim_op *op = &c->w->tasks[s->task].phases[p].ops[o];
	const char *lname;
	char at[256], was[256];
	uint32_t i;

	if (op->type != SP_OP_LOCK && op->type != SP_OP_UNLOCK)
		return 0;
	lname = c->w->locks[op->ref].name;
	for (i = 0; i < s->nheld && s->held[i].lock != op->ref; i++)
		;
	if (op->type == SP_OP_UNLOCK) {
		if (i == s->nheld) {
			if (!c->strict)
				return 0;
			sp_v_where(c, s->task, p, o, at, sizeof(at));
			return sp_v_fail(c, at, "unlocks \"%s\", which the task does not hold there%s; "
					 "expected a lock of \"%s\" before it",
					 lname, s->pass || s->iter ? " (on its next loop)" : "", lname);
		}
		memmove(&s->held[i], &s->held[i + 1], sizeof(s->held[0]) * (s->nheld - i - 1));
		s->nheld--;
		return 0;
	}
	if (i < s->nheld) {
		const struct sp_vheld *h = &s->held[i];

		if (!c->strict)
			return 1;
		sp_v_where(c, s->task, p, o, at, sizeof(at));
		sp_v_where(c, s->task, h->phase, h->op, was, sizeof(was));
		if (h->hold == SP_SIM_SHARED && op->hold == SP_SIM_SHARED)
			return sp_v_fail(c, at, "read-locks \"%s\", which the task already holds for "
					 "reading (taken at %s%s): a recursive read lock, not simulated "
					 "(it deadlocks behind a waiting writer); expected an unlock of "
					 "\"%s\" before it",
					 lname, was, sp_v_when(s, h, p), lname);
		return sp_v_fail(c, at, "takes \"%s\", which the task already holds (taken at %s%s): "
				 "the task would wait for itself for ever; expected an unlock of "
				 "\"%s\" before it",
				 lname, was, sp_v_when(s, h, p), lname);
	}
	if (s->nheld == SP_SIM_MAX_HELD) {
		c->too_deep = true;
		if (!c->strict)
			return 1;
		sp_v_where(c, s->task, p, o, at, sizeof(at));
		return sp_v_fail(c, at, "takes \"%s\" while holding %u locks: the simulator holds "
				 "at most %u at once per thread (SP_SIM_MAX_HELD); expected at most %u "
				 "nested locks",
				 lname, s->nheld, SP_SIM_MAX_HELD, SP_SIM_MAX_HELD);
	}
	if (c->strict)
		for (i = 0; i < s->nheld; i++)
			sp_v_edge(c, s, &s->held[i], op->ref, op->hold, p, o);
	s->held[s->nheld++] = (struct sp_vheld){ .lock = op->ref, .hold = op->hold, .phase = p,
						  .op = o, .pass = s->pass, .iter = s->iter };
	return 0;
}

static int sp_v_task(struct sp_vctx *c, uint32_t ti)
{
	const struct sp_sim_task *t = &c->w->tasks[ti];
	struct sp_vwalk s = { .task = ti };
	uint32_t passes = t->loop == 1 ? 1 : 2;

	for (s.pass = 0; s.pass < passes; s.pass++) {
		for (uint32_t p = 0; p < t->nphases; p++) {
			uint32_t iters = t->phases[p].loop >= 2 ? 2 : 1;

			for (s.iter = 0; s.iter < iters; s.iter++) {
				for (uint32_t o = 0; o < t->phases[p].nops; o++) {
					int rc = sp_v_op(c, &s, p, o);

					if (rc)
						return rc > 0 ? 0 : rc;
				}
			}
		}
	}
	/* A program that ends (a task that loops for ever and still holds
	 * a lock after a pass took it again on the next: an error above). */
	if (c->strict && t->loop > 0)
		for (uint32_t i = 0; i < s.nheld; i++) {
			char at[256];

			if (sp_v_full(c))
				continue;
			sp_v_where(c, ti, s.held[i].phase, s.held[i].op, at, sizeof(at));
			sp_v_warn(c, "tasks.%s: its program ends holding \"%s\" (taken at %s): a lock "
				  "never unlocked, whoever waits for it waits for ever",
				  t->name, c->w->locks[s.held[i].lock].name, at);
		}
	return 0;
}

static int sp_v_run(struct sp_vctx *c)
{
	int rc = 0;

	for (uint32_t t = 0; t < c->w->ntasks && !rc; t++)
		rc = sp_v_task(c, t);
	if (!rc && c->strict)
		sp_v_inversions(c);
	if (!rc && c->dropped) {
		char msg[64];

		snprintf(msg, sizeof(msg), "%llu more warnings like these",
			 (unsigned long long)c->dropped);
		sp_v_keep(c, msg, true);
	}
	sp_vec_free(&c->edges);
	free(c->slot);
	if (!rc && c->nomem)
		rc = -ENOMEM;
	return rc;
}

int sp_sim_validate(struct sp_sim_workload *w, const char *file, struct json_object *root,
		    char *err, size_t errcap)
{
	struct sp_vctx c = { .w = w, .file = file, .root = root, .err = err, .errcap = errcap,
			     .strict = true };

	return sp_v_run(&c);
}

int sp_sim_check_depth(const struct sp_sim_workload *w)
{
	/* the lenient walk writes nothing into the workload */
	struct sp_vctx c = { .w = (struct sp_sim_workload *)w };
	int rc = sp_v_run(&c);

	return rc ? rc : c.too_deep ? -E2BIG : 0;
}

const char *sp_sim_workload_warning(const struct sp_sim_workload *w, uint32_t i)
{
	return i < w->nwarnings ? w->warnings[i] : NULL;
}
