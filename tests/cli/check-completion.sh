#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ctest "cli.completion": the bash completion, sourced into bash and called
# as bash calls it on <TAB>, offers the commands, each command's options
# as its --help names them, the values it lists, kmod's verbs, and file
# names where a file goes.
#   check-completion.sh SUPERPASS COMPLETION_FILE
set -u
sp=$1 file=$2
. "$(dirname "$0")/../cli-lib.sh"
# shellcheck source=/dev/null
. "$file" || cli_die "cannot source $file"

# complete WORD...: COMPREPLY for the line `superpass WORD...` with the
# cursor at the end of the last WORD, in $got (one line each, sorted).
complete_line() {
	COMP_WORDS=("$sp" "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_superpass "$sp" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort)
}

# expect WANT WORD...: the completion of `superpass WORD...` is exactly
# WANT (words separated by spaces).
expect() {
	local want
	# shellcheck disable=SC2086 # WANT is a list of words
	want=$(printf '%s\n' $1 | sort)
	shift
	complete_line "$@"
	if [ "$got" = "$want" ]; then
		echo "ok: superpass $*<TAB>"
	else
		cli_fail "superpass $*<TAB>: got '${got//$'\n'/ }', want '${want//$'\n'/ }'"
	fi
}

# expect_has WORD WORDS...: the completion of `superpass WORDS...` offers WORD.
expect_has() {
	local want=$1
	shift
	complete_line "$@"
	if grep -qxF -- "$want" <<<"$got"; then
		echo "ok: superpass $*<TAB> offers $want"
	else
		cli_fail "superpass $*<TAB>: no '$want' in '${got//$'\n'/ }'"
	fi
}

expect "bench" b
expect "analyze bench kmod record replay run sim" ""
expect "--help --version" -
expect "micro" bench ""
expect "--help --iters --json --quiet --version" bench micro --
expect "config list mark stats status unmark" kmod ""
expect "status stats" kmod st
expect_has --json kmod stats --
expect_has --proc kmod --
expect_has --duration sim --
expect_has --sweep sim --s

# every long option of each command's --help and --version, nothing else
for c in bench run sim record analyze replay kmod; do
	"$sp" $c --help >"$tmp/help" 2>/dev/null || { echo "skip: $c --help failed"; continue; }
	want=$( (grep -oE -- '--[a-zA-Z][a-zA-Z0-9-]*' "$tmp/help"; echo --version) | sort -u)
	expect "$want" $c --
done

# record, analyze and replay exist only in a build with the trace library
# (not the arm64 cross build): their cases only where they answer --help
traced=false
"$sp" analyze --help >/dev/null 2>&1 && traced=true

# file names where a file goes, nothing where a number goes
mkdir "$tmp/d" && : >"$tmp/d/work.json" && : >"$tmp/d/app.trace"
expect "$tmp/d/work.json" sim --json "$tmp/d/wo"
expect "$tmp/d/work.json" sim "$tmp/d/wo"
if $traced; then
	expect "$tmp/d/app.trace" analyze -c ui "$tmp/d/ap"
	expect "$tmp/d/app.trace" record -o "$tmp/d/ap"
	expect "" analyze --critical ""
fi
expect "$tmp/d" kmod --proc "$tmp/"
expect "" sim --cpus ""
expect "" sim --k ""

# values the help lists: one of them, or the next item of a list
expect "auto fifo nice observe" run --mode ""
expect "fifo" run --mode f
expect "mutex rwlock chain" bench -s ""
expect "none,superpass none,superpass-preload" bench --policies none,sup
expect "none,superpass" sim -p none,su

# run and record: a command after the options (or after --)
expect_has echo run -c ui -- ech
expect_has echo run -c ui ech
if $traced; then
	expect_has echo record -d 1 -- ech
fi
# with bash-completion loaded, CMD's arguments are completed as CMD's own
bc=/usr/share/bash-completion/bash_completion
if [ -r "$bc" ]; then
	# shellcheck source=/dev/null
	. "$bc"
	expect_has --all run -c ui -- ls --al
else
	echo "note: no $bc: CMD's own completion after run's -- not checked"
fi
cli_done cli.completion
