// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * `superpass kmod stats [--json]`: /proc/superpass/stats as a table or as
 * one JSON object (json-c). The file has one "name value" line per
 * counter (the core's, include/superpass/stats.h, then the module's) and
 * one "long_blocking key value ... KIND ..." line per recent blocking over
 * 50 ms. Names are passed through as the module writes them, so a counter
 * added there shows up here without a change. A value of "-" is a tid the
 * reader may not see (kmod/sp_kmod_proc.c): JSON null. The table ends
 * with every overflow, limit or suspicion counter that is not zero, with
 * what it means and what to change (tools/common/sp_cli_advice.c, shared
 * with `superpass run`'s summary).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "kmod.h"
#include "sp_cli_advice.h"
#include "sp_cli_parse.h"

static struct json_object *kmod_json_value(const char *v)
{
	uint64_t u;

	if (!strcmp(v, "-"))
		return NULL;
	if (sp_cli_parse_u64(v, UINT64_MAX, &u))
		return json_object_new_uint64(u);
	return json_object_new_string(v);
}

/* "long_blocking tid 12 ms 80 mutex owner 9 ...": KEY VALUE pairs and one
 * bare word, the lock kind. */
static struct json_object *kmod_long_json(char *rest)
{
	struct json_object *o = json_object_new_object();
	char *save = NULL, *tok;

	for (tok = strtok_r(rest, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (!strcmp(tok, "mutex") || !strcmp(tok, "rwsem")) {
			json_object_object_add(o, "kind", json_object_new_string(tok));
			continue;
		}
		char *val = strtok_r(NULL, " ", &save);

		json_object_object_add(o, tok, val ? kmod_json_value(val) : NULL);
	}
	return o;
}

static int kmod_stats_json(char *buf)
{
	struct json_object *root = json_object_new_object();
	struct json_object *longs = json_object_new_array();
	char *save = NULL, *line;

	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');

		if (!sp)
			continue;
		*sp = '\0';
		if (!strcmp(line, "long_blocking"))
			json_object_array_add(longs, kmod_long_json(sp + 1));
		else
			json_object_object_add(root, line, kmod_json_value(sp + 1));
	}
	json_object_object_add(root, "long_blockings", longs);
	puts(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return KMOD_OK;
}

/* Durations in ns get a readable column too. */
static void kmod_stats_row(const char *name, const char *val)
{
	size_t n = strlen(name);
	uint64_t u;

	if (n > 3 && !strcmp(name + n - 3, "_ns") && sp_cli_parse_u64(val, UINT64_MAX, &u))
		printf("%-28s %20s  %10.3f ms\n", name, val, (double)u / 1e6);
	else
		printf("%-28s %20s\n", name, val);
}

/* Counter @name of the file's text @ctx ("name value" lines). */
static bool kmod_stats_get(void *ctx, const char *name, uint64_t *value)
{
	size_t n = strlen(name);
	const char *p = ctx;

	while (p && *p) {
		char val[32];
		size_t len;

		if (!strncmp(p, name, n) && p[n] == ' ') {
			len = strcspn(p + n + 1, "\n");
			if (len >= sizeof(val))
				return false;
			memcpy(val, p + n + 1, len);
			val[len] = '\0';
			return sp_cli_parse_u64(val, UINT64_MAX, value);
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

static int kmod_stats_table(char *buf)
{
	char *save = NULL, *line, *text = strdup(buf);
	unsigned int nlong = 0;

	if (!text) {
		fprintf(stderr, "superpass kmod stats: out of memory\n");
		return KMOD_FAIL;
	}

	printf("%-28s %20s\n", "counter", "value");
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');

		if (!sp)
			continue;
		*sp = '\0';
		if (!strcmp(line, "long_blocking")) {
			if (!nlong++)
				printf("\nblockings over 50 ms (the last few; what the core knew at their end):\n");
			printf("  %s\n", sp + 1);
			continue;
		}
		kmod_stats_row(line, sp + 1);
	}
	if (sp_cli_advice_print(NULL, "", SP_CLI_HOST_KMOD, kmod_stats_get, text)) {
		printf("\nlimits hit and suspicions (what it means; what to change):\n");
		sp_cli_advice_print(stdout, "  ", SP_CLI_HOST_KMOD, kmod_stats_get, text);
	}
	free(text);
	return KMOD_OK;
}

int kmod_stats_main(int argc, char **argv)
{
	bool json = false;
	char *buf;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else {
			fprintf(stderr, "superpass kmod stats: unknown option '%s' (only --json)\n",
				argv[i]);
			return KMOD_USAGE;
		}
	}
	if (kmod_read_or_say("superpass kmod stats", "stats", &buf))
		return KMOD_FAIL;
	rc = json ? kmod_stats_json(buf) : kmod_stats_table(buf);
	free(buf);
	return rc;
}
