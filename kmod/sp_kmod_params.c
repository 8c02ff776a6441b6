// SPDX-License-Identifier: GPL-2.0-only
/* superpass.ko's module parameters (insmod superpass.ko NAME=VALUE). */
#include <linux/moduleparam.h>

#include "sp_kmod_params.h"

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

/* The core's default. Marked threads and every holder the detector sees
 * take an entry; a mark that does not fit is refused whole. */
unsigned int sp_param_max_tasks = 1024;
module_param_named(max_tasks, sp_param_max_tasks, uint, 0444);
MODULE_PARM_DESC(max_tasks, "task table capacity: threads the core knows at once (1..4194304)");

/* Off by default: a kernel thread or init marked by mistake gets FIFO time
 * for whatever it holds. The probe-cost measurement marks its kthreads. */
bool sp_param_allow_kthreads;
module_param_named(allow_kthreads, sp_param_allow_kthreads, bool, 0444);
MODULE_PARM_DESC(allow_kthreads, "allow marking kernel threads and init (pid 1) critical");

/* Runtime-settable through /proc/superpass/config as well. */
unsigned int sp_fifo_prio = 1;
module_param_named(fifo_prio, sp_fifo_prio, uint, 0444);
MODULE_PARM_DESC(fifo_prio, "SCHED_FIFO priority of a fast track (1..98)");

bool sp_param_readers = true;
module_param_named(readers, sp_param_readers, bool, 0444);
MODULE_PARM_DESC(readers, "hook down_read/up_read to track rwsem readers");
bool sp_readers_on = true;

bool sp_param_unlock_hook = true;
module_param_named(unlock_hook, sp_param_unlock_hook, bool, 0444);
MODULE_PARM_DESC(unlock_hook, "hook __mutex_unlock_slowpath: see mutex releases and handoffs at once");

bool sp_param_futex = true;
module_param_named(futex, sp_param_futex, bool, 0444);
MODULE_PARM_DESC(futex, "hook do_futex: futex waits and wakes of lock words that name no owner (GLib, Rust, Go, static programs)");

bool sp_param_selftest = true;
module_param_named(selftest, sp_param_selftest, bool, 0444);
MODULE_PARM_DESC(selftest, "run the core self-test at load (fail the load if it fails)");

unsigned int sp_param_log_boosts;
module_param_named(log_boosts, sp_param_log_boosts, uint, 0444);
MODULE_PARM_DESC(log_boosts, "log the first N fast tracks applied (tid and comm)");

unsigned int sp_param_log_waits_ms;
module_param_named(log_waits_ms, sp_param_log_waits_ms, uint, 0444);
MODULE_PARM_DESC(log_waits_ms, "log what the detector knows of a reported wait once it is N ms old (0: never)");
