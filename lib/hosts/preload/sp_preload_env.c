// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The interposer's settings: every SUPERPASS_* variable is read here, and
 * only here, through secure_getenv().
 *
 * Secure-execution mode (AT_SECURE: a set-user-ID or set-group-ID program,
 * or one with file capabilities, started by a user who lacks them) means
 * the environment belongs to a less privileged user than the process. Such
 * a user must not choose where the process writes (SUPERPASS_STATS,
 * SUPERPASS_LOG would create or clobber files with its privileges) nor the
 * SCHED_FIFO priority and budget it hands out. So there every setting has
 * its default (secure_getenv returns NULL), no file is written, and one
 * line on stderr says so if a SUPERPASS_* variable was set. The runtime
 * stays in passthrough: every lock call goes straight to glibc, as in any
 * process whose SUPERPASS_CRITICAL names no thread.
 *
 * A bad value is named on stderr and the default kept: the program under
 * the interposer must run on either way. Named once per command, not once
 * per process: the process that named something sets SP_PL_TOLD to a hash
 * of its SUPERPASS_* settings, and a process it starts (a wrapper's
 * program, a shell's commands) that finds the same settings under the
 * same hash says nothing of them. Other settings are named again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "sp_preload.h"
#include "sp_rt.h"

extern char **environ;

/* The marker of settings named already (see above). */
#define SP_PL_TOLD "SUPERPASS_TOLD"

static const char *sp_pl_stats_tmpl; /* SUPERPASS_STATS, checked */
static int sp_pl_told;               /* a parent named these settings */
static unsigned sp_pl_said;          /* messages about them from this process */

/* A message about a setting: said and counted, unless told already. */
#define sp_pl_say(...)                         \
	do {                                   \
		if (!sp_pl_told) {             \
			sp_pl_said++;          \
			sp_rt_say(__VA_ARGS__); \
		}                              \
	} while (0)

int sp_pl_secure(void)
{
	return getauxval(AT_SECURE) != 0;
}

/* The one place a setting is read. */
static const char *sp_pl_getenv(const char *name)
{
	return secure_getenv(name);
}

/* Once per process, in secure-execution mode: whether anyone tried. */
static void sp_pl_secure_notice(void)
{
	for (char **e = environ; e && *e; e++) {
		if (!strncmp(*e, "SUPERPASS_", 10)) {
			sp_rt_say("superpass-preload: secure-execution mode (set-user-ID, "
				  "set-group-ID or file capabilities): SUPERPASS_* settings "
				  "ignored, no statistics or log written\n");
			return;
		}
	}
}

/* A numeric setting. A value that is not a number in [min, max] is named on
 * stderr and the default is kept. */
static unsigned long sp_pl_env_ul(const char *name, unsigned long def, unsigned long min,
				  unsigned long max)
{
	const char *v = sp_pl_getenv(name);
	char *end;
	unsigned long r;

	if (!v)
		return def;
	errno = 0;
	r = strtoul(v, &end, 10);
	if (!*v || errno || *end || v[0] == '-' || v[0] == '+' || v[0] == ' ' || r < min ||
	    r > max) {
		sp_pl_say("superpass-preload: ignoring %s=%.64s%s (expected an integer from %lu "
			  "to %lu); using %lu\n",
			  name, v, strlen(v) > 64 ? "..." : "", min, max, def);
		return def;
	}
	return r;
}

static void sp_pl_env_mode(struct sp_runtime_config *cfg)
{
	static const struct {
		const char *name;
		enum sp_act_mode mode;
	} modes[] = { { "auto", SP_ACT_AUTO },
		      { "fifo", SP_ACT_FIFO },
		      { "nice", SP_ACT_NICE },
		      { "observe", SP_ACT_OBSERVE } };
	const char *v = sp_pl_getenv("SUPERPASS_MODE");

	if (!v)
		return;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (!strcmp(v, modes[i].name)) {
			cfg->mode = modes[i].mode;
			return;
		}
	}
	sp_pl_say("superpass-preload: ignoring SUPERPASS_MODE=%.64s (expected auto, fifo, nice "
		  "or observe); using auto\n",
		  v);
}

static void sp_pl_env_critical(void)
{
	const char *v = sp_pl_getenv("SUPERPASS_CRITICAL");
	const char *p, *comma;
	size_t n;

	if (!v)
		return;
	/* Every name must be one a thread can have (1-15 bytes). */
	for (p = v;; p = comma + 1) {
		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		if (n == 0 || n > 15) {
			sp_pl_say("superpass-preload: SUPERPASS_CRITICAL: %s name '%.*s%s' (a thread "
				  "name has 1 to 15 bytes); it can match no thread\n",
				  n ? "too long a" : "an empty", (int)(n > 32 ? 32 : n), p,
				  n > 32 ? "..." : "");
		}
		if (!comma)
			break;
	}
	if (sp_rt_set_critical_names(v) < 0)
		sp_pl_say("superpass-preload: ignoring SUPERPASS_CRITICAL (%zu bytes, at most %d): "
			  "no thread is critical\n",
			  strlen(v), SP_RT_NAMES_MAX);
}

/* SUPERPASS_STATS: checked now, so that a bad path is named at start-up,
 * not only after the whole run. */
static void sp_pl_env_stats(void)
{
	const char *v = sp_pl_getenv("SUPERPASS_STATS");
	char path[PATH_MAX];

	if (!v)
		return;
	if (!*v) {
		sp_pl_say("superpass-preload: ignoring SUPERPASS_STATS= (empty)\n");
		return;
	}
	if (sp_pl_stats_path(path, sizeof(path), v) < 0) {
		sp_pl_say("superpass-preload: ignoring SUPERPASS_STATS (%zu bytes: the path "
			  "would exceed PATH_MAX); no statistics written\n",
			  strlen(v));
		return;
	}
	if (sp_rt_file_check_dir("statistics", path) < 0) {
		sp_pl_say("superpass-preload: no statistics will be written (SUPERPASS_STATS)\n");
		return;
	}
	sp_pl_stats_tmpl = v;
}

/* The SUPERPASS_* settings (not SP_PL_TOLD) as a hash in hex, whatever
 * their order in the environment. */
static void sp_pl_settings_hash_into(char *out, size_t cap)
{
	uint64_t sum = 0;

	for (char **e = environ; e && *e; e++) {
		uint64_t h = 14695981039346656037ull; /* FNV-1a */

		if (strncmp(*e, "SUPERPASS_", 10) || !strncmp(*e, SP_PL_TOLD "=", sizeof(SP_PL_TOLD)))
			continue;
		for (const char *p = *e; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
		sum += h;
	}
	snprintf(out, cap, "%016llx", (unsigned long long)sum);
}

/* Named something: the processes this one starts with the same settings
 * need not (at start-up, one thread: setenv is safe). */
static void sp_pl_tell_children(const char *hash)
{
	if (sp_pl_said && !sp_pl_told)
		setenv(SP_PL_TOLD, hash, 1);
}

void sp_rt_env_config(struct sp_runtime_config *cfg)
{
	static int once;
	static char hash[17];
	int first = !__atomic_exchange_n(&once, 1, __ATOMIC_RELAXED);
	const char *v;

	if (sp_pl_secure()) {
		if (first)
			sp_pl_secure_notice();
		sp_rt_off = 1; /* no critical thread can be named: passthrough */
		return;
	}
	/* Messages about bad values come once, from the first creation,
	 * and none if a parent process named them. */
	if (first) {
		sp_pl_settings_hash_into(hash, sizeof(hash));
		v = sp_pl_getenv(SP_PL_TOLD);
		sp_pl_told = v && !strcmp(v, hash);
	}
	/* the runtime's checks of the paths too */
	__atomic_store_n(&sp_rt_say_muted, sp_pl_told, __ATOMIC_RELAXED);
	cfg->core.readers_per_lock = (uint32_t)sp_pl_env_ul(
		"SUPERPASS_READERS", cfg->core.readers_per_lock, 1, SP_MAX_READERS_PER_LOCK);
	cfg->fifo_prio = (int)sp_pl_env_ul("SUPERPASS_PRIO", (unsigned long)cfg->fifo_prio, 1, 98);
	cfg->core.budget_ns = 1000ull * sp_pl_env_ul("SUPERPASS_BUDGET_US",
						     cfg->core.budget_ns / 1000, 0, 10000000);
	cfg->quiet = sp_pl_env_ul("SUPERPASS_QUIET", 0, 0, 1) != 0;
	cfg->log_path = sp_pl_getenv("SUPERPASS_LOG");
	if (cfg->log_path && !*cfg->log_path) {
		sp_pl_say("superpass-preload: ignoring SUPERPASS_LOG= (empty)\n");
		cfg->log_path = NULL;
	}
	/* checked here, where a told process says nothing of it, not only
	 * when the runtime opens it */
	if (cfg->log_path && sp_rt_file_check_dir("log", cfg->log_path) < 0) {
		sp_pl_said++;
		cfg->log_path = NULL;
	}
	sp_pl_env_mode(cfg);
	if (first) {
		sp_pl_env_critical();
		sp_pl_env_stats();
		sp_pl_tell_children(hash);
	}
	__atomic_store_n(&sp_rt_say_muted, 0, __ATOMIC_RELAXED);
	/*
	 * No critical thread named: nothing can ever be fast-tracked, so the
	 * locks stay plain glibc calls and no notice is printed. This is what
	 * every program gets under /etc/ld.so.preload unless its environment
	 * asks for more.
	 */
	if (!sp_rt_have_critical_names())
		sp_rt_off = 1;
}

const char *sp_pl_stats_template(void)
{
	return sp_pl_stats_tmpl;
}

/* Expands "%p" to the pid; -ENAMETOOLONG if it does not fit @cap. */
int sp_pl_stats_path(char *out, size_t cap, const char *tmpl)
{
	size_t n = 0;

	for (const char *p = tmpl; *p; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			int w = snprintf(out + n, cap - n, "%d", (int)getpid());

			if (w < 0 || (size_t)w >= cap - n)
				return -ENAMETOOLONG;
			n += (size_t)w;
			p++;
		} else {
			if (n + 1 >= cap)
				return -ENAMETOOLONG;
			out[n++] = *p;
		}
	}
	out[n] = 0;
	return 0;
}
