/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `superpass record` and `superpass analyze` (superpass::trace). */
#ifndef SP_TRACE_CLI_H
#define SP_TRACE_CLI_H

/* argv[0] is the subcommand's name. Exit codes: 0 done, 1 failed, 2 bad
 * usage or nothing analysable. */
int trace_record_main(int argc, char **argv);
int trace_analyze_main(int argc, char **argv);

#endif
