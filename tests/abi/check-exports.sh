#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#
# ctest "abi.exports": libsuperpass.so exports exactly what the public
# headers declare. Names every symbol that is
#   - exported but declared in no include/superpass/*.h (an internal leak),
#   - declared but not exported (missing from lib/superpass.map, or listed
#     there but defined by no source file),
#   - listed in lib/superpass.map but neither declared nor defined (stale).
#
#   check-exports.sh LIB INCLUDE_DIR MAP   compare (exit 1 on any difference)
#   check-exports.sh --declared INCLUDE_DIR
#                    what the headers declare: "F name" (function), "O name"
#                    (extern object); tests/abi/fixture checks the parser
#   check-exports.sh --map-lines INCLUDE_DIR
#                    the global: lines of lib/superpass.map for today's
#                    headers, to paste when a public function comes or goes
#
# CC (default cc) preprocesses the headers; NM (default nm) reads LIB.
# ABI_OTHER_HEADERS: names of include/superpass/ headers that belong to
# another library than LIB, e.g. "sim.h trace.h" (default: none).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}
NM=${NM:-nm}

die() { echo "check-exports: $*" >&2; exit 2; }

# The declarations of every INCLUDE_DIR/superpass/*.h, preprocessed as one
# translation unit (as the kernel sees none of it, __KERNEL__ stays unset):
# macros and #if'd-out code are gone, line markers tell whose text is whose.
declared() {
	inc=$(cd "$1" && pwd) || die "no include directory $1"
	set -- "$inc"/superpass/*.h
	[ -e "$1" ] || die "no header in $inc/superpass"
	for h in "$@"; do
		case " ${ABI_OTHER_HEADERS:-} " in *" ${h##*/} "*) continue ;; esac
		echo "#include <superpass/${h##*/}>"
	done | $CC -E -I "$inc" -x c - |
		awk -v prefix="$inc/superpass/" -v skip="${ABI_OTHER_HEADERS:-}" \
			-f "$here/decl-names.awk" | sort -u
}

# The names in the global: sections of a version script (C comments, the
# only kind ld and this parser share, removed).
map_globals() {
	awk -f "$here/map-globals.awk" "$1" | sort -u
}

# Defined dynamic symbols of LIB, version suffix dropped; type A is the
# version node (SUPERPASS_1) itself.
exported() {
	$NM -D --defined-only "$1" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u
}

case "${1:-}" in
--declared)
	[ $# -eq 2 ] || die "usage: $0 --declared INCLUDE_DIR"
	declared "$2"
	exit 0 ;;
--map-lines)
	[ $# -eq 2 ] || die "usage: $0 --map-lines INCLUDE_DIR"
	declared "$2" | awk '{ printf "\t\t%s;\n", $2 }'
	exit 0 ;;
esac
[ $# -eq 3 ] || die "usage: $0 LIB INCLUDE_DIR MAP (or --declared / --map-lines INCLUDE_DIR)"
lib=$1 inc=$2 map=$3
[ -r "$lib" ] || die "cannot read $lib"
[ -r "$map" ] || die "cannot read $map"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declared "$inc" | awk '{ print $2 }' | sort -u >"$tmp/declared"
exported "$lib" >"$tmp/exported"
# Every function the library defines, local ones too (empty if stripped).
$NM --defined-only "$lib" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u >"$tmp/local"
map_globals "$map" >"$tmp/map"
[ -s "$tmp/declared" ] || die "no declaration found in $inc/superpass/*.h"
[ -s "$tmp/exported" ] || die "$lib exports nothing (not a shared library?)"

fail=0
report() { # title file hint-command
	[ -s "$2" ] || return 0
	echo "$1:"
	while read -r name; do echo "  $name$($3 "$name")"; done <"$2"
	fail=1
}
in_map() { grep -qxF "$1" "$tmp/map"; }
# The map pattern that matches $1, if any.
pattern_for() {
	while read -r pat; do
		# shellcheck disable=SC2254
		case $1 in $pat) echo "$pat"; return 0 ;; esac
	done <"$tmp/patterns"
	return 1
}
hint_leak() {
	if in_map "$1"; then echo "  (remove it from $map)"
	elif pat=$(pattern_for "$1"); then echo "  (matched by '$pat' in $map)"
	else echo "  (not in $map: is the version script applied?)"; fi
}
hint_missing() {
	if in_map "$1"; then echo "  (in $map, but the library defines no such symbol)"
	elif grep -qxF "$1" "$tmp/local"; then echo "  (defined but local: add it to $map)"
	elif [ -s "$tmp/local" ]; then echo "  (defined nowhere in the library: drop the declaration or define it)"
	else echo "  (add it to $map if the library defines it)"; fi
}
hint_none() { :; }

# Patterns apart: an explicit list is the point of the map.
grep '[*?[]' "$tmp/map" >"$tmp/patterns" || :
grep -v '[*?[]' "$tmp/map" >"$tmp/names" || :
mv "$tmp/names" "$tmp/map"
report "patterns in $map (list each name: a pattern exports whatever it happens to match)" "$tmp/patterns" hint_none
comm -23 "$tmp/exported" "$tmp/declared" >"$tmp/leaked"
report "exported by $lib but declared in no $inc/superpass/*.h" "$tmp/leaked" hint_leak
comm -13 "$tmp/exported" "$tmp/declared" >"$tmp/missing"
report "declared in $inc/superpass/*.h but not exported by $lib" "$tmp/missing" hint_missing
comm -23 "$tmp/map" "$tmp/declared" | comm -23 - "$tmp/exported" >"$tmp/stale"
report "listed in $map but neither declared nor defined (remove them)" "$tmp/stale" hint_none

if [ $fail -ne 0 ]; then
	echo "FAIL: the exports of $lib differ from the public headers (see above)."
	echo "Today's headers need these global: lines: $0 --map-lines $inc"
	exit 1
fi
echo "ok: $lib exports the $(wc -l <"$tmp/exported") symbols that $inc/superpass/*.h declare"
