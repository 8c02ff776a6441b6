// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* `superpass analyze TRACE`: blocking episodes of critical threads in a trace. */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include <superpass/trace.h>

#include "sp_cli_msg.h"
#include "sp_cli_output.h"
#include "sp_cli_parse.h"
#include "trace_cli.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: superpass analyze TRACE [options]\n"
		"\n"
		"Finds every blocking of the critical threads in a kernel trace (ftrace text as\n"
		"tracefs, trace-cmd report or Perfetto's systrace export write it, plain or\n"
		"gzip; or a trace-cmd .dat), the thread that ended each one (its waker), the\n"
		"chain behind it, and how the blocker spent the time: running, runnable\n"
		"(waiting for a CPU), sleeping, or blocked on another lock.\n"
		"\n"
		"  -c, --critical LIST  critical threads by comm (comma-separated; globs as in\n"
		"                       sp-bg-*); with neither this nor --tid, every thread\n"
		"  -t, --tid LIST       critical threads by tid\n"
		"      --json FILE      figures as JSON (schema superpass-analyze/1; - for stdout)\n"
		"      --chrome FILE    Chrome trace-event JSON for ui.perfetto.dev\n"
		"      --svg FILE       the blocking CDF and the blockers' split as a picture\n"
		"      --csv FILE       one line per episode: tid,comm,start_ns,duration_ns,kind,\n"
		"                       lock,blockers (tid:ns;...), lost\n"
		"      --worst N        longest episodes shown in detail (default 5)\n"
		"      --merge-us N     waits on one word between which the thread ran (or\n"
		"                       slept) no longer than this are one acquisition (50)\n"
		"      --min-us N       ignore episodes shorter than this (default 0)\n"
		"      --spin           also spinlock contention (lock:contention_begin SPIN)\n"
		"      --window-s S     history kept behind the newest event (default 10)\n"
		"      --threads N      threads parsing a plain text file of 4 MiB or more (1-8;\n"
		"                       default the CPUs online, at most 8; the environment's\n"
		"                       SUPERPASS_TRACE_THREADS the same); the analysis runs on\n"
		"                       one, with the same results for any N\n"
		"      --no-summary     no summary on stdout (only the files asked for)\n"
		SP_CLI_HELP_QUIET
		"  -h, --help\n"
		"\n"
		"A gzip-compressed .dat is unpacked into an unnamed file in TMPDIR, at most\n"
		"SUPERPASS_TRACE_GZ_MAX_MIB (default 1024) MiB of it, never into the last 5 %%\n"
		"(at most 64 MiB) of that filesystem; compressed text is read as a stream.\n"
		"\n"
		"A --critical or --tid that selects no thread of the trace is warned of, with\n"
		"the threads the trace has.\n"
		"\n"
		"Exit status: 0 success, 1 a runtime failure (an output failed, TMPDIR or\n"
		"memory ran out), 2 bad usage or bad input (a missing, empty, binary or\n"
		"unreadable file, not a trace, or a .dat past the limit).\n");
}

#define AN_CMD "superpass analyze"

/* --tid: each item appended to a vector of int32_t (a repeated option adds). */
static int add_tid(const char *tok, void *ctx)
{
	struct sp_vec *tids = ctx;
	int32_t *slot;
	int64_t v;

	if (sp_cli_int(AN_CMD, "--tid", tok, 1, INT32_MAX, &v))
		return -1;
	slot = sp_vec_push(tids, sizeof(*slot));
	if (!slot) {
		fprintf(stderr, AN_CMD ": --tid: out of memory\n");
		return -1;
	}
	*slot = (int32_t)v;
	return 0;
}

static int parse_u64(const char *s, uint64_t lo, uint64_t max, uint64_t *out, const char *what)
{
	int64_t v;

	if (sp_cli_int(AN_CMD, what, s, (int64_t)lo, (int64_t)max, &v))
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int write_csv(const struct sp_trace_analysis *a, FILE *f)
{
	fprintf(f, "tid,comm,start_ns,duration_ns,kind,lock,blockers,lost\n");
	for (size_t i = 0; i < sp_trace_nr_episodes(a); i++) {
		const struct sp_trace_episode *e = sp_trace_episode_get(a, i);
		const struct sp_trace_thread *t = sp_trace_thread_get(a, e->waiter_id);

		fprintf(f, "%d,%s,%llu,%llu,%s,0x%llx,", t->tid, t->comm,
			(unsigned long long)e->start_ns, (unsigned long long)(e->end_ns - e->start_ns),
			sp_trace_wait_kind_name(e->kind), (unsigned long long)e->lock);
		for (uint32_t s = 0; s < e->nr_segments; s++)
			fprintf(f, "%s%d:%llu", s ? ";" : "", e->segments[s].blocker_tid,
				(unsigned long long)(e->segments[s].end_ns - e->segments[s].start_ns));
		fprintf(f, ",%d\n", e->lost);
	}
	return ferror(f) ? -EIO : 0;
}

/* @path ("-": stdout) for writing, or NULL after saying why. */
static FILE *out_open(const char *path)
{
	FILE *f = sp_cli_output_open(path);

	if (!f)
		fprintf(stderr, "superpass analyze: %s: %s\n", path, strerror(errno));
	return f;
}

/* Closes @f, which the writer returned @c for: 0, or 1 after naming what
 * failed. */
static int out_done(const char *path, FILE *f, int c)
{
	int cc = sp_cli_output_close(f);

	if (c >= 0)
		c = cc;
	if (c < 0) {
		fprintf(stderr, "superpass analyze: %s: %s\n", path, strerror(-c));
		return 1;
	}
	return 0;
}

struct an_diag {
	const char *path;
	const struct sp_trace_diag *d;
};

static void an_diag_fn(FILE *f, void *ctx)
{
	const struct an_diag *x = ctx;

	sp_trace_diag_print(f, x->path, x->d);
}

/* The reader's diagnostics, each line under the command's prefix. */
static void an_diag_print(const char *path, const struct sp_trace_diag *d)
{
	struct an_diag x = { path, d };

	sp_cli_prefixed(AN_CMD, an_diag_fn, &x);
}

/* Nothing to analyse: a file of lines none of which was a trace line is
 * not a trace, said in one line with what was expected. */
static void an_no_events(const char *path, const struct sp_trace_diag *d)
{
	uint64_t bad = 0;
	int first = -1, reasons = 0;

	for (unsigned r = 0; r < SP_TRSK_NR; r++) {
		if (r == SP_TRSK_LOST || r == SP_TRSK_OUT_OF_ORDER || !d->skipped[r])
			continue;
		bad += d->skipped[r];
		reasons++;
		if (first < 0)
			first = (int)r;
	}
	if (reasons > 1) /* the line below names only the first kind */
		an_diag_print(path, d);
	if (!bad || d->comments) {
		an_diag_print(path, d);
		sp_cli_error(AN_CMD, "%s: no event to analyse (%llu lines read, %llu of them "
			     "unparsable)", path, (unsigned long long)d->lines,
			     (unsigned long long)bad);
		return;
	}
	sp_cli_error(AN_CMD, "%s: not a trace: %llu of %llu lines unparsable (line %llu: %s; "
		     "expected ftrace text such as \"  sp-ui-1234  [001] d..2.  5.123456: "
		     "sched_switch: ...\", gzip'd or not, or a trace-cmd .dat)",
		     path, (unsigned long long)bad, (unsigned long long)d->lines,
		     (unsigned long long)d->first_line[first][0],
		     d->first_what[first][0] ? d->first_what[first] : sp_trace_skip_name((unsigned)first));
}

/* Each --critical pattern and --tid that matched no thread of the trace:
 * a warning listing the threads the trace has. */
static void an_check_selection(const struct sp_trace_analysis *a, const struct sp_vec *comms,
			       const struct sp_vec *tids)
{
	size_t nt = sp_trace_nr_threads(a), nseen = 0;
	const char **seen = calloc(nt ? nt : 1, sizeof(*seen));
	char *const *pat = comms->data;
	const int32_t *tid = tids->data;

	if (!seen)
		return;
	for (size_t i = 0; i < nt; i++) {
		const char *comm = sp_trace_thread_get(a, (uint32_t)i)->comm;
		size_t j;

		for (j = 0; j < nseen && strcmp(seen[j], comm); j++)
			;
		if (j == nseen && comm[0])
			seen[nseen++] = comm;
	}
	for (size_t p = 0; p < comms->n; p++) {
		size_t i;

		for (i = 0; i < nt && fnmatch(pat[p], sp_trace_thread_get(a, (uint32_t)i)->comm, 0);
		     i++)
			;
		if (i < nt)
			continue;
		fprintf(stderr, AN_CMD ": warning: --critical %s: no thread of the trace has that "
				       "name; it has: ", pat[p]);
		sp_cli_print_names(stderr, seen, nseen);
		fprintf(stderr, "\n");
	}
	for (size_t p = 0; p < tids->n; p++) {
		size_t i;

		for (i = 0; i < nt && sp_trace_thread_get(a, (uint32_t)i)->tid != tid[p]; i++)
			;
		if (i < nt)
			continue;
		fprintf(stderr, AN_CMD ": warning: --tid %d: no thread of the trace has that tid; it "
				       "has %zu threads: ", (int)tid[p], nt);
		sp_cli_print_names(stderr, seen, nseen);
		fprintf(stderr, "\n");
	}
	free(seen);
}

int trace_analyze_main(int argc, char **argv)
{
	enum { O_JSON = 256, O_CHROME, O_SVG, O_CSV, O_WORST, O_MERGE, O_MIN, O_SPIN, O_WINDOW, O_THREADS,
	       O_NO_SUMMARY };
	static const struct option lo[] = {
		{ "critical", required_argument, NULL, 'c' },
		{ "tid", required_argument, NULL, 't' },
		{ "json", required_argument, NULL, O_JSON },
		{ "chrome", required_argument, NULL, O_CHROME },
		{ "svg", required_argument, NULL, O_SVG },
		{ "csv", required_argument, NULL, O_CSV },
		{ "worst", required_argument, NULL, O_WORST },
		{ "merge-us", required_argument, NULL, O_MERGE },
		{ "min-us", required_argument, NULL, O_MIN },
		{ "spin", no_argument, NULL, O_SPIN },
		{ "window-s", required_argument, NULL, O_WINDOW },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "no-summary", no_argument, NULL, O_NO_SUMMARY },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *json = NULL, *chrome = NULL, *svg = NULL, *csv = NULL, *path;
	struct sp_vec comms = SP_VEC_INIT; /* of char *, NULL-terminated */
	struct sp_vec tids = SP_VEC_INIT;  /* of int32_t */
	struct sp_trace_opts o;
	struct sp_trace_analysis *a = NULL;
	struct sp_trace_diag d;
	FILE *f;
	uint64_t v, worst = 5;
	bool no_summary = false;
	int64_t n;
	int c, rc = 0;

	sp_trace_opts_default(&o);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:t:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (sp_cli_str_list(AN_CMD, "--critical", optarg, 4096, &comms))
				{ rc = 2; goto out; }
			break;
		case 't':
			if (sp_cli_list(AN_CMD, "--tid", optarg, 64, add_tid, &tids))
				{ rc = 2; goto out; }
			break;
		case O_JSON: json = optarg; break;
		case O_CHROME: chrome = optarg; break;
		case O_SVG: svg = optarg; break;
		case O_CSV: csv = optarg; break;
		case O_WORST:
			if (parse_u64(optarg, 0, 1000, &worst, "--worst"))
				{ rc = 2; goto out; }
			break;
		case O_MERGE:
			if (parse_u64(optarg, 0, 10000000, &v, "--merge-us"))
				{ rc = 2; goto out; }
			o.merge_ns = v * 1000;
			break;
		case O_MIN:
			if (parse_u64(optarg, 0, 100000000, &v, "--min-us"))
				{ rc = 2; goto out; }
			o.min_ns = v * 1000;
			break;
		case O_SPIN: o.spin = true; break;
		case O_WINDOW:
			if (parse_u64(optarg, 1, 100000, &v, "--window-s"))
				{ rc = 2; goto out; }
			o.window_ns = v * 1000000000ull;
			break;
		case O_THREADS:
			/* the reader takes it from the environment (trace.h) */
			if (parse_u64(optarg, 1, 8, &v, "--threads"))
				{ rc = 2; goto out; }
			if (setenv("SUPERPASS_TRACE_THREADS", optarg, 1))
				{ rc = 1; goto out; }
			break;
		case O_NO_SUMMARY: no_summary = true; break;
		case 'q': break; /* analyze writes no progress and no notes */
		case 'h': usage(stdout); goto out;
		default:
			sp_cli_bad_option(AN_CMD, c, argv);
			rc = 2;
			goto out;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "superpass analyze: %s (see superpass analyze --help)\n",
			optind >= argc ? "which trace? (a file, or - for stdin)" : "one trace at a time");
		rc = 2;
		goto out;
	}
	path = argv[optind];
	o.critical_comms = (const char *const *)comms.data;
	o.critical_tids = tids.data;
	o.nr_critical_tids = tids.n;
	if (sp_trace_analysis_create(&o, &a)) {
		fprintf(stderr, "superpass analyze: out of memory\n");
		rc = 1;
		goto out;
	}
	sp_trace_diag_init(&d);
	/* The analysis frees a retired thread's history as it goes and grows
	 * others: with glibc's trim threshold the heap's top went back to the
	 * kernel 690 times on a 1.1 GB trace (make-big-trace.sh) and came back
	 * as fresh pages to clear (clear_page 2 to 8 % of the profile, and
	 * sys time 0.26-0.45 s against 0.18-0.20 s without). Kept instead:
	 * the process ends after the analysis. */
	(void)mallopt(M_TRIM_THRESHOLD, 256 << 20);
	(void)mallopt(M_TOP_PAD, 16 << 20);
	n = sp_trace_read_file(path, sp_trace_analysis_feed, a, &d);
	sp_trace_analysis_finish(a);
	if (n < 0) {
		char msg[8192];

		fprintf(stderr, "superpass analyze: %s\n",
			sp_trace_read_strerror(n, path, msg, sizeof(msg)));
	}
	if (!d.events) {
		if (n >= 0)
			an_no_events(path, &d);
		else
			an_diag_print(path, &d);
		/* the machine, not the input: no room or memory */
		rc = n == -ENOSPC || n == -EDQUOT || n == -ENOMEM ? 1 : 2;
		goto out;
	}
	an_diag_print(path, &d);
	an_check_selection(a, &comms, &tids);
	if (!no_summary) {
		printf("%s: %llu lines, %llu events used\n", path, (unsigned long long)d.lines,
		       (unsigned long long)d.events);
		sp_trace_print_summary(stdout, a, (unsigned)worst);
	}
	if (json)
		rc |= (f = out_open(json)) ? out_done(json, f, sp_trace_write_json(a, &d, f, (unsigned)worst)) : 1;
	if (chrome)
		rc |= (f = out_open(chrome)) ? out_done(chrome, f, sp_trace_write_chrome(a, f)) : 1;
	if (svg)
		rc |= (f = out_open(svg)) ? out_done(svg, f, sp_trace_write_svg(a, f)) : 1;
	if (csv)
		rc |= (f = out_open(csv)) ? out_done(csv, f, write_csv(a, f)) : 1;
out:
	sp_trace_analysis_destroy(a);
	sp_cli_str_list_free(&comms);
	sp_vec_free(&tids);
	return rc;
}
