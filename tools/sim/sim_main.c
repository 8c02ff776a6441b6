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

#define SIM_MAX_K 16
#define SIM_MAX_SWEEP 32
#define SIM_MAX_CRIT 32

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
	const char *json, *svg;
	const char *sweep_param;
	int64_t sweep[SIM_MAX_SWEEP];
	int nr_sweep;
	const char *crit[SIM_MAX_CRIT + 1];
	char *crit_buf;
	bool speed, quiet;
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
		"                        superpass (default all)\n"
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
		"      --json FILE       every run as JSON (the bench's record shape)\n"
		"      --svg FILE        blocking CDF per policy (with --sweep: P99.9 per value)\n"
		"      --sweep P=LIST    P99.9 against k, holders, nice or cs_us, e.g. k=1,2,4,8\n"
		"      --speed           simulated events per second, on stderr\n"
		"  -q, --quiet           no progress on stderr\n"
		"  -h, --help\n"
		"Exit status: 0 ok, 2 bad options or workload file, 1 failure.\n",
		SP_SIM_DEFAULT_CPUS, SP_SIM_DEFAULT_DURATION_NS / 1000000000ull,
		SP_SIM_DEFAULT_SLICE_NS / 1000, SP_SIM_DEFAULT_BOOST_LATENCY_NS / 1000);
}

static int sim_long(const char *arg, long long lo, long long hi, long long *out, const char *opt)
{
	char *end;

	errno = 0;
	*out = strtoll(arg, &end, 10);
	if (errno || *end || end == arg || *out < lo || *out > hi) {
		fprintf(stderr, "superpass sim: %s wants an integer in [%lld, %lld], got '%s'\n", opt,
			lo, hi, arg);
		return -1;
	}
	return 0;
}

/* Splits a comma list of integers. */
static int sim_ints(const char *arg, long long lo, long long hi, int64_t *out, int cap,
		    const char *opt)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int n = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long long v;

		if (n == cap) {
			fprintf(stderr, "superpass sim: %s takes at most %d values\n", opt, cap);
			n = -1;
			break;
		}
		if (sim_long(tok, lo, hi, &v, opt)) {
			n = -1;
			break;
		}
		out[n++] = v;
	}
	free(copy);
	if (n == 0)
		fprintf(stderr, "superpass sim: %s wants a list of values\n", opt);
	return n > 0 ? n : -1;
}

enum { O_K = 256, O_CRIT, O_CPUS, O_SEED, O_SLICE, O_BUDGET, O_PRIO, O_JSON, O_SVG, O_SWEEP,
       O_SPEED, O_BLAT };

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
		{ "json", required_argument, NULL, O_JSON },
		{ "svg", required_argument, NULL, O_SVG },
		{ "sweep", required_argument, NULL, O_SWEEP },
		{ "speed", no_argument, NULL, O_SPEED },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long long v;
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
		case 'p': {
			char *copy = strdup(optarg), *save = NULL, *tok;

			o->policies = 0;
			for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				int p = sp_sim_policy_parse(tok);

				if (p < 0) {
					fprintf(stderr, "superpass sim: unknown policy '%s' (none, pi, rt-ui, "
							"proxy-exec, proxy-exec-migrate, ux-writer, superpass)\n",
						tok);
					free(copy);
					return -1;
				}
				o->policies |= 1u << p;
			}
			free(copy);
			if (!o->policies) {
				fprintf(stderr, "superpass sim: --policies wants a list\n");
				return -1;
			}
			break;
		}
		case O_K: {
			int64_t ks[SIM_MAX_K];
			int n = sim_ints(optarg, 1, 64, ks, SIM_MAX_K, "--k");

			if (n < 0)
				return -1;
			for (int i = 0; i < n; i++)
				o->k[i] = (uint32_t)ks[i];
			o->nr_k = n;
			o->k_given = true;
			break;
		}
		case O_CRIT: {
			char *save = NULL, *tok;
			int n = 0;

			free(o->crit_buf);
			o->crit_buf = strdup(optarg);
			for (tok = strtok_r(o->crit_buf, ",", &save); tok && n < SIM_MAX_CRIT;
			     tok = strtok_r(NULL, ",", &save))
				o->crit[n++] = tok;
			o->crit[n] = NULL;
			break;
		}
		case O_CPUS:
			if (sim_long(optarg, 1, 64, &v, "--cpus"))
				return -1;
			o->cpus = (uint32_t)v;
			break;
		case 'd': {
			char *end;
			double d = strtod(optarg, &end);

			if (*end || end == optarg || !(d > 0) || d > 1e6) {
				fprintf(stderr, "superpass sim: --duration wants seconds in (0, 1e6], "
						"got '%s'\n", optarg);
				return -1;
			}
			o->duration_ns = (uint64_t)(d * 1e9 + 0.5);
			break;
		}
		case O_SEED:
			if (sim_long(optarg, 0, 0x7fffffffffffffffll, &v, "--seed"))
				return -1;
			o->seed = (uint64_t)v;
			break;
		case O_SLICE:
			if (sim_long(optarg, 1, 1000000, &v, "--slice-us"))
				return -1;
			o->slice_ns = (uint64_t)v * 1000;
			break;
		case O_BUDGET:
			if (sim_long(optarg, 0, 100000, &v, "--budget-ms"))
				return -1;
			o->budget_ns = v ? (uint64_t)v * 1000000 : UINT64_MAX;
			break;
		case O_PRIO:
			if (sim_long(optarg, 1, 99, &v, "--prio"))
				return -1;
			o->prio = (int)v;
			break;
		case O_BLAT:
			if (sim_long(optarg, 0, 1000000, &v, "--boost-latency-us"))
				return -1;
			o->boost_latency_ns = (uint64_t)v * 1000;
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
			o->nr_sweep = sim_ints(eq + 1, lo_v, hi_v, o->sweep, SIM_MAX_SWEEP, "--sweep");
			if (o->nr_sweep < 0)
				return -1;
			o->sweep_param = param;
			break;
		}
		case O_SPEED: o->speed = true; break;
		case 'q': o->quiet = true; break;
		case 'h': sim_usage(stdout); return 1;
		case ':':
			fprintf(stderr, "superpass sim: option '%s' needs a value\n", argv[optind - 1]);
			return -1;
		default:
			fprintf(stderr, "superpass sim: unknown option '%s' (see superpass sim --help)\n",
				argv[optind - 1]);
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
	struct sp_sim_result *rs;
	int *vidx;                    /* --sweep: the value each run had */
	int n, cap, cur;
	uint64_t events, sim_ns, wall_ns;
};

static int sim_one(const struct sim_cli *o, const struct sp_sim_workload *w,
		   enum sp_sim_policy pol, uint32_t k, struct sim_batch *b)
{
	struct sp_sim_opts so;
	struct sp_sim_result *r;
	uint64_t t0;
	int rc;

	if (b->n == b->cap) {
		int cap = b->cap ? 2 * b->cap : 16;
		struct sp_sim_result *rs = realloc(b->rs, sizeof(*rs) * (size_t)cap);
		int *vi;

		if (!rs)
			return -ENOMEM;
		b->rs = rs;
		vi = realloc(b->vidx, sizeof(*vi) * (size_t)cap);
		if (!vi)
			return -ENOMEM;
		b->vidx = vi;
		b->cap = cap;
	}
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
	so.critical = o->crit[0] ? o->crit : NULL;
	if (!o->quiet)
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
		sp_sim_result_free(&b->rs[i]);
	free(b->rs);
	free(b->vidx);
}

static int sim_write(const char *path, const char *what, int (*fn)(FILE *, void *), void *arg)
{
	FILE *f = fopen(path, "w");
	int rc;

	if (!f) {
		fprintf(stderr, "superpass sim: cannot write %s %s: %s\n", what, path, strerror(errno));
		return -1;
	}
	rc = fn(f, arg);
	if (fclose(f) || rc) {
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
		free(o.crit_buf);
		return rc > 0 ? 0 : 2;
	}
	rc = sp_sim_workload_load(o.file, &w, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "superpass sim: %s\n", err);
		free(o.crit_buf);
		return 2;
	}
	for (int i = 0; o.crit[i]; i++) {
		if (sp_sim_task_find(w, o.crit[i]) < 0) {
			fprintf(stderr, "superpass sim: --critical: %s has no task named '%s'\n", o.file,
				o.crit[i]);
			status = 2;
			goto out;
		}
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
		if (!o.quiet)
			fprintf(stderr, "\r%40s\r", "");
		if (rc) {
			fprintf(stderr, "superpass sim: %s: %s\n", o.file, strerror(-rc));
			status = rc == -EINVAL || rc == -ENOENT ? 2 : 1;
			goto out;
		}
		for (int i = 0; i < b.n; i++)
			if (b.rs[i].policy == SP_SIM_POL_NONE)
				none = &b.rs[i];
		sp_sim_print_header(stdout, sp_sim_workload_name(w), cpus, dur);
		for (int i = 0; i < b.n; i++)
			sp_sim_print_row(stdout, &b.rs[i], none);
		sp_sim_print_summary(stdout, b.rs, b.n);
		printf("\nblocking: critical thread's wait from lock request to acquisition; janky: "
		       "timers a critical thread reached late (rt-app slack < 0);\nhog_lost: background "
		       "work lost vs none; h_wait: share of blocking time the holders spent runnable "
		       "but waiting for a CPU;\ngrants/expired: fast tracks granted / ended by the "
		       "budget. Simulated: see include/superpass/sim.h for the model.\n");
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
			sp_sim_workload_free(v);
		}
		if (!o.quiet)
			fprintf(stderr, "\r%40s\r", "");
		if (rc) {
			fprintf(stderr, "superpass sim: %s: %s\n", o.file, strerror(-rc));
			status = rc == -EINVAL ? 2 : 1;
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
	sp_sim_workload_free(w);
	free(o.crit_buf);
	return status;
}
