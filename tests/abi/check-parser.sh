#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ctest "abi.parser": check-exports.sh finds exactly the declarations of
# tests/abi/fixture/superpass/*.h (multi-line, attributes, function
# pointers, static inline bodies, system headers...) listed in
# fixture/expected.txt. If abi.exports ever misses or invents a name, add
# the case to the fixture first.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$("$here/check-exports.sh" --declared "$here/fixture")
if ! printf '%s\n' "$out" | diff -u "$here/fixture/expected.txt" -; then
	echo "FAIL: check-exports.sh --declared reads the fixture wrong (- expected, + found)"
	exit 1
fi
echo "ok: $(printf '%s\n' "$out" | wc -l) declarations read from the fixture as expected"
