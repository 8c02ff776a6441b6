// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The process-wide runtime: one core, one actuator, one worker.
 *
 * Created lazily by the first lock event (or explicitly with a config).
 * Fork: the child has only the forking thread and may inherit core locks
 * held by threads that no longer exist, so the child turns the runtime off
 * (locks keep their pthread behaviour, nothing is tracked or boosted) and
 * makes sure the forking thread's copy is not boosted. Process exit: every
 * boost is restored, new grants are refused and the worker is stopped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sp_rt.h"
#include "sp_os.h"

struct sp_core *sp_rt_core_ptr;
uint32_t sp_rt_gen;
int sp_rt_off;

static pthread_mutex_t sp_rt_init_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sp_runtime_config sp_rt_cfg;
static int sp_rt_atfork_done;

static const struct sp_host_ops sp_rt_ops = {
	.now_ns = sp_rt_now_ns,
	/* Both only tell the worker to look at the tid (sp_worker.c). */
	.fast_track = sp_wk_fast_track,
	.restore = sp_wk_restore,
};

void sp_runtime_config_default(struct sp_runtime_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	sp_config_default(&cfg->core);
	cfg->mode = SP_ACT_AUTO;
	cfg->fifo_prio = 1;
	cfg->tick_ns = 1000000u;
}

const struct sp_runtime_config *sp_rt_config(void)
{
	return &sp_rt_cfg;
}

static void sp_rt_atfork_child(void)
{
	sp_tid_t parent_tid = sp_rt_self_state.tid;

	sp_rt_self_state.tid = (sp_tid_t)sp_os_sys(SYS_gettid, 0, 0, 0, 0);
	sp_rt_self_state.gen = 0;
	sp_rt_off = 1;
	__atomic_store_n(&sp_rt_core_ptr, NULL, __ATOMIC_RELEASE);
	pthread_mutex_init(&sp_rt_init_lock, NULL);
	sp_act_atfork_child(parent_tid, sp_rt_self_state.tid);
	sp_wk_atfork_child();
	sp_rt_registry_reset();
	sp_where_reset();
}

void sp_rt_process_exit(void)
{
	sp_rt_enter();
	sp_act_set_exiting();
	sp_act_restore_all();
	/* Nothing left for the worker: it goes now rather than run, or exit
	 * idle unjoined, during the rest of exit (TSan calls that a leak). */
	sp_wk_stop();
	sp_rt_leave();
}

/* Call with sp_rt_init_lock held. */
static int sp_rt_create_locked(const struct sp_runtime_config *cfg)
{
	struct sp_core *core = NULL;
	int rc;

	if (sp_rt_off)
		return -ECANCELED;
	if (sp_rt_core_ptr)
		return -EALREADY;
	rc = sp_config_check(&cfg->core);
	if (rc)
		return rc;
	rc = sp_act_setup(cfg);
	if (rc)
		return rc;
	sp_rt_cfg = *cfg;
	sp_rt_cfg.log_path = NULL; /* not owned; the actuator opened it already */
	/* The worker (and its queue) first: the core notifies it as soon as
	 * it is published. */
	rc = sp_wk_start(cfg);
	if (rc)
		return rc;
	rc = sp_core_create(&cfg->core, &sp_rt_ops, NULL, &core);
	if (rc) {
		sp_wk_stop();
		return rc;
	}
	if (!sp_rt_atfork_done) {
		pthread_atfork(NULL, NULL, sp_rt_atfork_child);
		atexit(sp_rt_process_exit);
		sp_rt_atfork_done = 1;
	}
	__atomic_add_fetch(&sp_rt_gen, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&sp_rt_core_ptr, core, __ATOMIC_RELEASE);
	return 0;
}

int sp_runtime_create(const struct sp_runtime_config *cfg)
{
	struct sp_runtime_config def;
	int rc;

	if (!cfg) {
		sp_runtime_config_default(&def);
		cfg = &def;
	}
	sp_rt_enter();
	sp_rt_lock(&sp_rt_init_lock);
	rc = sp_rt_create_locked(cfg);
	sp_rt_unlock(&sp_rt_init_lock);
	sp_rt_leave();
	return rc;
}

/* The interposer overrides this to read its SUPERPASS_* environment. */
__attribute__((weak)) void sp_rt_env_config(struct sp_runtime_config *cfg)
{
	(void)cfg;
}

struct sp_core *sp_rt_core_slow(void)
{
	struct sp_runtime_config def;
	struct sp_core *core;

	if (sp_rt_off)
		return NULL;
	sp_runtime_config_default(&def);
	sp_rt_env_config(&def);
	if (sp_rt_off)
		return NULL; /* the settings ask for passthrough */
	sp_rt_enter();
	sp_rt_lock(&sp_rt_init_lock);
	if (!sp_rt_core_ptr && sp_rt_create_locked(&def) != 0)
		sp_rt_off = 1; /* cannot create: stay a plain pthread wrapper */
	core = sp_rt_core_ptr;
	sp_rt_unlock(&sp_rt_init_lock);
	sp_rt_leave();
	return core;
}

struct sp_core *sp_runtime_core(void)
{
	return sp_rt_core();
}

void sp_runtime_destroy(void)
{
	struct sp_core *core;

	sp_rt_enter();
	sp_rt_lock(&sp_rt_init_lock);
	core = sp_rt_core_ptr;
	if (core) {
		sp_wk_stop();
		__atomic_store_n(&sp_rt_core_ptr, NULL, __ATOMIC_RELEASE);
		/* The core's restores only reach the (stopped) worker's queue;
		 * the actuator undoes what it set itself. */
		sp_core_destroy(core);
		sp_act_restore_all();
	}
	sp_rt_unlock(&sp_rt_init_lock);
	sp_rt_leave();
}

enum sp_act_mode sp_runtime_mode(void)
{
	return sp_act_mode_now();
}

int sp_runtime_stats(struct sp_runtime_stats *out)
{
	struct sp_core *core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE);

	memset(out, 0, sizeof(*out));
	if (!core)
		return -ENODEV;
	sp_rt_enter();
	sp_core_stats(core, &out->core);
	sp_act_stats(out);
	sp_wk_stats(out);
	sp_rt_leave();
	return 0;
}
