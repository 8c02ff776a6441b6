// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libFuzzer target: arbitrary bytes as an ftrace text trace, through the
 * reader, the analysis (every thread selected, spinlocks on, a short merge
 * and history window) and every report; and each line through the
 * parser with and without its fast prefixes (the kernel layout's and the
 * vector masks'), which must agree (an abort if not). Built by tests/fuzz
 * (ctest fuzz.trace) and by run-fuzz.sh.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <superpass/trace.h>

#include "sp_parse_agree.h"
#include "sp_trace_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Each line of @data, as the reader cuts them, by both parsers. */
static void masked_same_as_scalar(const char *data, size_t size)
{
	const char *p = data, *end = data + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *wa, *wb;
		char *line = malloc(len ? len : 1); /* exactly the line, for ASan */
		int ra, rb;

		if (!line)
			return;
		memcpy(line, p, len);
		if (!sp_parsers_agree(line, len, &ra, &rb, &wa, &wb)) {
			fprintf(stderr, "masked and scalar parsers differ on '%.*s': %d / %d\n",
				(int)len, line, ra, rb);
			abort();
		}
		free(line);
		if (!nl)
			break;
		p = nl + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_trace_analysis *a;
	struct sp_trace_opts o;
	struct sp_trace_diag d;
	FILE *f, *out;

	if (!size)
		return 0;
	masked_same_as_scalar((const char *)data, size);
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
		sp_trace_write_json(a, &d, out, 3);
		sp_trace_write_chrome(a, out);
		sp_trace_write_svg(a, out);
		fclose(out);
	}
	sp_trace_analysis_destroy(a);
	return 0;
}
