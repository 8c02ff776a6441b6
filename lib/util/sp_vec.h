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

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

struct sp_vec {
	void *data;
	size_t n;   /* elements in use */
	size_t cap; /* elements allocated */
};

#define SP_VEC_INIT { NULL, 0, 0 }

/* Room for @want elements of @elem bytes in *@data, which holds *@cap: the
 * capacity starts at @first (at least 1) and doubles. For arrays kept as a
 * pointer and a capacity of their own; 0, or -ENOMEM with *@data and *@cap
 * unchanged when memory or size_t runs out. */
static inline int sp_grow(void **data, size_t *cap, size_t elem, size_t want, size_t first)
{
	size_t c = *cap ? *cap : (first ? first : 1);
	void *p;

	if (want <= *cap)
		return 0;
	while (c < want) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (elem && c > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*data, c * elem);
	if (!p)
		return -ENOMEM;
	*data = p;
	*cap = c;
	return 0;
}

/* Room for @want elements of @elem bytes in @v (first allocation @min_cap,
 * then doubling): sp_grow on the vector's own fields. */
static inline int sp_vec_reserve(struct sp_vec *v, size_t elem, size_t want, size_t min_cap)
{
	return sp_grow(&v->data, &v->cap, elem, want, min_cap);
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
