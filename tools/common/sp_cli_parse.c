// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The option value parsers of sp_cli_parse.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_cli_parse.h"

void sp_cli_bad_option(const char *cmd, int c, char *const *argv)
{
	const char *arg = argv[optind - 1];
	char name[64];

	/* A long option as typed, without "=VALUE"; a short one by itself,
	 * not the cluster it came in ("-qx"). */
	if (!strncmp(arg, "--", 2))
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
	else if (optopt)
		snprintf(name, sizeof(name), "-%c", optopt);
	else
		snprintf(name, sizeof(name), "%s", arg);
	if (c == ':')
		fprintf(stderr, "%s: option '%s' needs a value (see %s --help)\n", cmd, name, cmd);
	else
		fprintf(stderr, "%s: unknown option '%s' (see %s --help)\n", cmd, name, cmd);
}

/* Digits only, as strtoull would otherwise take spaces, '+' and '-'. */
static bool sp_cli_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

bool sp_cli_parse_u64(const char *s, uint64_t hi, uint64_t *out)
{
	unsigned long long v;

	if (!sp_cli_digits(s))
		return false;
	errno = 0;
	v = strtoull(s, NULL, 10);
	if (errno || v > hi)
		return false;
	*out = v;
	return true;
}

bool sp_cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	long long v;

	if (!sp_cli_digits(s[0] == '-' ? s + 1 : s))
		return false;
	errno = 0;
	v = strtoll(s, NULL, 10);
	if (errno || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

int sp_cli_int(const char *cmd, const char *opt, const char *arg, int64_t lo, int64_t hi,
	       int64_t *out)
{
	if (sp_cli_parse_i64(arg, lo, hi, out))
		return 0;
	fprintf(stderr, "%s: %s wants an integer in [%lld, %lld], got '%s'\n", cmd, opt,
		(long long)lo, (long long)hi, arg);
	return -1;
}

int sp_cli_seconds(const char *cmd, const char *opt, const char *arg, double max, double *out)
{
	char *end;
	double d;

	/* strtod alone would take spaces, signs, "nan", "inf" and hex */
	if ((*arg < '0' || *arg > '9') && *arg != '.')
		goto bad;
	d = strtod(arg, &end);
	if (*end || end == arg || !isfinite(d) || !(d > 0) || d > max)
		goto bad;
	*out = d;
	return 0;
bad:
	fprintf(stderr, "%s: %s wants seconds in (0, %g], got '%s'\n", cmd, opt, max, arg);
	return -1;
}

int sp_cli_list(const char *cmd, const char *opt, const char *arg, size_t max_len,
		int (*item)(const char *tok, void *ctx), void *ctx)
{
	const char *p = arg;
	char *tok;
	int rc = -1;

	if (!*arg) {
		fprintf(stderr, "%s: %s wants a comma-separated list, got ''\n", cmd, opt);
		return -1;
	}
	tok = malloc(max_len);
	if (!tok) {
		fprintf(stderr, "%s: %s: out of memory\n", cmd, opt);
		return -1;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (n == 0 || n >= max_len) {
			fprintf(stderr, "%s: %s: %s item in '%s'\n", cmd, opt,
				n ? "too long an" : "empty", arg);
			break;
		}
		memcpy(tok, p, n);
		tok[n] = 0;
		if (item(tok, ctx))
			break;
		if (!comma) {
			rc = 0;
			break;
		}
		p = comma + 1;
	}
	free(tok);
	return rc;
}

struct sp_cli_ints {
	const char *cmd, *opt;
	int64_t lo, hi;
	int64_t *out;     /* one of the two */
	uint32_t *out32;
	int n, cap;
};

static int sp_cli_int_item(const char *tok, void *arg)
{
	struct sp_cli_ints *c = arg;
	int64_t v;

	if (c->n == c->cap) {
		fprintf(stderr, "%s: %s takes at most %d values\n", c->cmd, c->opt, c->cap);
		return -1;
	}
	if (sp_cli_int(c->cmd, c->opt, tok, c->lo, c->hi, &v))
		return -1;
	if (c->out)
		c->out[c->n++] = v;
	else
		c->out32[c->n++] = (uint32_t)v;
	return 0;
}

/* An integer has at most 20 characters: a longer item is refused as such. */
int sp_cli_int_list(const char *cmd, const char *opt, const char *arg, int64_t lo, int64_t hi,
		    int64_t *out, int cap)
{
	struct sp_cli_ints c = { cmd, opt, lo, hi, out, NULL, 0, cap };

	return sp_cli_list(cmd, opt, arg, 64, sp_cli_int_item, &c) ? -1 : c.n;
}

int sp_cli_u32_list(const char *cmd, const char *opt, const char *arg, uint32_t lo, uint32_t hi,
		    uint32_t *out, int cap)
{
	struct sp_cli_ints c = { cmd, opt, lo, hi, NULL, out, 0, cap };

	return sp_cli_list(cmd, opt, arg, 64, sp_cli_int_item, &c) ? -1 : c.n;
}

struct sp_cli_names {
	const char *cmd, *opt;
	const char *const *names;
	int nr;
	unsigned mask;
};

static int sp_cli_name_item(const char *tok, void *arg)
{
	struct sp_cli_names *c = arg;
	int i;

	for (i = 0; i < c->nr && strcmp(tok, c->names[i]); i++)
		;
	if (i == c->nr) {
		fprintf(stderr, "%s: %s: unknown name '%s' (one of", c->cmd, c->opt, tok);
		for (i = 0; i < c->nr; i++)
			fprintf(stderr, "%s%s", i ? ", " : " ", c->names[i]);
		fprintf(stderr, ")\n");
		return -1;
	}
	c->mask |= 1u << i;
	return 0;
}

int sp_cli_name_list(const char *cmd, const char *opt, const char *arg,
		     const char *const *names, int nr, unsigned *mask)
{
	struct sp_cli_names c = { cmd, opt, names, nr, 0 };

	if (sp_cli_list(cmd, opt, arg, 64, sp_cli_name_item, &c))
		return -1;
	*mask = c.mask;
	return 0;
}

struct sp_cli_strs {
	const char *cmd, *opt;
	struct sp_vec *v;
};

static int sp_cli_str_item(const char *tok, void *arg)
{
	struct sp_cli_strs *c = arg;
	char **slot, *copy;

	/* room for the item and the NULL after it */
	if (sp_vec_reserve(c->v, sizeof(char *), c->v->n + 2, 8) || !(copy = strdup(tok))) {
		fprintf(stderr, "%s: %s: out of memory\n", c->cmd, c->opt);
		return -1;
	}
	slot = sp_vec_push(c->v, sizeof(char *));
	slot[0] = copy;
	slot[1] = NULL;
	return 0;
}

int sp_cli_str_list(const char *cmd, const char *opt, const char *arg, size_t max_len,
		    struct sp_vec *v)
{
	struct sp_cli_strs c = { cmd, opt, v };

	return sp_cli_list(cmd, opt, arg, max_len, sp_cli_str_item, &c);
}

void sp_cli_str_list_free(struct sp_vec *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(((char **)v->data)[i]);
	sp_vec_free(v);
}
