/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The growable arrays of lib/analysis (trace and replay): room for one more
 * element, the capacity doubled (or @first when there is none yet).
 */
#ifndef SP_ANALYSIS_GROW_H
#define SP_ANALYSIS_GROW_H

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

/* *@v, of *@cap elements of @elem bytes, reallocated to twice as many:
 * 0, or -ENOMEM with *@v and *@cap unchanged. */
static inline int sp_analysis_grow(void **v, size_t *cap, size_t elem, size_t first)
{
	size_t nc = *cap ? 2 * *cap : first;
	void *nv = realloc(*v, nc * elem);

	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = nc;
	return 0;
}

#endif /* SP_ANALYSIS_GROW_H */
