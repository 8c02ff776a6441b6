// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The coverage workload with a GLib GRWLock (cov_workload.h), a
 * pthread_rwlock_t inside. The bg threads hold the read side, the ui takes
 * the write side: it waits for readers, whom the lock word does not name
 * (superpass's bounded reader tracker does). */
#include <glib.h>

#include "cov_workload.h"

static GRWLock cov_l; /* static storage: no g_rw_lock_init needed */

static void cov_wrlock(void)
{
	g_rw_lock_writer_lock(&cov_l);
}

static void cov_wrunlock(void)
{
	g_rw_lock_writer_unlock(&cov_l);
}

static void cov_rdlock(void)
{
	g_rw_lock_reader_lock(&cov_l);
}

static void cov_rdunlock(void)
{
	g_rw_lock_reader_unlock(&cov_l);
}

int main(int argc, char **argv)
{
	static const struct cov_lock_ops ops = { "glib_grwlock", cov_wrlock, cov_wrunlock,
						 cov_rdlock, cov_rdunlock };

	return cov_main(argc, argv, &ops);
}
