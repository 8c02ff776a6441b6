/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The state every part of superpass.ko shares: the one core, which lives
 * from module init to exit, and the tid filters the probes test before
 * anything else. The core's events come from the detector and the hooks;
 * its fast_track/restore callbacks only queue the tid (sp_kmod_host.c);
 * the worker applies what sp_task_fast_tracked() says (include/superpass/core.h,
 * the host contract).
 */
#ifndef SP_KMOD_STATE_H
#define SP_KMOD_STATE_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/threads.h>
#include <asm/page.h>   /* PID_MAX_LIMIT uses PAGE_SIZE */
#include <linux/types.h>

#include <superpass/core.h>

/* Fast filters indexed by global tid (PID_MAX_LIMIT bits, 512 KiB each on
 * 64-bit): one test_bit() decides whether a probe does anything at all. */
#define SP_TID_LIMIT PID_MAX_LIMIT

extern struct sp_core *sp_core;
extern unsigned long *sp_critical_map;  /* marked through /proc */
extern unsigned long *sp_boosted_map;   /* the core wants a fast track */
/* Indexed by global pid: processes marked as a whole, whose new threads
 * the fork probe marks (sp_kmod_mark.c). */
extern unsigned long *sp_marked_procs;
/* Bits set in sp_critical_map: the reader hooks stay armed while > 0. */
extern atomic_t sp_nr_critical;

/* Allocates and frees the three tid maps (sp_core is made by the module). */
int sp_state_init(void);
void sp_state_free(void);

static inline bool sp_tid_ok(pid_t tid)
{
	return tid > 0 && tid < SP_TID_LIMIT;
}

/* Critical, or fast-tracked on behalf of a critical task (chains). */
static inline bool sp_tid_interesting(pid_t tid)
{
	return sp_tid_ok(tid) && (test_bit(tid, sp_critical_map) ||
				  test_bit(tid, sp_boosted_map));
}

#endif /* SP_KMOD_STATE_H */
