// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * What each wait and wake of the trace is: which wakes the replay keeps
 * as dependencies (the last of an acquisition), a wait's part in its
 * acquisition, the side of an rwlock or rwsem a thread holds, where a
 * critical section can end, and which wakes of one unlock are one release.
 */
#include <stdlib.h>

#include "sp_replay_internal.h"

/* Which wakes matter: a waiter that waited again on the same lock right
 * after a wake (glibc's retry: it lost the race) depends on the last wake
 * only; its blocking runs from its first request. */
void sp_rp_mark_tokens(struct sp_replay *r, const struct sp_rp_th *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct sp_rp_item *it = &t->it[i];
		uint64_t between = 0;
		size_t j;

		if (it->type != IT_WAIT)
			continue;
		for (j = i + 1; j < t->n; j++) {
			if (t->it[j].type == IT_CPU)
				between += t->it[j].ns;
			else if (t->it[j].type != IT_WAKE)
				break;
		}
		if (j < t->n && t->it[j].type == IT_WAIT && t->it[j].lock == it->lock &&
		    between <= r->merge_ns) {
			r->tk[it->tok - 1].used = false;
			if (r->tk[it->tok - 1].req < r->tk[t->it[j].tok - 1].req)
				r->tk[t->it[j].tok - 1].req = r->tk[it->tok - 1].req;
			continue;
		}
		if (!r->th[r->tk[it->tok - 1].waker]->in_set ||
		    !r->th[r->tk[it->tok - 1].waker]->cpu_total) {
			r->tk[it->tok - 1].sleep = true;
			continue;
		}
		r->tk[it->tok - 1].used = true;
		if (t->critical) {
			uint8_t kind = r->lk[it->lock].kind;

			sp_hist_record(&r->hist, it->end - r->tk[it->tok - 1].req);
			if (kind == SP_SIM_KMUTEX || kind == SP_SIM_RWSEM)
				r->crit_kwaits++;
			else
				r->crit_fwaits++;
		}
		r->c.waits++;
	}
}

/* glibc readers wake readers too: the first reader of a read phase wakes
 * the others waiting on __wrphase_futex. That wake releases nothing (the
 * waker just took the read side), so it is not a release: a reader's
 * (a thread that waited for the lock only as a reader) wakes of readers
 * become nothing (an empty CPU item); a reader is a thread that waited
 * as one or woke a writer, and never waited as a writer. Returns -1 on no
 * memory. */
int sp_rp_phase_wakes(struct sp_replay *r, struct sp_rp_th *t)
{
	uint8_t *role = calloc(r->nlk + 1, 1); /* bit 0: waited shared, bit 1: exclusive */

	if (!role)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		if (t->it[i].type == IT_WAIT && t->it[i].lock >= 0)
			role[t->it[i].lock] |= t->it[i].hold == SP_SIM_SHARED ? 1 : 2;
		else if (t->it[i].type == IT_WAKE && t->it[i].hold == SP_SIM_SHARED)
			role[t->it[i].lock] |= 1; /* woke a writer: the last reader out */
	}
	for (size_t i = 0; i < t->n; i++) {
		struct sp_rp_item *it = &t->it[i];

		if (it->type == IT_WAKE && r->lk[it->lock].kind == SP_SIM_URWLOCK_W &&
		    it->hold == SP_SIM_EXCL && role[it->lock] == 1) {
			*it = (struct sp_rp_item){ .type = IT_CPU, .lock = -1, .end = it->end };
			r->c.phase_wakes++;
		}
	}
	free(role);
	return 0;
}

/* The CPU time between two wakes of one unlock at most: glibc's unlock of
 * a writer wakes its queued readers in one futex call, and a kernel
 * rwsem's release wakes them from one wake queue, each sched_waking a few
 * microseconds of the waker's CPU after the one before. No thread
 * releases, takes and releases one lock again in that time. */
#define RELEASE_GAP_NS 10000

/* The wake items from @i on that are one release of @lock (one unlock
 * that woke several waiters, RELEASE_GAP_NS of CPU apart at most): the
 * last one. Taken as two, the replay's waker let the lock go, took it back
 * at once and let it go again, so a writer that had just handed the read
 * side to its readers waited for them. */
size_t sp_rp_release_end(const struct sp_rp_th *t, size_t i, int32_t lock)
{
	size_t j = i;

	for (size_t k = i + 1; k < t->n; k++) {
		const struct sp_rp_item *x = &t->it[k];
		uint64_t gap = 0;

		if (x->type == IT_WAKE && x->lock == lock) {
			j = k;
			continue;
		}
		if (x->type != IT_CPU || x->preempt)
			break;
		for (; k < t->n && t->it[k].type == IT_CPU && !t->it[k].preempt; k++)
			gap += t->it[k].ns;
		if (gap > RELEASE_GAP_NS || k == t->n || t->it[k].type != IT_WAKE ||
		    t->it[k].lock != lock)
			break;
		j = k;
	}
	return j;
}

/* What the wait at item @i becomes (WAIT_*): the first wait of an
 * acquisition (a lock), a retry merged into it (nothing), or a sleep (its
 * waker is not replayed). */
int sp_rp_wait_op(const struct sp_replay *r, const struct sp_rp_th *t, size_t i)
{
	const struct sp_rp_tok *tk = &r->tk[t->it[i].tok - 1];
	size_t j;

	if (tk->sleep)
		return WAIT_SLEEP;
	/* A retry (the earlier wait of the same acquisition is not used and
	 * ran into this one): already asked for at the first. */
	for (j = i; j > 0; j--) {
		const struct sp_rp_item *b = &t->it[j - 1];

		if (b->type == IT_WAIT) {
			if (b->lock == t->it[i].lock && !r->tk[b->tok - 1].used &&
			    !r->tk[b->tok - 1].sleep)
				return WAIT_NONE;
			break;
		}
		if (b->type != IT_CPU && b->type != IT_WAKE)
			break;
	}
	/* The first of a group: a lock if the group's last wait is used. */
	for (j = i; j < t->n; j++) {
		const struct sp_rp_item *x = &t->it[j];

		if (x->type != IT_WAIT || x->lock != t->it[i].lock)
			continue;
		if (r->tk[x->tok - 1].used)
			return WAIT_LOCK;
		if (r->tk[x->tok - 1].sleep)
			return WAIT_SLEEP;
	}
	return WAIT_NONE;
}

/* The side of rwlock @lock that @t holds: shared if it ever waited for it
 * as a reader or released it as one (woke a writer). */
uint8_t sp_rp_side_of(const struct sp_replay *r, const struct sp_rp_th *t, int32_t lock)
{
	if (r->lk[lock].kind == SP_SIM_RWSEM) {
		size_t sh = 0, ex = 0;

		for (size_t i = 0; i < t->n; i++)
			if (t->it[i].type == IT_WAIT && t->it[i].lock == lock)
				t->it[i].hold == SP_SIM_SHARED ? sh++ : ex++;
		return sh > ex ? SP_SIM_SHARED : SP_SIM_EXCL;
	}
	if (r->lk[lock].kind != SP_SIM_URWLOCK_W)
		return SP_SIM_EXCL;
	for (size_t i = 0; i < t->n; i++)
		if ((t->it[i].type == IT_WAIT || t->it[i].type == IT_WAKE) &&
		    t->it[i].lock == lock && t->it[i].hold == SP_SIM_SHARED)
			return SP_SIM_SHARED;
	return SP_SIM_EXCL;
}

/* A boundary of a critical section: a sleep (a holder is assumed not to
 * sleep with a lock held) or a wait for @lock. */
bool sp_rp_cs_boundary(const struct sp_replay *r, const struct sp_rp_item *x, int32_t lock)
{
	/* Only mutex sections nest (a chain: A held while waiting for B). */
	return x->type == IT_SLEEP ||
	       (x->type == IT_WAIT && (x->lock == lock || r->lk[lock].kind != SP_SIM_UMUTEX));
}

/* A kernel rwsem's wake is recorded as an exclusive release; the waker's
 * side is the one it waited for since its last boundary, else the side
 * most of its waits for that rwsem took. */
void sp_rp_rwsem_wakes(struct sp_replay *r, struct sp_rp_th *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct sp_rp_item *it = &t->it[i];
		size_t j;

		if (it->type != IT_WAKE || r->lk[it->lock].kind != SP_SIM_RWSEM)
			continue;
		for (j = i; j > 0; j--) {
			const struct sp_rp_item *b = &t->it[j - 1];

			if (b->type == IT_WAIT && b->lock == it->lock)
				break;
			if (sp_rp_cs_boundary(r, b, it->lock))
				break;
		}
		if (j > 0 && t->it[j - 1].type == IT_WAIT && t->it[j - 1].lock == it->lock)
			it->hold = t->it[j - 1].hold;
		else
			it->hold = sp_rp_side_of(r, t, it->lock);
	}
}

/* Whether item @j of @t is a retry of an acquisition of @lock already
 * asked for (sp_rp_wait_op merged it into the first wait: WAIT_NONE): a glibc
 * reader that found a writer waiting in a read phase waits unregistered
 * (RWAITING, on __readers); the last reader out wakes it, it retries,
 * finds the lock write-held or a writer queued again and waits again (on
 * __readers, or on __wrphase_futex for the writer's unlock); only after
 * the last of these waits does it hold the read side and run its section.
 * A mutex waiter whose lock was taken between its wake and its retry
 * waits again the same way. A retry is no boundary of the section the
 * first wait opened: taken as one, the section would end at the retry,
 * just after the first wait, and the reader run its section outside the
 * lock. */
static bool is_retry(const struct sp_rp_item *x, int8_t op, int32_t lock)
{
	return x->type == IT_WAIT && x->lock == lock && op == WAIT_NONE;
}

/* The end of a section of @lock held from a wait: a boundary that is not
 * a retry of the same acquisition. */
bool sp_rp_cs_end(const struct sp_replay *r, const struct sp_rp_th *t, const int8_t *wop, size_t j,
		  int32_t lock)
{
	return sp_rp_cs_boundary(r, &t->it[j], lock) && !is_retry(&t->it[j], wop[j], lock);
}
