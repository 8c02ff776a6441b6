/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * System calls of the library's own, made with the system call instruction
 * itself: never through libc's public syscall(), which an interposer (ours
 * included) exports and wraps. Every futex wait or wake of lib/os and
 * lib/hosts goes through sp_os_futex(), every other call sp_os_sys().
 */
#ifndef SP_OS_FUTEX_H
#define SP_OS_FUTEX_H

#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

#if defined(__x86_64__)
static inline long sp_os_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
static inline long sp_os_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}
#else
#error "lib/os/posix/sp_os_futex.h: add the system call instruction of this CPU"
#endif

/* Any system call of the library's own, with libc's convention: the
 * result, or -1 with errno set. The interposer exports syscall() (for the
 * program's futex locks), so the runtime never calls libc's. */
static inline long sp_os_sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	long rc = sp_os_syscall6(nr, a, b, c, d, e, f);

	if (rc < 0 && rc > -4096) {
		errno = (int)-rc;
		return -1;
	}
	return rc;
}

static inline long sp_os_sys(long nr, long a, long b, long c, long d)
{
	return sp_os_sys6(nr, a, b, c, d, 0, 0);
}

/* futex(2) on @word: 0 or a positive count, or a negative errno (errno
 * itself is left alone). */
static inline long sp_os_futex(void *word, int op, uint32_t val, const struct timespec *ts,
			       uint32_t val3)
{
	return sp_os_syscall6(SYS_futex, (long)word, op, (long)val, (long)ts, 0, (long)val3);
}

/* Sleeps while *@word == @val (a private futex); wakes spuriously too. */
static inline void sp_os_futex_wait(uint32_t *word, uint32_t val)
{
	sp_os_futex(word, FUTEX_WAIT_PRIVATE, val, NULL, 0);
}

/* Wakes up to @n sleepers of sp_os_futex_wait(@word). */
static inline void sp_os_futex_wake(uint32_t *word, int n)
{
	sp_os_futex(word, FUTEX_WAKE_PRIVATE, (uint32_t)n, NULL, 0);
}

#endif /* SP_OS_FUTEX_H */
