// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * exec and posix_spawn under the interposer: no fast track outlives the
 * program it was granted in.
 *
 * A thread's scheduling attributes survive execve, so a holder that execs
 * while boosted would run the new program at SCHED_FIFO for good (seen:
 * `chrt -p` showed SCHED_FIFO|SCHED_RESET_ON_FORK priority 1, never
 * restored). Each exec function therefore first ends the calling thread's
 * part in the runtime as a thread exit does (sp_thread_before_exec, which
 * a program linked to libsuperpass calls itself: the core
 * forgets the task, the actuator puts its own attributes back), then
 * calls the real function. If the exec fails, the thread registers again
 * on its next lock call; a boost it still deserves comes back with the
 * next critical wait or tick. glibc's exec functions call each other
 * internally, not through the PLT, so every one is wrapped.
 *
 * posix_spawn runs the new program in a child clone of the calling
 * thread. SCHED_RESET_ON_FORK (which every SCHED_FIFO fast track sets)
 * starts that child at SCHED_OTHER but nice 0, not at the thread's own
 * nice, and a
 * boosted nice value has no such flag at all. So a thread that is
 * fast-tracked ends its boost before it spawns, as before an exec. A fork
 * child is put back by the runtime's atfork handler (sp_act_atfork_child).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "sp_preload.h"
#include "sp_rt.h"

#define SP_EXPORT __attribute__((visibility("default")))

extern char **environ;

#define SP_REAL(name, type)                                                              \
	({                                                                               \
		static type real_;                                                       \
		if (!__atomic_load_n(&real_, __ATOMIC_ACQUIRE))                          \
			__atomic_store_n(&real_, (type)dlsym(RTLD_NEXT, #name),          \
					 __ATOMIC_RELEASE);                              \
		real_;                                                                   \
	})

typedef int (*sp_execve_fn)(const char *, char *const[], char *const[]);
typedef int (*sp_execvp_fn)(const char *, char *const[]);
typedef int (*sp_execvpe_fn)(const char *, char *const[], char *const[]);
typedef int (*sp_fexecve_fn)(int, char *const[], char *const[]);
typedef int (*sp_execveat_fn)(int, const char *, char *const[], char *const[], int);
typedef int (*sp_spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			   const posix_spawnattr_t *, char *const[], char *const[]);

static int sp_pl_enosys(void)
{
	errno = ENOSYS;
	return -1;
}

static int sp_pl_execve(const char *path, char *const argv[], char *const envp[])
{
	sp_execve_fn real = SP_REAL(execve, sp_execve_fn);

	if (!real)
		return sp_pl_enosys();
	sp_thread_before_exec();
	return real(path, argv, envp);
}

static int sp_pl_execvpe(const char *file, char *const argv[], char *const envp[])
{
	sp_execvpe_fn real = SP_REAL(execvpe, sp_execvpe_fn);

	if (!real)
		return sp_pl_enosys();
	sp_thread_before_exec();
	return real(file, argv, envp);
}

SP_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return sp_pl_execve(path, argv, envp);
}

SP_EXPORT int execv(const char *path, char *const argv[])
{
	return sp_pl_execve(path, argv, environ);
}

SP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return sp_pl_execvpe(file, argv, envp);
}

SP_EXPORT int execvp(const char *file, char *const argv[])
{
	return sp_pl_execvpe(file, argv, environ);
}

SP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	sp_fexecve_fn real = SP_REAL(fexecve, sp_fexecve_fn);

	if (!real)
		return sp_pl_enosys();
	sp_thread_before_exec();
	return real(fd, argv, envp);
}

SP_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		       int flags)
{
	sp_execveat_fn real = SP_REAL(execveat, sp_execveat_fn);

	if (!real)
		return sp_pl_enosys();
	sp_thread_before_exec();
	return real(dirfd, path, argv, envp, flags);
}

/* execl, execlp, execle: the variadic list as an argv on the stack (as
 * glibc does), then the vector form. @tail reads what follows the NULL
 * (execle's environment) from ap_. */
#define SP_ARGV_FROM_VA(arg0, argv, tail)                                                 \
	size_t argc_ = 1;                                                                \
	va_list ap_;                                                                     \
	va_start(ap_, arg0);                                                             \
	while (va_arg(ap_, const char *))                                                \
		argc_++;                                                                 \
	va_end(ap_);                                                                     \
	const char *argv[argc_ + 1];                                                     \
	argv[0] = arg0;                                                                  \
	va_start(ap_, arg0);                                                             \
	for (size_t i_ = 1; i_ <= argc_; i_++)                                           \
		argv[i_] = va_arg(ap_, const char *);                                    \
	tail;                                                                            \
	va_end(ap_)

SP_EXPORT int execl(const char *path, const char *arg, ...)
{
	SP_ARGV_FROM_VA(arg, argv, (void)0);
	return sp_pl_execve(path, (char *const *)argv, environ);
}

SP_EXPORT int execlp(const char *file, const char *arg, ...)
{
	SP_ARGV_FROM_VA(arg, argv, (void)0);
	return sp_pl_execvpe(file, (char *const *)argv, environ);
}

SP_EXPORT int execle(const char *path, const char *arg, ...)
{
	char *const *envp = NULL;

	SP_ARGV_FROM_VA(arg, argv, envp = va_arg(ap_, char *const *));
	return sp_pl_execve(path, (char *const *)argv, envp);
}

/* A fast-tracked caller ends its boost first (see above). */
static void sp_pl_spawn_prepare(void)
{
	if (!sp_rt_guarded() && sp_rt_self_state.tid && sp_act_is_boosted(sp_rt_self_state.tid))
		sp_rt_thread_leave();
}

SP_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			  const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	sp_spawn_fn real = SP_REAL(posix_spawn, sp_spawn_fn);

	if (!real)
		return ENOSYS;
	sp_pl_spawn_prepare();
	return real(pid, path, fa, attr, argv, envp);
}

SP_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	sp_spawn_fn real = SP_REAL(posix_spawnp, sp_spawn_fn);

	if (!real)
		return ENOSYS;
	sp_pl_spawn_prepare();
	return real(pid, file, fa, attr, argv, envp);
}
