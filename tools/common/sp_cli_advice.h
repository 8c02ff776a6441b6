/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What an overflow, limit or suspicion counter means and what to change,
 * told once for every output that shows the statistics (`superpass run`'s
 * summary, `superpass kmod stats`). The meaning of a core counter is its
 * help text in include/superpass/stats.h; this table adds what follows
 * from it and the setting that changes it, for each host.
 */
#ifndef SP_CLI_ADVICE_H
#define SP_CLI_ADVICE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum sp_cli_host {
	SP_CLI_HOST_RUN,  /* the interposer: superpass run, SUPERPASS_* */
	SP_CLI_HOST_KMOD, /* superpass.ko: module parameters */
};

/* Looks up counter @name; false if the statistics do not have it. */
typedef bool (*sp_cli_advice_get_fn)(void *ctx, const char *name, uint64_t *value);

/* For every counter of the table that @get finds non-zero, in the table's
 * order, one line on @out: "@indent NAME VALUE: meaning; effect. Change:
 * what to change." Returns the number of such counters (@out NULL: only
 * counts them). */
unsigned int sp_cli_advice_print(FILE *out, const char *indent, enum sp_cli_host host,
				 sp_cli_advice_get_fn get, void *ctx);

#endif /* SP_CLI_ADVICE_H */
