#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ctest "sim_cli": `superpass sim` runs every shipped workload, twice with
# byte-identical output, and rejects each bad file of tests/sim/bad with
# exit status 2 and the message that file expects (its first line after
# "//expect: " lives in bad/NAME.expect).
#   check-cli.sh SUPERPASS WORKLOAD_DIR BAD_DIR
set -eu
sp=$1 wl=$2 bad=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

for f in "$wl"/*.json; do
	n=$(basename "$f" .json)
	"$sp" sim "$f" -q --duration 0.3 --k 1,4 --json "$tmp/$n.1.json" --svg "$tmp/$n.svg" \
		>"$tmp/$n.1.txt" || { echo "FAIL: $n: exit $?"; fail=1; continue; }
	"$sp" sim "$f" -q --duration 0.3 --k 1,4 --json "$tmp/$n.2.json" >"$tmp/$n.2.txt"
	if ! cmp -s "$tmp/$n.1.txt" "$tmp/$n.2.txt" || ! cmp -s "$tmp/$n.1.json" "$tmp/$n.2.json"; then
		echo "FAIL: $n: two runs differ"
		fail=1
	fi
	grep -q '"runs"' "$tmp/$n.1.json" || { echo "FAIL: $n: no runs in the JSON"; fail=1; }
	grep -q '</svg>' "$tmp/$n.svg" || { echo "FAIL: $n: no SVG"; fail=1; }
	echo "ok: $n"
done

# a sweep, and its SVG
"$sp" sim "$wl/rwlock.json" -q --duration 0.3 -p none,superpass --sweep k=1,2 \
	--svg "$tmp/sweep.svg" >"$tmp/sweep.txt" || { echo "FAIL: sweep"; fail=1; }
grep -q 'against k' "$tmp/sweep.txt" || { echo "FAIL: sweep table"; fail=1; }

for f in "$bad"/*.json; do
	n=$(basename "$f" .json)
	want=$(cat "$bad/$n.expect")
	set +e
	"$sp" sim "$f" -q --duration 0.1 >/dev/null 2>"$tmp/err"
	rc=$?
	set -e
	if [ "$rc" -ne 2 ]; then
		echo "FAIL: bad/$n: exit $rc, want 2"
		fail=1
	elif ! grep -qF -- "$want" "$tmp/err"; then
		echo "FAIL: bad/$n: stderr lacks '$want':"
		cat "$tmp/err"
		fail=1
	else
		echo "ok: bad/$n: $(cat "$tmp/err")"
	fi
done

# bad options
for args in "--cpus 0" "--policies nope" "--k 0" "--sweep zz=1" "--critical nobody" \
	"--boost-latency-us -1" "--boost-latency-us x" "--k 4," "--policies none,,pi" \
	"--seed 1x" "--duration nan" "--cpus +2"; do
	set +e
	# shellcheck disable=SC2086
	"$sp" sim "$wl/mutex.json" -q $args >/dev/null 2>&1
	rc=$?
	set -e
	[ "$rc" -eq 2 ] || { echo "FAIL: '$args': exit $rc, want 2"; fail=1; }
done
[ "$fail" -eq 0 ] && echo "sim_cli: all passed"
exit "$fail"
