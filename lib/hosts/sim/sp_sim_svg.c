// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The blocking CDF of each policy's run as one SVG picture (`superpass sim
 * --svg`, `superpass replay --svg`): log time axis, a curve per policy in
 * its own dash and marker, and a legend that says which curves are the
 * same (one would hide the other).
 */
#include <errno.h>

#include "sp_sim_internal.h"
#include "sp_svg.h"

/* The first run before @i whose curve is @i's, or -1. */
static int sp_same_as(const struct sp_sim_result *rs, int i)
{
	for (int j = 0; j < i; j++)
		if (sp_svg_hist_same(&rs[j].hist, &rs[i].hist))
			return j;
	return -1;
}

int sp_sim_write_svg(FILE *f, const struct sp_sim_result *rs, int n, const char *title)
{
	const double W = 780, L = 64, R = 270, T = 62, B = 58;
	double lo = 0, hi = 0, ly = T + 14, legend_h = 14, H;
	struct sp_svg_axis ax, ay;
	char name[64], other[40], note[64];

	for (int i = 0; i < n; i++) {
		sp_svg_hist_range(&rs[i].hist, &lo, &hi);
		legend_h += rs[i].hist.count && sp_same_as(rs, i) < 0 ? 20 : 32;
	}
	H = T + (legend_h > 320 ? legend_h : 320) + B;
	sp_svg_begin(f, (int)W, (int)H);
	sp_svg_title(f, 10, 22, W - 20, "%s: blocking CDF per policy", title ? title : "");
	sp_svg_cdf_axes(&ax, &ay, lo, hi, L, W - R, T, H - B);
	sp_svg_axis_x(f, &ax, T, H - B, "blocking duration (ms, log scale)");
	sp_svg_axis_y(f, &ay, L, W - R, 10, "share of blockings at or below (CDF)");
	sp_svg_frame(f, L, T, W - L - R, H - T - B);
	sp_svg_text(f, W - R + 16, T - 12, 11, "start", "fill=\"#555\"",
		    "policy (blockings); marks: P50, max");
	for (int i = 0; i < n; i++) {
		struct sp_svg_style st = sp_svg_style(i);
		int j = sp_same_as(rs, i);

		sp_svg_hist_cdf(f, &ax, &ay, &rs[i].hist, &st);
		snprintf(name, sizeof(name), "%s (%llu)", sp_sim_policy_label(&rs[i], other, sizeof(other)),
			 (unsigned long long)rs[i].hist.count);
		if (!rs[i].hist.count)
			snprintf(note, sizeof(note), "no blocking: no curve");
		else if (j >= 0)
			snprintf(note, sizeof(note), "same curve as %s",
				 sp_sim_policy_label(&rs[j], other, sizeof(other)));
		ly += sp_svg_legend(f, W - R + 16, ly, &st, name, rs[i].hist.count && j < 0 ? NULL : note);
	}
	sp_svg_end(f);
	return ferror(f) ? -EIO : 0;
}
