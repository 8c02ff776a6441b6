/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The masked parser and the byte-by-byte one on one line, for the test that
 * compares them (test_trace_masked) and the fuzz target that does so on
 * every line it is given (both link the parser: superpass_trace_parse).
 */
#ifndef SP_PARSE_AGREE_H
#define SP_PARSE_AGREE_H

#include <stdbool.h>
#include <string.h>

#include "sp_trace_parse.h"

/* Both parsers on [line, line + n), which the caller copied to exactly n
 * bytes so that a read past it is ASan's: true when their verdicts, reasons
 * and events are the same, byte for byte (each event starts from a
 * different fill, so a field one leaves unset shows). The verdicts and
 * reasons come back for the caller's message. */
static inline bool sp_parsers_agree(const char *line, size_t n, int *ra, int *rb,
				    const char **wa, const char **wb)
{
	struct sp_trace_event a, b;

	*wa = NULL;
	*wb = NULL;
	memset(&a, 0x5a, sizeof(a));
	memset(&b, 0xa5, sizeof(b));
	*ra = sp_trace_parse_line_nul(line, n, &a, wa, -1);
	*rb = sp_trace_parse_line_scalar(line, n, &b, wb, -1);
	return *ra == *rb && (*wa == NULL) == (*wb == NULL) && (!*wa || !strcmp(*wa, *wb)) &&
	       !memcmp(&a, &b, sizeof(a));
}

#endif /* SP_PARSE_AGREE_H */
