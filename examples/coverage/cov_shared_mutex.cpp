// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The coverage workload with a C++ std::shared_mutex (cov_workload.h), a
 * pthread_rwlock_t in libstdc++: the bg threads hold it shared, the ui
 * takes it exclusive (it waits for readers). */
#include <shared_mutex>

#include "cov_workload.h"

static std::shared_mutex cov_l;

static void cov_lock()
{
	cov_l.lock();
}

static void cov_unlock()
{
	cov_l.unlock();
}

static void cov_lock_shared()
{
	cov_l.lock_shared();
}

static void cov_unlock_shared()
{
	cov_l.unlock_shared();
}

int main(int argc, char **argv)
{
	static const cov_lock_ops ops = { "cxx_shared_mutex", cov_lock, cov_unlock, cov_lock_shared,
					  cov_unlock_shared };

	return cov_main(argc, argv, &ops);
}
