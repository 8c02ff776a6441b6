// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The `superpass` command. */
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "trace/trace_cli.h"
#include "sim/sim.h"
#include "replay/replay.h"
#include "kmod/kmod.h"
#include "run/run.h"
#include "superpass/version.h"
#include "common/sp_cli_msg.h"

int bench_main(int argc, char **argv, int full_argc, char **full_argv);

static void usage(FILE *f)
{
	fprintf(f, "usage: superpass --version | CMD --version\n"
		   "       superpass bench [options]   compare scheduling policies on this machine\n"
		   "       superpass bench micro         lock/unlock overhead vs glibc\n"
		   "       superpass bench --help\n"
		   "       superpass sim FILE [options]  run an rt-app workload in the simulator\n"
		   "       superpass run -c NAMES [options] -- CMD [ARGS]\n"
		   "                                 CMD under the interposer, with a summary\n");
	fprintf(f, "       superpass record [-o FILE] [--duration S] -- CMD [ARGS]  trace CMD for analyze\n"
		   "       superpass analyze TRACE [--critical COMMS] [--tid TIDS] [--json F]\n"
		   "                                 who blocked the critical threads, and why\n"
		   "       superpass replay TRACE [--critical COMMS] [--policies LIST] [--workload F]\n"
		   "                                 what each policy would have done in that trace\n"
		   "       superpass kmod COMMAND        drive superpass.ko: status, mark, unmark, list,\n"
		   "                                 stats, config (superpass kmod --help)\n"
		   "\n"
		   "Every command: -q, --quiet for no progress and no notes on stderr (results,\n"
		   "warnings and errors are still printed); \"-\" is standard output for every\n"
		   "file an option names; errors and warnings start with \"superpass CMD:\".\n"
		   "\n"
		   SP_CLI_HELP_EXIT
		   "superpass run exits with CMD's status, and 125 (superpass failed), 126 (CMD\n"
		   "cannot be run) or 127 (CMD not found) as nice(1) does.\n");
}

static const char *const sp_commands[] = {
	"bench", "run", "sim", "record", "analyze", "replay", "kmod",
};

/*
 * `superpass --version` and `superpass CMD [OPTIONS] --version`. Only the
 * arguments before a `--` count: `superpass run -c ui -- prog --version`
 * runs prog with its own --version.
 */
static int sp_wants_version(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "--version"))
			return 1;
	}
	return 0;
}

static int sp_is_command(const char *name)
{
	for (size_t i = 0; i < sizeof(sp_commands) / sizeof(sp_commands[0]); i++)
		if (!strcmp(name, sp_commands[i]))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (sp_is_command(argv[1]) || argv[1][0] == '-') &&
	    sp_wants_version(argc, argv)) {
		printf("superpass %s (ABI %d)\n", SUPERPASS_VERSION, SUPERPASS_ABI);
		return 0;
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "bench")) {
		if (argc > 2 && !strcmp(argv[2], "micro"))
			return bench_micro_main(argc, argv);
		return bench_main(argc - 1, argv + 1, argc, argv);
	}
	if (!strcmp(argv[1], "run"))
		return run_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "sim"))
		return sim_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "record"))
		return trace_record_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "analyze"))
		return trace_analyze_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "replay"))
		return replay_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "kmod"))
		return kmod_main(argc - 1, argv + 1);
	fprintf(stderr, "superpass: unknown command '%s' (see superpass --help)\n", argv[1]);
	return 2;
}
