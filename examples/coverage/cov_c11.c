// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The coverage workload with a C11 mtx_t (cov_workload.h): glibc's mtx_lock
 * calls its internal __pthread_mutex_lock, not the exported symbol. */
#include <stdio.h>
#include <threads.h>

#include "cov_workload.h"

static mtx_t cov_l;

static void cov_lock(void)
{
	mtx_lock(&cov_l);
}

static void cov_unlock(void)
{
	mtx_unlock(&cov_l);
}

int main(int argc, char **argv)
{
	static const struct cov_lock_ops ops = { "c11_mtx", cov_lock, cov_unlock, cov_lock,
						 cov_unlock };

	if (mtx_init(&cov_l, mtx_plain) != thrd_success) {
		fprintf(stderr, "mtx_init failed\n");
		return 1;
	}
	return cov_main(argc, argv, &ops);
}
