/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The one version number of superpass. CMake (project VERSION, the
 * libsuperpass SONAME), kmod/Makefile (the DKMS package version) and the
 * kernel module (MODULE_VERSION) all read it from here, so change it here
 * only. Keep each #define on one line as written: the build parses them.
 *
 * SUPERPASS_ABI is the SONAME number of libsuperpass (libsuperpass.so.N):
 * raise it when a function leaves lib/superpass.map or changes its
 * signature, not for additions.
 */
#ifndef SUPERPASS_VERSION_H
#define SUPERPASS_VERSION_H

#define SUPERPASS_VERSION "0.3.0"
#define SUPERPASS_VERSION_MAJOR 0
#define SUPERPASS_VERSION_MINOR 3
#define SUPERPASS_VERSION_PATCH 0

#define SUPERPASS_ABI 2

#endif /* SUPERPASS_VERSION_H */
