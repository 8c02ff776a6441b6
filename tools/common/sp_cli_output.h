/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Where a subcommand writes a file an option names (--json, --csv, --svg,
 * --chrome, --events, record's -o): "-" is standard output, as in every
 * such option of the `superpass` command.
 */
#ifndef SP_CLI_OUTPUT_H
#define SP_CLI_OUTPUT_H

#include <stdio.h>

/* @path opened for writing, or stdout for "-"; NULL with errno set. */
FILE *sp_cli_output_open(const char *path);
/* Closes what sp_cli_output_open returned (stdout is flushed, not closed):
 * 0, or a negative errno when a write or the close failed. */
int sp_cli_output_close(FILE *f);

#endif /* SP_CLI_OUTPUT_H */
