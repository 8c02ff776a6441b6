// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Linked to sp_early_lib.c, whose constructor locks before the
 * interposer's constructor runs; then the same locks again from main. */
#include <stdio.h>

int sp_early_locks(void);

int main(void)
{
	int rc = sp_early_locks();

	printf("sp_early: main locks rc=%d\n", rc);
	return rc != 0;
}
