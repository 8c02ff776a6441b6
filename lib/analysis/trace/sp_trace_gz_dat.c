// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A gzip-compressed .dat. libtracecmd seeks in its input, so the .dat is
 * unpacked first, into a file with no name in TMPDIR (O_TMPFILE): the
 * kernel frees it with its last descriptor, however the process ends,
 * SIGKILL included, and it is on disk, where running out is an ENOSPC
 * rather than an OOM kill (a memfd would be neither named nor on disk).
 * Bounded twice: at most sp_trace_gz_max() bytes (a gzip bomb is refused,
 * -EFBIG), and never into the last 5 % (at most 64 MiB) of TMPDIR's
 * filesystem, checked before every write (-ENOSPC).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <zlib.h>

#include <superpass/trace.h>

#include "sp_trace_internal.h"

#define GZ_BUF (1u << 20)
#define GZ_RESERVE_MAX (64ull << 20)

int64_t sp_trace_gz_max(void)
{
	const char *s = getenv(SP_TRACE_GZ_MAX_ENV);
	uint64_t v = 0;

	if (!s || !*s)
		return (int64_t)SP_TRACE_GZ_MAX_DEFAULT_MIB << 20;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9' || v > SP_TRACE_GZ_MAX_MIB_HI)
			return -EDOM;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (v < 1 || v > SP_TRACE_GZ_MAX_MIB_HI)
		return -EDOM;
	return (int64_t)(v << 20);
}

const char *sp_trace_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

static int open_unnamed(const char *dir)
{
	char tmp[4096];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);

	if (fd >= 0)
		return fd;
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	/* A filesystem without O_TMPFILE: named only from mkstemp to unlink. */
	if (snprintf(tmp, sizeof(tmp), "%s/superpass-dat-XXXXXX", dir) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	(void)unlink(tmp);
	return fd;
}

/* 0 when @n more bytes leave the filesystem of @fd its reserve. */
static int room_for(int fd, uint64_t n)
{
	struct statvfs s;
	uint64_t avail, reserve;

	if (fstatvfs(fd, &s))
		return 0; /* cannot tell: write() will */
	avail = (uint64_t)s.f_bavail * s.f_frsize;
	reserve = (uint64_t)s.f_blocks * s.f_frsize / 20;
	if (reserve > GZ_RESERVE_MAX)
		reserve = GZ_RESERVE_MAX;
	return avail >= n + reserve ? 0 : -ENOSPC;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			/* EFBIG here is RLIMIT_FSIZE, not our limit */
			return errno == EFBIG ? -EIO : -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int64_t sp_trace_read_gz_dat(gzFile gz, sp_trace_event_fn fn, void *ctx, struct sp_trace_diag *d)
{
	int64_t max = sp_trace_gz_max(), rc = 0;
	uint64_t total = 0;
	char *buf;
	int fd, n = 0;

	if (max < 0)
		return max;
	buf = malloc(GZ_BUF);
	if (!buf)
		return -ENOMEM;
	fd = open_unnamed(sp_trace_tmpdir());
	if (fd < 0) {
		free(buf);
		return fd;
	}
	while (!rc && (n = gzread(gz, buf, GZ_BUF)) > 0) {
		total += (uint64_t)n;
		if (total > (uint64_t)max)
			rc = -EFBIG;
		else if (!(rc = room_for(fd, (uint64_t)n)))
			rc = write_all(fd, buf, (size_t)n);
	}
	free(buf);
	if (!rc && n < 0) {
		int zerr;

		(void)gzerror(gz, &zerr);
		if (zerr == Z_MEM_ERROR)
			rc = -ENOMEM;
		else
			d->truncated = true; /* what precedes the damage is read */
	}
	if (!rc)
		rc = sp_trace_read_dat_fd(fd, fn, ctx, d);
	/* Frees the blocks now, even if libtracecmd leaked a descriptor of it. */
	n = ftruncate(fd, 0); /* nothing to do if it fails: close frees it */
	(void)n;
	close(fd);
	return rc;
}
