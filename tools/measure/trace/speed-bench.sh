#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The trace reader's speed figure (docs/results/trace-speed.md): `wc -l` and
# `superpass analyze` on the same large text trace (make one with
# make-big-trace.sh), page cache warm, RUNS runs of each in turn; prints
# each time, the median and range, the ratio of the medians, MB/s
# (10^6 bytes) and events/s of analyze. Take the measure lock around it:
#   flock -x /tmp/superpass-measure.lock tools/measure/trace/speed-bench.sh \
#       build/tools/superpass /tmp/big.trace 5
set -eu
sp=$1 trace=$2 runs=${3:-5}
shift 3 2>/dev/null || shift $#
tmp=$(mktemp -d "${TMPDIR:-/tmp}/superpass-speed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# warms the page cache; its summary's first line has the count of events
"$sp" analyze "$trace" --critical sp-ui > "$tmp/summary" 2>&1
secs() { # seconds of wall time of "$@", stdout to $tmp/out
	s=$(date +%s%N)
	"$@" > "$tmp/out" 2> "$tmp/err"
	e=$(date +%s%N)
	echo "$s $e" | awk '{ printf "%.3f\n", ($2 - $1) / 1e9 }'
}
i=0
while [ "$i" -lt "$runs" ]; do
	secs wc -l "$trace" >> "$tmp/wc"
	secs "$sp" analyze "$trace" --critical sp-ui --no-summary >> "$tmp/an"
	i=$((i + 1))
done
bytes=$(wc -c < "$trace")
# "TRACE: L lines, E events used"
events=$(sed -n 's/.*: [0-9]* lines, \([0-9]*\) events used.*/\1/p' "$tmp/summary" | head -1)
echo "wc -l:   $(tr '\n' ' ' < "$tmp/wc")s"
echo "analyze: $(tr '\n' ' ' < "$tmp/an")s"
sort -n "$tmp/wc" > "$tmp/wc.s"
sort -n "$tmp/an" > "$tmp/an.s"
paste "$tmp/wc.s" "$tmp/an.s" | awk -v b="$bytes" -v ev="${events:-0}" -v n="$runs" '
	{ w[NR] = $1; a[NR] = $2 }
	END {
		m = int((n + 1) / 2)
		printf "median wc -l %.3f s (%.3f-%.3f), analyze %.3f s (%.3f-%.3f): %.1fx wc -l\n",
			w[m], w[1], w[n], a[m], a[1], a[n], a[m] / w[m]
		printf "analyze: %.0f MB/s, %.2f M events/s (%d bytes, %d events); wc -l %.0f MB/s\n",
			b / a[m] / 1e6, ev / a[m] / 1e6, b, ev, b / w[m] / 1e6
	}'
