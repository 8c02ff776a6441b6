// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The coverage workload with a C pthread_mutex_t (cov_workload.h). */
#include <pthread.h>

#include "cov_workload.h"

static pthread_mutex_t cov_l = PTHREAD_MUTEX_INITIALIZER;

static void cov_lock(void)
{
	pthread_mutex_lock(&cov_l);
}

static void cov_unlock(void)
{
	pthread_mutex_unlock(&cov_l);
}

int main(int argc, char **argv)
{
	static const struct cov_lock_ops ops = { "pthread_mutex", cov_lock, cov_unlock, cov_lock,
						 cov_unlock };

	return cov_main(argc, argv, &ops);
}
