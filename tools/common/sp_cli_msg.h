/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Messages and exit statuses of every `superpass` subcommand, one
 * convention for all:
 *
 * - Every error and warning on stderr starts with "superpass CMD: " (CMD
 *   the subcommand, e.g. "superpass analyze"); a warning then says
 *   "warning: ". getopt's own messages are off (opterr = 0):
 *   sp_cli_bad_option words them.
 * - Exit status: 0 success, 1 a runtime failure (a file that cannot be
 *   written, no memory, a missing kernel facility), 2 a usage error or bad
 *   input (unknown option, bad value, a file that is not what it should
 *   be). `superpass run` exits with its command's status, so its own
 *   failures take the statuses of nice(1) and env(1) instead: 125
 *   superpass itself failed (bad usage included), 126 the command cannot
 *   be run, 127 the command was not found.
 * - -q, --quiet: no progress and no informational notes on stderr;
 *   results, warnings and errors are still printed.
 * - Progress lines (rewritten in place with '\r') only when stderr is a
 *   terminal: logs and CI get none.
 */
#ifndef SP_CLI_MSG_H
#define SP_CLI_MSG_H

#include <stdbool.h>
#include <stdio.h>

#define SP_EXIT_OK 0
#define SP_EXIT_FAIL 1  /* a runtime failure */
#define SP_EXIT_USAGE 2 /* bad usage or bad input */

/* The --help line every subcommand prints for -q, and the last lines of
 * every --help: the exit statuses. */
#define SP_CLI_HELP_QUIET \
	"  -q, --quiet           no progress and no notes on stderr (results, warnings\n" \
	"                        and errors are still printed)\n"
#define SP_CLI_HELP_EXIT \
	"Exit status: 0 success, 1 a runtime failure, 2 bad usage or bad input.\n"

/* "CMD: MESSAGE\n" on stderr. */
void sp_cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "CMD: warning: MESSAGE\n" on stderr. */
void sp_cli_warn(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Progress lines may be written: not @quiet, and stderr is a terminal. */
bool sp_cli_progress(bool quiet);

/* Up to 20 of the @n names, comma-separated, then "... and N more", on
 * @f: what a selection that matched nothing could have matched. */
void sp_cli_print_names(FILE *f, const char *const *names, size_t n);

/* Copies the lines @print writes on its FILE to stderr, each prefixed with
 * "CMD: " (library reports that name only their input). */
void sp_cli_prefixed(const char *cmd, void (*print)(FILE *f, void *ctx), void *ctx);

#endif /* SP_CLI_MSG_H */
