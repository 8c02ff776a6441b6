/* SPDX-License-Identifier: GPL-2.0-only */
/* The load-time self-test of the core (sp_kmod_selftest.c). */
#ifndef SP_KMOD_SELFTEST_H
#define SP_KMOD_SELFTEST_H

/* 0 or a negative errno, with a pr_err saying what. */
int sp_selftest_run(void);

#endif /* SP_KMOD_SELFTEST_H */
