// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Statistics of the runtime as one JSON object (SUPERPASS_STATS, tests). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sp_rt.h"

static void sp_json_thread(void *arg, sp_tid_t tid, const char *name, int crit)
{
	FILE *f = arg;
	static int first; /* serialised by the registry lock */

	if (tid == 0) { /* reset marker */
		first = 1;
		return;
	}
	fprintf(f, "%s{\"tid\": %llu, \"name\": \"", first ? "" : ", ", (unsigned long long)tid);
	for (const char *p = name; *p; p++)
		if (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
			fputc(*p, f);
	fprintf(f, "\", \"critical\": %s}", crit ? "true" : "false");
	first = 0;
}

int sp_runtime_write_json(const char *path)
{
	struct sp_runtime_stats st;
	struct sp_hist *h;
	struct sp_core *core;
	FILE *f;
	int rc = 0;

	sp_rt_enter();
	core = __atomic_load_n(&sp_rt_core_ptr, __ATOMIC_ACQUIRE);
	h = malloc(sizeof(*h));
	if (!h) {
		sp_rt_leave();
		return -ENOMEM;
	}
	sp_hist_init(h);
	sp_runtime_stats(&st); /* zeroes st when there is no core */
	if (core)
		sp_core_blocking_hist(core, h);
	f = fopen(path, "w");
	if (!f) {
		rc = -errno;
		goto out;
	}
#define C(x) fprintf(f, "  \"" #x "\": %llu,\n", (unsigned long long)st.core.x)
#define A(x) fprintf(f, "  \"" #x "\": %llu,\n", (unsigned long long)st.x)
	fprintf(f, "{\n  \"pid\": %d,\n  \"mode\": \"%s\",\n  \"core\": %s,\n", (int)getpid(),
		sp_act_mode_name((enum sp_act_mode)st.mode), core ? "true" : "false");
	C(acquires); C(releases); C(blocks); C(unblocks); C(blockings); C(grants);
	C(grant_dups); C(grants_refused); C(fast_tracks); C(restores); C(actuator_errors);
	C(ends_release); C(ends_unblock); C(ends_exit); C(expiries); C(throttles);
	C(deadlocks); C(depth_limited); C(task_overflows); C(lock_overflows);
	C(grant_overflows); C(reader_overflows); C(waiter_overflows); C(stale_events);
	C(tasks_now); C(locks_now); C(grants_now); C(boosted_now);
	A(act_fast_tracks); A(act_restores); A(act_errors); A(act_gone); A(act_boosted_now);
	A(ticks);
#undef C
#undef A
	fprintf(f, "  \"blocking_ns\": {\"count\": %llu, \"p50\": %llu, \"p99\": %llu, "
		   "\"p999\": %llu, \"max\": %llu},\n",
		(unsigned long long)h->count, (unsigned long long)sp_hist_quantile(h, 50, 100),
		(unsigned long long)sp_hist_quantile(h, 99, 100),
		(unsigned long long)sp_hist_quantile(h, 999, 1000), (unsigned long long)h->max);
	fprintf(f, "  \"threads\": [");
	sp_json_thread(f, 0, NULL, 0);
	sp_rt_registry_each(sp_json_thread, f);
	fprintf(f, "]\n}\n");
	if (fclose(f) != 0)
		rc = -errno;
out:
	free(h);
	sp_rt_leave();
	return rc;
}
