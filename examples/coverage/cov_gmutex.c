// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The coverage workload with a GLib GMutex (cov_workload.h): on Linux a
 * futex word of GLib's own (0 free, 1 held, 2 contended) and libc's
 * syscall(SYS_futex) to wait and wake; the word names no owner. */
#include <glib.h>

#include "cov_workload.h"

static GMutex cov_l; /* static storage: no g_mutex_init needed */

static void cov_lock(void)
{
	g_mutex_lock(&cov_l);
}

static void cov_unlock(void)
{
	g_mutex_unlock(&cov_l);
}

int main(int argc, char **argv)
{
	static const struct cov_lock_ops ops = { "glib_gmutex", cov_lock, cov_unlock, cov_lock,
						 cov_unlock };

	return cov_main(argc, argv, &ops);
}
