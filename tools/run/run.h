/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `superpass run`: an unmodified program under the interposer. */
#ifndef SP_TOOLS_RUN_H
#define SP_TOOLS_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

/* Exit statuses of superpass run itself (those of coreutils' nice, env and
 * timeout); otherwise it exits with the command's status. */
#define RUN_EXIT_FAIL 125     /* bad option, no interposer, cannot start */
#define RUN_EXIT_CANNOT 126   /* the command exists but cannot be run */
#define RUN_EXIT_NOTFOUND 127 /* no such command */

int run_main(int argc, char **argv);

/* run_summary.c: when the command starts (before its fork), for
 * run_summary's @since. */
void run_clock_start(struct timespec *since);
/* Reads every statistics file the command's processes left
 * (@dir/@prefix<pid>@suffix, or the one file @dir/@prefix if @suffix is
 * NULL) written since @since (a file an earlier run left under a name
 * --stats gives again is not the command's: counted, not read), prints
 * the summary to @out (if not NULL) and, with @remove, deletes them;
 * returns the number of files read. @top is the command's own pid,
 * listed first; @critical the -c list. */
int run_summary(FILE *out, const char *dir, const char *prefix, const char *suffix, pid_t top,
		const char *critical, const struct timespec *since, bool remove);

#endif /* SP_TOOLS_RUN_H */
