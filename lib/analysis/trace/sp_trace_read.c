// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The readers' common part: diagnostics, time order, the text reader's
 * buffering (plain or gzip through zlib) and telling formats apart.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include <superpass/trace.h>

#include "sp_trace_internal.h"

const char *sp_trace_type_name(unsigned int type)
{
	static const char *const names[SP_TR_NR] = {
		[SP_TR_NONE] = "none",
		[SP_TR_SWITCH] = "sched_switch",
		[SP_TR_WAKING] = "sched_waking",
		[SP_TR_WAKEUP] = "sched_wakeup",
		[SP_TR_WAKEUP_NEW] = "sched_wakeup_new",
		[SP_TR_FORK] = "sched_process_fork",
		[SP_TR_EXIT] = "sched_process_exit",
		[SP_TR_RENAME] = "task_rename",
		[SP_TR_LOCK_BEGIN] = "contention_begin",
		[SP_TR_LOCK_END] = "contention_end",
		[SP_TR_FUTEX_ENTER] = "sys_enter_futex",
		[SP_TR_FUTEX_EXIT] = "sys_exit_futex",
		[SP_TR_LOST] = "lost events",
	};

	return type < SP_TR_NR ? names[type] : NULL;
}

void sp_trace_diag_init(struct sp_trace_diag *d)
{
	memset(d, 0, sizeof(*d));
}

void sp_trace_diag_note(struct sp_trace_diag *d, unsigned reason, uint64_t line, const char *what)
{
	uint64_t n;

	if (reason >= SP_TRSK_NR)
		return;
	n = d->skipped[reason]++;
	if (n < SP_TRACE_DIAG_LINES)
		d->first_line[reason][n] = line;
	if (n == 0 && what)
		snprintf(d->first_what[reason], sizeof(d->first_what[reason]), "%s", what);
}

void sp_trace_diag_print(FILE *f, const char *path, const struct sp_trace_diag *d)
{
	for (unsigned r = 0; r < SP_TRSK_NR; r++) {
		if (!d->skipped[r])
			continue;
		fprintf(f, "%s: %s: %llu (first at line", path, sp_trace_skip_name(r),
			(unsigned long long)d->skipped[r]);
		for (unsigned i = 0; i < SP_TRACE_DIAG_LINES && d->first_line[r][i]; i++)
			fprintf(f, "%s %llu", i ? "," : (d->skipped[r] > 1 ? "s" : ""),
				(unsigned long long)d->first_line[r][i]);
		fprintf(f, "%s%s)\n", d->first_what[r][0] ? ": " : "", d->first_what[r]);
	}
	if (d->lost_events)
		fprintf(f, "%s: the kernel lost %llu events; episodes across them are marked lost\n", path,
			(unsigned long long)d->lost_events);
	if (d->overwritten)
		fprintf(f, "%s: the ring buffer overwrote its oldest %llu events before it was read "
			   "(a larger buffer_size_kb keeps them)\n",
			path, (unsigned long long)d->overwritten);
	if (d->truncated)
		fprintf(f, "%s: the file ends inside a line or record (truncated?)\n", path);
}

int sp_trace_sink_put(struct sp_trace_sink *s, struct sp_trace_event *ev, uint64_t line)
{
	if (ev->type == SP_TR_LOST) {
		sp_trace_diag_note(s->d, SP_TRSK_LOST, line, NULL);
		s->d->lost_events += ev->u.lost.count;
		if (!ev->ts_ns) /* a text marker has no time: it is where it is */
			ev->ts_ns = s->last_ts;
	}
	if (ev->ts_ns < s->last_ts) {
		sp_trace_diag_note(s->d, SP_TRSK_OUT_OF_ORDER, line, "kept at the previous time");
		ev->ts_ns = s->last_ts;
	}
	s->last_ts = ev->ts_ns;
	s->d->events++;
	s->stop = s->fn(s->ctx, ev);
	return s->stop;
}

/* ---- text ---- */
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

#define SP_TRACE_BUF (1u << 20)

static int64_t read_src(struct src *src, sp_trace_event_fn fn, void *ctx, struct sp_trace_diag *d)
{
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
			struct sp_trace_event ev;
			const char *why;
			int rc;

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
			} else if (len > SP_TRACE_LINE_MAX) {
				d->lines++;
				sp_trace_diag_note(d, SP_TRSK_TOO_LONG, d->lines, NULL);
			} else {
				d->lines++;
				rc = sp_trace_parse_line(p, len, &ev, &why);
				if (rc > 0) {
					if (sp_trace_sink_put(&sink, &ev, d->lines)) {
						free(buf);
						return sink.stop;
					}
					delivered++;
				} else if (rc == 0) {
					d->comments++;
					if (len && (*p == '#' || *p == 'c'))
						sp_trace_header_line(d, p, len);
				} else {
					sp_trace_diag_note(d, (unsigned)(-rc - 1), d->lines, why);
				}
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
int sp_trace_line_apply(struct sp_trace_sink *sink, struct sp_trace_diag *d, struct sp_trace_line *l,
		    int64_t *delivered)
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

static inline int one_line(struct sp_trace_sink *sink, struct sp_trace_diag *d, const char *p,
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
 * same lines, numbers and verdicts as read_src. */
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
		if (one_line(&sink, d, p, len, sp_trace_nul_in(&z, p, p + len), &delivered))
			return sink.stop;
		if (!nl)
			break;
		p = nl + 1;
	}
	return delivered;
}

/* Maps @fd when it is a regular, non-empty file: 0 and *out, else -1. */
static int map_file(int fd, const char **out, size_t *size)
{
	struct stat st;
	void *m;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > SIZE_MAX)
		return -1;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	(void)madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
	*out = m;
	*size = (size_t)st.st_size;
	return 0;
}

int64_t sp_trace_read_text(FILE *f, sp_trace_event_fn fn, void *ctx, struct sp_trace_diag *d)
{
	struct src s = { .f = f };

	return read_src(&s, fn, ctx, d);
}

/* ---- one entry point ---- */
static const unsigned char dat_magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

static int64_t read_gz_dat(gzFile gz, const char *path, sp_trace_event_fn fn, void *ctx,
			   struct sp_trace_diag *d)
{
	const char *dir = getenv("TMPDIR");
	char tmp[4096], buf[65536];
	int fd, n;
	int64_t rc;

	snprintf(tmp, sizeof(tmp), "%s/superpass-dat-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	while ((n = gzread(gz, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n) {
			close(fd);
			unlink(tmp);
			return -EIO;
		}
	close(fd);
	if (n < 0)
		d->truncated = true;
	rc = sp_trace_read_dat(tmp, fn, ctx, d);
	unlink(tmp);
	(void)path;
	return rc;
}

int64_t sp_trace_read_file(const char *path, sp_trace_event_fn fn, void *ctx,
			   struct sp_trace_diag *d)
{
	unsigned char head[10] = { 0 };
	struct src s = { 0 };
	gzFile gz;
	int fd, n;
	int64_t rc;

	if (!strcmp(path, "-")) {
		fd = dup(STDIN_FILENO);
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	/* A .dat is read by libtracecmd from its path; look first. */
	n = (int)pread(fd, head, sizeof(head), 0);
	if (n == (int)sizeof(head) && !memcmp(head, dat_magic, sizeof(head))) {
		close(fd);
		return sp_trace_read_dat(path, fn, ctx, d);
	}
	if (!(n >= 2 && head[0] == 0x1f && head[1] == 0x8b)) {
		const char *m;
		size_t size;

		if (!map_file(fd, &m, &size)) {
			close(fd);
			rc = sp_trace_read_mem_parallel(m, size, fn, ctx, d);
			munmap((void *)m, size);
			goto done;
		}
	}
	gz = gzdopen(fd, "rb"); /* reads plain files as they are */
	if (!gz) {
		close(fd);
		return -ENOMEM;
	}
	gzbuffer(gz, 1u << 18);
	if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
		unsigned char inner[10] = { 0 };
		int m = gzread(gz, inner, sizeof(inner));

		if (m == (int)sizeof(inner) && !memcmp(inner, dat_magic, sizeof(inner))) {
			gzrewind(gz);
			rc = read_gz_dat(gz, path, fn, ctx, d);
			gzclose(gz);
			return rc;
		}
		gzrewind(gz);
	}
	s.gz = gz;
	rc = read_src(&s, fn, ctx, d);
	if (gzclose(gz) != Z_OK && rc >= 0)
		d->truncated = true;
done:
	if (rc == 0 && d->lines && !d->events && d->skipped[SP_TRSK_BINARY] * 2 > d->lines)
		return -EINVAL;
	return rc;
}
