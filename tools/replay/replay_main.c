// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * `superpass replay TRACE`: the trace as a simulator workload, replayed under
 * each policy; the `none` replay next to the trace's own figures (the
 * self-check), then the table of `superpass sim`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <superpass/replay.h>

#include "replay.h"
#include "sp_cli_output.h"
#include "sp_cli_msg.h"
#include "sp_cli_parse.h"

/*
 * The fast track's latency the replay assumes: the P50 of `superpass bench`'s
 * boost_us (a critical thread's failed trylock to the holder running in
 * SCHED_FIFO) under superpass-preload, the runtime a recorded program would
 * get, on this machine (2 vCPUs, Linux 6.18): 70-79 us in eight mutex
 * runs, 67-72 us in four rwlock runs (superpass bench -q -s mutex -p
 * superpass-preload -d 5 --repeat 1, and -s rwlock --k 4, each under
 * superpass record, before the waiter applied its own fast tracks). The
 * simulator's own default (SP_SIM_DEFAULT_BOOST_LATENCY_NS, 150 us) is the
 * one its tables were made with. With 150 the mutex replays' P50 was 0.31 ms against the
 * measured runs' 0.23-0.25; with 75, 0.23-0.25.
 */
#define RP_BOOST_LATENCY_NS (75ull * 1000)
#define RP_MAX_K 16
#define RP_MAX_LIST 64
/* Seven runs: the median is a run, the range shows what one run hides, and
 * the whole replay of a 5 s bench trace under every policy stays well under
 * a second. */
#define RP_DEFAULT_RUNS 7

static void usage(FILE *f)
{
	fprintf(f,
		"usage: superpass replay TRACE [options]\n"
		"\n"
		"Turns a trace (what `superpass record` writes, or any ftrace text / trace-cmd\n"
		"file analyze reads) into a simulator workload: each thread's CPU time between\n"
		"its blocking points, its sleeps, and each lock wait as a dependency on its\n"
		"waker (the wait ends when the waker, replayed, reaches the point where it woke\n"
		"the waiter). Then replays it under each policy; the `none` replay must\n"
		"reproduce the trace (blockings, P99.9, janky frames within 20 %%).\n"
		"\n"
		"  -c, --critical LIST  critical threads by comm (globs); with neither this nor\n"
		"                       --tid, every replayed thread that waited for a lock\n"
		"  -t, --tid LIST       critical threads by tid\n"
		"  -p, --policies LIST  none,pi,rt-ui,proxy-exec,proxy-exec-migrate,ux-writer,\n"
		"                       superpass,rseq-slice,lavd (default all; none always runs)\n"
		"      --k LIST         superpass reader bounds (default 4)\n"
		"      --cpus N         CPUs (default: the trace's #P, else 2)\n"

		"      --slice-us N     the simulated fair base slice (default: Linux's for the\n"
		"                       trace's CPUs, 750 * (1 + log2(min(cpus, 8))): 1500 on 2)\n"
		"      --classic        the simulator's classic scheduler model instead of\n"
		"                       \"linux\" (a sleeper's negative lag kept as DELAY_DEQUEUE\n"
		"                       does, load balancing by weight: sp_sched_model)\n"
		"      --all-threads    replay every thread, not only the recorded command's\n"
		"      --seed N         simulator seed of the first run (default 1)\n"
		"      --runs N         runs per policy, on N consecutive seeds from --seed, each\n"
		"                       run's CPU bursts +-1 %% (default %d; 1: one exact run):\n"
		"                       a replay is chaotic in its input, so the self-check\n"
		"                       gives the runs' median and range, and each policy's\n"
		"                       row is its run of median P99.9\n"
		"      --boost-latency-us N  superpass: a fast track through the runtime's worker\n"
		"                       acts N us after the core asks for it, as the worker\n"
		"                       takes to wake and call sched_setattr (default %llu,\n"
		"                       measured: the P50 of the bench's boost_us with\n"
		"                       superpass-preload; 0: at once); one a critical thread's\n"
		"                       own wait asks for acts 20 us after it, applied by the\n"
		"                       waiter itself, as the runtime does\n"
		"      --json FILE      one record per policy (the sim's record shape: its run\n"
		"                       of median P99.9, with every run's figures under\n"
		"                       \"replay_runs\"), and the trace's own figures (\"trace\")\n"
		"      --svg FILE       blocking CDF per policy\n"
		"      --workload FILE  the derived workload as rt-app JSON (superpass sim FILE)\n"
		"      --events FILE    each policy's row (its run of median P99.9) as simulated\n"
		"                       events, one a line: switch, wake, block, acquire,\n"
		"                       release, prio (fast tracks), frame; to read beside the\n"
		"                       trace\n"
		SP_CLI_HELP_QUIET
		"  -h, --help\n"
		"\n"
		"A --critical name or --tid that selects none of the replayed threads is warned\n"
		"of, with the threads replayed; when none selects one, nothing is replayed.\n"
		"\n"
		"Exit status: 0 success, 1 a runtime failure (an output failed, memory or\n"
		"TMPDIR ran out), 2 bad usage or bad input (an unusable trace).\n",
		RP_DEFAULT_RUNS, (unsigned long long)(RP_BOOST_LATENCY_NS / 1000));
}

#define RP_CMD "superpass replay"

struct rp_diag {
	const char *path;
	const struct sp_trace_diag *d;
};

static void rp_diag_fn(FILE *f, void *ctx)
{
	const struct rp_diag *x = ctx;

	sp_trace_diag_print(f, x->path, x->d);
}

static void ms(char *b, size_t cap, uint64_t ns)
{
	snprintf(b, cap, "%.3f", (double)ns / 1e6);
}

static void fig_row(const char *what, const struct sp_replay_figures *f)
{
	char a[24], b[24], c[24], d[24];

	ms(a, sizeof(a), f->p50);
	ms(b, sizeof(b), f->p99);
	ms(c, sizeof(c), f->p999);
	ms(d, sizeof(d), f->max);
	printf("  %-16s %9llu %9s %9s %9s %9s %7llu %6llu\n", what,
	       (unsigned long long)f->blockings, a, b, c, d, (unsigned long long)f->frames,
	       (unsigned long long)f->janky);
}

static const char *within(uint64_t got, uint64_t want, char *buf, size_t cap)
{
	if (!want && !got)
		return "=";
	if (!want) {
		snprintf(buf, cap, "+inf");
		return buf;
	}
	snprintf(buf, cap, "%+.0f%%%s", ((double)got / (double)want - 1) * 100,
		 (got > want ? got - want : want - got) * 5 <= want ? "" : " (!)");
	return buf;
}

static const char *inside(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? "no (below)" : v > hi ? "no (above)" : "yes";
}

static int write_text(const char *path, const char *text)
{
	FILE *f = sp_cli_output_open(path);
	int rc;

	if (!f) {
		fprintf(stderr, "superpass replay: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	rc = fputs(text, f) < 0 ? -EIO : 0;
	if (sp_cli_output_close(f) || rc) {
		fprintf(stderr, "superpass replay: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

/* A picture's title: the trace's file name, not the path to it. */
static const char *replay_svg_title(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

int replay_main(int argc, char **argv)
{
	enum { O_K = 256, O_CPUS, O_SLICE, O_CLASSIC, O_ALL, O_SEED, O_JSON, O_SVG, O_WL, O_BLAT, O_RUNS, O_EVENTS };
	static const struct option lo[] = {
		{ "critical", required_argument, NULL, 'c' },
		{ "tid", required_argument, NULL, 't' },
		{ "policies", required_argument, NULL, 'p' },
		{ "k", required_argument, NULL, O_K },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "slice-us", required_argument, NULL, O_SLICE },
		{ "classic", no_argument, NULL, O_CLASSIC },
		{ "all-threads", no_argument, NULL, O_ALL },
		{ "seed", required_argument, NULL, O_SEED },
		{ "runs", required_argument, NULL, O_RUNS },
		{ "json", required_argument, NULL, O_JSON },
		{ "svg", required_argument, NULL, O_SVG },
		{ "workload", required_argument, NULL, O_WL },
		{ "events", required_argument, NULL, O_EVENTS },
		{ "boost-latency-us", required_argument, NULL, O_BLAT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct sp_vec comms = SP_VEC_INIT; /* of char *, NULL-terminated */
	int64_t list[RP_MAX_LIST];
	const char *policy_names[SP_SIM_POL_NR];
	char err[640];
	const char *json = NULL, *svg = NULL, *wl = NULL, *events = NULL, *path;
	FILE *evf = NULL;
	int32_t tids[RP_MAX_LIST];
	uint32_t ks[RP_MAX_K] = { 4 };
	int nt = 0, nk = 1, c, status = 0, nr = 0, nruns = RP_DEFAULT_RUNS;
	struct rp_set *sets = NULL;
	unsigned policies = (1u << SP_SIM_POL_NR) - 1;
	uint64_t seed = 1, blat = RP_BOOST_LATENCY_NS;
	int64_t v;
	struct sp_replay_opts o;
	struct sp_replay *r = NULL;
	struct sp_trace_diag d;
	struct sp_sim_result *rs = NULL;
	const struct sp_sim_result *none = NULL;

	sp_replay_opts_default(&o);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:t:p:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'c':
			sp_cli_str_list_free(&comms);
			if (sp_cli_str_list(RP_CMD, "--critical", optarg, 4096, &comms)) {
				status = 2;
				goto out;
			}
			if (comms.n > RP_MAX_LIST) {
				fprintf(stderr, RP_CMD ": --critical takes at most %d names\n",
					RP_MAX_LIST);
				status = 2;
				goto out;
			}
			break;
		case 't':
			nt = sp_cli_int_list(RP_CMD, "--tid", optarg, 1, INT32_MAX, list, RP_MAX_LIST);
			if (nt < 0) {
				status = 2;
				goto out;
			}
			for (int i = 0; i < nt; i++)
				tids[i] = (int32_t)list[i];
			break;
		case 'p':
			for (int i = 0; i < SP_SIM_POL_NR; i++)
				policy_names[i] = sp_sim_policy_name((enum sp_sim_policy)i);
			if (sp_cli_name_list(RP_CMD, "--policies", optarg, policy_names,
					     SP_SIM_POL_NR, &policies)) {
				status = 2;
				goto out;
			}
			policies |= 1u << SP_SIM_POL_NONE;
			break;
		case O_K:
			nk = sp_cli_u32_list(RP_CMD, "--k", optarg, 1, 64, ks, RP_MAX_K);
			if (nk < 0) {
				status = 2;
				goto out;
			}
			break;
		case O_CPUS:
			if (sp_cli_int(RP_CMD, "--cpus", optarg, 1, 64, &v)) {
				status = 2;
				goto out;
			}
			o.cpus = (uint32_t)v;
			break;
		case O_SLICE:
			if (sp_cli_int(RP_CMD, "--slice-us", optarg, 1, 1000000, &v)) {
				status = 2;
				goto out;
			}
			o.slice_ns = (uint64_t)v * 1000;
			break;
		case O_CLASSIC: o.classic = true; break;
		case O_ALL: o.all_threads = true; break;
		case O_SEED:
			if (sp_cli_int(RP_CMD, "--seed", optarg, 0, 0x7fffffffffffffffll, &v)) {
				status = 2;
				goto out;
			}
			seed = (uint64_t)v;
			break;
		case O_RUNS:
			if (sp_cli_int(RP_CMD, "--runs", optarg, 1, RP_MAX_RUNS, &v)) {
				status = 2;
				goto out;
			}
			nruns = (int)v;
			break;
		case O_JSON: json = optarg; break;
		case O_SVG: svg = optarg; break;
		case O_WL: wl = optarg; break;
		case O_EVENTS: events = optarg; break;
		case O_BLAT:
			if (sp_cli_int(RP_CMD, "--boost-latency-us", optarg, 0, 1000000, &v)) {
				status = 2;
				goto out;
			}
			blat = (uint64_t)v * 1000;
			break;
		case 'q': break; /* replay writes no progress and no notes */
		case 'h': usage(stdout); goto out;
		default:
			sp_cli_bad_option(RP_CMD, c, argv);
			status = 2;
			goto out;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "superpass replay: %s (see superpass replay --help)\n",
			optind >= argc ? "which trace?" : "one trace at a time");
		status = 2;
		goto out;
	}
	path = argv[optind];
	o.critical_comms = comms.n ? (const char *const *)comms.data : NULL;
	o.critical_tids = nt ? tids : NULL;
	o.nr_critical_tids = (size_t)nt;
	c = sp_replay_build(path, &o, &r, &d, err, sizeof(err));
	if (c) {
		struct rp_diag x = { path, &d };

		sp_cli_prefixed(RP_CMD, rp_diag_fn, &x);
		fprintf(stderr, "superpass replay: %s\n", c == -ENOMEM ? "out of memory" : err);
		status = c == -ENOMEM || c == -ENOSPC || c == -EDQUOT ? 1 : 2; /* the machine ran out */
		goto out;
	}
	rp_check_selection(r, o.critical_comms, o.critical_tids, nt);
	if (wl && write_text(wl, sp_replay_json(r)))
		status = 1;
	if (events && !(evf = sp_cli_output_open(events))) {
		fprintf(stderr, "superpass replay: cannot write %s: %s\n", events, strerror(errno));
		status = 1;
		goto out;
	}
	rs = calloc(SP_SIM_POL_NR + RP_MAX_K, sizeof(*rs));
	sets = calloc(SP_SIM_POL_NR + RP_MAX_K, sizeof(*sets));
	if (!rs || !sets) {
		status = 1;
		goto out;
	}
	for (int p = 0; p < SP_SIM_POL_NR; p++) {
		if (!(policies & (1u << p)))
			continue;
		for (int i = 0; i < (p == SP_SIM_POL_SUPERPASS ? nk : 1); i++) {
			struct sp_sim_opts so;

			sp_sim_opts_default(&so);
			so.policy = (enum sp_sim_policy)p;
			so.k = p == SP_SIM_POL_SUPERPASS ? ks[i] : 0;
			so.seed = seed;
			so.boost_latency_ns = blat;
			c = rp_set_run(sp_replay_workload(r), &so, nruns, &sets[nr]);
			if (c) {
				fprintf(stderr, "superpass replay: %s: the simulator refused the "
						"workload: %s\n", path, strerror(-c));
				status = 2;
				goto out;
			}
			/* borrowed: sets[] owns the runs */
			rs[nr] = sets[nr].runs[sets[nr].median];
			if (evf) {
				struct sp_sim_opts eo;

				rp_run_opts(&so, nruns, sets[nr].median, &eo);
				if (rp_write_events(evf, sp_replay_workload(r), &eo,
						    sp_sim_policy_name(so.policy))) {
					fprintf(stderr, "superpass replay: cannot write %s\n", events);
					status = 1;
					sp_cli_output_close(evf);
					evf = NULL;
				}
			}
			if (p == SP_SIM_POL_NONE)
				none = &rs[nr];
			nr++;
		}
	}
	{
		struct sp_replay_counts k;
		struct sp_replay_figures tf, nf, nlo, nhi;
		char b1[32], b2[32], b3[32];

		sp_replay_get_counts(r, &k);
		sp_replay_trace_figures(r, &tf);
		rp_set_figures(&sets[none - rs], &nf, &nlo, &nhi);
		printf("%s: %llu events, %.3f s; replayed %llu threads (%.3f s CPU), %llu locks, "
		       "%llu lock waits (%llu critical sections dropped), %llu inferred sections, "
		       "%llu inferred read sections (at most %llu at one wait), %llu preemption points, %llu joins, %llu sleeps, "
		       "%llu timers, %llu CPU hogs, %llu starved holders looped, %.3f s CPU spun on "
		       "kernel locks left out; left "
		       "out %llu threads (%.3f s CPU)%s\n",
		       path, (unsigned long long)k.events, (double)(k.last_ns - k.first_ns) / 1e9,
		       (unsigned long long)k.threads, (double)k.replayed_cpu_ns / 1e9,
		       (unsigned long long)k.locks, (unsigned long long)k.waits,
		       (unsigned long long)k.dropped, (unsigned long long)k.inferred,
		       (unsigned long long)k.readers, (unsigned long long)k.readers_max,
		       (unsigned long long)k.preemptions,
		       (unsigned long long)k.joins, (unsigned long long)k.sleeps,
		       (unsigned long long)k.timers, (unsigned long long)k.hogs,
		       (unsigned long long)k.looped, (double)k.spin_ns / 1e9,
		       (unsigned long long)k.outside_threads,
		       (double)k.outside_cpu_ns / 1e9,
		       k.lost ? "; the trace lost events: a partial replay" : "");
		if (k.open_waits)
			printf("%s: %llu lock waits still open at the end of the trace were left out "
			       "(a partial replay)\n", path, (unsigned long long)k.open_waits);
		printf("\nself-check: the critical threads in the trace and replayed under none (ms)%s\n",
		       nruns > 1 ? "; the replay: each figure's median over the runs, then its least and most" : "");
		printf("  %-16s %9s %9s %9s %9s %9s %7s %6s\n", "", "blockings", "p50", "p99", "p99.9",
		       "max", "frames", "janky");
		fig_row("trace", &tf);
		fig_row("replay none", &nf);
		if (nruns > 1) {
			char what[32];

			snprintf(what, sizeof(what), "  least of %d", nruns);
			fig_row(what, &nlo);
			snprintf(what, sizeof(what), "  most of %d", nruns);
			fig_row(what, &nhi);
		}
		printf("  %-16s %9s %9s %9s %9s\n", "replay/trace",
		       within(nf.blockings, tf.blockings, b1, sizeof(b1)), "",
		       "", within(nf.p999, tf.p999, b2, sizeof(b2)));
		if (tf.frames)
			printf("  janky frames: %s\n", within(nf.janky, tf.janky, b3, sizeof(b3)));
		printf("  (!) marks a figure more than 20 %% off the trace's\n");
		if (nruns > 1)
			printf("  the trace inside the %d runs' range: blockings %s, P99.9 %s%s%s\n", nruns,
			       inside(tf.blockings, nlo.blockings, nhi.blockings),
			       inside(tf.p999, nlo.p999, nhi.p999), tf.frames ? ", janky frames " : "",
			       tf.frames ? inside(tf.janky, nlo.janky, nhi.janky) : "");
		/* Other programs that ran during the recording (another user's
		 * build or profiler) took CPU the replay does not have: in a
		 * recording with 2.7 s of it beside 7.4 s replayed, the starved
		 * readers got 172 ms replayed against 123 ms traced. */
		if (k.outside_cpu_ns * 20 > k.replayed_cpu_ns)
			printf("  the trace has %.3f s of CPU outside the recorded command (%.0f %% of the "
			       "replayed threads'), which the replay leaves out: a self-check against\n"
			       "  another load (--all-threads replays it)\n",
			       (double)k.outside_cpu_ns / 1e9,
			       100.0 * (double)k.outside_cpu_ns / (double)(k.replayed_cpu_ns ?: 1));
		printf("\n");
		sp_sim_print_header(stdout, sp_sim_workload_name(sp_replay_workload(r)),
				    none->cpus, none->sim_ns);
		for (int i = 0; i < nr; i++)
			sp_sim_print_row(stdout, &rs[i], none);
		sp_sim_print_summary(stdout, rs, nr);
		if (nruns > 1) {
			printf("each row: the run of median P99.9 of %d (seeds %llu-%llu, each CPU burst "
			       "+-1 %%); P99.9 over the runs, least-most (ms):\n", nruns,
			       (unsigned long long)seed, (unsigned long long)(seed + (uint64_t)nruns - 1));
			for (int i = 0; i < nr; i++) {
				struct sp_replay_figures fm, fl, fh;
				char name[48];

				rp_set_figures(&sets[i], &fm, &fl, &fh);
				printf("  %-22s %8.2f-%.2f\n",
				       sp_sim_policy_label(&rs[i], name, sizeof(name)),
				       (double)fl.p999 / 1e6, (double)fh.p999 / 1e6);
			}
		}
	}
	if (json) {
		struct sp_replay_figures tf;
		FILE *f = sp_cli_output_open(json);

		sp_replay_trace_figures(r, &tf);
		if (!f || rp_write_json(f, rs, sets, nr, seed, &tf) | sp_cli_output_close(f)) {
			fprintf(stderr, "superpass replay: cannot write %s\n", json);
			status = 1;
		}
	}
	if (svg) {
		FILE *f = sp_cli_output_open(svg);

		if (!f || sp_sim_write_svg(f, rs, nr, replay_svg_title(path)) | sp_cli_output_close(f)) {
			fprintf(stderr, "superpass replay: cannot write %s\n", svg);
			status = 1;
		}
	}
out:
	if (evf && sp_cli_output_close(evf)) {
		fprintf(stderr, "superpass replay: cannot write %s\n", events);
		status = 1;
	}
	for (int i = 0; sets && i < nr; i++)
		rp_set_free(&sets[i]);
	free(sets);
	free(rs);
	sp_replay_destroy(r);
	sp_cli_str_list_free(&comms);
	return status;
}
