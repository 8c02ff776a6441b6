// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "sp_actq.h"

static uint32_t sp_actq_hash(const struct sp_actq *q, sp_tid_t tid)
{
	return (uint32_t)((tid * 0x9e3779b97f4a7c15ull) >> 32) & (2 * q->cap - 1);
}

int sp_actq_init(struct sp_actq *q, uint32_t cap)
{
	uint32_t c = 8;

	memset(q, 0, sizeof(*q));
	while (c < cap && c < (1u << 20))
		c <<= 1;
	q->cap = c;
	q->ring = sp_os_zalloc(sizeof(*q->ring) * c);
	q->set = sp_os_zalloc(sizeof(*q->set) * 2 * c);
	if (!q->ring || !q->set) {
		sp_actq_fini(q);
		return -ENOMEM;
	}
	sp_os_lock_init(&q->lock);
	return 0;
}

void sp_actq_fini(struct sp_actq *q)
{
	if (q->ring || q->set) {
		sp_os_free(q->ring);
		sp_os_free(q->set);
		if (q->cap)
			sp_os_lock_destroy(&q->lock);
	}
	memset(q, 0, sizeof(*q));
}

/* The set slot holding @tid, or the empty slot where it would go. */
static uint32_t sp_actq_slot(const struct sp_actq *q, sp_tid_t tid)
{
	uint32_t mask = 2 * q->cap - 1, i = sp_actq_hash(q, tid);

	/* Never full: the set holds at most cap tids in 2 * cap slots. */
	while (q->set[i] && q->set[i] != tid)
		i = (i + 1) & mask;
	return i;
}

/* Backward-shift deletion: no tombstones, so probes stay short however
 * many tids come and go. */
static void sp_actq_unset(struct sp_actq *q, sp_tid_t tid)
{
	uint32_t mask = 2 * q->cap - 1, hole = sp_actq_slot(q, tid), i, home;

	if (!q->set[hole])
		return;
	q->set[hole] = 0;
	for (i = (hole + 1) & mask; q->set[i]; i = (i + 1) & mask) {
		home = sp_actq_hash(q, q->set[i]);
		/* Move the entry into the hole unless its home lies
		 * cyclically in (hole, i]. */
		if (((i - home) & mask) >= ((i - hole) & mask)) {
			q->set[hole] = q->set[i];
			q->set[i] = 0;
			hole = i;
		}
	}
}

bool sp_actq_push(struct sp_actq *q, sp_tid_t tid)
{
	bool kick = false;
	uint32_t s;

	if (!tid)
		return false;
	sp_os_lock(&q->lock);
	q->pushes++;
	s = sp_actq_slot(q, tid);
	if (q->set[s]) {
		q->dups++;
	} else if (q->head - q->tail < q->cap) {
		q->set[s] = tid;
		q->ring[q->head++ & (q->cap - 1)] = tid;
		kick = true;
	} else {
		q->overflows++;
		q->rescan = true;
		kick = true;
	}
	sp_os_unlock(&q->lock);
	return kick;
}

sp_tid_t sp_actq_pop(struct sp_actq *q)
{
	sp_tid_t tid = 0;

	sp_os_lock(&q->lock);
	if (q->head != q->tail) {
		tid = q->ring[q->tail++ & (q->cap - 1)];
		sp_actq_unset(q, tid);
	}
	sp_os_unlock(&q->lock);
	return tid;
}

bool sp_actq_take_rescan(struct sp_actq *q)
{
	bool r;

	sp_os_lock(&q->lock);
	r = q->rescan;
	q->rescan = false;
	sp_os_unlock(&q->lock);
	return r;
}

void sp_actq_atfork_child(struct sp_actq *q)
{
	sp_os_lock_init(&q->lock);
	memset(q->set, 0, sizeof(*q->set) * 2 * q->cap);
	q->head = q->tail = 0;
	q->rescan = false;
}
