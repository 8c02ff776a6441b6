/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A growable array of any element type: one realloc on doubling, the size
 * arithmetic checked so that a huge count fails instead of wrapping.
 * Userspace only (realloc). Use:
 *
 *	struct sp_vec v = SP_VEC_INIT;
 *	struct item *it = sp_vec_push(&v, sizeof(*it));   // NULL: no memory
 *	...; ((struct item *)v.data)[i]; sp_vec_free(&v);
 */
#ifndef SP_VEC_H
#define SP_VEC_H

#include <stdint.h>
#include <stdlib.h>

struct sp_vec {
	void *data;
	size_t n;   /* elements in use */
	size_t cap; /* elements allocated */
};

#define SP_VEC_INIT { NULL, 0, 0 }

/* Room for @want elements of @elem bytes (first allocation @min_cap, then
 * doubling); 0, or -1 with @v unchanged when memory or size_t runs out. */
static inline int sp_vec_reserve(struct sp_vec *v, size_t elem, size_t want, size_t min_cap)
{
	size_t cap = v->cap ? v->cap : (min_cap ? min_cap : 1);
	void *p;

	if (want <= v->cap)
		return 0;
	while (cap < want) {
		if (cap > SIZE_MAX / 2)
			return -1;
		cap *= 2;
	}
	if (elem && cap > SIZE_MAX / elem)
		return -1;
	p = realloc(v->data, cap * elem);
	if (!p)
		return -1;
	v->data = p;
	v->cap = cap;
	return 0;
}

/* A new, uninitialised last element, or NULL (@v unchanged). */
static inline void *sp_vec_push(struct sp_vec *v, size_t elem)
{
	if (v->n == SIZE_MAX || sp_vec_reserve(v, elem, v->n + 1, 16))
		return NULL;
	return (char *)v->data + elem * v->n++;
}

static inline void sp_vec_free(struct sp_vec *v)
{
	free(v->data);
	v->data = NULL;
	v->n = v->cap = 0;
}

#endif /* SP_VEC_H */
