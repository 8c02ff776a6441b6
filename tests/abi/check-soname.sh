#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ctest "abi.soname" (and "abi.sim-soname"): LIB's SONAME is NAME.so.ABI
# (NAME: libsuperpass unless given), ABI being SUPERPASS_ABI of
# include/superpass/version.h (CMake passes it), and its exported functions
# carry a SUPERPASS_* version node (lib/superpass.map,
# lib/hosts/sim/superpass_sim.map).
#   check-soname.sh LIB ABI [NAME]   (READELF, NM: default readelf, nm)
set -eu
[ $# -eq 2 ] || [ $# -eq 3 ] || { echo "usage: $0 LIB ABI [NAME]" >&2; exit 2; }
lib=$1 abi=$2 name=${3:-libsuperpass}
soname=$(${READELF:-readelf} -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
if [ "$soname" != "$name.so.$abi" ]; then
	echo "FAIL: $lib has SONAME '$soname', want $name.so.$abi"
	exit 1
fi
# A symbol without a version means the version script was not applied.
unversioned=$(${NM:-nm} -D --defined-only "$lib" | awk '$2 != "A" && $3 !~ /@@?SUPERPASS_/ { print $3 }')
if [ -n "$unversioned" ]; then
	echo "FAIL: exported without a SUPERPASS_* version:" $unversioned
	exit 1
fi
echo "ok: $lib is $soname, every export versioned"
