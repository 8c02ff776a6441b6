#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ctest "sim_cli": `superpass sim` runs every shipped workload, twice with
# byte-identical output, and rejects each bad file of tests/sim/bad with
# exit status 2 and the message that file expects (its first line after
# "//expect: " lives in bad/NAME.expect), once; each file of tests/sim/warn
# runs with the warning its .expect names.
#   check-cli.sh SUPERPASS WORKLOAD_DIR BAD_DIR
set -eu
sp=$1 wl=$2 bad=$3
warn=$(dirname "$bad")/warn
. "$(dirname "$0")/../cli-lib.sh"

for f in "$wl"/*.json; do
	n=$(basename "$f" .json)
	"$sp" sim "$f" -q --duration 0.3 --k 1,4 --json "$tmp/$n.1.json" --svg "$tmp/$n.svg" \
		>"$tmp/$n.1.txt" || { cli_fail "$n: exit $?"; continue; }
	"$sp" sim "$f" -q --duration 0.3 --k 1,4 --json "$tmp/$n.2.json" >"$tmp/$n.2.txt"
	if ! cmp -s "$tmp/$n.1.txt" "$tmp/$n.2.txt" || ! cmp -s "$tmp/$n.1.json" "$tmp/$n.2.json"; then
		cli_fail "$n: two runs differ"
	fi
	grep -q '"runs"' "$tmp/$n.1.json" || cli_fail "$n: no runs in the JSON"
	grep -q '</svg>' "$tmp/$n.svg" || cli_fail "$n: no SVG"
	echo "ok: $n"
done

# a sweep, and its SVG
"$sp" sim "$wl/rwlock.json" -q --duration 0.3 -p none,superpass --sweep k=1,2 \
	--svg "$tmp/sweep.svg" >"$tmp/sweep.txt" || cli_fail "sweep"
grep -q 'against k' "$tmp/sweep.txt" || cli_fail "sweep table"

cli_expect_conventions "superpass sim" 2 --json "$sp" sim "$wl/mutex.json"
# without -q, on a stderr that is no terminal: no progress; the legend
# explains every column of the table
"$sp" sim "$wl/mutex.json" --duration 0.1 >"$tmp/t" 2>"$tmp/e" || cli_fail "sim without -q"
! grep -q "$(printf '\r')" "$tmp/e" || cli_fail "progress (\\r) written to a stderr that is no terminal"
legend=$(sed -n '/^blocking: /,$p' "$tmp/t")
for c in $(grep '^policy ' "$tmp/t"); do
	[ "$c" = policy ] && continue
	case $legend in *"${c%s}"*) ;; *) cli_fail "the legend does not explain column $c" ;; esac
done

for f in "$bad"/*.json; do
	n=$(basename "$f" .json)
	want=$(cat "$bad/$n.expect")
	if cli_expect_rc 2 "bad/$n" "$sp" sim "$f" -q --duration 0.1; then
		cli_expect_err "$want" "bad/$n" || :
		# told once, on one line that names the file
		[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -qF -- "$f: " "$tmp/err" ||
			{ cli_fail "bad/$n: not one line naming the file:"; cat "$tmp/err"; }
	fi
done

# workloads that run, with a warning on stderr (once) that names the file
for f in "$warn"/*.json; do
	n=$(basename "$f" .json)
	want=$(cat "$warn/$n.expect")
	if cli_expect_rc 0 "warn/$n" "$sp" sim "$f" -q --duration 0.1 -p none; then
		cli_expect_err "$want" "warn/$n" || :
		[ "$(grep -c "warning: $f: " "$tmp/err")" -eq 1 ] ||
			{ cli_fail "warn/$n: not one warning naming the file:"; cat "$tmp/err"; }
	fi
done
# a workload without such faults runs without a word on stderr
for f in "$wl"/*.json; do
	cli_expect_rc 0 "$(basename "$f"): silent" "$sp" sim "$f" -q --duration 0.05 -p none &&
		[ ! -s "$tmp/err" ] || { cli_fail "$f: stderr not empty:"; cat "$tmp/err"; }
done

# bad options
for args in "--cpus 0" "--policies nope" "--k 0" "--sweep zz=1" "--critical nobody" \
	"--boost-latency-us -1" "--boost-latency-us x" "--k 4," "--policies none,,pi" \
	"--seed 1x" "--duration nan" "--cpus +2"; do
	# shellcheck disable=SC2086
	cli_expect_rc 2 "'$args'" "$sp" sim "$wl/mutex.json" -q $args || :
done
cli_done sim_cli
