// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Where `superpass run` finds libsuperpass-preload.so: SUPERPASS_PRELOAD if
 * set; else next to this binary (<dir>/../lib/, which is both the build
 * tree's layout, build/tools/superpass and build/lib/, and an install's
 * with libdir "lib", wherever it was relocated); else the libdir this
 * binary was configured to install into (multiarch /usr installs); else
 * the build tree it was built in. An installed binary thus uses its own
 * installed library even where the build tree still exists.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"

static int run_lib_ok(const char *p)
{
	return p && *p && access(p, R_OK) == 0;
}

const char *run_find_preload(void)
{
	static char buf[PATH_MAX];
	const char *env = getenv("SUPERPASS_PRELOAD");
	ssize_t n;
	char *slash;

	if (env && *env)
		return run_lib_ok(env) ? env : NULL;
	n = readlink("/proc/self/exe", buf, sizeof(buf) - 40);
	if (n > 0) {
		buf[n] = 0;
		slash = strrchr(buf, '/');
		if (slash) {
			strcpy(slash, "/../lib/libsuperpass-preload.so");
			if (run_lib_ok(buf)) {
				char *real = realpath(buf, NULL);

				if (real && strlen(real) < sizeof(buf))
					strcpy(buf, real);
				free(real);
				return buf;
			}
		}
	}
	if (run_lib_ok(SP_INSTALL_PRELOAD))
		return SP_INSTALL_PRELOAD;
	if (run_lib_ok(SP_BUILD_PRELOAD))
		return SP_BUILD_PRELOAD;
	return NULL;
}
