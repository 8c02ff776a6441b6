/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The bucket of a value in struct sp_hist, for the core's concurrent
 * recorder, which keeps its own atomic copy of the buckets (sp_stats.c). */
#ifndef SP_HIST_INDEX_H
#define SP_HIST_INDEX_H

#include <superpass/hist.h>

uint32_t sp_hist_index(uint64_t value);

#endif /* SP_HIST_INDEX_H */
