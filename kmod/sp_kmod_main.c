// SPDX-License-Identifier: GPL-2.0-only
/*
 * superpass.ko: module parameters, init and exit ordering.
 *
 * Init: self-test of the core (on the recording host), then the real core,
 * the worker kthread, the probes, /proc. Exit goes backwards so that nothing
 * can feed the core once it is torn down: /proc first (no new critical
 * tasks), then every probe (unregistering waits for running ones), then the
 * worker, then every boost it applied is put back, then the core.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/vmalloc.h>

#include <superpass/version.h>

#include "sp_kmod.h"
#include "sp_kmod_act.h"
#include "sp_kmod_detect.h"
#include "sp_kmod_proc.h"
#include "sp_kmod_readers.h"
#include "sp_kmod_unlock.h"
#include "sp_kmod_worker.h"

struct sp_core *sp_core;
unsigned long *sp_critical_map;
unsigned long *sp_boosted_map;
unsigned long *sp_marked_procs;
atomic_t sp_nr_critical = ATOMIC_INIT(0);

/* Shape of the core: its tables are sized once, so these are load-time. */
unsigned int sp_param_depth = 8;
module_param_named(depth, sp_param_depth, uint, 0444);
MODULE_PARM_DESC(depth, "chain walk depth bound (1..16)");

unsigned int sp_param_readers_k = 4;
module_param_named(readers_k, sp_param_readers_k, uint, 0444);
MODULE_PARM_DESC(readers_k, "K: readers tracked per rwsem (1..64)");

unsigned int sp_param_budget_ms = 20;
module_param_named(budget_ms, sp_param_budget_ms, uint, 0444);
MODULE_PARM_DESC(budget_ms, "per-grant time budget in ms (0: none)");

unsigned int sp_param_throttle_permille = 500;
module_param_named(throttle_permille, sp_param_throttle_permille, uint, 0444);
MODULE_PARM_DESC(throttle_permille, "max boosted share of a 100 ms window (1..1000)");

/* Runtime-settable through /proc/superpass/config as well. */
unsigned int sp_fifo_prio = 1;
module_param_named(fifo_prio, sp_fifo_prio, uint, 0444);
MODULE_PARM_DESC(fifo_prio, "SCHED_FIFO priority of a fast track (1..98)");

bool sp_param_readers = true;
module_param_named(readers, sp_param_readers, bool, 0444);
MODULE_PARM_DESC(readers, "hook down_read/up_read to track rwsem readers");
bool sp_readers_on = true;

static bool sp_param_unlock = true;
module_param_named(unlock_hook, sp_param_unlock, bool, 0444);
MODULE_PARM_DESC(unlock_hook, "hook __mutex_unlock_slowpath: see mutex releases and handoffs at once");

static bool sp_param_selftest = true;
module_param_named(selftest, sp_param_selftest, bool, 0444);
MODULE_PARM_DESC(selftest, "run the core self-test at load (fail the load if it fails)");

unsigned int sp_param_log_boosts;
module_param_named(log_boosts, sp_param_log_boosts, uint, 0444);
MODULE_PARM_DESC(log_boosts, "log the first N fast tracks applied (tid and comm)");

unsigned int sp_param_log_waits_ms;
module_param_named(log_waits_ms, sp_param_log_waits_ms, uint, 0444);
MODULE_PARM_DESC(log_waits_ms, "log what the detector knows of a reported wait once it is N ms old (0: never)");

static int sp_make_core(void)
{
	struct sp_config cfg;
	int ret;

	sp_config_default(&cfg);
	cfg.max_depth = sp_param_depth;
	cfg.readers_per_lock = sp_param_readers_k;
	cfg.budget_ns = (u64)sp_param_budget_ms * NSEC_PER_MSEC;
	cfg.throttle_permille = sp_param_throttle_permille;
	ret = sp_config_check(&cfg);
	if (ret) {
		pr_warn("superpass: bad parameters (depth=%u readers_k=%u budget_ms=%u throttle_permille=%u)\n",
			sp_param_depth, sp_param_readers_k, sp_param_budget_ms,
			sp_param_throttle_permille);
		return ret;
	}
	return sp_core_create(&cfg, &sp_worker_host_ops, NULL, &sp_core);
}

static void sp_free_maps(void)
{
	vfree(sp_critical_map);
	vfree(sp_boosted_map);
	vfree(sp_marked_procs);
	sp_critical_map = NULL;
	sp_boosted_map = NULL;
	sp_marked_procs = NULL;
}

static int __init sp_init(void)
{
	size_t map_bytes = BITS_TO_LONGS(SP_TID_LIMIT) * sizeof(unsigned long);
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

	sp_critical_map = vzalloc(map_bytes);
	sp_boosted_map = vzalloc(map_bytes);
	sp_marked_procs = vzalloc(map_bytes);
	if (!sp_critical_map || !sp_boosted_map || !sp_marked_procs) {
		ret = -ENOMEM;
		goto err_maps;
	}
	ret = sp_act_init();
	if (ret)
		goto err_maps;
	ret = sp_worker_init();
	if (ret)
		goto err_act;
	ret = sp_make_core();
	if (ret)
		goto err_queue;
	ret = sp_worker_start();
	if (ret)
		goto err_core;
	ret = sp_detect_init();
	if (ret)
		goto err_core;
	if (sp_param_readers) {
		ret = sp_readers_init();
		if (ret)
			goto err_detect;
	}
	/* Not fatal: without it releases are seen at the next tick. */
	if (sp_param_unlock)
		sp_unlock_init();
	ret = sp_proc_init();
	if (ret)
		goto err_unlock;
	pr_info("superpass: %s loaded (depth=%u K=%u budget=%ums fifo_prio=%u readers=%d unlock_hook=%d)\n",
		SUPERPASS_VERSION, sp_param_depth, sp_param_readers_k, sp_param_budget_ms,
		sp_fifo_prio, sp_param_readers, sp_unlock_registered());
	return 0;

err_unlock:
	sp_unlock_exit();
	if (sp_param_readers)
		sp_readers_exit();
err_detect:
	sp_detect_exit();
err_core:
	/* Also without a thread: the destroy's restores must not kick. */
	sp_worker_stop();
	sp_act_restore_all();
	sp_core_destroy(sp_core);
	sp_core = NULL;
err_queue:
	sp_worker_free();
err_act:
	sp_act_free();
err_maps:
	sp_free_maps();
	return ret;
}

static void __exit sp_exit(void)
{
	sp_proc_exit();
	sp_unlock_exit();
	if (sp_param_readers)
		sp_readers_exit();
	sp_detect_exit();
	/* Nothing but the worker calls the core now: stop it, then undo
	 * what it applied (the core's destroy below only queues restores). */
	sp_worker_stop();
	sp_act_restore_all();
	sp_core_destroy(sp_core);
	sp_core = NULL;
	sp_worker_free();
	sp_act_free();
	sp_free_maps();
	pr_info("superpass: unloaded, every fast track restored\n");
}

module_init(sp_init);
module_exit(sp_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("superpass project");
MODULE_DESCRIPTION("Fast-track the holders and readers of kernel mutexes and rwsems that block critical threads");
MODULE_VERSION(SUPERPASS_VERSION);
