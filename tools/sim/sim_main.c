// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * `superpass sim FILE`: an rt-app workload under every policy, in the
 * simulator (include/superpass/sim.h), with the table of `superpass bench`.
 * The output is a function of the file, the options and the seed; the
 * wall-clock speed goes to stderr, and only with --speed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <superpass/sim.h>

#include "sim.h"
#include "sp_cli_output.h"
#include "sp_cli_msg.h"
#include "sp_cli_parse.h"
#include "sp_vec.h"

#define SIM_MAX_K 16
#define SIM_MAX_SWEEP 32

struct sim_cli {
	const char *file;
	unsigned policies;            /* mask of enum sp_sim_policy */
	uint32_t k[SIM_MAX_K];
	int nr_k;
	bool k_given;
	uint32_t cpus;
	uint64_t duration_ns;
	uint64_t seed;
	uint64_t slice_ns, budget_ns;
	int prio;
	uint64_t boost_latency_ns;
	uint64_t rseq_slice_ns;
	const char *json, *svg;
	const char *sweep_param;
	int64_t sweep[SIM_MAX_SWEEP];
	int nr_sweep;
	struct sp_vec crit;           /* of char *, NULL-terminated */
	bool speed, quiet;
	bool check;                   /* read and check the file, run nothing */
};

static void sim_usage(FILE *f)
{
	fprintf(f,
		"usage: superpass sim FILE [options]    run an rt-app workload in the simulator\n"
		"\n"
		"Every policy runs the same workload, deterministically: same file, options and\n"
		"seed, same output. The table is the one of `superpass bench`.\n"
		"\n"
		"  -p, --policies LIST   none,pi,rt-ui,proxy-exec,proxy-exec-migrate,ux-writer,\n"
		"                        superpass,rseq-slice,lavd (default all)\n"
		"      --k LIST          superpass reader-tracker bounds K (default 4, or\n"
		"                        1,2,4,8,64 when the file has rwlocks or rwsems)\n"
		"      --critical LIST   task names to treat as critical (besides sp_critical)\n"
		"      --cpus N          CPUs (default: the file's sp_cpus, else %u)\n"
		"  -d, --duration S      simulated seconds per run (default: the file's duration,\n"
		"                        else %llu)\n"
		"      --seed N          random seed (default 1)\n"
		"      --slice-us N      fair base slice (default: the file's, else %llu)\n"
		"      --budget-ms N     superpass grant budget (default 20; 0: none)\n"
		"      --prio N          RT priority of fast tracks and rt-ui (default 1)\n"
		"      --boost-latency-us N  superpass: a fast track acts N us after the core\n"
		"                        asks for it, as the runtime's worker takes to wake and\n"
		"                        call sched_setattr (default %llu, measured here: the P50\n"
		"                        of the bench's boost_us; 0: at once)\n"
		"      --rseq-slice-us N  rseq-slice: how long a section may run past a\n"
		"                        preemption (the kernel's rseq_slice_ext_nsec;\n"
		"                        default %llu, at most %llu)\n"
		"      --json FILE       every run as JSON (the bench's record shape)\n"
		"      --svg FILE        blocking CDF per policy (with --sweep: P99.9 per value)\n"
		"      --sweep P=LIST    P99.9 against k, holders, nice or cs_us, e.g. k=1,2,4,8\n"
		"      --speed           simulated events per second, on stderr\n"
		"      --check           read and check the file (and --critical), run nothing\n"
		SP_CLI_HELP_QUIET
		"  -h, --help\n"
		"A task that takes a lock it holds, unlocks one it does not hold or nests more\n"
		"than %u locks is a bad workload file; a lock held when a task's program ends\n"
		"and two tasks that take two locks in opposite orders are warned of on stderr.\n"
		"\n"
		SP_CLI_HELP_EXIT,
		SP_SIM_DEFAULT_CPUS, SP_SIM_DEFAULT_DURATION_NS / 1000000000ull,
		SP_SIM_DEFAULT_SLICE_NS / 1000, SP_SIM_DEFAULT_BOOST_LATENCY_NS / 1000,
		SP_SIM_DEFAULT_RSEQ_SLICE_NS / 1000, SP_SIM_MAX_RSEQ_SLICE_NS / 1000,
		SP_SIM_MAX_HELD);
}

#define SIM_CMD "superpass sim"

enum { O_K = 256, O_CRIT, O_CPUS, O_SEED, O_SLICE, O_BUDGET, O_PRIO, O_JSON, O_SVG, O_SWEEP,
       O_SPEED, O_BLAT, O_CHECK, O_RSEQ };

static int sim_parse(int argc, char **argv, struct sim_cli *o)
{
	static const struct option lo[] = {
		{ "policies", required_argument, NULL, 'p' },
		{ "k", required_argument, NULL, O_K },
		{ "critical", required_argument, NULL, O_CRIT },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "duration", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, O_SEED },
		{ "slice-us", required_argument, NULL, O_SLICE },
		{ "budget-ms", required_argument, NULL, O_BUDGET },
		{ "prio", required_argument, NULL, O_PRIO },
		{ "boost-latency-us", required_argument, NULL, O_BLAT },
		{ "rseq-slice-us", required_argument, NULL, O_RSEQ },
		{ "json", required_argument, NULL, O_JSON },
		{ "svg", required_argument, NULL, O_SVG },
		{ "sweep", required_argument, NULL, O_SWEEP },
		{ "speed", no_argument, NULL, O_SPEED },
		{ "check", no_argument, NULL, O_CHECK },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *policy_names[SP_SIM_POL_NR];
	int64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	o->policies = (1u << SP_SIM_POL_NR) - 1;
	o->seed = 1;
	o->boost_latency_ns = SP_SIM_DEFAULT_BOOST_LATENCY_NS;
	o->k[0] = 4;
	o->nr_k = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:d:qh", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			for (int i = 0; i < SP_SIM_POL_NR; i++)
				policy_names[i] = sp_sim_policy_name((enum sp_sim_policy)i);
			if (sp_cli_name_list(SIM_CMD, "--policies", optarg, policy_names,
					     SP_SIM_POL_NR, &o->policies))
				return -1;
			break;
		case O_K:
			o->nr_k = sp_cli_u32_list(SIM_CMD, "--k", optarg, 1, 64, o->k, SIM_MAX_K);
			if (o->nr_k < 0)
				return -1;
			o->k_given = true;
			break;
		case O_CRIT:
			sp_cli_str_list_free(&o->crit);
			if (sp_cli_str_list(SIM_CMD, "--critical", optarg, 4096, &o->crit))
				return -1;
			break;
		case O_CPUS:
			if (sp_cli_int(SIM_CMD, "--cpus", optarg, 1, 64, &v))
				return -1;
			o->cpus = (uint32_t)v;
			break;
		case 'd': {
			double d;

			if (sp_cli_seconds(SIM_CMD, "--duration", optarg, 1e6, &d))
				return -1;
			o->duration_ns = (uint64_t)(d * 1e9 + 0.5);
			break;
		}
		case O_SEED:
			if (sp_cli_int(SIM_CMD, "--seed", optarg, 0, 0x7fffffffffffffffll, &v))
				return -1;
			o->seed = (uint64_t)v;
			break;
		case O_SLICE:
			if (sp_cli_int(SIM_CMD, "--slice-us", optarg, 1, 1000000, &v))
				return -1;
			o->slice_ns = (uint64_t)v * 1000;
			break;
		case O_BUDGET:
			if (sp_cli_int(SIM_CMD, "--budget-ms", optarg, 0, 100000, &v))
				return -1;
			o->budget_ns = v ? (uint64_t)v * 1000000 : UINT64_MAX;
			break;
		case O_PRIO:
			if (sp_cli_int(SIM_CMD, "--prio", optarg, 1, 99, &v))
				return -1;
			o->prio = (int)v;
			break;
		case O_BLAT:
			if (sp_cli_int(SIM_CMD, "--boost-latency-us", optarg, 0, 1000000, &v))
				return -1;
			o->boost_latency_ns = (uint64_t)v * 1000;
			break;
		case O_RSEQ:
			if (sp_cli_int(SIM_CMD, "--rseq-slice-us", optarg, 1,
				       SP_SIM_MAX_RSEQ_SLICE_NS / 1000, &v))
				return -1;
			o->rseq_slice_ns = (uint64_t)v * 1000;
			break;
		case O_JSON: o->json = optarg; break;
		case O_SVG: o->svg = optarg; break;
		case O_SWEEP: {
			char *eq = strchr(optarg, '=');
			static char param[16];
			long long lo_v = 1, hi_v = 64;

			if (!eq || eq - optarg >= (long)sizeof(param)) {
				fprintf(stderr, "superpass sim: --sweep wants PARAM=LIST (k, holders, nice, "
						"cs_us), got '%s'\n", optarg);
				return -1;
			}
			memcpy(param, optarg, (size_t)(eq - optarg));
			param[eq - optarg] = 0;
			if (!strcmp(param, "holders"))
				hi_v = 4096;
			else if (!strcmp(param, "nice"))
				lo_v = -20, hi_v = 19;
			else if (!strcmp(param, "cs_us"))
				lo_v = 0, hi_v = 1000000000;
			else if (strcmp(param, "k")) {
				fprintf(stderr, "superpass sim: --sweep: unknown parameter '%s' (k, holders, "
						"nice, cs_us)\n", param);
				return -1;
			}
			o->nr_sweep = sp_cli_int_list(SIM_CMD, "--sweep", eq + 1, lo_v, hi_v, o->sweep,
						       SIM_MAX_SWEEP);
			if (o->nr_sweep < 0)
				return -1;
			o->sweep_param = param;
			break;
		}
		case O_SPEED: o->speed = true; break;
		case O_CHECK: o->check = true; break;
		case 'q': o->quiet = true; break;
		case 'h': sim_usage(stdout); return 1;
		default:
			sp_cli_bad_option(SIM_CMD, c, argv);
			return -1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, optind >= argc ? "superpass sim: which workload file? (see superpass "
						 "sim --help)\n"
					       : "superpass sim: one workload file, got '%s' too\n",
			optind < argc ? argv[argc - 1] : "");
		return -1;
	}
	o->file = argv[optind];
	return 0;
}

static uint64_t sim_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct sim_batch {
	struct sp_vec rs_v, vidx_v;   /* the storage of rs and vidx */
	struct sp_sim_result *rs;
	int *vidx;                    /* --sweep: the value each run had */
	int n, cur;
	uint64_t events, sim_ns, wall_ns;
};

static int sim_one(const struct sim_cli *o, const struct sp_sim_workload *w,
		   enum sp_sim_policy pol, uint32_t k, struct sim_batch *b)
{
	struct sp_sim_opts so;
	struct sp_sim_result *r;
	uint64_t t0;
	int rc;

	if (sp_vec_reserve(&b->rs_v, sizeof(*b->rs), (size_t)b->n + 1, 16) ||
	    sp_vec_reserve(&b->vidx_v, sizeof(*b->vidx), (size_t)b->n + 1, 16))
		return -ENOMEM;
	b->rs = b->rs_v.data;
	b->vidx = b->vidx_v.data;
	r = &b->rs[b->n];
	sp_sim_opts_default(&so);
	so.policy = pol;
	so.k = k;
	so.cpus = o->cpus;
	so.duration_ns = o->duration_ns;
	so.seed = o->seed;
	so.base_slice_ns = o->slice_ns;
	so.budget_ns = o->budget_ns;
	so.fifo_prio = o->prio;
	so.boost_latency_ns = o->boost_latency_ns;
	so.rseq_slice_ns = o->rseq_slice_ns;
	so.critical = o->crit.n ? (const char *const *)o->crit.data : NULL;
	if (sp_cli_progress(o->quiet))
		fprintf(stderr, "\r[%2d] %-20s", b->n + 1, sp_sim_policy_name(pol));
	t0 = sim_wall_ns();
	rc = sp_sim_run(w, &so, r);
	b->wall_ns += sim_wall_ns() - t0;
	if (rc)
		return rc;
	b->events += r->events;
	b->sim_ns += r->sim_ns;
	b->vidx[b->n] = b->cur;
	b->n++;
	return 0;
}

/* Every selected policy once (superpass once per K) on @w. */
static int sim_policies(const struct sim_cli *o, const struct sp_sim_workload *w,
			const uint32_t *ks, int nk, struct sim_batch *b)
{
	for (int p = 0; p < SP_SIM_POL_NR; p++) {
		int rc;

		if (!(o->policies & (1u << p)))
			continue;
		if (p != SP_SIM_POL_SUPERPASS) {
			if ((rc = sim_one(o, w, (enum sp_sim_policy)p, 0, b)))
				return rc;
			continue;
		}
		for (int i = 0; i < nk; i++)
			if ((rc = sim_one(o, w, SP_SIM_POL_SUPERPASS, ks[i], b)))
				return rc;
	}
	return 0;
}

static void sim_free_batch(struct sim_batch *b)
{
	for (int i = 0; i < b->n; i++)
		sp_sim_result_destroy(&b->rs[i]);
	sp_vec_free(&b->rs_v);
	sp_vec_free(&b->vidx_v);
}

static int sim_write(const char *path, const char *what, int (*fn)(FILE *, void *), void *arg)
{
	FILE *f = sp_cli_output_open(path);
	int rc;

	if (!f) {
		fprintf(stderr, "superpass sim: cannot write %s %s: %s\n", what, path, strerror(errno));
		return -1;
	}
	rc = fn(f, arg);
	if (sp_cli_output_close(f) || rc) {
		fprintf(stderr, "superpass sim: cannot write %s %s\n", what, path);
		return -1;
	}
	return 0;
}

struct sim_out {
	const struct sim_batch *b;
	const struct sim_cli *o;
	const char *title;
};

static int sim_json_fn(FILE *f, void *arg)
{
	struct sim_out *x = arg;

	return sp_sim_write_json(f, x->b->rs, x->b->n, x->o->seed);
}

static int sim_svg_fn(FILE *f, void *arg)
{
	struct sim_out *x = arg;

	return sp_sim_write_svg(f, x->b->rs, x->b->n, x->title);
}

static int sim_sweep_svg_fn(FILE *f, void *arg)
{
	struct sim_out *x = arg;

	return sim_write_sweep_svg(f, x->title, x->o->sweep_param, x->o->sweep, x->o->nr_sweep,
				   x->b->rs, x->b->vidx, x->b->n);
}

static void sim_speed(const struct sim_batch *b)
{
	double wall = (double)b->wall_ns / 1e9;

	fprintf(stderr, "superpass sim: %d runs, %llu events in %.3f s of wall time: %.2f M events/s, "
			"%.0fx real time\n",
		b->n, (unsigned long long)b->events, wall, wall > 0 ? (double)b->events / wall / 1e6 : 0,
		wall > 0 ? (double)b->sim_ns / 1e9 / wall : 0);
}

/* A run that the simulator refused or could not finish. */
static void sim_run_failed(const char *file, int rc)
{
	if (rc == -E2BIG)
		fprintf(stderr, "superpass sim: %s: a thread would hold more than %u locks at once "
				"(SP_SIM_MAX_HELD)\n", file, SP_SIM_MAX_HELD);
	else
		fprintf(stderr, "superpass sim: %s: %s\n", file, strerror(-rc));
}

int sim_main(int argc, char **argv)
{
	struct sim_cli o;
	struct sp_sim_workload *w = NULL;
	struct sim_batch b = { 0 };
	char err[512];
	uint32_t ks[SIM_MAX_K];
	int nk, rc, status = 0;

	rc = sim_parse(argc, argv, &o);
	if (rc) {
		sp_cli_str_list_free(&o.crit);
		return rc > 0 ? 0 : 2;
	}
	rc = sp_sim_workload_load(o.file, &w, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "superpass sim: %s\n", err);
		sp_cli_str_list_free(&o.crit);
		return 2;
	}
	for (uint32_t i = 0; sp_sim_workload_warning(w, i); i++)
		fprintf(stderr, "superpass sim: warning: %s\n", sp_sim_workload_warning(w, i));
	for (size_t i = 0; i < o.crit.n; i++) {
		const char *name = ((char **)o.crit.data)[i];

		if (sp_sim_task_find(w, name) < 0) {
			fprintf(stderr, "superpass sim: --critical: %s has no task named '%s'\n", o.file,
				name);
			status = 2;
			goto out;
		}
	}
	if (o.check) {
		printf("%s: workload '%s' read and checked, nothing run (--check)\n", o.file,
		       sp_sim_workload_name(w));
		goto out;
	}
	memcpy(ks, o.k, sizeof(ks));
	nk = o.nr_k;
	if (!o.k_given && sp_sim_workload_has_rw(w)) {
		static const uint32_t dk[] = { 1, 2, 4, 8, 64 };

		memcpy(ks, dk, sizeof(dk));
		nk = 5;
	}
	if (!o.sweep_param) {
		uint32_t cpus = o.cpus ? o.cpus : sp_sim_workload_cpus(w) ? sp_sim_workload_cpus(w)
									  : SP_SIM_DEFAULT_CPUS;
		uint64_t dur = o.duration_ns ? o.duration_ns
			       : sp_sim_workload_duration_ns(w) ? sp_sim_workload_duration_ns(w)
								: SP_SIM_DEFAULT_DURATION_NS;
		const struct sp_sim_result *none = NULL;

		rc = sim_policies(&o, w, ks, nk, &b);
		if (sp_cli_progress(o.quiet))
			fprintf(stderr, "\r%40s\r", "");
		if (rc) {
			sim_run_failed(o.file, rc);
			status = rc == -EINVAL || rc == -ENOENT || rc == -E2BIG ? 2 : 1;
			goto out;
		}
		for (int i = 0; i < b.n; i++)
			if (b.rs[i].policy == SP_SIM_POL_NONE)
				none = &b.rs[i];
		sp_sim_print_header(stdout, sp_sim_workload_name(w), cpus, dur);
		for (int i = 0; i < b.n; i++)
			sp_sim_print_row(stdout, &b.rs[i], none);
		sp_sim_print_summary(stdout, b.rs, b.n);
		printf("\nblocking: a critical thread's wait from lock request to acquisition; p50_ms, "
		       "p99_ms, p99.9_ms, max_ms:\ntheir percentiles and longest; frames: the "
		       "timers the critical threads reached (as rt-app logs them;\nthe bench's "
		       "frame loop, sp_skip: every period); janky: those reached late (rt-app "
		       "slack < 0;\nsp_skip: every deadline missed); hog_lost: background work lost "
		       "vs none; cpu_s: simulated CPU time "
		       "used;\ngrants/expired: fast tracks granted / ended by the budget; h_wait: "
		       "share of blocking time the\nholders spent runnable but waiting for a CPU. "
		       "Simulated: see include/superpass/sim.h for the model.\n");
	} else {
		rc = 0;
		for (int i = 0; i < o.nr_sweep && !rc; i++) {
			struct sp_sim_workload *v = NULL;

			b.cur = i;
			if (!strcmp(o.sweep_param, "k")) {
				uint32_t k = (uint32_t)o.sweep[i];

				rc = sim_policies(&o, w, &k, 1, &b);
				continue;
			}
			rc = sp_sim_workload_vary(w, o.sweep_param, o.sweep[i], &v);
			if (!rc)
				rc = sim_policies(&o, v, ks, nk, &b);
			sp_sim_workload_destroy(v);
		}
		if (sp_cli_progress(o.quiet))
			fprintf(stderr, "\r%40s\r", "");
		if (rc) {
			sim_run_failed(o.file, rc);
			status = rc == -EINVAL || rc == -E2BIG ? 2 : 1;
			goto out;
		}
		sim_print_sweep(stdout, sp_sim_workload_name(w), o.sweep_param, o.sweep, o.nr_sweep,
				b.rs, b.vidx, b.n);
	}
	if (o.speed)
		sim_speed(&b);
	{
		struct sim_out x = { .b = &b, .o = &o, .title = sp_sim_workload_name(w) };

		if (o.json && sim_write(o.json, "JSON", sim_json_fn, &x))
			status = 1;
		if (o.svg && sim_write(o.svg, "SVG", o.sweep_param ? sim_sweep_svg_fn : sim_svg_fn, &x))
			status = 1;
	}
out:
	sim_free_batch(&b);
	sp_sim_workload_destroy(w);
	sp_cli_str_list_free(&o.crit);
	return status;
}
