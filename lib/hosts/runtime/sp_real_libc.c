// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* libsuperpass: the instrumented locks call glibc's pthread functions.
 * (The interposer replaces this file with lib/hosts/preload/sp_real_next.c.) */
#define _GNU_SOURCE
#include "sp_rt.h"

#define SP_LIBC_FN(field, params, args) .field = pthread_##field,
struct sp_real_ops sp_real = { SP_REAL_OPS(SP_LIBC_FN) };

void sp_real_resolve(void)
{
}
