/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the SVG pictures of `superpass sim`, `sim --sweep`, `analyze` and
 * `replay` share, so that they read alike: escaped text, axes with labels
 * and units and tick labels that never collide (linear, or log at 1-2-5 or
 * decades), series that differ in dash and marker as well as colour (two
 * identical curves stay visible), a legend that can say "same as X", and
 * the blocking CDF of a histogram. Header-only like the rest of lib/util:
 * each library that draws keeps its own copy, local to it.
 */
#ifndef SP_SVG_H
#define SP_SVG_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <superpass/hist.h>

#define SP_SVG_TICK_FONT 11
#define SP_SVG_MAX_TICKS 40

/* The width a line of @n characters takes at @size px: the estimate the
 * layout (and tests/svg) use; DejaVu Sans averages a little less. */
static inline double sp_svg_text_width(int size, size_t n)
{
	return 0.6 * size * (double)n;
}

/* @s as XML character data: markup escaped, control bytes and bytes that
 * are not UTF-8 (a thread's comm can hold any) as '?'. */
static inline void sp_svg_escape(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 :
			     (*p & 0xf8) == 0xf0 ? 3 : 4;
		unsigned k;

		for (k = 1; n && n < 4 && k <= n && (p[k] & 0xc0) == 0x80; k++)
			;
		if (n && (n == 4 || k <= n)) {
			fputc('?', f);
			p++;
			continue;
		}
		if (n) {
			fwrite(p, 1, n + 1, f);
			p += n + 1;
			continue;
		}
		switch (*p) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, f);
		}
		p++;
	}
}

/* One line of text at (@x, @y) (the baseline), @anchor "start", "middle"
 * or "end", @attrs more attributes or NULL. If it would be wider than
 * @maxw px (0: no limit), its head is cut and "..." shown instead: the
 * tail of a path is what tells it. */
static inline void __attribute__((format(printf, 8, 0)))
sp_svg_vtext(FILE *f, double x, double y, int size, const char *anchor, const char *attrs,
	     double maxw, const char *fmt, va_list ap)
{
	char buf[512];
	const char *s = buf;
	size_t n;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	if (maxw > 0 && sp_svg_text_width(size, n) > maxw) {
		size_t keep = (size_t)(maxw / sp_svg_text_width(size, 1));

		keep = keep > 3 ? keep - 3 : 0;
		s = buf + n - keep;
		while (((unsigned char)*s & 0xc0) == 0x80) /* not inside a UTF-8 sequence */
			s++;
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\"%s%s>", x, y, size,
		anchor, attrs ? " " : "", attrs ? attrs : "");
	if (s != buf)
		fputs("...", f);
	sp_svg_escape(f, s);
	fputs("</text>\n", f);
}

static inline void __attribute__((format(printf, 7, 8)))
sp_svg_text(FILE *f, double x, double y, int size, const char *anchor, const char *attrs,
	    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sp_svg_vtext(f, x, y, size, anchor, attrs, 0, fmt, ap);
	va_end(ap);
}

/* A title that fits in @maxw px. */
static inline void __attribute__((format(printf, 5, 6)))
sp_svg_title(FILE *f, double x, double y, double maxw, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sp_svg_vtext(f, x, y, 14, "start", NULL, maxw, fmt, ap);
	va_end(ap);
}

static inline void sp_svg_begin(FILE *f, int w, int h)
{
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "font-family=\"sans-serif\" font-size=\"12\">\n", w, h);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
}

static inline void sp_svg_end(FILE *f)
{
	fprintf(f, "</svg>\n");
}

static inline void sp_svg_frame(FILE *f, double x, double y, double w, double h)
{
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		   "stroke=\"#444\"/>\n", x, y, w, h);
}

/* ---- axes ---- */
struct sp_svg_axis {
	double lo, hi; /* the values at the two ends, in the axis's unit */
	double p0, p1; /* their pixels */
	bool log;
};

/* The 1-2-5 step at or below (@up: at or above) @v > 0. */
static inline double sp_svg_nice(double v, bool up)
{
	double d = pow(10, floor(log10(v))), m = v / d;
	static const double steps[] = { 1, 2, 5, 10 };

	if (up) {
		for (int i = 0; i < 4; i++)
			if (m <= steps[i] * (1 + 1e-9))
				return steps[i] * d;
	}
	for (int i = 3; i >= 0; i--)
		if (m >= steps[i] * (1 - 1e-9))
			return steps[i] * d;
	return d;
}

/* An axis from @lo to @hi, widened to round values: for a log axis to
 * 1-2-5 steps (@lo > 0; a zero or negative @lo becomes @hi / 10), for a
 * linear one to a multiple of its tick step. */
static inline void sp_svg_axis_init(struct sp_svg_axis *a, double lo, double hi, bool log,
				    double p0, double p1)
{
	a->log = log;
	a->p0 = p0;
	a->p1 = p1;
	if (log) {
		if (!(hi > 0))
			hi = 1;
		if (!(lo > 0) || lo > hi)
			lo = hi / 10;
		if (hi / lo < 2) {
			lo /= 1.5;
			hi *= 1.5;
		}
		a->lo = sp_svg_nice(lo, false);
		a->hi = sp_svg_nice(hi, true);
		/* ticks at decades only (sp_svg_axis_ticks): end on decades */
		if (a->hi / a->lo > 1001) {
			a->lo = pow(10, floor(log10(a->lo) + 1e-9));
			a->hi = pow(10, ceil(log10(a->hi) - 1e-9));
		}
	} else {
		double step;

		if (!(hi > lo))
			hi = lo + 1;
		step = sp_svg_nice((hi - lo) / 5, true);
		a->lo = floor(lo / step + 1e-9) * step;
		a->hi = ceil(hi / step - 1e-9) * step;
	}
}

/* The pixel of @v, clamped to the axis. */
static inline double sp_svg_axis_pos(const struct sp_svg_axis *a, double v)
{
	double t;

	if (a->log)
		t = v > 0 ? log10(v / a->lo) / log10(a->hi / a->lo) : 0;
	else
		t = (v - a->lo) / (a->hi - a->lo);
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	return a->p0 + t * (a->p1 - a->p0);
}

/* The ticks: a log axis at 1, 2 and 5 of each decade when it spans three
 * decades or fewer, else at decades; a linear one at a 1-2-5 step. */
static inline int sp_svg_axis_ticks(const struct sp_svg_axis *a, double *t, int max)
{
	int n = 0;

	if (a->log) {
		bool fine = a->hi / a->lo <= 1001;

		for (double d = pow(10, floor(log10(a->lo) + 1e-9)); d <= a->hi * 1.000001 && n < max;
		     d *= 10) {
			static const double m[] = { 1, 2, 5 };

			for (int i = 0; i < (fine ? 3 : 1) && n < max; i++) {
				double v = d * m[i];

				if (v >= a->lo * 0.999999 && v <= a->hi * 1.000001)
					t[n++] = v;
			}
		}
	} else {
		double step = sp_svg_nice((a->hi - a->lo) / 5, true);

		for (double v = a->lo; v <= a->hi + step * 1e-6 && n < max; v += step)
			t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	}
	return n;
}

/* @v as a tick label: no exponent, no trailing zeros. */
static inline const char *sp_svg_num(double v, char *buf, size_t cap)
{
	int d = 0;

	while (d < 9 && fabs(v * pow(10, d) - round(v * pow(10, d))) > 1e-6 * pow(10, d))
		d++;
	snprintf(buf, cap, "%.*f", d, v);
	return buf;
}

/* One tick of a horizontal axis at @x on a plot from @top to @bottom:
 * grid line, tick, and @label unless it would touch the one before, which
 * ended at *@last px (start with -1e9). */
static inline void sp_svg_xtick(FILE *f, double x, double top, double bottom, const char *label,
				double *last)
{
	double w = sp_svg_text_width(SP_SVG_TICK_FONT, strlen(label));

	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", x,
		top, x, bottom);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n", x,
		bottom, x, bottom + 4);
	if (x - w / 2 < *last + 6)
		return;
	sp_svg_text(f, x, bottom + 16, SP_SVG_TICK_FONT, "middle", NULL, "%s", label);
	*last = x + w / 2;
}

/* The name of a horizontal axis from @left to @right, under its ticks. */
static inline void sp_svg_xlabel(FILE *f, double left, double right, double bottom,
				 const char *label)
{
	sp_svg_text(f, (left + right) / 2, bottom + 34, 12, "middle", "class=\"axis-label\"", "%s",
		    label);
}

/* A horizontal axis at the bottom of a plot from @top to @bottom: grid,
 * tick labels (one is left out where it would touch its neighbour) and
 * @label centred below. */
static inline void sp_svg_axis_x(FILE *f, const struct sp_svg_axis *a, double top, double bottom,
				 const char *label)
{
	double t[SP_SVG_MAX_TICKS], last = -1e9;
	int n = sp_svg_axis_ticks(a, t, SP_SVG_MAX_TICKS);

	for (int i = 0; i < n; i++) {
		char s[32];

		sp_svg_xtick(f, sp_svg_axis_pos(a, t[i]), top, bottom, sp_svg_num(t[i], s, sizeof(s)),
			     &last);
	}
	sp_svg_xlabel(f, a->p0, a->p1, bottom, label);
}

/* A vertical axis at the left of a plot from @left to @right: grid, tick
 * labels, and @label above the plot, level with it, at @label_x. */
static inline void sp_svg_axis_y(FILE *f, const struct sp_svg_axis *a, double left, double right,
				 double label_x, const char *label)
{
	double t[SP_SVG_MAX_TICKS], last = 1e9;
	int n = sp_svg_axis_ticks(a, t, SP_SVG_MAX_TICKS);

	for (int i = 0; i < n; i++) {
		double y = sp_svg_axis_pos(a, t[i]);
		char s[32];

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n",
			left, y, right, y);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n",
			left - 4, y, left, y);
		if (y > last - SP_SVG_TICK_FONT - 3)
			continue;
		sp_svg_text(f, left - 7, y + 4, SP_SVG_TICK_FONT, "end", NULL, "%s",
			    sp_svg_num(t[i], s, sizeof(s)));
		last = y;
	}
	sp_svg_text(f, label_x, fmin(a->p0, a->p1) - 12, 12, "start", "class=\"axis-label\"", "%s",
		    label);
}

/* ---- series ---- */
enum { SP_SVG_CIRCLE, SP_SVG_SQUARE, SP_SVG_TRIANGLE, SP_SVG_DIAMOND, SP_SVG_CROSS, SP_SVG_PLUS,
       SP_SVG_NR_MARKERS };

struct sp_svg_style {
	const char *color, *dash;
	int marker;
};

/* Series @i's look: colour, dash and marker each differ from its
 * neighbours', so a curve drawn over another leaves it showing. */
static inline struct sp_svg_style sp_svg_style(int i)
{
	static const char *const colors[] = { "#444444", "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
					      "#8c564b", "#d62728", "#e377c2", "#17becf", "#bcbd22" };
	static const char *const dashes[] = { "", "8,3", "2,3", "10,3,2,3", "5,5", "14,4,4,4,4,4",
					      "1,4" };
	struct sp_svg_style s = { colors[i % 10], dashes[i % 7], i % SP_SVG_NR_MARKERS };

	return s;
}

static inline void sp_svg_marker(FILE *f, double x, double y, const struct sp_svg_style *s)
{
	const double r = 4;

	fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" d=\"", s->color);
	switch (s->marker) {
	case SP_SVG_CIRCLE:
		fprintf(f, "M%.1f,%.1f a%.1f,%.1f 0 1,0 %.1f,0 a%.1f,%.1f 0 1,0 %.1f,0", x - r, y, r, r,
			2 * r, r, r, -2 * r);
		break;
	case SP_SVG_SQUARE:
		fprintf(f, "M%.1f,%.1f h%.1f v%.1f h%.1f z", x - r, y - r, 2 * r, 2 * r, -2 * r);
		break;
	case SP_SVG_TRIANGLE:
		fprintf(f, "M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f z", x, y - r - 1, x + r + 1, y + r,
			x - r - 1, y + r);
		break;
	case SP_SVG_DIAMOND:
		fprintf(f, "M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f L%.1f,%.1f z", x, y - r - 1, x + r + 1, y,
			x, y + r + 1, x - r - 1, y);
		break;
	case SP_SVG_CROSS:
		fprintf(f, "M%.1f,%.1f L%.1f,%.1f M%.1f,%.1f L%.1f,%.1f", x - r, y - r, x + r, y + r,
			x - r, y + r, x + r, y - r);
		break;
	default:
		fprintf(f, "M%.1f,%.1f h%.1f M%.1f,%.1f v%.1f", x - r - 1, y, 2 * r + 2, x, y - r - 1,
			2 * r + 2);
	}
	fprintf(f, "\"/>\n");
}

/* A polyline: begin, its points, end. */
static inline void sp_svg_line_begin(FILE *f, const struct sp_svg_style *s)
{
	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\"%s%s%s points=\"",
		s->color, *s->dash ? " stroke-dasharray=\"" : "", s->dash, *s->dash ? "\"" : "");
}

static inline void sp_svg_line_point(FILE *f, double x, double y)
{
	fprintf(f, "%.1f,%.1f ", x, y);
}

static inline void sp_svg_line_end(FILE *f)
{
	fprintf(f, "\"/>\n");
}

/* One legend entry at (@x, @y): a sample of the line with its marker,
 * @label, and under it @note in small grey type if not NULL (e.g. "same
 * as none"). Returns the height it took. */
static inline double sp_svg_legend(FILE *f, double x, double y, const struct sp_svg_style *s,
				   const char *label, const char *note)
{
	sp_svg_line_begin(f, s);
	sp_svg_line_point(f, x, y - 4);
	sp_svg_line_point(f, x + 28, y - 4);
	sp_svg_line_end(f);
	sp_svg_marker(f, x + 14, y - 4, s);
	sp_svg_text(f, x + 34, y, 12, "start", NULL, "%s", label);
	if (!note)
		return 20;
	sp_svg_text(f, x + 34, y + 13, 10, "start", "fill=\"#555\"", "%s", note);
	return 32;
}

/* ---- the blocking CDF of a histogram (times in ns, @ax in ms) ---- */
/* A step curve: at each bucket's value, the share of blockings at or below
 * it; markers at the median and at the largest. */
static inline void sp_svg_hist_cdf(FILE *f, const struct sp_svg_axis *ax,
				   const struct sp_svg_axis *ay, const struct sp_hist *h,
				   const struct sp_svg_style *s)
{
	double mx = 0, my = 0, lx = 0;
	uint64_t cum = 0;
	bool median = false;

	if (!h->count)
		return;
	sp_svg_line_begin(f, s);
	for (uint32_t b = 0; b < SP_HIST_BUCKETS; b++) {
		double x;

		if (!h->buckets[b])
			continue;
		x = sp_svg_axis_pos(ax, (double)sp_hist_bucket_value(b) / 1e6);
		sp_svg_line_point(f, x, sp_svg_axis_pos(ay, (double)cum / (double)h->count));
		cum += h->buckets[b];
		sp_svg_line_point(f, x, sp_svg_axis_pos(ay, (double)cum / (double)h->count));
		if (!median && 2 * cum >= h->count) {
			median = true;
			mx = x;
			my = sp_svg_axis_pos(ay, 0.5);
		}
		lx = x;
	}
	sp_svg_line_end(f);
	sp_svg_marker(f, mx, my, s);
	sp_svg_marker(f, lx, sp_svg_axis_pos(ay, 1), s);
}

/* Widens [@lo, @hi] (ms; 0 while unset) to the bucket values of @h. */
static inline void sp_svg_hist_range(const struct sp_hist *h, double *lo, double *hi)
{
	for (uint32_t b = 0; h->count && b < SP_HIST_BUCKETS; b++) {
		double v = (double)sp_hist_bucket_value(b) / 1e6;

		if (!h->buckets[b])
			continue;
		*lo = *lo == 0 || v < *lo ? v : *lo;
		*hi = v > *hi ? v : *hi;
	}
}

/* Whether @a and @b draw the same CDF (one would hide the other). */
static inline bool sp_svg_hist_same(const struct sp_hist *a, const struct sp_hist *b)
{
	return a->count == b->count && !memcmp(a->buckets, b->buckets, sizeof(a->buckets));
}

/* The axes of blocking CDFs: time in ms, log, over [@lo, @hi] and not
 * below 1 us; the share of blockings, 0 to 1. */
static inline void sp_svg_cdf_axes(struct sp_svg_axis *ax, struct sp_svg_axis *ay, double lo,
				   double hi, double left, double right, double top, double bottom)
{
	sp_svg_axis_init(ax, lo < 1e-3 ? 1e-3 : lo, hi > 0 ? hi : 1, true, left, right);
	sp_svg_axis_init(ay, 0, 1, false, bottom, top);
}

#endif
