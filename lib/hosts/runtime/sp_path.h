/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Path helpers shared by the runtime's file checks (sp_rt_files.c) and the
 * command's option checks (tools/bench/bench_opts.c). Header-only: the
 * command links the public libsuperpass, which exports no internals.
 */
#ifndef SP_PATH_H
#define SP_PATH_H

#include <stdio.h>
#include <string.h>

/* The directory a new file @path would be created in: ".", "/" or the
 * part before the last slash. Cut to @cap - 1 bytes if longer. */
static inline void sp_path_dir(char *dir, size_t cap, const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, cap, ".");
	else if (slash == path)
		snprintf(dir, cap, "/");
	else
		snprintf(dir, cap, "%.*s", (int)(slash - path), path);
}

#endif /* SP_PATH_H */
