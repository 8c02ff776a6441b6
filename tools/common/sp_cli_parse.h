/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Option values of every `superpass` subcommand: integers, seconds and
 * comma lists, one grammar for all. An integer is decimal digits with an
 * optional leading '-', nothing else (no spaces, no '+', no suffix); a bad
 * value prints "CMD: OPT wants ..., got 'VALUE'" on stderr, so the error
 * names the option. CMD is the subcommand as the user typed it, e.g.
 * "superpass bench".
 */
#ifndef SP_CLI_PARSE_H
#define SP_CLI_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "sp_vec.h"

/* After getopt_long (with ':' first in its option string) returned @c,
 * ':' for a missing value or anything else for an unknown option: says
 * which, for argv[optind - 1], pointing to CMD --help. */
void sp_cli_bad_option(const char *cmd, int c, char *const *argv);

/* Quiet forms: true and *out set when @s is an integer in [lo, hi]. */
bool sp_cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
bool sp_cli_parse_u64(const char *s, uint64_t hi, uint64_t *out);

/* @arg as an integer in [lo, hi]; 0, or -1 with the message printed. */
int sp_cli_int(const char *cmd, const char *opt, const char *arg, int64_t lo, int64_t hi,
	       int64_t *out);

/* @arg as seconds, a decimal fraction in (0, max]; 0 or -1 (message printed). */
int sp_cli_seconds(const char *cmd, const char *opt, const char *arg, double max, double *out);

/* Calls @item on each item of the comma list @arg. An empty list or an
 * empty item (",", "a,,b", "a,") is an error naming the option, as is an
 * item of @max_len bytes or more. @item prints its own message; returns
 * 0, or -1 when the list or an item was refused. */
int sp_cli_list(const char *cmd, const char *opt, const char *arg, size_t max_len,
		int (*item)(const char *tok, void *ctx), void *ctx);

/* A comma list of integers in [lo, hi] into @out (at most @cap of them);
 * returns how many, or -1 (message printed). */
int sp_cli_int_list(const char *cmd, const char *opt, const char *arg, int64_t lo, int64_t hi,
		    int64_t *out, int cap);

/* The same into uint32_t, for lists such as the reader-tracker bounds K. */
int sp_cli_u32_list(const char *cmd, const char *opt, const char *arg, uint32_t lo, uint32_t hi,
		    uint32_t *out, int cap);

/* A comma list of names out of @names[0..nr) as a bit mask (bit i for
 * @names[i]); 0 or -1 (message printed, listing the names). */
int sp_cli_name_list(const char *cmd, const char *opt, const char *arg,
		     const char *const *names, int nr, unsigned *mask);

/* Appends the items of the comma list @arg (each under @max_len bytes), as
 * strings of their own, to @v: an array of char *, kept NULL-terminated
 * (v->n counts the items, not the NULL). 0 or -1 (message printed). */
int sp_cli_str_list(const char *cmd, const char *opt, const char *arg, size_t max_len,
		    struct sp_vec *v);
/* Frees the strings of @v and @v itself. */
void sp_cli_str_list_free(struct sp_vec *v);

#endif /* SP_CLI_PARSE_H */
