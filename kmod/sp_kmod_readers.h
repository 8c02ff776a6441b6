/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reader hooks: kretprobes on down_read* / down_write*, kprobes on
 * up_read / up_write / downgrade_write, reporting events on watched rwsems
 * to the detector. Registered disarmed at load; the worker arms them.
 */
#ifndef SP_KMOD_READERS_H
#define SP_KMOD_READERS_H

#include <linux/types.h>

int sp_readers_init(void);
void sp_readers_exit(void);
/* Calls the hooks missed (kretprobe instances ran out, recursion). */
u64 sp_readers_missed(void);
/* Arms or disarms the hooks; sleeps (text patching): the worker's arm
 * work only. Returns whether they are armed now. */
bool sp_readers_arm(bool on);
void sp_readers_state(bool *armed, u64 *arms);

#endif /* SP_KMOD_READERS_H */
