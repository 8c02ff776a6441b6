#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ctest cli.svg: every SVG picture the `superpass` command writes (sim on
# each shipped workload, a sweep, analyze and replay of a committed trace,
# analyze of the same trace with long, markup-laden thread names) is
# well-formed, renders with rsvg-convert, names its axes and has no
# overlapping text (check_svg.py); a picture is the same bytes on every run;
# curves that are the same say so in the legend and differ in dash.
#   check-svg.sh SUPERPASS WORKLOAD_DIR TRACE_FIXTURES|- PYTHON3 RSVG_CONVERT
# TRACE_FIXTURES "-": built without superpass::trace, no analyze or replay.
set -u
sp=$1 wl=$2 fx=$3 py=$4 rsvg=$5
. "$(dirname "$0")/../cli-lib.sh"
svgs=

run() { # OUT.svg CMD...: CMD writes the SVG OUT.svg
	out=$1
	shift
	if "$@" >"$tmp/out" 2>"$tmp/err"; then
		svgs="$svgs $out"
	else
		cli_fail "exit $? from: $*"
		cat "$tmp/err"
	fi
}

for f in "$wl"/*.json; do
	n=$(basename "$f" .json)
	run "$tmp/sim-$n.svg" "$sp" sim "$f" -q --duration 0.3 --svg "$tmp/sim-$n.svg"
done
"$sp" sim "$wl/mutex.json" -q --duration 0.3 --svg "$tmp/again.svg" >/dev/null 2>&1
cmp -s "$tmp/again.svg" "$tmp/sim-mutex.svg" || cli_fail "sim: two runs, two different SVGs"
# none and proxy-exec block alike here: the legend says so, the dashes differ
grep -q '>same curve as none<' "$tmp/sim-mutex.svg" ||
	cli_fail "sim mutex: no 'same curve as none' in the legend"
[ "$(grep -o 'stroke-dasharray="[^"]*"' "$tmp/sim-mutex.svg" | sort -u | wc -l)" -ge 3 ] ||
	cli_fail "sim mutex: fewer than 3 dash patterns"

run "$tmp/sweep-k.svg" "$sp" sim "$wl/rwlock.json" -q --duration 0.3 --sweep k=1,2,4,8 \
	--svg "$tmp/sweep-k.svg"
grep -q '>same line as none<' "$tmp/sweep-k.svg" ||
	cli_fail "sweep: no 'same line as none' in the legend"
# P99.9 from 0.65 to 74 ms: a log axis, with both 1 and 10 labelled
grep -q '>1</text>' "$tmp/sweep-k.svg" && grep -q '>10</text>' "$tmp/sweep-k.svg" ||
	cli_fail "sweep: the P99.9 axis is not log (no ticks 1 and 10)"
run "$tmp/sweep-nice.svg" "$sp" sim "$wl/mutex.json" -q --duration 0.3 -p none,pi,superpass \
	--sweep nice=-20,-10,0,10,19 --svg "$tmp/sweep-nice.svg"

if [ "$fx" != - ]; then
	tr=$fx/lockpair-record.trace.gz
	run "$tmp/analyze.svg" "$sp" analyze "$tr" --critical waiter --svg "$tmp/analyze.svg"
	run "$tmp/replay.svg" "$sp" replay "$tr" --critical waiter -p none,superpass,pi \
		--svg "$tmp/replay.svg"
	# the longest names a thread can have, with markup in them
	"$py" - "$tr" "$tmp/long.trace" <<'PY'
import gzip, sys
s = gzip.open(sys.argv[1], "rt").read()
s = s.replace("waiter", 'wa<i>&"t-er-15c').replace("holder-a", "holder-a-123456")
open(sys.argv[2], "w").write(s)
PY
	run "$tmp/analyze-long.svg" "$sp" analyze "$tmp/long.trace" --critical 'wa<i>&"t-er-15c' \
		--svg "$tmp/analyze-long.svg"
	grep -q 'wa&lt;i&gt;&amp;&quot;t-er-15c' "$tmp/analyze-long.svg" ||
		cli_fail "analyze: the thread name is not in the SVG, escaped"
fi

# shellcheck disable=SC2086 # one word per file
"$py" "$(dirname "$0")/check_svg.py" "$rsvg" "$tmp" $svgs || fail=1
exit $fail
