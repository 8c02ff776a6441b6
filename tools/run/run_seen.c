// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * What `superpass run` says when it saw nothing: a -c name no thread of
 * the command had, critical threads that ran without one lock wait seen,
 * or no statistics at all. Each is a warning on stderr, -q or not: a
 * summary of zeros is otherwise read as "no inversion here".
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "sp_cli_json.h"
#include "sp_cli_msg.h"

#include "run.h"

#define RUN_CMD "superpass run"

static void run_seen_add_name(char (*set)[16], uint32_t *n, uint32_t *more, const char *name)
{
	for (uint32_t i = 0; i < *n; i++)
		if (!strcmp(set[i], name))
			return;
	if (*n >= RUN_SEEN_MAX) {
		(*more)++;
		return;
	}
	snprintf(set[*n], sizeof(set[*n]), "%s", name);
	(*n)++;
}

static void run_seen_add_list(json_object *j, const char *key, char (*set)[16], uint32_t *n,
			      uint32_t *more)
{
	json_object *a;

	if (!json_object_object_get_ex(j, key, &a) || !json_object_is_type(a, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(a, i));

		if (name && name[0])
			run_seen_add_name(set, n, more, name);
	}
}

void run_seen_add(struct run_seen *s, json_object *j)
{
	uint32_t ignored = 0;

	s->files++;
	s->blockings += sp_cli_json_u64(j, "blockings");
	if (!json_object_object_get_ex(j, "critical_names_matched", NULL)) {
		s->unknown = true; /* an interposer that does not say */
		return;
	}
	run_seen_add_list(j, "names_seen", s->names, &s->nr_names, &s->more);
	s->more += (uint32_t)sp_cli_json_u64(j, "names_seen_more");
	run_seen_add_list(j, "critical_names_matched", s->matched, &s->nr_matched, &ignored);
}

static bool run_seen_matched(const struct run_seen *s, const char *name)
{
	for (uint32_t i = 0; i < s->nr_matched; i++)
		if (!strcmp(s->matched[i], name))
			return true;
	return false;
}

static void run_seen_names(const struct run_seen *s)
{
	const char *names[RUN_SEEN_MAX];

	for (uint32_t i = 0; i < s->nr_names; i++)
		names[i] = s->names[i];
	if (!s->nr_names) {
		fprintf(stderr, "none");
		return;
	}
	sp_cli_print_names(stderr, names, s->nr_names);
	if (s->more)
		fprintf(stderr, " (and at least %u more not kept)", s->more);
}

#define RUN_UNSEEN_LOCKS                                                                 \
	"a lock the interposer cannot see (Go's, whose system calls bypass libc; a lock " \
	"that spins and never waits in the kernel) or a statically linked program"
#define RUN_UNSEEN_EXIT "a process that exits skipping its statistics (_exit, Go's os.Exit)"

void run_seen_warn(const struct run_seen *s, const char *critical, const char *cmd)
{
	char *list, *tok, *save = NULL;
	unsigned unmatched = 0;

	if (!s->files) {
		sp_cli_warn(RUN_CMD, "no statistics came back from %s, so nothing was seen: a "
			    "process writes them at exit, and none did. That happens when it is "
			    "statically linked (the interposer is not loaded into it), exits "
			    "through _exit (as Go's os.Exit does), is killed before its exit "
			    "handlers run, or runs in secure-execution mode (setuid, file "
			    "capabilities). superpass.ko sees lock waits in the kernel without the "
			    "interposer: see superpass kmod --help.", cmd);
		return;
	}
	if (s->unknown)
		return;
	list = strdup(critical);
	for (tok = list ? strtok_r(list, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
		if (run_seen_matched(s, tok))
			continue;
		unmatched++;
		if (!strcmp(tok, "main"))
			fprintf(stderr, RUN_CMD ": warning: -c main: the main thread of %s took no "
					"lock the interposer sees; the thread names seen: ", cmd);
		else
			fprintf(stderr, RUN_CMD ": warning: -c %s: no thread of %s that took a "
					"lock the interposer sees had that name; the names seen: ", tok, cmd);
		run_seen_names(s);
		fprintf(stderr, "\n");
	}
	free(list);
	if (unmatched && !s->nr_matched) {
		sp_cli_warn(RUN_CMD, "no critical thread was seen. A thread is seen when it takes "
			    "a pthread or C11 lock or waits on a futex word through libc, not when it "
			    "waits only on " RUN_UNSEEN_LOCKS
			    "; and " RUN_UNSEEN_EXIT " reports nothing. superpass.ko sees such waits "
			    "in the kernel: see superpass kmod --help.");
		return;
	}
	if (s->nr_matched && !s->blockings)
		sp_cli_warn(RUN_CMD, "the critical threads ran but no lock wait of theirs was seen. "
			    "If they do wait for locks, the likely reason is " RUN_UNSEEN_LOCKS
			    ", or " RUN_UNSEEN_EXIT ". superpass.ko sees futex and kernel lock waits without the "
			    "interposer: see superpass kmod --help.");
}
