/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Reading the interposer's statistics JSON (lib/hosts/runtime/sp_stats_json.c). */
#ifndef SP_CLI_JSON_H
#define SP_CLI_JSON_H

#include <stdint.h>

#include <json-c/json.h>

/* The number under @key in the object @o; 0 if absent. */
static inline uint64_t sp_cli_json_u64(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? (uint64_t)json_object_get_int64(v) : 0;
}

#endif /* SP_CLI_JSON_H */
