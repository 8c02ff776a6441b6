// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel-lock priority inversion workload for the superpass.ko QEMU test.
 * Built static and run as root inside the guest (init is a busybox script).
 *
 *   inode  a critical thread (nice -10) does 4 KiB pwrite()s to a tmpfs file
 *          while nice-19 threads do 64 KiB pwrite()s to it: both take the
 *          inode's i_rwsem for writing, so the critical thread waits for a
 *          holder that gets almost no CPU next to the nice-0 hogs.
 *   mmap   the critical thread does mmap()+munmap() (mmap_lock writer) while
 *          nice-19 threads fault pages in and drop them (mmap_lock readers
 *          up to Linux 6.3; from 6.4, CONFIG_PER_VMA_LOCK, an anonymous
 *          fault takes only its VMA's lock and this no longer inverts).
 *   populate  the same writer against nice-19 threads that prefault memory
 *          with madvise(MADV_POPULATE_WRITE) (as QEMU's and databases'
 *          preallocation do) and drop it with MADV_DONTNEED: both run
 *          under mmap_read_lock on 6.12 as on 6.1, a page at a time with a
 *          cond_resched() between pages (GUP, zap_pmd_range), so a holder
 *          can be preempted inside the lock even with Debian's voluntary
 *          preemption. (Readers of /proc/PID/maps take mmap_read_lock too,
 *          but seq_file's show loop has no preemption point: under
 *          PREEMPT_VOLUNTARY they are never preempted holding it, so they
 *          make no inversion.)
 *   fpos   like inode, but with lseek()+write() on one shared file
 *          description: each call takes the file's f_pos_lock, a struct
 *          mutex, for its whole length (then the inode's i_rwsem).
 *   futex  a lock of the program's own: a 0/1/2 futex word (as GLib's
 *          GMutex and Rust's std Mutex) through raw futex system calls, no
 *          libc lock. The critical thread runs 120 Hz frames and takes the
 *          lock twice a frame; the nice-19 threads hold it for 0.5-1.5 ms
 *          of their own CPU time at a time, then sleep 2 ms (background
 *          work with pauses: a holder that relocks at once would take the
 *          word back before any woken waiter runs). Its operations are the
 *          waits for the lock (request to acquisition).
 *
 * Four nice-0 CPU hogs run throughout; their iterations per second are the
 * throughput figure. With --module, the critical thread is marked through
 * /proc/superpass/critical, the test checks that every holder is back to
 * SCHED_OTHER nice 19 after the run, then runs again and unloads the module
 * (delete_module) in the middle of it, and checks the holders once more.
 *
 * --idle-threads N: no scenario; the process starts N threads that only
 * wait, prints "SPW idle_threads N" and waits until killed (the guest's
 * checks of what one write to /proc/superpass/critical may mark).
 *
 * Output: "SPW key value" figures and "SPW_CHECK name PASS|FAIL detail".
 * Exit status 0 only if every check passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NR_HOGS 4
#define NR_HOLDERS 2
#define MAX_SAMPLES 200000
#define BIG_WRITE (64u << 10)
#define SMALL_WRITE 4096u
#define FAULT_REGION (8u << 20)
#define CRIT_MAP (64u << 10)
#define CRIT_PERIOD_US 2000
#define POPULATE_REGION (2u << 20)
#define FRAME_NS 8333333ull       /* 120 Hz */
#define FX_HOLD_MIN_NS 500000ull  /* a holder's section, in its CPU time */
#define FX_HOLD_SPAN_NS 1000000ull
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  /* Linux 5.14 */
#endif

static const char *scenario = "inode";
static unsigned int seconds = 6;
static bool with_module;
static bool no_mark;       /* module loaded, nothing marked: probe overhead */
/* --trace-long MS: the first critical operation over MS ms writes a marker
 * into the guest's ftrace buffer and stops tracing, so that what the
 * scheduler and the lock events did during it can be read afterwards. */
static unsigned int trace_long_ms;
static int trace_marker_fd = -1, tracing_on_fd = -1;
static int failures;

static atomic_bool stop_all, stop_crit;
/* One cache line per hog: read at the edges of the measured window. */
static struct {
	atomic_ulong n;
	char pad[56];
} hog_iters[NR_HOGS];
static atomic_int holder_tids[NR_HOLDERS];
static atomic_ulong holder_work;   /* KiB written, pages faulted/populated, or sections (futex) */
/* The holders' lock-taking calls (one pwrite/write/madvise, one section of
 * the contended lock; faults: one pass over the region): count, total and
 * longest, in ns, including any time the holder was preempted inside. */
static atomic_ulong holder_calls, holder_call_ns, holder_call_max_ns;
static int data_fd = -1;

static uint64_t *samples;
static size_t nr_samples;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void check(const char *name, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#include <stdarg.h>
static void check(const char *name, bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("SPW_CHECK %s %s ", name, ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
}

static void set_self(const char *name, int nice_value)
{
	prctl(PR_SET_NAME, name);
	setpriority(PRIO_PROCESS, (id_t)gettid_(), nice_value);
}

static void *hog_main(void *arg)
{
	atomic_ulong *n = &hog_iters[(long)arg].n;

	set_self("sp-hog", 0);
	while (!atomic_load_explicit(&stop_all, memory_order_relaxed)) {
		for (volatile int i = 0; i < 10000; i++)
			;
		atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) + 1,
				      memory_order_relaxed);
	}
	return NULL;
}

static unsigned long hog_total(void)
{
	unsigned long sum = 0;

	for (int i = 0; i < NR_HOGS; i++)
		sum += atomic_load_explicit(&hog_iters[i].n, memory_order_relaxed);
	return sum;
}

static void holder_call_done(uint64_t t0)
{
	unsigned long ns = (unsigned long)(now_ns() - t0);
	unsigned long max = atomic_load_explicit(&holder_call_max_ns, memory_order_relaxed);

	atomic_fetch_add_explicit(&holder_calls, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&holder_call_ns, ns, memory_order_relaxed);
	while (ns > max && !atomic_compare_exchange_weak(&holder_call_max_ns, &max, ns))
		;
}

/*
 * The futex scenario's lock L: 0 free, 1 taken, 2 taken with waiters
 * (Drepper, "Futexes Are Tricky", mutex2), the word names nobody.
 */
static atomic_uint fx_word;

static void fx_lock(atomic_uint *w)
{
	unsigned int c = 0;

	if (atomic_compare_exchange_strong(w, &c, 1))
		return;
	if (c != 2)
		c = atomic_exchange(w, 2);
	while (c != 0) {
		syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
		c = atomic_exchange(w, 2);
	}
}

static void fx_unlock(atomic_uint *w)
{
	if (atomic_fetch_sub(w, 1) != 1) {
		atomic_store(w, 0);
		syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	}
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* 0.5-1.5 ms of this thread's CPU time, wherever the scheduler puts it. */
static void fx_hold_section(unsigned int *seed)
{
	uint64_t end;

	*seed = *seed * 1103515245u + 12345u;
	end = cpu_ns() + FX_HOLD_MIN_NS + (*seed >> 8) % FX_HOLD_SPAN_NS;
	while (cpu_ns() < end)
		;
}

static void *holder_main(void *arg)
{
	long idx = (long)arg;
	char *buf;

	set_self("sp-holder", 19);
	atomic_store(&holder_tids[idx], gettid_());
	if (!strcmp(scenario, "futex")) {
		unsigned int seed = (unsigned int)idx + 1;
		struct timespec gap = { 0, 2000000 };

		while (!atomic_load(&stop_all)) {
			uint64_t t0 = now_ns();

			fx_lock(&fx_word);
			fx_hold_section(&seed);
			fx_unlock(&fx_word);
			holder_call_done(t0);
			atomic_fetch_add_explicit(&holder_work, 1, memory_order_relaxed);
			nanosleep(&gap, NULL);
		}
	} else if (!strcmp(scenario, "inode") || !strcmp(scenario, "fpos")) {
		bool fpos = !strcmp(scenario, "fpos");

		buf = malloc(BIG_WRITE);
		memset(buf, 'h', BIG_WRITE);
		while (!atomic_load(&stop_all)) {
			uint64_t t0 = now_ns();

			if (fpos ? (lseek(data_fd, 0, SEEK_SET) < 0 ||
				    write(data_fd, buf, BIG_WRITE) < 0) :
				   pwrite(data_fd, buf, BIG_WRITE, 0) < 0)
				break;
			holder_call_done(t0);
			atomic_fetch_add_explicit(&holder_work, BIG_WRITE >> 10,
						  memory_order_relaxed);
		}
		free(buf);
	} else if (!strcmp(scenario, "populate")) {
		set_self("sp-populate", 19);
		buf = mmap(NULL, POPULATE_REGION, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED)
			return NULL;
		while (!atomic_load(&stop_all)) {
			uint64_t t0 = now_ns();

			/* Each call is one mmap_read_lock() section. */
			if (madvise(buf, POPULATE_REGION, MADV_POPULATE_WRITE))
				break;
			holder_call_done(t0);
			atomic_fetch_add_explicit(&holder_work, POPULATE_REGION >> 12,
						  memory_order_relaxed);
			madvise(buf, POPULATE_REGION, MADV_DONTNEED);
		}
		munmap(buf, POPULATE_REGION);
	} else {
		set_self("sp-fault", 19);
		buf = mmap(NULL, FAULT_REGION, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED)
			return NULL;
		while (!atomic_load(&stop_all)) {
			uint64_t t0 = now_ns();

			for (size_t off = 0; off < FAULT_REGION; off += 4096)
				buf[off] = 1;  /* a page fault: mmap_lock read */
			holder_call_done(t0);
			atomic_fetch_add_explicit(&holder_work, FAULT_REGION >> 12,
						  memory_order_relaxed);
			madvise(buf, FAULT_REGION, MADV_DONTNEED);
		}
		munmap(buf, FAULT_REGION);
	}
	return NULL;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n < 0 ? -errno : 0;
}

static bool proc_lists_tid(pid_t tid)
{
	char line[64];
	FILE *f = fopen("/proc/superpass/critical", "r");
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (atoi(line) == tid)
			found = true;
	fclose(f);
	return found;
}

static atomic_int crit_tid;

/*
 * The module drops a marked tid in its sched_process_exit probe. That
 * tracepoint fires in do_exit() after exit_mm(), whose CLONE_CHILD_CLEARTID
 * futex wake is what lets pthread_join() return: the joiner can look before
 * the probe has run. Wait for it, up to @ms.
 */
static bool tid_dropped(pid_t tid, unsigned int ms)
{
	for (unsigned int waited = 0; proc_lists_tid(tid); waited += 10) {
		if (waited >= ms)
			return false;
		usleep(10000);
	}
	return true;
}

/* The marker gives the operation's bounds in the trace clock (mono, set
 * by guest-init.sh), then tracing stops: the buffer ends with this op. */
static void trace_stop(uint64_t t0, uint64_t t1)
{
	char text[128];
	int n = snprintf(text, sizeof(text), "SPLONG tid %d start %llu.%06llu end %llu.%06llu ms %llu\n",
			 gettid_(), (unsigned long long)(t0 / 1000000000ull),
			 (unsigned long long)(t0 % 1000000000ull / 1000),
			 (unsigned long long)(t1 / 1000000000ull),
			 (unsigned long long)(t1 % 1000000000ull / 1000),
			 (unsigned long long)((t1 - t0) / 1000000));

	if (write(trace_marker_fd, text, (size_t)n) < 0 || write(tracing_on_fd, "0", 1) < 0)
		perror("trace stop");
	close(tracing_on_fd);
	tracing_on_fd = -1;
}

static void crit_sample(bool record, uint64_t t0, uint64_t t1)
{
	if (record && nr_samples < MAX_SAMPLES)
		samples[nr_samples++] = t1 - t0;
	if (record && tracing_on_fd >= 0 && t1 - t0 >= trace_long_ms * 1000000ull)
		trace_stop(t0, t1);
}

/* 120 Hz frames taking L twice each; a frame that overran starts the next
 * at once. The samples are the waits for L. */
static void crit_futex_frames(bool record)
{
	uint64_t next = now_ns();

	while (!atomic_load(&stop_crit)) {
		for (int i = 0; i < 2; i++) {
			uint64_t t0 = now_ns(), t1;

			fx_lock(&fx_word);
			t1 = now_ns();
			for (volatile int k = 0; k < 2000; k++)
				;
			fx_unlock(&fx_word);
			crit_sample(record, t0, t1);
		}
		next += FRAME_NS;
		if (now_ns() < next) {
			struct timespec ts = { (time_t)(next / 1000000000ull),
					       (long)(next % 1000000000ull) };

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		} else {
			next = now_ns();
		}
	}
}

static void *crit_main(void *arg)
{
	char small[SMALL_WRITE];
	char text[32];
	bool record = arg != NULL;

	memset(small, 'c', sizeof(small));
	set_self("sp-crit", -10);
	atomic_store(&crit_tid, gettid_());
	if (with_module && !no_mark) {
		snprintf(text, sizeof(text), "%d\n", gettid_());
		check("mark_critical", write_file("/proc/superpass/critical", text) == 0,
		      "tid %d", gettid_());
	}
	if (!strcmp(scenario, "futex")) {
		crit_futex_frames(record);
		return NULL;
	}
	while (!atomic_load(&stop_crit)) {
		uint64_t t0 = now_ns(), t1;
		struct timespec period = { 0, CRIT_PERIOD_US * 1000 };

		if (!strcmp(scenario, "inode")) {
			if (pwrite(data_fd, small, sizeof(small), 0) < 0)
				break;
		} else if (!strcmp(scenario, "fpos")) {
			if (lseek(data_fd, 0, SEEK_SET) < 0 ||
			    write(data_fd, small, sizeof(small)) < 0)
				break;
		} else {
			char *p = mmap(NULL, CRIT_MAP, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				break;
			munmap(p, CRIT_MAP);
		}
		t1 = now_ns();
		crit_sample(record, t0, t1);
		nanosleep(&period, NULL);
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t pct(double q)
{
	size_t i;

	if (!nr_samples)
		return 0;
	i = (size_t)(q * (double)(nr_samples - 1) + 0.5);
	return samples[i];
}

/* Every holder back to SCHED_OTHER at nice 19? Waits up to @ms for the
 * actuator thread, which restores asynchronously. */
static bool holders_restored(unsigned int ms, char *why, size_t cap)
{
	for (unsigned int waited = 0;; waited += 10) {
		bool ok = true;

		why[0] = '\0';
		for (int i = 0; i < NR_HOLDERS; i++) {
			pid_t tid = atomic_load(&holder_tids[i]);
			int pol = sched_getscheduler(tid);
			int nice_value;

			errno = 0;
			nice_value = getpriority(PRIO_PROCESS, (id_t)tid);
			if (pol != SCHED_OTHER || nice_value != 19) {
				ok = false;
				snprintf(why, cap, "tid %d policy %d nice %d", tid, pol, nice_value);
			}
		}
		if (ok || waited >= ms)
			return ok;
		usleep(10000);
	}
}

static void print_file(const char *path, const char *prefix)
{
	char line[256];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("%s %s", prefix, line);
	fclose(f);
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

/*
 * Probe cost on the hot paths, no contention and no hogs: one thread
 * faulting one page in and dropping it (mmap_lock read: down_read_trylock
 * and up_read hooks) and doing 64-byte write()s (f_pos_lock mutex, then
 * i_rwsem write: down_write and up_write hooks). ns per iteration, the
 * best of five repetitions.
 */
static int micro(void)
{
	const int iters = 30000, reps = 5;
	char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char small[64] = { 0 };
	uint64_t best_fault = UINT64_MAX, best_write = UINT64_MAX, t0, t1;

	if (page == MAP_FAILED)
		return 2;
	/* The minimum of a few repetitions: the guest shares its host. */
	for (int r = 0; r < reps; r++) {
		t0 = now_ns();
		for (int i = 0; i < iters; i++) {
			page[0] = 1;
			madvise(page, 4096, MADV_DONTNEED);
		}
		t1 = now_ns();
		if (t1 - t0 < best_fault)
			best_fault = t1 - t0;
		t0 = now_ns();
		for (int i = 0; i < iters; i++)
			if (lseek(data_fd, 0, SEEK_SET) < 0 ||
			    write(data_fd, small, sizeof(small)) < 0)
				return 2;
		t1 = now_ns();
		if (t1 - t0 < best_write)
			best_write = t1 - t0;
	}
	printf("SPW micro_fault_ns %.0f\n", (double)best_fault / iters);
	printf("SPW micro_write_ns %.0f\n", (double)best_write / iters);
	return 0;
}

static void *idle_main(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

static int idle_threads(unsigned int n)
{
	pthread_attr_t attr;
	pthread_t t;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64u << 10);
	for (unsigned int i = 0; i < n; i++) {
		int err = pthread_create(&t, &attr, idle_main, NULL);

		if (err) {
			fprintf(stderr, "--idle-threads: thread %u of %u: %s\n", i + 1, n, strerror(err));
			return 1;
		}
	}
	printf("SPW idle_threads %u\n", n);
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	pthread_t hogs[NR_HOGS], holders[NR_HOLDERS], crit;
	uint64_t t_start, t_end;
	unsigned long hogs_start, hogs_end, work_start, work_end;
	char why[128];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--scenario") && i + 1 < argc)
			scenario = argv[++i];
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--module"))
			with_module = true;
		else if (!strcmp(argv[i], "--no-mark"))
			no_mark = true;
		else if (!strcmp(argv[i], "--micro"))
			scenario = "micro";
		else if (!strcmp(argv[i], "--trace-long") && i + 1 < argc)
			trace_long_ms = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--idle-threads") && i + 1 < argc)
			return idle_threads((unsigned int)atoi(argv[++i]));
		else {
			fprintf(stderr, "usage: %s [--scenario inode|mmap|populate|fpos|futex] [--seconds N] [--module [--no-mark]] [--trace-long MS] | --micro | --idle-threads N\n",
				argv[0]);
			return 2;
		}
	}
	if (strcmp(scenario, "inode") && strcmp(scenario, "mmap") && strcmp(scenario, "populate") &&
	    strcmp(scenario, "fpos") && strcmp(scenario, "futex") && strcmp(scenario, "micro")) {
		fprintf(stderr, "unknown scenario %s\n", scenario);
		return 2;
	}
	samples = calloc(MAX_SAMPLES, sizeof(*samples));
	data_fd = open("/tmp/spw.dat", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (!samples || data_fd < 0) {
		perror("setup");
		return 2;
	}
	if (!strcmp(scenario, "micro"))
		return micro();
	if (trace_long_ms) {
		trace_marker_fd = open("/sys/kernel/tracing/trace_marker", O_WRONLY);
		tracing_on_fd = open("/sys/kernel/tracing/tracing_on", O_WRONLY);
		if (trace_marker_fd < 0 || tracing_on_fd < 0) {
			perror("--trace-long: /sys/kernel/tracing");
			return 2;
		}
	}
	printf("SPW scenario %s module %d seconds %u\n", scenario, with_module, seconds);

	for (long i = 0; i < NR_HOLDERS; i++)
		pthread_create(&holders[i], NULL, holder_main, (void *)i);
	for (long i = 0; i < NR_HOGS; i++)
		pthread_create(&hogs[i], NULL, hog_main, (void *)i);
	while (!atomic_load(&holder_tids[0]) || !atomic_load(&holder_tids[NR_HOLDERS - 1]))
		usleep(1000);
	for (int i = 0; i < NR_HOLDERS; i++)
		printf("SPW holder_tid %d\n", atomic_load(&holder_tids[i]));

	/* Measured run. */
	t_start = now_ns();
	hogs_start = hog_total();
	work_start = atomic_load(&holder_work);
	pthread_create(&crit, NULL, crit_main, (void *)1);
	sleep_s(seconds);
	atomic_store(&stop_crit, true);
	pthread_join(crit, NULL);
	t_end = now_ns();
	hogs_end = hog_total();
	work_end = atomic_load(&holder_work);
	printf("SPW crit_tid %d\n", atomic_load(&crit_tid));

	qsort(samples, nr_samples, sizeof(*samples), cmp_u64);
	printf("SPW ops %zu\n", nr_samples);
	printf("SPW p50_us %.1f\n", (double)pct(0.50) / 1e3);
	printf("SPW p99_us %.1f\n", (double)pct(0.99) / 1e3);
	printf("SPW p999_us %.1f\n", (double)pct(0.999) / 1e3);
	printf("SPW max_us %.1f\n", nr_samples ? (double)samples[nr_samples - 1] / 1e3 : 0.0);

	if (with_module && !no_mark) {
		check("critical_dropped_on_exit", tid_dropped(atomic_load(&crit_tid), 1000),
		      "tid %d", atomic_load(&crit_tid));
		check("restored_after_run", holders_restored(3000, why, sizeof(why)), "%s", why);
		print_file("/proc/superpass/stats", "SPW_STATS");

		/* Again, and unload the module while the inversion is live. */
		atomic_store(&stop_crit, false);
		pthread_create(&crit, NULL, crit_main, NULL);
		sleep_s(1.5);
		check("rmmod_under_load",
		      syscall(SYS_delete_module, "superpass", O_NONBLOCK) == 0,
		      "errno %d", errno);
		atomic_store(&stop_crit, true);
		pthread_join(crit, NULL);
		check("restored_after_rmmod", holders_restored(0, why, sizeof(why)), "%s", why);
	}

	atomic_store(&stop_all, true);
	for (int i = 0; i < NR_HOGS; i++)
		pthread_join(hogs[i], NULL);
	for (int i = 0; i < NR_HOLDERS; i++)
		pthread_join(holders[i], NULL);
	printf("SPW hog_iters_per_s %.0f\n",
	       (double)(hogs_end - hogs_start) / ((double)(t_end - t_start) / 1e9));
	printf("SPW holder_work_per_s %.0f\n",
	       (double)(work_end - work_start) / ((double)(t_end - t_start) / 1e9));
	printf("SPW measured_s %.2f\n", (double)(t_end - t_start) / 1e9);
	{
		unsigned long calls = atomic_load(&holder_calls);

		printf("SPW holder_calls %lu\n", calls);
		printf("SPW holder_call_avg_us %.1f\n",
		       calls ? (double)atomic_load(&holder_call_ns) / (double)calls / 1e3 : 0.0);
		printf("SPW holder_call_max_us %.1f\n", (double)atomic_load(&holder_call_max_ns) / 1e3);
	}
	printf("SPW failures %d\n", failures);
	fflush(stdout);
	close(data_fd);
	unlink("/tmp/spw.dat");
	return failures ? 1 : 0;
}
