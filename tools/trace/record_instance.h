/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The tracefs instance of `superpass record`, and what makes sure none
 * outlives its recorder.
 *
 * Its name says whose it is: superpass-record-PID-START, START being the
 * recorder's start time (/proc/PID/stat field 22), so that a reused PID is
 * not taken for the owner. The owner also holds a flock on the instance's
 * directory while it lives (the kernel drops it when the owner dies), which
 * shows it alive even to a recorder in another PID namespace.
 */
#ifndef SP_RECORD_INSTANCE_H
#define SP_RECORD_INSTANCE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include <tracefs.h>

#define SP_RECORD_PREFIX "superpass-record-"

/* @pid's start time in clock ticks since boot (/proc/PID/stat field 22):
 * 0, or -errno (-ENOENT: no such process). */
int sp_record_proc_start(pid_t pid, unsigned long long *start);

/* The instance name for this process, in @name. 0, or -errno when its start
 * time cannot be read (the name is then superpass-record-PID, checked as
 * older recorders' are). */
int sp_record_instance_name(char *name, size_t size);

/* Takes the owner's flock on @in's directory: the descriptor, to keep open
 * while the instance lives, or -errno. */
int sp_record_instance_lock(struct tracefs_instance *in);

/* Removes @in (stopped meanwhile if a reader still has one of its files
 * open, and tried again): 0, or -errno; -ENOENT when it was already gone. */
int sp_record_instance_remove(struct tracefs_instance *in);

/* Removes every instance a recorder that is gone left behind, each named on
 * @out with @who in front. The number removed, or -errno after saying on
 * stderr which one could not be removed (the others are still tried). */
int sp_record_cleanup_stale(const char *who, FILE *out);

/* Forks the watchdog: a process that waits on a socket from this one and,
 * if this one dies without saying it is done (even by SIGKILL), removes
 * @in, then closes @lock_fd and unmounts @umount_dir (NULL: nothing to
 * unmount). Returns this process's end of the socket and the watchdog in
 * @pid, or -errno. */
int sp_record_watchdog_start(struct tracefs_instance *in, int lock_fd, const char *umount_dir,
			     pid_t *pid);

/* The recorder is done with the instance (removed or left with a warning):
 * tells the watchdog, which then exits without touching it, and reaps it. */
void sp_record_watchdog_stop(int fd, pid_t pid);

#endif /* SP_RECORD_INSTANCE_H */
