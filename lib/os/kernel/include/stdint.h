/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Kernel stand-in for the C library's <stdint.h>, so that the public headers
 * in include/superpass/ compile unchanged in the kernel module. Kbuild
 * puts this folder first on the include path (-nostdinc is in force).
 */
#ifndef SP_KERNEL_STDINT_H
#define SP_KERNEL_STDINT_H

#include <linux/types.h>
#include <linux/limits.h>

#ifndef UINT32_MAX
#define UINT32_MAX U32_MAX
#endif
#ifndef UINT64_MAX
#define UINT64_MAX U64_MAX
#endif

#endif
