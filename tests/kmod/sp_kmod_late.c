// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process whose threads start after it was marked (the QEMU test's
 * fork-probe check). Built static, run inside the guest; the guest script
 * drives it through files in DIR, so that no step depends on timing:
 *
 *   sp-late DIR
 *     waits for DIR/go1, starts 3 threads and one child process, writes
 *       their ids to DIR/batch1 ("TID..." then "child PID"),
 *     waits for DIR/go2, starts 2 more threads, writes DIR/batch2,
 *     waits for DIR/stop, lets everything exit and reaps it.
 *
 * Each file is written to DIR/NAME.tmp and renamed, so a reader never sees
 * half of it. Exit 0, or 1 with a message if a step failed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NR_BATCH1 3
#define NR_BATCH2 2

static const char *dir;
static _Atomic pid_t tids[NR_BATCH1 + NR_BATCH2];

static void wait_for(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (access(path, F_OK))
		usleep(10000);
}

static void *thread_main(void *arg)
{
	atomic_store(&tids[(long)arg], (pid_t)syscall(SYS_gettid));
	wait_for("stop");
	return NULL;
}

static int publish(const char *name, int from, int to, pid_t child)
{
	char tmp[512], path[512];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	for (int i = from; i < to; i++)
		fprintf(f, "%d\n", atomic_load(&tids[i]));
	if (child)
		fprintf(f, "child %d\n", child);
	if (fclose(f) || rename(tmp, path))
		return -1;
	return 0;
}

static int start(pthread_t *th, int from, int to)
{
	for (int i = from; i < to; i++)
		if (pthread_create(&th[i], NULL, thread_main, (void *)(long)i))
			return -1;
	for (int i = from; i < to; i++)
		while (!atomic_load(&tids[i]))
			usleep(1000);
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t th[NR_BATCH1 + NR_BATCH2];
	pid_t child;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	wait_for("go1");
	if (start(th, 0, NR_BATCH1)) {
		perror("sp-late: pthread_create");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("sp-late: fork");
		return 1;
	}
	if (child == 0) {
		wait_for("stop");
		_exit(0);
	}
	if (publish("batch1", 0, NR_BATCH1, child))
		return 1;
	wait_for("go2");
	if (start(th, NR_BATCH1, NR_BATCH1 + NR_BATCH2) ||
	    publish("batch2", NR_BATCH1, NR_BATCH1 + NR_BATCH2, 0))
		return 1;
	wait_for("stop");
	for (int i = 0; i < NR_BATCH1 + NR_BATCH2; i++)
		pthread_join(th[i], NULL);
	waitpid(child, NULL, 0);
	return 0;
}
