// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * `superpass replay --events FILE`: the simulated schedule of each policy's
 * row (its run of median P99.9), run again under the simulator's trace
 * callback and written one event a line: what ran where, who waited for
 * which lock, who took it and let it go, who woke where, who was
 * fast-tracked. The replay's side of a comparison with its trace (the
 * same run: a simulator run is a function of its workload, options and
 * seed). Text, whitespace-separated, so that awk or a script reads it:
 *
 *   # superpass replay events: policy superpass k 4 seed 6
 *   # time_s event cpu rq thread lock arg
 *   0.012093041 block 0 0 sp-ui-13233 rwlock-5640128bc218 0
 *
 * cpu and rq are -1 where the event has none; thread "idle" for a switch
 * to nothing, "superpass-wk" for the runtime's worker; lock "-" for none;
 * arg: a switch's donor (proxy execution, else -1), a block's, acquire's
 * or release's hold (0 exclusive, 1 shared), a prio's RT priority (0:
 * fair), a frame's lateness (1: late).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_vec.h"

#include "replay.h"

struct rp_events {
	struct sp_vec ev; /* of struct sp_sim_trace */
	bool nomem;
};

static void rp_events_add(void *ctx, const struct sp_sim_trace *e)
{
	struct rp_events *b = ctx;

	struct sp_sim_trace *slot;

	if (b->nomem)
		return;
	if (sp_vec_reserve(&b->ev, sizeof(*slot), b->ev.n + 1, 4096) ||
	    !(slot = sp_vec_push(&b->ev, sizeof(*slot)))) {
		b->nomem = true;
		return;
	}
	*slot = *e;
}

static const char *rp_event_name(uint16_t type)
{
	static const char *const names[] = {
		[SP_SIM_TR_SWITCH] = "switch", [SP_SIM_TR_BLOCK] = "block",
		[SP_SIM_TR_ACQUIRE] = "acquire", [SP_SIM_TR_RELEASE] = "release",
		[SP_SIM_TR_WAKE] = "wake", [SP_SIM_TR_PRIO] = "prio",
		[SP_SIM_TR_FRAME] = "frame", [SP_SIM_TR_PROXY] = "proxy",
		[SP_SIM_TR_DONE] = "done",
	};

	return type < sizeof(names) / sizeof(names[0]) && names[type] ? names[type] : "?";
}

/* The names are known once the run is over (sp_sim_result.threads): the
 * events are kept until then. */
int rp_write_events(FILE *f, const struct sp_sim_workload *w, const struct sp_sim_opts *o,
		    const char *policy)
{
	struct rp_events b = { SP_VEC_INIT, false };
	struct sp_sim_opts so = *o;
	struct sp_sim_result res;
	int rc;

	so.trace = rp_events_add;
	so.trace_ctx = &b;
	rc = sp_sim_run(w, &so, &res);
	if (rc || b.nomem) {
		if (!rc)
			sp_sim_result_destroy(&res);
		sp_vec_free(&b.ev);
		return rc ? rc : -ENOMEM;
	}
	fprintf(f, "# superpass replay events: policy %s k %u seed %llu\n"
		   "# time_s event cpu rq thread lock arg\n",
		policy, o->k, (unsigned long long)o->seed);
	for (size_t i = 0; i < b.ev.n; i++) {
		const struct sp_sim_trace *e = (const struct sp_sim_trace *)b.ev.data + i;
		const char *th = e->thread < 0 ? "idle"
				 : (uint32_t)e->thread < res.nthreads ? res.threads[e->thread].name
				 : "superpass-wk";
		const char *lk = sp_sim_lock_name(w, e->lock);

		fprintf(f, "%llu.%09llu %s %d %d %s %s %d\n",
			(unsigned long long)(e->t / 1000000000ull),
			(unsigned long long)(e->t % 1000000000ull), rp_event_name(e->type), e->cpu,
			e->rq, th, lk ? lk : "-", e->arg);
	}
	sp_sim_result_destroy(&res);
	sp_vec_free(&b.ev);
	return ferror(f) ? -EIO : 0;
}
