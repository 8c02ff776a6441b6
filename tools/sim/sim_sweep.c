// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* `superpass sim --sweep`: P99.9 against one parameter, per policy. */
#include <math.h>
#include <string.h>

#include "sim.h"

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

static const char *const sw_colors[] = { "#444444", "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
					 "#8c564b", "#d62728", "#e377c2", "#17becf", "#bcbd22" };

int sim_write_sweep_svg(FILE *f, const char *title, const char *param, const int64_t *vals,
			int nv, const struct sp_sim_result *rs, const int *vidx, int n)
{
	const double W = 720, H = 420, L = 70, R = 200, T = 40, B = 50;
	char cols[SW_MAX_COLS][40];
	int nc = n ? sw_cols(param, rs, vidx, n, cols) : 0;
	double top = 0;

	for (int i = 0; i < n; i++)
		top = (double)rs[i].p999 / 1e6 > top ? (double)rs[i].p999 / 1e6 : top;
	if (top <= 0)
		top = 1;
	top = pow(10, ceil(log10(top) * 4) / 4);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "font-family=\"sans-serif\" font-size=\"12\">\n", W, H);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"22\" font-size=\"14\">%s: P99.9 blocking against %s</text>\n",
		L, title, param);
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
		   "stroke=\"black\"/>\n", L, T, W - L - R, H - T - B);
	for (int q = 0; q <= 4; q++) {
		double y = H - B - q / 4.0 * (H - T - B);

		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.3g ms</text>\n", L - 6,
			y + 4, top * q / 4.0);
	}
	for (int v = 0; v < nv; v++) {
		double x = L + (nv > 1 ? (double)v / (nv - 1) : 0.5) * (W - L - R);

		fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%lld</text>\n", x,
			H - B + 16, (long long)vals[v]);
	}
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
		L + (W - L - R) / 2, H - 12, param);
	for (int c = 0; c < nc; c++) {
		const char *col = sw_colors[c % (int)(sizeof(sw_colors) / sizeof(sw_colors[0]))];

		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" fill=\"%s\">%s</text>\n", W - R + 10,
			T + 16 + 18 * c, col, cols[c]);
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", col);
		for (int i = 0; i < n; i++) {
			double x, y;

			if (sw_col_of(param, &rs[i], cols, nc) != c)
				continue;
			x = L + (nv > 1 ? (double)vidx[i] / (nv - 1) : 0.5) * (W - L - R);
			y = H - B - (double)rs[i].p999 / 1e6 / top * (H - T - B);
			fprintf(f, "%.1f,%.1f ", x, y);
		}
		fprintf(f, "\"/>\n");
	}
	fprintf(f, "</svg>\n");
	return ferror(f) ? -1 : 0;
}
