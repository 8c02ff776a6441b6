// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The one table of what each overflow, limit and suspicion counter means
 * and what changes it (sp_cli_advice.h). A core counter's meaning is its
 * help text in SP_STATS_FIELDS, named through an enum that list makes, so
 * a counter renamed there breaks this build instead of this table.
 * In the texts, '@' stands for the default value the entry names (the
 * core's sp_config_default), so a changed default cannot leave a stale
 * number here.
 */
#include <string.h>

#include <superpass/core.h>

#include "sp_cli_advice.h"

enum sp_adv_stat {
#define SP_ADV_ENUM(name, kind, help) SP_ADV_##name,
	SP_STATS_FIELDS(SP_ADV_ENUM)
#undef SP_ADV_ENUM
	SP_ADV_HOST /* not a core counter: the entry has its own meaning */
};

static const char *const sp_adv_help[] = {
#define SP_ADV_HELP(name, kind, help) [SP_ADV_##name] = help,
	SP_STATS_FIELDS(SP_ADV_HELP)
#undef SP_ADV_HELP
};

/* The default an entry's '@' stands for. */
enum sp_adv_def {
	SP_DEF_NONE,
	SP_DEF_TASKS,
	SP_DEF_LOCKS,
	SP_DEF_GRANTS,
	SP_DEF_READERS,
	SP_DEF_WAITERS,
	SP_DEF_DEPTH,
	SP_DEF_BUDGET_US,
};

struct sp_adv {
	const char *name;
	enum sp_adv_stat stat;
	const char *meaning; /* SP_ADV_HOST only; else the help text */
	const char *effect;
	enum sp_adv_def def;
	const char *run;     /* what to change under the interposer; NULL: not its counter */
	const char *kmod;    /* what to change for superpass.ko; NULL: not its counter */
};

#define SP_ADV_CORE(n) #n, SP_ADV_##n, NULL

#define SP_NO_RUN_SETTING(field)                                                        \
	"no SUPERPASS_ setting or option: the interposer's " field " is @ (a program "   \
	"that calls sp_runtime_create sets core." field ")"

static const struct sp_adv sp_adv_table[] = {
	{ SP_ADV_CORE(deadlocks),
	  "the threads on that cycle wait for each other until a timed wait gives up",
	  SP_DEF_NONE,
	  "nothing to set: the program takes these locks in orders that can deadlock; "
	  "fix the order",
	  "nothing to set: kernel locks taken in orders that can deadlock (a lockdep "
	  "kernel names them)" },
	{ SP_ADV_CORE(depth_limited),
	  "blockers further down those chains got no fast track", SP_DEF_DEPTH,
	  "no SUPERPASS_ setting or option: the interposer's max_depth is @ (at most 16; a "
	  "program that calls sp_runtime_create sets core.max_depth)",
	  "load the module with depth=N (1..16, default @)" },
	{ SP_ADV_CORE(task_overflows),
	  "threads beyond it were not followed: not fast-tracked, their waits not seen",
	  SP_DEF_TASKS, SP_NO_RUN_SETTING("max_tasks"),
	  "no module parameter: the table has @ tasks; mark fewer threads" },
	{ SP_ADV_CORE(lock_overflows),
	  "locks beyond it were not followed: their holders got no fast track",
	  SP_DEF_LOCKS, SP_NO_RUN_SETTING("max_locks"),
	  "no module parameter: the table has @ locks" },
	{ SP_ADV_CORE(grant_overflows),
	  "a blocker of a critical thread got no fast track for that wait",
	  SP_DEF_GRANTS, SP_NO_RUN_SETTING("max_grants"),
	  "no module parameter: the table has @ grants" },
	{ SP_ADV_CORE(waiter_overflows),
	  "a new owner of such a lock is fast-tracked only when the tick walks again "
	  "(within about 1 ms), not at once",
	  SP_DEF_WAITERS, SP_NO_RUN_SETTING("waiters_per_lock"),
	  "no module parameter: @ waiters per lock are tracked" },
	{ SP_ADV_CORE(reader_overflows),
	  "those readers were not fast-tracked when a critical writer waited for them",
	  SP_DEF_READERS,
	  "raise K with --k N (SUPERPASS_READERS=N), 1..64, default @",
	  "load the module with readers_k=N (1..64, default @)" },
	{ SP_ADV_CORE(grants_refused),
	  "the blocker ran at its own priority meanwhile", SP_DEF_BUDGET_US,
	  "a longer budget per grant: --budget-us N (SUPERPASS_BUDGET_US=N, default @, "
	  "0 = none); the throttle (half of each 100 ms) has no setting",
	  "budget_ms=N and throttle_permille=N module parameters" },
	{ SP_ADV_CORE(expiries),
	  "the holder went back to its own priority, possibly still holding the lock",
	  SP_DEF_BUDGET_US,
	  "a longer budget: --budget-us N (SUPERPASS_BUDGET_US=N, default @, 0 = none)",
	  "load the module with budget_ms=N (0: none)" },
	{ SP_ADV_CORE(throttles),
	  "a holder fast-tracked beyond its share of a 100 ms window lost its fast tracks "
	  "until the window closed",
	  SP_DEF_NONE, "no setting: the interposer's share is half of each 100 ms",
	  "load the module with throttle_permille=N (1..1000)" },
	{ SP_ADV_CORE(actuator_errors),
	  "the host refused to queue those fast tracks: they were dropped", SP_DEF_NONE,
	  "nothing to set (report it with this summary)",
	  "nothing to set (report it with these statistics)" },
	{ SP_ADV_CORE(stale_events),
	  "normal in small numbers where owners come from lock words (a release after the "
	  "core took a newer owner); near the number of releases, events are being lost",
	  SP_DEF_NONE, "nothing to set", "nothing to set" },
	{ SP_ADV_CORE(bad_events), "a host sent events the core could not use",
	  SP_DEF_NONE, "nothing to set: a bug (report it with this summary)",
	  "nothing to set: a bug (report it with these statistics)" },
	/* The interposer's own. */
	{ "act_errors", SP_ADV_HOST, "sched_getattr/sched_setattr failures",
	  "those fast tracks or restores were not applied", SP_DEF_NONE,
	  "SUPERPASS_LOG=FILE logs each call and its error; the mode in force is the one "
	  "this summary names",
	  NULL },
	{ "wk_rescans", SP_ADV_HOST, "the worker's queue overflowed",
	  "each time every thread was reconciled instead (slower, nothing lost)",
	  SP_DEF_NONE, "nothing to set", NULL },
	/* The module's own. */
	{ "queue_overflows", SP_ADV_HOST, "the actuation queue was full",
	  "each time a rescan reconciled every task instead (slower, nothing lost)",
	  SP_DEF_NONE, NULL, "nothing to set" },
	{ "detect_waiter_full", SP_ADV_HOST, "the detector's waiter table was full",
	  "those waits were not reported: their holders got no fast track", SP_DEF_NONE,
	  NULL, "no module parameter: mark fewer threads" },
	{ "detect_fork_mark_errors", SP_ADV_HOST,
	  "children of marked processes the core could not take (task table full)",
	  "those children are not critical", SP_DEF_NONE, NULL,
	  "no module parameter: mark fewer threads" },
	{ "act_errors", SP_ADV_HOST, "sched_setattr_nocheck failures",
	  "those fast tracks or restores were not applied", SP_DEF_NONE, NULL,
	  "nothing to set (the kernel log may say why)" },
};

static uint64_t sp_adv_default(enum sp_adv_def def)
{
	struct sp_config cfg;

	sp_config_default(&cfg);
	switch (def) {
	case SP_DEF_TASKS:
		return cfg.max_tasks;
	case SP_DEF_LOCKS:
		return cfg.max_locks;
	case SP_DEF_GRANTS:
		return cfg.max_grants;
	case SP_DEF_READERS:
		return cfg.readers_per_lock;
	case SP_DEF_WAITERS:
		return cfg.waiters_per_lock;
	case SP_DEF_DEPTH:
		return cfg.max_depth;
	case SP_DEF_BUDGET_US:
		return cfg.budget_ns / 1000;
	case SP_DEF_NONE:
		break;
	}
	return 0;
}

/* @text with each '@' replaced by @value. */
static void sp_adv_put(FILE *out, const char *text, uint64_t value)
{
	for (const char *p = text; *p; p++) {
		if (*p == '@')
			fprintf(out, "%llu", (unsigned long long)value);
		else
			fputc(*p, out);
	}
}

unsigned int sp_cli_advice_print(FILE *out, const char *indent, enum sp_cli_host host,
				 sp_cli_advice_get_fn get, void *ctx)
{
	unsigned int n = 0;

	for (size_t i = 0; i < sizeof(sp_adv_table) / sizeof(sp_adv_table[0]); i++) {
		const struct sp_adv *a = &sp_adv_table[i];
		const char *change = host == SP_CLI_HOST_KMOD ? a->kmod : a->run;
		uint64_t v = 0, def = sp_adv_default(a->def);

		if (!change || !get(ctx, a->name, &v) || !v)
			continue;
		n++;
		if (!out)
			continue;
		fprintf(out, "%s%s %llu: %s; %s. Change: ", indent, a->name, (unsigned long long)v,
			a->stat == SP_ADV_HOST ? a->meaning : sp_adv_help[a->stat], a->effect);
		sp_adv_put(out, change, def);
		fputs(".\n", out);
	}
	return n;
}
