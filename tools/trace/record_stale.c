// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The tracefs instances that recorders which are gone left behind (killed
 * with their watchdog, or by an older superpass without one): found by
 * their name and their owner's lock, and removed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "record_instance.h"
#include "sp_vec.h"

/* The PID and start time in superpass-record-PID[-START]: 0, or -EINVAL
 * for a name that is not one of ours. */
static int parse_name(const char *name, pid_t *pid, unsigned long long *start, bool *has_start)
{
	const char *p = name + strlen(SP_RECORD_PREFIX);
	char *end;
	long v;

	if (*p < '1' || *p > '9')
		return -EINVAL;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || v <= 0 || v > 0x7fffffffL)
		return -EINVAL;
	*pid = (pid_t)v;
	*has_start = *end == '-';
	if (!*has_start)
		return *end ? -EINVAL : 0;
	p = end + 1;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	*start = strtoull(p, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

/* Whether the process that made the instance called @name is still there. */
static bool owner_alive(pid_t pid, unsigned long long start, bool has_start)
{
	unsigned long long now;
	char path[64], comm[32] = "";
	int rc = sp_record_proc_start(pid, &now);
	FILE *f;

	if (rc == -ENOENT)
		return false;
	if (has_start)
		/* unreadable: kept, rather than risk a live recorder's */
		return rc != 0 || now == start;
	/* superpass-record-PID, from a superpass older than the start time in
	 * the name: that PID is its recorder if it is a superpass at all */
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strcmp(comm, "superpass\n");
}

static int collect(const char *name, void *arg)
{
	struct sp_vec *names = arg;
	char **slot;

	if (strncmp(name, SP_RECORD_PREFIX, strlen(SP_RECORD_PREFIX)))
		return 0;
	slot = sp_vec_push(names, sizeof(*slot));
	if (!slot || !(*slot = strdup(name))) {
		if (slot)
			names->n--;
		return 1;
	}
	return 0;
}

/* Removes the instance @name if its owner is gone, saying so on @out: 1
 * removed, 0 kept (or already gone), -errno after saying on stderr why it
 * could not be removed. */
static int clean_one(const char *who, FILE *out, const char *name)
{
	struct tracefs_instance *in;
	unsigned long long start = 0;
	bool has_start;
	char *dir;
	pid_t pid;
	int fd, rc;

	if (parse_name(name, &pid, &start, &has_start))
		return 0;
	in = tracefs_instance_alloc(NULL, name);
	if (!in)
		return 0;
	dir = tracefs_instance_get_dir(in);
	fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	tracefs_put_tracing_file(dir);
	/* Its owner (or its watchdog) holds this lock while it lives, in any
	 * PID namespace; the name is checked too, for an owner that has not
	 * taken it yet and for older recorders, which took none. Held from
	 * here until removed, so two cleaners do not both act on it. */
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) || owner_alive(pid, start, has_start)) {
		rc = 0;
		goto out;
	}
	rc = sp_record_instance_remove(in);
	if (!rc) {
		fprintf(out, "%s: removed the tracefs instance %s/instances/%s left by a recorder "
				"that is gone (pid %d)\n",
			who, tracefs_instance_get_trace_dir(in), name, (int)pid);
		rc = 1;
	} else if (rc == -ENOENT) {
		rc = 0;
	} else {
		fprintf(stderr, "%s: cannot remove the tracefs instance %s/instances/%s left by a "
				"recorder that is gone (pid %d): %s\n",
			who, tracefs_instance_get_trace_dir(in), name, (int)pid, strerror(-rc));
	}
out:
	if (fd >= 0)
		close(fd);
	tracefs_instance_free(in);
	return rc;
}

int sp_record_cleanup_stale(const char *who, FILE *out)
{
	struct sp_vec names = SP_VEC_INIT;
	int removed = 0, err = 0;

	/* names first, removal after: no rmdir under the walk's readdir */
	errno = 0;
	switch (tracefs_instances_walk(collect, &names)) {
	case 0:
		break;
	case 1:
		err = -ENOMEM;
		break;
	default:
		err = errno ? -errno : -EIO;
		break;
	}
	if (err)
		fprintf(stderr, "%s: cannot list the tracefs instances in %s/instances: %s\n", who,
			tracefs_tracing_dir() ? tracefs_tracing_dir() : "tracefs", strerror(-err));
	for (size_t i = 0; i < names.n; i++) {
		char *name = ((char **)names.data)[i];
		int rc = clean_one(who, out, name);

		if (rc > 0)
			removed++;
		else if (rc < 0)
			err = rc;
		free(name);
	}
	sp_vec_free(&names);
	return err ? err : removed;
}
