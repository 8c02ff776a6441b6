#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# ctest "abi.headers": every public header compiles on its own, as strict
# ISO C11 (no GNU extensions, so no feature macro hides a type it uses)
# and as C++11, with warnings as errors.
#
#   check-headers.sh INCLUDE_DIR
#
# CC (default cc) and CXX (default c++) compile; a missing C++ compiler
# skips the C++ half and says so.
set -eu

inc=$(cd "${1:?usage: check-headers.sh INCLUDE_DIR}" && pwd)
CC=${CC:-cc}
CXX=${CXX:-c++}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
have_cxx=1
command -v "$CXX" >/dev/null 2>&1 || { have_cxx=0; echo "check-headers: no $CXX: C++ not checked"; }
for h in "$inc"/superpass/*.h; do
	name=superpass/${h##*/}
	printf '#include <%s>\ntypedef int sp_check_headers_nonempty;\n' "$name" >"$tmp/t.c"
	if ! $CC -std=c11 -pedantic -Wall -Wextra -Werror -I"$inc" -c "$tmp/t.c" -o "$tmp/t.o" 2>"$tmp/err"; then
		echo "check-headers: $name does not compile alone as C11:"; cat "$tmp/err"; fail=1
	fi
	[ "$have_cxx" = 1 ] || continue
	cp "$tmp/t.c" "$tmp/t.cc"
	if ! $CXX -std=c++11 -pedantic -Wall -Wextra -Werror -I"$inc" -c "$tmp/t.cc" -o "$tmp/t.o" 2>"$tmp/err"; then
		echo "check-headers: $name does not compile alone as C++11:"; cat "$tmp/err"; fail=1
	fi
done
[ "$fail" = 0 ] && echo "check-headers: every header of $inc/superpass compiles alone (C11, C++11)"
exit "$fail"
