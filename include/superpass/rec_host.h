/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The recording host: a host of the core that boosts nobody. Its clock is
 * moved by hand and its actuator records what the host would do, so that
 * the policy can be run offline: by the core's tests, the kernel module's
 * self-test, the policy demo and the offline host (simulator, replay).
 *
 * Two actuator models, the second of which is what the runtime and the
 * kernel module do (include/superpass/core.h, "Actuation"):
 *  - SP_REC_DIRECT: each fast_track/restore callback changes the recorded
 *    state at once; a call that would be wrong on a real system (boosting
 *    a task twice, restoring one that is not boosted) is a bad call.
 *  - SP_REC_QUEUED: callbacks only queue the tid; sp_rec_host_run() is the
 *    worker, making the recorded state match sp_task_fast_tracked().
 * Tids must be below max_tid (any other is a bad call).
 *
 * Not part of libsuperpass: link superpass::sim (libsuperpass-sim), which
 * exports these functions.
 */
#ifndef SUPERPASS_REC_HOST_H
#define SUPERPASS_REC_HOST_H

#include <superpass/core.h>

#ifdef __cplusplus
extern "C" {
#endif

enum sp_rec_model {
	SP_REC_DIRECT = 0,
	SP_REC_QUEUED = 1,
};

struct sp_rec_host {
	/* Settings; may change between events. */
	uint64_t now;               /* the clock, ns (read atomically) */
	bool real_clock;            /* use the OS monotonic clock instead */
	int fail_fast_track;        /* < 0: boosting fails with this error */
	/* Called after a task's recorded state changed (in DIRECT from the
	 * core's callback, as if the target ran at once on its new priority:
	 * it may report events; in QUEUED from sp_rec_host_run). */
	void (*on_change)(struct sp_rec_host *h, sp_tid_t tid, bool boosted);
	void *user;

	/* State, read by the user. */
	struct sp_core *core;
	enum sp_rec_model model;
	uint32_t max_tid;
	uint64_t *boosted;          /* recorded state per tid: 0 or 1 */
	uint64_t fast_tracks;       /* recorded boosts */
	uint64_t restores;          /* recorded restores */
	uint64_t notifies;          /* core callbacks seen */
	uint64_t bad_calls;
	uint64_t deadlocks;
	sp_tid_t last_deadlock_waiter;
	sp_lock_key_t last_deadlock_lock;
	void *queue;                /* QUEUED: the shared actuation queue */
};

/* Sets @h up and creates its core with @cfg (NULL: defaults). 0, -EINVAL,
 * -ENOMEM, or what sp_core_create returns. */
int sp_rec_host_create(struct sp_rec_host *h, enum sp_rec_model model, uint32_t max_tid,
		     const struct sp_config *cfg);
/* Destroys the core (which restores everything) and frees. */
void sp_rec_host_destroy(struct sp_rec_host *h);
/* QUEUED: brings the recorded state in line with the core; returns the
 * changes made. DIRECT: 0. Call from one thread at a time. */
uint32_t sp_rec_host_run(struct sp_rec_host *h);
/* Tasks recorded as boosted now. */
uint32_t sp_rec_host_boosted_count(const struct sp_rec_host *h);
/* 1 if @tid is recorded as boosted, 0 if not. */
int sp_rec_host_is_boosted(const struct sp_rec_host *h, sp_tid_t tid);

#ifdef __cplusplus
}
#endif

#endif /* SUPERPASS_REC_HOST_H */
