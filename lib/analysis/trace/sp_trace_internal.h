/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* lib/analysis/trace internals shared by the readers. */
#ifndef SP_TRACE_INTERNAL_H
#define SP_TRACE_INTERNAL_H

#include <superpass/trace.h>

/* The futex syscall number raw_syscalls events are matched against. */
#if defined(__x86_64__)
#define SP_TRACE_NR_FUTEX 202
#elif defined(__aarch64__) || defined(__riscv)
#define SP_TRACE_NR_FUTEX 98
#elif defined(__i386__)
#define SP_TRACE_NR_FUTEX 240
#else
#define SP_TRACE_NR_FUTEX 202
#endif

/* What every reader does with a parsed event: orders it, counts it, hands
 * it on. */
struct sp_trace_sink {
	sp_trace_event_fn fn;
	void *ctx;
	struct sp_trace_diag *d;
	uint64_t last_ts;
	int stop;  /* the callback's non-zero return */
};

void sp_trace_diag_note(struct sp_trace_diag *d, unsigned reason, uint64_t line, const char *what);
/* 0 to go on, else the callback's value. */
int sp_trace_sink_put(struct sp_trace_sink *s, struct sp_trace_event *ev, uint64_t line);

/* sp_trace_parse_line, told whether the line holds a NUL byte (@nul 1 or
 * 0: its caller scanned for them) or not (-1: it looks). */
__attribute__((visibility("hidden"))) int sptr_parse_line(const char *line, size_t len,
							  struct sp_trace_event *ev,
							  const char **why, int nul);
/* The same by the byte-by-byte parser alone, without the fast prefixes
 * of the kernel's lines (its fixed layout, vector masks): what they must
 * agree with (the fuzzer and test_trace_masked compare them). */
__attribute__((visibility("hidden"))) int sptr_parse_line_scalar(const char *line, size_t len,
								 struct sp_trace_event *ev,
								 const char **why, int nul);

#define SP_TRACE_LINE_MAX (64u * 1024u)
#define SPTR_HIDDEN __attribute__((visibility("hidden")))

/* One line of text, classified: rc as sptr_parse_line's, or TOO_LONG. */
#define SPTR_LINE_TOO_LONG (-(1 + SP_TRSK_TOO_LONG)) /* a value parse_line never gives */
struct sptr_line {
	struct sp_trace_event ev;
	const char *p;   /* the line, in the caller's buffer */
	size_t len;
	const char *why; /* static */
	int rc;
};
SPTR_HIDDEN void sptr_line_classify(struct sptr_line *l, const char *p, size_t len, int nul);
SPTR_HIDDEN int sptr_line_apply(struct sp_trace_sink *sink, struct sp_trace_diag *d,
				struct sptr_line *l, int64_t *delivered);
SPTR_HIDDEN void sptr_header_line(struct sp_trace_diag *d, const char *p, size_t n);

/* Where the NUL bytes are, looked for a window at a time ahead of the lines
 * (one memchr per window, not one per line): the first NUL in [from, to)
 * is at nul, or there is none when nul is NULL. */
struct sptr_nuls {
	const char *from, *to, *nul, *end;
};
SPTR_HIDDEN bool sptr_nul_in(struct sptr_nuls *z, const char *p, const char *e);

/* A plain file in memory, on this thread (sp_trace_read.c), and split into
 * chunks parsed on several (sp_trace_par.c: the same lines, verdicts and
 * order). */
SPTR_HIDDEN int64_t sptr_read_mem(const char *buf, size_t size, sp_trace_event_fn fn, void *ctx,
				  struct sp_trace_diag *d);
SPTR_HIDDEN int64_t sptr_read_mem_parallel(const char *buf, size_t size, sp_trace_event_fn fn,
					   void *ctx, struct sp_trace_diag *d);

#endif
