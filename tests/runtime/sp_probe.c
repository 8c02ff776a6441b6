// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A program that knows nothing of superpass, for test_rt_safety: run under
 * the interposer with SUPERPASS_CRITICAL=main, it makes its main thread
 * wait for a mutex held by a nice 19 thread ("holder") and then does what
 * the test names, reporting on stdout:
 *
 *   sp_probe threads            no contention; prints its superpass-wk count
 *   sp_probe contend POLLS ACT  the wait; the holder polls its own policy at
 *                               most POLLS x 100 us for a boost and prints
 *                               boosted=0|1; ACT is one of
 *     none                      exit 0
 *     idle                      wait (bounded) for the worker to exit idle
 *     creds                     drop root as setpriv does, with the worker
 *                               alive: keepcaps, setresuid, capset,
 *                               setgroups, setresgid; contend again
 *     exec:FN                   the boosted holder execs this program with
 *                               "report" through FN (execve, execv, ...)
 *     spawn, fork               the boosted holder starts a child that
 *                               reports
 *   sp_probe report B           exit 0 iff B (the parent saw its boost) and
 *                               this thread is SCHED_OTHER at nice 19
 *
 * Never timed: every wait is a bounded poll.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <grp.h>
#include <time.h>
#include <unistd.h>

#include "sp_test_attr.h"

extern char **environ;
/* glibc's; only libcap's header declares it. */
int capset(cap_user_header_t hdrp, const cap_user_data_t datap);

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
/* The holder says it holds m through a semaphore, which the interposer
 * does not wrap: a mutex and condvar here could themselves block the
 * critical thread (a second, racy blocking in every count the tests read;
 * seen under TSan). */
static sem_t held;
static int polls = 2000;
static const char *self_path, *action = "none";

static void nap(void)
{
	struct timespec ts = { 0, 100000 };

	nanosleep(&ts, NULL);
}

static int workers(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char p[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(p, "r");
		if (f && fgets(comm, sizeof(comm), f) && !strncmp(comm, "superpass-wk", 12))
			n++;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

static int report(const char *was_boosted)
{
	struct sp_test_attr a;

	sp_test_get_attr(&a);
	printf("report policy=%u nice=%d prio=%u flags=%llx\n", a.policy, a.nice, a.prio,
	       (unsigned long long)a.flags);
	return atoi(was_boosted) == 1 && a.policy == SCHED_OTHER && a.nice == 19 ? 0 : 1;
}

static int child_report(void)
{
	int rc = report("1");

	fflush(stdout);
	return rc;
}

/* The boosted holder leaves through ACT's exec function or child. */
static void holder_leaves(void)
{
	char *argv[] = { (char *)self_path, "report", "1", NULL };
	const char *fn = action + 5;

	fflush(stdout);
	if (!strcmp(fn, "execve"))
		execve(self_path, argv, environ);
	else if (!strcmp(fn, "execv"))
		execv(self_path, argv);
	else if (!strcmp(fn, "execvp"))
		execvp(self_path, argv);
	else if (!strcmp(fn, "execvpe"))
		execvpe(self_path, argv, environ);
	else if (!strcmp(fn, "execl"))
		execl(self_path, self_path, "report", "1", (char *)NULL);
	else if (!strcmp(fn, "execlp"))
		execlp(self_path, self_path, "report", "1", (char *)NULL);
	else if (!strcmp(fn, "execle"))
		execle(self_path, self_path, "report", "1", (char *)NULL, environ);
	else if (!strcmp(fn, "fexecve"))
		fexecve(open(self_path, O_RDONLY | O_CLOEXEC), argv, environ);
	else if (!strcmp(fn, "execveat"))
		execveat(AT_FDCWD, self_path, argv, environ, 0);
	printf("exec %s failed\n", fn);
	exit(3);
}

static int holder_child(void)
{
	pid_t pid;
	int st;

	if (!strcmp(action, "fork")) {
		pid = fork();
		if (pid == 0)
			_exit(child_report());
	} else {
		char *argv[] = { (char *)self_path, "report", "1", NULL };

		if (posix_spawn(&pid, self_path, NULL, NULL, argv, environ) != 0)
			return 3;
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 3;
	return WEXITSTATUS(st);
}

static int child_rc = -1;

static void *holder(void *arg)
{
	struct sp_test_attr b, a;
	int boosted = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "holder");
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	sp_test_get_attr(&b);
	pthread_mutex_lock(&m);
	sem_post(&held);
	for (int i = 0; i < polls && !boosted; i++) {
		sp_test_get_attr(&a);
		boosted = a.policy != b.policy || a.nice != b.nice;
		if (!boosted)
			nap();
	}
	printf("boosted=%d\n", boosted);
	/* Counted here, while the critical thread still waits: the worker
	 * cannot go idle then. Counted after the wait, a loaded machine
	 * could delay the critical thread past the idle exit. */
	/* The waiter may boost us itself before the worker it kicked has
	 * named itself: look again for a while (it waits, so no idle exit). */
	int nw = workers();

	for (int i = 0; i < polls && nw == 0; i++) {
		nap();
		nw = workers();
	}
	printf("workers_during_wait=%d\n", nw);
	if (!strncmp(action, "exec:", 5) && boosted)
		holder_leaves();
	if ((!strcmp(action, "spawn") || !strcmp(action, "fork")) && boosted)
		child_rc = holder_child();
	pthread_mutex_unlock(&m);
	return NULL;
}

/* The critical main thread waits for the holder. */
static void contend(void)
{
	pthread_t t;

	pthread_create(&t, NULL, holder, NULL);
	while (sem_wait(&held) != 0)
		continue; /* EINTR */
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
}

/* What setpriv --reuid --regid --clear-groups does, in its order. */
static int drop_root_like_setpriv(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (prctl(PR_SET_KEEPCAPS, 1) != 0 || setresuid(65534, 65534, 65534) != 0)
		return 1;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) != 0)
		return 1;
	d[0].effective = d[0].permitted;
	d[1].effective = d[1].permitted;
	if (capset(&h, d) != 0) /* glibc's wrapper: this thread only */
		return 1;
	/* Joined means gone, but a joined thread can still be listed for a
	 * moment: qemu-user wakes the joiner (clear_child_tid) before its
	 * host thread has exited. A worker that was not stopped lives on for
	 * its 250 ms idle time, so 100 ms of looking still tells the two
	 * apart. */
	for (int i = 0; i < 1000 && workers(); i++)
		nap(); /* 100 µs */
	printf("workers_after_setresuid=%d\n", workers());
	contend(); /* a worker again, created with the new credentials */
	if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0)
		return 1;
	printf("creds uid=%d gid=%d\n", (int)getuid(), (int)getgid());
	return 0;
}

int main(int argc, char **argv)
{
	self_path = argv[0];
	sem_init(&held, 0, 0);
	setvbuf(stdout, NULL, _IOLBF, 0); /* a fork child must not repeat our lines */
	printf("secure=%lu\n", getauxval(AT_SECURE));
	if (argc > 2 && !strcmp(argv[1], "report"))
		return report(argv[2]);
	if (argc > 1 && !strcmp(argv[1], "threads")) {
		for (int i = 0; i < 1000; i++) {
			pthread_mutex_lock(&m);
			pthread_mutex_unlock(&m);
		}
		printf("workers=%d\n", workers());
		return 0;
	}
	if (argc < 4 || strcmp(argv[1], "contend")) {
		fprintf(stderr, "usage: sp_probe threads | contend POLLS ACTION | report B\n");
		return 2;
	}
	polls = atoi(argv[2]);
	action = argv[3];
	contend();
	if (child_rc >= 0)
		return child_rc;
	if (!strcmp(action, "idle")) {
		/* Idle exit takes a quarter of a second; 100 s is only a bound. */
		for (int i = 0; i < 1000000 && workers() > 0; i++)
			nap();
		printf("workers_after_idle=%d\n", workers());
		return 0;
	}
	if (!strcmp(action, "creds"))
		return drop_root_like_setpriv();
	return 0;
}
