// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * syscall(): the futex calls a program makes itself (GLib, Rust's std,
 * hand-written locks: their lock words are theirs, inline, and only the
 * waits and wakes reach the kernel) go to the runtime around the real call
 * (sp_instr_futex.c); every other call, and every futex operation that is
 * no lock wait or wake, goes straight to libc's syscall() with its
 * arguments unchanged. glibc's own locks never come here: they make their
 * system calls inline.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sp_instr_futex.h"
#include "posix/sp_os_futex.h"

#define SP_EXPORT __attribute__((visibility("default")))
/* The pass-through path runs from other libraries' constructors too
 * (liburcu's asks for membarrier), before a preloaded ThreadSanitizer
 * runtime has set the thread up: it must not be instrumented. */
#define SP_PL_UNINSTRUMENTED __attribute__((no_sanitize_thread))

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2 13
#endif
#define SP_FUTEX_CMD_MASK (~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME))

typedef long (*sp_pl_syscall_fn)(long nr, ...);
static sp_pl_syscall_fn sp_pl_real_syscall;

/* libc's syscall(), found once; the instruction itself if it cannot be. */
SP_PL_UNINSTRUMENTED static long sp_pl_forward(long nr, const long a[6])
{
	sp_pl_syscall_fn f = __atomic_load_n(&sp_pl_real_syscall, __ATOMIC_RELAXED);

	if (__builtin_expect(!f, 0)) {
		f = (sp_pl_syscall_fn)dlsym(RTLD_NEXT, "syscall");
		if (!f)
			return sp_os_sys6(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		__atomic_store_n(&sp_pl_real_syscall, f, __ATOMIC_RELAXED);
	}
	return f(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static long sp_pl_futex(const long a[6])
{
	const void *uaddr = (const void *)a[0];
	int cmd = (int)a[1] & SP_FUTEX_CMD_MASK, err;
	sp_tid_t owner;
	bool told;
	long rc;

	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET:
		told = sp_instr_futex_wait_begin(uaddr, false, 0);
		rc = sp_pl_forward(SYS_futex, a);
		err = errno;
		/* woken, or the word changed before it slept: back to take
		 * it; a timeout or a signal took nothing */
		if (told)
			sp_instr_futex_wait_end(uaddr, rc == 0 || err == EAGAIN);
		errno = err;
		return rc;
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
		owner = __atomic_load_n((const uint32_t *)uaddr, __ATOMIC_RELAXED) & FUTEX_TID_MASK;
		told = owner && sp_instr_futex_wait_begin(uaddr, true, owner);
		rc = sp_pl_forward(SYS_futex, a);
		err = errno;
		if (told)
			sp_instr_futex_wait_end(uaddr, rc == 0);
		errno = err;
		return rc;
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET:
	case FUTEX_UNLOCK_PI:
		rc = sp_pl_forward(SYS_futex, a);
		if (rc >= 0) {
			err = errno;
			sp_instr_futex_woke(uaddr);
			errno = err;
		}
		return rc;
	default:
		return sp_pl_forward(SYS_futex, a);
	}
}

/* Reads six arguments whatever the call passed, as libc's own syscall()
 * does: the kernel ignores those a call does not use. */
SP_EXPORT SP_PL_UNINSTRUMENTED long syscall(long nr, ...)
{
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_futex)
		return sp_pl_futex(a);
	return sp_pl_forward(nr, a);
}
