/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * superpass::trace: read kernel scheduler traces and find every blocking of
 * a critical thread, who blocked it, and what the blocker did meanwhile.
 *
 * Two layers, both streaming (memory grows with the threads and episodes
 * found, not with the trace):
 *
 *  - Readers turn a trace into struct sp_trace_event records, in time
 *    order: ftrace text (tracefs `trace` and `trace_pipe`, with or without
 *    the irq-info and tgid columns, `trace-cmd report` output, Perfetto's
 *    systrace export; plain or gzip-compressed) and trace-cmd .dat
 *    files (through libtracecmd/libtraceevent). What cannot be used is
 *    counted per reason in struct sp_trace_diag, with the first line
 *    numbers; a reader never stops at a bad line.
 *  - The analysis takes those events and builds blocking episodes of the
 *    selected threads: futex waits (merged when one acquisition waits more
 *    than once) and kernel lock waits (lock:contention_begin..end). The
 *    blocker of a wait is the thread whose sched_waking ended it; its time
 *    during the wait is split into running, runnable (waiting for a CPU),
 *    sleeping and blocked (sleeping in a lock wait of its own), and a
 *    blocker that was itself blocked leads to the next thread of the chain.
 *
 * Functions return 0 (or a count) on success and a negative errno value on
 * failure. Nothing here is thread-safe: use one analysis per thread (the
 * reader's own threads never call back).
 * Unlike the core, this library uses libc, stdio and floating point.
 */
#ifndef SUPERPASS_TRACE_H
#define SUPERPASS_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <superpass/hist.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_TRACE_COMM_LEN 16 /* TASK_COMM_LEN, with the NUL */

/* ---- events ---- */
enum sp_trace_type {
	SP_TR_NONE = 0,
	SP_TR_SWITCH,      /* sched_switch */
	SP_TR_WAKING,      /* sched_waking (in the waker's context) */
	SP_TR_WAKEUP,      /* sched_wakeup */
	SP_TR_WAKEUP_NEW,  /* sched_wakeup_new */
	SP_TR_FORK,        /* sched_process_fork */
	SP_TR_EXIT,        /* sched_process_exit */
	SP_TR_RENAME,      /* task_rename */
	SP_TR_LOCK_BEGIN,  /* lock:contention_begin */
	SP_TR_LOCK_END,    /* lock:contention_end */
	SP_TR_FUTEX_ENTER, /* syscalls:sys_enter_futex, or raw_syscalls:sys_enter of futex */
	SP_TR_FUTEX_EXIT,  /* syscalls:sys_exit_futex, or raw_syscalls:sys_exit of futex */
	SP_TR_LOST,        /* the buffer dropped events before this point */
	SP_TR_NR
};

/* sched_switch prev_state, reduced to what the analysis needs. */
enum sp_trace_prev_state {
	SP_TRS_RUNNABLE = 0, /* R or R+: preempted, still wants the CPU */
	SP_TRS_SLEEPING = 1, /* S, I, T, t, P ... */
	SP_TRS_UNINTERRUPTIBLE = 2, /* D */
	SP_TRS_DEAD = 3,     /* X or Z */
};

/* lock:contention_begin flags (LCB_F_*, include/trace/events/lock.h) */
#define SP_TRACE_LCB_SPIN 0x01u
#define SP_TRACE_LCB_READ 0x02u
#define SP_TRACE_LCB_WRITE 0x04u
#define SP_TRACE_LCB_RT 0x08u
#define SP_TRACE_LCB_PERCPU 0x10u
#define SP_TRACE_LCB_MUTEX 0x20u

/* The event came from interrupt context (hardirq or softirq): its pid is
 * whatever ran on the CPU, not the cause. */
#define SP_TRACE_EVF_IRQ 0x1u
/* The context flags were known (irq-info column or a .dat record). */
#define SP_TRACE_EVF_CTX_KNOWN 0x2u

struct sp_trace_event {
	uint64_t ts_ns;
	uint32_t type;        /* enum sp_trace_type */
	int32_t cpu;          /* -1 if unknown */
	int32_t pid;          /* common_pid: the task the event ran in */
	uint32_t flags;       /* SP_TRACE_EVF_* */
	char comm[SP_TRACE_COMM_LEN]; /* common_pid's comm when the format shows it */
	union {
		struct {
			int32_t prev_pid, prev_prio, next_pid, next_prio;
			uint32_t prev_state; /* enum sp_trace_prev_state */
			char prev_comm[SP_TRACE_COMM_LEN], next_comm[SP_TRACE_COMM_LEN];
		} sw;
		struct { /* WAKING, WAKEUP, WAKEUP_NEW */
			int32_t pid, prio, target_cpu;
			char comm[SP_TRACE_COMM_LEN];
		} wake;
		struct {
			int32_t parent_pid, child_pid;
			char child_comm[SP_TRACE_COMM_LEN];
		} fork;
		struct { /* EXIT */
			int32_t pid, prio;
		} exit;
		struct {
			int32_t pid;
			char newcomm[SP_TRACE_COMM_LEN];
		} rename;
		struct { /* LOCK_BEGIN (flags), LOCK_END (ret) */
			uint64_t addr;
			uint32_t flags;
			int32_t ret;
		} lock;
		struct { /* FUTEX_ENTER (uaddr, op, val), FUTEX_EXIT (ret) */
			uint64_t uaddr;
			uint32_t op, val;
			int64_t ret;
		} futex;
		struct {
			uint64_t count; /* 0: an unknown number */
		} lost;
	} u;
};

const char *sp_trace_type_name(unsigned int type);

/* ---- what a reader skipped ---- */
enum sp_trace_skip {
	SP_TRSK_UNPARSABLE = 0, /* not an ftrace event line */
	SP_TRSK_UNKNOWN_EVENT,  /* an event the analysis does not use */
	SP_TRSK_MISSING_FIELD,  /* a known event without a field it needs */
	SP_TRSK_BAD_VALUE,      /* a field that is not a number, or out of range */
	SP_TRSK_BINARY,         /* a line with NUL or control bytes */
	SP_TRSK_TOO_LONG,       /* a line longer than the reader's limit */
	SP_TRSK_OUT_OF_ORDER,   /* a timestamp earlier than the one before it (kept, clamped) */
	SP_TRSK_LOST,           /* lost-event markers (the count of events is in lost_events) */
	SP_TRSK_NR
};
#define SP_TRACE_DIAG_LINES 4

struct sp_trace_diag {
	uint64_t lines;        /* text lines read (records for .dat) */
	uint64_t bytes;
	uint64_t events;       /* events handed on */
	uint64_t comments;     /* header and comment lines */
	uint64_t lost_events;  /* events the kernel said it lost, where it said how many */
	uint64_t overwritten;  /* events the ring buffer overwrote before the trace was read */
	int ncpus;             /* #P: of the header, or the .dat's CPU count; 0 unknown */
	bool truncated;        /* the input ended inside a line or a record */
	uint64_t skipped[SP_TRSK_NR];
	uint64_t first_line[SP_TRSK_NR][SP_TRACE_DIAG_LINES]; /* 1-based; 0 = none */
	char first_what[SP_TRSK_NR][96]; /* what was wrong with the first one */
};

void sp_trace_diag_init(struct sp_trace_diag *d);
const char *sp_trace_skip_name(unsigned int reason);
/* "unparsable line: 3 (first at lines 7, 9, 12: no timestamp)" per reason. */
void sp_trace_diag_print(FILE *f, const char *path, const struct sp_trace_diag *d);

/* ---- readers ---- */
/* Called for each event in time order; a non-zero return stops the read
 * and is returned by the read function. */
typedef int (*sp_trace_event_fn)(void *ctx, const struct sp_trace_event *ev);

/* Parses one line of ftrace text (without its newline). 1: *ev filled;
 * 0: a comment, header or blank line (nothing to do); negative: -(1 +
 * enum sp_trace_skip) and, if @why is non-NULL, a short static reason. A
 * lost-event marker returns 1 with type SP_TR_LOST. Never reads past @len. */
int sp_trace_parse_line(const char *line, size_t len, struct sp_trace_event *ev,
			const char **why);

/* Reads ftrace text from @f (plain text; see sp_trace_read_file for
 * gzip files). Returns the number of events delivered, a callback's
 * non-zero value, or -EIO. */
int64_t sp_trace_read_text(FILE *f, sp_trace_event_fn fn, void *ctx, struct sp_trace_diag *d);

/* Reads a .dat through libtracecmd. -ENOTSUP when built without it. */
int64_t sp_trace_read_dat(const char *path, sp_trace_event_fn fn, void *ctx,
			  struct sp_trace_diag *d);

/* Opens @path ("-" is stdin), tells a .dat from text (gzip-compressed
 * text too, read as a stream) and reads it. -ENOENT and the like when it
 * cannot be opened, -EINVAL for a file that is neither. A gzip-compressed
 * .dat is unpacked first (libtracecmd seeks), into a file without a name
 * in TMPDIR that nothing outlives, SIGKILL included: -EFBIG when it
 * expands past sp_trace_gz_max(), -ENOSPC when TMPDIR's filesystem would
 * be left with less than 5 % (at most 64 MiB) free, -EDOM for a bad
 * SUPERPASS_TRACE_GZ_MAX_MIB. Plain text in a regular file is read from a
 * mapping, and from 4 MiB up parsed on several threads (the environment's
 * SUPERPASS_TRACE_THREADS=N, 1 for none; default the CPUs online, at most
 * 8): @fn still runs on the calling thread, in the file's order, with the
 * same events and diagnostics as on one thread. */
int64_t sp_trace_read_file(const char *path, sp_trace_event_fn fn, void *ctx,
			   struct sp_trace_diag *d);

/* The most a gzip-compressed .dat may expand to, in bytes: the
 * environment's SUPERPASS_TRACE_GZ_MAX_MIB (MiB, 1 to 1048576), else
 * 1024 MiB; -EDOM when that variable is set to anything else. */
int64_t sp_trace_gz_max(void);

/* What a negative return @rc of sp_trace_read_file means, in words that
 * name @path, the limit or directory at fault and what to do about it;
 * written to @buf (of @cap bytes), which is returned. */
const char *sp_trace_read_strerror(int64_t rc, const char *path, char *buf, size_t cap);

/* ---- analysis ---- */
enum sp_trace_state {
	SP_TST_UNKNOWN = 0,
	SP_TST_RUNNING,
	SP_TST_RUNNABLE, /* preempted or woken, waiting for a CPU */
	SP_TST_SLEEPING,
	SP_TST_BLOCKED,  /* sleeping inside a lock wait */
	SP_TST_NR
};

enum sp_trace_wait_kind {
	SP_TWK_FUTEX = 0,
	SP_TWK_MUTEX,    /* kernel mutex / rt_mutex */
	SP_TWK_RWSEM_READ,
	SP_TWK_RWSEM_WRITE,
	SP_TWK_SPIN,     /* spinlocks (only with spin set) */
	SP_TWK_OTHER,    /* another kernel lock kind */
	SP_TWK_NR
};
const char *sp_trace_wait_kind_name(unsigned int kind);

struct sp_trace_opts {
	const char *const *critical_comms; /* fnmatch patterns; NULL-terminated or NULL */
	const int32_t *critical_tids;
	size_t nr_critical_tids;
	/* Neither given: every thread that waits is analysed. */
	bool spin;                /* also spinlock contention (default off) */
	uint64_t merge_ns;        /* waits on one word between which the thread ran or slept
				   no more than this are one acquisition (50 us) */
	uint64_t min_ns;          /* episodes shorter than this are not recorded (0) */
	uint64_t window_ns;       /* history kept behind the oldest open wait (10 s) */
	uint32_t max_chain;       /* chain depth (8, 1..16) */
};
void sp_trace_opts_default(struct sp_trace_opts *o);

/* A blocker's time during the waits it ended. */
struct sp_trace_split {
	uint64_t ns[SP_TST_NR]; /* indexed by enum sp_trace_state */
};

/* One wait (a futex syscall or a contention_begin..end) inside an episode. */
struct sp_trace_segment {
	uint64_t start_ns, end_ns;
	int32_t blocker_tid;          /* 0: none (timeout, signal, no wakeup seen) */
	uint32_t blocker_id;          /* index into the thread list, UINT32_MAX none */
	struct sp_trace_split split;  /* the blocker's time in [start, end] */
	uint32_t chain_len;           /* threads behind the blocker */
	int32_t chain[16];            /* their tids, nearest first */
	/* chain[i]'s time while the thread before it (the blocker for i = 0)
	 * waited on it, and that stretch (within [start_ns, end_ns]) */
	struct sp_trace_split chain_split[16];
	uint64_t chain_start_ns[16], chain_end_ns[16];
};

struct sp_trace_episode {
	uint32_t waiter_id;           /* index into the thread list */
	uint32_t kind;                /* enum sp_trace_wait_kind */
	uint64_t lock;                /* futex uaddr or kernel lock address */
	uint64_t start_ns, end_ns;
	uint32_t nr_segments;
	struct sp_trace_segment *segments;
	bool lost;                    /* overlaps lost events: durations may be off */
};

struct sp_trace_preemptor {
	uint32_t thread_id;
	uint64_t ns;                  /* ran while the blocker was runnable */
};
#define SP_TRACE_MAX_PREEMPTORS 8

/* Per (critical thread, blocker) pair. */
struct sp_trace_blocker {
	uint32_t thread_id;
	uint64_t episodes;            /* episodes in which it ended a wait */
	uint64_t blocking_ns;         /* wait time it ended */
	struct sp_trace_split split;
	uint32_t nr_preemptors;       /* the largest, sorted, up to SP_TRACE_MAX_PREEMPTORS */
	struct sp_trace_preemptor preemptors[SP_TRACE_MAX_PREEMPTORS];
};

struct sp_trace_lock_stat {
	uint64_t lock;
	uint32_t kind;
	uint64_t episodes, total_ns, max_ns;
};

struct sp_trace_thread {
	int32_t tid;
	char comm[SP_TRACE_COMM_LEN];
	int32_t prio;                 /* last kernel prio seen (-1 unknown; <100 RT) */
	bool critical;                /* selected, with episodes */
	bool reused;                  /* a later thread has the same tid */
};

/* A selected thread's result. */
struct sp_trace_result {
	uint32_t thread_id;
	uint64_t blockings;
	struct sp_hist hist;          /* episode durations, ns */
	uint64_t blocking_ns;         /* sum of episode durations */
	uint64_t attributed_ns;       /* the part of it with a blocker */
	uint64_t runnable_ns;         /* blockers' runnable time in it */
	uint32_t nr_blockers;         /* sorted by blocking_ns, largest first */
	struct sp_trace_blocker *blockers;
	uint32_t nr_locks;            /* sorted by total_ns, largest first */
	struct sp_trace_lock_stat *locks;
};

struct sp_trace_analysis;

int sp_trace_analysis_create(const struct sp_trace_opts *o, struct sp_trace_analysis **out);
void sp_trace_analysis_destroy(struct sp_trace_analysis *a);
/* Feeds one event; an sp_trace_event_fn (pass the analysis as ctx). */
int sp_trace_analysis_feed(void *analysis, const struct sp_trace_event *ev);
/* Ends the trace: open waits are dropped (counted), results are sorted.
 * No feed after it. */
int sp_trace_analysis_finish(struct sp_trace_analysis *a);

/* Results, valid after finish until destroy. */
size_t sp_trace_nr_results(const struct sp_trace_analysis *a);
const struct sp_trace_result *sp_trace_result_get(const struct sp_trace_analysis *a, size_t i);
size_t sp_trace_nr_threads(const struct sp_trace_analysis *a);
const struct sp_trace_thread *sp_trace_thread_get(const struct sp_trace_analysis *a, uint32_t id);
/* Episodes of every selected thread, in the order they ended. */
size_t sp_trace_nr_episodes(const struct sp_trace_analysis *a);
const struct sp_trace_episode *sp_trace_episode_get(const struct sp_trace_analysis *a, size_t i);

struct sp_trace_counts {
	uint64_t events;
	uint64_t waits;            /* waits seen (all threads) */
	uint64_t open_at_end;      /* waits still open when the trace ended (dropped) */
	uint64_t dropped_lost;     /* waits dropped because events were lost */
	uint64_t timeouts;         /* waits that ended by timeout (not episodes) */
	uint64_t no_blocker;       /* segments with no waker seen */
	uint64_t irq_wakers;       /* waits ended from interrupt context */
	uint64_t pid_reuse;
	uint64_t unmatched_exits;  /* a futex exit or contention_end with no begin */
	uint64_t first_ns, last_ns;
};
void sp_trace_analysis_counts(const struct sp_trace_analysis *a, struct sp_trace_counts *out);

/* ---- reports (sp_trace_report.c): each writes to @f, which the caller
 * opens and closes, and returns 0, -EIO on a write error or -ENOMEM ---- */
/* Human summary: per selected thread, its locks, its blockers and the
 * @worst longest episodes with their breakdown. */
void sp_trace_print_summary(FILE *f, const struct sp_trace_analysis *a, unsigned worst);
/* JSON, schema "superpass-analyze/1" (docs/traces.md has it): per selected
 * thread its figures, blockers, locks and @worst longest episodes; @d
 * (optional) adds what the reader skipped. */
int sp_trace_write_json(const struct sp_trace_analysis *a, const struct sp_trace_diag *d,
			FILE *f, unsigned worst);
/* Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing): episodes as
 * slices on the waiters' tracks, blocker segments on the blockers', and a
 * flow from each blocker's wakeup to the waiter. */
int sp_trace_write_chrome(const struct sp_trace_analysis *a, FILE *f);
/* SVG: the blocking CDF of each selected thread and its blockers' split. */
int sp_trace_write_svg(const struct sp_trace_analysis *a, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* SUPERPASS_TRACE_H */
