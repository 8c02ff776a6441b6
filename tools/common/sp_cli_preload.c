// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The interposer finder and LD_PRELOAD value of sp_cli_preload.h. */
#define _GNU_SOURCE
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_cli_preload.h"

static int sp_cli_readable(const char *p)
{
	return p && *p && access(p, R_OK) == 0;
}

/* Is DIR/REL/SP_PRELOAD_FILE readable, DIR being this binary's folder?
 * Then @buf holds its real path. */
static int sp_cli_beside_exe(char *buf, size_t cap, const char *rel)
{
	char exe[PATH_MAX], *slash, *real;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return 0;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return 0;
	*slash = 0;
	if ((size_t)snprintf(buf, cap, "%s/%s/%s", exe, rel, SP_PRELOAD_FILE) >= cap ||
	    !sp_cli_readable(buf))
		return 0;
	real = realpath(buf, NULL);
	if (real && strlen(real) < cap)
		strcpy(buf, real);
	free(real);
	return 1;
}

const char *sp_cli_preload_find(void)
{
	static char buf[PATH_MAX];
	const char *env = getenv("SUPERPASS_PRELOAD");

	if (env && *env)
		return sp_cli_readable(env) ? env : NULL;
	if (sp_cli_beside_exe(buf, sizeof(buf), SP_BIN_TO_LIB) ||
	    sp_cli_beside_exe(buf, sizeof(buf), "../lib"))
		return buf;
	if (sp_cli_readable(SP_INSTALL_PRELOAD))
		return SP_INSTALL_PRELOAD;
	if (sp_cli_readable(SP_BUILD_PRELOAD))
		return SP_BUILD_PRELOAD;
	return NULL;
}

static int sp_cli_find_san(struct dl_phdr_info *info, size_t size, void *arg)
{
	char *out = arg;

	(void)size;
	if (info->dlpi_name && (strstr(info->dlpi_name, "/libasan.so") ||
				strstr(info->dlpi_name, "/libtsan.so"))) {
		snprintf(out, 1024, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

void sp_cli_preload_env(char *out, size_t cap, const char *lib)
{
	const char *old = getenv("LD_PRELOAD");
	char san[1024] = "";

	dl_iterate_phdr(sp_cli_find_san, san);
	snprintf(out, cap, "%s%s%s%s%s", san, san[0] ? ":" : "", old && *old ? old : "",
		 old && *old ? ":" : "", lib);
}
