# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Sourced by the tests/*/check-cli.sh scripts (POSIX sh): a temporary
# directory $tmp removed at exit, a failure flag $fail, and checks of a
# command's exit status and messages that print "ok: ..." or "FAIL: ...".
#   . "$(dirname "$0")/../cli-lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/superpass-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

# cli_fail MESSAGE: a failed check; the script goes on.
cli_fail() {
	echo "FAIL: $*"
	fail=1
}

# cli_die MESSAGE: a failed check after which nothing else can be checked.
cli_die() {
	echo "FAIL: $*" >&2
	exit 1
}

# cli_run CMD...: runs CMD, stdout in $tmp/out, stderr in $tmp/err, the
# exit status in $rc, whether or not the caller has set -e.
cli_run() {
	case $- in *e*) cli_e=1; set +e ;; *) cli_e=0 ;; esac
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$cli_e" = 0 ] || set -e
}

# cli_expect_rc WANT WHAT CMD...: runs CMD (cli_run); a status other than
# WANT fails, with CMD's stderr shown, and returns 1.
cli_expect_rc() {
	cli_want=$1 cli_what=$2
	shift 2
	cli_run "$@"
	if [ "$rc" -ne "$cli_want" ]; then
		cli_fail "$cli_what: exit $rc, want $cli_want"
		cat "$tmp/err"
		return 1
	fi
	echo "ok: $cli_what: exit $rc"
}

# cli_expect_err TEXT WHAT: the last command's stderr contains TEXT (a
# fixed string); returns 1 if not.
cli_expect_err() {
	if ! grep -qF -- "$1" "$tmp/err"; then
		cli_fail "$2: stderr lacks '$1':"
		cat "$tmp/err"
		return 1
	fi
}

# cli_expect_output CODE PATTERN CMD...: CMD exits CODE and its stdout or
# stderr matches the basic regular expression PATTERN.
cli_expect_output() {
	cli_code=$1 cli_pat=$2
	shift 2
	cli_run "$@"
	if [ "$rc" != "$cli_code" ] || ! cat "$tmp/out" "$tmp/err" | grep -q -- "$cli_pat"; then
		cli_fail "$* -> exit $rc (want $cli_code), output:"
		cat "$tmp/out" "$tmp/err" | sed 's/^/    /'
		return 1
	fi
	echo "ok: $* -> $rc"
}

# cli_expect_conventions WHO RC NEEDS CMD...: the conventions every
# subcommand keeps for a bad option (CMD followed by it): an unknown short
# option, an unknown long option with a value, and a known option without
# its value (NEEDS, unless empty) each print one line "WHO: ..." naming
# it, and exit RC (2; `superpass run`: 125). --help says -q and the exit
# statuses in the words every subcommand uses.
cli_expect_conventions() {
	cli_who=$1 cli_rc=$2 NEEDS=$3
	shift 3
	cli_expect_output "$cli_rc" "^$cli_who: unknown option '-Z' (see $cli_who --help)\$" \
		"$@" -Z || :
	cli_expect_output "$cli_rc" "^$cli_who: unknown option '--no-such-option' (see" \
		"$@" --no-such-option=1 || :
	if [ -n "${NEEDS:-}" ]; then
		cli_expect_output "$cli_rc" "^$cli_who: option '$NEEDS' needs a value" "$@" "$NEEDS" || :
	fi
	cli_expect_output 0 "^Exit status: " "$@" --help || :
	cli_expect_output 0 "^  -q, --quiet           no progress and no notes on stderr" \
		"$@" --help || :
}

# cli_done NAME: the verdict line, and the exit status of the script.
cli_done() {
	[ "$fail" -eq 0 ] && echo "$1: all passed"
	exit "$fail"
}
