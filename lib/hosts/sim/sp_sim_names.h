/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A hash index from a name (bytes and length, not copied: the caller keeps
 * them alive) and a small tag to an int: the workload's task, lock and
 * timer lookups, and the rt-app reader's duplicate-key check, in constant
 * time each, so that reading a workload stays linear in its size.
 * Emptied in constant time (sp_sim_names_clear), for a set reused per
 * JSON object. Zero-initialised is empty.
 */
#ifndef SP_SIM_NAMES_H
#define SP_SIM_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct sp_sim_name_slot;

struct sp_sim_names {
	struct sp_sim_name_slot *slots;
	size_t cap;     /* slots, a power of two (0: none yet) */
	size_t n;       /* names of the current generation */
	uint32_t gen;   /* a slot is in use when its gen is this one */
	uint64_t seed;  /* per index: colliding names cannot be prepared */
};

/* The value of @s (@len bytes) with @tag, or -ENOENT. */
int sp_sim_names_find(const struct sp_sim_names *ix, const char *s, size_t len, uint32_t tag);
/* Adds @s with @tag and @value (>= 0); the caller checked that it is not
 * there. 0 or -ENOMEM (the index unchanged). */
int sp_sim_names_add(struct sp_sim_names *ix, const char *s, size_t len, uint32_t tag,
		     int value);
/* Forgets every name, keeping the memory. */
void sp_sim_names_clear(struct sp_sim_names *ix);
void sp_sim_names_free(struct sp_sim_names *ix);

struct sp_sim_workload;
/* Builds the (empty) task, lock and timer indexes of @w from its arrays:
 * a copy's. 0 or -ENOMEM. */
int sp_sim_workload_index(struct sp_sim_workload *w);

#endif /* SP_SIM_NAMES_H */
