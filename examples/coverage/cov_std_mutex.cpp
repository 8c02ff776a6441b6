// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The coverage workload with a C++ std::mutex (cov_workload.h): libstdc++'s
 * gthreads call pthread_mutex_lock. */
#include <mutex>

#include "cov_workload.h"

static std::mutex cov_l;

static void cov_lock()
{
	cov_l.lock();
}

static void cov_unlock()
{
	cov_l.unlock();
}

int main(int argc, char **argv)
{
	static const cov_lock_ops ops = { "cxx_std_mutex", cov_lock, cov_unlock, cov_lock,
					  cov_unlock };

	return cov_main(argc, argv, &ops);
}
