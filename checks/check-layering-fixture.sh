#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ctest "layout.checker": layering.py finds exactly the circles of fixture/
# (a circle of folders closed by a call, an include, a table of function
# pointers and a macro; a circle of files in kmod/) and none made of what
# is no use: comments, strings, members, static functions, a system header
# that a kernel stand-in shadows. fixture/expected.txt is its answer.
#   check-layering-fixture.sh [PYTHON3]
set -u
here=$(cd "$(dirname "$0")" && pwd)
py=${1:-python3}
out=$("$py" "$here/layering.py" "$here/fixture")
rc=$?
if [ "$rc" -ne 1 ]; then
	echo "FAIL: layering.py exited $rc on the fixture, not 1 (circles found)"
	exit 1
fi
if ! printf '%s\n' "$out" | diff -u "$here/fixture/expected.txt" -; then
	echo "FAIL: layering.py's answer on the fixture differs (- expected, + got)"
	exit 1
fi
echo "ok: layering.py finds the fixture's circles and nothing else"
