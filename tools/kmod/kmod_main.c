// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * `superpass kmod`: dispatch, --help, `status` and `config`. The module
 * is the authority on what it accepts; this command says in words what
 * its errno meant (kmod_proc.c) and checks only what it can know for sure
 * beforehand (the syntax of a tid, the load-time keys).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "kmod.h"
#include "sp_cli_msg.h"

#define KMOD_CMD "superpass kmod"

static void kmod_usage(FILE *f)
{
	fprintf(f,
		"usage: superpass kmod [--proc DIR] COMMAND [ARGS]\n"
		"\n"
		"Drives superpass.ko (kernel mutexes and rwsems) through /proc/superpass.\n"
		"\n"
		"  status              loaded or not, version, kernel, configuration, marked\n"
		"                      threads (exit 1 when the module is not loaded)\n"
		"  mark TID|PID...     mark threads critical; a pid marks all its threads and\n"
		"                      the threads it creates later, all or none: refused for\n"
		"                      a process of more than 256 threads, when the module's\n"
		"                      task table (max_tasks) cannot take them, and for kernel\n"
		"                      threads and init unless loaded with allow_kthreads=1\n"
		"  unmark TID|PID...   undo mark (a pid: all its threads)\n"
		"  list                the marked threads: tid, pid, comm\n"
		"  stats [--json]      the module's counters and blocking percentiles as a\n"
		"                      table, or as one JSON object\n"
		"  config              the configuration, one \"key value\" per line\n"
		"  config KEY VALUE    change fifo_prio (1..98) or reader_tracking (0|1);\n"
		"                      max_tasks, depth, readers_k, budget_ms,\n"
		"                      throttle_permille and allow_kthreads are load-time\n"
		"                      parameters (modprobe superpass KEY=N, or\n"
		"                      insmod superpass.ko KEY=N)\n"
		"\n"
		"      --proc DIR        use DIR instead of /proc/superpass (a copy, for tests)\n"
		SP_CLI_HELP_QUIET
		"  -h, --help            this text\n"
		"\n"
		"mark, unmark and config need CAP_SYS_NICE in the initial user namespace;\n"
		"status, list and stats do not. Writing the files directly: one whole line\n"
		"per write(2), ending in a newline (echo 1234 > /proc/superpass/critical); a\n"
		"write without one is refused.\n"
		"\n"
		"Exit status: 0 success, 1 a runtime failure (the reason is on stderr; status:\n"
		"the module is not loaded), 2 bad usage or bad input.\n");
}

static void kmod_print_file_line(const char *path, const char *label)
{
	char line[256] = "";
	FILE *f = fopen(path, "re");

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	line[strcspn(line, "\n")] = '\0';
	printf("%-9s %s\n", label, line[0] ? line : "unknown");
}

static int kmod_status_main(int argc, char **argv)
{
	char *cfg = NULL, *crit = NULL, *save = NULL, *line;
	struct utsname u;
	unsigned int nmarked = 0;
	int err;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "superpass kmod status: takes no arguments\n");
		return KMOD_USAGE;
	}
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	if (!kmod_present()) {
		printf("superpass.ko: not loaded (no %s)\n", kmod_dir);
		printf("%-9s %s\n", "kernel", u.release);
		return KMOD_FAIL;
	}
	printf("superpass.ko: loaded (%s)\n", kmod_dir);
	kmod_print_file_line("/sys/module/superpass/version", "version");
	printf("%-9s %s\n", "kernel", u.release);
	err = kmod_read("config", &cfg);
	if (err) {
		fprintf(stderr, "superpass kmod status: %s/config: %s\n", kmod_dir, strerror(-err));
		return KMOD_FAIL;
	}
	printf("config:\n");
	for (line = strtok_r(cfg, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		printf("  %s\n", line);
	free(cfg);
	err = kmod_read("critical", &crit);
	if (err) {
		fprintf(stderr, "superpass kmod status: %s/critical: %s\n", kmod_dir, strerror(-err));
		return KMOD_FAIL;
	}
	for (line = crit; *line; line++)
		nmarked += *line == '\n';
	printf("%-9s %u threads\n", "marked", nmarked);
	free(crit);
	return KMOD_OK;
}

/* The module's load-time parameters that its config shows, and what each is. */
static const struct {
	const char *key, *what;
} kmod_load_time_keys[] = {
	{ "max_tasks", "sizes the module's tables" },
	{ "depth", "sizes the module's tables" },
	{ "readers_k", "sizes the module's tables" },
	{ "budget_ms", "sizes the module's tables" },
	{ "throttle_permille", "sizes the module's tables" },
	{ "allow_kthreads", "says whether kernel threads and init may be marked" },
	{ NULL, NULL },
};

/* Is @key one of the "key value" lines of the module's config? */
static bool kmod_config_has(const char *cfg, const char *key)
{
	size_t n = strlen(key);
	const char *p = cfg;

	while (p && *p) {
		if (!strncmp(p, key, n) && p[n] == ' ')
			return true;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

static int kmod_config_main(int argc, char **argv)
{
	char *cfg, *text, *what;
	int err, i, rc = KMOD_FAIL;

	if (argc != 1 && argc != 3) {
		fprintf(stderr, "superpass kmod config: give no argument (show) or KEY VALUE\n");
		return KMOD_USAGE;
	}
	if (kmod_read_or_say("superpass kmod config", "config", &cfg))
		return KMOD_FAIL;
	if (argc == 1) {
		fputs(cfg, stdout);
		free(cfg);
		return KMOD_OK;
	}
	if (strchr(argv[2], '\n') || strlen(argv[1]) + strlen(argv[2]) > 60) {
		fprintf(stderr, "superpass kmod config: KEY VALUE must be one short line\n");
		free(cfg);
		return KMOD_USAGE;
	}
	if (asprintf(&what, "config %s %s", argv[1], argv[2]) < 0) {
		free(cfg);
		return KMOD_FAIL;
	}
	for (i = 0; kmod_load_time_keys[i].key; i++) {
		if (!strcmp(argv[1], kmod_load_time_keys[i].key)) {
			char load[PATH_MAX + 16];

			kmod_load_cmd(load, sizeof(load));
			fprintf(stderr, "superpass kmod: %s: %s %s and is fixed at load time (rmmod "
				"superpass; %s %s=%s)\n",
				what, argv[1], kmod_load_time_keys[i].what, load, argv[1], argv[2]);
			goto out;
		}
	}
	if (!kmod_config_has(cfg, argv[1])) {
		fprintf(stderr, "superpass kmod: %s: unknown key '%s' (`superpass kmod config` lists "
			"them)\n", what, argv[1]);
		goto out;
	}
	if (asprintf(&text, "%s %s\n", argv[1], argv[2]) < 0)
		goto out;
	err = kmod_write("config", text);
	free(text);
	if (err)
		kmod_write_error(what, "config", err);
	else
		rc = KMOD_OK;
out:
	free(what);
	free(cfg);
	return rc;
}

int kmod_main(int argc, char **argv)
{
	int i = 1;

	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			kmod_usage(stdout);
			return KMOD_OK;
		}
		if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			i++; /* kmod writes no progress and no notes */
			continue;
		}
		if (!strcmp(argv[i], "--proc")) {
			if (i + 1 >= argc) {
				sp_cli_error(KMOD_CMD, "option '--proc' needs a value (see " KMOD_CMD
					     " --help)");
				return KMOD_USAGE;
			}
			kmod_dir = argv[i + 1];
			i += 2;
			continue;
		}
		sp_cli_error(KMOD_CMD, "unknown option '%.*s' (see " KMOD_CMD " --help)",
			     (int)strcspn(argv[i], "="), argv[i]);
		return KMOD_USAGE;
	}
	if (i >= argc) {
		sp_cli_error(KMOD_CMD, "which command?");
		kmod_usage(stderr);
		return KMOD_USAGE;
	}
	argc -= i;
	argv += i;
	if (!strcmp(argv[0], "status"))
		return kmod_status_main(argc, argv);
	if (!strcmp(argv[0], "mark"))
		return kmod_mark_main(argc, argv, true);
	if (!strcmp(argv[0], "unmark"))
		return kmod_mark_main(argc, argv, false);
	if (!strcmp(argv[0], "list"))
		return kmod_list_main(argc, argv);
	if (!strcmp(argv[0], "stats"))
		return kmod_stats_main(argc, argv);
	if (!strcmp(argv[0], "config"))
		return kmod_config_main(argc, argv);
	sp_cli_error(KMOD_CMD, "unknown command '%s' (see " KMOD_CMD " --help)", argv[0]);
	return KMOD_USAGE;
}
