// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The recorder's tracefs instance: its name, its owner's lock, its removal. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "record_instance.h"

int sp_record_proc_start(pid_t pid, unsigned long long *start)
{
	char path[64], buf[1024], *p, *end;
	ssize_t n;
	int fd, e;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return e == ESRCH ? -ENOENT : -e;
	buf[n] = '\0';
	/* comm (field 2) may hold spaces and parentheses: count from its end */
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	p++;
	for (int field = 2; field < 22; field++) {
		p = strchr(p, ' ');
		if (!p)
			return -EINVAL;
		p++;
	}
	errno = 0;
	*start = strtoull(p, &end, 10);
	if (errno || end == p)
		return -EINVAL;
	return 0;
}

int sp_record_instance_name(char *name, size_t size)
{
	unsigned long long start;
	int rc = sp_record_proc_start(getpid(), &start);

	if (rc)
		snprintf(name, size, SP_RECORD_PREFIX "%d", (int)getpid());
	else
		snprintf(name, size, SP_RECORD_PREFIX "%d-%llu", (int)getpid(), start);
	return rc;
}

int sp_record_instance_lock(struct tracefs_instance *in)
{
	char *dir = tracefs_instance_get_dir(in);
	int fd, e;

	if (!dir)
		return -ENOMEM;
	/* the directory, not a file in it: an open file of an instance keeps
	 * the kernel from removing it, an open directory does not */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	e = errno;
	tracefs_put_tracing_file(dir);
	if (fd < 0)
		return -e;
	while (flock(fd, LOCK_EX)) {
		if (errno == EINTR)
			continue;
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

int sp_record_instance_remove(struct tracefs_instance *in)
{
	/* rmdir disables the instance's events and frees its buffers. A reader
	 * with one of its files open (cat trace_pipe, trace-cmd) makes it fail
	 * with EBUSY until it closes it: the instance is stopped meanwhile, and
	 * tried again for up to 5 s. */
	for (int tries = 0;; tries++) {
		int e;

		if (!tracefs_instance_destroy(in))
			return 0;
		e = errno;
		if (e != EBUSY || tries >= 50)
			return -e;
		tracefs_trace_off(in);
		tracefs_event_disable(in, NULL, NULL);
		poll(NULL, 0, 100);
	}
}
