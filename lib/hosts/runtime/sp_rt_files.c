// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The files the runtime writes: the statistics JSON (SUPERPASS_STATS,
 * sp_rt_write_stats_file) and the actuator log (SUPERPASS_LOG).
 *
 * A process under the interposer may run as root in a directory where
 * other users can create names (/tmp, and the documented
 * /tmp/superpass-%p.json is predictable). So no file is opened through a
 * symbolic link, none that belongs to another user (or is a hard link to
 * anything) is written, truncated or replaced, and new files are mode
 * 0600 (like perf.data: thread names and timings are the process's own
 * business):
 *  - statistics go to a new temporary file in the same directory
 *    (mkostemp: O_CREAT | O_EXCL, 0600) which is renamed over the target;
 *    rename replaces a name and never follows one, and an existing target
 *    must be a regular file of ours with a single link;
 *  - the log is appended to: O_NOFOLLOW | O_CLOEXEC, created 0600, and
 *    refused after the open unless it is a regular file of ours with a
 *    single link.
 * Every refusal names the path and the reason on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp_path.h"
#include "sp_rt.h"

int sp_rt_say_muted;

void sp_rt_say(const char *fmt, ...)
{
	char line[PATH_MAX + 256];
	va_list ap;
	int n;

	if (__atomic_load_n(&sp_rt_say_muted, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0) {
		ssize_t r = write(STDERR_FILENO, line,
				  (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
		(void)r;
	}
}

/* Why @st is not a file we may write or replace; NULL if it is. */
static const char *sp_rt_file_foreign(const struct stat *st, char *buf, size_t cap)
{
	if (S_ISLNK(st->st_mode))
		return "is a symbolic link";
	if (!S_ISREG(st->st_mode))
		return "is not a regular file";
	if (st->st_uid != geteuid()) {
		snprintf(buf, cap, "belongs to uid %u, not to this process (uid %u)",
			 (unsigned)st->st_uid, (unsigned)geteuid());
		return buf;
	}
	if (st->st_nlink != 1)
		return "has more than one hard link";
	return NULL;
}

/* An existing @path we would replace: refused (named on stderr) unless it
 * is ours. */
static int sp_rt_file_check_target(const char *what, const char *path)
{
	struct stat st;
	const char *why;
	char buf[96];

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	why = sp_rt_file_foreign(&st, buf, sizeof(buf));
	if (!why)
		return 0;
	sp_rt_say("superpass: not writing %s %s: it %s\n", what, path, why);
	return -EPERM;
}

int sp_rt_file_check_dir(const char *what, const char *path)
{
	char dir[PATH_MAX];
	int rc;

	sp_path_dir(dir, sizeof(dir), path);
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0) {
		rc = -errno;
		sp_rt_say("superpass: cannot write %s %s: directory %s: %s\n", what, path, dir,
			  strerror(-rc));
		return rc;
	}
	return sp_rt_file_check_target(what, path);
}

int sp_rt_file_open_log(const char *path)
{
	struct stat st;
	const char *why;
	char buf[96];
	int fd, rc;

	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
		  0600);
	if (fd < 0) {
		rc = -errno;
		sp_rt_say("superpass: cannot open log %s: %s\n", path,
			  rc == -ELOOP ? "it is a symbolic link" : strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st) != 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	why = sp_rt_file_foreign(&st, buf, sizeof(buf));
	if (why) {
		close(fd);
		sp_rt_say("superpass: not writing log %s: it %s\n", path, why);
		return -EPERM;
	}
	return fd;
}

int sp_rt_file_begin(const char *what, const char *path, char *tmp, size_t cap)
{
	int fd, rc;

	rc = sp_rt_file_check_target(what, path);
	if (rc)
		return rc;
	if ((size_t)snprintf(tmp, cap, "%s.XXXXXX", path) >= cap)
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC); /* O_CREAT | O_EXCL, mode 0600 */
	if (fd < 0)
		return -errno;
	return fd;
}

int sp_rt_file_commit(const char *tmp, const char *path, int rc)
{
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}
