// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The one entry point, sp_trace_read_file: tells a .dat (plain or gzip),
 * a mapped plain text file and a gzip text stream apart and hands each to
 * its reader; and what its errors mean, in words.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include <superpass/trace.h>

#include "sp_trace_internal.h"

static int map_file(int fd, const char **out, size_t *size)
{
	struct stat st;
	void *m;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > SIZE_MAX)
		return -1;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	(void)madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
	*out = m;
	*size = (size_t)st.st_size;
	return 0;
}

/* ---- one entry point ---- */
static const unsigned char dat_magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

int64_t sp_trace_read_file(const char *path, sp_trace_event_fn fn, void *ctx,
			   struct sp_trace_diag *d)
{
	unsigned char head[10] = { 0 };
	gzFile gz;
	int fd, n;
	int64_t rc;

	if (!strcmp(path, "-")) {
		fd = dup(STDIN_FILENO);
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	/* A .dat is read by libtracecmd from its path; look first. */
	n = (int)pread(fd, head, sizeof(head), 0);
	if (n == (int)sizeof(head) && !memcmp(head, dat_magic, sizeof(head))) {
		close(fd);
		return sp_trace_read_dat(path, fn, ctx, d);
	}
	if (!(n >= 2 && head[0] == 0x1f && head[1] == 0x8b)) {
		const char *m;
		size_t size;

		if (!map_file(fd, &m, &size)) {
			close(fd);
			rc = sp_trace_read_mem_parallel(m, size, fn, ctx, d);
			munmap((void *)m, size);
			goto done;
		}
	}
	gz = gzdopen(fd, "rb"); /* reads plain files as they are */
	if (!gz) {
		close(fd);
		return -ENOMEM;
	}
	gzbuffer(gz, 1u << 18);
	if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) {
		unsigned char inner[10] = { 0 };
		int m = gzread(gz, inner, sizeof(inner));

		if (m == (int)sizeof(inner) && !memcmp(inner, dat_magic, sizeof(inner))) {
			gzrewind(gz);
			rc = sp_trace_read_gz_dat(gz, fn, ctx, d);
			gzclose(gz);
			return rc;
		}
		gzrewind(gz);
	}
	rc = sp_trace_read_stream(NULL, gz, fn, ctx, d);
	if (gzclose(gz) != Z_OK && rc >= 0)
		d->truncated = true;
done:
	if (rc == 0 && d->lines && !d->events && d->skipped[SP_TRSK_BINARY] * 2 > d->lines)
		return -EINVAL;
	return rc;
}

const char *sp_trace_read_strerror(int64_t rc, const char *path, char *buf, size_t cap)
{
	const char *dir = sp_trace_tmpdir(), *env = getenv(SP_TRACE_GZ_MAX_ENV);
	char yourself[4200];

	if (!strcmp(path, "-"))
		snprintf(yourself, sizeof(yourself), "gunzip it first and analyze the .dat");
	else
		snprintf(yourself, sizeof(yourself), "decompress it yourself: gunzip -k %s", path);
	switch (rc) {
	case -EINVAL:
		snprintf(buf, cap, "%s: not a trace (neither ftrace text nor a trace-cmd .dat)", path);
		break;
	case -EIO:
		snprintf(buf, cap, "%s: read error (damaged compressed data, or the device)", path);
		break;
	case -EFBIG:
		snprintf(buf, cap, "%s: a gzip-compressed .dat that expands past %lld MiB, the limit "
			 "(%s; or raise %s)", path, (long long)(sp_trace_gz_max() >> 20), yourself,
			 SP_TRACE_GZ_MAX_ENV);
		break;
	case -ENOSPC:
	case -EDQUOT:
		snprintf(buf, cap, "%s: %s in TMPDIR %s, decompressing the .dat there (it keeps "
			 "the last 5 %% of that filesystem, at most 64 MiB, free): point TMPDIR at "
			 "one with room, or %s", path, strerror((int)-rc), dir, yourself);
		break;
	case -EDOM:
		snprintf(buf, cap, "%s: %s wants MiB, an integer in [1, %u], got '%s'", path,
			 SP_TRACE_GZ_MAX_ENV, SP_TRACE_GZ_MAX_MIB_HI, env ? env : "");
		break;
	default:
		snprintf(buf, cap, "%s: %s", path, strerror(rc < 0 && rc > -4096 ? (int)-rc : EINVAL));
	}
	return buf;
}
