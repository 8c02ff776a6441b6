// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A text trace's lines, wherever they are read from: what one line is
 * (classified on any thread) and what the reader does with it (applied in
 * order on the caller's), the header lines' facts, NUL bytes looked for a
 * window at a time, and a mapped file read on this thread.
 */
#include <stdlib.h>
#include <string.h>

#include <superpass/trace.h>

#include "sp_trace_internal.h"

void sp_trace_header_line(struct sp_trace_diag *d, const char *p, size_t n)
{
	const char *q;
	char tmp[256];

	if (n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	if ((q = strstr(tmp, "#P:")) != NULL)
		d->ncpus = atoi(q + 3);
	else if (!strncmp(tmp, "cpus=", 5))
		d->ncpus = atoi(tmp + 5);
	if ((q = strstr(tmp, "entries-in-buffer/entries-written:")) != NULL) {
		unsigned long long in, wr;

		if (sscanf(q + 35, " %llu/%llu", &in, &wr) == 2 && wr > in)
			d->overwritten += wr - in;
	}
}


/* What one line is (sp_trace_line_classify) and what the reader does with it
 * (sp_trace_line_apply): split so that the parallel reader can classify on
 * other threads and apply in order on the caller's. */
void sp_trace_line_classify(struct sp_trace_line *l, const char *p, size_t len, int nul)
{
	l->p = p;
	l->len = len;
	l->why = NULL;
	if (len > SP_TRACE_LINE_MAX) {
		l->rc = SP_TRACE_LINE_TOO_LONG;
		return;
	}
	l->rc = sp_trace_parse_line_nul(p, len, &l->ev, &l->why, nul);
}

/* The line is numbered d->lines + 1. 1 to stop (sink->stop set), else 0. */
int sp_trace_line_apply(struct sp_trace_sink *sink, struct sp_trace_diag *d,
			struct sp_trace_line *l, int64_t *delivered)
{
	d->lines++;
	if (l->rc == SP_TRACE_LINE_TOO_LONG) {
		sp_trace_diag_note(d, SP_TRSK_TOO_LONG, d->lines, NULL);
	} else if (l->rc > 0) {
		if (sp_trace_sink_put(sink, &l->ev, d->lines))
			return 1;
		(*delivered)++;
	} else if (l->rc == 0) {
		d->comments++;
		if (l->len && (*l->p == '#' || *l->p == 'c'))
			sp_trace_header_line(d, l->p, l->len);
	} else {
		sp_trace_diag_note(d, (unsigned)(-l->rc - 1), d->lines, l->why);
	}
	return 0;
}

int sp_trace_line_one(struct sp_trace_sink *sink, struct sp_trace_diag *d, const char *p,
		      size_t len, int nul, int64_t *delivered)
{
	struct sp_trace_line l;

	sp_trace_line_classify(&l, p, len, nul);
	return sp_trace_line_apply(sink, d, &l, delivered);
}

#define SP_TRACE_NUL_WINDOW (256u * 1024u)

/* Whether [p, e) holds a NUL; p never goes back. */
bool sp_trace_nul_in(struct sp_trace_nuls *z, const char *p, const char *e)
{
	if (z->nul && z->nul < p) { /* passed: look again from p */
		z->from = z->to = p;
		z->nul = NULL;
	}
	while (!z->nul && z->to < e) {
		size_t n = (size_t)(z->end - z->to);

		if (n > SP_TRACE_NUL_WINDOW && z->to + SP_TRACE_NUL_WINDOW >= e)
			n = SP_TRACE_NUL_WINDOW;
		else if (n > SP_TRACE_NUL_WINDOW)
			n = (size_t)(e - z->to);
		z->nul = memchr(z->to, '\0', n);
		z->to += n;
	}
	return z->nul && z->nul < e;
}

/* A plain file mapped whole: lines found in place, nothing copied. The
 * same lines, numbers and verdicts as sp_trace_read_stream. */
int64_t sp_trace_read_mem(const char *buf, size_t size, sp_trace_event_fn fn, void *ctx,
		      struct sp_trace_diag *d)
{
	struct sp_trace_sink sink = { .fn = fn, .ctx = ctx, .d = d };
	const char *p = buf, *end = buf + size;
	struct sp_trace_nuls z = { .from = buf, .to = buf, .nul = NULL, .end = end };
	int64_t delivered = 0;

	d->bytes += size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len;

		if (!nl) {
			d->truncated = true;
			len = (size_t)(end - p);
		} else {
			len = (size_t)(nl - p);
		}
		if (sp_trace_line_one(&sink, d, p, len, sp_trace_nul_in(&z, p, p + len), &delivered))
			return sink.stop;
		if (!nl)
			break;
		p = nl + 1;
	}
	return delivered;
}

/* Maps @fd when it is a regular, non-empty file: 0 and *out, else -1. */
