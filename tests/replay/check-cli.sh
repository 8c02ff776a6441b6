#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# `superpass replay` as a user runs it: the self-check on a fixture, a
# --workload file that `superpass sim` runs, --json, --events, and exit 2
# with the file named on bad input.
# usage: check-cli.sh SUPERPASS FIXTURES_DIR
set -eu
sp=$1
fx=$2
. "$(dirname "$0")/../cli-lib.sh"
fail() { cli_die "$@"; }

"$sp" replay "$fx/lockpair-record.trace.gz" --critical waiter -p none,superpass \
	--workload "$tmp/w.json" --json "$tmp/r.json" --svg "$tmp/r.svg" > "$tmp/out"
grep -q '^  trace ' "$tmp/out" || fail "no trace row in the self-check"
grep -q '^  replay none ' "$tmp/out" || fail "no replay row in the self-check"
grep -q '"policy": *"superpass"' "$tmp/r.json" || fail "--json has no superpass record"
grep -q '<svg' "$tmp/r.svg" || fail "--svg is not an SVG"
# --json's "trace": the trace's own blockings and janky frames, the
# self-check's trace row
tb=$(awk '$1 == "trace" { print $2 }' "$tmp/out")
tj=$(awk '$1 == "trace" { print $8 }' "$tmp/out")
tr=$(tr -d ' \n' < "$tmp/r.json" | grep -o '"trace":{[^}]*}') || fail "--json has no trace object"
echo "$tr" | grep -q "\"blockings\":$tb," || fail "--json trace: blockings not $tb: $tr"
echo "$tr" | grep -q "\"janky\":$tj}" || fail "--json trace: janky not $tj: $tr"
"$sp" sim "$tmp/w.json" -p none -q > "$tmp/sim" || fail "superpass sim refused the --workload file"
cli_expect_conventions "superpass replay" 2 --json "$sp" replay "$fx/lockpair-record.trace.gz"
# a --critical name or --tid that selects nothing is warned of, with the
# replayed threads; one that selects a thread is not
cli_expect_output 0 "^superpass replay: warning: --critical nosuch: no replayed thread has it; the replayed threads: .*waiter" \
	"$sp" replay "$fx/lockpair-record.trace.gz" --critical nosuch,wait* -p none || :
cli_expect_output 0 "^superpass replay: warning: --tid 2147483647: no replayed thread" \
	"$sp" replay "$fx/lockpair-record.trace.gz" --critical waiter --tid 2147483647 -p none || :
cli_run "$sp" replay "$fx/lockpair-record.trace.gz" --critical waiter -p none
! grep -q warning "$tmp/err" || cli_fail "a selection that matched warned: $(cat "$tmp/err")"
[ "$fail" = 0 ] || exit 1

# --runs: the self-check's median with the runs' least and most, each
# policy's row its run of median P99.9, every run's figures in --json, and
# the same output for the same seeds.
"$sp" replay "$fx/lockpair-record.trace.gz" --critical waiter -p none,superpass --runs 3 \
	--seed 5 --json "$tmp/r3.json" > "$tmp/out3"
grep -q '^    least of 3 ' "$tmp/out3" || fail "--runs 3: no least row in the self-check"
grep -q '^    most of 3 ' "$tmp/out3" || fail "--runs 3: no most row in the self-check"
grep -q "the trace inside the 3 runs' range" "$tmp/out3" || fail "--runs 3: no range verdict"
grep -q 'median P99.9 of 3 (seeds 5-7' "$tmp/out3" || fail "--runs 3: the seeds are not 5-7"
[ "$(grep -c '"replay_runs"' "$tmp/r3.json")" = 2 ] || fail "--runs 3: not one replay_runs per record"
[ "$(grep -c '"n": 3,' "$tmp/r3.json")" = 2 ] || fail "--runs 3: replay_runs does not count 3 runs"
"$sp" replay "$fx/lockpair-record.trace.gz" --critical waiter -p none,superpass --runs 3 \
	--seed 5 > "$tmp/out3b"
cmp -s "$tmp/out3" "$tmp/out3b" || fail "--runs 3 --seed 5 twice: different output"
"$sp" replay "$fx/lockpair-record.trace.gz" --critical waiter -p none --runs 1 > "$tmp/out1"
grep -q 'least of' "$tmp/out1" && fail "--runs 1: a range of one run"

# --events: each policy's row as simulated events, the same run as the row:
# the critical thread's longest wait in them (first block to acquisition)
# is the row's max_ns, which differs from run to run
"$sp" replay "$fx/lockpair-record.trace.gz" --critical waiter -p none,superpass --runs 3 \
	--seed 5 --events "$tmp/ev" --json "$tmp/rev.json" > /dev/null
[ "$(grep -c '^# superpass replay events: policy ' "$tmp/ev")" = 2 ] ||
	fail "--events: not one section per policy"
grep -q '^# superpass replay events: policy superpass k 4 seed ' "$tmp/ev" ||
	fail "--events: no superpass section"
for kind in switch wake block acquire release; do
	grep -q "^[0-9]*\.[0-9]* $kind " "$tmp/ev" || fail "--events: no $kind event"
done
for pol in none superpass; do
	max=$(tr -d ' \n' < "$tmp/rev.json" |
		grep -o "\"policy\":\"$pol\",[^}]*\"max_ns\":[0-9]*" | sed 's/.*://')
	emax=$(awk -v P="$pol" '
		function ns(x, a) { split(x, a, "."); return a[1] * 1000000000 + a[2] }
		/^# superpass replay events: policy /{ p = $6 == P; next }
		p && $5 ~ /^waiter-/ && $2 == "block" && !w { w = 1; s = ns($1) }
		p && $5 ~ /^waiter-/ && $2 == "acquire" && w { if (ns($1) - s > m) m = ns($1) - s; w = 0 }
		END { printf "%d", m }' "$tmp/ev")
	[ -n "$max" ] && [ "$max" -gt 0 ] && [ "$emax" = "$max" ] ||
		fail "--events $pol: longest critical wait $emax ns, the row's max_ns ${max:-none}"
done
cli_run "$sp" replay "$fx/lockpair-record.trace.gz" --critical waiter -p none \
	--events "$tmp/nodir/ev"
[ "$rc" = 1 ] || fail "--events into a missing directory: exit $rc, not 1"
grep -q "$tmp/nodir/ev" "$tmp/err" || fail "--events: the error does not name the file"

expect2() {
	what=$1
	shift
	cli_run "$sp" replay "$@"
	[ "$rc" = 2 ] || fail "$what: exit $rc, not 2"
}
expect2 "missing file" "$tmp/nope.trace"
grep -q "$tmp/nope.trace" "$tmp/err" || fail "missing file: error does not name it"
printf 'garbage\n\001\002\003\n' > "$tmp/junk"
expect2 "junk" "$tmp/junk"
grep -q "$tmp/junk" "$tmp/err" || fail "junk: error does not name the file"
: > "$tmp/empty"
expect2 "empty" "$tmp/empty"
expect2 "no critical match" "$fx/lockpair-record.trace.gz" --critical nosuchthread
grep -q "critical" "$tmp/err" || fail "no critical match: error does not say so"
expect2 "bad policy" "$fx/lockpair-record.trace.gz" -p bogus
expect2 "bad boost latency" "$fx/lockpair-record.trace.gz" --boost-latency-us soon
grep -q -- "--boost-latency-us" "$tmp/err" || fail "bad boost latency: error does not name the option"
for bad in 0 100 x; do
	expect2 "--runs $bad" "$fx/lockpair-record.trace.gz" --runs "$bad"
	grep -q -- "--runs" "$tmp/err" || fail "--runs $bad: error does not name the option"
done
expect2 "no trace" 

# a timestamp jump of 10^6 s: said once, about the trace (how long, where it
# jumps, the limit), not about a key of the workload the replay makes of it
zcat "$fx/lockpair-record.trace.gz" | awk -v from=100 '
	NR > from && match($0, / [0-9]+\.[0-9]+: /) {
		ts = substr($0, RSTART + 1, RLENGTH - 3)
		$0 = substr($0, 1, RSTART) sprintf("%.6f", ts + 1000000) substr($0, RSTART + RLENGTH - 2)
	}
	{ print }' > "$tmp/jump.trace"
expect2 "timestamp jump" "$tmp/jump.trace" --critical waiter -p none
grep -q "superpass replay: $tmp/jump.trace: the trace spans 1000000 s (.*timestamp jump of 1000000\.[0-9]* s before event [0-9]*, at .*): longer than the simulator's limit of 1000000 s" \
	"$tmp/err" || { cat "$tmp/err"; fail "timestamp jump: not said what is wrong with the trace"; }
[ "$(grep -c jump.trace "$tmp/err")" = 1 ] && ! grep -q "jump.trace: jump.trace" "$tmp/err" &&
	! grep -q "global\." "$tmp/err" || { cat "$tmp/err"; fail "timestamp jump: not said once"; }
echo ok
