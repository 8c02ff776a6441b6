// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Workloads: the builders of include/superpass/sim.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sp_sim_internal.h"
#include "sp_vec.h"

/* @p (of *@cap elements) with room for element @n, the new room zeroed;
 * NULL, with @p still valid, when memory runs out. */
static void *sp_sim_grow(void *p, size_t *cap, uint32_t n, size_t size)
{
	size_t was = *cap;

	if (sp_grow(&p, cap, size, (size_t)n + 1, 8))
		return NULL;
	memset((char *)p + was * size, 0, (*cap - was) * size);
	return p;
}

int sp_sim_workload_create(const char *name, struct sp_sim_workload **out)
{
	struct sp_sim_workload *w;

	*out = NULL;
	if (!name || !*name)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w || !(w->name = strdup(name))) {
		free(w);
		return -ENOMEM;
	}
	*out = w;
	return 0;
}

void sp_sim_workload_destroy(struct sp_sim_workload *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; i < w->ntasks; i++) {
		for (uint32_t j = 0; j < w->tasks[i].nphases; j++)
			free(w->tasks[i].phases[j].ops);
		free(w->tasks[i].phases);
		free(w->tasks[i].name);
	}
	for (uint32_t i = 0; i < w->nlocks; i++)
		free(w->locks[i].name);
	for (uint32_t i = 0; i < w->ntimers; i++)
		free(w->timers[i].name);
	for (uint32_t i = 0; i < w->nwarnings; i++)
		free(w->warnings[i]);
	free(w->warnings);
	free(w->tasks);
	free(w->locks);
	free(w->timers);
	sp_sim_names_free(&w->task_ix);
	sp_sim_names_free(&w->lock_ix);
	sp_sim_names_free(&w->timer_ix);
	free(w->name);
	free(w);
}

const char *sp_sim_workload_name(const struct sp_sim_workload *w)
{
	return w->name;
}

uint32_t sp_sim_workload_cpus(const struct sp_sim_workload *w)
{
	return w->cpus;
}

uint64_t sp_sim_workload_duration_ns(const struct sp_sim_workload *w)
{
	return w->duration_ns;
}

void sp_sim_workload_set_cpus(struct sp_sim_workload *w, uint32_t cpus)
{
	w->cpus = cpus;
}

void sp_sim_workload_set_duration_ns(struct sp_sim_workload *w, uint64_t ns)
{
	w->duration_ns = ns;
}

int sp_sim_lock_find(const struct sp_sim_workload *w, const char *name)
{
	return sp_sim_names_find(&w->lock_ix, name, strlen(name), 0);
}

const char *sp_sim_lock_name(const struct sp_sim_workload *w, int lock)
{
	return lock >= 0 && (uint32_t)lock < w->nlocks ? w->locks[lock].name : NULL;
}

int sp_sim_task_find(const struct sp_sim_workload *w, const char *name)
{
	return sp_sim_names_find(&w->task_ix, name, strlen(name), 0);
}

int sp_sim_lock_add(struct sp_sim_workload *w, const char *name, enum sp_sim_lock_kind kind)
{
	struct sp_sim_lockdef *l;

	if (!name || !*name || (unsigned)kind >= SP_SIM_LOCK_KIND_NR)
		return -EINVAL;
	if (sp_sim_lock_find(w, name) >= 0)
		return -EEXIST;
	l = sp_sim_grow(w->locks, &w->lcap, w->nlocks, sizeof(*l));
	if (!l)
		return -ENOMEM;
	w->locks = l;
	l = &w->locks[w->nlocks];
	if (!(l->name = strdup(name)))
		return -ENOMEM;
	if (sp_sim_names_add(&w->lock_ix, l->name, strlen(name), 0, (int)w->nlocks)) {
		free(l->name);
		return -ENOMEM;
	}
	l->kind = (uint8_t)kind;
	return (int)w->nlocks++;
}

int sp_sim_timer_ref(struct sp_sim_workload *w, const char *name, bool unique)
{
	int i = sp_sim_names_find(&w->timer_ix, name, strlen(name), unique);
	struct sp_sim_timerdef *t;

	if (i >= 0)
		return i;
	t = sp_sim_grow(w->timers, &w->tmcap, w->ntimers, sizeof(*t));
	if (!t)
		return -ENOMEM;
	w->timers = t;
	t = &w->timers[w->ntimers];
	if (!(t->name = strdup(name)))
		return -ENOMEM;
	if (sp_sim_names_add(&w->timer_ix, t->name, strlen(name), unique, (int)w->ntimers)) {
		free(t->name);
		return -ENOMEM;
	}
	t->unique = unique;
	return (int)w->ntimers++;
}

static bool sp_prio_ok(enum sp_sim_sched sched, int prio)
{
	if (sched == SP_SIM_OTHER)
		return prio >= -20 && prio <= 19;
	if (sched == SP_SIM_FIFO || sched == SP_SIM_RR)
		return prio >= 1 && prio <= 99;
	return false;
}

int sp_sim_task_add(struct sp_sim_workload *w, const char *name, enum sp_sim_sched sched,
		    int prio, uint32_t instances)
{
	struct sp_sim_task *t;

	if (!name || !*name || !instances || instances > 4096 || !sp_prio_ok(sched, prio))
		return -EINVAL;
	if (sp_sim_task_find(w, name) >= 0)
		return -EEXIST;
	t = sp_sim_grow(w->tasks, &w->tcap, w->ntasks, sizeof(*t));
	if (!t)
		return -ENOMEM;
	w->tasks = t;
	t = &w->tasks[w->ntasks];
	memset(t, 0, sizeof(*t));
	if (!(t->name = strdup(name)))
		return -ENOMEM;
	if (sp_sim_names_add(&w->task_ix, t->name, strlen(name), 0, (int)w->ntasks)) {
		free(t->name);
		return -ENOMEM;
	}
	t->instances = instances;
	t->sched = (uint8_t)sched;
	t->prio = prio;
	t->loop = -1;
	return (int)w->ntasks++;
}

static struct sp_sim_task *sp_task(struct sp_sim_workload *w, int task)
{
	return task >= 0 && (uint32_t)task < w->ntasks ? &w->tasks[task] : NULL;
}

int sp_sim_task_set_critical(struct sp_sim_workload *w, int task, bool critical)
{
	struct sp_sim_task *t = sp_task(w, task);

	if (!t)
		return -EINVAL;
	t->critical = critical;
	return 0;
}

int sp_sim_task_set_affinity(struct sp_sim_workload *w, int task, uint64_t mask)
{
	struct sp_sim_task *t = sp_task(w, task);

	if (!t)
		return -EINVAL;
	t->affinity = mask;
	return 0;
}

int sp_sim_task_set_delay(struct sp_sim_workload *w, int task, uint64_t ns)
{
	struct sp_sim_task *t = sp_task(w, task);

	if (!t)
		return -EINVAL;
	t->delay_ns = ns;
	return 0;
}

int sp_sim_task_set_loop(struct sp_sim_workload *w, int task, int64_t loop)
{
	struct sp_sim_task *t = sp_task(w, task);

	if (!t || loop == 0 || loop < -1)
		return -EINVAL;
	t->loop = loop;
	return 0;
}

static int sp_phase_new(struct sp_sim_task *t, int64_t loop)
{
	struct sp_sim_phase *p = sp_sim_grow(t->phases, &t->cap, t->nphases, sizeof(*p));

	if (!p)
		return -ENOMEM;
	t->phases = p;
	p = &t->phases[t->nphases];
	memset(p, 0, sizeof(*p));
	p->loop = loop;
	return (int)t->nphases++;
}

int sp_sim_task_phase(struct sp_sim_workload *w, int task, int64_t loop)
{
	struct sp_sim_task *t = sp_task(w, task);

	if (!t || loop < 1)
		return -EINVAL;
	/* The implicit first phase is replaced if it is still empty. */
	if (!t->explicit_phase && t->nphases == 1 && t->phases[0].nops == 0) {
		t->phases[0].loop = loop;
		t->explicit_phase = true;
		return 0;
	}
	t->explicit_phase = true;
	return sp_phase_new(t, loop);
}

static int sp_op_add(struct sp_sim_workload *w, int task, const struct sp_sim_op *op)
{
	struct sp_sim_task *t = sp_task(w, task);
	struct sp_sim_phase *p;
	struct sp_sim_op *o;
	int rc;

	if (!t)
		return -EINVAL;
	if (!t->nphases && (rc = sp_phase_new(t, 1)) < 0)
		return rc;
	p = &t->phases[t->nphases - 1];
	o = sp_sim_grow(p->ops, &p->cap, p->nops, sizeof(*o));
	if (!o)
		return -ENOMEM;
	p->ops = o;
	p->ops[p->nops] = *op;
	return (int)p->nops++;
}

int sp_sim_task_run(struct sp_sim_workload *w, int task, uint64_t ns)
{
	return sp_op_add(w, task, &(struct sp_sim_op){ .type = SP_OP_RUN, .ns = ns });
}

int sp_sim_task_runtime(struct sp_sim_workload *w, int task, uint64_t ns)
{
	return sp_op_add(w, task, &(struct sp_sim_op){ .type = SP_OP_RUNTIME, .ns = ns });
}

int sp_sim_task_sleep(struct sp_sim_workload *w, int task, uint64_t ns)
{
	return sp_op_add(w, task, &(struct sp_sim_op){ .type = SP_OP_SLEEP, .ns = ns });
}

int sp_sim_task_yield(struct sp_sim_workload *w, int task)
{
	return sp_op_add(w, task, &(struct sp_sim_op){ .type = SP_OP_YIELD });
}

int sp_sim_task_preempt(struct sp_sim_workload *w, int task)
{
	return sp_op_add(w, task, &(struct sp_sim_op){ .type = SP_OP_PREEMPT });
}

int sp_sim_task_timer(struct sp_sim_workload *w, int task, const char *ref, uint64_t period_ns,
		      uint64_t jitter_ns, bool absolute, uint32_t backlog, bool unique)
{
	int r;

	if (!ref || !*ref || !period_ns || jitter_ns > period_ns)
		return -EINVAL;
	r = sp_sim_timer_ref(w, ref, unique);
	if (r < 0)
		return r;
	return sp_op_add(w, task, &(struct sp_sim_op){ .type = SP_OP_TIMER, .ref = r,
						       .ns = period_ns, .jitter = jitter_ns,
						       .absolute = absolute, .backlog = backlog });
}

int sp_sim_timer_skip(struct sp_sim_workload *w, int task, int op)
{
	struct sp_sim_task *t = sp_task(w, task);
	struct sp_sim_phase *p;

	if (!t || !t->nphases || op < 0)
		return -EINVAL;
	p = &t->phases[t->nphases - 1];
	if ((uint32_t)op >= p->nops || p->ops[op].type != SP_OP_TIMER)
		return -EINVAL;
	p->ops[op].absolute = SP_TM_SKIP;
	return 0;
}

int sp_sim_task_lock(struct sp_sim_workload *w, int task, int lock, enum sp_sim_hold hold)
{
	uint8_t kind;

	if (lock < 0 || (uint32_t)lock >= w->nlocks || (hold != SP_SIM_EXCL && hold != SP_SIM_SHARED))
		return -EINVAL;
	kind = w->locks[lock].kind;
	if (hold == SP_SIM_SHARED && (kind == SP_SIM_UMUTEX || kind == SP_SIM_KMUTEX))
		return -EINVAL;
	return sp_op_add(w, task, &(struct sp_sim_op){ .type = SP_OP_LOCK, .ref = lock,
						       .hold = (uint8_t)hold });
}

int sp_sim_task_unlock(struct sp_sim_workload *w, int task, int lock)
{
	if (lock < 0 || (uint32_t)lock >= w->nlocks)
		return -EINVAL;
	return sp_op_add(w, task, &(struct sp_sim_op){ .type = SP_OP_UNLOCK, .ref = lock });
}

int sp_sim_task_setsched(struct sp_sim_workload *w, int task, enum sp_sim_sched sched, int prio)
{
	if (!sp_prio_ok(sched, prio))
		return -EINVAL;
	return sp_op_add(w, task, &(struct sp_sim_op){ .type = SP_OP_SETSCHED,
						       .sched = (uint8_t)sched, .prio = prio });
}

bool sp_sim_task_takes_locks(const struct sp_sim_task *t)
{
	for (uint32_t i = 0; i < t->nphases; i++)
		for (uint32_t j = 0; j < t->phases[i].nops; j++)
			if (t->phases[i].ops[j].type == SP_OP_LOCK)
				return true;
	return false;
}

/* A program of CPU work only (run, runtime): a thread that, once started,
 * never enters the kernel of its own accord. */
bool sp_sim_task_only_runs(const struct sp_sim_task *t)
{
	for (uint32_t i = 0; i < t->nphases; i++)
		for (uint32_t j = 0; j < t->phases[i].nops; j++)
			if (t->phases[i].ops[j].type != SP_OP_RUN &&
			    t->phases[i].ops[j].type != SP_OP_RUNTIME)
				return false;
	return true;
}

static char *sp_dup(const char *s, int *err)
{
	char *d = strdup(s);

	if (!d)
		*err = -ENOMEM;
	return d;
}

int sp_sim_workload_clone(const struct sp_sim_workload *w, struct sp_sim_workload **out)
{
	struct sp_sim_workload *c;
	int err = 0;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	*c = *w;
	c->warnings = NULL; /* told once, for the file */
	c->nwarnings = 0;
	/* the indexes point at @w's names: the copy builds its own */
	memset(&c->task_ix, 0, sizeof(c->task_ix));
	memset(&c->lock_ix, 0, sizeof(c->lock_ix));
	memset(&c->timer_ix, 0, sizeof(c->timer_ix));
	c->name = sp_dup(w->name, &err);
	c->tasks = calloc(w->tcap ? w->tcap : 1, sizeof(*c->tasks));
	c->locks = calloc(w->lcap ? w->lcap : 1, sizeof(*c->locks));
	c->timers = calloc(w->tmcap ? w->tmcap : 1, sizeof(*c->timers));
	if (!c->tasks || !c->locks || !c->timers) {
		c->ntasks = c->nlocks = c->ntimers = 0;
		sp_sim_workload_destroy(c);
		return -ENOMEM;
	}
	c->tcap = w->tcap ? w->tcap : 1;
	c->lcap = w->lcap ? w->lcap : 1;
	c->tmcap = w->tmcap ? w->tmcap : 1;
	for (uint32_t i = 0; i < w->nlocks; i++) {
		c->locks[i] = w->locks[i];
		c->locks[i].name = sp_dup(w->locks[i].name, &err);
	}
	for (uint32_t i = 0; i < w->ntimers; i++) {
		c->timers[i] = w->timers[i];
		c->timers[i].name = sp_dup(w->timers[i].name, &err);
	}
	for (uint32_t i = 0; i < w->ntasks; i++) {
		const struct sp_sim_task *s = &w->tasks[i];
		struct sp_sim_task *d = &c->tasks[i];

		*d = *s;
		d->name = sp_dup(s->name, &err);
		d->phases = calloc(s->cap ? s->cap : 1, sizeof(*d->phases));
		if (!d->phases) {
			d->nphases = 0;
			err = -ENOMEM;
			continue;
		}
		d->cap = s->cap ? s->cap : 1;
		for (uint32_t j = 0; j < s->nphases; j++) {
			d->phases[j] = s->phases[j];
			d->phases[j].ops = calloc(s->phases[j].cap ? s->phases[j].cap : 1,
						  sizeof(struct sp_sim_op));
			if (!d->phases[j].ops) {
				d->phases[j].nops = 0;
				err = -ENOMEM;
				continue;
			}
			d->phases[j].cap = s->phases[j].cap ? s->phases[j].cap : 1;
			memcpy(d->phases[j].ops, s->phases[j].ops,
			       s->phases[j].nops * sizeof(struct sp_sim_op));
		}
	}
	if (!err)
		err = sp_sim_workload_index(c);
	if (err) {
		sp_sim_workload_destroy(c);
		return err;
	}
	*out = c;
	return 0;
}

int sp_sim_workload_vary(const struct sp_sim_workload *w, const char *param, int64_t value,
			 struct sp_sim_workload **out)
{
	enum { V_HOLDERS, V_NICE, V_CS } what;
	struct sp_sim_workload *c;
	int rc;

	*out = NULL;
	if (!strcmp(param, "holders") && value >= 1 && value <= 4096)
		what = V_HOLDERS;
	else if (!strcmp(param, "nice") && value >= -20 && value <= 19)
		what = V_NICE;
	else if (!strcmp(param, "cs_us") && value >= 0 && value <= 1000000000)
		what = V_CS;
	else
		return -EINVAL;
	rc = sp_sim_workload_clone(w, &c);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < c->ntasks; i++) {
		struct sp_sim_task *t = &c->tasks[i];

		if (t->critical || !sp_sim_task_takes_locks(t))
			continue;
		if (what == V_HOLDERS)
			t->instances = (uint32_t)value;
		else if (what == V_NICE && t->sched == SP_SIM_OTHER)
			t->prio = (int32_t)value;
		else if (what == V_CS)
			for (uint32_t j = 0; j < t->nphases; j++) {
				int depth = 0;

				for (uint32_t k = 0; k < t->phases[j].nops; k++) {
					struct sp_sim_op *op = &t->phases[j].ops[k];

					if (op->type == SP_OP_LOCK)
						depth++;
					else if (op->type == SP_OP_UNLOCK && depth > 0)
						depth--;
					else if (depth && (op->type == SP_OP_RUN ||
							   op->type == SP_OP_RUNTIME))
						op->ns = (uint64_t)value * 1000;
				}
			}
	}
	*out = c;
	return 0;
}

bool sp_sim_workload_has_rw(const struct sp_sim_workload *w)
{
	for (uint32_t i = 0; i < w->nlocks; i++)
		if (w->locks[i].kind == SP_SIM_URWLOCK || w->locks[i].kind == SP_SIM_URWLOCK_W ||
		    w->locks[i].kind == SP_SIM_RWSEM)
			return true;
	return false;
}
