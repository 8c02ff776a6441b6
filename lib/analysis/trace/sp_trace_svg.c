// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The analysis as an SVG picture (`superpass analyze --svg`): for each
 * selected thread, its blocking CDF on a log time axis and, beside it, how
 * its blockers spent the time it was blocked, as bars on a scale in ms.
 */
#include <errno.h>
#include <inttypes.h>

#include <superpass/trace.h>

#include "sp_svg.h"

static const char *const state_name[SP_TST_NR] = { "unknown", "running", "runnable", "sleeping",
						   "blocked" };
static const char *const state_color[SP_TST_NR] = { "#cccccc", "#2e7d32", "#c62828", "#9e9e9e",
						    "#ef6c00" };

#define PANEL_H 330
#define TOP 40

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static const char *comm_of(const struct sp_trace_analysis *a, uint32_t id)
{
	const struct sp_trace_thread *t = sp_trace_thread_get(a, id);

	return t ? t->comm : "?";
}

/* The blocking CDF, at the left of a panel whose plots span @py..@py+@ph. */
static void cdf_plot(FILE *f, const struct sp_trace_result *r, double py, double ph)
{
	const double px = 64, pw = 360;
	struct sp_svg_axis ax, ay;
	struct sp_svg_style st = { "#1f77b4", "", SP_SVG_SQUARE }; /* one curve: solid */
	double lo = 0, hi = 0;

	sp_svg_hist_range(&r->hist, &lo, &hi);
	sp_svg_cdf_axes(&ax, &ay, lo, hi, px, px + pw, py, py + ph);
	sp_svg_axis_x(f, &ax, py, py + ph, "blocking duration (ms, log scale); marks: P50, max");
	sp_svg_axis_y(f, &ay, px, px + pw, 10, "share of blockings at or below (CDF)");
	sp_svg_frame(f, px, py, pw, ph);
	sp_svg_hist_cdf(f, &ax, &ay, &r->hist, &st);
}

/* Each blocker's time while the thread was blocked, split by the state
 * it was in, on one ms scale: the thread's whole blocking time is the
 * axis's length. */
static void blocker_bars(FILE *f, const struct sp_trace_analysis *a,
			 const struct sp_trace_result *r, double py, double ph)
{
	const double bx = 600, bw = 340;
	uint32_t nb = r->nr_blockers < 8 ? r->nr_blockers : 8;
	double bh = nb ? (ph - 6.0 * (nb + 1)) / nb : 0, top = ms(r->blocking_ns);
	struct sp_svg_axis ax;
	char label[96];

	bh = bh > 22 ? 22 : bh;
	for (uint32_t b = 0; b < nb; b++) {
		double sum = 0;

		for (int s = 0; s < SP_TST_NR; s++)
			sum += ms(r->blockers[b].split.ns[s]);
		top = sum > top ? sum : top;
	}
	sp_svg_axis_init(&ax, 0, top > 0 ? top : 1, false, bx, bx + bw);
	sp_svg_text(f, bx - 110, py - 12, 12, "start", NULL, "blockers: their state while %s was blocked",
		    comm_of(a, r->thread_id));
	snprintf(label, sizeof(label), "time (ms); dashed line: whole blocking time, %.3g ms",
		 ms(r->blocking_ns));
	sp_svg_axis_x(f, &ax, py, py + ph, label);
	sp_svg_frame(f, bx, py, bw, ph);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\" "
		   "stroke-dasharray=\"5,4\"/>\n", sp_svg_axis_pos(&ax, ms(r->blocking_ns)), py,
		sp_svg_axis_pos(&ax, ms(r->blocking_ns)), py + ph);
	if (!nb)
		sp_svg_text(f, bx + bw / 2, py + ph / 2, 12, "middle", NULL, "no blocker seen");
	for (uint32_t b = 0; b < nb; b++) {
		const struct sp_trace_blocker *x = &r->blockers[b];
		double y = py + 6 + b * (bh + 6), at = 0;

		sp_svg_text(f, bx - 4, y + bh / 2 + 3.5, 10, "end", NULL, "%s", comm_of(a, x->thread_id));
		for (int s = 1; s <= SP_TST_NR; s++) {
			int st = s % SP_TST_NR; /* unknown last */
			double x0 = sp_svg_axis_pos(&ax, at), x1;

			if (!x->split.ns[st])
				continue;
			at += ms(x->split.ns[st]);
			x1 = sp_svg_axis_pos(&ax, at);
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
				x0, y, x1 - x0, bh, state_color[st]);
		}
	}
	for (int s = 1; s <= SP_TST_NR; s++) {
		int st = s % SP_TST_NR;
		double lx = bx - 40 + (s - 1) * 76, ly = py + ph + 46;

		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>\n", lx, ly,
			state_color[st]);
		sp_svg_text(f, lx + 13, ly + 9, 10, "start", NULL, "%s", state_name[st]);
	}
}

int sp_trace_write_svg(const struct sp_trace_analysis *a, FILE *f)
{
	size_t nr = sp_trace_nr_results(a), shown = nr < 6 ? nr : 6;
	const int W = 960;

	sp_svg_begin(f, W, (int)(TOP + (shown ? shown : 1) * PANEL_H));
	sp_svg_title(f, 10, 22, W - 20, "superpass analyze: blocking of the critical threads, and "
		     "where their blockers' time went");
	if (!nr)
		sp_svg_text(f, 10, 60, 12, "start", NULL, "no blocking episode");
	for (size_t i = 0; i < shown; i++) {
		const struct sp_trace_result *r = sp_trace_result_get(a, i);
		const struct sp_trace_thread *t = sp_trace_thread_get(a, r->thread_id);
		double y0 = TOP + (double)i * PANEL_H, py = y0 + 62, ph = 190;

		sp_svg_text(f, 10, y0 + 18, 13, "start", "font-weight=\"bold\"",
			    "%s (tid %d): %" PRIu64 " blockings, P99.9 %.3f ms, max %.3f ms; blockers "
			    "runnable %.0f %% of it", t ? t->comm : "?", t ? t->tid : 0,
			    r->blockings, ms(sp_hist_quantile(&r->hist, 999, 1000)), ms(r->hist.max),
			    r->blocking_ns ? 100.0 * (double)r->runnable_ns / (double)r->blocking_ns : 0);
		cdf_plot(f, r, py, ph);
		blocker_bars(f, a, r, py, ph);
	}
	sp_svg_end(f);
	return ferror(f) ? -EIO : 0;
}
