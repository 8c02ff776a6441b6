/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Kernel stand-in for the C library's <stddef.h>, so that the public headers
 * in include/superpass/ compile unchanged in the kernel module. Kbuild
 * puts this folder first on the include path (-nostdinc is in force).
 */
#ifndef SP_KERNEL_STDDEF_H
#define SP_KERNEL_STDDEF_H

#include <linux/types.h>
#endif
