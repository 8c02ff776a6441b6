// SPDX-License-Identifier: GPL-2.0-only
/*
 * superpass.ko: init and exit ordering.
 *
 * The files, each calling only those listed below it:
 *   sp_kmod_proc.c            /proc/superpass: marks, statistics, config
 *   sp_kmod_worker.c          the worker kthread: drain, tick, arm the hooks
 *   sp_kmod_act.c             applying a fast track (sched_setattr_nocheck)
 *   sp_kmod_readers.c         kprobes on down_read/up_read/... (rwsem readers)
 *   sp_kmod_unlock.c          kprobe on __mutex_unlock_slowpath
 *   sp_kmod_futex.c           kretprobe on do_futex (futex words)
 *   sp_kmod_probes.c          lock and sched tracepoint probes
 *   sp_kmod_detect*.c         the detector: probe and hook events as core
 *                             events, over its tables (_tables.c)
 *   sp_kmod_mark.c            marking threads and processes critical
 *   sp_kmod_host.c            the core's host: clock, queue, worker wakeups
 *   sp_kmod_lock_layout.c     inside a kernel mutex or rw_semaphore
 *   sp_kmod_state.c, _params.c  the core, the tid filters, the parameters
 *   sp_kmod_selftest.c        the core's self-test on the recording host
 *
 * Init: self-test of the core (on the recording host), then the real core,
 * the worker kthread, the probes, /proc. Exit goes backwards so that nothing
 * can feed the core once it is torn down: /proc first (no new critical
 * tasks), then every probe (unregistering waits for running ones), then the
 * worker, then every boost it applied is put back, then the core.
 */
#include <linux/module.h>

#include <superpass/version.h>

#include "sp_kmod_act.h"
#include "sp_kmod_futex.h"
#include "sp_kmod_host.h"
#include "sp_kmod_params.h"
#include "sp_kmod_probes.h"
#include "sp_kmod_proc.h"
#include "sp_kmod_readers.h"
#include "sp_kmod_selftest.h"
#include "sp_kmod_state.h"
#include "sp_kmod_unlock.h"
#include "sp_kmod_worker.h"

static int sp_make_core(void)
{
	struct sp_config cfg;
	int ret;

	sp_config_default(&cfg);
	cfg.max_tasks = sp_param_max_tasks;
	cfg.max_depth = sp_param_depth;
	cfg.readers_per_lock = sp_param_readers_k;
	cfg.budget_ns = (u64)sp_param_budget_ms * NSEC_PER_MSEC;
	cfg.throttle_permille = sp_param_throttle_permille;
	ret = sp_config_check(&cfg);
	if (ret) {
		pr_warn("superpass: bad parameters (max_tasks=%u depth=%u readers_k=%u budget_ms=%u throttle_permille=%u)\n",
			sp_param_max_tasks, sp_param_depth, sp_param_readers_k, sp_param_budget_ms,
			sp_param_throttle_permille);
		return ret;
	}
	return sp_core_create(&cfg, &sp_kmod_host_ops, NULL, &sp_core);
}

static int __init sp_init(void)
{
	int ret;

	if (sp_fifo_prio < 1 || sp_fifo_prio > 98) {
		pr_warn("superpass: fifo_prio=%u out of range 1..98\n", sp_fifo_prio);
		return -EINVAL;
	}
	sp_readers_on = sp_param_readers;

	if (sp_param_selftest) {
		ret = sp_selftest_run();
		if (ret) {
			pr_err("superpass: self-test FAILED (%d); not loading\n", ret);
			return ret;
		}
		pr_info("superpass: self-test passed\n");
	}

	ret = sp_state_init();
	if (ret)
		return ret;
	ret = sp_act_init();
	if (ret)
		goto err_maps;
	ret = sp_host_init();
	if (ret)
		goto err_act;
	sp_worker_init();
	ret = sp_make_core();
	if (ret)
		goto err_queue;
	ret = sp_worker_start();
	if (ret)
		goto err_core;
	ret = sp_probes_init();
	if (ret)
		goto err_core;
	if (sp_param_readers) {
		ret = sp_readers_init();
		if (ret)
			goto err_probes;
	}
	/* Not fatal: without it releases are seen at the next tick. */
	if (sp_param_unlock_hook)
		sp_unlock_init();
	if (sp_param_futex) {
		ret = sp_futex_init();
		if (ret)
			goto err_unlock;
	}
	ret = sp_proc_init();
	if (ret)
		goto err_futex;
	pr_info("superpass: %s loaded (depth=%u K=%u budget=%ums fifo_prio=%u readers=%d unlock_hook=%d futex=%d)\n",
		SUPERPASS_VERSION, sp_param_depth, sp_param_readers_k, sp_param_budget_ms,
		sp_fifo_prio, sp_param_readers, sp_unlock_registered(), sp_futex_registered());
	return 0;

err_futex:
	sp_futex_exit();
err_unlock:
	sp_unlock_exit();
	if (sp_param_readers)
		sp_readers_exit();
err_probes:
	sp_probes_exit();
err_core:
	/* Also without a thread: the destroy's restores must not kick. */
	sp_worker_stop();
	sp_act_restore_all();
	sp_core_destroy(sp_core);
	sp_core = NULL;
err_queue:
	sp_host_free();
err_act:
	sp_act_free();
err_maps:
	sp_state_free();
	return ret;
}

static void __exit sp_exit(void)
{
	sp_proc_exit();
	sp_futex_exit();
	sp_unlock_exit();
	if (sp_param_readers)
		sp_readers_exit();
	sp_probes_exit();
	/* Nothing but the worker calls the core now: stop it, then undo
	 * what it applied (the core's destroy below only queues restores). */
	sp_worker_stop();
	sp_act_restore_all();
	sp_core_destroy(sp_core);
	sp_core = NULL;
	sp_host_free();
	sp_act_free();
	sp_state_free();
	pr_info("superpass: unloaded, every fast track restored\n");
}

module_init(sp_init);
module_exit(sp_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("superpass project");
MODULE_DESCRIPTION("Fast-track the holders and readers of kernel mutexes and rwsems that block critical threads");
MODULE_VERSION(SUPERPASS_VERSION);
