// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * trace-cmd .dat files through libtracecmd (records in time order across
 * CPUs and instances) and libtraceevent (fields by name from the file's own
 * event formats). No byte of the file format is parsed here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd.h>
#include <event-parse.h>

#include <superpass/trace.h>

#include "sp_trace_internal.h"

#define NR_IDS 4096 /* event ids cached; larger ids are looked up each time */

struct dat_event {
	uint32_t type;      /* SP_TR_*, SP_TR_NONE: not used */
	bool raw_sys;       /* raw_syscalls: match the futex NR */
	bool looked_up;
	struct tep_event *ev;
};

struct dat_ctx {
	struct sp_trace_sink sink;
	struct tep_handle *tep;
	struct dat_event ids[NR_IDS];
	int64_t delivered;
};

static uint32_t type_of(const char *sys, const char *name, bool *raw)
{
	static const struct {
		const char *sys, *name;
		uint32_t type;
	} map[] = {
		{ "sched", "sched_switch", SP_TR_SWITCH },
		{ "sched", "sched_waking", SP_TR_WAKING },
		{ "sched", "sched_wakeup", SP_TR_WAKEUP },
		{ "sched", "sched_wakeup_new", SP_TR_WAKEUP_NEW },
		{ "sched", "sched_process_fork", SP_TR_FORK },
		{ "sched", "sched_process_exit", SP_TR_EXIT },
		{ "task", "task_rename", SP_TR_RENAME },
		{ "lock", "contention_begin", SP_TR_LOCK_BEGIN },
		{ "lock", "contention_end", SP_TR_LOCK_END },
		{ "syscalls", "sys_enter_futex", SP_TR_FUTEX_ENTER },
		{ "syscalls", "sys_exit_futex", SP_TR_FUTEX_EXIT },
		{ "raw_syscalls", "sys_enter", SP_TR_FUTEX_ENTER },
		{ "raw_syscalls", "sys_exit", SP_TR_FUTEX_EXIT },
	};

	*raw = false;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].sys, sys ? sys : "") && !strcmp(map[i].name, name ? name : "")) {
			*raw = !strcmp(map[i].sys, "raw_syscalls");
			return map[i].type;
		}
	return SP_TR_NONE;
}

static int num(struct tep_event *e, struct tep_record *r, const char *name, unsigned long long *v)
{
	struct tep_format_field *f = tep_find_field(e, name);

	if (!f)
		return -1;
	return tep_read_number_field(f, r->data, v);
}

static int i32(struct tep_event *e, struct tep_record *r, const char *name, int32_t *out)
{
	unsigned long long v;

	if (num(e, r, name, &v))
		return -1;
	*out = (int32_t)(long long)v;
	return 0;
}

static int str(struct tep_event *e, struct tep_record *r, const char *name, char *out)
{
	int len = 0;
	const char *s = tep_get_field_raw(NULL, e, name, r, &len, 0);

	if (!s || len < 0)
		return -1;
	if (len > SP_TRACE_COMM_LEN - 1)
		len = SP_TRACE_COMM_LEN - 1;
	memcpy(out, s, (size_t)len);
	out[len] = '\0';
	out[strnlen(out, (size_t)len)] = '\0';
	return 0;
}

static uint32_t dat_prev_state(unsigned long long st)
{
	/* TASK_REPORT bits: S 1, D 2, T 4, t 8, X 16, Z 32, P 64, I 128 */
	st &= 0xff;
	if (!st)
		return SP_TRS_RUNNABLE;
	if (st & (16 | 32))
		return SP_TRS_DEAD;
	if (st & 2)
		return SP_TRS_UNINTERRUPTIBLE;
	return SP_TRS_SLEEPING;
}

/* Fills @ev from the record; 1 to deliver, 0 to ignore, negative skip. */
static int fill(struct dat_ctx *c, struct dat_event *de, struct tep_record *r,
		struct sp_trace_event *ev)
{
	struct tep_event *e = de->ev;
	unsigned long long v;
	int rc = 0;

	ev->type = de->type;
	switch (de->type) {
	case SP_TR_SWITCH:
		if (str(e, r, "prev_comm", ev->u.sw.prev_comm) || str(e, r, "next_comm", ev->u.sw.next_comm) ||
		    i32(e, r, "prev_pid", &ev->u.sw.prev_pid) || i32(e, r, "next_pid", &ev->u.sw.next_pid) ||
		    i32(e, r, "prev_prio", &ev->u.sw.prev_prio) ||
		    i32(e, r, "next_prio", &ev->u.sw.next_prio) || num(e, r, "prev_state", &v))
			return -SP_TRSK_MISSING_FIELD;
		ev->u.sw.prev_state = dat_prev_state(v);
		break;
	case SP_TR_WAKING:
	case SP_TR_WAKEUP:
	case SP_TR_WAKEUP_NEW:
		if (str(e, r, "comm", ev->u.wake.comm) || i32(e, r, "pid", &ev->u.wake.pid))
			return -SP_TRSK_MISSING_FIELD;
		if (i32(e, r, "prio", &ev->u.wake.prio))
			ev->u.wake.prio = -1;
		if (i32(e, r, "target_cpu", &ev->u.wake.target_cpu))
			ev->u.wake.target_cpu = -1;
		break;
	case SP_TR_FORK:
		if (i32(e, r, "parent_pid", &ev->u.fork.parent_pid) ||
		    i32(e, r, "child_pid", &ev->u.fork.child_pid) ||
		    str(e, r, "child_comm", ev->u.fork.child_comm))
			return -SP_TRSK_MISSING_FIELD;
		break;
	case SP_TR_EXIT:
		if (i32(e, r, "pid", &ev->u.exit.pid))
			return -SP_TRSK_MISSING_FIELD;
		if (i32(e, r, "prio", &ev->u.exit.prio))
			ev->u.exit.prio = -1;
		break;
	case SP_TR_RENAME:
		if (i32(e, r, "pid", &ev->u.rename.pid) || str(e, r, "newcomm", ev->u.rename.newcomm))
			return -SP_TRSK_MISSING_FIELD;
		break;
	case SP_TR_LOCK_BEGIN:
	case SP_TR_LOCK_END:
		if (num(e, r, "lock_addr", &v))
			return -SP_TRSK_MISSING_FIELD;
		ev->u.lock.addr = v;
		if (de->type == SP_TR_LOCK_BEGIN) {
			if (num(e, r, "flags", &v))
				return -SP_TRSK_MISSING_FIELD;
			ev->u.lock.flags = (uint32_t)v;
		} else if (i32(e, r, "ret", &ev->u.lock.ret)) {
			return -SP_TRSK_MISSING_FIELD;
		}
		break;
	case SP_TR_FUTEX_ENTER:
		if (de->raw_sys) {
			struct tep_format_field *f = tep_find_field(e, "args");
			unsigned long long id;

			if (!f || num(e, r, "id", &id))
				return -SP_TRSK_MISSING_FIELD;
			if (id != SP_TRACE_NR_FUTEX)
				return 0;
			if (r->size < 0 || (unsigned)f->offset + 3 * 8 > (unsigned)r->size)
				return -SP_TRSK_BAD_VALUE;
			const unsigned char *a = (const unsigned char *)r->data + f->offset;
			unsigned long long args[3];

			for (int i = 0; i < 3; i++)
				args[i] = tep_read_number(c->tep, a + 8 * i, 8);
			ev->u.futex.uaddr = args[0];
			ev->u.futex.op = (uint32_t)args[1];
			ev->u.futex.val = (uint32_t)args[2];
			break;
		}
		if (num(e, r, "uaddr", &v))
			return -SP_TRSK_MISSING_FIELD;
		ev->u.futex.uaddr = v;
		if (num(e, r, "op", &v))
			return -SP_TRSK_MISSING_FIELD;
		ev->u.futex.op = (uint32_t)v;
		if (!num(e, r, "val", &v))
			ev->u.futex.val = (uint32_t)v;
		break;
	case SP_TR_FUTEX_EXIT:
		if (de->raw_sys) {
			unsigned long long id;

			if (num(e, r, "id", &id))
				return -SP_TRSK_MISSING_FIELD;
			if (id != SP_TRACE_NR_FUTEX)
				return 0;
		}
		if (num(e, r, "ret", &v))
			return -SP_TRSK_MISSING_FIELD;
		ev->u.futex.ret = (int64_t)v;
		break;
	default:
		return 0;
	}
	return rc ? rc : 1;
}

static int on_record(struct tracecmd_input *h, struct tep_record *r, int cpu, void *data)
{
	struct dat_ctx *c = data;
	struct sp_trace_diag *d = c->sink.d;
	struct dat_event tmp, *de;
	struct sp_trace_event ev;
	int id, rc, fl;

	(void)h;
	d->lines++;
	d->bytes += (uint64_t)(r->record_size > 0 ? r->record_size : 0);
	if (r->missed_events) {
		memset(&ev, 0, sizeof(ev));
		ev.type = SP_TR_LOST;
		ev.ts_ns = r->ts;
		ev.cpu = cpu;
		ev.u.lost.count = r->missed_events > 0 ? (uint64_t)r->missed_events : 0;
		if (sp_trace_sink_put(&c->sink, &ev, d->lines))
			return c->sink.stop;
	}
	id = tep_data_type(c->tep, r);
	if (id >= 0 && id < NR_IDS) {
		de = &c->ids[id];
	} else {
		memset(&tmp, 0, sizeof(tmp));
		de = &tmp;
	}
	if (!de->looked_up) {
		de->looked_up = true;
		de->ev = tep_find_event(c->tep, id);
		de->type = de->ev ? type_of(de->ev->system, de->ev->name, &de->raw_sys) : SP_TR_NONE;
	}
	if (de->type == SP_TR_NONE) {
		sp_trace_diag_note(d, SP_TRSK_UNKNOWN_EVENT, d->lines,
				   de->ev ? de->ev->name : "an event id the file does not define");
		return 0;
	}
	memset(&ev, 0, sizeof(ev));
	ev.ts_ns = r->ts;
	ev.cpu = cpu;
	ev.pid = tep_data_pid(c->tep, r);
	fl = tep_data_flags(c->tep, r);
	if (fl >= 0) {
		ev.flags |= SP_TRACE_EVF_CTX_KNOWN;
		if (fl & (TRACE_FLAG_HARDIRQ | TRACE_FLAG_SOFTIRQ))
			ev.flags |= SP_TRACE_EVF_IRQ;
	}
	{
		const char *comm = tep_data_comm_from_pid(c->tep, ev.pid);

		if (comm)
			snprintf(ev.comm, sizeof(ev.comm), "%s", comm);
	}
	rc = fill(c, de, r, &ev);
	if (rc < 0) {
		sp_trace_diag_note(d, (unsigned)-rc, d->lines, de->ev->name);
		return 0;
	}
	if (rc == 0)
		return 0;
	if (sp_trace_sink_put(&c->sink, &ev, d->lines))
		return c->sink.stop;
	c->delivered++;
	return 0;
}

#define DAT_FLAGS (TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS)

/* The records of @h (NULL: libtracecmd refused the file), closed after. */
static int64_t read_handle(struct tracecmd_input *h, sp_trace_event_fn fn, void *ctx,
			   struct sp_trace_diag *d)
{
	struct tracecmd_input *hs[65];
	struct dat_ctx *c;
	int n = 0, ni, rc;
	int64_t out;

	if (!h) {
		/* libtracecmd says no more than that: a damaged or truncated file */
		d->truncated = true;
		sp_trace_diag_note(d, SP_TRSK_UNPARSABLE, 1, "libtracecmd cannot open the .dat");
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		tracecmd_close(h);
		return -ENOMEM;
	}
	c->sink = (struct sp_trace_sink){ .fn = fn, .ctx = ctx, .d = d };
	c->tep = tracecmd_get_tep(h);
	d->ncpus = tep_get_cpus(c->tep);
	hs[n++] = h;
	ni = tracecmd_buffer_instances(h);
	for (int i = 0; i < ni && n < 65; i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(h, i);

		if (b)
			hs[n++] = b;
	}
	/* One tep for all: the instances of one file share the event formats. */
	rc = n == 1 ? tracecmd_iterate_events(h, NULL, 0, on_record, c)
		    : tracecmd_iterate_events_multi(hs, n, on_record, c);
	out = rc > 0 && c->sink.stop ? c->sink.stop : c->delivered;
	if (rc < 0 && !c->delivered)
		out = -EINVAL;
	for (int i = 1; i < n; i++)
		tracecmd_close(hs[i]);
	tracecmd_close(h);
	free(c);
	return out;
}

static void quiet_libs(void)
{
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
}

int64_t sp_trace_read_dat(const char *path, sp_trace_event_fn fn, void *ctx,
			  struct sp_trace_diag *d)
{
	quiet_libs();
	return read_handle(tracecmd_open(path, DAT_FLAGS), fn, ctx, d);
}

/* @a and @b are the one file, and it has no name: no one else has it open. */
static bool same_unnamed(int a, int b)
{
	struct stat sa, sb;

	return !fstat(a, &sa) && !fstat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino && sa.st_nlink == 0;
}

int64_t sp_trace_read_dat_fd(int fd, sp_trace_event_fn fn, void *ctx, struct sp_trace_diag *d)
{
	struct tracecmd_input *h;
	int dfd;

	/* libtracecmd closes the descriptor it is given, so it gets a dup;
	 * it reads from the descriptor's offset. */
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0)
		return -errno;
	quiet_libs();
	h = tracecmd_open_fd(dfd, DAT_FLAGS);
	if (!h && same_unnamed(fd, dfd))
		close(dfd); /* refused at its header, where libtracecmd keeps it open */
	return read_handle(h, fn, ctx, d);
}
