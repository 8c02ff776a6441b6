/* SPDX-License-Identifier: GPL-2.0-only */
/* /proc/superpass/{critical,stats,config}: see sp_kmod_proc.c. */
#ifndef SP_KMOD_PROC_H
#define SP_KMOD_PROC_H

int sp_proc_init(void);
/* Waits for open readers and writers to finish. */
void sp_proc_exit(void);

#endif /* SP_KMOD_PROC_H */
