// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * One run: one scenario under one policy, measured.
 *
 *   critical "sp-ui" (nice ui_nice): every 8.33 ms a frame of ui_work_us CPU
 *     work split around locks_per_frame lock acquisitions (ui_cs_us each).
 *     A blocking is an acquisition that found the lock taken; its duration
 *     runs from the request to the acquisition. Frames are 8.33 ms periods;
 *     a frame is janky when its deadline passes before the work is done
 *     (a frame late by 20 ms makes 2 janky frames; frames = periods).
 *   background "sp-bg-N" (nice bg_nice): take the lock, cs_us of CPU work,
 *     release; one section per gap_us (randomised +-50%) on an absolute
 *     schedule, so a starved thread catches up later. mutex: `holders` threads on
 *     one mutex; rwlock: `readers` threads read-locking a writer-preferring
 *     rwlock the critical thread write-locks; chain: sp-bg-0 holds A and then
 *     takes B, the others take B, the critical thread takes A.
 *   hogs "sp-hog-N" (nice hog_nice): spin and count iterations.
 *
 * The policy only changes how locks are made and how the critical thread is
 * scheduled; the threads and their work are identical.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <superpass/runtime.h>

#include "bench.h"
#include "host_steal.h"

/* ---- a lock, as each policy makes it ---- */
enum impl { IMPL_PTHREAD, IMPL_PI, IMPL_SP };

struct blk {
	enum impl impl;
	bool rw;
	union {
		pthread_mutex_t pm;
		pthread_rwlock_t prw;
		sp_mutex_t sm;
		sp_rwlock_t srw;
	} u;
};

static int blk_init(struct blk *b, enum impl impl, bool rw)
{
	memset(b, 0, sizeof(*b));
	b->impl = impl;
	b->rw = rw;
	if (impl == IMPL_SP)
		return rw ? sp_rwlock_init(&b->u.srw, SP_RWLOCK_PREFER_WRITER)
			  : sp_mutex_init(&b->u.sm, 0);
	if (rw) {
		pthread_rwlockattr_t a;
		int rc;

		pthread_rwlockattr_init(&a);
		/* Writer-preferring, so a waiting writer bounds new readers. */
		pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		rc = pthread_rwlock_init(&b->u.prw, &a);
		pthread_rwlockattr_destroy(&a);
		return rc;
	}
	if (impl == IMPL_PI) {
		pthread_mutexattr_t a;
		int rc;

		pthread_mutexattr_init(&a);
		pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
		rc = pthread_mutex_init(&b->u.pm, &a);
		pthread_mutexattr_destroy(&a);
		return rc;
	}
	return pthread_mutex_init(&b->u.pm, NULL);
}

static void blk_destroy(struct blk *b)
{
	if (b->impl == IMPL_SP)
		b->rw ? sp_rwlock_destroy(&b->u.srw) : sp_mutex_destroy(&b->u.sm);
	else
		b->rw ? pthread_rwlock_destroy(&b->u.prw) : pthread_mutex_destroy(&b->u.pm);
}

static int blk_try_excl(struct blk *b)
{
	if (b->impl == IMPL_SP)
		return b->rw ? sp_rwlock_trywrlock(&b->u.srw) : sp_mutex_trylock(&b->u.sm);
	return b->rw ? pthread_rwlock_trywrlock(&b->u.prw) : pthread_mutex_trylock(&b->u.pm);
}

static void blk_excl(struct blk *b)
{
	if (b->impl == IMPL_SP)
		b->rw ? sp_rwlock_wrlock(&b->u.srw) : sp_mutex_lock(&b->u.sm);
	else
		b->rw ? pthread_rwlock_wrlock(&b->u.prw) : pthread_mutex_lock(&b->u.pm);
}

static void blk_shared(struct blk *b)
{
	if (b->impl == IMPL_SP)
		sp_rwlock_rdlock(&b->u.srw);
	else
		pthread_rwlock_rdlock(&b->u.prw);
}

static void blk_unlock(struct blk *b)
{
	if (b->impl == IMPL_SP)
		b->rw ? sp_rwlock_unlock(&b->u.srw) : sp_mutex_unlock(&b->u.sm);
	else
		b->rw ? pthread_rwlock_unlock(&b->u.prw) : pthread_mutex_unlock(&b->u.pm);
}

/* ---- shared state of a run ---- */
struct bg {
	struct run *run;
	int idx;
	int tid;
	int schedstat_fd;
	int holding;            /* atomic: inside a critical section */
	uint64_t boost_seq;     /* the last critical wait this holder checked its policy for */
	uint64_t rng;
	pthread_t thread;
};

struct hog {
	struct run *run;
	int idx;
	uint64_t iters;         /* atomic */
	pthread_t thread;
	char pad[40];
};

struct run {
	const struct bench_opts *o;
	enum bench_scenario sc;
	enum bench_policy po;
	struct blk a, b;
	int go, stop;           /* atomic */
	int ready;              /* atomic: threads set up */
	int nr_bg;
	struct bg bg[BENCH_MAX_THREADS];
	struct hog hog[BENCH_MAX_THREADS];
	struct bench_result *r;
	int ui_err;
	int trace;              /* SUPERPASS_BENCH_TRACE: one line per blocking and per boost seen */
	int ui_schedstat_fd;    /* the critical thread's, with trace only (a read per acquisition) */
	/* Boost latency: the critical thread publishes each wait (its start,
	 * and a sequence number); the first holder to see itself in
	 * SCHED_FIFO during that wait records now - start. */
	bool measure_boost;
	uint64_t wait_t0;       /* atomic: start of the critical thread's wait, 0 if none */
	uint64_t wait_seq;      /* atomic: number of that wait */
	uint64_t boost_done;    /* atomic: the last wait whose latency was recorded */
	pthread_mutex_t boost_lock; /* r->boost_hist */
};

static bool stopping(struct run *run)
{
	return __atomic_load_n(&run->stop, __ATOMIC_RELAXED);
}

static void wait_go(struct run *run)
{
	__atomic_add_fetch(&run->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&run->go, __ATOMIC_ACQUIRE))
		bench_sleep_ns(200000);
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* In a holder's critical section: is a critical thread waiting, and are we
 * running fast-tracked? One sched_getscheduler per 5 us of the section,
 * only while a wait is on and not yet seen. */
static void bg_boost_poll(void *arg)
{
	struct bg *g = arg;
	struct run *run = g->run;
	uint64_t seq = __atomic_load_n(&run->wait_seq, __ATOMIC_ACQUIRE);
	uint64_t t0 = __atomic_load_n(&run->wait_t0, __ATOMIC_ACQUIRE), done, now;

	if (!t0 || seq == g->boost_seq ||
	    (done = __atomic_load_n(&run->boost_done, __ATOMIC_ACQUIRE)) >= seq)
		return;
	if ((sched_getscheduler(0) & ~SCHED_RESET_ON_FORK) != SCHED_FIFO)
		return;
	now = bench_now_ns();
	g->boost_seq = seq;
	/* t0 must still be this wait's: re-read the sequence after it. */
	if (__atomic_load_n(&run->wait_seq, __ATOMIC_ACQUIRE) != seq || now < t0)
		return;
	if (!__atomic_compare_exchange_n(&run->boost_done, &done, seq, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&run->boost_lock);
	sp_hist_record(&run->r->boost_hist, now - t0);
	pthread_mutex_unlock(&run->boost_lock);
	if (run->trace)
		fprintf(stderr, "boost t0=%llu t=%llu us=%.1f tid=%d\n", (unsigned long long)t0,
			(unsigned long long)now, (double)(now - t0) / 1e3, g->tid);
}

static void bg_section(struct bg *g, uint32_t us)
{
	if (g->run->measure_boost)
		bench_spin_cpu_us_poll(us, bg_boost_poll, g);
	else
		bench_spin_cpu_us(us);
}

static void *bg_main(void *arg)
{
	struct bg *g = arg;
	struct run *run = g->run;
	const struct bench_opts *o = run->o;
	char name[16];
	uint64_t next;

	snprintf(name, sizeof(name), "sp-bg-%d", g->idx);
	pthread_setname_np(pthread_self(), name);
	bench_set_nice(o->bg_nice);
	g->tid = bench_gettid();
	g->schedstat_fd = bench_schedstat_open(g->tid);
	wait_go(run);
	next = bench_now_ns();
	while (!stopping(run)) {
		/* Work arrives on a schedule (one section per gap_us, jittered), as
		 * background work does: a starved thread falls behind and then
		 * runs its sections back to back, holding the lock more often. */
		uint64_t gap = o->gap_us / 2 + xorshift(&g->rng) % (o->gap_us + 1), now;

		if (run->sc == SC_CHAIN && g->idx == 0) {
			blk_excl(&run->a);
			__atomic_store_n(&g->holding, 1, __ATOMIC_RELEASE);
			bg_section(g, o->cs_us / 2);
			blk_excl(&run->b);
			bg_section(g, o->cs_us / 2);
			blk_unlock(&run->b);
			__atomic_store_n(&g->holding, 0, __ATOMIC_RELEASE);
			blk_unlock(&run->a);
		} else {
			struct blk *l = run->sc == SC_CHAIN ? &run->b : &run->a;

			if (run->sc == SC_RWLOCK)
				blk_shared(l);
			else
				blk_excl(l);
			__atomic_store_n(&g->holding, 1, __ATOMIC_RELEASE);
			bg_section(g, o->cs_us);
			__atomic_store_n(&g->holding, 0, __ATOMIC_RELEASE);
			blk_unlock(l);
		}
		next += gap * 1000u;
		now = bench_now_ns();
		if (next + 20ull * o->gap_us * 1000u < now) /* bounded backlog */
			next = now;
		bench_sleep_until_ns(next);
	}
	return NULL;
}

static void *hog_main(void *arg)
{
	struct hog *h = arg;
	char name[16];
	uint64_t x = 0;

	snprintf(name, sizeof(name), "sp-hog-%d", h->idx);
	pthread_setname_np(pthread_self(), name);
	bench_set_nice(h->run->o->hog_nice);
	wait_go(h->run);
	while (!stopping(h->run)) {
		for (int i = 0; i < 4096; i++)
			x += (uint64_t)i * (uint64_t)i;
		__asm__ volatile("" : : "r"(x)); /* keep the work */
		__atomic_add_fetch(&h->iters, 4096, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* One acquisition by the critical thread, measured. */
static void ui_acquire(struct run *run, struct blk *l)
{
	struct bench_result *r = run->r;
	uint64_t t0, t1, w0[BENCH_MAX_THREADS], dur, worst = 0, ui_w0 = 0;
	int holders[BENCH_MAX_THREADS], nh = 0;

	/* Who holds it now, and how long they have waited for a CPU so far:
	 * read before the trylock, so that these reads (a procfs pread each,
	 * 5-10 us here, one per holder) do not sit between the failed trylock
	 * and the lock call, inside the wait and the boost latency measured. */
	for (int i = 0; i < run->nr_bg; i++) {
		if (__atomic_load_n(&run->bg[i].holding, __ATOMIC_ACQUIRE)) {
			holders[nh] = i;
			w0[nh++] = bench_schedstat_wait_ns(run->bg[i].schedstat_fd);
		}
	}
	if (run->ui_schedstat_fd >= 0)
		ui_w0 = bench_schedstat_wait_ns(run->ui_schedstat_fd);
	t0 = bench_now_ns();
	if (blk_try_excl(l) == 0)
		return;
	if (run->measure_boost) {
		__atomic_store_n(&run->wait_t0, t0, __ATOMIC_RELEASE);
		__atomic_add_fetch(&run->wait_seq, 1, __ATOMIC_ACQ_REL);
	}
	blk_excl(l);
	t1 = bench_now_ns();
	if (run->measure_boost)
		__atomic_store_n(&run->wait_t0, 0, __ATOMIC_RELEASE);
	dur = t1 - t0;
	for (int j = 0; j < nh; j++) {
		uint64_t w = bench_schedstat_wait_ns(run->bg[holders[j]].schedstat_fd) - w0[j];

		if (w > worst)
			worst = w;
	}
	/* ui_wait_ms: how long the critical thread itself was runnable but
	 * off the CPU during its wait (woken when the lock was let go, it
	 * still has to get a CPU to take it). */
	if (run->trace)
		fprintf(stderr,
			"blocking t0=%llu t1=%llu ms=%.3f holders=%d (tid %d) wait_ms=%.3f "
			"ui_wait_ms=%.3f\n",
			(unsigned long long)t0, (unsigned long long)t1, (double)dur / 1e6, nh,
			nh ? run->bg[holders[0]].tid : 0, (double)worst / 1e6,
			run->ui_schedstat_fd >= 0
				? (double)(bench_schedstat_wait_ns(run->ui_schedstat_fd) - ui_w0) / 1e6
				: 0.0);
	r->blockings++;
	sp_hist_record(&r->hist, dur);
	r->blocked_ns += dur;
	r->holder_wait_ns += worst < dur ? worst : dur;
}

static void *ui_main(void *arg)
{
	struct run *run = arg;
	const struct bench_opts *o = run->o;
	struct bench_result *r = run->r;
	uint32_t n = o->locks_per_frame ? o->locks_per_frame : 1;
	uint64_t next;

	pthread_setname_np(pthread_self(), "sp-ui");
	bench_set_nice(o->ui_nice);
	if (run->po == PO_RTUI) {
		struct sched_param sp = { .sched_priority = o->prio };

		run->ui_err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	}
	if (run->po == PO_SUPERPASS)
		sp_thread_set_critical(0, true);
	if (run->trace)
		run->ui_schedstat_fd = bench_schedstat_open((int)syscall(SYS_gettid));
	wait_go(run);
	next = bench_now_ns();
	while (!stopping(run)) {
		uint64_t start = next, end;

		for (uint32_t i = 0; i < n; i++) {
			bench_spin_cpu_us(o->ui_work_us / n);
			ui_acquire(run, &run->a);
			bench_spin_cpu_us(o->ui_cs_us);
			blk_unlock(&run->a);
		}
		end = bench_now_ns();
		/* Every 8.33 ms deadline that passes before the frame's work is
		 * done is a janky frame (the display repeats the old one); the
		 * next frame starts at the next deadline after the work ends. */
		next = start + BENCH_FRAME_NS;
		if (end > next) {
			r->janky += (end - start) / BENCH_FRAME_NS;
			next = end - (end - start) % BENCH_FRAME_NS + BENCH_FRAME_NS;
		}
		r->frames += (next - start) / BENCH_FRAME_NS;
		bench_sleep_until_ns(next);
	}
	if (run->po == PO_SUPERPASS)
		sp_thread_set_critical(0, false);
	return NULL;
}

/* The runtime's statistics into @path (SUPERPASS_STATS), as the interposer
 * writes them for the preloaded rows; never through a symbolic link. */
static void bench_write_runtime_stats(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	int rc;

	if (!f) {
		fprintf(stderr, "superpass bench: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	rc = sp_runtime_write_json(f);
	if (fclose(f) || rc < 0)
		fprintf(stderr, "superpass bench: cannot write %s\n", path);
}

static int start_runtime(const struct bench_opts *o, uint32_t k)
{
	struct sp_runtime_config cfg;

	sp_runtime_config_default(&cfg);
	cfg.fifo_prio = o->prio;
	cfg.core.budget_ns = (uint64_t)o->budget_ms * 1000000ull;
	if (k)
		cfg.core.readers_per_lock = k;
	/* The runtime explains a missing privilege once; once per bench, too. */
	static int told;

	cfg.quiet = told++ > 0;
	cfg.log_path = getenv("SUPERPASS_LOG"); /* actuator calls, for debugging */
	return sp_runtime_create(&cfg);
}

int bench_run(const struct bench_opts *o, enum bench_scenario sc, enum bench_policy po,
	      uint32_t k, struct bench_result *r)
{
	struct run *run = calloc(1, sizeof(*run));
	enum impl impl = po == PO_SUPERPASS ? IMPL_SP : po == PO_PI ? IMPL_PI : IMPL_PTHREAD;
	pthread_t ui;
	double cpu0, steal0;
	uint64_t t0;
	int rc;

	if (!run)
		return -ENOMEM;
	bench_result_init(r, sc, po, k);
	run->o = o;
	run->sc = sc;
	run->po = po;
	run->r = r;
	run->trace = getenv("SUPERPASS_BENCH_TRACE") != NULL;
	run->ui_schedstat_fd = -1;
	/* superpass, and the re-executed child of superpass-preload */
	run->measure_boost = po == PO_SUPERPASS || o->child_scenario >= 0;
	pthread_mutex_init(&run->boost_lock, NULL);
	if (po == PO_SUPERPASS) {
		rc = start_runtime(o, k);
		if (rc) {
			snprintf(r->note, sizeof(r->note), "runtime: %s", strerror(-rc));
			r->skipped = true;
			free(run);
			return 0;
		}
	}
	blk_init(&run->a, impl, sc == SC_RWLOCK);
	blk_init(&run->b, impl, false);
	run->nr_bg = sc == SC_RWLOCK ? o->readers : sc == SC_CHAIN ? 2 : o->holders;
	if (sc == SC_CHAIN && o->holders > 2)
		run->nr_bg = o->holders;
	for (int i = 0; i < run->nr_bg; i++) {
		run->bg[i] = (struct bg){ .run = run, .idx = i, .schedstat_fd = -1,
					  .rng = o->seed * 0x9e3779b97f4a7c15ull + (uint64_t)i + 1 };
		pthread_create(&run->bg[i].thread, NULL, bg_main, &run->bg[i]);
	}
	for (int i = 0; i < o->hogs; i++) {
		run->hog[i].run = run;
		run->hog[i].idx = i;
		pthread_create(&run->hog[i].thread, NULL, hog_main, &run->hog[i]);
	}
	pthread_create(&ui, NULL, ui_main, run);

	while (__atomic_load_n(&run->ready, __ATOMIC_ACQUIRE) < run->nr_bg + o->hogs + 1)
		bench_sleep_ns(1000000);
	if (po == PO_RTUI && run->ui_err) {
		snprintf(r->note, sizeof(r->note), "SCHED_FIFO refused: %s", strerror(run->ui_err));
		r->skipped = true;
	}
	cpu0 = bench_process_cpu_s();
	steal0 = sp_host_steal_s();
	t0 = bench_now_ns();
	__atomic_store_n(&run->go, 1, __ATOMIC_RELEASE);
	bench_sleep_ns((uint64_t)(o->duration_s * 1e9));
	__atomic_store_n(&run->stop, 1, __ATOMIC_RELEASE);
	pthread_join(ui, NULL);

	for (int i = 0; i < o->hogs; i++) {
		pthread_join(run->hog[i].thread, NULL);
		r->hog_iters += run->hog[i].iters;
	}
	for (int i = 0; i < run->nr_bg; i++) {
		pthread_join(run->bg[i].thread, NULL);
		if (run->bg[i].schedstat_fd >= 0)
			close(run->bg[i].schedstat_fd);
	}
	if (run->ui_schedstat_fd >= 0)
		close(run->ui_schedstat_fd);
	r->seconds = (double)(bench_now_ns() - t0) / 1e9;
	r->cpu_s = bench_process_cpu_s() - cpu0;
	r->steal_s = steal0 < 0 ? -1 : sp_host_steal_s() - steal0;
	/* The worker's CPU since it started with this run's runtime (the
	 * interposer's child: since the process started, which is the run). */
	r->rt_cpu_s = bench_thread_cpu_by_name("superpass-wk");
	if (po == PO_SUPERPASS) {
		struct sp_runtime_stats st;

		const char *stats = getenv("SUPERPASS_STATS");

		if (stats && *stats) /* the runtime's own view, as the interposer writes it */
			bench_write_runtime_stats(stats);
		if (sp_runtime_stats(&st) == 0) {
			r->have_stats = true;
			r->stats = st;
			r->grants = st.core.grants;
			r->expiries = st.core.expiries;
			r->fast_tracks = st.act_fast_tracks;
			if (st.mode != SP_ACT_FIFO)
				snprintf(r->note, sizeof(r->note), "actuator mode %s",
					 sp_act_mode_name((enum sp_act_mode)st.mode));
		}
	}
	blk_destroy(&run->a);
	blk_destroy(&run->b);
	if (po == PO_SUPERPASS)
		sp_runtime_destroy();
	pthread_mutex_destroy(&run->boost_lock);
	free(run);
	return 0;
}
