// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* `superpass sim --sweep`: P99.9 against one parameter, per policy. */
#include <stdbool.h>
#include <string.h>

#include "sim.h"
#include "sp_svg.h"

#define SW_MAX_COLS 24

static const char *sw_label(const struct sp_sim_result *r, char *buf, size_t cap)
{
	if (r->policy == SP_SIM_POL_SUPERPASS)
		snprintf(buf, cap, "superpass K=%u", r->k);
	else
		snprintf(buf, cap, "%s", sp_sim_policy_name(r->policy));
	return buf;
}

/* The columns: the runs of the first value, in order (with a K sweep,
 * superpass is one column whatever its K). */
static int sw_cols(const char *param, const struct sp_sim_result *rs, const int *vidx, int n,
		   char cols[][40])
{
	int nc = 0;

	for (int i = 0; i < n && vidx[i] == vidx[0] && nc < SW_MAX_COLS; i++) {
		if (!strcmp(param, "k") && rs[i].policy == SP_SIM_POL_SUPERPASS)
			snprintf(cols[nc++], 40, "superpass");
		else
			sw_label(&rs[i], cols[nc++], 40);
	}
	return nc;
}

static int sw_col_of(const char *param, const struct sp_sim_result *r, char cols[][40], int nc)
{
	char name[40];

	if (!strcmp(param, "k") && r->policy == SP_SIM_POL_SUPERPASS)
		snprintf(name, sizeof(name), "superpass");
	else
		sw_label(r, name, sizeof(name));
	for (int c = 0; c < nc; c++)
		if (!strcmp(cols[c], name))
			return c;
	return -1;
}

void sim_print_sweep(FILE *f, const char *scenario, const char *param, const int64_t *vals,
		     int nv, const struct sp_sim_result *rs, const int *vidx, int n)
{
	char cols[SW_MAX_COLS][40];
	int nc = n ? sw_cols(param, rs, vidx, n, cols) : 0;

	fprintf(f, "\n== %s: P99.9 blocking (ms) against %s; blockings per run in brackets\n",
		scenario, param);
	fprintf(f, "%-8s", param);
	for (int c = 0; c < nc; c++)
		fprintf(f, " %20s", cols[c]);
	fprintf(f, "\n");
	for (int v = 0; v < nv; v++) {
		char cell[SW_MAX_COLS][48];

		for (int c = 0; c < nc; c++)
			snprintf(cell[c], sizeof(cell[c]), "-");
		for (int i = 0; i < n; i++) {
			int c;

			if (vidx[i] != v || (c = sw_col_of(param, &rs[i], cols, nc)) < 0)
				continue;
			snprintf(cell[c], sizeof(cell[c]), "%.2f (%llu)", (double)rs[i].p999 / 1e6,
				 (unsigned long long)rs[i].blockings);
		}
		fprintf(f, "%-8lld", (long long)vals[v]);
		for (int c = 0; c < nc; c++)
			fprintf(f, " %20s", cell[c]);
		fprintf(f, "\n");
	}
}

/* The swept parameter as an axis name, with its unit. */
static const char *sw_axis_name(const char *param)
{
	if (!strcmp(param, "k"))
		return "K: readers superpass tracks per lock";
	if (!strcmp(param, "holders"))
		return "holders: instances of each task that takes a lock";
	if (!strcmp(param, "nice"))
		return "nice of the tasks that take a lock";
	if (!strcmp(param, "cs_us"))
		return "critical section length (us)";
	return param;
}

/* Whether columns @c and @d have the same P99.9 at every value (the line
 * drawn later would hide the other). */
static bool sw_same_line(const char *param, const struct sp_sim_result *rs, const int *vidx, int n,
			 char cols[][40], int nc, int c, int d)
{
	for (int i = 0; i < n; i++) {
		int found = 0;

		if (sw_col_of(param, &rs[i], cols, nc) != c)
			continue;
		for (int j = 0; j < n; j++)
			if (vidx[j] == vidx[i] && sw_col_of(param, &rs[j], cols, nc) == d)
				found = rs[j].p999 == rs[i].p999 ? 1 : -1;
		if (found != 1)
			return false;
	}
	return true;
}

/* The SVG: P99.9 in ms on a log axis (one policy's can be 1000 times
 * another's), one curve per column, the swept values evenly spaced. */
int sim_write_sweep_svg(FILE *f, const char *title, const char *param, const int64_t *vals,
			int nv, const struct sp_sim_result *rs, const int *vidx, int n)
{
	const double W = 780, L = 64, R = 270, T = 62, B = 76;
	char cols[SW_MAX_COLS][40], note[64], lab[32];
	int nc = n ? sw_cols(param, rs, vidx, n, cols) : 0;
	double lo = 0, hi = 0, legend_h = 14, last = -1e9, H, x0, x1, ly;
	struct sp_svg_axis ay;
	int same[SW_MAX_COLS];
	bool zero = false;

	for (int i = 0; i < n; i++) {
		double v = (double)rs[i].p999 / 1e6;

		zero |= v <= 0 && sw_col_of(param, &rs[i], cols, nc) >= 0;
		lo = v > 0 && (lo == 0 || v < lo) ? v : lo;
		hi = v > hi ? v : hi;
	}
	for (int c = 0; c < nc; c++) {
		same[c] = -1;
		for (int d = 0; d < c && same[c] < 0; d++)
			same[c] = sw_same_line(param, rs, vidx, n, cols, nc, c, d) ? d : -1;
		legend_h += same[c] < 0 ? 20 : 32;
	}
	H = T + (legend_h > 300 ? legend_h : 300) + B;
	x0 = L + 24;
	x1 = W - R - 24;
	sp_svg_begin(f, (int)W, (int)H);
	sp_svg_title(f, 10, 22, W - 20, "%s: P99.9 blocking against %s", title, param);
	sp_svg_axis_init(&ay, lo, hi, true, H - B, T);
	sp_svg_axis_y(f, &ay, L, W - R, 10, "P99.9 blocking (ms, log scale)");
	for (int v = 0; v < nv; v++) {
		snprintf(lab, sizeof(lab), "%lld", (long long)vals[v]);
		sp_svg_xtick(f, nv > 1 ? x0 + (double)v / (nv - 1) * (x1 - x0) : (x0 + x1) / 2, T, H - B,
			     lab, &last);
	}
	sp_svg_xlabel(f, L, W - R, H - B, sw_axis_name(param));
	if (zero)
		sp_svg_text(f, L, H - B + 52, 11, "start", "fill=\"#555\"",
			    "a point on the bottom edge: no blocking at that value");
	sp_svg_frame(f, L, T, W - L - R, H - T - B);
	sp_svg_text(f, W - R + 16, T - 12, 11, "start", "fill=\"#555\"", "policy");
	ly = T + 14;
	for (int c = 0; c < nc; c++) {
		struct sp_svg_style st = sp_svg_style(c);

		sp_svg_line_begin(f, &st);
		for (int pass = 0; pass < 2; pass++) {
			for (int i = 0; i < n; i++) {
				double x, y;

				if (sw_col_of(param, &rs[i], cols, nc) != c)
					continue;
				x = nv > 1 ? x0 + (double)vidx[i] / (nv - 1) * (x1 - x0) : (x0 + x1) / 2;
				y = sp_svg_axis_pos(&ay, (double)rs[i].p999 / 1e6);
				if (pass == 0)
					sp_svg_line_point(f, x, y);
				else
					sp_svg_marker(f, x, y, &st);
			}
			if (pass == 0)
				sp_svg_line_end(f);
		}
		if (same[c] >= 0)
			snprintf(note, sizeof(note), "same line as %s", cols[same[c]]);
		ly += sp_svg_legend(f, W - R + 16, ly, &st, cols[c], same[c] >= 0 ? note : NULL);
	}
	sp_svg_end(f);
	return ferror(f) ? -1 : 0;
}
