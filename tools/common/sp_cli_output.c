// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Output files of the subcommands' options (sp_cli_output.h). */
#include <errno.h>
#include <string.h>

#include "sp_cli_output.h"

FILE *sp_cli_output_open(const char *path)
{
	return strcmp(path, "-") ? fopen(path, "w") : stdout;
}

int sp_cli_output_close(FILE *f)
{
	int rc = ferror(f) ? -EIO : 0;

	if (f == stdout) {
		if (fflush(f) && !rc)
			rc = -errno;
	} else if (fclose(f) && !rc) {
		rc = -errno;
	}
	return rc;
}
