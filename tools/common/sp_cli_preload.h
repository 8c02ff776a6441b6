/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The interposer, libsuperpass-preload.so, as `superpass run` and
 * `superpass bench` load it. */
#ifndef SP_CLI_PRELOAD_H
#define SP_CLI_PRELOAD_H

#include <stddef.h>

/*
 * Where the interposer is: its SONAME file, libsuperpass-preload.so.N
 * (N: SUPERPASS_ABI), in this order:
 *  1. SUPERPASS_PRELOAD, if set (and nothing else if it is not readable);
 *  2. the libdir of an install, relative to this binary (bindir to libdir,
 *     e.g. ../lib or ../lib/x86_64-linux-gnu), wherever the prefix was
 *     moved;
 *  3. ../lib/ next to this binary: the build tree's layout
 *     (build/tools/superpass, build/lib/);
 *  4. the libdir this binary was configured to install into;
 *  5. the build tree it was built in.
 * An installed binary thus uses its own installed library even where the
 * build tree still exists. Returns NULL if none is readable.
 */
const char *sp_cli_preload_find(void);

/* The LD_PRELOAD value for a child: a sanitizer runtime this very binary
 * uses first (sanitized builds), then LD_PRELOAD as it was, then @lib. */
void sp_cli_preload_env(char *out, size_t cap, const char *lib);

#endif /* SP_CLI_PRELOAD_H */
