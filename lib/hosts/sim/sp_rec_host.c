// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The recording host (include/superpass/rec_host.h). Portable like the
 * core: it is compiled into the kernel module for its self-test, so it
 * uses lib/os only. The QUEUED model is the shared actuator model of
 * every host, on the shared queue (lib/core/sp_actq.h).
 */
#include "sp_actq.h"
#include "sp_os.h"

#include <superpass/rec_host.h>

#define SP_REC_QUEUE 256u

/* The public struct has plain words (no OS types in a public header);
 * every access goes through the shim's atomics, whose 64-bit type has the
 * same layout in both shims. */
static sp_atomic64_t *sp_rec_a(const uint64_t *p)
{
	return (sp_atomic64_t *)(uintptr_t)p;
}

static uint64_t sp_rec_now(void *ctx)
{
	struct sp_rec_host *h = ctx;

	if (h->real_clock)
		return sp_os_now_ns();
	return sp_atomic_load(sp_rec_a(&h->now));
}

static void sp_rec_count(uint64_t *c)
{
	sp_atomic_add(sp_rec_a(c), 1);
}

/* Records @boost for @tid; false (a bad call) if it already was so. */
static bool sp_rec_set(struct sp_rec_host *h, sp_tid_t tid, bool boost)
{
	if (tid >= h->max_tid || sp_atomic_xchg(sp_rec_a(&h->boosted[tid]), boost) == boost) {
		sp_rec_count(&h->bad_calls);
		return false;
	}
	sp_rec_count(boost ? &h->fast_tracks : &h->restores);
	if (h->on_change)
		h->on_change(h, tid, boost);
	return true;
}

/* The core serialises calls for one tid; calls for different tids may
 * run at once, hence the atomics. */
static int sp_rec_notify(struct sp_rec_host *h, sp_tid_t tid, bool boost)
{
	sp_rec_count(&h->notifies);
	if (boost && h->fail_fast_track < 0)
		return h->fail_fast_track;
	if (h->model == SP_REC_QUEUED) {
		sp_actq_push(h->queue, tid);
		return 0;
	}
	sp_rec_set(h, tid, boost);
	return 0;
}

static int sp_rec_fast_track(void *ctx, sp_tid_t tid)
{
	return sp_rec_notify(ctx, tid, true);
}

static int sp_rec_restore(void *ctx, sp_tid_t tid)
{
	return sp_rec_notify(ctx, tid, false);
}

static void sp_rec_deadlock(void *ctx, sp_tid_t waiter, sp_lock_key_t lock)
{
	struct sp_rec_host *h = ctx;

	sp_rec_count(&h->deadlocks);
	sp_atomic_store(sp_rec_a(&h->last_deadlock_waiter), waiter);
	sp_atomic_store(sp_rec_a(&h->last_deadlock_lock), lock);
}

static const struct sp_host_ops sp_rec_ops = {
	.now_ns = sp_rec_now,
	.fast_track = sp_rec_fast_track,
	.restore = sp_rec_restore,
	.on_deadlock = sp_rec_deadlock,
};

int sp_rec_host_create(struct sp_rec_host *h, enum sp_rec_model model, uint32_t max_tid,
		     const struct sp_config *cfg)
{
	int rc;

	memset(h, 0, sizeof(*h));
	if ((model != SP_REC_DIRECT && model != SP_REC_QUEUED) || max_tid < 2)
		return -EINVAL;
	h->model = model;
	h->max_tid = max_tid;
	h->now = 1000000000ull;
	h->boosted = sp_os_zalloc(sizeof(*h->boosted) * max_tid);
	if (!h->boosted)
		return -ENOMEM;
	if (model == SP_REC_QUEUED) {
		h->queue = sp_os_zalloc(sizeof(struct sp_actq));
		if (!h->queue || sp_actq_init(h->queue, SP_REC_QUEUE) < 0) {
			sp_rec_host_destroy(h);
			return -ENOMEM;
		}
	}
	rc = sp_core_create(cfg, &sp_rec_ops, h, &h->core);
	if (rc < 0)
		sp_rec_host_destroy(h);
	return rc;
}

void sp_rec_host_destroy(struct sp_rec_host *h)
{
	if (h->core) {
		sp_core_destroy(h->core);
		h->core = NULL;
		sp_rec_host_run(h); /* the destroy's restores */
	}
	if (h->queue) {
		sp_actq_fini(h->queue);
		sp_os_free(h->queue);
	}
	sp_os_free(h->boosted);
	h->queue = NULL;
	h->boosted = NULL;
}

/* Makes @tid's recorded state what the core wants now. */
static uint32_t sp_rec_reconcile(struct sp_rec_host *h, sp_tid_t tid)
{
	bool want, have;

	if (tid >= h->max_tid) {
		sp_rec_count(&h->bad_calls);
		return 0;
	}
	/* No core (being destroyed): nothing is wanted any more. */
	want = h->core && sp_task_fast_tracked(h->core, tid) == 1;
	have = sp_atomic_load(sp_rec_a(&h->boosted[tid]));
	if (want == have)
		return 0;
	if (want && h->fail_fast_track < 0)
		return 0;
	return sp_rec_set(h, tid, want) ? 1 : 0;
}

uint32_t sp_rec_host_run(struct sp_rec_host *h)
{
	uint32_t changes = 0;
	sp_tid_t tid;

	if (h->model != SP_REC_QUEUED || !h->queue)
		return 0;
	while ((tid = sp_actq_pop(h->queue)) != 0)
		changes += sp_rec_reconcile(h, tid);
	if (sp_actq_take_rescan(h->queue))
		for (tid = 1; tid < h->max_tid; tid++)
			if (sp_atomic_load(sp_rec_a(&h->boosted[tid])) ||
			    (h->core && sp_task_fast_tracked(h->core, tid) == 1))
				changes += sp_rec_reconcile(h, tid);
	return changes;
}

uint32_t sp_rec_host_boosted_count(const struct sp_rec_host *h)
{
	uint32_t i, n = 0;

	for (i = 0; i < h->max_tid; i++)
		n += (uint32_t)sp_atomic_load(sp_rec_a(&h->boosted[i]));
	return n;
}

int sp_rec_host_is_boosted(const struct sp_rec_host *h, sp_tid_t tid)
{
	return tid < h->max_tid && sp_atomic_load(sp_rec_a(&h->boosted[tid]));
}
