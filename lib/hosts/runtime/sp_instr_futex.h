/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Futex words driven through syscall(SYS_futex): sp_instr_futex.c. */
#ifndef SP_INSTR_FUTEX_H
#define SP_INSTR_FUTEX_H

#include <stdbool.h>

#include <superpass/core.h>

#pragma GCC visibility push(hidden)

/* Before the caller waits on @uaddr; @pi: a PI word naming @owner. True if
 * the wait was reported: then sp_instr_futex_wait_end must follow. */
bool sp_instr_futex_wait_begin(const void *uaddr, bool pi, sp_tid_t owner);
/* The wait returned; @acquired: not timed out (a plain word: the caller is
 * a candidate holder), or a PI word taken. */
void sp_instr_futex_wait_end(const void *uaddr, bool acquired);
/* The caller woke @uaddr's waiters (FUTEX_WAKE*, or UNLOCK_PI). */
void sp_instr_futex_woke(const void *uaddr);

#pragma GCC visibility pop

#endif /* SP_INSTR_FUTEX_H */
