/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Detector: the lock tracepoints' events of interesting tasks as core
 * events (sp_kmod_detect.c). Called by the probes (sp_kmod_probes.c), with
 * preemption disabled, for current unless said otherwise.
 */
#ifndef SP_KMOD_DETECT_H
#define SP_KMOD_DETECT_H

#include <linux/sched.h>
#include <linux/types.h>

#include <superpass/core.h>

/* An interesting task begins (or resumes) waiting for @lock. */
void sp_detect_block(void *lock, enum sp_lock_kind kind, enum sp_hold hold);
/* Another task queues to read a watched rwsem @lock. */
void sp_detect_queued_reader(void *lock);
/* A wait for @lock ended: acquired if @ret is 0. Cheap for tasks whose
 * wait was never reported. */
void sp_detect_unblock(void *lock, int ret);
/* @p exits: its wait, if one was left, is dropped. */
void sp_detect_task_exit(struct task_struct *p);
/* The probes are gone: every wait is dropped, so that the worker's owner
 * re-check touches no lock that may be gone. */
void sp_detect_forget_waits(void);

#endif /* SP_KMOD_DETECT_H */
