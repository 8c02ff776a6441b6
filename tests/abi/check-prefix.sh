#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# ctest "abi.prefix": every global symbol the objects of lib/ define starts
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

grep -v '^$' "$list" >"$tmp/objects" || :
n=$(wc -l <"$tmp/objects")
[ "$n" -gt 0 ] || die "no object named in $list"
while IFS= read -r obj; do
	[ -r "$obj" ] || die "cannot read $obj (build first)"
done <"$tmp/objects"
# "OBJECT: NAME TYPE VALUE [SIZE]" for every defined global (weak too);
# the map's shell patterns (only * and ?) become regular expressions.
tr '\n' '\0' <"$tmp/objects" | xargs -0 "$NM" -A -g -P --defined-only |
	awk -v allowed="$tmp/allowed" '
	BEGIN {
		while ((getline p <allowed) > 0) {
			gsub(/[.+^$(){}|\[\]\\]/, "\\\\&", p)
			gsub(/\*/, ".*", p)
			gsub(/\?/, ".", p)
			re[p] = 1
		}
	}
	{
		obj = $1; sub(/:$/, "", obj); name = $2
		# ASan marks each global with __odr_asan.NAME: NAME is what counts
		sub(/^__odr_asan[.]/, "", name)
		if (name ~ /^(sp_|SP_|_sp)/) next
		for (p in re) if (name ~ ("^" p "$")) next
		print name " (" $3 ") in " obj
	}' >"$tmp/bad"

if [ -s "$tmp/bad" ]; then
	echo "global symbols without the sp_/SP_/_sp prefix (make them static, or prefix them):"
	sort -u "$tmp/bad" | sed 's/^/  /'
	echo "FAIL: $(cut -d' ' -f1 "$tmp/bad" | sort -u | wc -l) unprefixed global symbols in the objects of lib/"
	exit 1
fi
echo "ok: every global symbol of the $n objects of lib/ carries the prefix (or is the interposer's)"
