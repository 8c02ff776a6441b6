// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* `superpass record`, `analyze` and `replay` in a build without
 * superpass::trace (SUPERPASS_TRACE=OFF, or AUTO where libtracecmd is
 * missing, as in the arm64 cross build): a clear error, not a crash. */
#include <stdio.h>

#include "trace/trace_cli.h"
#include "replay/replay.h"

static int sp_no_trace(const char *cmd)
{
	fprintf(stderr,
		"superpass %s: this superpass was built without trace support "
		"(SUPERPASS_TRACE=OFF: libtracecmd, libtraceevent or libtracefs missing)\n",
		cmd);
	return 2;
}

int trace_record_main(int argc, char **argv)
{
	return sp_no_trace("record");
}

int trace_analyze_main(int argc, char **argv)
{
	return sp_no_trace("analyze");
}

int replay_main(int argc, char **argv)
{
	return sp_no_trace("replay");
}
