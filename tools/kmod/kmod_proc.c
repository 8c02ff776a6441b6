// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Reading and writing /proc/superpass/{critical,stats,config}, and turning
 * a failed write into a sentence. The module's errors (kmod/sp_kmod_proc.c):
 * EPERM without CAP_SYS_NICE in the initial user namespace (checked for the
 * opener and the writer), ESRCH for a tid that does not exist, EINVAL for
 * input it refuses (its reason goes to the kernel log), E2BIG for a process
 * of more threads than one write marks, ENOSPC when the core's task table
 * cannot take them; a refused mark marks nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <superpass/version.h>

#include "kmod.h"
#include "sp_vec.h"

const char *kmod_dir = "/proc/superpass";

bool kmod_present(void)
{
	struct stat st;

	return stat(kmod_dir, &st) == 0 && S_ISDIR(st.st_mode);
}

int kmod_not_loaded(void)
{
	char cmd[PATH_MAX + 16];

	if (kmod_load_cmd(cmd, sizeof(cmd))) {
		fprintf(stderr, "superpass kmod: superpass.ko is not loaded (no %s); load it, as "
			"root, with `%s`\n", kmod_dir, cmd);
	} else {
		fprintf(stderr, "superpass kmod: superpass.ko is not loaded (no %s), and not "
			"installed for this kernel nor built. As root, in the source tree: `make -C "
			"kmod dkms-tree && dkms install superpass/%s -k $(uname -r) && modprobe "
			"superpass` (DKMS), or `make -C kmod && insmod build/kmod/superpass.ko`; "
			"docs/kmod-install.md has the steps\n", kmod_dir, SUPERPASS_VERSION);
	}
	return KMOD_FAIL;
}

static char *kmod_path(const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", kmod_dir, name) < 0)
		return NULL;
	return p;
}

int kmod_read(const char *name, char **out)
{
	struct sp_vec buf = SP_VEC_INIT; /* of char, NUL-terminated at the end */
	char *path = kmod_path(name);
	int fd, err = 0;

	*out = NULL;
	if (!path)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n;

		if (sp_vec_reserve(&buf, 1, buf.n + 2, 4096)) {
			err = -ENOMEM;
			break;
		}
		n = read(fd, (char *)buf.data + buf.n, buf.cap - buf.n - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		buf.n += (size_t)n;
	}
	close(fd);
	if (err) {
		sp_vec_free(&buf);
		return err;
	}
	((char *)buf.data)[buf.n] = '\0';
	*out = buf.data;
	return 0;
}

int kmod_read_or_say(const char *cmd, const char *name, char **out)
{
	int err;

	*out = NULL;
	if (!kmod_present())
		return kmod_not_loaded();
	err = kmod_read(name, out);
	if (err) {
		fprintf(stderr, "%s: %s/%s: %s\n", cmd, kmod_dir, name, strerror(-err));
		return KMOD_FAIL;
	}
	return KMOD_OK;
}

int kmod_write(const char *name, const char *text)
{
	char *path = kmod_path(name);
	size_t len = strlen(text);
	ssize_t n;
	int fd, err = 0;

	if (!path)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -errno;
	do
		n = write(fd, text, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

void kmod_write_error(const char *what, const char *name, int err)
{
	const char *why;

	switch (-err) {
	case ENOENT:
		if (!kmod_present()) {
			fprintf(stderr, "superpass kmod: %s: superpass.ko is not loaded (no %s)\n",
				what, kmod_dir);
			return;
		}
		why = "the module has no such file (a different version of superpass.ko?)";
		break;
	case EPERM:
	case EACCES:
		why = "permission denied: writing to the module needs CAP_SYS_NICE in the initial "
		      "user namespace (run as root; a user namespace's root is not enough)";
		break;
	case ESRCH:
		why = "no such thread or process (ids are those of the writer's pid namespace)";
		break;
	case EINVAL:
		why = "the module refused it; its reason is in the kernel log (dmesg | grep superpass)";
		break;
	case E2BIG:
		why = "the process has more threads than the module marks at once (256); nothing "
		      "was marked";
		break;
	case ENOSPC:
		why = "the module's task table cannot take every thread; nothing was marked (load "
		      "superpass.ko with a larger max_tasks=N)";
		break;
	default:
		why = NULL;
	}
	if (why)
		fprintf(stderr, "superpass kmod: %s: %s (%s/%s: %s)\n", what, why, kmod_dir, name,
			strerror(-err));
	else
		fprintf(stderr, "superpass kmod: %s: %s/%s: %s\n", what, kmod_dir, name,
			strerror(-err));
}
