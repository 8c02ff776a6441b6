/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* lib/trace internals shared by the readers. */
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
/* sp_trace_parse_line, told whether the line holds a NUL byte (@nul 1 or
 * 0: its caller scanned for them) or not (-1: it looks). */
__attribute__((visibility("hidden"))) int sptr_parse_line(const char *line, size_t len,
							  struct sp_trace_event *ev,
							  const char **why, int nul);

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

#endif
