// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The one entry point, sp_trace_read_file: tells a .dat (plain or gzip),
 * a mapped plain text file and a gzip text stream apart and hands each to
 * its reader.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

static int64_t read_gz_dat(gzFile gz, const char *path, sp_trace_event_fn fn, void *ctx,
			   struct sp_trace_diag *d)
{
	const char *dir = getenv("TMPDIR");
	char tmp[4096], buf[65536];
	int fd, n;
	int64_t rc;

	snprintf(tmp, sizeof(tmp), "%s/superpass-dat-XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	while ((n = gzread(gz, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n) {
			close(fd);
			unlink(tmp);
			return -EIO;
		}
	close(fd);
	if (n < 0)
		d->truncated = true;
	rc = sp_trace_read_dat(tmp, fn, ctx, d);
	unlink(tmp);
	(void)path;
	return rc;
}

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
			rc = read_gz_dat(gz, path, fn, ctx, d);
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
