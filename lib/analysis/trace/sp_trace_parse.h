/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The ftrace text parser's pieces, inside superpass::trace and its internal
 * object library (never installed): the line dispatcher (sp_trace_line.c)
 * on top, the three prefix parsers and the payload parsers below it.
 */
#ifndef SP_TRACE_PARSE_H
#define SP_TRACE_PARSE_H

#include <stddef.h>

#include <superpass/trace.h>

#define SP_TRACE_HIDDEN __attribute__((visibility("hidden")))

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


/* sp_trace_parse_line, told whether the line holds a NUL byte (@nul 1 or
 * 0: its caller scanned for them) or not (-1: it looks). */
SP_TRACE_HIDDEN int sp_trace_parse_line_nul(const char *line, size_t len,
					    struct sp_trace_event *ev, const char **why, int nul);
/* The same by the byte-by-byte parser alone, without the fast prefixes
 * of the kernel's lines (its fixed layout, vector masks): what they must
 * agree with (the fuzzer and test_trace_masked compare them). */
SP_TRACE_HIDDEN int sp_trace_parse_line_scalar(const char *line, size_t len,
					       struct sp_trace_event *ev, const char **why,
					       int nul);

/* The prefix of an event line: the timestamp, CPU, flags, pid and comm
 * into @ev, and the event's name [*name_out, *ne_out). */
SP_TRACE_HIDDEN int sp_trace_prefix_general(const char *p, const char *e,
					    struct sp_trace_event *ev, const char **why,
					    const char **name_out, const char **ne_out);
#if defined(__SSE2__)
/* 1 when the line is in a form these take, else 0 with @ev untouched. */
SP_TRACE_HIDDEN int sp_trace_prefix_masked(const char *line, const char *e,
					   struct sp_trace_event *ev, const char **name_out,
					   const char **ne_out);
SP_TRACE_HIDDEN int sp_trace_prefix_kernel(const char *line, const char *e,
					   struct sp_trace_event *ev, const char **name_out,
					   const char **ne_out);
#endif

/* The event's name [n, ne) and its arguments [a, e): 0 when parsed, else
 * -SP_TRSK_* (the reason). */
SP_TRACE_HIDDEN int sp_trace_parse_event(const char *n, const char *ne, const char *a,
					 const char *e, struct sp_trace_event *ev);
/* The kernel's "sys_futex(...)" and "sys_futex -> 0x..." arguments. */
SP_TRACE_HIDDEN int sp_trace_parse_futex_enter(const char *p, const char *e,
					       struct sp_trace_event *ev);
SP_TRACE_HIDDEN int sp_trace_parse_futex_exit(const char *p, const char *e,
					      struct sp_trace_event *ev);
/* A lost-event marker: 1 and @ev when [p, e) is one, else 0. */
SP_TRACE_HIDDEN int sp_trace_parse_lost(const char *p, const char *e, struct sp_trace_event *ev);

#endif /* SP_TRACE_PARSE_H */
