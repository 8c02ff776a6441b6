/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Mutex release hook: a kprobe on __mutex_unlock_slowpath, which a mutex
 * release takes only when the lock has waiters, telling the detector that
 * a watched mutex changes hands now (sp_detect_release).
 */
#ifndef SP_KMOD_UNLOCK_H
#define SP_KMOD_UNLOCK_H

#include <linux/types.h>

/* 0, or a negative errno with one log line (the module then runs without
 * it: releases are seen at the worker's next look at the lock word). */
int sp_unlock_init(void);
void sp_unlock_exit(void);
bool sp_unlock_registered(void);
u64 sp_unlock_missed(void);

#endif /* SP_KMOD_UNLOCK_H */
