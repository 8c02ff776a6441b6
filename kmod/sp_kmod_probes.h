/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The tracepoint probes (sp_kmod_probes.c): lock:contention_begin/end,
 * sched_process_exit and sched_process_fork, attached by name.
 */
#ifndef SP_KMOD_PROBES_H
#define SP_KMOD_PROBES_H

#include <linux/types.h>

struct sp_probe_stats {
	u64 exits;             /* exits of tasks the core knew */
	u64 fork_marks;        /* new threads of marked processes marked */
	u64 fork_mark_errors;  /* ... that the core could not take (table full) */
};

/* 0, or a negative errno with one log line (nothing left attached). */
int sp_probes_init(void);
/* Detaches every probe and waits for running ones; then drops every
 * wait the detector holds. */
void sp_probes_exit(void);
void sp_probes_get_stats(struct sp_probe_stats *out);

#endif /* SP_KMOD_PROBES_H */
