// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rt-app workload files (Debian's rt-app 1.0 JSON), read with json-c as
 * rt-app reads them, so that one file runs on the real kernel (`rt-app
 * FILE`) and in the simulator.
 *
 * The subset:
 *   top level  "tasks" (required), "global", "resources" (type "mutex" only)
 *   global     duration (s), default_policy, pi_enabled, and the keys rt-app
 *              reads but the simulator has no use for: calibration, logdir,
 *              log_basename, log_size, lock_pages, ftrace, gnuplot, io_device,
 *              mem_buffer_size, cumulative_slack
 *   task       instance, loop, policy (SCHED_OTHER, SCHED_FIFO, SCHED_RR),
 *              priority (nice for SCHED_OTHER), cpus, delay (us), phases, or
 *              the events themselves when there are no phases (then "loop"
 *              repeats them, and the task loops for ever, as rt-app does)
 *   phase      loop, then events in file order, matched by prefix as rt-app
 *              does: run, runtime, sleep (us), timer {ref, period, mode},
 *              lock, unlock (a pthread mutex), yield. A key repeated in one
 *              object needs an index suffix (run1, run2): json-c keeps one
 *              value per key, so a bare duplicate is rejected here (rt-app
 *              would silently run the last one only).
 * Extensions, under names rt-app ignores (it reads only the keys above):
 *   global.sp_cpus         CPUs to simulate (default SP_SIM_DEFAULT_CPUS)
 *   global.sp_duration_ms  the simulated duration in ms (over "duration", which
 *                          rt-app reads, in whole seconds)
 *   global.sp_base_slice_us  the fair class's base slice
 *   global.sp_sched_model  "classic" (default) or "linux" (include/superpass/sim.h:
 *                          a sleeper's negative lag, load balancing)
 *   global.sp_locks        {"name": KIND}: "mutex" (default), "rwlock"
 *                          (reader-preferring), "rwlock-writer", "kmutex",
 *                          "rwsem"
 *   global.sp_critical     ["task", ...]: critical tasks
 *   global.sp_waiter_boost true: under superpass a critical waiter in the
 *                          fair class applies the fast tracks its own wait
 *                          asks for, SP_WAITER_BOOST_NS after it blocks,
 *                          not through the worker (as the runtime's
 *                          sp_waiter.c does); the others go through the worker
 *   task.sp_critical       true: the task is critical
 *   phase events sp_rdlock / sp_wrlock NAME (an rwlock or rwsem),
 *              sp_unlock NAME (any kind), sp_setsched {policy, priority},
 *              sp_preempt true (a fair slice ends there: sp_sim_task_preempt)
 *   timer.sp_jitter        us: each period is period +- jitter (uniform)
 *   timer.sp_backlog       absolute mode: more periods behind than this
 *                          restarts the schedule from now (superpass bench's
 *                          background threads use 20)
 *   timer.sp_skip          true (absolute mode): a late thread skips the
 *                          periods it missed, its next one starts at the
 *                          first point of its grid after now (a frame loop
 *                          on vsync, as superpass bench's critical thread)
 * On the real kernel rt-app runs sp_* events as nothing, and kernel locks
 * as pthread mutexes: the file then means a simpler workload there.
 * Anything else is an error that names the file, the key and what was
 * expected.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "sp_sim_internal.h"
#include "sp_sim_names.h"

struct sp_parse {
	const char *file;
	char *err;
	size_t errcap;
	struct sp_sim_workload *w;
	struct json_object *locks;   /* global.sp_locks */
	int64_t default_policy;
};

__attribute__((format(printf, 3, 4)))
static int sp_fail(struct sp_parse *p, const char *key, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->err && p->errcap)
		snprintf(p->err, p->errcap, "%s: %s: %s", p->file, key, msg);
	return -EINVAL;
}

static const char *sp_shown(struct json_object *v)
{
	const char *s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);

	return s ? s : "?";
}

/* "a.b" in @dst, cut to fit (a key path in a message). */
static void sp_join(char *dst, size_t cap, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la > cap - 1)
		la = cap - 1;
	memcpy(dst, a, la);
	if (la + 1 < cap) {
		dst[la++] = '.';
		if (lb > cap - 1 - la)
			lb = cap - 1 - la;
		memcpy(dst + la, b, lb);
		la += lb;
	}
	dst[la] = 0;
}

/* ---- bare duplicate keys, which json-c folds into one ---- */
/* Each key is looked up in the set of its object's keys (one set per
 * depth, emptied when an object opens there): linear in the text. */
static int sp_dup_scan(struct sp_parse *p, const char *text)
{
	enum { MAXD = 64 };
	struct sp_sim_names keys[MAXD]; /* the keys met in the open object at each depth */
	bool obj[MAXD], want_key[MAXD];
	int d = -1, line = 1, rc = 0;

	memset(keys, 0, sizeof(keys));
	for (const char *c = text; *c && !rc; c++) {
		if (*c == '\n') {
			line++;
		} else if (*c == '{' || *c == '[') {
			if (++d >= MAXD)
				break;
			obj[d] = *c == '{';
			want_key[d] = obj[d];
			sp_sim_names_clear(&keys[d]);
		} else if (*c == '}' || *c == ']') {
			if (d >= 0)
				d--;
		} else if (*c == ',' && d >= 0) {
			want_key[d] = obj[d];
		} else if (*c == '"') {
			const char *s = ++c;

			while (*c && *c != '"')
				c += *c == '\\' && c[1] ? 2 : 1;
			if (!*c)
				break;
			if (d >= 0 && want_key[d]) {
				size_t len = (size_t)(c - s);

				want_key[d] = false;
				if (sp_sim_names_find(&keys[d], s, len, 0) >= 0) {
					char key[80];

					snprintf(key, sizeof(key), "line %d: \"%.*s\"", line,
						 (int)(len < 60 ? len : 60), s);
					rc = sp_fail(p, key,
						     "key repeated in one object: json-c (and so "
						     "rt-app) keeps only one value; number repeated "
						     "events (run1, run2, lock1, ...)");
					break;
				}
				if (sp_sim_names_add(&keys[d], s, len, 0, 0)) {
					rc = -ENOMEM;
					break;
				}
			}
		}
	}
	for (int i = 0; i < MAXD; i++)
		sp_sim_names_free(&keys[i]);
	return rc;
}

/* ---- values ---- */
static int sp_int(struct sp_parse *p, const char *key, struct json_object *v, int64_t lo,
		  int64_t hi, const char *what, int64_t *out)
{
	int64_t x;

	if (!json_object_is_type(v, json_type_int))
		return sp_fail(p, key, "expected %s (an integer in [%lld, %lld]), got %s", what,
			       (long long)lo, (long long)hi, sp_shown(v));
	x = json_object_get_int64(v);
	if (x < lo || x > hi)
		return sp_fail(p, key, "expected %s (an integer in [%lld, %lld]), got %lld", what,
			       (long long)lo, (long long)hi, (long long)x);
	*out = x;
	return 0;
}

static int sp_str(struct sp_parse *p, const char *key, struct json_object *v, const char *what,
		  const char **out)
{
	if (!json_object_is_type(v, json_type_string))
		return sp_fail(p, key, "expected %s (a string), got %s", what, sp_shown(v));
	*out = json_object_get_string(v);
	return 0;
}

static int sp_bool(struct sp_parse *p, const char *key, struct json_object *v, bool *out)
{
	if (!json_object_is_type(v, json_type_boolean))
		return sp_fail(p, key, "expected true or false, got %s", sp_shown(v));
	*out = json_object_get_boolean(v);
	return 0;
}

static int sp_policy(struct sp_parse *p, const char *key, struct json_object *v, int64_t *out)
{
	const char *s;
	int rc = sp_str(p, key, v, "a policy", &s);

	if (rc)
		return rc;
	if (!strcmp(s, "SCHED_OTHER"))
		*out = SP_SIM_OTHER;
	else if (!strcmp(s, "SCHED_FIFO"))
		*out = SP_SIM_FIFO;
	else if (!strcmp(s, "SCHED_RR"))
		*out = SP_SIM_RR;
	else
		return sp_fail(p, key, "expected SCHED_OTHER, SCHED_FIFO or SCHED_RR, got \"%s\"%s", s,
			       !strcmp(s, "SCHED_DEADLINE") ? " (SCHED_DEADLINE is not simulated)"
							    : "");
	return 0;
}

#define SP_US_MAX 2147483647ll /* rt-app keeps microseconds in an int */

static bool sp_prefix(const char *s, const char *pre)
{
	return !strncmp(s, pre, strlen(pre));
}

static const char *const sp_lock_kind_names[SP_SIM_LOCK_KIND_NR] = {
	"mutex", "rwlock", "rwlock-writer", "kmutex", "rwsem",
};

/* The lock @name, created on first use with its kind from sp_locks. */
static int sp_lock_ref(struct sp_parse *p, const char *key, const char *name)
{
	struct json_object *kv;
	int l = sp_sim_lock_find(p->w, name), kind = SP_SIM_UMUTEX;

	if (l >= 0)
		return l;
	if (!*name)
		return sp_fail(p, key, "expected a lock name, got \"\"");
	if (p->locks && json_object_object_get_ex(p->locks, name, &kv)) {
		const char *s = json_object_get_string(kv);

		for (kind = 0; kind < SP_SIM_LOCK_KIND_NR; kind++)
			if (!strcmp(s, sp_lock_kind_names[kind]))
				break;
	}
	l = sp_sim_lock_add(p->w, name, (enum sp_sim_lock_kind)kind);
	return l < 0 ? sp_fail(p, key, "cannot add lock \"%s\": %s", name, strerror(-l)) : l;
}

static int sp_timer_ev(struct sp_parse *p, const char *key, struct json_object *v, int task)
{
	const char *ref = "unknown", *mode = "relative";
	int64_t period = -1, jitter = 0, backlog = 0;
	bool skip = false;
	char sub[256];
	int rc;

	if (!json_object_is_type(v, json_type_object))
		return sp_fail(p, key, "expected a timer object {\"ref\", \"period\", \"mode\"}, got %s",
			       sp_shown(v));
	json_object_object_foreach(v, k, x) {
		sp_join(sub, sizeof(sub), key, k);
		if (!strcmp(k, "ref"))
			rc = sp_str(p, sub, x, "a timer name", &ref);
		else if (!strcmp(k, "period"))
			rc = sp_int(p, sub, x, 1, SP_US_MAX, "a period in microseconds", &period);
		else if (!strcmp(k, "mode")) {
			rc = sp_str(p, sub, x, "\"absolute\" or \"relative\"", &mode);
			if (!rc && strcmp(mode, "absolute") && strcmp(mode, "relative"))
				rc = sp_fail(p, sub, "expected \"absolute\" or \"relative\", got \"%s\"",
					     mode);
		} else if (!strcmp(k, "sp_jitter"))
			rc = sp_int(p, sub, x, 0, SP_US_MAX, "a jitter in microseconds", &jitter);
		else if (!strcmp(k, "sp_backlog"))
			rc = sp_int(p, sub, x, 0, 1 << 30, "a number of periods", &backlog);
		else if (!strcmp(k, "sp_skip"))
			rc = sp_bool(p, sub, x, &skip);
		else
			rc = sp_fail(p, sub, "unknown timer key (expected ref, period, mode, sp_jitter, "
				     "sp_backlog, sp_skip)");
		if (rc)
			return rc;
	}
	if (period < 0)
		return sp_fail(p, key, "timer without \"period\" (microseconds)");
	if (jitter > period)
		return sp_fail(p, key, "sp_jitter %lld is larger than the period %lld",
			       (long long)jitter, (long long)period);
	if (skip && (strcmp(mode, "absolute") || backlog || jitter))
		return sp_fail(p, key, "sp_skip needs \"mode\": \"absolute\", without sp_backlog "
			       "or sp_jitter");
	rc = sp_sim_task_timer(p->w, task, ref, (uint64_t)period * 1000, (uint64_t)jitter * 1000,
			       !strcmp(mode, "absolute"), (uint32_t)backlog, sp_prefix(ref, "unique"));
	if (rc >= 0 && skip)
		rc = sp_sim_timer_skip(p->w, task, rc);
	return rc < 0 ? sp_fail(p, key, "cannot add the timer: %s", strerror(-rc)) : 0;
}

static int sp_setsched_ev(struct sp_parse *p, const char *key, struct json_object *v, int task)
{
	int64_t pol = SP_SIM_OTHER, prio = 0;
	bool have_prio = false;
	char sub[256];
	int rc = 0;

	if (!json_object_is_type(v, json_type_object))
		return sp_fail(p, key, "expected {\"policy\": ..., \"priority\": ...}, got %s",
			       sp_shown(v));
	json_object_object_foreach(v, k, x) {
		sp_join(sub, sizeof(sub), key, k);
		if (!strcmp(k, "policy"))
			rc = sp_policy(p, sub, x, &pol);
		else if (!strcmp(k, "priority")) {
			rc = sp_int(p, sub, x, -20, 99, "a priority", &prio);
			have_prio = true;
		} else
			rc = sp_fail(p, sub, "unknown key (expected policy, priority)");
		if (rc)
			return rc;
	}
	if (!have_prio)
		prio = pol == SP_SIM_OTHER ? 0 : 10;
	rc = sp_sim_task_setsched(p->w, task, (enum sp_sim_sched)pol, (int)prio);
	return rc < 0 ? sp_fail(p, key, "priority %lld does not fit the policy (nice -20..19, "
				"RT 1..99)", (long long)prio) : 0;
}

/* One event key of a phase (or of a task without phases). 1 if @k is not
 * an event. */
static int sp_event(struct sp_parse *p, const char *path, const char *k, struct json_object *v,
		    int task)
{
	char key[256];
	const char *name;
	int64_t us;
	int rc, l;

	sp_join(key, sizeof(key), path, k);
	if (sp_prefix(k, "sp_rdlock") || sp_prefix(k, "sp_wrlock") || sp_prefix(k, "sp_unlock")) {
		bool rd = sp_prefix(k, "sp_rdlock"), un = sp_prefix(k, "sp_unlock");

		if ((rc = sp_str(p, key, v, "a lock name", &name)))
			return rc;
		if ((l = sp_lock_ref(p, key, name)) < 0)
			return l;
		if (un)
			return sp_sim_task_unlock(p->w, task, l) < 0 ? -ENOMEM : 0;
		if (p->w->locks[l].kind == SP_SIM_UMUTEX || p->w->locks[l].kind == SP_SIM_KMUTEX) {
			if (rd)
				return sp_fail(p, key, "\"%s\" is a %s: sp_rdlock wants an rwlock, "
					       "rwlock-writer or rwsem (global.sp_locks)", name,
					       sp_lock_kind_names[p->w->locks[l].kind]);
		}
		return sp_sim_task_lock(p->w, task, l, rd ? SP_SIM_SHARED : SP_SIM_EXCL) < 0
			       ? -ENOMEM : 0;
	}
	if (sp_prefix(k, "sp_setsched"))
		return sp_setsched_ev(p, key, v, task);
	if (sp_prefix(k, "sp_preempt")) {
		if (!json_object_is_type(v, json_type_boolean) || !json_object_get_boolean(v))
			return sp_fail(p, key, "expected true (a preemption point), got %s",
				       sp_shown(v));
		return sp_sim_task_preempt(p->w, task) < 0 ? -ENOMEM : 0;
	}
	if (sp_prefix(k, "run") || sp_prefix(k, "sleep")) {
		if ((rc = sp_int(p, key, v, 0, SP_US_MAX, "a duration in microseconds", &us)))
			return rc;
		if (sp_prefix(k, "sleep"))
			rc = sp_sim_task_sleep(p->w, task, (uint64_t)us * 1000);
		else if (sp_prefix(k, "runtime"))
			rc = sp_sim_task_runtime(p->w, task, (uint64_t)us * 1000);
		else
			rc = sp_sim_task_run(p->w, task, (uint64_t)us * 1000);
		return rc < 0 ? -ENOMEM : 0;
	}
	if (sp_prefix(k, "lock") || sp_prefix(k, "unlock")) {
		if ((rc = sp_str(p, key, v, "a mutex name", &name)))
			return rc;
		if ((l = sp_lock_ref(p, key, name)) < 0)
			return l;
		if (sp_prefix(k, "unlock"))
			return sp_sim_task_unlock(p->w, task, l) < 0 ? -ENOMEM : 0;
		if (p->w->locks[l].kind != SP_SIM_UMUTEX && p->w->locks[l].kind != SP_SIM_KMUTEX)
			return sp_fail(p, key, "\"%s\" is a %s: take it with sp_rdlock or sp_wrlock "
				       "(rt-app's lock is a mutex)", name,
				       sp_lock_kind_names[p->w->locks[l].kind]);
		return sp_sim_task_lock(p->w, task, l, SP_SIM_EXCL) < 0 ? -ENOMEM : 0;
	}
	if (sp_prefix(k, "timer"))
		return sp_timer_ev(p, key, v, task);
	if (sp_prefix(k, "yield"))
		return sp_sim_task_yield(p->w, task) < 0 ? -ENOMEM : 0;
	{
		static const char *const unsupported[] = { "mem", "iorun", "signal", "broad", "wait",
							   "sync", "barrier", "resume", "suspend" };

		for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
			if (sp_prefix(k, unsupported[i]))
				return sp_fail(p, key, "rt-app event \"%s\" is not simulated "
					       "(supported: run, runtime, sleep, timer, lock, unlock, "
					       "yield, sp_rdlock, sp_wrlock, sp_unlock, sp_setsched, "
					       "sp_preempt)",
					       unsupported[i]);
	}
	return 1;
}

static int sp_cpus(struct sp_parse *p, const char *key, struct json_object *v, uint64_t *mask)
{
	size_t n;

	if (!json_object_is_type(v, json_type_array))
		return sp_fail(p, key, "expected an array of CPU numbers, got %s", sp_shown(v));
	n = json_object_array_length(v);
	*mask = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t c;
		int rc = sp_int(p, key, json_object_array_get_idx(v, i), 0, 63, "a CPU number", &c);

		if (rc)
			return rc;
		*mask |= 1ull << c;
	}
	return 0;
}

/* The events and the loop of one phase object. */
static int sp_phase(struct sp_parse *p, const char *path, struct json_object *ph, int task,
		    bool task_level)
{
	int64_t loop = 1;
	struct json_object *lv;
	char key[256];
	int rc, nev = 0;

	if (json_object_object_get_ex(ph, "loop", &lv)) {
		snprintf(key, sizeof(key), "%s.loop", path);
		if ((rc = sp_int(p, key, lv, task_level ? -1 : 1, 1 << 30,
				 "a loop count", &loop)))
			return rc;
		if (loop == 0 || loop < -1)
			return sp_fail(p, key, "expected a loop count >= 1 (or -1), got %lld",
				       (long long)loop);
	}
	if (task_level) {
		/* rt-app: a task without phases repeats its events "loop" times
		 * per pass and passes for ever. */
		if ((rc = sp_sim_task_phase(p->w, task, loop < 0 ? 1 << 30 : loop)) < 0)
			return rc;
	} else if ((rc = sp_sim_task_phase(p->w, task, loop)) < 0) {
		return rc;
	}
	json_object_object_foreach(ph, k, v) {
		if (!strcmp(k, "loop"))
			continue;
		if (task_level && (!strcmp(k, "instance") || !strcmp(k, "policy") ||
				   !strcmp(k, "priority") || !strcmp(k, "cpus") ||
				   !strcmp(k, "delay") || !strcmp(k, "sp_critical")))
			continue;
		rc = sp_event(p, path, k, v, task);
		if (rc < 0)
			return rc;
		if (rc == 1) {
			sp_join(key, sizeof(key), path, k);
			if (!task_level && !strcmp(k, "cpus"))
				return sp_fail(p, key, "per-phase cpus are not simulated (give the "
					       "task's cpus)");
			return sp_fail(p, key, task_level
				       ? "unknown task key (expected instance, loop, policy, priority, "
					 "cpus, delay, phases, sp_critical or an event)"
				       : "unknown phase key (expected loop or an event: run, runtime, "
					 "sleep, timer, lock, unlock, yield, sp_rdlock, sp_wrlock, "
					 "sp_unlock, sp_setsched, sp_preempt)");
		}
		nev++;
	}
	if (!nev)
		return sp_fail(p, path, "a phase without events");
	return 0;
}

static int sp_task_obj(struct sp_parse *p, const char *name, struct json_object *obj)
{
	int64_t instance = 1, loop = -1, pol = p->default_policy, prio = 0, delay = 0;
	bool have_prio = false, crit = false, have_phases = false;
	uint64_t mask = 0;
	char path[160], key[256];
	int task, rc;

	snprintf(path, sizeof(path), "tasks.%s", name);
	if (!json_object_is_type(obj, json_type_object))
		return sp_fail(p, path, "expected a task object, got %s", sp_shown(obj));
	json_object_object_foreach(obj, k, v) {
		sp_join(key, sizeof(key), path, k);
		rc = 0;
		if (!strcmp(k, "instance"))
			rc = sp_int(p, key, v, 1, 4096, "an instance count", &instance);
		else if (!strcmp(k, "policy"))
			rc = sp_policy(p, key, v, &pol);
		else if (!strcmp(k, "priority")) {
			rc = sp_int(p, key, v, -20, 99, "a priority (nice, or RT 1..99)", &prio);
			have_prio = true;
		} else if (!strcmp(k, "cpus"))
			rc = sp_cpus(p, key, v, &mask);
		else if (!strcmp(k, "delay"))
			rc = sp_int(p, key, v, 0, SP_US_MAX, "a delay in microseconds", &delay);
		else if (!strcmp(k, "sp_critical"))
			rc = sp_bool(p, key, v, &crit);
		else if (!strcmp(k, "phases")) {
			have_phases = true;
			if (!json_object_is_type(v, json_type_object))
				rc = sp_fail(p, key, "expected an object of phases, got %s", sp_shown(v));
		} else if (!strcmp(k, "loop"))
			rc = sp_int(p, key, v, -1, 1 << 30, "a loop count", &loop);
		else if (sp_prefix(k, "dl-") || !strcmp(k, "period") || !strcmp(k, "deadline"))
			rc = sp_fail(p, key, "SCHED_DEADLINE parameters are not simulated");
		if (rc)
			return rc;
	}
	if (!have_prio)
		prio = pol == SP_SIM_OTHER ? 0 : 10; /* rt-app's DEFAULT_THREAD_PRIORITY */
	if (pol == SP_SIM_OTHER && (prio < -20 || prio > 19))
		return sp_fail(p, path, "priority %lld: SCHED_OTHER wants a nice value in "
			       "[-20, 19]", (long long)prio);
	if (pol != SP_SIM_OTHER && (prio < 1 || prio > 99))
		return sp_fail(p, path, "priority %lld: SCHED_FIFO/SCHED_RR want 1..99",
			       (long long)prio);
	task = sp_sim_task_add(p->w, name, (enum sp_sim_sched)pol, (int)prio, (uint32_t)instance);
	if (task < 0)
		return sp_fail(p, path, "cannot add the task: %s", strerror(-task));
	sp_sim_task_set_affinity(p->w, task, mask);
	sp_sim_task_set_delay(p->w, task, (uint64_t)delay * 1000);
	if (crit)
		sp_sim_task_set_critical(p->w, task, true);
	if (!have_phases)
		return sp_phase(p, path, obj, task, true);
	if (loop == 0 || loop < -1)
		return sp_fail(p, path, "loop: expected a count >= 1 or -1 (for ever), got %lld",
			       (long long)loop);
	sp_sim_task_set_loop(p->w, task, loop);
	{
		struct json_object *phases;
		int n = 0;

		json_object_object_get_ex(obj, "phases", &phases);
		json_object_object_foreach(phases, pk, pv) {
			snprintf(key, sizeof(key), "%s.phases.%s", path, pk);
			if (!json_object_is_type(pv, json_type_object))
				return sp_fail(p, key, "expected a phase object, got %s", sp_shown(pv));
			if ((rc = sp_phase(p, key, pv, task, false)))
				return rc;
			n++;
		}
		if (!n)
			return sp_fail(p, path, "phases: no phase");
	}
	return 0;
}

static int sp_global(struct sp_parse *p, struct json_object *g)
{
	char key[160];
	int64_t x, ms = 0;
	bool b;
	int rc;

	if (!json_object_is_type(g, json_type_object))
		return sp_fail(p, "global", "expected an object, got %s", sp_shown(g));
	json_object_object_foreach(g, k, v) {
		snprintf(key, sizeof(key), "global.%s", k);
		rc = 0;
		if (!strcmp(k, "duration")) {
			rc = sp_int(p, key, v, -1, 1000000, "a duration in seconds (-1: until --duration)",
				    &x);
			if (!rc && x > 0)
				p->w->duration_ns = (uint64_t)x * 1000000000ull;
		} else if (!strcmp(k, "default_policy")) {
			rc = sp_policy(p, key, v, &p->default_policy);
		} else if (!strcmp(k, "pi_enabled")) {
			rc = sp_bool(p, key, v, &b);
			p->w->pi_enabled = b;
		} else if (!strcmp(k, "lock_pages") || !strcmp(k, "ftrace") || !strcmp(k, "gnuplot") ||
			   !strcmp(k, "cumulative_slack")) {
			rc = sp_bool(p, key, v, &b);
		} else if (!strcmp(k, "calibration")) {
			if (!json_object_is_type(v, json_type_int) &&
			    !json_object_is_type(v, json_type_string))
				rc = sp_fail(p, key, "expected ns per loop or \"CPUn\", got %s",
					     sp_shown(v));
		} else if (!strcmp(k, "logdir") || !strcmp(k, "log_basename") ||
			   !strcmp(k, "io_device") || !strcmp(k, "log_size")) {
			if (!json_object_is_type(v, json_type_string) &&
			    !json_object_is_type(v, json_type_int))
				rc = sp_fail(p, key, "expected a string, got %s", sp_shown(v));
		} else if (!strcmp(k, "mem_buffer_size")) {
			rc = sp_int(p, key, v, 0, INT64_MAX, "a size in bytes", &x);
		} else if (!strcmp(k, "sp_cpus")) {
			rc = sp_int(p, key, v, 1, 64, "a CPU count", &x);
			if (!rc)
				p->w->cpus = (uint32_t)x;
		} else if (!strcmp(k, "sp_duration_ms")) {
			rc = sp_int(p, key, v, 1, 1000000000, "a duration in milliseconds", &ms);
		} else if (!strcmp(k, "sp_base_slice_us")) {
			rc = sp_int(p, key, v, 1, 1000000, "a slice in microseconds", &x);
			if (!rc)
				p->w->base_slice_ns = (uint64_t)x * 1000;
		} else if (!strcmp(k, "sp_waiter_boost")) {
			bool on;

			if (!(rc = sp_bool(p, key, v, &on)))
				p->w->waiter_boost = on;
		} else if (!strcmp(k, "sp_sched_model")) {
			const char *m;

			if ((rc = sp_str(p, key, v, "a scheduler model", &m)))
				return rc;
			if (strcmp(m, "classic") && strcmp(m, "linux"))
				return sp_fail(p, key, "expected \"classic\" or \"linux\", got \"%s\"", m);
			p->w->linux_model = !strcmp(m, "linux");
		} else if (!strcmp(k, "sp_locks")) {
			if (!json_object_is_type(v, json_type_object))
				return sp_fail(p, key, "expected {\"lock\": kind}, got %s", sp_shown(v));
			json_object_object_foreach(v, lk, lv) {
				char sub[256];
				const char *s;
				int i;

				sp_join(sub, sizeof(sub), key, lk);
				if ((rc = sp_str(p, sub, lv, "a lock kind", &s)))
					return rc;
				for (i = 0; i < SP_SIM_LOCK_KIND_NR && strcmp(s, sp_lock_kind_names[i]); i++)
					;
				if (i == SP_SIM_LOCK_KIND_NR)
					return sp_fail(p, sub, "expected mutex, rwlock, rwlock-writer, "
						       "kmutex or rwsem, got \"%s\"", s);
			}
			p->locks = v;
		} else if (!strcmp(k, "sp_critical")) {
			if (!json_object_is_type(v, json_type_array))
				rc = sp_fail(p, key, "expected an array of task names, got %s",
					     sp_shown(v));
		} else {
			rc = sp_fail(p, key, "unknown global key (expected duration, default_policy, "
				     "pi_enabled, calibration, logdir, log_basename, lock_pages, ftrace, "
				     "gnuplot, io_device, mem_buffer_size, cumulative_slack, sp_cpus, "
				     "sp_duration_ms, sp_base_slice_us, sp_sched_model, sp_waiter_boost, "
				     "sp_locks, sp_critical)");
		}
		if (rc)
			return rc;
	}
	if (ms) /* finer than rt-app's seconds, whichever key came first */
		p->w->duration_ns = (uint64_t)ms * 1000000ull;
	return 0;
}

static int sp_resources(struct sp_parse *p, struct json_object *r)
{
	char key[160];

	if (!json_object_is_type(r, json_type_object))
		return sp_fail(p, "resources", "expected an object, got %s", sp_shown(r));
	json_object_object_foreach(r, k, v) {
		struct json_object *t;
		const char *type = "mutex";

		snprintf(key, sizeof(key), "resources.%s", k);
		if (!json_object_is_type(v, json_type_object))
			return sp_fail(p, key, "expected {\"type\": ...}, got %s", sp_shown(v));
		if (json_object_object_get_ex(v, "type", &t))
			type = json_object_get_string(t);
		if (strcmp(type, "mutex") && strcmp(type, "timer"))
			return sp_fail(p, key, "resource type \"%s\" is not simulated (mutex, timer)",
				       type);
	}
	return 0;
}

static int sp_tasks_crit(struct sp_parse *p, struct json_object *g)
{
	struct json_object *crit;

	if (!g || !json_object_object_get_ex(g, "sp_critical", &crit))
		return 0;
	for (size_t i = 0; i < json_object_array_length(crit); i++) {
		struct json_object *v = json_object_array_get_idx(crit, i);
		const char *name;
		int t, rc;

		if ((rc = sp_str(p, "global.sp_critical", v, "a task name", &name)))
			return rc;
		t = sp_sim_task_find(p->w, name);
		if (t < 0)
			return sp_fail(p, "global.sp_critical", "no task named \"%s\"", name);
		sp_sim_task_set_critical(p->w, t, true);
	}
	return 0;
}

int sp_sim_workload_parse(const char *text, const char *name, struct sp_sim_workload **out,
			  char *err, size_t errcap)
{
	struct sp_parse p = { .file = name, .err = err, .errcap = errcap };
	struct json_tokener *tok;
	struct json_object *root, *tasks = NULL, *global = NULL, *res = NULL;
	char base[64];
	const char *slash, *dot;
	int rc, n = 0;

	*out = NULL;
	if (err && errcap)
		err[0] = 0;
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	root = json_tokener_parse_ex(tok, text, (int)strlen(text));
	if (!root || json_tokener_get_error(tok) != json_tokener_success ||
	    (size_t)json_tokener_get_parse_end(tok) < strlen(text)) {
		size_t off = json_tokener_get_parse_end(tok), line = 1, col = 1;
		enum json_tokener_error e = json_tokener_get_error(tok);
		char where[64];

		for (size_t i = 0; i < off && text[i]; i++, col++)
			if (text[i] == '\n') {
				line++;
				col = 0;
			}
		snprintf(where, sizeof(where), "line %zu, column %zu", line, col);
		if (root && e == json_tokener_success) {
			/* trailing text: allowed if it is only white space */
			const char *c = text + off;

			while (*c == ' ' || *c == '\n' || *c == '\t' || *c == '\r')
				c++;
			if (!*c)
				goto parsed;
			rc = sp_fail(&p, where, "expected the end of the file after the JSON object");
		} else {
			rc = sp_fail(&p, where, "not valid JSON: %s",
				     e == json_tokener_success || e == json_tokener_continue
					     ? "unexpected end of file" : json_tokener_error_desc(e));
		}
		json_object_put(root);
		json_tokener_free(tok);
		return rc;
	}
parsed:
	json_tokener_free(tok);
	if ((rc = sp_dup_scan(&p, text)))
		goto out_root;
	if (!json_object_is_type(root, json_type_object)) {
		rc = sp_fail(&p, "(top)", "expected a JSON object with \"tasks\", got %s",
			     sp_shown(root));
		goto out_root;
	}
	json_object_object_foreach(root, k, v) {
		if (!strcmp(k, "tasks"))
			tasks = v;
		else if (!strcmp(k, "global"))
			global = v;
		else if (!strcmp(k, "resources"))
			res = v;
		else {
			rc = sp_fail(&p, k, "unknown top-level key (expected tasks, global, resources)");
			goto out_root;
		}
	}
	if (!tasks || !json_object_is_type(tasks, json_type_object)) {
		rc = sp_fail(&p, "tasks", tasks ? "expected an object of tasks" : "missing: a workload "
			     "needs \"tasks\"");
		goto out_root;
	}
	slash = strrchr(name, '/');
	snprintf(base, sizeof(base), "%s", slash ? slash + 1 : name);
	dot = strrchr(base, '.');
	if (dot && !strcmp(dot, ".json"))
		base[dot - base] = 0;
	if ((rc = sp_sim_workload_create(base[0] ? base : "workload", &p.w)))
		goto out_root;
	p.default_policy = SP_SIM_OTHER;
	if (global && (rc = sp_global(&p, global)))
		goto out;
	if (res && (rc = sp_resources(&p, res)))
		goto out;
	json_object_object_foreach(tasks, tk, tv) {
		if ((rc = sp_task_obj(&p, tk, tv)))
			goto out;
		n++;
	}
	if (!n) {
		rc = sp_fail(&p, "tasks", "no task");
		goto out;
	}
	if ((rc = sp_tasks_crit(&p, global)))
		goto out;
	if ((rc = sp_sim_validate(p.w, name, root, err, errcap)))
		goto out;
	json_object_put(root);
	*out = p.w;
	return 0;
out:
	sp_sim_workload_destroy(p.w);
out_root:
	json_object_put(root);
	return rc;
}

int sp_sim_workload_load(const char *path, struct sp_sim_workload **out, char *err,
			 size_t errcap)
{
	FILE *f = fopen(path, "rb");
	char *text;
	long len;
	int rc;

	*out = NULL;
	if (!f) {
		rc = -errno;
		if (err && errcap)
			snprintf(err, errcap, "%s: cannot open: %s", path, strerror(errno));
		return rc;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || len > (64l << 20) ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		if (err && errcap)
			snprintf(err, errcap, "%s: cannot read (or larger than 64 MiB)", path);
		return -EINVAL;
	}
	text = malloc((size_t)len + 1);
	if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) {
		free(text);
		fclose(f);
		if (err && errcap)
			snprintf(err, errcap, "%s: cannot read", path);
		return -EIO;
	}
	fclose(f);
	text[len] = 0;
	if (strlen(text) != (size_t)len) {
		free(text);
		if (err && errcap)
			snprintf(err, errcap, "%s: a NUL byte in the file: not a JSON text", path);
		return -EINVAL;
	}
	rc = sp_sim_workload_parse(text, path, out, err, errcap);
	free(text);
	return rc;
}
