#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# ctest "abi_prefix": every global symbol the objects of lib/ define starts
# with sp_, SP_ or _sp. A static build links them all into the program,
# where an unprefixed one takes the place of a libc or application symbol
# of the same name (no version script hides it there). The exceptions are
# the interposer's wrappers, the names and patterns of its version script.
#
#   check-prefix.sh OBJECT_LIST PRELOAD_MAP
#     OBJECT_LIST  a file naming the object files, one a line (CMake writes
#                  it from the lib/ targets' objects)
#     PRELOAD_MAP  lib/hosts/preload/sp_preload.map
# NM (default nm) reads the objects. Exit 1 naming every offender.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
NM=${NM:-nm}

die() { echo "check-prefix: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: $0 OBJECT_LIST PRELOAD_MAP"
list=$1 map=$2
[ -r "$list" ] || die "cannot read $list"
[ -r "$map" ] || die "cannot read $map"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -f "$here/map-globals.awk" "$map" >"$tmp/allowed"
[ -s "$tmp/allowed" ] || die "no global: names in $map"

n=0
: >"$tmp/bad"
while IFS= read -r obj; do
	[ -n "$obj" ] || continue
	[ -r "$obj" ] || die "cannot read $obj (build first)"
	n=$((n + 1))
	# "NAME TYPE VALUE [SIZE]" for every defined global (weak too).
	$NM -g -P --defined-only "$obj" | while read -r name type rest; do
		case $name in sp_* | SP_* | _sp*) continue ;; esac
		ok=0
		while IFS= read -r pat; do
			# shellcheck disable=SC2254
			case $name in $pat) ok=1; break ;; esac
		done <"$tmp/allowed"
		[ $ok -eq 1 ] || echo "$name ($type) in $obj"
	done >>"$tmp/bad"
done <"$list"
[ $n -gt 0 ] || die "no object named in $list"

if [ -s "$tmp/bad" ]; then
	echo "global symbols without the sp_/SP_/_sp prefix (make them static, or prefix them):"
	sort -u "$tmp/bad" | sed 's/^/  /'
	echo "FAIL: $(cut -d' ' -f1 "$tmp/bad" | sort -u | wc -l) unprefixed global symbols in the objects of lib/"
	exit 1
fi
echo "ok: every global symbol of the $n objects of lib/ carries the prefix (or is the interposer's)"
