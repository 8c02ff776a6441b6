// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A library that takes pthread locks in its constructor, which ld.so runs
 * before a preloaded interposer's own (test_rt_preload.c).
 */
#include <pthread.h>
#include <stdio.h>

int sp_early_locks(void);

static pthread_mutex_t sp_early_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t sp_early_rw = PTHREAD_RWLOCK_INITIALIZER;

/* A lock+unlock of each: 0 if every call succeeded. */
int sp_early_locks(void)
{
	int rc = 0;

	rc |= pthread_mutex_lock(&sp_early_m);
	rc |= pthread_mutex_unlock(&sp_early_m);
	rc |= pthread_rwlock_rdlock(&sp_early_rw);
	rc |= pthread_rwlock_unlock(&sp_early_rw);
	rc |= pthread_rwlock_wrlock(&sp_early_rw);
	rc |= pthread_rwlock_unlock(&sp_early_rw);
	return rc;
}

__attribute__((constructor)) static void sp_early_ctor(void)
{
	printf("sp_early: constructor locks rc=%d\n", sp_early_locks());
	fflush(stdout);
}
