// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * `superpass kmod mark|unmark TID|PID...` and `superpass kmod list`.
 * /proc/superpass/critical takes "TID\n" or "-TID\n", one line per write;
 * a pid (thread-group leader) stands for all its threads, and for the
 * threads it creates later.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmod.h"
#include "sp_cli_parse.h"

/* A tid as the kernel numbers them: 1..INT_MAX, digits only. */
static bool kmod_parse_tid(const char *s, long *out)
{
	int64_t v;

	if (!sp_cli_parse_i64(s, 1, INT_MAX, &v))
		return false;
	*out = (long)v;
	return true;
}

/* Reads a small /proc/TID file's first line into @buf; false if gone. */
static bool kmod_task_line(long tid, const char *file, const char *key, char *buf, size_t cap)
{
	char path[64], line[256];
	size_t klen = key ? strlen(key) : 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/%s", tid, file);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *v = line;

		if (key) {
			if (strncmp(line, key, klen))
				continue;
			v = line + klen;
			v += strspn(v, " \t");
		}
		v[strcspn(v, "\n")] = '\0';
		/* Truncating a comm or a number that long is fine. */
		{
			size_t n = strnlen(v, cap - 1);

			memcpy(buf, v, n);
			buf[n] = '\0';
		}
		found = true;
		break;
	}
	fclose(f);
	return found;
}

/* PF_KTHREAD in /proc/TID/stat's flags (include/linux/sched.h). */
#define KMOD_PF_KTHREAD 0x00200000ul

/* What kind of task the module refuses @tid as, or NULL: kernel threads
 * and init, unless it was loaded with allow_kthreads=1. */
static const char *kmod_refused_kind(long tid)
{
	char line[512], pid[32] = "";
	unsigned long flags = 0;
	char *p;

	if (!kmod_task_line(tid, "stat", NULL, line, sizeof(line)))
		return NULL;
	/* The comm in parentheses may hold spaces: fields count from the
	 * last ')'; flags is the 7th after it (state ppid pgrp session
	 * tty_nr tpgid flags). */
	p = strrchr(line, ')');
	if (p && sscanf(p + 1, " %*s %*s %*s %*s %*s %*s %lu", &flags) == 1 &&
	    (flags & KMOD_PF_KTHREAD))
		return "a kernel thread";
	if (kmod_task_line(tid, "status", "Tgid:", pid, sizeof(pid)) && !strcmp(pid, "1"))
		return "init (pid 1)";
	return NULL;
}

static bool kmod_task_exists(long tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%ld", tid);
	return access(path, F_OK) == 0;
}

int kmod_mark_main(int argc, char **argv, bool on)
{
	const char *verb = on ? "mark" : "unmark";
	int i, rc = KMOD_OK;
	long tid;

	if (argc < 2) {
		fprintf(stderr, "superpass kmod %s: give at least one TID or PID\n", verb);
		return KMOD_USAGE;
	}
	for (i = 1; i < argc; i++) {
		if (!kmod_parse_tid(argv[i], &tid)) {
			fprintf(stderr, "superpass kmod %s: '%s' is not a tid or pid (a number 1..%d)\n",
				verb, argv[i], INT_MAX);
			return KMOD_USAGE;
		}
	}
	if (!kmod_present())
		return kmod_not_loaded();
	for (i = 1; i < argc; i++) {
		char text[32], what[64];
		const char *kind;
		int err;

		kmod_parse_tid(argv[i], &tid);
		snprintf(what, sizeof(what), "%s %ld", verb, tid);
		/* Said here too, so that the reason does not depend on the
		 * module's version; the module checks again (it may race). */
		if (!kmod_task_exists(tid)) {
			fprintf(stderr, "superpass kmod: %s: no such thread or process\n", what);
			rc = KMOD_FAIL;
			continue;
		}
		snprintf(text, sizeof(text), "%s%ld\n", on ? "" : "-", tid);
		err = kmod_write("critical", text);
		kind = err == -EINVAL && on ? kmod_refused_kind(tid) : NULL;
		if (kind) {
			fprintf(stderr, "superpass kmod: %s: %ld is %s: the module marks neither kernel "
				"threads nor init unless loaded with allow_kthreads=1\n", what, tid, kind);
			rc = KMOD_FAIL;
			continue;
		}
		if (err) {
			kmod_write_error(what, "critical", err);
			rc = KMOD_FAIL;
			continue;
		}
		printf("%sed %ld\n", verb, tid);
	}
	return rc;
}

int kmod_list_main(int argc, char **argv)
{
	char *buf, *line, *save = NULL;
	unsigned int n = 0;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "superpass kmod list: takes no arguments\n");
		return KMOD_USAGE;
	}
	if (kmod_read_or_say("superpass kmod list", "critical", &buf))
		return KMOD_FAIL;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char comm[64] = "?", pid[32] = "?";
		long tid;

		if (!kmod_parse_tid(line, &tid)) {
			fprintf(stderr, "superpass kmod list: unexpected line in %s/critical: '%s'\n",
				kmod_dir, line);
			free(buf);
			return KMOD_FAIL;
		}
		if (!n++)
			printf("%8s %8s  %s\n", "tid", "pid", "comm");
		/* The tid may have exited since the read: "?" then. */
		kmod_task_line(tid, "comm", NULL, comm, sizeof(comm));
		kmod_task_line(tid, "status", "Tgid:", pid, sizeof(pid));
		printf("%8ld %8s  %s\n", tid, pid, comm);
	}
	if (!n)
		printf("no thread is marked critical\n");
	free(buf);
	return KMOD_OK;
}
