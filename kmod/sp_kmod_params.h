/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The module's parameters (sp_kmod_params.c): the load-time ones, and
 * fifo_prio and reader tracking, which /proc/superpass/config changes too.
 */
#ifndef SP_KMOD_PARAMS_H
#define SP_KMOD_PARAMS_H

#include <linux/types.h>

extern unsigned int sp_param_depth;
extern unsigned int sp_param_readers_k;
extern unsigned int sp_param_budget_ms;
extern unsigned int sp_param_throttle_permille;
extern unsigned int sp_param_max_tasks;
extern bool sp_param_allow_kthreads;
extern unsigned int sp_fifo_prio;       /* runtime: /proc/superpass/config */
extern bool sp_readers_on;              /* runtime: /proc/superpass/config */
extern bool sp_param_readers;           /* load time: hooks registered at all */
extern bool sp_param_unlock_hook;
extern bool sp_param_futex;
extern bool sp_param_selftest;
extern unsigned int sp_param_log_boosts;
extern unsigned int sp_param_log_waits_ms;

#endif /* SP_KMOD_PARAMS_H */
