#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ctest "bench_cli": `superpass bench` rejects bad option values up front,
# before any run, with exit status 2 and a message naming the option (never
# silently), and `--help` lists the options the parser takes. Short runs
# check that every row's JSON record carries the host's steal time (the
# preloaded row's through its child) and that --k reaches the preloaded
# rwlock rows; no figure of them is checked (that is a measurement, not a
# test).
#   check-cli.sh SUPERPASS
set -eu
sp=$1
. "$(dirname "$0")/../cli-lib.sh"

# expect_reject WANT ARGS...: exit 2, stderr contains WANT, stdout empty.
expect_reject() {
	want=$1
	shift
	cli_expect_rc 2 "bench $*" "$sp" bench "$@" || return 0
	cli_expect_err "$want" "bench $*" || return 0
	if [ -s "$tmp/out" ]; then
		cli_fail "bench $*: printed something on stdout (ran?)"
	fi
}

expect_reject "--k wants a comma-separated list" --k ''
expect_reject "--k: empty item" --k '4,'
expect_reject "--k wants an integer" --k '4,x'
expect_reject "--scenarios wants a comma-separated list" -s ''
expect_reject "--scenarios: empty item" -s ','
expect_reject "--scenarios: empty item" -s 'mutex,,chain'
expect_reject "--policies wants a comma-separated list" -p ''
expect_reject "--policies: empty item" -p ','
expect_reject "--policies: unknown name 'foo'" -p 'none,foo'
expect_reject "--json /nonexistent/x.json: cannot create it in /nonexistent" \
	--json /nonexistent/x.json
expect_reject "--json wants a file name" --json ''
expect_reject "--repeat wants an integer" --repeat 0
expect_reject "--repeat wants an integer" -r x
expect_reject "--repeat wants an integer in [1, 100], got '+2'" -r +2
expect_reject "--hogs wants an integer in [0, 32], got '4x'" --hogs 4x
expect_reject "--seed wants an integer in [0, 2147483647], got '99999999999999999999'" \
	--seed 99999999999999999999
expect_reject "--duration wants seconds in (0, 3600], got 'nan'" -d nan
expect_reject "--duration wants seconds in (0, 3600], got '2s'" -d 2s
expect_reject "unknown option" --no-such-option
cli_expect_conventions "superpass bench" 2 --json "$sp" bench
cli_expect_conventions "superpass bench micro" 2 --iters "$sp" bench micro

# A writable --json is accepted by the parser (checked with --help, which
# stops after parsing), and --help names every long option.
"$sp" bench --json "$tmp/ok.json" --help >"$tmp/help" ||
	cli_fail "--json to a writable path rejected"
for opt in --duration --repeat --scenarios --policies --k --json --quiet; do
	grep -qF -- "$opt" "$tmp/help" || cli_fail "--help lacks $opt"
done

# steal_s: seconds, never negative where /proc/stat counts steal (Linux
# since 2.6.11), in both rows.
if "$sp" bench -q -s mutex -p none,superpass-preload -d 0.2 -r 1 --json "$tmp/r.json" \
	>"$tmp/out" 2>"$tmp/err"; then
	n=$(grep -o '"steal_s": [0-9][0-9.]*' "$tmp/r.json" | wc -l)
	if [ "$n" -ne 2 ]; then
		cli_fail "$n of 2 runs carry steal_s:"
		cat "$tmp/r.json"
	else
		echo "ok: both runs carry steal_s"
	fi
else
	cli_fail "a 0.2 s run failed:"
	cat "$tmp/err"
fi
# --k applies to superpass-preload's rwlock rows too (its K in the JSON),
# one row per K; without --k it runs the interposer's default, 4.
if "$sp" bench -q -s rwlock -p superpass-preload --k 2,8 -d 0.2 -r 1 --json "$tmp/k.json" \
	>"$tmp/out" 2>"$tmp/err"; then
	ks=$(tr -d ' \n' < "$tmp/k.json" | grep -o '"policy":"superpass-preload","k":[0-9]*' |
		sed 's/.*://' | tr '\n' ' ')
	if [ "$ks" != "2 8 " ]; then
		cli_fail "--k 2,8: superpass-preload rows with K '$ks', want '2 8 '"
	else
		echo "ok: --k 2,8 runs superpass-preload at K 2 and 8"
	fi
else
	cli_fail "a 0.2 s rwlock run failed:"
	cat "$tmp/err"
fi
# The table has the same columns whatever --repeat is, and the legend
# explains each of them; -q: nothing on stderr (no progress, no notes), and
# no progress either without -q when stderr is not a terminal.
for r in 1 2; do
	if "$sp" bench -s mutex -p none,superpass -d 0.1 -r $r >"$tmp/t$r" 2>"$tmp/e$r"; then
		grep '^policy ' "$tmp/t$r" | tr -s ' ' >"$tmp/h$r"
	else
		cli_fail "bench -r $r failed:"
		cat "$tmp/e$r"
	fi
done
if [ -s "$tmp/h1" ] && cmp -s "$tmp/h1" "$tmp/h2"; then
	echo "ok: the same columns with -r 1 and -r 2"
else
	cli_fail "the columns differ with -r: '$(cat "$tmp/h1")' and '$(cat "$tmp/h2")'"
fi
legend=$(sed -n '/^blocking: /,$p' "$tmp/t2")
for c in $(cat "$tmp/h1"); do
	[ "$c" = policy ] && continue
	case $legend in *"${c%s}"*) ;; *) cli_fail "the legend does not explain column $c" ;; esac
done
for r in 1 2; do
	! grep -q "$(printf '\r')" "$tmp/e$r" || cli_fail "-r $r: progress (\\r) written to a stderr that is no terminal"
done
"$sp" bench -q -s mutex -p none -d 0.1 -r 1 >"$tmp/t3" 2>"$tmp/e3" || cli_fail "bench -q failed"
[ ! -s "$tmp/e3" ] || [ "$(grep -vc 'warning: no CAP_SYS_NICE' "$tmp/e3")" = 0 ] ||
	{ cli_fail "-q: stderr has more than warnings:"; cat "$tmp/e3"; }
grep -q '^none ' "$tmp/t3" || cli_fail "-q: no table"
cli_done bench_cli
