/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Runs a program of the runtime tests in a child and reads what it wrote. */
#ifndef SP_TEST_RUN_H
#define SP_TEST_RUN_H

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

/* Runs @argv with exactly the environment @envp, its stdout and stderr
 * into @out (@cap bytes, NUL-terminated); returns its wait status. */
static inline int sp_test_run_captured(char *const argv[], char *const envp[], char *out,
				       size_t cap)
{
	int pipefd[2], status;
	ssize_t n, total = 0;
	pid_t pid;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pipefd[1], STDOUT_FILENO);
		dup2(pipefd[1], STDERR_FILENO);
		close(pipefd[0]);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], out + total, cap - 1 - (size_t)total)) > 0)
		total += n;
	out[total] = 0;
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

/* The file at @path, opened with O_RDONLY | @flags, as a string in a
 * buffer of this file's (the next call reuses it); NULL if it cannot be
 * opened. What it printed, or wrote as statistics and logs. */
static inline char *sp_test_slurp(const char *path, int flags)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY | flags);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

#endif /* SP_TEST_RUN_H */
