// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A large plain text file in memory, parsed on several threads.
 *
 * The file is cut into chunks of about SP_TRACE_CHUNK bytes, each ending
 * after a newline (or at the end of the file). Worker threads classify the
 * lines of a chunk (sp_trace_line_classify: parse, no side effect) into that
 * chunk's slot of a ring; the calling thread applies the slots in file
 * order (sp_trace_line_apply: line numbers, diagnostics, time order and the
 * callback), so what it sees is what sp_trace_read_mem gives on one thread,
 * line for line, and the callback runs on the caller's thread only. While
 * the next chunk is not ready the caller parses one nobody has yet rather
 * than wait. Used for regular files of at least SP_TRACE_PAR_MIN bytes;
 * SUPERPASS_TRACE_THREADS=N sets the threads (parsing ones, the caller
 * included; 1: none started), the default is the CPUs online, at most 8.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <superpass/trace.h>

#include "sp_vec.h"
#include "sp_trace_internal.h"

#define SP_TRACE_CHUNK (1u << 20)
#define SP_TRACE_PAR_MIN (4u * SP_TRACE_CHUNK)
#define SP_TRACE_MAX_THREADS 8u

/* A cache line each: the thread filling one slot and the caller reading
 * another must not share a line, or it moves between the CPUs on every
 * line of text. */
struct slot {
	struct sp_trace_line *v;
	size_t n, cap;
	bool ready;    /* under par.lock: the lines of chunk `chunk` are in v */
	bool failed;   /* out of memory: the caller parses the chunk again itself */
} __attribute__((aligned(64)));

struct par {
	const char *buf;
	size_t size, nchunks, ring;
	struct slot *slots;
	pthread_mutex_t lock;
	pthread_cond_t ready; /* a slot became ready */
	pthread_cond_t space; /* a slot was consumed, or stop */
	size_t next_claim;    /* under lock: the next chunk nobody parses yet */
	size_t consumed;      /* under lock: chunks applied */
	bool stop;            /* under lock */
};

/* Where chunk @k starts: after the first newline at or after k *
 * SP_TRACE_CHUNK - 1, so that chunk k - 1 ends at a line's end. Both
 * neighbours compute it alike, and it never decreases with k. */
static size_t chunk_start(const struct par *p, size_t k)
{
	size_t at = k * (size_t)SP_TRACE_CHUNK;
	const char *nl;

	if (!k)
		return 0;
	if (at - 1 >= p->size)
		return p->size;
	nl = memchr(p->buf + at - 1, '\n', p->size - (at - 1));
	return nl ? (size_t)(nl + 1 - p->buf) : p->size;
}

/* Classifies the lines of chunk @k into @s (the thread that claimed it
 * owns @s until it marks it ready). */
static void parse_chunk(struct par *p, size_t k, struct slot *s)
{
	const char *q = p->buf + chunk_start(p, k), *end = p->buf + chunk_start(p, k + 1);
	struct sp_trace_nuls z = { .from = q, .to = q, .nul = NULL, .end = end };
	size_t n = 0; /* s->n once at the end, not a store a line */

	s->failed = false;
	while (q < end) {
		const char *nl = memchr(q, '\n', (size_t)(end - q));
		size_t len = nl ? (size_t)(nl - q) : (size_t)(end - q);

		if (n == s->cap && sp_grow((void **)&s->v, &s->cap, sizeof(*s->v), s->cap + 1, 8192)) {
			s->failed = true;
			s->n = 0;
			return;
		}
		sp_trace_line_classify(&s->v[n++], q, len, sp_trace_nul_in(&z, q, q + len));
		if (!nl)
			break;
		q = nl + 1;
	}
	s->n = n;
}

static void *worker(void *arg)
{
	struct par *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		size_t k;

		while (!p->stop && p->next_claim < p->nchunks &&
		       p->next_claim >= p->consumed + p->ring)
			pthread_cond_wait(&p->space, &p->lock);
		if (p->stop || p->next_claim >= p->nchunks)
			break;
		k = p->next_claim++;
		pthread_mutex_unlock(&p->lock);
		/* the slot is free: chunk k - ring was consumed (the wait above) */
		parse_chunk(p, k, &p->slots[k % p->ring]);
		pthread_mutex_lock(&p->lock);
		p->slots[k % p->ring].ready = true;
		pthread_cond_broadcast(&p->ready);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static unsigned threads_wanted(void)
{
	const char *env = getenv("SUPERPASS_TRACE_THREADS");
	long n;

	if (env && *env) {
		n = strtol(env, NULL, 10);
		return n < 1 ? 1 : n > (long)SP_TRACE_MAX_THREADS ? SP_TRACE_MAX_THREADS : (unsigned)n;
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > (long)SP_TRACE_MAX_THREADS ? SP_TRACE_MAX_THREADS : (unsigned)n;
}

/* Applies the lines of chunk @k (parsed into @s, or again here if that
 * failed). 1 when the callback stopped the read. */
static int apply_chunk(struct par *p, size_t k, struct slot *s, struct sp_trace_sink *sink,
		       struct sp_trace_diag *d, int64_t *delivered)
{
	if (s->failed) { /* one line at a time, nothing kept */
		const char *q = p->buf + chunk_start(p, k), *end = p->buf + chunk_start(p, k + 1);
		struct sp_trace_nuls z = { .from = q, .to = q, .nul = NULL, .end = end };

		while (q < end) {
			const char *nl = memchr(q, '\n', (size_t)(end - q));
			size_t len = nl ? (size_t)(nl - q) : (size_t)(end - q);
			struct sp_trace_line l;

			if (!nl)
				d->truncated = true;
			sp_trace_line_classify(&l, q, len, sp_trace_nul_in(&z, q, q + len));
			if (sp_trace_line_apply(sink, d, &l, delivered))
				return 1;
			if (!nl)
				break;
			q = nl + 1;
		}
		return 0;
	}
	for (size_t i = 0, n = s->n; i < n; i++) {
		struct sp_trace_line *l = &s->v[i];

		/* the file's last line, without its newline */
		if (l->p + l->len == p->buf + p->size)
			d->truncated = true;
		if (sp_trace_line_apply(sink, d, l, delivered))
			return 1;
	}
	return 0;
}

int64_t sp_trace_read_mem_parallel(const char *buf, size_t size, sp_trace_event_fn fn, void *ctx,
			       struct sp_trace_diag *d)
{
	struct sp_trace_sink sink = { .fn = fn, .ctx = ctx, .d = d };
	unsigned nthreads = size >= SP_TRACE_PAR_MIN ? threads_wanted() : 1, started = 0;
	pthread_t tids[SP_TRACE_MAX_THREADS];
	struct par p = { .buf = buf, .size = size };
	int64_t delivered = 0;
	bool stopped = false;

	if (nthreads < 2)
		return sp_trace_read_mem(buf, size, fn, ctx, d);
	p.nchunks = (size + SP_TRACE_CHUNK - 1) / SP_TRACE_CHUNK;
	p.ring = 2 * (size_t)nthreads;
	/* on their own cache lines (struct slot) */
	p.slots = aligned_alloc(_Alignof(struct slot), p.ring * sizeof(*p.slots));
	if (!p.slots)
		return sp_trace_read_mem(buf, size, fn, ctx, d);
	memset(p.slots, 0, p.ring * sizeof(*p.slots));
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.ready, NULL);
	pthread_cond_init(&p.space, NULL);
	/* the caller is one of the parsing threads */
	for (unsigned i = 0; i + 1 < nthreads; i++)
		if (!pthread_create(&tids[started], NULL, worker, &p))
			started++;
	d->bytes += size;
	for (size_t k = 0; k < p.nchunks && !stopped; k++) {
		struct slot *s = &p.slots[k % p.ring];

		pthread_mutex_lock(&p.lock);
		/* Rather than wait for chunk k, parse the next chunk nobody has
		 * (k itself when it is that one): its slot is free, as chunks
		 * before k are consumed. */
		while (!s->ready) {
			if (p.next_claim < p.nchunks && p.next_claim < p.consumed + p.ring) {
				size_t j = p.next_claim++;

				pthread_mutex_unlock(&p.lock);
				parse_chunk(&p, j, &p.slots[j % p.ring]);
				pthread_mutex_lock(&p.lock);
				p.slots[j % p.ring].ready = true;
				pthread_cond_broadcast(&p.ready);
			} else {
				pthread_cond_wait(&p.ready, &p.lock);
			}
		}
		pthread_mutex_unlock(&p.lock);
		stopped = apply_chunk(&p, k, s, &sink, d, &delivered);
		pthread_mutex_lock(&p.lock);
		s->ready = false;
		p.consumed = k + 1;
		pthread_cond_broadcast(&p.space);
		pthread_mutex_unlock(&p.lock);
	}
	pthread_mutex_lock(&p.lock);
	p.stop = true;
	pthread_cond_broadcast(&p.space);
	pthread_mutex_unlock(&p.lock);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	for (size_t i = 0; i < p.ring; i++)
		free(p.slots[i].v);
	free(p.slots);
	pthread_cond_destroy(&p.space);
	pthread_cond_destroy(&p.ready);
	pthread_mutex_destroy(&p.lock);
	return stopped ? sink.stop : delivered;
}
