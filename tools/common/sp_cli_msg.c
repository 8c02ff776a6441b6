// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The message helpers of sp_cli_msg.h. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_cli_msg.h"

#define SP_CLI_NAMES_SHOWN 20

static void sp_cli_vmsg(const char *cmd, const char *what, const char *fmt, va_list ap)
{
	/* One write for the line, so that it does not interleave with a
	 * child's output on the same stderr. */
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	fprintf(stderr, "%s: %s%s\n", cmd, what, msg ? msg : fmt);
	free(msg);
}

void sp_cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sp_cli_vmsg(cmd, "", fmt, ap);
	va_end(ap);
}

void sp_cli_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sp_cli_vmsg(cmd, "warning: ", fmt, ap);
	va_end(ap);
}

bool sp_cli_progress(bool quiet)
{
	return !quiet && isatty(STDERR_FILENO);
}

void sp_cli_print_names(FILE *f, const char *const *names, size_t n)
{
	size_t shown = n < SP_CLI_NAMES_SHOWN ? n : SP_CLI_NAMES_SHOWN;

	if (!n) {
		fprintf(f, "none");
		return;
	}
	for (size_t i = 0; i < shown; i++)
		fprintf(f, "%s%s", i ? ", " : "", names[i]);
	if (n > shown)
		fprintf(f, " ... and %zu more", n - shown);
}

void sp_cli_prefixed(const char *cmd, void (*print)(FILE *f, void *ctx), void *ctx)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m) {
		print(stderr, ctx);
		return;
	}
	print(m, ctx);
	if (fclose(m) != 0 || !buf) {
		free(buf);
		print(stderr, ctx);
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		fprintf(stderr, "%s: %s\n", cmd, line);
	free(buf);
}
