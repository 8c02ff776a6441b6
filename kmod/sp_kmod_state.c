// SPDX-License-Identifier: GPL-2.0-only
/* The state every part of the module shares: see sp_kmod_state.h. */
#include <linux/vmalloc.h>

#include "sp_kmod_state.h"

struct sp_core *sp_core;
unsigned long *sp_critical_map;
unsigned long *sp_boosted_map;
unsigned long *sp_marked_procs;
atomic_t sp_nr_critical = ATOMIC_INIT(0);

int sp_state_init(void)
{
	size_t map_bytes = BITS_TO_LONGS(SP_TID_LIMIT) * sizeof(unsigned long);

	sp_critical_map = vzalloc(map_bytes);
	sp_boosted_map = vzalloc(map_bytes);
	sp_marked_procs = vzalloc(map_bytes);
	if (!sp_critical_map || !sp_boosted_map || !sp_marked_procs) {
		sp_state_free();
		return -ENOMEM;
	}
	return 0;
}

void sp_state_free(void)
{
	vfree(sp_critical_map);
	vfree(sp_boosted_map);
	vfree(sp_marked_procs);
	sp_critical_map = NULL;
	sp_boosted_map = NULL;
	sp_marked_procs = NULL;
}
