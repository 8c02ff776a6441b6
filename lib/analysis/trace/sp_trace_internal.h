/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * lib/analysis/trace internals shared by the readers. The files call
 * downwards only: sp_trace_read.c (the entry point) calls the readers
 * (sp_trace_gz_dat.c, which calls sp_trace_dat.c; sp_trace_dat.c,
 * sp_trace_par.c, sp_trace_text_stream.c), which call
 * sp_trace_text_lines.c, which calls the parser (sp_trace_parse.h) and
 * sp_trace_diag.c.
 */
#ifndef SP_TRACE_INTERNAL_H
#define SP_TRACE_INTERNAL_H

#include <stdio.h>

#include <zlib.h>

#include <superpass/trace.h>

#include "sp_trace_parse.h"

/* What every reader does with a parsed event: orders it, counts it, hands
 * it on. */
struct sp_trace_sink {
	sp_trace_event_fn fn;
	void *ctx;
	struct sp_trace_diag *d;
	uint64_t last_ts;
	int stop;  /* the callback's non-zero return */
};

/* sp_trace_diag.c */
SP_TRACE_HIDDEN void sp_trace_diag_note(struct sp_trace_diag *d, unsigned reason, uint64_t line,
					const char *what);
/* 0 to go on, else the callback's value. */
SP_TRACE_HIDDEN int sp_trace_sink_put(struct sp_trace_sink *s, struct sp_trace_event *ev,
				      uint64_t line);

#define SP_TRACE_LINE_MAX (64u * 1024u)

/* One line of text, classified: rc as sp_trace_parse_line_nul's, or TOO_LONG. */
#define SP_TRACE_LINE_TOO_LONG (-(1 + SP_TRSK_TOO_LONG)) /* a value parse_line never gives */
struct sp_trace_line {
	struct sp_trace_event ev;
	const char *p;   /* the line, in the caller's buffer */
	size_t len;
	const char *why; /* static */
	int rc;
};
SP_TRACE_HIDDEN void sp_trace_line_classify(struct sp_trace_line *l, const char *p, size_t len,
					    int nul);
SP_TRACE_HIDDEN int sp_trace_line_apply(struct sp_trace_sink *sink, struct sp_trace_diag *d,
					struct sp_trace_line *l, int64_t *delivered);
SP_TRACE_HIDDEN void sp_trace_header_line(struct sp_trace_diag *d, const char *p, size_t n);
/* Classify and apply: what every serial text reader does with a line. */
SP_TRACE_HIDDEN int sp_trace_line_one(struct sp_trace_sink *sink, struct sp_trace_diag *d,
				      const char *p, size_t len, int nul, int64_t *delivered);

/* Where the NUL bytes are, looked for a window at a time ahead of the lines
 * (one memchr per window, not one per line): the first NUL in [from, to)
 * is at nul, or there is none when nul is NULL. */
struct sp_trace_nuls {
	const char *from, *to, *nul, *end;
};
SP_TRACE_HIDDEN bool sp_trace_nul_in(struct sp_trace_nuls *z, const char *p, const char *e);

/* A plain file in memory, on this thread (sp_trace_text_lines.c), and split
 * into chunks parsed on several (sp_trace_par.c: the same lines, verdicts
 * and order). */
SP_TRACE_HIDDEN int64_t sp_trace_read_mem(const char *buf, size_t size, sp_trace_event_fn fn,
					  void *ctx, struct sp_trace_diag *d);
SP_TRACE_HIDDEN int64_t sp_trace_read_mem_parallel(const char *buf, size_t size,
						   sp_trace_event_fn fn, void *ctx,
						   struct sp_trace_diag *d);
/* A text stream, from @f or (when not NULL) @gz (sp_trace_text_stream.c). */
SP_TRACE_HIDDEN int64_t sp_trace_read_stream(FILE *f, gzFile gz, sp_trace_event_fn fn, void *ctx,
					     struct sp_trace_diag *d);

/* A gzip-compressed .dat (sp_trace_gz_dat.c): unpacked, at most
 * sp_trace_gz_max() bytes of it, into an unnamed file in sp_trace_tmpdir(),
 * and read from there. -EFBIG past the limit, -ENOSPC when TMPDIR is (or
 * would be) full, -EDOM for a bad SP_TRACE_GZ_MAX_ENV. */
#define SP_TRACE_GZ_MAX_ENV "SUPERPASS_TRACE_GZ_MAX_MIB"
#define SP_TRACE_GZ_MAX_DEFAULT_MIB 1024u
#define SP_TRACE_GZ_MAX_MIB_HI (1u << 20) /* 1 TiB */
SP_TRACE_HIDDEN int64_t sp_trace_read_gz_dat(gzFile gz, sp_trace_event_fn fn, void *ctx,
					     struct sp_trace_diag *d);
/* TMPDIR, or /tmp when it is unset or empty. */
SP_TRACE_HIDDEN const char *sp_trace_tmpdir(void);
/* A .dat from @fd, which stays the caller's (sp_trace_dat.c). */
SP_TRACE_HIDDEN int64_t sp_trace_read_dat_fd(int fd, sp_trace_event_fn fn, void *ctx,
					     struct sp_trace_diag *d);

#endif
