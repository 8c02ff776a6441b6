#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ctest "cli.man": the manual pages say what --help says. For `superpass`
# and each command its --help lists (bench with `bench micro`): the page
# exists, every long option of --help is in it, every option of its
# OPTIONS section is in --help, every *page*(N) it cites in superpass's
# pages exists; each page has the sections a reader looks for, and scdoc
# and groff (when installed) render it with no warning.
#   check-man.sh SUPERPASS MAN_DIR
set -eu
sp=$1 man=$2
. "$(dirname "$0")/../cli-lib.sh"

# opts_of_section FILE: the options named in the terms (lines "*-x*, *--xx* ...")
# of the page's OPTIONS section.
opts_of_section() {
	sed -n '/^# OPTIONS$/,/^# /p' "$1" | grep '^\*-' |
		grep -oE -- '\*--?[a-zA-Z][a-zA-Z0-9-]*\*' | tr -d '*' | sort -u
}

# check_page PAGE HELPFILE: the options of HELPFILE against PAGE.
check_page() {
	page=$1 help=$2 n=$(basename "$1")
	[ -f "$page" ] || { cli_fail "$n: no such page"; return; }
	for o in $(grep -oE -- '--[a-zA-Z][a-zA-Z0-9-]*' "$help" | sort -u); do
		grep -qF -- "*$o*" "$page" || cli_fail "$n: $o is in --help, not in the page"
	done
	for o in $(grep -oE '^ +-[a-zA-Z],' "$help" | tr -d ' ,' | sort -u); do
		opts_of_section "$page" | grep -qx -- "$o" ||
			cli_fail "$n: $o is in --help, not in the page's OPTIONS"
	done
	for o in $(opts_of_section "$page"); do
		case $o in
		--*) grep -qE -- "(^|[^a-zA-Z0-9-])$o([^a-zA-Z0-9-]|$)" "$help" ;;
		*) grep -qE -- "(^|[][ ,(])$o([] ,]|$)" "$help" ;;
		esac || cli_fail "$n: $o is in the page's OPTIONS, not in --help"
	done
	echo "ok: $n and --help"
}

"$sp" --help >"$tmp/help" || cli_die "superpass --help: exit $?"
check_page "$man/superpass.1.scd" "$tmp/help"
cmds=$(sed -n 's/^\(usage:\)\{0,1\} *superpass \([a-z][a-z-]*\).*/\2/p' "$tmp/help" | sort -u)
[ -n "$cmds" ] || cli_die "no command in superpass --help"
for c in $cmds; do
	if ! "$sp" "$c" --help >"$tmp/help.$c" 2>"$tmp/err"; then
		if grep -q 'built without trace support' "$tmp/err"; then
			echo "skip: $c (built without trace support)"
			continue
		fi
		cli_fail "superpass $c --help: exit status not 0"
		continue
	fi
	if [ "$c" = bench ]; then
		"$sp" bench micro --help >>"$tmp/help.$c" || cli_fail "bench micro --help"
	fi
	check_page "$man/superpass-$c.1.scd" "$tmp/help.$c"
done

for page in "$man"/*.scd; do
	n=$(basename "$page" .scd)
	case $n in
	*.1) want="NAME SYNOPSIS DESCRIPTION OPTIONS EXAMPLES EXIT_STATUS SEE_ALSO" ;;
	*) want="NAME SYNOPSIS DESCRIPTION EXAMPLES SEE_ALSO" ;;
	esac
	for s in $want; do
		grep -qx "# $(echo "$s" | tr _ ' ')" "$page" || cli_fail "$n: no section $s"
	done
	for ref in $(grep -oE '\*(lib)?superpass(-[a-z]+)?\*\([0-9]\)' "$page" | tr -d '*()' | sort -u); do
		sec=$(echo "$ref" | grep -oE '[0-9]$')
		[ -f "$man/${ref%?}.$sec.scd" ] || cli_fail "$n: cites ${ref%?}($sec), which has no page"
	done
done

# Rendering: scdoc's exit status and messages, then groff's warnings (-ww).
if command -v scdoc >/dev/null 2>&1; then
	for page in "$man"/*.scd; do
		n=$(basename "$page" .scd)
		if ! scdoc <"$page" >"$tmp/$n" 2>"$tmp/err" || [ -s "$tmp/err" ]; then
			cli_fail "scdoc $n:"
			cat "$tmp/err"
			continue
		fi
		if command -v groff >/dev/null 2>&1; then
			groff -man -Tutf8 -ww -z "$tmp/$n" 2>"$tmp/err" || cli_fail "groff $n: exit $?"
			[ ! -s "$tmp/err" ] || { cli_fail "groff $n warns:"; cat "$tmp/err"; }
		fi
		echo "ok: $n renders"
	done
	command -v groff >/dev/null 2>&1 || echo "note: no groff: scdoc's status checked only"
else
	echo "note: no scdoc (apt-get install scdoc): the pages were not rendered"
fi
cli_done cli.man
