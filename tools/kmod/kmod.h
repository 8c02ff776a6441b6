/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * `superpass kmod`: drives superpass.ko through /proc/superpass
 * (kmod/sp_kmod_proc.c is the other side of every file read or written
 * here). One file per job: kmod_main.c (dispatch, help, status, config),
 * kmod_proc.c (reading and writing the files, and saying clearly why that
 * failed), kmod_find.c (how the module loads here), kmod_tids.c (mark, unmark, list), kmod_stats.c (stats).
 */
#ifndef SP_TOOLS_KMOD_H
#define SP_TOOLS_KMOD_H

#include <stdbool.h>
#include <stddef.h>

/* Exit codes of every subcommand. */
enum { KMOD_OK = 0, KMOD_FAIL = 1, KMOD_USAGE = 2 };

/* `superpass kmod ...`: argv[0] is "kmod". */
int kmod_main(int argc, char **argv);

/* ---- kmod_proc.c ---- */
/* The module's directory: /proc/superpass, or --proc DIR. */
extern const char *kmod_dir;
/* The directory exists (the module is loaded, or DIR was given). */
bool kmod_present(void);
/* Prints why nothing can be done without the module; returns KMOD_FAIL. */
int kmod_not_loaded(void);
/* Reads DIR/NAME whole into a NUL-terminated malloc'd buffer: 0 or -errno. */
int kmod_read(const char *name, char **out);
/* kmod_read for the subcommand @cmd ("superpass kmod stats"): KMOD_OK, or
 * KMOD_FAIL with the reason printed (the module not loaded, or the read
 * failed). */
int kmod_read_or_say(const char *cmd, const char *name, char **out);
/* One write(2) of @text, one whole line, to DIR/NAME (the module takes
 * a line per write and refuses a part of one): 0 or -errno. */
int kmod_write(const char *name, const char *text);
/* One line on stderr: "superpass kmod: WHAT: REASON", REASON saying what
 * -errno @err means for a write to DIR/NAME (privilege, a missing thread,
 * the module refusing the input). */
void kmod_write_error(const char *what, const char *name, int err);

/* ---- kmod_find.c ---- */
/* The command that loads superpass.ko here, into @buf: "modprobe superpass"
 * when the running kernel's modules.dep lists it (a DKMS install), else
 * "insmod PATH" for a module built by `make -C kmod`; true. False when
 * neither exists (@buf: "insmod superpass.ko"). */
bool kmod_load_cmd(char *buf, size_t cap);

/* ---- kmod_tids.c ---- */
int kmod_mark_main(int argc, char **argv, bool on);
int kmod_list_main(int argc, char **argv);

/* ---- kmod_stats.c ---- */
int kmod_stats_main(int argc, char **argv);

#endif /* SP_TOOLS_KMOD_H */
