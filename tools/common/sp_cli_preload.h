/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The interposer, libsuperpass-preload.so, as `superpass run` and
 * `superpass bench` load it. */
#ifndef SP_CLI_PRELOAD_H
#define SP_CLI_PRELOAD_H

#include <stddef.h>

/*
 * Where the interposer is, in this order:
 *  1. SUPERPASS_PRELOAD, if set (and nothing else if it is not readable);
 *  2. ../lib/ next to this binary: the build tree's layout
 *     (build/tools/superpass, build/lib/) and an install's with libdir
 *     "lib", wherever it was relocated;
 *  3. the libdir this binary was configured to install into (multiarch
 *     /usr installs);
 *  4. the build tree it was built in.
 * An installed binary thus uses its own installed library even where the
 * build tree still exists. Returns NULL if none is readable.
 */
const char *sp_cli_preload_find(void);

/* The LD_PRELOAD value for a child: a sanitizer runtime this very binary
 * uses first (sanitized builds), then LD_PRELOAD as it was, then @lib. */
void sp_cli_preload_env(char *out, size_t cap, const char *lib);

#endif /* SP_CLI_PRELOAD_H */
