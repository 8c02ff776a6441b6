// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A --critical pattern or --tid that selects none of the replayed threads
 * (when another one of the list did): a warning listing the threads that
 * were replayed. The replayed threads are the tasks of the derived
 * workload, named COMM-TID (sp_replay_json), read back with json-c.
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "replay.h"
#include "sp_cli_msg.h"

#define RP_CMD "superpass replay"

struct rp_task {
	char comm[64];
	long tid;
};

/* "COMM-TID" into its parts; false if it has no "-TID" at its end. */
static bool rp_task_split(const char *name, struct rp_task *t)
{
	const char *dash = strrchr(name, '-');
	char *end;

	if (!dash || dash == name || !dash[1])
		return false;
	t->tid = strtol(dash + 1, &end, 10);
	if (*end || t->tid <= 0)
		return false;
	snprintf(t->comm, sizeof(t->comm), "%.*s", (int)(dash - name), name);
	return true;
}

static void rp_warn(const char *what, const struct rp_task *ts, size_t n)
{
	const char **names = calloc(n ? n : 1, sizeof(*names));
	size_t nn = 0;

	if (!names)
		return;
	for (size_t i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < nn && strcmp(names[j], ts[i].comm); j++)
			;
		if (j == nn)
			names[nn++] = ts[i].comm;
	}
	fprintf(stderr, RP_CMD ": warning: %s: no replayed thread has it; the replayed threads: ",
		what);
	sp_cli_print_names(stderr, names, nn);
	fprintf(stderr, "\n");
	free(names);
}

void rp_check_selection(const struct sp_replay *r, const char *const *comms,
			const int32_t *tids, int nt)
{
	json_object *root = json_tokener_parse(sp_replay_json(r)), *tasks;
	struct rp_task *ts = NULL;
	size_t n = 0;
	char what[128];

	if (!root || !json_object_object_get_ex(root, "tasks", &tasks) ||
	    !json_object_is_type(tasks, json_type_object) ||
	    !(ts = calloc((size_t)json_object_object_length(tasks) + 1, sizeof(*ts))))
		goto out;
	json_object_object_foreach(tasks, key, val) {
		(void)val;
		if (rp_task_split(key, &ts[n]))
			n++;
	}
	for (size_t p = 0; comms && comms[p]; p++) {
		size_t i;

		for (i = 0; i < n && fnmatch(comms[p], ts[i].comm, 0); i++)
			;
		if (i == n) {
			snprintf(what, sizeof(what), "--critical %s", comms[p]);
			rp_warn(what, ts, n);
		}
	}
	for (int p = 0; p < nt; p++) {
		size_t i;

		for (i = 0; i < n && ts[i].tid != tids[p]; i++)
			;
		if (i == n) {
			snprintf(what, sizeof(what), "--tid %d", (int)tids[p]);
			rp_warn(what, ts, n);
		}
	}
out:
	free(ts);
	json_object_put(root);
}
