// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * `superpass record [-o FILE] [--duration S] -- CMD ARGS`: records what
 * `superpass analyze` needs, system-wide, while CMD runs.
 *
 * Through libtracefs, in a tracefs instance of its own (so the top-level
 * buffer, its events and its options, and anyone else's instance are left
 * as they were): exactly the events the analysis reads, the mono clock
 * (CLOCK_MONOTONIC, comparable with a program's own timestamps), its
 * trace_pipe streamed to FILE as ftrace text while CMD runs. The instance
 * is removed at the end, and tracefs unmounted if it was mounted for this.
 *
 * None is left behind by a recorder that dies (record_instance.h): each
 * record first removes the instances of recorders that are gone, a
 * watchdog child removes this one if this process dies, even by SIGKILL,
 * and `--cleanup` does only the first. What the watchdog cannot cover
 * (killed along with the recorder) is in record_watchdog.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "host_steal.h"
#include "record_instance.h"
#include "sp_cli_output.h"
#include "sp_cli_msg.h"
#include "sp_cli_parse.h"
#include "trace_cli.h"

static volatile sig_atomic_t got_signal;
static volatile pid_t child_pid;

static void on_signal(int sig)
{
	got_signal = sig;
	if (child_pid > 0)
		kill(child_pid, sig);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: superpass record [options] -- CMD [ARGS...]\n"
		"       superpass record [options] --duration S\n"
		"       superpass record --cleanup\n"
		"\n"
		"Records the scheduler, futex and kernel lock-contention events of the whole\n"
		"system while CMD runs (or for S seconds), as ftrace text for superpass analyze.\n"
		"Needs root (tracefs). Uses a tracefs instance of its own,\n"
		"instances/superpass-record-PID-START, and removes it after. If record is\n"
		"killed, even by SIGKILL, a watchdog process it started (sp-record-watch)\n"
		"removes the instance. Killed together with its watchdog (SIGKILL to the whole\n"
		"cgroup, kill -9 -1), it leaves the instance tracing until the next record,\n"
		"which first removes the instances of recorders that are gone, or until\n"
		"superpass record --cleanup.\n"
		"\n"
		"  -o, --output FILE    where the trace goes (default superpass.trace)\n"
		"  -d, --duration S     stop after S seconds (CMD gets SIGINT, then SIGKILL)\n"
		"      --buffer-kb N    ring buffer per CPU (default 16384)\n"
		"      --clock NAME     trace clock (default mono: CLOCK_MONOTONIC)\n"
		"      --no-lock        without lock:contention_begin/end\n"
		"      --cleanup        only remove the instances recorders that are gone left\n"
		"                       behind, listing them (or \"nothing to clean\"), and exit\n"
		SP_CLI_HELP_QUIET
		"  -h, --help\n"
		"\n"
		"Exit status: 0 success, 1 a runtime failure (no tracefs, an event missing, the\n"
		"output failed, CMD could not be run), 2 bad usage or bad input.\n");
}

struct ev {
	const char *sys, *name;
	bool required;
	bool enabled;
};

static struct ev events[] = {
	{ "sched", "sched_switch", true, false },
	{ "sched", "sched_waking", true, false },
	{ "sched", "sched_wakeup_new", false, false },
	{ "sched", "sched_process_fork", false, false },
	{ "sched", "sched_process_exit", false, false },
	{ "task", "task_rename", false, false },
	{ "syscalls", "sys_enter_futex", false, false },
	{ "syscalls", "sys_exit_futex", false, false },
	{ "lock", "contention_begin", false, false },
	{ "lock", "contention_end", false, false },
};
#define NR_EVENTS (sizeof(events) / sizeof(events[0]))

static int enable(struct tracefs_instance *in, struct ev *e)
{
	if (!tracefs_event_file_exists(in, e->sys, e->name, "enable"))
		return -ENOENT;
	if (tracefs_event_enable(in, e->sys, e->name))
		return -EIO;
	e->enabled = true;
	return 0;
}

static int drain(int fd, FILE *out, char *buf, size_t cap, uint64_t *bytes)
{
	for (;;) {
		ssize_t n = read(fd, buf, cap);

		if (n > 0) {
			if (fwrite(buf, 1, (size_t)n, out) != (size_t)n)
				return -EIO;
			*bytes += (uint64_t)n;
			continue;
		}
		if (n == 0 || errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		if (errno == EINTR)
			continue;
		return -errno;
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Entries the kernel overwrote or dropped, from per_cpu/cpuN/stats. */
static unsigned long long overruns(struct tracefs_instance *in, int ncpu)
{
	unsigned long long total = 0;

	for (int c = 0; c < ncpu; c++) {
		char file[64], *s, *p;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", c);
		s = tracefs_instance_file_read(in, file, NULL);
		if (!s)
			continue;
		if ((p = strstr(s, "overrun:")) != NULL)
			total += strtoull(p + 8, NULL, 10);
		if ((p = strstr(s, "dropped events:")) != NULL)
			total += strtoull(p + 15, NULL, 10);
		free(s);
	}
	return total;
}

/* tracefs mounted, by this process if it was not (*@mounted_here): 0, or 1
 * after saying why not. */
static int tracefs_ready(const char **tdir, bool *mounted_here)
{
	int c = tracefs_tracing_dir_is_mounted(false, tdir);

	*mounted_here = false;
	if (c == 0) {
		if (tracefs_tracing_dir_is_mounted(true, tdir) < 0 || !*tdir) {
			fprintf(stderr, "superpass record: tracefs is not mounted and mounting it failed "
					"(%s): a kernel with CONFIG_FTRACE and root are needed\n",
				geteuid() ? "not root" : strerror(errno));
			return 1;
		}
		*mounted_here = true;
	} else if (c < 0 || !*tdir) {
		fprintf(stderr, "superpass record: no tracefs (a kernel with CONFIG_FTRACE is needed)\n");
		return 1;
	}
	return 0;
}

/* `superpass record --cleanup`: 0, or 1 when an instance could not be
 * removed (or tracefs not reached). */
static int cleanup_main(void)
{
	const char *tdir = NULL;
	bool mounted_here;
	int n;

	if (tracefs_ready(&tdir, &mounted_here))
		return 1;
	n = sp_record_cleanup_stale("superpass record --cleanup", stdout);
	if (n == 0)
		printf("superpass record --cleanup: nothing to clean in %s/instances\n", tdir);
	if (mounted_here && umount2(tdir, 0))
		fprintf(stderr, "superpass record: warning: tracefs stays mounted at %s\n", tdir);
	return n < 0 ? 1 : 0;
}

int trace_record_main(int argc, char **argv)
{
	enum { O_BUF = 256, O_CLOCK, O_NOLOCK, O_CLEANUP };
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "buffer-kb", required_argument, NULL, O_BUF },
		{ "clock", required_argument, NULL, O_CLOCK },
		{ "no-lock", no_argument, NULL, O_NOLOCK },
		{ "quiet", no_argument, NULL, 'q' },
		{ "cleanup", no_argument, NULL, O_CLEANUP },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *out_path = "superpass.trace", *clock_name = "mono", *tdir = NULL;
	unsigned long buffer_kb = 16384;
	double duration = 0;
	bool quiet = false, with_lock = true, mounted_here = false, cleanup = false;
	struct tracefs_instance *in = NULL;
	char name[64], *pipe_path = NULL, *buf = NULL;
	struct sigaction sa;
	int c, fd = -1, status = 0, rc = 1, ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	int lock_fd = -1, wd_fd = -1;
	uint64_t bytes = 0, t0, deadline = 0, kill_at = 0;
	double steal0 = -1, steal;
	bool futex_ok, child_done = false;
	FILE *out = NULL;
	pid_t pid = -1, wd_pid = -1;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:d:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'o': out_path = optarg; break;
		case 'd':
			if (sp_cli_seconds("superpass record", "--duration", optarg, 86400, &duration))
				return 2;
			break;
		case O_BUF:
		{
			int64_t v;

			if (sp_cli_int("superpass record", "--buffer-kb", optarg, 64, 4 << 20, &v))
				return 2;
			buffer_kb = (unsigned long)v;
			break;
		}
		case O_CLOCK: clock_name = optarg; break;
		case O_NOLOCK: with_lock = false; break;
		case 'q': quiet = true; break;
		case O_CLEANUP: cleanup = true; break;
		case 'h': usage(stdout); return 0;
		default: sp_cli_bad_option("superpass record", c, argv); return 2;
		}
	}
	if (cleanup) {
		if (optind < argc || duration > 0) {
			fprintf(stderr, "superpass record: --cleanup takes no command and no --duration\n");
			return 2;
		}
		return cleanup_main();
	}
	if (optind >= argc && !(duration > 0)) {
		fprintf(stderr, "superpass record: give a command (after --) or --duration (see "
				"superpass record --help)\n");
		return 2;
	}
	if (geteuid() != 0)
		fprintf(stderr, "superpass record: warning: not root; tracefs usually needs root "
				"(or CAP_SYS_ADMIN and access to /sys/kernel/tracing)\n");

	/* From here on a SIGINT or SIGTERM ends the recording, cleanly, as
	 * soon as it has started. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (tracefs_ready(&tdir, &mounted_here))
		return 1;
	/* what earlier recorders left; a failure was said, and is theirs */
	sp_record_cleanup_stale("superpass record", stderr);
	sp_record_instance_name(name, sizeof(name));
	in = tracefs_instance_create(name);
	if (!in) {
		fprintf(stderr, "superpass record: cannot create the tracefs instance %s/instances/%s: %s%s\n",
			tdir, name, strerror(errno), geteuid() ? " (run as root)" : "");
		goto out;
	}
	tracefs_trace_off(in);
	/* no lock (a tracefs without flock) leaves the name to show the owner */
	lock_fd = sp_record_instance_lock(in);
	wd_fd = sp_record_watchdog_start(in, lock_fd, mounted_here ? tdir : NULL, &wd_pid);
	if (wd_fd < 0)
		fprintf(stderr, "superpass record: warning: cannot start the watchdog (%s): if this "
				"process is killed, the instance %s stays until the next record or "
				"record --cleanup\n",
			strerror(-wd_fd), name);
	if (tracefs_instance_file_write(in, "trace_clock", clock_name) < 0) {
		fprintf(stderr, "superpass record: the kernel has no trace clock '%s' (see %s/trace_clock)\n",
			clock_name, tdir);
		goto out;
	}
	{
		char kb[32];

		snprintf(kb, sizeof(kb), "%lu", buffer_kb);
		if (tracefs_instance_file_write(in, "buffer_size_kb", kb) < 0)
			fprintf(stderr, "superpass record: warning: cannot set buffer_size_kb to %s\n", kb);
	}
	for (size_t i = 0; i < NR_EVENTS; i++) {
		struct ev *e = &events[i];

		if (!with_lock && !strcmp(e->sys, "lock"))
			continue;
		c = enable(in, e);
		if (c && e->required) {
			fprintf(stderr, "superpass record: this kernel lacks the event %s:%s (%s)\n", e->sys,
				e->name, c == -ENOENT ? "not in tracefs" : "cannot enable it");
			goto out;
		}
		if (c && !strcmp(e->sys, "lock"))
			fprintf(stderr, "superpass record: warning: no %s:%s on this kernel (Linux 5.19+ "
					"has it): kernel lock waits will not be seen\n", e->sys, e->name);
	}
	futex_ok = events[6].enabled && events[7].enabled;
	if (!futex_ok) {
		/* raw_syscalls, filtered to the futex syscall */
		struct ev raw[2] = { { "raw_syscalls", "sys_enter", false, false },
				     { "raw_syscalls", "sys_exit", false, false } };
		char filter[32];

		snprintf(filter, sizeof(filter), "id == %d",
#if defined(__x86_64__)
			 202
#elif defined(__aarch64__) || defined(__riscv)
			 98
#else
			 202
#endif
		);
		if (!enable(in, &raw[0]) && !enable(in, &raw[1])) {
			tracefs_event_file_write(in, "raw_syscalls", "sys_enter", "filter", filter);
			tracefs_event_file_write(in, "raw_syscalls", "sys_exit", "filter", filter);
			if (!quiet)
				fprintf(stderr, "superpass record: no syscalls:sys_enter_futex (kernel "
						"without CONFIG_FTRACE_SYSCALLS?): using raw_syscalls\n");
		} else {
			fprintf(stderr, "superpass record: warning: no futex syscall events on this "
					"kernel: userspace lock waits will not be seen\n");
		}
	}
	pipe_path = tracefs_instance_get_file(in, "trace_pipe");
	fd = pipe_path ? open(pipe_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	if (fd < 0) {
		fprintf(stderr, "superpass record: cannot open %s: %s\n", pipe_path ? pipe_path : "trace_pipe",
			strerror(errno));
		goto out;
	}
	out = sp_cli_output_open(out_path);
	if (!out) {
		fprintf(stderr, "superpass record: %s: %s\n", out_path, strerror(errno));
		goto out;
	}
	buf = malloc(1u << 16);
	if (!buf)
		goto out;
	fprintf(out, "# tracer: nop\n# superpass record: clock %s, buffer %lu KiB per CPU #P:%d\n#\n",
		clock_name, buffer_kb, ncpu);

	t0 = now_ns();
	steal0 = sp_host_steal_s();
	if (duration > 0)
		deadline = t0 + (uint64_t)(duration * 1e9);
	tracefs_trace_on(in);
	if (optind < argc) {
		pid = fork();
		if (pid < 0) {
			fprintf(stderr, "superpass record: fork: %s\n", strerror(errno));
			goto out;
		}
		if (pid == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			close(fd);
			execvp(argv[optind], argv + optind);
			fprintf(stderr, "superpass record: %s: %s\n", argv[optind], strerror(errno));
			_exit(127);
		}
		child_pid = pid;
		/* a signal before there was a child to pass it to */
		if (got_signal)
			kill(pid, got_signal);
	}
	while (!child_done) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ns();

		if (pid > 0 && waitpid(pid, &status, WNOHANG) == pid) {
			child_done = true;
			break;
		}
		if (pid < 0 && (got_signal || (deadline && now >= deadline)))
			break;
		if (pid > 0 && deadline && now >= deadline && !kill_at) {
			kill(pid, SIGINT);
			kill_at = now + 2000000000ull;
		}
		if (kill_at && now >= kill_at) {
			kill(pid, SIGKILL);
			kill_at = UINT64_MAX;
		}
		/* Drain every 100 ms, not at each page: the recorder's own CPU
		 * time would show up in the trace as a preemptor. */
		poll(NULL, 0, 100);
		if (poll(&p, 1, 0) > 0 && drain(fd, out, buf, 1u << 16, &bytes) < 0) {
			fprintf(stderr, "superpass record: writing %s: %s\n", out_path, strerror(errno));
			/* never waitpid(-1): the watchdog is a child too */
			if (pid > 0) {
				kill(pid, SIGKILL);
				waitpid(pid, &status, 0);
			}
			goto out;
		}
	}
	tracefs_trace_off(in);
	if (drain(fd, out, buf, 1u << 16, &bytes) < 0 || fflush(out)) {
		fprintf(stderr, "superpass record: writing %s: %s\n", out_path, strerror(errno));
		goto out;
	}
	/* a command that could not be run made no trace worth analysing */
	rc = pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127 ? 1 : 0;
	{
		unsigned long long lost = overruns(in, ncpu);

		if (!quiet) {
			fprintf(stderr, "superpass record: %.1f MB in %s, %.1f s", (double)bytes / 1e6,
				out_path, (double)(now_ns() - t0) / 1e9);
			if (pid > 0 && WIFEXITED(status))
				fprintf(stderr, "; %s exited with %d", argv[optind], WEXITSTATUS(status));
			else if (pid > 0 && WIFSIGNALED(status))
				fprintf(stderr, "; %s was killed by signal %d", argv[optind],
					WTERMSIG(status));
			fprintf(stderr, "\n");
		}
		if (lost)
			fprintf(stderr, "superpass record: warning: the kernel dropped %llu events (a "
					"larger --buffer-kb keeps them)\n", lost);
		steal = steal0 < 0 ? -1 : sp_host_steal_s() - steal0;
		/* a tick of it is 10 ms: one is noise, a stall is many at once */
		if (steal >= 0.05)
			fprintf(stderr, "superpass record: warning: the hypervisor took %.0f ms of CPU "
					"time from this machine during the recording: a virtual CPU taken "
					"away shows in the trace as a thread running on, with nothing to "
					"say it stood still\n", steal * 1e3);
		if (!quiet)
			fprintf(stderr, "next: superpass analyze %s --critical COMM[,COMM...] (or --tid "
					"TID)\n", out_path);
	}
out:
	if (out && (c = sp_cli_output_close(out)) < 0 && !rc) {
		fprintf(stderr, "superpass record: writing %s: %s\n", out_path, strerror(-c));
		rc = 1;
	}
	free(buf);
	if (fd >= 0)
		close(fd);
	tracefs_put_tracing_file(pipe_path);
	if (in) {
		c = sp_record_instance_remove(in);
		if (c && c != -ENOENT)
			fprintf(stderr, "superpass record: warning: could not remove the instance "
					"%s/instances/%s: %s\n",
				tdir, name, strerror(-c));
		tracefs_instance_free(in);
	}
	/* before the unmount: the watchdog and the lock keep tracefs busy */
	sp_record_watchdog_stop(wd_fd, wd_pid);
	if (lock_fd >= 0)
		close(lock_fd);
	if (mounted_here && tdir && umount2(tdir, 0))
		fprintf(stderr, "superpass record: warning: tracefs stays mounted at %s\n", tdir);
	return rc;
}
