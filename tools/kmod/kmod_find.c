// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * How superpass.ko loads on this machine, for the hints of `superpass
 * kmod`: installed for the running kernel (DKMS, or anything depmod
 * indexed: modprobe), else built by `make -C kmod` beside this binary's
 * build tree or in its source tree (insmod PATH), else not at all.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kmod.h"

/* modprobe finds only what modules.dep of the running kernel lists. */
static bool kmod_installed(void)
{
	struct utsname u;
	char path[sizeof(u.release) + 32], *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	if (uname(&u))
		return false;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", u.release);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':'), *base;

		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		/* superpass.ko, or compressed: superpass.ko.xz, .zst, .gz */
		found = !strcmp(base, "superpass.ko") || !strncmp(base, "superpass.ko.", 13);
	}
	free(line);
	fclose(f);
	return found;
}

/* BUILD/kmod/superpass.ko for this binary's BUILD/tools/superpass, then
 * the source tree's build/kmod/superpass.ko (make -C kmod's default). */
static bool kmod_built(char *out, size_t cap)
{
	char exe[PATH_MAX], *slash, *real;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if ((size_t)snprintf(out, cap, "%s/../kmod/superpass.ko", exe) < cap &&
			    access(out, R_OK) == 0) {
				real = realpath(out, NULL);
				if (real && strlen(real) < cap)
					strcpy(out, real);
				free(real);
				return true;
			}
		}
	}
	if (access(SP_KMOD_SOURCE_BUILT, R_OK) == 0 && strlen(SP_KMOD_SOURCE_BUILT) < cap) {
		strcpy(out, SP_KMOD_SOURCE_BUILT);
		return true;
	}
	return false;
}

bool kmod_load_cmd(char *buf, size_t cap)
{
	char path[PATH_MAX];

	if (kmod_installed()) {
		snprintf(buf, cap, "modprobe superpass");
		return true;
	}
	if (kmod_built(path, sizeof(path))) {
		snprintf(buf, cap, "insmod %s", path);
		return true;
	}
	snprintf(buf, cap, "insmod superpass.ko");
	return false;
}
