// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Lazy urcu-memb reader registration for threads the core does not own. */
#include <pthread.h>

#include "sp_os_posix.h"

__thread int sp_os_rcu_registered __attribute__((tls_model("initial-exec")));

static pthread_key_t sp_os_rcu_key;
static pthread_once_t sp_os_rcu_once = PTHREAD_ONCE_INIT;

/* Runs at thread exit. A later destructor of another library may still
 * enter a read-side section and register again; setting the key again in
 * sp_os_rcu_register_slow() makes pthread run this destructor once more. */
static void sp_os_rcu_thread_exit(void *arg)
{
	(void)arg;
	if (sp_os_rcu_registered) {
		sp_os_rcu_registered = 0;
		urcu_memb_unregister_thread();
	}
}

static void sp_os_rcu_make_key(void)
{
	pthread_key_create(&sp_os_rcu_key, sp_os_rcu_thread_exit);
}

void sp_os_rcu_register_slow(void)
{
	pthread_once(&sp_os_rcu_once, sp_os_rcu_make_key);
	urcu_memb_register_thread();
	sp_os_rcu_registered = 1;
	pthread_setspecific(sp_os_rcu_key, (void *)1);
}
