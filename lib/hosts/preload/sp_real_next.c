// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The interposer's view of the real pthread lock functions.
 *
 * All of them are found with dlsym(RTLD_NEXT): the next definition after
 * the interposer, which is glibc's, or a sanitizer's interceptor when the
 * sanitizer runtime is preloaded after us. (glibc's __pthread_mutex_lock
 * aliases would avoid dlsym, but ASan and TSan intercept those names with
 * no real function behind them.) The constructor resolves them; a lock call
 * that comes earlier (another library's constructor) reaches a stand-in
 * that resolves them first (SP_LAZY).
 * dlsym takes only glibc-internal locks, which never reach our wrappers.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sp_rt.h"
#include "sp_preload.h"

/*
 * Until the constructor (or an earlier lock call) resolves them, every
 * pointer leads to a stand-in that resolves them all and calls the real
 * function: the wrappers call through sp_real with no test of their own.
 */
#define SP_LAZY(ops, field, params, args)                                                 \
	static int sp_lazy_##field params                                                 \
	{                                                                                 \
		sp_real_resolve();                                                        \
		return __atomic_load_n(&ops.field, __ATOMIC_RELAXED) args;                \
	}
#define SP_LAZY_OP(field, params, args) SP_LAZY(sp_real, field, params, args)
#define SP_LAZY_EXTRA(field, params, args) SP_LAZY(sp_real_x, field, params, args)
#define SP_LAZY_INIT(field, params, args) .field = sp_lazy_##field,

SP_REAL_OPS(SP_LAZY_OP)
SP_REAL_EXTRA_OPS(SP_LAZY_EXTRA)

struct sp_real_ops sp_real = { SP_REAL_OPS(SP_LAZY_INIT) };
struct sp_real_extra sp_real_x = { SP_REAL_EXTRA_OPS(SP_LAZY_INIT) };
static int sp_real_ready;

static void *sp_next(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		static const char msg[] = "superpass-preload: a pthread function is missing\n";
		ssize_t r = write(STDERR_FILENO, msg, sizeof(msg) - 1);

		(void)r;
		abort();
	}
	return p;
}

#define SP_RESOLVE(field, name) \
	__atomic_store_n(&field, (__typeof__(field))sp_next(name), __ATOMIC_RELAXED);
#define SP_RESOLVE_OP(field, params, args) SP_RESOLVE(sp_real.field, "pthread_" #field)
#define SP_RESOLVE_EXTRA(field, params, args) SP_RESOLVE(sp_real_x.field, "pthread_" #field)

void sp_real_resolve(void)
{
	/* Acquire: pairs with the release below, so that a stand-in called
	 * late (its caller read the old pointer) then reads the real one. */
	if (__atomic_load_n(&sp_real_ready, __ATOMIC_ACQUIRE))
		return;
	/* Racing resolvers store the same values: harmless. */
	sp_rt_enter();
	SP_REAL_OPS(SP_RESOLVE_OP)
	SP_REAL_EXTRA_OPS(SP_RESOLVE_EXTRA)
	sp_rt_leave();
	__atomic_store_n(&sp_real_ready, 1, __ATOMIC_RELEASE);
}
