// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The text reader of a stream, plain (FILE) or gzip (zlib): buffered, a
 * line longer than the buffer skipped to its end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <superpass/trace.h>

#include "sp_trace_internal.h"

struct src {
	FILE *f;
	gzFile gz;
};

static ssize_t src_read(struct src *s, char *buf, size_t cap)
{
	if (s->gz) {
		int n = gzread(s->gz, buf, (unsigned)cap);

		if (n < 0)
			return -1;
		return n;
	}
	size_t n = fread(buf, 1, cap, s->f);

	if (n == 0 && ferror(s->f))
		return -1;
	return (ssize_t)n;
}

#define SP_TRACE_BUF (1u << 20)

int64_t sp_trace_read_stream(FILE *f, gzFile gz, sp_trace_event_fn fn, void *ctx,
			     struct sp_trace_diag *d)
{
	struct src s = { .f = f, .gz = gz }, *src = &s;
	struct sp_trace_sink sink = { .fn = fn, .ctx = ctx, .d = d };
	char *buf = malloc(SP_TRACE_BUF + SP_TRACE_LINE_MAX);
	size_t have = 0;
	bool skipping = false, eof = false;
	int64_t delivered = 0;

	if (!buf)
		return -ENOMEM;
	while (!eof || have) {
		char *p, *nl;
		size_t used = 0;

		if (!eof) {
			ssize_t n = src_read(src, buf + have, SP_TRACE_BUF + SP_TRACE_LINE_MAX - have);

			if (n < 0) {
				free(buf);
				return -EIO;
			}
			if (n == 0)
				eof = true;
			have += (size_t)n;
			d->bytes += (uint64_t)n;
		}
		p = buf;
		for (;;) {
			size_t rest = have - used, len;

			nl = memchr(p, '\n', rest);
			if (!nl) {
				if (!eof && rest < SP_TRACE_LINE_MAX)
					break;  /* read more */
				if (!eof) { /* a line longer than the limit: skip to its end */
					if (!skipping) {
						d->lines++;
						sp_trace_diag_note(d, SP_TRSK_TOO_LONG, d->lines, NULL);
					}
					skipping = true;
					used = have;
					break;
				}
				if (!rest)
					break;
				d->truncated = true;
				len = rest;
			} else {
				len = (size_t)(nl - p);
			}
			if (skipping) {
				skipping = false;
			} else if (sp_trace_line_one(&sink, d, p, len, -1, &delivered)) {
				free(buf);
				return sink.stop;
			}
			used += len + (nl ? 1 : 0);
			p = buf + used;
			if (!nl)
				break;
		}
		memmove(buf, buf + used, have - used);
		have -= used;
		if (eof && have == 0)
			break;
	}
	free(buf);
	return delivered;
}

int64_t sp_trace_read_text(FILE *f, sp_trace_event_fn fn, void *ctx, struct sp_trace_diag *d)
{
	return sp_trace_read_stream(f, NULL, fn, ctx, d);
}
