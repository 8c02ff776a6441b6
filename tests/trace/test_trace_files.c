// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The readers on traces recorded on a real kernel (fixtures/, see
 * make-fixtures.sh), checked against what the traced program measured
 * itself; the JSON and Chrome outputs parsed back; damaged files; a
 * gzip-compressed .dat unpacked within its limits, leaving nothing behind.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>
#include <zlib.h>

#include <superpass/trace.h>

#include "sp_test_fixtures.h"

static struct sp_trace_analysis *analyse(const char *path, struct sp_trace_diag *d, int64_t *n)
{
	static const char *const comms[] = { "waiter", NULL };
	struct sp_trace_analysis *a;
	struct sp_trace_opts o;

	sp_trace_opts_default(&o);
	o.critical_comms = comms;
	assert_int_equal(sp_trace_analysis_create(&o, &a), 0);
	sp_trace_diag_init(d);
	*n = sp_trace_read_file(path, sp_trace_analysis_feed, a, d);
	sp_trace_analysis_finish(a);
	return a;
}

/* What lockpair printed: "blocking waiter t0=NS t1=NS" per blocking. */
static size_t program_blockings(const char *name, uint64_t *t0, uint64_t *t1, size_t cap)
{
	char *p = fixture(name), line[256];
	FILE *f = fopen(p, "r");
	size_t n = 0;

	assert_non_null(f);
	while (n < cap && fgets(line, sizeof(line), f)) {
		unsigned long long a, b;

		if (sscanf(line, "blocking waiter t0=%llu t1=%llu", &a, &b) == 2) {
			t0[n] = a;
			t1[n++] = b;
		}
	}
	fclose(f);
	free(p);
	return n;
}

/* Every blocking the program measured is one episode within 5 % (or 20 us)
 * of its duration, and its blockers are the other two threads. */
static void check_against_program(const char *trace, const char *blockings)
{
	uint64_t t0[64], t1[64];
	size_t np = program_blockings(blockings, t0, t1, 64), ne;
	char *path = fixture(trace);
	struct sp_trace_diag d;
	int64_t n;
	struct sp_trace_analysis *a = analyse(path, &d, &n);
	const struct sp_trace_result *r;

	assert_true(n > 0);
	assert_true(np > 0);
	assert_int_equal(sp_trace_nr_results(a), 1);
	r = sp_trace_result_get(a, 0);
	assert_string_equal(sp_trace_thread_get(a, r->thread_id)->comm, "waiter");
	assert_int_equal(r->blockings, np);
	ne = sp_trace_nr_episodes(a);
	for (size_t i = 0; i < np; i++) {
		uint64_t want = t1[i] - t0[i];
		bool found = false;

		for (size_t k = 0; k < ne && !found; k++) {
			const struct sp_trace_episode *e = sp_trace_episode_get(a, k);
			uint64_t got = e->end_ns - e->start_ns, diff = got > want ? got - want : want - got;

			if (e->start_ns + 1000 < t0[i] || e->end_ns > t1[i] + 1000)
				continue;
			found = true;
			if (diff > want / 20 && diff > 20000)
				fail_msg("%s: blocking %zu: program %llu ns, trace %llu ns", trace, i,
					 (unsigned long long)want, (unsigned long long)got);
			for (uint32_t s = 0; s < e->nr_segments; s++) {
				const char *c;

				if (!e->segments[s].blocker_tid)
					continue;
				c = sp_trace_thread_get(a, e->segments[s].blocker_id)->comm;
				if (strcmp(c, "holder-a") && strcmp(c, "holder-b"))
					fail_msg("%s: blocker %s", trace, c);
			}
		}
		if (!found)
			fail_msg("%s: no episode inside the program's blocking %zu", trace, i);
	}
	assert_true(r->nr_blockers >= 1 && r->nr_blockers <= 2);
	sp_trace_analysis_destroy(a);
	free(path);
}

static void test_record_text(void **state)
{
	(void)state;
	check_against_program("lockpair-record.trace.gz", "lockpair-record.blockings");
}

static void test_dat(void **state)
{
	(void)state;
	check_against_program("lockpair.dat.gz", "lockpair-dat.blockings");
}

/* trace-cmd report of the same .dat, with and without -l: the same
 * episodes to the microsecond the text keeps. */
static void test_report_matches_dat(void **state)
{
	static const char *const names[] = { "lockpair.dat.gz", "lockpair-report.txt.gz",
					     "lockpair-report-l.txt.gz" };
	struct sp_trace_analysis *a[3];
	struct sp_trace_diag d;
	int64_t n;

	(void)state;
	for (int i = 0; i < 3; i++) {
		char *p = fixture(names[i]);

		a[i] = analyse(p, &d, &n);
		assert_true(n > 0);
		assert_int_equal(d.skipped[SP_TRSK_UNPARSABLE], 0);
		assert_int_equal(d.skipped[SP_TRSK_MISSING_FIELD], 0);
		assert_int_equal(d.skipped[SP_TRSK_BAD_VALUE], 0);
		free(p);
	}
	for (int i = 1; i < 3; i++) {
		assert_int_equal(sp_trace_nr_episodes(a[i]), sp_trace_nr_episodes(a[0]));
		for (size_t k = 0; k < sp_trace_nr_episodes(a[0]); k++) {
			const struct sp_trace_episode *x = sp_trace_episode_get(a[0], k);
			const struct sp_trace_episode *y = sp_trace_episode_get(a[i], k);

			/* the text keeps microseconds */
			assert_true(x->start_ns - y->start_ns + 1000 <= 2000);
			assert_true(x->end_ns - y->end_ns + 1000 <= 2000);
			assert_int_equal(x->nr_segments, y->nr_segments);
			assert_int_equal(x->segments[0].blocker_tid, y->segments[0].blocker_tid);
		}
	}
	for (int i = 0; i < 3; i++)
		sp_trace_analysis_destroy(a[i]);
}

static void test_json_chrome_svg(void **state)
{
	char *path = fixture("lockpair-record.trace.gz"), *js = tmp_path("a.json");
	char *ch = tmp_path("a.chrome.json"), *svg = tmp_path("a.svg");
	struct sp_trace_diag d;
	int64_t n;
	struct sp_trace_analysis *a = analyse(path, &d, &n);
	json_object *root, *threads, *t, *bl, *v;
	FILE *out;
	int64_t prev = INT64_MAX;
	double share;

	(void)state;
	out = open_w(js);
	assert_int_equal(sp_trace_write_json(a, &d, out, 3), 0);
	assert_int_equal(fclose(out), 0);
	root = json_object_from_file(js);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "threads", &threads));
	assert_int_equal(json_object_array_length(threads), 1);
	t = json_object_array_get_idx(threads, 0);
	for (const char *const *k = (const char *const[]){ "tid", "comm", "blockings", "p50_ns",
							   "p99_ns", "p999_ns", "max_ns",
							   "runnable_share", "blockers", NULL };
	     *k; k++)
		if (!json_object_object_get_ex(t, *k, &v))
			fail_msg("no %s", *k);
	json_object_object_get_ex(t, "runnable_share", &v);
	share = json_object_get_double(v);
	assert_true(share >= 0.0 && share <= 1.0);
	json_object_object_get_ex(t, "blockers", &bl);
	assert_true(json_object_array_length(bl) >= 1);
	for (size_t i = 0; i < json_object_array_length(bl); i++) {
		json_object *b = json_object_array_get_idx(bl, i);

		for (const char *const *k = (const char *const[]){ "tid", "comm", "episodes",
								   "blocking_ns", "running_ns",
								   "runnable_ns", "sleeping_ns",
								   "blocked_ns", NULL };
		     *k; k++)
			if (!json_object_object_get_ex(b, *k, &v))
				fail_msg("blocker without %s", *k);
		json_object_object_get_ex(b, "blocking_ns", &v);
		assert_true(json_object_get_int64(v) <= prev); /* largest first */
		prev = json_object_get_int64(v);
	}
	json_object_put(root);
	out = open_w(ch);
	assert_int_equal(sp_trace_write_chrome(a, out), 0);
	assert_int_equal(fclose(out), 0);
	root = json_object_from_file(ch);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "traceEvents", &v));
	assert_true(json_object_array_length(v) > 10);
	json_object_put(root);
	out = open_w(svg);
	assert_int_equal(sp_trace_write_svg(a, out), 0);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(access(svg, R_OK), 0);
	unlink(js);
	unlink(ch);
	unlink(svg);
	free(js);
	free(ch);
	free(svg);
	free(path);
	sp_trace_analysis_destroy(a);
}

static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	fclose(f);
}

/* Damaged and foreign files: no crash, a count, an error code. */
static void test_bad_files(void **state)
{
	char *p = tmp_path("bad"), *gz = fixture("lockpair-record.trace.gz");
	char *dat = fixture("lockpair.dat.gz"), buf[1 << 16];
	unsigned char bin[4096];
	struct sp_trace_diag d;
	struct sp_trace_analysis *a;
	uint64_t x = 12345;
	int64_t n;
	FILE *f;
	size_t len;
	gzFile z;

	(void)state;
	a = analyse("/nonexistent/trace", &d, &n);
	assert_true(n < 0);
	sp_trace_analysis_destroy(a);

	write_file(p, "", 0); /* empty */
	a = analyse(p, &d, &n);
	assert_int_equal(n, 0);
	assert_int_equal(d.events, 0);
	sp_trace_analysis_destroy(a);

	for (size_t i = 0; i < sizeof(bin); i++) { /* random bytes */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		bin[i] = (unsigned char)x;
	}
	write_file(p, bin, sizeof(bin));
	a = analyse(p, &d, &n);
	assert_int_equal(d.events, 0);
	assert_true(d.skipped[SP_TRSK_BINARY] > 0);
	sp_trace_analysis_destroy(a);

	/* a gzip cut in half: what precedes the cut is read */
	f = fopen(gz, "r");
	assert_non_null(f);
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	write_file(p, buf, len / 2);
	a = analyse(p, &d, &n);
	assert_true(d.events > 0);
	assert_true(d.truncated);
	sp_trace_analysis_destroy(a);

	/* a .dat cut short: libtracecmd refuses it or reads what is there */
	z = gzopen(dat, "rb");
	assert_non_null(z);
	len = (size_t)gzread(z, buf, sizeof(buf));
	gzclose(z);
	write_file(p, buf, len);
	a = analyse(p, &d, &n);
	assert_true(n <= 0 || d.events > 0);
	sp_trace_analysis_destroy(a);
	/* its header and nothing else */
	write_file(p, buf, 64);
	a = analyse(p, &d, &n);
	assert_true(n < 0);
	sp_trace_analysis_destroy(a);

	unlink(p);
	free(p);
	free(gz);
	free(dat);
}

/* A line longer than the reader's limit at @at: its length with the
 * newline. */
static size_t long_line(char *at)
{
	memset(at, 'y', 70000);
	at[70000] = '\n';
	return 70001;
}

/* A plain file is read from a mapping, a FILE * through a buffer: the same
 * events, line numbers and diagnostics from both, bad lines included. */
struct ev_hash {
	uint64_t h, n;
};

static int hash_event(void *ctx, const struct sp_trace_event *ev)
{
	struct ev_hash *x = ctx;
	const unsigned char *b = (const unsigned char *)ev;

	for (size_t i = 0; i < sizeof(*ev); i++)
		x->h = (x->h ^ b[i]) * 1099511628211ull;
	x->n++;
	return 0;
}

static void test_mapped_same_as_stream(void **state)
{
	char *p = tmp_path("mapped"), *gz = fixture("lockpair-record.trace.gz");
	static char text[1 << 20];
	static const char tail[] =
		"a\0b NUL inside\n\x01\x02 control bytes\n"
		"  x-1 [000] d..2.  9.000001: sched_waking: comm=a=b pid=7 prio=120 target_cpu=000\n"
		"  x-1 [000] d..2.  9.000002: sched_waking: comm=a pid=7 prio=12x target_cpu=000\n"
		"  x-1 [000] d..2.  9.000003: sched_waking: comm=a pid=7 prio=120\n"
		"  x-1 [000] d..2.  9.000004: sched_waking: comm=a prio=1 pid=7 prio=120 target_cpu=0\n"
		"  x-1 [000] d..2.  9.000005: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 "
		"prev_state=S ==> next_comm=b next_pid=2 next_prio=120\n"
		"  x-1 [000] d..2.  9.0: sched_waking: comm=cut pid=";
	struct sp_trace_diag dm, ds;
	struct ev_hash hm = { 14695981039346656037ull, 0 }, hs = hm;
	size_t len, n;
	gzFile z;
	FILE *f;

	(void)state;
	z = gzopen(gz, "rb");
	assert_non_null(z);
	len = (size_t)gzread(z, text, 1 << 18);
	gzclose(z);
	assert_true(len > 1000);
	n = len / 2; /* a line too long in the middle */
	memmove(text + n + 70001, text + n, len - n);
	len += long_line(text + n);
	memcpy(text + len, tail, sizeof(tail) - 1);
	len += sizeof(tail) - 1;
	write_file(p, text, len);

	sp_trace_diag_init(&dm);
	assert_true(sp_trace_read_file(p, hash_event, &hm, &dm) > 0);
	sp_trace_diag_init(&ds);
	f = fopen(p, "r");
	assert_non_null(f);
	assert_true(sp_trace_read_text(f, hash_event, &hs, &ds) > 0);
	fclose(f);
	assert_int_equal(hm.n, hs.n);
	assert_true(hm.h == hs.h);
	assert_true(dm.truncated && dm.skipped[SP_TRSK_TOO_LONG] == 1 &&
		    dm.skipped[SP_TRSK_BINARY] == 2);
	assert_memory_equal(&dm, &ds, sizeof(dm));
	unlink(p);
	free(p);
	free(gz);
}

/* Stops the read at its 30000th event. */
static int hash_until(void *ctx, const struct sp_trace_event *ev)
{
	struct ev_hash *x = ctx;

	hash_event(ctx, ev);
	return x->n == 30000 ? 42 : 0;
}

/* A file large enough to be parsed on several threads (chunks of 1 MiB):
 * the same events in the same order, the same line numbers and
 * diagnostics as on one, bad lines and a line longer than the limit
 * across a chunk boundary included, and the same stop. */
static void test_parallel_same_as_one_thread(void **state)
{
	char *p = tmp_path("parallel"), *gz = fixture("lockpair-record.trace.gz");
	static const char bad[] = "a\0b NUL inside\n\x01\x02 control bytes\n"
				  "  x-1 [000] d..2.  9.000003: sched_switch: prev_comm=a prev_pid=1\n"
				  "# a comment\n\n";
	static const char tail[] = "  x-1 [000] d..2.  9.0: sched_waking: comm=cut pid=";
	static char one[1 << 18];
	size_t len = 0, n1, cap = 8u << 20;
	char *text = malloc(cap);
	const char *threads[] = { "1", "2", "3", "8" };
	struct sp_trace_diag d[4];
	struct ev_hash h[4];
	int64_t rc[4];
	gzFile z;

	(void)state;
	assert_non_null(text);
	z = gzopen(gz, "rb");
	assert_non_null(z);
	n1 = (size_t)gzread(z, one, sizeof(one));
	gzclose(z);
	assert_true(n1 > 1000);
	for (int i = 0; len + n1 + 80000 < 6u << 20; i++) {
		memcpy(text + len, one, n1);
		len += n1;
		if (i % 7 == 3) {
			memcpy(text + len, bad, sizeof(bad) - 1);
			len += sizeof(bad) - 1;
		}
		if (len > (1u << 20) && len < (1u << 20) + n1 + 200) { /* across the boundary */
			len += long_line(text + len);
		}
	}
	memcpy(text + len, tail, sizeof(tail) - 1);
	len += sizeof(tail) - 1;
	write_file(p, text, len);
	for (int i = 0; i < 4; i++) {
		setenv("SUPERPASS_TRACE_THREADS", threads[i], 1);
		sp_trace_diag_init(&d[i]);
		h[i] = (struct ev_hash){ 14695981039346656037ull, 0 };
		rc[i] = sp_trace_read_file(p, hash_event, &h[i], &d[i]);
		assert_true(rc[i] > 30000);
	}
	assert_true(d[0].truncated && d[0].skipped[SP_TRSK_TOO_LONG] == 1 &&
		    d[0].skipped[SP_TRSK_BINARY] > 2 && d[0].skipped[SP_TRSK_OUT_OF_ORDER] > 2 &&
		    d[0].skipped[SP_TRSK_MISSING_FIELD] > 2);
	for (int i = 1; i < 4; i++) {
		assert_int_equal(rc[i], rc[0]);
		assert_int_equal(h[i].n, h[0].n);
		assert_true(h[i].h == h[0].h);
		assert_memory_equal(&d[i], &d[0], sizeof(d[0]));
	}
	for (int i = 0; i < 4; i++) { /* a callback that stops the read */
		setenv("SUPERPASS_TRACE_THREADS", threads[i], 1);
		sp_trace_diag_init(&d[i]);
		h[i] = (struct ev_hash){ 14695981039346656037ull, 0 };
		rc[i] = sp_trace_read_file(p, hash_until, &h[i], &d[i]);
		assert_int_equal(rc[i], 42);
		assert_int_equal(h[i].n, 30000);
		assert_true(h[i].h == h[0].h);
		assert_memory_equal(&d[i], &d[0], sizeof(d[0]));
	}
	unsetenv("SUPERPASS_TRACE_THREADS");
	unlink(p);
	free(p);
	free(gz);
	free(text);
}

/* ---- gzip-compressed .dat: bounded, and nothing left in TMPDIR ---- */

/* A gzip bomb that says .dat: the magic, then @mib MiB of zeros. */
static char *make_bomb(unsigned mib)
{
	static const char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	static char zeros[1 << 16];
	char *p = tmp_path("bomb.dat.gz");
	gzFile z = gzopen(p, "wb9");

	assert_non_null(z);
	assert_int_equal(gzwrite(z, magic, sizeof(magic)), sizeof(magic));
	for (unsigned i = 0; i < mib * 16; i++)
		assert_int_equal(gzwrite(z, zeros, sizeof(zeros)), sizeof(zeros));
	assert_int_equal(gzclose(z), Z_OK);
	return p;
}

/* A fresh, empty directory under $TMPDIR, malloc'd. */
static char *fresh_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *d;

	assert_true(asprintf(&d, "%s/gzdir.XXXXXX", tmp ? tmp : "/tmp") > 0);
	assert_non_null(mkdtemp(d));
	return d;
}

static size_t dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int64_t read_counting(const char *path, struct sp_trace_diag *d, struct ev_hash *h)
{
	sp_trace_diag_init(d);
	*h = (struct ev_hash){ 14695981039346656037ull, 0 };
	return sp_trace_read_file(path, hash_event, h, d);
}

/* TMPDIR as ctest set it, restored after a test that changes it, even if
 * it failed. */
static char *saved_tmpdir;

static int restore_env(void **state)
{
	(void)state;
	unsetenv("SUPERPASS_TRACE_GZ_MAX_MIB");
	if (saved_tmpdir)
		setenv("TMPDIR", saved_tmpdir, 1);
	else
		unsetenv("TMPDIR");
	return 0;
}

/* The bomb is refused at the limit with an error that says so; nothing is
 * left in TMPDIR; a bad limit is named. */
static void test_gz_dat_limit(void **state)
{
	char *bomb = make_bomb(16), *dir = fresh_dir();
	char msg[8192], want[4200];
	struct sp_trace_diag d;
	struct ev_hash h;
	int64_t n;

	(void)state;
	assert_int_equal(sp_trace_gz_max(), 1024ll << 20);
	setenv("TMPDIR", dir, 1);
	setenv("SUPERPASS_TRACE_GZ_MAX_MIB", "4", 1);
	assert_int_equal(sp_trace_gz_max(), 4ll << 20);
	n = read_counting(bomb, &d, &h);
	assert_int_equal(n, -EFBIG);
	assert_int_equal(h.n, 0);
	assert_int_equal(dir_entries(dir), 0);
	sp_trace_read_strerror(n, bomb, msg, sizeof(msg));
	assert_non_null(strstr(msg, "expands past 4 MiB"));
	snprintf(want, sizeof(want), "gunzip -k %s", bomb);
	assert_non_null(strstr(msg, want));
	assert_non_null(strstr(msg, "SUPERPASS_TRACE_GZ_MAX_MIB"));

	setenv("SUPERPASS_TRACE_GZ_MAX_MIB", "4x", 1);
	assert_int_equal(sp_trace_gz_max(), -EDOM);
	n = read_counting(bomb, &d, &h);
	assert_int_equal(n, -EDOM);
	sp_trace_read_strerror(n, bomb, msg, sizeof(msg));
	assert_non_null(strstr(msg, "SUPERPASS_TRACE_GZ_MAX_MIB wants MiB"));
	assert_non_null(strstr(msg, "got '4x'"));
	assert_int_equal(dir_entries(dir), 0);

	restore_env(NULL);
	rmdir(dir);
	unlink(bomb);
	free(dir);
	free(bomb);
}

static void die_hard(int sig)
{
	(void)sig;
	kill(getpid(), SIGKILL);
}

/* SIGKILL in the middle of unpacking (at RLIMIT_FSIZE, whose SIGXFSZ
 * becomes a SIGKILL) leaves nothing in TMPDIR. */
static void test_gz_dat_killed(void **state)
{
	char *bomb = make_bomb(16), *dir = fresh_dir();
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct rlimit fsize = { 2u << 20, 2u << 20 }, core = { 0, 0 };
		struct sp_trace_diag d;
		struct ev_hash h;

		signal(SIGXFSZ, die_hard);
		setrlimit(RLIMIT_CORE, &core);
		setenv("TMPDIR", dir, 1);
		if (setrlimit(RLIMIT_FSIZE, &fsize))
			_exit(3);
		read_counting(bomb, &d, &h);
		_exit(4); /* not killed: the .dat was not written to TMPDIR */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	assert_int_equal(dir_entries(dir), 0);
	rmdir(dir);
	unlink(bomb);
	free(dir);
	free(bomb);
}

static int write_proc(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A mount namespace of our own, as root or in a user namespace. */
static int own_mount_ns(void)
{
	char map[64];
	unsigned uid = (unsigned)geteuid(), gid = (unsigned)getegid();

	if (uid == 0)
		return unshare(CLONE_NEWNS);
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return -1;
	snprintf(map, sizeof(map), "0 %u 1", uid);
	if (write_proc("/proc/self/setgroups", "deny") || write_proc("/proc/self/uid_map", map))
		return -1;
	snprintf(map, sizeof(map), "0 %u 1", gid);
	return write_proc("/proc/self/gid_map", map);
}

/* A TMPDIR on a 1 MiB tmpfs: ENOSPC, said as such, nothing left there. */
static void test_gz_dat_tmpdir_full(void **state)
{
	char *bomb = make_bomb(16), *dir = fresh_dir();
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct sp_trace_diag d;
		struct ev_hash h;
		char msg[8192];
		int64_t n;

		if (own_mount_ns() || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("tmpfs", dir, "tmpfs", 0, "size=1m"))
			_exit(77);
		setenv("TMPDIR", dir, 1);
		setenv("SUPERPASS_TRACE_GZ_MAX_MIB", "64", 1);
		n = read_counting(bomb, &d, &h);
		sp_trace_read_strerror(n, bomb, msg, sizeof(msg));
		if (n != -ENOSPC)
			_exit(10);
		if (!strstr(msg, strerror(ENOSPC)) || !strstr(msg, dir) || !strstr(msg, "gunzip -k"))
			_exit(11);
		if (dir_entries(dir))
			_exit(12);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	rmdir(dir);
	unlink(bomb);
	free(dir);
	free(bomb);
	if (WEXITSTATUS(status) == 77)
		skip(); /* no mount namespace here */
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* The fixture .dat.gz and its gunzipped copy: the same events and counts. */
static void test_dat_gz_same_as_plain(void **state)
{
	char *gz = fixture("lockpair.dat.gz"), *plain = tmp_path("lockpair.dat"), buf[1 << 16];
	struct sp_trace_diag d[2];
	struct ev_hash h[2];
	int64_t n[2];
	FILE *f = open_w(plain);
	gzFile z = gzopen(gz, "rb");
	int k;

	(void)state;
	assert_non_null(z);
	while ((k = gzread(z, buf, sizeof(buf))) > 0)
		assert_int_equal(fwrite(buf, 1, (size_t)k, f), (size_t)k);
	assert_int_equal(k, 0);
	gzclose(z);
	fclose(f);
	n[0] = read_counting(gz, &d[0], &h[0]);
	n[1] = read_counting(plain, &d[1], &h[1]);
	assert_true(n[0] > 0);
	assert_int_equal(n[0], n[1]);
	assert_int_equal(h[0].n, h[1].n);
	assert_true(h[0].h == h[1].h);
	assert_memory_equal(&d[0], &d[1], sizeof(d[0]));
	unlink(plain);
	free(plain);
	free(gz);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_text), cmocka_unit_test(test_dat),
		cmocka_unit_test(test_report_matches_dat), cmocka_unit_test(test_json_chrome_svg),
		cmocka_unit_test(test_bad_files), cmocka_unit_test(test_mapped_same_as_stream),
		cmocka_unit_test(test_parallel_same_as_one_thread),
		cmocka_unit_test_teardown(test_gz_dat_limit, restore_env),
		cmocka_unit_test(test_gz_dat_killed),
		cmocka_unit_test(test_gz_dat_tmpdir_full), cmocka_unit_test(test_dat_gz_same_as_plain),
	};
	const char *tmp = getenv("TMPDIR");
	int rc;

	saved_tmpdir = tmp ? strdup(tmp) : NULL;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(saved_tmpdir);
	return rc;
}
