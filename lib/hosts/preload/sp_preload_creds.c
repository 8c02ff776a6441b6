// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Credential changes under the interposer.
 *
 * glibc's set*id and setgroups apply the change to every thread of the
 * process (a signal makes each one repeat the system call) and abort the
 * process if one of them fails. Capabilities are per thread: a worker
 * thread created before the program ran capset, or set PR_SET_KEEPCAPS in
 * one thread only (setpriv does both), may be refused a change the calling
 * thread may make, and glibc then aborts the process. And
 * unshare(CLONE_NEWUSER) requires a single-threaded process.
 *
 * So around each of these calls the worker thread goes and none is
 * created (sp_wk_block); afterwards it comes back only if there is work
 * (sp_wk_unblock), as a clone of a thread that already has the new
 * credentials. capset is wrapped for the same reason: a worker must not
 * keep privileges (CAP_SYS_NICE) the program gave up. A raw syscall() of
 * any of these is not seen; it changes only the calling thread, so glibc
 * cannot abort over it either.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/capability.h>

#include "sp_preload.h"
#include "sp_rt.h"

#define SP_EXPORT __attribute__((visibility("default")))

/* glibc exports it; only libcap's <sys/capability.h> declares it. */
int capset(cap_user_header_t hdrp, const cap_user_data_t datap);

static void *sp_pl_next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static void sp_pl_creds_begin(void)
{
	sp_rt_enter();
	sp_wk_block();
	sp_rt_leave();
}

static void sp_pl_creds_end(void)
{
	sp_rt_enter();
	sp_wk_unblock();
	sp_rt_leave();
}

/* One wrapper: finds the real function once, and calls it with no worker
 * thread in the process. */
#define SP_CRED_WRAP(name, params, args)                                                  \
	SP_EXPORT int name params                                                          \
	{                                                                                  \
		static int(*real) params;                                                  \
		int rc;                                                                    \
		if (!__atomic_load_n(&real, __ATOMIC_ACQUIRE))                             \
			__atomic_store_n(&real, (int(*) params)sp_pl_next(#name),          \
					 __ATOMIC_RELEASE);                                \
		if (!real) {                                                               \
			errno = ENOSYS;                                                    \
			return -1;                                                         \
		}                                                                          \
		sp_pl_creds_begin();                                                       \
		rc = real args;                                                            \
		sp_pl_creds_end();                                                         \
		return rc;                                                                 \
	}

SP_CRED_WRAP(setuid, (uid_t u), (u))
SP_CRED_WRAP(setgid, (gid_t g), (g))
SP_CRED_WRAP(seteuid, (uid_t u), (u))
SP_CRED_WRAP(setegid, (gid_t g), (g))
SP_CRED_WRAP(setreuid, (uid_t r, uid_t e), (r, e))
SP_CRED_WRAP(setregid, (gid_t r, gid_t e), (r, e))
SP_CRED_WRAP(setresuid, (uid_t r, uid_t e, uid_t s), (r, e, s))
SP_CRED_WRAP(setresgid, (gid_t r, gid_t e, gid_t s), (r, e, s))
SP_CRED_WRAP(setgroups, (size_t n, const gid_t *list), (n, list))
SP_CRED_WRAP(capset, (cap_user_header_t h, const cap_user_data_t d), (h, d))
SP_CRED_WRAP(unshare, (int flags), (flags))
SP_CRED_WRAP(setns, (int fd, int nstype), (fd, nstype))
