// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A program built against an installed libsuperpass: its headers, its
 * library, its version. */
#include <stdio.h>
#include <stdlib.h>

#include <superpass/hist.h>
#include <superpass/version.h>

int main(void)
{
	struct sp_hist *h = malloc(sizeof(*h));

	if (!h)
		return 1;
	sp_hist_init(h);
	for (unsigned int v = 1; v <= 100; v++)
		sp_hist_record(h, v);
	printf("superpass %s: %llu values, max %llu\n", SUPERPASS_VERSION,
	       (unsigned long long)h->count,
	       (unsigned long long)sp_hist_quantile(h, 1, 1));
	free(h);
	return 0;
}
