/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `superpass run`: an unmodified program under the interposer. */
#ifndef SP_TOOLS_RUN_H
#define SP_TOOLS_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

/* Exit statuses of superpass run itself (those of coreutils' nice, env and
 * timeout); otherwise it exits with the command's status. */
#define RUN_EXIT_FAIL 125     /* bad option, no interposer, cannot start */
#define RUN_EXIT_CANNOT 126   /* the command exists but cannot be run */
#define RUN_EXIT_NOTFOUND 127 /* no such command */

int run_main(int argc, char **argv);

/* run_seen.c: what the statistics files of all the command's processes
 * saw, together. */
#define RUN_SEEN_MAX 1024
struct run_seen {
	uint64_t files;              /* statistics files read */
	uint64_t blockings;          /* the critical threads' lock waits */
	bool unknown;                /* a file without the lists (another version) */
	uint32_t nr_names, more;     /* distinct thread names seen, and those not kept */
	char names[RUN_SEEN_MAX][16];
	uint32_t nr_matched;         /* -c names that made a thread critical */
	char matched[RUN_SEEN_MAX][16];
};
struct json_object;
void run_seen_add(struct run_seen *s, struct json_object *j);
/* The warnings for what was not seen, on stderr; @cmd is the command's name. */
void run_seen_warn(const struct run_seen *s, const char *critical, const char *cmd);

/* run_summary.c: when the command starts (before its fork), for
 * run_summary's @since. */
void run_clock_start(struct timespec *since);
/* Reads every statistics file the command's processes left
 * (@dir/@prefix<pid>@suffix, or the one file @dir/@prefix if @suffix is
 * NULL) written since @since (a file an earlier run left under a name
 * --stats gives again is not the command's: counted, not read), prints
 * the summary to @out (if not NULL) and, with @remove, deletes them;
 * returns the number of files read. @top is the command's own pid,
 * listed first; @critical the -c list. Each file read is added to @seen
 * (if not NULL). */
int run_summary(FILE *out, const char *dir, const char *prefix, const char *suffix, pid_t top,
		const char *critical, const struct timespec *since, bool remove,
		struct run_seen *seen);

#endif /* SP_TOOLS_RUN_H */
