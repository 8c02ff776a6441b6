// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Where a registered thread last ran, for a few nanoseconds: glibc (2.35+)
 * registers an rseq area for every thread, at the thread pointer plus
 * __rseq_offset, and the kernel stores the thread's CPU in its cpu_id
 * every time the thread returns to user space on a CPU. Each registered
 * thread publishes a pointer to its own cpu_id here (sp_where_publish);
 * another thread reads it (sp_where_cpu) to decide whether a fast track
 * it applies itself would land on its own CPU (sp_wk_fast_track).
 *
 * The area is in the owner's thread control block, which glibc may unmap
 * once the thread is gone. A reader therefore reads it only inside the
 * entry's busy count, and a thread taking its entry back (sp_where_forget,
 * from its exit hook, before its memory can go) clears the pointer and
 * waits until nobody is inside; both sides are sequentially consistent,
 * so either the reader sees the cleared pointer or the owner sees the
 * reader. Inserts and removals are serialised by a mutex; lookups take no
 * lock.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/rseq.h>

#include "sp_rt.h"

#define SP_WHERE_SLOTS 1024u /* power of two, as many as the registry's */
#define SP_WHERE_TOMB UINT64_MAX

struct sp_where_slot {
	sp_tid_t tid;           /* atomic; 0 free, SP_WHERE_TOMB deleted */
	const uint32_t *cpu;    /* atomic; the owner's rseq cpu_id, NULL while taken back */
	uint32_t busy;          /* atomic; readers inside */
};

static struct sp_where_slot sp_where_tab[SP_WHERE_SLOTS];
static pthread_mutex_t sp_where_lock = PTHREAD_MUTEX_INITIALIZER;

static inline uint32_t sp_where_hash(sp_tid_t tid)
{
	return (uint32_t)(tid * 0x9e3779b97f4a7c15ull >> 40);
}

/* The calling thread's rseq cpu_id, NULL if glibc registered none. */
static const uint32_t *sp_where_own(void)
{
	if (__rseq_size == 0)
		return NULL;
	return &((const struct rseq *)((const char *)__builtin_thread_pointer() +
				       __rseq_offset))->cpu_id;
}

/* The slot of @tid, or NULL. No lock: slots change under our feet, the
 * caller checks the tid again inside the busy count. */
static struct sp_where_slot *sp_where_find(sp_tid_t tid)
{
	uint32_t h = sp_where_hash(tid);

	for (uint32_t i = 0; i < SP_WHERE_SLOTS; i++) {
		struct sp_where_slot *s = &sp_where_tab[(h + i) & (SP_WHERE_SLOTS - 1)];
		sp_tid_t t = __atomic_load_n(&s->tid, __ATOMIC_SEQ_CST);

		if (t == tid)
			return s;
		if (t == 0)
			return NULL;
	}
	return NULL;
}

void sp_where_publish(sp_tid_t tid)
{
	const uint32_t *cpu = sp_where_own();
	struct sp_where_slot *tomb = NULL, *s = NULL;
	uint32_t h = sp_where_hash(tid);

	if (!cpu || tid == 0)
		return;
	sp_rt_lock(&sp_where_lock);
	for (uint32_t i = 0; i < SP_WHERE_SLOTS; i++) {
		struct sp_where_slot *c = &sp_where_tab[(h + i) & (SP_WHERE_SLOTS - 1)];
		sp_tid_t t = __atomic_load_n(&c->tid, __ATOMIC_RELAXED);

		if (t == tid) {
			s = c;
			break;
		}
		if (t == SP_WHERE_TOMB && !tomb)
			tomb = c;
		if (t == 0) {
			s = tomb ? tomb : c;
			break;
		}
	}
	if (!s)
		s = tomb;
	if (s) {
		/* The pointer before the tid: a reader that finds the tid finds
		 * this thread's pointer (or none), never a former owner's. */
		__atomic_store_n(&s->cpu, cpu, __ATOMIC_SEQ_CST);
		__atomic_store_n(&s->tid, tid, __ATOMIC_SEQ_CST);
	}
	sp_rt_unlock(&sp_where_lock);
}

void sp_where_forget(sp_tid_t tid)
{
	struct sp_where_slot *s;

	sp_rt_lock(&sp_where_lock);
	s = sp_where_find(tid);
	if (s) {
		__atomic_store_n(&s->cpu, NULL, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&s->busy, __ATOMIC_SEQ_CST))
			sched_yield(); /* a reader's few loads */
		__atomic_store_n(&s->tid, SP_WHERE_TOMB, __ATOMIC_SEQ_CST);
	}
	sp_rt_unlock(&sp_where_lock);
}

int sp_where_cpu(sp_tid_t tid)
{
	struct sp_where_slot *s = sp_where_find(tid);
	const uint32_t *p;
	int cpu = -1;

	if (!s)
		return -1;
	__atomic_add_fetch(&s->busy, 1, __ATOMIC_SEQ_CST);
	p = __atomic_load_n(&s->cpu, __ATOMIC_SEQ_CST);
	/* Still @tid's: a slot taken back and given to another thread since
	 * the lookup has another tid by now (pointer stored first). */
	if (p && __atomic_load_n(&s->tid, __ATOMIC_SEQ_CST) == tid)
		cpu = (int)__atomic_load_n(p, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&s->busy, 1, __ATOMIC_SEQ_CST);
	return cpu; /* (uint32_t)-1 or -2: not yet run, or rseq failed */
}

int sp_where_self(void)
{
	const uint32_t *p = sp_where_own();

	return p ? (int)__atomic_load_n(p, __ATOMIC_RELAXED) : -1;
}

/* In a forked child only the forking thread exists; it publishes again
 * when it registers again. */
void sp_where_reset(void)
{
	pthread_mutex_init(&sp_where_lock, NULL);
	for (uint32_t i = 0; i < SP_WHERE_SLOTS; i++) {
		sp_where_tab[i].tid = 0;
		sp_where_tab[i].cpu = NULL;
		sp_where_tab[i].busy = 0;
	}
}
