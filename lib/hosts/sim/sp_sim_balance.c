// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Moving queued threads between CPUs: the pull of a CPU about to pick, the
 * push of an RT thread that cannot run where it is, and the periodic
 * balance.
 */
#include "sp_sim_sched.h"

/* A queued (not running, not blocked) task of another CPU that @c should
 * take: the best RT task above what @c would run, else, if @c would idle,
 * one from the CPU with most queued tasks. False if it took none; then
 * *pickp is what @c would run (sp_sim_pick, unchanged). */
bool sp_sim_pull(struct sp_sim *s, struct sp_sim_cpu *c, struct sp_sim_thread **pickp)
{
	struct sp_sim_thread *pick = sp_sim_pick(s, c), *best = NULL;
	int mine = pick ? pick->eff : -1;
	int most = 0;
	struct sp_sim_cpu *from = NULL;

	*pickp = pick;
	for (uint32_t i = 0; i < s->ncpus; i++) {
		struct sp_sim_cpu *o = &s->cpus[i];

		if (o == c)
			continue;
		for (int j = 0; j < o->nrq; j++) {
			struct sp_sim_thread *t = &s->th[o->rq[j]];

			/* one pushed to @o at this instant runs there first
			 * (sp_waiter_push_holder): the push's IPI beats the
			 * pusher's own way to sleep */
			if (t->state != SP_TS_RUNNABLE || o->curr == t || !sp_sim_allowed(t, c->id) ||
			    t->eff <= mine || t->eff == 0 || t->rt_pushed_at == s->now + 1)
				continue;
			if (!best || t->eff > best->eff || (t->eff == best->eff && t->seq < best->seq))
				best = t;
		}
	}
	if (best) {
		sp_sim_migrate(s, best, c);
		return true;
	}
	if (pick)
		return false;
	for (uint32_t i = 0; i < s->ncpus; i++) {
		struct sp_sim_cpu *o = &s->cpus[i];
		int n = 0;

		if (o == c)
			continue;
		for (int j = 0; j < o->nrq; j++) {
			struct sp_sim_thread *t = &s->th[o->rq[j]];

			if (t->state == SP_TS_RUNNABLE && o->curr != t && sp_sim_allowed(t, c->id))
				n++;
		}
		if (n > most) {
			most = n;
			from = o;
		}
	}
	if (!from)
		return false;
	for (int j = from->nrq - 1; j >= 0; j--) {
		struct sp_sim_thread *t = &s->th[from->rq[j]];

		if (t->state == SP_TS_RUNNABLE && from->curr != t && sp_sim_allowed(t, c->id)) {
			sp_sim_migrate(s, t, c);
			return true;
		}
	}
	return false;
}

/* A queued RT task that cannot run where it is goes where it can. */
void sp_sim_push_rt(struct sp_sim *s, struct sp_sim_thread *t)
{
	struct sp_sim_cpu *c = &s->cpus[t->cpu], *to;

	if (c->resched || c->curr == t || t->state != SP_TS_RUNNABLE)
		return;
	to = sp_sim_select_cpu(s, t);
	if (to != c && sp_sim_cpu_prio(s, to) < t->eff) {
		sp_sim_migrate(s, t, to);
		to->resched = true;
	}
}

/* Every SP_BALANCE_NS (classic model): the CPU with most runnable fair
 * tasks gives one queued task to the CPU with fewest, when they differ by
 * two or more. */
static void sp_balance_count(struct sp_sim *s)
{
	int most = -1, least = -1, nmost = 0, nleast = 0;
	int n[64];

	for (uint32_t i = 0; i < s->ncpus; i++) {
		struct sp_sim_cpu *c = &s->cpus[i];

		n[i] = 0;
		for (int j = 0; j < c->nrq; j++) {
			struct sp_sim_thread *t = &s->th[c->rq[j]];

			if (t->state == SP_TS_RUNNABLE)
				n[i]++;
		}
		if (most < 0 || n[i] > nmost) {
			most = (int)i;
			nmost = n[i];
		}
		if (least < 0 || n[i] < nleast) {
			least = (int)i;
			nleast = n[i];
		}
	}
	if (most < 0 || nmost - nleast < 2)
		return;
	for (int j = s->cpus[most].nrq - 1; j >= 0; j--) {
		struct sp_sim_cpu *c = &s->cpus[most];
		struct sp_sim_thread *t = &s->th[c->rq[j]];

		if (t->state == SP_TS_RUNNABLE && t->eff == 0 && c->curr != t && sp_sim_allowed(t, least)) {
			sp_sim_migrate(s, t, &s->cpus[least]);
			return;
		}
	}
}

/* linux model: how often a busy CPU balances. get_sd_balance_interval():
 * sd->balance_interval (the MC domain of 2 CPUs: 2 ms, doubled up to 4 ms
 * by each balance that finds the domain balanced, back to 2 ms after one
 * that finds it unbalanced) times busy_factor (16) when the CPU that
 * balances runs something; an idle one balances at the interval itself
 * (and pulls at once when it goes idle, sp_sim_pull). A busy CPU that
 * balanced every SP_BALANCE_NS would move hogs far more often than the
 * kernel does. */
#define SP_BALANCE_BUSY_MIN_NS (16ull * 2 * 1000 * 1000)
#define SP_BALANCE_BUSY_MAX_NS (16ull * 4 * 1000 * 1000)

/* Every SP_BALANCE_NS (linux model), as load_balance() between two CPUs
 * of one domain: the CPU with the most fair load (the weights of its
 * runnable fair tasks, each times its PELT-like runnable share) gives one
 * queued task to the CPU with the least, the heaviest one whose load is at
 * most half the gap (calculate_imbalance()'s migrate_load: the move may
 * not reverse it), that load halved once for every balance before that
 * found more than 117 % (the MC domain's imbalance_pct) and moved nothing
 * (detach_tasks() shifts it right by nr_balance_failed): so four nice-0
 * hogs end up two per CPU even beside a critical nice -10 thread and
 * eight nice-19 readers that sit on one of them (3072 against 1024 + 100:
 * a hog of 1024 is more than half the gap and moves at the second try).
 * A move, or a balance within 117 %, clears the count. */
void sp_sim_sched_balance(struct sp_sim *s)
{
	int most = -1, least = -1;
	uint64_t lmost = 0, lleast = 0;
	int nmost = 0;
	struct sp_sim_thread *pick = NULL;

	for (uint32_t i = 0; i < s->ncpus; i++) {
		int n;
		uint64_t l = sp_sim_cpu_load(s, &s->cpus[i], &n);

		if (most < 0 || l > lmost) {
			most = (int)i;
			lmost = l;
			nmost = n;
		}
		if (least < 0 || l < lleast) {
			least = (int)i;
			lleast = l;
		}
	}
	if (!s->linux_model) {
		sp_balance_count(s);
		return;
	}
	if (s->now < s->balance_next)
		return;
	{
		const struct sp_sim_cpu *l = least >= 0 ? &s->cpus[least] : NULL;
		bool busy = l && l->curr && l->curr->state == SP_TS_RUNNABLE;
		bool unbalanced = most >= 0 && most != least && 100 * lmost > 117 * lleast;

		if (unbalanced || !s->balance_interval)
			s->balance_interval = SP_BALANCE_BUSY_MIN_NS;
		else if (s->balance_interval < SP_BALANCE_BUSY_MAX_NS)
			s->balance_interval *= 2;
		s->balance_next = s->now + (busy ? s->balance_interval : SP_BALANCE_NS);
	}
	if (most < 0 || most == least || nmost < 2)
		return;
	/* Within 117 % it is balanced (out_balanced): no failure counts, but a
	 * task that fits the gap still moves. Linux moves nothing there; this
	 * is a calibration kept against replays of traced runs: without it,
	 * readers gather on a critical writer's CPU and woken holders wait
	 * behind each other on one CPU far longer than on the real kernel. */
	if (100 * lmost <= 117 * lleast)
		s->balance_failed = 0;
	for (int j = s->cpus[most].nrq - 1; j >= 0; j--) {
		struct sp_sim_cpu *c = &s->cpus[most];
		struct sp_sim_thread *t = &s->th[c->rq[j]];
		uint64_t full = sp_sim_pelt_load(s, t), load;

		load = full >> (s->balance_failed < 32 ? s->balance_failed : 31);
		if (t->state == SP_TS_RUNNABLE && t->eff == 0 && c->curr != t && sp_sim_allowed(t, least) &&
		    2 * load <= lmost - lleast && (!pick || full > sp_sim_pelt_load(s, pick)))
			pick = t;
	}
	if (pick) {
		sp_sim_migrate(s, pick, &s->cpus[least]);
		s->balance_failed = 0;
	} else if (100 * lmost > 117 * lleast) {
		s->balance_failed++;
	}
}
