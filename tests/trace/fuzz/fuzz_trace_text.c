// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libFuzzer target: arbitrary bytes as an ftrace text trace, through the
 * reader, the analysis (every thread selected, spinlocks on, a short merge
 * and history window) and every report. Built and run by run-fuzz.sh.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <superpass/trace.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_trace_analysis *a;
	struct sp_trace_opts o;
	struct sp_trace_diag d;
	FILE *f, *out;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	sp_trace_opts_default(&o);
	o.spin = true;
	o.window_ns = 1000000;
	if (sp_trace_analysis_create(&o, &a)) {
		fclose(f);
		return 0;
	}
	sp_trace_diag_init(&d);
	sp_trace_read_text(f, sp_trace_analysis_feed, a, &d);
	fclose(f);
	sp_trace_analysis_finish(a);
	out = fopen("/dev/null", "w");
	if (out) {
		sp_trace_print_summary(out, a, 3);
		sp_trace_diag_print(out, "fuzz", &d);
		fclose(out);
	}
	sp_trace_write_json(a, &d, "/dev/null", 3);
	sp_trace_write_chrome(a, "/dev/null");
	sp_trace_write_svg(a, "/dev/null");
	sp_trace_analysis_destroy(a);
	return 0;
}
