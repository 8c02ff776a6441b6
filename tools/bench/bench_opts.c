// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Options of `superpass bench`. Unknown options are an error (exit 2). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "sp_cli_msg.h"
#include "sp_cli_parse.h"
#include "sp_path.h"

const char *const bench_scenario_name[SC_NR] = { "mutex", "rwlock", "chain" };
const char *const bench_policy_name[PO_NR] = { "none", "pi", "rt-ui", "superpass",
					       "superpass-preload" };

void bench_usage(FILE *f)
{
	fprintf(f,
		"usage: superpass bench [options]        real-kernel experiment (about 2 minutes)\n"
		"       superpass bench micro [options]  ns per uncontended lock+unlock\n"
		"\n"
		"A critical thread (120 Hz frame loop) takes locks held by low-priority threads\n"
		"while CPU hogs keep every CPU busy; each policy runs the same workload.\n"
		"\n"
		"  -d, --duration SEC      seconds per policy run (default 2)\n"
		"  -r, --repeat N          runs of every row, alternating policies; the table gives\n"
		"                          the median and min-max over them (default 3)\n"
		"  -s, --scenarios LIST    mutex,rwlock,chain (default all)\n"
		"  -p, --policies LIST     none,pi,rt-ui,superpass,superpass-preload (default all)\n"
		"      --hogs N            CPU hogs (default 4)\n"
		"      --holders N         background lock holders, mutex/chain (default 2)\n"
		"      --readers N         concurrent readers, rwlock (default 8)\n"
		"      --k LIST            reader-tracker bounds K for rwlock (default 1,2,4,8,64;\n"
		"                          64 = unbounded for 8 readers); superpass-preload runs\n"
		"                          the interposer's default, 4, unless --k is given\n"
		"      --ui-nice N         nice of the critical thread (default -10)\n"
		"      --bg-nice N         nice of the lock holders (default 19)\n"
		"      --hog-nice N        nice of the hogs (default 0)\n"
		"      --cs-us N           holders' critical section, CPU us (default 500)\n"
		"      --ui-cs-us N        critical thread's critical section, us (default 50)\n"
		"      --ui-work-us N      critical thread's work per frame, us (default 1000)\n"
		"      --locks-per-frame N acquisitions per frame (default 4)\n"
		"      --gap-us N          holders' period between sections, us (default 4000)\n"
		"      --prio N            SCHED_FIFO priority for fast track and rt-ui (default 1)\n"
		"      --budget-ms N       fast-track budget per grant (default 20)\n"
		"      --seed N            random seed (default 1)\n"
		"      --json FILE         also write every figure as JSON (- for stdout)\n"
		SP_CLI_HELP_QUIET
		"  -h, --help\n"
		"\n"
		SP_CLI_HELP_EXIT);
}

/* --json FILE must be writable before the run, not found out after it. */
static int check_writable(const char *path, const char *opt)
{
	char dir[4096];

	if (!*path) {
		fprintf(stderr, "superpass bench: %s wants a file name, got ''\n", opt);
		return -1;
	}
	if (access(path, F_OK) == 0) {
		if (access(path, W_OK) != 0) {
			fprintf(stderr, "superpass bench: %s %s: cannot write: %s\n", opt, path,
				strerror(errno));
			return -1;
		}
		return 0;
	}
	sp_path_dir(dir, sizeof(dir), path);
	if (access(dir, W_OK) != 0) {
		fprintf(stderr, "superpass bench: %s %s: cannot create it in %s: %s\n", opt, path,
			dir, strerror(errno));
		return -1;
	}
	return 0;
}

#define BENCH_CMD "superpass bench"

static int parse_long(const char *arg, long lo, long hi, long *out, const char *opt)
{
	int64_t v;

	if (sp_cli_int(BENCH_CMD, opt, arg, lo, hi, &v))
		return -1;
	*out = (long)v;
	return 0;
}

enum {
	O_HOGS = 256, O_HOLDERS, O_READERS, O_K, O_UINICE, O_BGNICE, O_HOGNICE, O_CS, O_UICS,
	O_UIWORK, O_LPF, O_GAP, O_PRIO, O_BUDGET, O_SEED, O_JSON, O_CHILD, O_RESULT
};

int bench_parse(int argc, char **argv, struct bench_opts *o)
{
	static const struct option lo[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "scenarios", required_argument, NULL, 's' },
		{ "policies", required_argument, NULL, 'p' },
		{ "hogs", required_argument, NULL, O_HOGS },
		{ "holders", required_argument, NULL, O_HOLDERS },
		{ "readers", required_argument, NULL, O_READERS },
		{ "k", required_argument, NULL, O_K },
		{ "ui-nice", required_argument, NULL, O_UINICE },
		{ "bg-nice", required_argument, NULL, O_BGNICE },
		{ "hog-nice", required_argument, NULL, O_HOGNICE },
		{ "cs-us", required_argument, NULL, O_CS },
		{ "ui-cs-us", required_argument, NULL, O_UICS },
		{ "ui-work-us", required_argument, NULL, O_UIWORK },
		{ "locks-per-frame", required_argument, NULL, O_LPF },
		{ "gap-us", required_argument, NULL, O_GAP },
		{ "prio", required_argument, NULL, O_PRIO },
		{ "budget-ms", required_argument, NULL, O_BUDGET },
		{ "seed", required_argument, NULL, O_SEED },
		{ "json", required_argument, NULL, O_JSON },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "internal-child", required_argument, NULL, O_CHILD },
		{ "internal-result", required_argument, NULL, O_RESULT },
		{ NULL, 0, NULL, 0 },
	};
	long v;
	int c;

	*o = (struct bench_opts){
		.duration_s = 2.0, .repeat = 3,
		.scenarios = (1u << SC_NR) - 1, .policies = (1u << PO_NR) - 1,
		.hogs = 4, .holders = 2, .readers = 8,
		.ui_nice = -10, .bg_nice = 19, .hog_nice = 0,
		.cs_us = 500, .ui_cs_us = 50, .ui_work_us = 1000, .locks_per_frame = 4,
		.gap_us = 4000, .seed = 1, .prio = 1, .budget_ms = 20,
		.k = { 1, 2, 4, 8, 64 }, .nr_k = 5,
		.child_scenario = -1,
	};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:r:s:p:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (sp_cli_seconds(BENCH_CMD, "--duration", optarg, 3600, &o->duration_s))
				return -1;
			break;
		case 'r': if (parse_long(optarg, 1, 100, &v, "--repeat")) return -1; o->repeat = (int)v; break;
		case 's':
			if (sp_cli_name_list(BENCH_CMD, "--scenarios", optarg, bench_scenario_name,
					     SC_NR, &o->scenarios))
				return -1;
			break;
		case 'p':
			if (sp_cli_name_list(BENCH_CMD, "--policies", optarg, bench_policy_name, PO_NR,
					     &o->policies))
				return -1;
			break;
		case O_HOGS: if (parse_long(optarg, 0, 32, &v, "--hogs")) return -1; o->hogs = (int)v; break;
		case O_HOLDERS: if (parse_long(optarg, 1, 32, &v, "--holders")) return -1; o->holders = (int)v; break;
		case O_READERS: if (parse_long(optarg, 1, 64, &v, "--readers")) return -1; o->readers = (int)v; break;
		case O_UINICE: if (parse_long(optarg, -20, 19, &v, "--ui-nice")) return -1; o->ui_nice = (int)v; break;
		case O_BGNICE: if (parse_long(optarg, -20, 19, &v, "--bg-nice")) return -1; o->bg_nice = (int)v; break;
		case O_HOGNICE: if (parse_long(optarg, -20, 19, &v, "--hog-nice")) return -1; o->hog_nice = (int)v; break;
		case O_CS: if (parse_long(optarg, 0, 1000000, &v, "--cs-us")) return -1; o->cs_us = (uint32_t)v; break;
		case O_UICS: if (parse_long(optarg, 0, 1000000, &v, "--ui-cs-us")) return -1; o->ui_cs_us = (uint32_t)v; break;
		case O_UIWORK: if (parse_long(optarg, 0, 8000, &v, "--ui-work-us")) return -1; o->ui_work_us = (uint32_t)v; break;
		case O_LPF: if (parse_long(optarg, 1, 1000, &v, "--locks-per-frame")) return -1; o->locks_per_frame = (uint32_t)v; break;
		case O_GAP: if (parse_long(optarg, 0, 10000000, &v, "--gap-us")) return -1; o->gap_us = (uint32_t)v; break;
		case O_PRIO: if (parse_long(optarg, 1, 98, &v, "--prio")) return -1; o->prio = (int)v; break;
		case O_BUDGET: if (parse_long(optarg, 0, 100000, &v, "--budget-ms")) return -1; o->budget_ms = (uint32_t)v; break;
		case O_SEED: if (parse_long(optarg, 0, 0x7fffffffL, &v, "--seed")) return -1; o->seed = (uint64_t)v; break;
		case O_JSON:
			if (check_writable(optarg, "--json"))
				return -1;
			o->json_path = optarg;
			break;
		case O_CHILD: if (parse_long(optarg, 0, SC_NR - 1, &v, "--internal-child")) return -1; o->child_scenario = (int)v; break;
		case O_RESULT: o->child_result = optarg; break;
		case O_K:
			o->nr_k = sp_cli_u32_list(BENCH_CMD, "--k", optarg, 1, 64, o->k, BENCH_MAX_K);
			if (o->nr_k < 0)
				return -1;
			o->k_given = true;
			break;
		case 'q': o->quiet = true; break;
		case 'h': bench_usage(stdout); return 1;
		default:
			sp_cli_bad_option(BENCH_CMD, c, argv);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "superpass bench: unexpected argument '%s' (see superpass bench --help)\n",
			argv[optind]);
		return -1;
	}
	if (o->child_scenario >= 0 && !o->child_result)
		return -1;
	return 0;
}
