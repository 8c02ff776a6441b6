// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The recorder's watchdog: a child holding one end of a socket pair whose
 * other end only the recorder holds. When the recorder dies, however it
 * dies (SIGKILL, the OOM killer, a crash), the kernel closes its end; the
 * watchdog reads end-of-file and removes the instance. A recorder that ends
 * normally sends one byte first, and the watchdog leaves.
 *
 * What it cannot do: act if it is killed itself, together with the recorder
 * (SIGKILL to every process of a cgroup or of `kill -9 -1`, the OOM killer
 * taking both); then the next `superpass record`, or `superpass record
 * --cleanup`, removes the instance. A reboot or power loss removes every
 * instance anyway (tracefs lives in memory).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record_instance.h"

#define SP_WATCHDOG_DONE 'q'

static void watch(int rfd, struct tracefs_instance *in, int lock_fd, const char *umount_dir,
		  pid_t recorder)
{
	char c = 0;
	ssize_t n;
	int rc;

	/* Out of the recorder's session and process group: a terminal's hangup
	 * or ^C, or a signal to the group, that kills the recorder leaves the
	 * watchdog to clean up after it. */
	setsid();
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_NAME, "sp-record-watch");
	do
		n = read(rfd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1 && c == SP_WATCHDOG_DONE)
		return;
	rc = sp_record_instance_remove(in);
	if (!rc)
		fprintf(stderr, "superpass record: the recorder (pid %d) died; its watchdog removed "
				"the tracefs instance %s/instances/%s\n",
			(int)recorder, tracefs_instance_get_trace_dir(in), tracefs_instance_get_name(in));
	else if (rc != -ENOENT)
		fprintf(stderr, "superpass record: the recorder (pid %d) died; its watchdog cannot "
				"remove the tracefs instance %s/instances/%s: %s (superpass record "
				"--cleanup removes it)\n",
			(int)recorder, tracefs_instance_get_trace_dir(in), tracefs_instance_get_name(in),
			strerror(-rc));
	if (lock_fd >= 0)
		close(lock_fd);
	/* as the recorder would have: busy (someone else's files open) is fine */
	if (umount_dir)
		umount2(umount_dir, 0);
}

int sp_record_watchdog_start(struct tracefs_instance *in, int lock_fd, const char *umount_dir,
			     pid_t *pid)
{
	pid_t recorder = getpid();
	int p[2], e;

	/* close-on-exec: the recorded command must not hold the recorder's end */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p))
		return -errno;
	*pid = fork();
	if (*pid < 0) {
		e = errno;
		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (*pid == 0) {
		close(p[1]);
		watch(p[0], in, lock_fd, umount_dir, recorder);
		_exit(0);
	}
	close(p[0]);
	return p[1];
}

void sp_record_watchdog_stop(int fd, pid_t pid)
{
	char c = SP_WATCHDOG_DONE;
	ssize_t n;

	if (fd < 0)
		return;
	/* no SIGPIPE if the watchdog is gone already */
	do
		n = send(fd, &c, 1, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	close(fd);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}
