/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Interposer-only real functions (beyond struct sp_real_ops). */
#ifndef SP_PRELOAD_H
#define SP_PRELOAD_H

#include <pthread.h>

#include "sp_rt.h" /* sp_real_resolve(), with struct sp_real_ops */

/* As SP_REAL_OPS (sp_rt.h). */
#define SP_REAL_EXTRA_OPS(X)                                                               \
	X(cond_wait, (pthread_cond_t *c, pthread_mutex_t *m), (c, m))                      \
	X(cond_timedwait, (pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t), \
	  (c, m, t))                                                                       \
	X(cond_clockwait,                                                                  \
	  (pthread_cond_t *c, pthread_mutex_t *m, clockid_t k, const struct timespec *t),  \
	  (c, m, k, t))

struct sp_real_extra {
	SP_REAL_EXTRA_OPS(SP_REAL_FIELD)
};
/* Like sp_real, valid from the start: until resolved, each pointer leads
 * to a stand-in that resolves them (sp_real_next.c). */
extern struct sp_real_extra sp_real_x;

/* sp_preload_env.c: the SUPERPASS_* settings. */
int sp_pl_secure(void); /* AT_SECURE: no setting from the environment */
/* SUPERPASS_STATS if set, valid and allowed; else NULL. */
const char *sp_pl_stats_template(void);
/* Expands "%p" to the pid into @out; -ENAMETOOLONG if it does not fit. */
int sp_pl_stats_path(char *out, size_t cap, const char *tmpl);

#endif /* SP_PRELOAD_H */
